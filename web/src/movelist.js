// The move list and moving through it: the cursor (the ply shown) and the preview of an analysis
// line played out on the board.
import { Line } from './line.js';
import { render } from './render.js';
import { S, gameOver, humanColor, prefixLength } from './state.js';
import { $, el } from './util.js';

export function goTo(ply) {
  S.preview = null;
  S.cursor = Math.max(0, Math.min(S.line.length, ply));
  render();
}

export function preview(ucis, sans) {
  const base = S.line.fen(S.cursor);
  const l = new Line(base, []);
  for (const u of ucis) if (!l.push(u)) break;
  S.preview = { line: l, sans };
  render();
}

export function exitPreview() {
  if (!S.preview) return;
  S.preview = null;
  render();
}

export function renderMoves() {
  const box = $('#moves');
  const l = S.line;
  const rows = [];
  const rootTurn = l.turn(0);
  for (let ply = 1; ply <= l.length; ply++) {
    const white = l.turn(ply - 1) === 'white';
    if (white || ply === 1) rows.push(el('span.index', {}, String(l.moveNumber(ply))));
    if (!white && ply === 1 && rootTurn === 'black') rows.push(el('span.move.empty', {}, '…'));
    const cls = ['move'];
    if (ply === S.cursor) cls.push('active');
    if (S.optimistic && ply === l.length) cls.push('pending');
    if (ply <= prefixLength()) cls.push('prefix');
    rows.push(el(`button.${cls.join('.')}`, { type: 'button', dataset: { ply }, tabindex: -1 }, l.sans[ply - 1]));
  }
  if (S.game && gameOver()) rows.push(el('div.result', {}, S.game.result));
  if (!l.length) rows.push(el('div.moves-empty', {}, S.game ? (S.line.turn(0) === humanColor() ? 'Your move.' : '') : 'Move a piece, or start a new game.'));
  box.replaceChildren(...rows);
  const active = $('.move.active', box);
  if (active) {
    const top = active.offsetTop - box.offsetTop;
    if (top < box.scrollTop || top > box.scrollTop + box.clientHeight - active.offsetHeight) box.scrollTop = top - box.clientHeight / 2;
  } else if (S.cursor === l.length) box.scrollTop = box.scrollHeight;
}
