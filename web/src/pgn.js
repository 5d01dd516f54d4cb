// PGN export: the server's PGN of a game it holds whole, else one written here from the line;
// copied to the clipboard or downloaded.
import { api } from './api.js';
import { INITIAL_FEN } from './line.js';
import { S } from './state.js';
import { showError, toast } from './toast.js';
import { el } from './util.js';

function pgnDate() {
  const d = new Date();
  return `${d.getFullYear()}.${String(d.getMonth() + 1).padStart(2, '0')}.${String(d.getDate()).padStart(2, '0')}`;
}

// The PGN of the line: the server's own for a game it holds whole, else written here.
async function pgnText() {
  if (S.game && !S.prefix && !S.optimistic) {
    try {
      return await api.pgn(S.game.id);
    } catch (e) {
      showError(e);
    }
  }
  const g = S.game;
  const tags = [
    ['Event', g ? 'feelfish game' : 'feelfish analysis'],
    ['Site', 'feelfish'],
    ['Date', pgnDate()],
    ['White', g ? (g.color === 'white' ? 'You' : 'feelfish') : '?'],
    ['Black', g ? (g.color === 'black' ? 'You' : 'feelfish') : '?'],
    ['Result', g ? g.result : '*'],
  ];
  // As the server's PGN: the engine's side carries the rating it plays at (none at full strength).
  if (g?.elo) tags.push([g.color === 'white' ? 'BlackElo' : 'WhiteElo', String(g.elo)]);
  if (g) tags.push(['FeelfishMode', `${g.mode}, level ${g.level}${g.elo ? `, rating ${g.elo}` : ''}`]);
  if (S.line.rootFen !== INITIAL_FEN && S.line.fen(0) !== INITIAL_FEN) tags.push(['SetUp', '1'], ['FEN', S.line.fen(0)]);
  const out = tags.map(([k, v]) => `[${k} "${String(v).replace(/["\\]/g, '\\$&')}"]`);
  const tokens = [];
  for (let ply = 1; ply <= S.line.length; ply++) {
    const white = S.line.turn(ply - 1) === 'white';
    if (white) tokens.push(`${S.line.moveNumber(ply)}.`);
    else if (ply === 1) tokens.push(`${S.line.moveNumber(ply)}...`);
    tokens.push(S.line.sans[ply - 1]);
  }
  tokens.push(g ? g.result : '*');
  const lines = [];
  let cur = '';
  for (const t of tokens) {
    if (cur && cur.length + 1 + t.length > 79) {
      lines.push(cur);
      cur = t;
    } else cur = cur ? `${cur} ${t}` : t;
  }
  if (cur) lines.push(cur);
  return `${out.join('\n')}\n\n${lines.join('\n')}\n`;
}

export async function copyPgn() {
  const text = await pgnText();
  try {
    await navigator.clipboard.writeText(text);
    toast('PGN copied to the clipboard.', 'info', undefined, 2500);
  } catch {
    const ta = el('textarea', { style: 'position:fixed;opacity:0' }, text);
    document.body.append(ta);
    ta.select();
    const ok = document.execCommand && document.execCommand('copy');
    ta.remove();
    if (ok) toast('PGN copied to the clipboard.', 'info', undefined, 2500);
    else toast('The browser refused the clipboard: use Download PGN instead.', 'warn');
  }
}

export async function downloadPgn() {
  const text = await pgnText();
  const url = URL.createObjectURL(new Blob([text], { type: 'application/x-chess-pgn' }));
  const a = el('a', { href: url, download: `feelfish-${S.game ? S.game.id : 'analysis'}.pgn` });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
