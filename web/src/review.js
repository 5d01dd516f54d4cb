// The "Analyse a game" page (review.html): a PGN pasted, chosen as a file, or a game of this server
// (review.html?game=ID, from "Request analysis" at a game's end) goes to POST /api/game-analysis;
// its progress streams over the WebSocket; the result is drawn as Lichess draws it: the Win% graph
// with the judged moves marked (a click moves the board there), accuracy and counts per player, the
// move list with coloured glyphs, the comment and the better line of the chosen move, and in
// affective mode the emotional arc under the graph.
import { Chessground } from '@lichess-org/chessground';
import { ApiError, api, wsUrlFrom } from './api.js';
import { INITIAL_FEN, Line } from './line.js';
import { $ } from './util.js';
import { Socket } from './ws.js';

const SVG = 'http://www.w3.org/2000/svg';
const GLYPH = { Inaccuracy: '?!', Mistake: '?', Blunder: '??' };
let config = null;
let current = null; // {id, analysis, line (the game replayed: FENs, move numbers), orientation}
let following = null; // the analysis id whose progress we follow
let chosen = 0; // the ply shown (0: the start)
const cg = Chessground($('#board'), { viewOnly: true, coordinates: true, animation: { enabled: true } });

const node = (tag, attrs = {}, text) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
};
const svg = (tag, attrs = {}) => {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
};

function showError(e) {
  const box = $('#review-error');
  box.hidden = false;
  box.textContent = e instanceof ApiError ? `${e.message} (${e.code})` : String(e.message || e);
}

// look: the second look's {done, total} (its positions searched again, deeper, once all have their search)
function progress(done, total, look) {
  $('#review-progress').hidden = false;
  $('#review-bar-fill').style.width = `${total ? Math.round((100 * done) / total) : 0}%`;
  $('#review-progress-text').textContent = `${done} / ${total} positions` +
    (look && look.total ? `; a second look at the blunders: ${look.done} / ${look.total}` : '');
  $('#review-progress').dataset.done = String(done);
}

function evalText(p) {
  if (p.mate !== undefined) return `#${p.mate}`;
  if (p.eval !== undefined) return (p.eval >= 0 ? '+' : '') + (p.eval / 100).toFixed(2);
  return '';
}

// "12." before White's move of ply (1-based), "12..." before Black's.
const numbered = (ply) => `${current.line.moveNumber(ply)}${current.line.turn(ply - 1) === 'white' ? '.' : '...'}`;

function show(ply) {
  chosen = ply;
  const p = ply > 0 ? current.analysis[ply - 1] : null;
  cg.set({ fen: current.line.fen(ply), lastMove: current.line.lastMoveKeys(ply), orientation: current.orientation });
  for (const el of document.querySelectorAll('#review-moves .rmove')) el.classList.toggle('active', Number(el.dataset.ply) === ply);
  for (const el of document.querySelectorAll('#review-graph .cursor')) {
    el.setAttribute('x1', String(x(ply)));
    el.setAttribute('x2', String(x(ply)));
  }
  const box = $('#review-comment');
  box.replaceChildren();
  if (!p) {
    box.append(node('div', {}, 'The start. Click the graph or a move.'));
    return;
  }
  box.append(node('div', { class: 'review-eval' }, `${numbered(ply)} ${p.move} ${evalText(p)}`));
  if (p.judgment) box.append(node('div', { class: `review-judgment ${p.judgment.name.toLowerCase()}` }, p.judgment.comment));
  if (p.variation) box.append(node('div', { class: 'review-line' }, `Best line: ${p.variation}`));
  if (p.emotion) box.append(node('div', { class: 'review-feel' }, `feels ${p.emotion.label} (relief ${p.emotion.relief.toFixed(2)}), goal ${p.emotion.goal}`));
}

const W = 600;
const x = (ply) => (current.analysis.length ? (ply / current.analysis.length) * W : 0);

function drawGraph() {
  const g = $('#review-graph');
  g.replaceChildren();
  const H = 160;
  const y = (w) => H - (w / 100) * H;
  const pts = [`0,${y(50)}`];
  current.analysis.forEach((p, i) => pts.push(`${x(i + 1)},${y(p.winPercent !== undefined ? p.winPercent : 50)}`));
  g.append(svg('rect', { x: 0, y: 0, width: W, height: H, class: 'graph-bg' }));
  g.append(svg('polygon', { points: `0,${H} ${pts.join(' ')} ${W},${H}`, class: 'graph-white' }));
  g.append(svg('line', { x1: 0, y1: y(50), x2: W, y2: y(50), class: 'graph-mid' }));
  current.analysis.forEach((p, i) => {
    if (!p.judgment) return;
    const c = svg('circle', { cx: x(i + 1), cy: y(p.winPercent !== undefined ? p.winPercent : 50), r: 4, class: `graph-mark ${p.judgment.name.toLowerCase()}` });
    c.dataset.ply = String(i + 1);
    g.append(c);
  });
  g.append(svg('line', { x1: 0, y1: 0, x2: 0, y2: H, class: 'cursor' }));
  g.onclick = (ev) => {
    const box = g.getBoundingClientRect();
    const ply = Math.round(((ev.clientX - box.left) / box.width) * current.analysis.length);
    show(Math.max(0, Math.min(current.analysis.length, ply)));
  };
  // Affective mode: the mover's relief per ply, White's moves above, Black's below.
  const arc = $('#review-arc');
  const feel = current.analysis.filter((p) => p.emotion).length;
  arc.hidden = !feel;
  arc.replaceChildren();
  if (feel) {
    arc.append(svg('rect', { x: 0, y: 0, width: W, height: 60, class: 'graph-bg' }));
    arc.append(svg('line', { x1: 0, y1: 30, x2: W, y2: 30, class: 'graph-mid' }));
    for (const side of [0, 1]) {
      const pts2 = [];
      current.analysis.forEach((p, i) => {
        if (i % 2 === side && p.emotion) pts2.push(`${x(i + 1)},${30 - p.emotion.relief * 28}`);
      });
      arc.append(svg('polyline', { points: pts2.join(' '), class: side ? 'arc-black' : 'arc-white' }));
    }
  }
}

function drawPlayers(players, tags) {
  const t = $('#review-players');
  t.replaceChildren();
  const head = node('tr');
  const styled = ['white', 'black'].some((side) => players[side] && 'style' in players[side]); // Bayesian mode
  const columns = [['', ''], ['accuracy', ''], ['?!', 'inaccuracies'], ['?', 'mistakes'], ['??', 'blunders'], ['ACPL', 'average centipawn loss']];
  if (styled) columns.push(['style', "the player's recognised style (Bayesian mode)"]);
  for (const [h, title] of columns) head.append(node('th', title ? { title } : {}, h));
  t.append(head);
  for (const side of ['white', 'black']) {
    const p = players[side] || {};
    const tr = node('tr', { 'data-side': side });
    tr.append(node('th', {}, tags[side] || side));
    for (const k of ['accuracy', 'inaccuracy', 'mistake', 'blunder', 'acpl']) tr.append(node('td', { class: k }, p[k] === undefined ? '–' : `${p[k]}${k === 'accuracy' ? '%' : ''}`));
    if (styled) {
      const st = p.style;
      const share = st ? Math.round(100 * st.posterior[st.style]) : 0;
      tr.append(node('td', { class: 'style', title: st ? Object.entries(st.posterior).map(([k, v]) => `${k} ${Math.round(100 * v)}%`).join(', ') : 'too short to tell' }, st ? `${st.style} ${share}%` : '–'));
    }
    t.append(tr);
  }
}

function drawMoves() {
  const list = $('#review-moves');
  list.replaceChildren();
  current.analysis.forEach((p, i) => {
    const ply = i + 1;
    if (current.line.turn(i) === 'white' || ply === 1) list.append(node('span', { class: 'rnum' }, numbered(ply)));
    const glyph = p.judgment ? GLYPH[p.judgment.name] || '' : '';
    const b = node('button', { type: 'button', class: `rmove${p.judgment ? ` ${p.judgment.name.toLowerCase()}` : ''}`, 'data-ply': String(ply) }, p.move + glyph);
    b.onclick = () => show(ply);
    list.append(b);
  });
}

async function showResult(r) {
  let pgn = '';
  try {
    pgn = await api.gameAnalysisPgn(r.id);
  } catch {
    /* the graph needs no PGN; the start is then the initial position */
  }
  const tag = (name) => (new RegExp(`\\[${name} "([^"]*)"\\]`).exec(pgn) || [])[1];
  const fen = /\[FEN "([^"]+)"\]/.exec(pgn || '');
  const line = new Line(fen ? fen[1] : INITIAL_FEN, r.analysis.map((p) => p.uci));
  current = { id: r.id, analysis: r.analysis, line, orientation: 'white' };
  $('#review-result').hidden = false;
  $('#review-progress').hidden = true;
  drawGraph();
  drawPlayers(r.players, { white: tag('White'), black: tag('Black') });
  drawMoves();
  const link = $('#review-pgn-link');
  link.href = URL.createObjectURL(new Blob([pgn], { type: 'application/x-chess-pgn' }));
  document.body.dataset.review = 'done';
  show(0);
}

const socket = new Socket(async () => {
  if (!config) config = await api.config();
  return wsUrlFrom(config);
}, {
  message: (m) => {
    if (m.type === 'progress' && m.gameAnalysis === following) progress(m.done, m.total, m.secondLook);
    else if (m.type === 'gameAnalysis' && m.id === following) {
      following = null;
      if (m.status === 'done') showResult(m);
      else showError(new Error(`The analysis ended: ${m.status}.`));
    } else if (m.type === 'error' && following) showError(new ApiError(m.error.code, m.error.message));
  },
  open: () => {
    if (following) socket.send({ op: 'subscribe', gameAnalysis: following });
  },
  state: (s) => {
    $('#conn').dataset.state = s === 'open' ? 'open' : s;
    $('#conn-text').textContent = s === 'open' ? 'connected' : 'connecting…';
  },
});

async function analyse(pgn) {
  $('#review-error').hidden = true;
  $('#review-result').hidden = true;
  document.body.dataset.review = 'running';
  try {
    const r = await api.analyseGame({ pgn, mode: $('#review-mode').value, limits: { nodes: Number($('#review-nodes').value) } });
    following = r.id;
    history.replaceState(null, '', `?id=${r.id}`);
    progress(r.progress.done, r.progress.total, r.progress.secondLook);
    if (socket.open) socket.send({ op: 'subscribe', gameAnalysis: r.id });
  } catch (e) {
    document.body.dataset.review = 'error';
    showError(e);
  }
}

$('#review-form').onsubmit = (ev) => {
  ev.preventDefault();
  const text = $('#review-pgn').value.trim();
  if (!text) showError(new Error('Paste a PGN or choose a file first.'));
  else analyse(text);
};
$('#review-file').onchange = async () => {
  const f = $('#review-file').files[0];
  if (f) {
    $('#review-pgn').value = await f.text();
    analyse($('#review-pgn').value);
  }
};
document.addEventListener('keydown', (ev) => {
  if (!current || ev.target.tagName === 'TEXTAREA') return;
  if (ev.key === 'ArrowRight') show(Math.min(current.analysis.length, chosen + 1));
  else if (ev.key === 'ArrowLeft') show(Math.max(0, chosen - 1));
});

// ?id=ID: an analysis already made (a reload); ?game=ID: a game of this server, analysed now.
(async () => {
  socket.connect();
  const q = new URLSearchParams(location.search);
  try {
    if (q.get('id')) {
      const r = await api.gameAnalysis(q.get('id'));
      if (r.status === 'done') showResult(r);
      else if (r.status === 'queued' || r.status === 'running') {
        following = r.id;
        progress(r.progress.done, r.progress.total, r.progress.secondLook);
      }
    } else if (q.get('game')) {
      const pgn = await api.pgn(q.get('game'));
      $('#review-pgn').value = pgn;
      analyse(pgn);
    }
  } catch (e) {
    showError(e);
  }
})();
