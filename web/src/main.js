// feelfish's page: play the engine through the stateful games API, watch it think through the
// WebSocket analysis stream, and see its emotion (affective mode) or its model of you (bayesian).
//
// State: either a game (the server's game object, plus `prefix`: moves kept in this browser that
// came before the server game's initial position, from a pasted PGN or a takeback the server
// could not do) or a free analysis line. The board, move list and panels are rendered from that
// state and the cursor (the ply shown). See docs/ARCHITECTURE.md, "web/".
import { ApiError, api, hasRoute, wsUrlFrom } from './api.js';
import { Board } from './board.js';
import { Ceval } from './ceval.js';
import { EmotionPanel } from './emotion.js';
import { INITIAL_FEN, Line, PositionError, parseMove, positionFromFen, readPosition, standardUci } from './line.js';
import { OpponentPanel } from './opponent.js';
import { $, $$, el, renderIcons, store, titleCase, words } from './util.js';
import { Socket } from './ws.js';

const S = {
  config: null,
  game: null,
  prefix: null, // {fen, moves, emotions, bayesian}
  free: { rootFen: INITIAL_FEN, moves: [] },
  line: new Line(),
  cursor: 0,
  pending: false, // a move or a new game waits for the server
  optimistic: null, // the human's move shown while the server answers
  preview: null, // {line, sans}
  analysisEmotions: new Map(), // fen -> emotion, from affective analyses
  pollTimer: null,
  drawn: false, // the first render happened (a performance mark for tests/bench/web.mjs)
};

let board;
let ceval;
let emotionPanel;
let opponentPanel;
let socket;

/* ---------- messages ---------- */

function toast(text, kind = 'info', code = undefined, ms = 8000) {
  const box = $('#toasts');
  const t = el(
    `div.toast.${kind}`,
    { role: kind === 'error' ? 'alert' : 'status' },
    code ? el('code.toast-code', {}, code) : null,
    el('span.toast-text', {}, text),
    el('button.toast-close', { type: 'button', 'aria-label': 'dismiss', onclick: () => t.remove() }, '×'),
  );
  box.append(t);
  while (box.children.length > 4) box.firstChild.remove();
  if (ms) setTimeout(() => t.remove(), ms);
  return t;
}

function showError(e) {
  if (e instanceof ApiError || e instanceof PositionError) {
    const retry = e.retryAfter ? ` (retry in ${e.retryAfter} s)` : '';
    toast(`${e.message}${retry}`, 'error', e.code);
  } else {
    toast(String((e && e.message) || e), 'error', 'error');
  }
}

/* ---------- state ---------- */

const humanColor = () => (S.game ? S.game.color : null);
const gameOver = () => !!S.game && S.game.status !== 'started';

function persist() {
  if (S.game) {
    store.set('feelfish.current', S.game.id);
    if (S.prefix) store.set(`feelfish.prefix.${S.game.id}`, S.prefix);
    if (location.hash !== `#${S.game.id}`) history.replaceState(null, '', `#${S.game.id}`);
  } else {
    store.remove('feelfish.current');
    store.set('feelfish.free', S.free);
    if (location.hash) history.replaceState(null, '', location.pathname);
  }
}

function rebuild() {
  try {
    if (S.game) {
      const root = S.prefix ? S.prefix.fen : S.game.initialFen;
      const moves = (S.prefix ? S.prefix.moves : []).concat(S.game.moves);
      if (S.optimistic) moves.push(S.optimistic);
      S.line = new Line(root, moves);
    } else S.line = new Line(S.free.rootFen, S.free.moves);
  } catch (e) {
    showError(e);
    S.prefix = null;
    S.line = S.game ? new Line(S.game.initialFen, S.game.moves) : new Line();
  }
  S.cursor = Math.min(S.cursor, S.line.length);
}

function prefixLength() {
  return S.prefix ? S.prefix.moves.length : 0;
}

// The engine's emotions over the whole line (prefix ones first), plies counted from the line's root.
function gameEmotions() {
  const out = S.prefix && S.prefix.emotions ? [...S.prefix.emotions] : [];
  if (S.game && Array.isArray(S.game.emotions)) for (const e of S.game.emotions) out.push({ ...e, ply: e.ply + prefixLength() });
  return out;
}

// The opponent model records of a bayesian game: `bayesianHistory` (one per engine move, with its
// ply, like `emotions`), else `bayesian` as such a list or as the latest record alone.
function gameModels() {
  const out = S.prefix && S.prefix.bayesian ? [...S.prefix.bayesian] : [];
  const g = S.game;
  const list = g && (Array.isArray(g.bayesianHistory) ? g.bayesianHistory : Array.isArray(g.bayesian) ? g.bayesian : null);
  if (list) for (const r of list) out.push({ ...r, ply: (r.ply ?? 0) + prefixLength() });
  else if (g && g.bayesian && typeof g.bayesian === 'object')
    out.push({ ...g.bayesian, ply: g.bayesian.ply !== undefined ? g.bayesian.ply + prefixLength() : S.line.length - 1 });
  return out;
}

function latestAt(records, ply) {
  let best = null;
  for (const r of records) if (r.ply <= ply && (!best || r.ply >= best.ply)) best = r;
  return best;
}

function setGame(g, jump = true) {
  const changed = !S.game || S.game.id !== g.id;
  S.game = g;
  if (changed) {
    S.prefix = store.get(`feelfish.prefix.${g.id}`);
    board.setOrientation(g.color);
    if (g.mode === 'affective') ceval.setTemperament(g.temperament);
  }
  S.optimistic = null;
  rebuild();
  if (jump) S.cursor = S.line.length;
  S.preview = null;
  persist();
  clearTimeout(S.pollTimer);
  if (g.thinking) S.pollTimer = setTimeout(refreshGame, 400);
  render();
}

async function refreshGame() {
  if (!S.game) return;
  const id = S.game.id;
  try {
    const g = await api.game(id);
    if (S.game && S.game.id === id && !S.pending) setGame(g, g.moves.length !== S.game.moves.length || S.cursor === S.line.length);
  } catch (e) {
    if (e.code === 'connection_lost') S.pollTimer = setTimeout(refreshGame, 1500);
    else showError(e);
  }
}

/* ---------- moves ---------- */

function canMoveAt(ply) {
  if (S.preview) return false;
  if (S.line.outcome(ply)) return false;
  if (!S.game) return true;
  return !S.pending && !gameOver() && !S.game.thinking && ply === S.line.length && S.line.turn(ply) === humanColor();
}

function whyNotMove() {
  if (!S.game) return null;
  if (gameOver()) return 'The game is over: start a new one, or browse it.';
  if (S.pending || S.game.thinking) return 'Wait for feelfish’s move.';
  if (S.cursor !== S.line.length) return 'Go to the last move (↓ or End) to play.';
  if (S.line.turn(S.cursor) !== humanColor()) return 'It is feelfish’s turn.';
  return null;
}

function onBoardMove(uci) {
  if (S.preview) return exitPreview();
  if (!canMoveAt(S.cursor)) {
    render();
    const why = whyNotMove();
    if (why) toast(why, 'warn');
    return;
  }
  if (!S.game) {
    const l = new Line(S.free.rootFen, S.line.ucis.slice(0, S.cursor));
    if (!l.push(uci)) return render();
    S.free.moves = l.ucis;
    S.cursor = l.length;
    rebuild();
    persist();
    return render();
  }
  playMove(uci);
}

async function playMove(uci) {
  const test = new Line(S.line.rootFen, S.line.ucis);
  if (!test.push(uci)) return render();
  const move = test.ucis[test.length - 1];
  const id = S.game.id;
  S.pending = true;
  S.optimistic = move;
  rebuild();
  S.cursor = S.line.length;
  render();
  try {
    const g = await api.move(id, move);
    S.pending = false;
    if (S.game && S.game.id === id) setGame(g);
  } catch (e) {
    S.pending = false;
    S.optimistic = null;
    rebuild();
    S.cursor = S.line.length;
    render();
    showError(e);
    if (e.code === 'not_your_turn' || e.code === 'game_over' || e.code === 'connection_lost') refreshGame();
  }
}

function submitSan(ev) {
  ev.preventDefault();
  const input = $('#san-input');
  const err = $('#san-error');
  const text = input.value.trim();
  if (!text) return;
  if (S.preview) exitPreview();
  const why = canMoveAt(S.cursor) ? null : whyNotMove() || 'No move can be played here.';
  const pos = S.line.pos(S.cursor);
  const move = why ? undefined : parseMove(pos, text);
  if (!move) {
    err.textContent = why || `“${text}” is not a legal move here.`;
    input.classList.add('invalid');
    return;
  }
  err.textContent = '';
  input.classList.remove('invalid');
  input.value = '';
  onBoardMove(standardUci(pos, move));
}

/* ---------- game actions ---------- */

function canTakeback() {
  const n = S.line.length;
  return !!S.game && !gameOver() && !S.pending && !S.game.thinking && n >= 2 && S.line.turn(n) === humanColor();
}

// POST /api/games/{id}/takeback where the server has it and the move to take back is in the
// server's game; otherwise (an older server, or a move of the pasted PGN's prefix) a new game starts
// from the position two plies back, the moves before it kept here as the new game's prefix (so the
// move list, chart and PGN stay whole).
async function takeback() {
  if (!canTakeback()) return;
  const old = S.game;
  const serverStart = S.line.turn(prefixLength());
  const humanMoveOnServer = old.moves.length >= 2 || (old.moves.length === 1 && serverStart === humanColor());
  if (humanMoveOnServer && (await hasRoute('/api/games/{id}/takeback'))) {
    S.pending = true;
    render();
    try {
      const g = await api.takeback(old.id);
      S.pending = false;
      setGame(g);
    } catch (e) {
      S.pending = false;
      render();
      showError(e);
    }
    return;
  }
  const keep = S.line.length - 2;
  const body = { mode: old.mode, color: old.color, level: old.level, fen: S.line.fen(keep) };
  if (old.mode === 'affective') body.temperament = old.temperament;
  if (old.mode === 'bayesian' && old.target) {
    body.target = old.target;
    if (old.target === 'auto' && old.defaultTarget) body.defaultTarget = old.defaultTarget;
  }
  const prefix = keep
    ? {
        fen: S.line.rootFen,
        moves: S.line.ucis.slice(0, keep),
        emotions: gameEmotions().filter((e) => e.ply < keep),
        bayesian: gameModels().filter((b) => b.ply < keep),
      }
    : null;
  S.pending = true;
  render();
  try {
    const g = await api.createGame(body);
    S.pending = false;
    if (prefix) store.set(`feelfish.prefix.${g.id}`, prefix);
    store.remove(`feelfish.prefix.${old.id}`);
    setGame(g);
    toast('Move taken back.', 'info', undefined, 2500);
  } catch (e) {
    S.pending = false;
    render();
    showError(e);
  }
}

let resignArmed = null;
async function resign() {
  if (!S.game || gameOver()) return;
  const btn = $('#resign');
  if (!resignArmed) {
    btn.classList.add('confirm');
    btn.title = 'Click again to resign';
    resignArmed = setTimeout(() => {
      resignArmed = null;
      btn.classList.remove('confirm');
      btn.title = 'Resign';
    }, 3000);
    return;
  }
  clearTimeout(resignArmed);
  resignArmed = null;
  btn.classList.remove('confirm');
  try {
    setGame(await api.resign(S.game.id));
  } catch (e) {
    showError(e);
  }
}

/* ---------- navigation and preview ---------- */

function goTo(ply) {
  S.preview = null;
  S.cursor = Math.max(0, Math.min(S.line.length, ply));
  render();
}

function preview(ucis, sans) {
  const base = S.line.fen(S.cursor);
  const l = new Line(base, []);
  for (const u of ucis) if (!l.push(u)) break;
  S.preview = { line: l, sans };
  render();
}

function exitPreview() {
  if (!S.preview) return;
  S.preview = null;
  render();
}

/* ---------- rendering ---------- */

function positionRequest() {
  const ply = S.cursor;
  const pos = S.line.pos(ply);
  const moves = S.line.ucis.slice(0, ply);
  return {
    key: `${S.line.rootFen}|${moves.join(' ')}`,
    rootFen: S.line.rootFen,
    moves,
    ply,
    turn: pos.turn,
    fullmove: pos.fullmoves,
    fen: S.line.fen(ply),
    ended: S.line.outcome(ply),
  };
}

function renderBoard() {
  if (S.preview) {
    const l = S.preview.line;
    const n = l.length;
    board.show({ fen: l.fen(n), turn: l.turn(n), check: l.pos(n).isCheck(), lastMove: l.lastMoveKeys(n), movable: false, shapes: [] });
    return;
  }
  const ply = S.cursor;
  const pos = S.line.pos(ply);
  const movable = canMoveAt(ply);
  board.show({ fen: S.line.fen(ply), turn: pos.turn, check: pos.isCheck(), lastMove: S.line.lastMoveKeys(ply), movable, dests: movable ? S.line.dests(ply) : new Map(), shapes: analysisShapes() });
}

function analysisShapes() {
  const run = ceval && ceval.run;
  if (S.preview || !run || !ceval.enabled || run.key !== positionRequest().key) return [];
  const shapes = [];
  const best = run.lines[0] && run.lines[0].pv[0];
  if (best) shapes.push({ orig: best.slice(0, 2), dest: best.slice(2, 4), brush: 'paleBlue' });
  const c = ceval.cmp && ceval.cmp.result;
  if (c && c.classical && c.classical.bestMove && c.classical.bestMove !== best)
    shapes.push({ orig: c.classical.bestMove.slice(0, 2), dest: c.classical.bestMove.slice(2, 4), brush: 'paleGrey' });
  return shapes;
}

function renderMoves() {
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

function renderInfo() {
  const info = $('#game-info');
  if (!S.game) {
    info.replaceChildren(el('div.players', {}, el('strong', {}, 'Analysis board'), el('span.muted', {}, ' · move pieces for both sides')));
    info.dataset.status = 'free';
    return;
  }
  const g = S.game;
  const engine = g.color === 'white' ? 'black' : 'white';
  const turn = S.line.turn(S.line.length);
  let status;
  if (gameOver()) status = 'Game over';
  else if (S.pending || g.thinking) status = 'feelfish is thinking…';
  else status = turn === g.color ? 'Your turn' : 'feelfish to move';
  info.dataset.status = gameOver() ? 'over' : S.pending || g.thinking ? 'thinking' : 'your-turn';
  info.replaceChildren(
    el(
      'div.players',
      {},
      el(`span.side-dot.${g.color}`),
      el('strong', {}, 'You'),
      el('span.vs', {}, ' vs '),
      el(`span.side-dot.${engine}`),
      el('strong', {}, `feelfish level ${g.level}`),
    ),
    el('div.game-meta', {}, `${g.mode}${g.mode === 'affective' ? ` · ${g.temperament}` : ''}${g.mode === 'bayesian' && g.target ? ` · target ${g.target}` : ''} · game ${g.id}`),
    el('div#game-status.game-status', { dataset: { thinking: S.pending || g.thinking ? 'yes' : 'no' } }, status),
  );
}

function resultText(g) {
  const you = g.color;
  const winner = g.result === '1-0' ? 'white' : g.result === '0-1' ? 'black' : null;
  const who = winner ? (winner === you ? 'You win' : 'feelfish wins') : 'Draw';
  let how;
  if (g.status === 'mate') how = 'by checkmate';
  else if (g.status === 'resign') how = winner === you ? 'feelfish resigned' : 'you resigned';
  else if (g.status === 'stalemate') how = 'by stalemate';
  else how = g.reason ? `by ${words(g.reason)}` : words(g.status);
  return { title: `${who}${g.status === 'resign' ? '' : ` ${how}`}`, sub: `${g.status === 'resign' ? `${titleCase(how)} · ` : ''}${g.result.replace('1/2', '½')}` };
}

function renderBanner() {
  const b = $('#banner');
  if (!S.game || !gameOver()) {
    b.hidden = true;
    return;
  }
  const r = resultText(S.game);
  b.hidden = false;
  b.dataset.status = S.game.status;
  b.replaceChildren(
    el('div.banner-title', {}, r.title),
    el('div.banner-sub', {}, r.sub),
    el('button.button.small.primary', { type: 'button', onclick: () => openNewGame() }, 'New game'),
  );
}

function renderControls() {
  $('#nav-first').disabled = $('#nav-prev').disabled = S.cursor === 0 && !S.preview;
  $('#nav-last').disabled = $('#nav-next').disabled = S.cursor === S.line.length && !S.preview;
  $('#takeback').disabled = !canTakeback();
  $('#resign').disabled = !S.game || gameOver() || S.pending;
  $('#takeback').hidden = $('#resign').hidden = !S.game;
  const pb = $('#preview-bar');
  pb.hidden = !S.preview;
  if (S.preview) $('#preview-moves').textContent = S.preview.sans.join(' ');
  $('#fen').value = S.preview ? S.preview.line.fen(S.preview.line.length) : S.line.fen(S.cursor);
}

function renderPanels(run) {
  const mode = ceval.mode;
  const gmode = S.game ? S.game.mode : null;
  const ply = S.cursor;
  // Emotion
  const emotions = gameEmotions();
  const showEmotion = mode === 'affective' || gmode === 'affective' || emotions.length > 0;
  const ep = $('#emotion-panel');
  ep.hidden = !showEmotion;
  if (showEmotion) {
    const fen = S.line.fen(ply);
    if (run && run.emotion && run.key === positionRequest().key) S.analysisEmotions.set(fen, run.emotion);
    let emotion = null;
    let source = '';
    if (mode === 'affective' && run && run.emotion && ceval.enabled) {
      emotion = run.emotion;
      source = 'analysis of this position';
    } else {
      const rec = latestAt(emotions, ply);
      if (rec) {
        emotion = rec;
        source = `feelfish before its move at ply ${rec.ply + 1}`;
      } else if (S.analysisEmotions.has(fen)) {
        emotion = S.analysisEmotions.get(fen);
        source = 'analysis of this position';
      }
    }
    emotionPanel.show(emotion, source);
    let points = emotions;
    if (!points.length)
      points = S.line.fens.map((f, i) => (S.analysisEmotions.has(f) ? { ...S.analysisEmotions.get(f), ply: i } : null)).filter(Boolean);
    emotionPanel.chart(points, S.line.length, ply);
  }
  // Opponent model
  const models = gameModels();
  const showModel = mode === 'bayesian' || gmode === 'bayesian' || models.length > 0;
  const op = $('#opponent-panel');
  op.hidden = !showModel;
  if (showModel) {
    if (mode === 'bayesian' && run && run.bayesian && ceval.enabled) opponentPanel.show(run.bayesian, 'analysis of this position');
    else {
      const rec = latestAt(models, ply);
      opponentPanel.show(rec, rec ? `feelfish at ply ${rec.ply + 1}` : '');
    }
  }
}

function render() {
  renderBoard();
  if (!S.drawn && performance.mark) {
    S.drawn = true;
    performance.mark('feelfish:board'); // read by tests/bench/web.mjs
  }
  renderMoves();
  renderInfo();
  renderBanner();
  renderControls();
  if (!S.preview) ceval.setPosition(positionRequest());
  renderPanels(ceval.run);
  document.body.dataset.mode = S.game ? 'play' : 'free';
}

/* ---------- new game dialog ---------- */

function openNewGame(positionText) {
  const d = $('#new-game-dialog');
  const saved = store.get('feelfish.settings', {});
  const modes = (S.config && S.config.modes) || ['classical', 'affective'];
  for (const r of $$('input[name=mode]', d)) {
    r.disabled = !modes.includes(r.value);
    r.closest('label').title = r.disabled ? 'not available on this server yet' : '';
    r.checked = r.value === (saved.mode && modes.includes(saved.mode) ? saved.mode : 'classical');
  }
  for (const r of $$('input[name=level]', d)) r.checked = r.value === String(saved.level || 3);
  for (const r of $$('input[name=temperament]', d)) r.checked = r.value === (saved.temperament || 'neutral');
  for (const r of $$('input[name=target]', d)) r.checked = r.value === (saved.target || 'auto');
  $('#ng-mode-hint').textContent = modes.includes('bayesian') ? '' : 'bayesian mode arrives with its server side.';
  if (positionText !== undefined) $('#ng-position').value = positionText;
  $('#ng-error').hidden = true;
  syncDialog();
  if (!d.open) d.showModal();
}

function syncDialog() {
  const d = $('#new-game-dialog');
  const mode = $('input[name=mode]:checked', d).value;
  $('#ng-temperament').hidden = mode !== 'affective';
  $('#ng-target').hidden = mode !== 'bayesian';
}

async function submitNewGame(ev) {
  ev.preventDefault();
  const d = $('#new-game-dialog');
  const color = ev.submitter && ev.submitter.value ? ev.submitter.value : 'white';
  if (color === 'cancel') return d.close();
  const mode = $('input[name=mode]:checked', d).value;
  const level = Number($('input[name=level]:checked', d).value);
  const temperament = $('input[name=temperament]:checked', d).value;
  const target = $('input[name=target]:checked', d).value;
  store.set('feelfish.settings', { mode, level, temperament, target });
  const errBox = $('#ng-error');
  errBox.hidden = true;
  const body = { mode, color, level };
  if (mode === 'affective') body.temperament = temperament;
  if (mode === 'bayesian') body.target = target;
  let prefix = null;
  try {
    const text = $('#ng-position').value.trim();
    if (text) {
      const p = readPosition(text);
      if (p.kind === 'fen') body.fen = p.rootFen;
      else {
        const l = new Line(p.rootFen, p.ucis);
        body.fen = l.fen(l.length);
        if (p.ucis.length) prefix = { fen: p.rootFen, moves: p.ucis, emotions: [], bayesian: [] };
      }
    }
  } catch (e) {
    errBox.replaceChildren(el('code', {}, e.code || 'error'), ` ${e.message}`);
    errBox.hidden = false;
    return;
  }
  const buttons = $$('.color-button', d);
  buttons.forEach((b) => (b.disabled = true));
  d.classList.add('busy');
  try {
    const g = await api.createGame(body);
    if (prefix) store.set(`feelfish.prefix.${g.id}`, prefix);
    S.game = null;
    S.preview = null;
    S.analysisEmotions.clear();
    d.close();
    setGame(g);
  } catch (e) {
    errBox.replaceChildren(el('code', {}, e.code), ` ${e.message}`);
    errBox.hidden = false;
    showError(e);
  } finally {
    buttons.forEach((b) => (b.disabled = false));
    d.classList.remove('busy');
  }
}

/* ---------- FEN / PGN ---------- */

function analysePaste() {
  const box = $('#paste-error');
  box.hidden = true;
  try {
    const p = readPosition($('#paste').value);
    if (p.kind === 'fen') positionFromFen(p.rootFen);
    const l = new Line(p.rootFen, p.ucis);
    S.game = null;
    S.prefix = null;
    S.pending = false;
    S.optimistic = null;
    clearTimeout(S.pollTimer);
    S.free = { rootFen: l.rootFen, moves: l.ucis };
    rebuild();
    S.cursor = S.line.length;
    S.preview = null;
    persist();
    render();
  } catch (e) {
    box.replaceChildren(el('code', {}, e.code || 'error'), ` ${e.message}`);
    box.hidden = false;
  }
}

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
  if (g) tags.push(['FeelfishMode', `${g.mode}, level ${g.level}`]);
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

async function copyPgn() {
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

async function downloadPgn() {
  const text = await pgnText();
  const url = URL.createObjectURL(new Blob([text], { type: 'application/x-chess-pgn' }));
  const a = el('a', { href: url, download: `feelfish-${S.game ? S.game.id : 'analysis'}.pgn` });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/* ---------- connection ---------- */

let connTicker = null;
function renderConnection(state) {
  const c = $('#conn');
  c.dataset.state = state;
  const text = $('#conn-text');
  clearInterval(connTicker);
  const tick = () => {
    if (socket.state === 'open') text.textContent = 'engine connected';
    else if (socket.state === 'reconnecting') {
      const s = Math.max(0, Math.ceil((socket.retryAt - Date.now()) / 1000));
      text.textContent = s ? `connection lost · retrying in ${s} s` : 'connection lost · retrying…';
    } else text.textContent = 'connecting…';
    if (ceval) ceval.render();
  };
  tick();
  if (state !== 'open') connTicker = setInterval(tick, 1000);
}

// The first connection uses the configuration read at start; a reconnection asks again, since a
// restarted server may have another WebSocket port.
let configPromise = null;
async function resolveWsUrl() {
  try {
    const p = configPromise || api.config();
    configPromise = null;
    S.config = await p;
    ceval.configure(S.config);
  } catch {
    /* the HTTP side is down too: try the address we know */
  }
  return wsUrlFrom(S.config);
}

/* ---------- keyboard and events ---------- */

function typing(target) {
  return target && (target.closest('input, textarea, select, [contenteditable]') || target.closest('dialog[open]'));
}

function onKey(ev) {
  if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
  if (ev.key === 'Escape' && S.preview) return exitPreview();
  if (typing(ev.target)) return;
  const nav = { ArrowLeft: S.cursor - 1, ArrowRight: S.cursor + 1, ArrowUp: 0, Home: 0, ArrowDown: S.line.length, End: S.line.length };
  if (ev.key in nav) {
    ev.preventDefault();
    if (S.preview && ev.key === 'ArrowLeft') return exitPreview();
    goTo(nav[ev.key]);
  } else if (ev.key === 'f') board.flip();
  else if (ev.key === 'l') ceval.toggle();
}

function bind() {
  document.addEventListener('keydown', onKey);
  $('#moves').addEventListener('click', (e) => {
    const m = e.target.closest('[data-ply]');
    if (m) goTo(Number(m.dataset.ply));
  });
  $('#nav-first').addEventListener('click', () => goTo(0));
  $('#nav-prev').addEventListener('click', () => (S.preview ? exitPreview() : goTo(S.cursor - 1)));
  $('#nav-next').addEventListener('click', () => goTo(S.cursor + 1));
  $('#nav-last').addEventListener('click', () => goTo(S.line.length));
  $('#flip').addEventListener('click', () => board.flip());
  $('#takeback').addEventListener('click', takeback);
  $('#resign').addEventListener('click', resign);
  $('#preview-close').addEventListener('click', exitPreview);
  $('#san-form').addEventListener('submit', submitSan);
  $('#san-input').addEventListener('input', () => {
    $('#san-error').textContent = '';
    $('#san-input').classList.remove('invalid');
  });
  $('#pgn-copy').addEventListener('click', copyPgn);
  $('#pgn-download').addEventListener('click', downloadPgn);
  $('#new-game').addEventListener('click', () => openNewGame());
  $('#new-game-form').addEventListener('submit', submitNewGame);
  $('#new-game-form').addEventListener('change', syncDialog);
  $('#ng-close').addEventListener('click', () => $('#new-game-dialog').close());
  $('#paste-analyse').addEventListener('click', analysePaste);
  $('#paste-play').addEventListener('click', () => openNewGame($('#paste').value));
  $('#paste').addEventListener('input', () => ($('#paste-error').hidden = true));
  $('#fen').addEventListener('focus', (e) => e.target.select());
  document.addEventListener('paste', (e) => {
    if (typing(e.target)) return;
    const text = e.clipboardData && e.clipboardData.getData('text');
    if (!text) return;
    e.preventDefault();
    $('#paste').value = text.trim();
    $('#paste').focus();
    $('#paste-error').hidden = true;
  });
  document.addEventListener('visibilitychange', () => {
    if (document.hidden) ceval.stopAll();
    else {
      if (!socket.open) socket.reconnectNow();
      if (ceval.enabled) ceval.restart();
    }
  });
}

/* ---------- start ---------- */

async function boot() {
  renderIcons();
  board = new Board($('#board'), $('#promotion'), onBoardMove);
  emotionPanel = new EmotionPanel($('#emotion-panel'), goTo);
  opponentPanel = new OpponentPanel($('#opponent-panel'));
  socket = new Socket(resolveWsUrl, {
    message: (m) => ceval.onMessage(m),
    open: () => {
      ceval.resume();
      if (S.game && (S.game.thinking || !S.pending)) refreshGame();
    },
    close: () => ceval.disconnected(),
    state: renderConnection,
  });
  ceval = new Ceval($('#ceval'), $('#evalbar'), socket, {
    update: (run) => {
      if (!board) return;
      board.setShapes(analysisShapes());
      renderPanels(run);
    },
    preview,
    error: () => {},
  });
  bind();
  // The configuration, the WebSocket and the stored game are asked for at once.
  configPromise = api.config();
  configPromise.then(
    (c) => {
      S.config = c;
      ceval.configure(c);
    },
    (e) => showError(e),
  );
  socket.connect();
  const id = location.hash.length > 1 ? decodeURIComponent(location.hash.slice(1)) : store.get('feelfish.current');
  if (id) {
    try {
      const g = await api.game(id);
      setGame(g);
      return;
    } catch (e) {
      if (e.code === 'unknown_game') {
        store.remove('feelfish.current');
        store.remove(`feelfish.prefix.${id}`);
        history.replaceState(null, '', location.pathname);
        toast(`The game ${id} is not on this server any more.`, 'warn', e.code);
      } else showError(e);
    }
  }
  const free = store.get('feelfish.free');
  if (free && free.rootFen) S.free = free;
  rebuild();
  S.cursor = S.line.length;
  render();
}

window.addEventListener('DOMContentLoaded', boot);
window.addEventListener('unhandledrejection', (e) => {
  e.preventDefault();
  showError(e.reason);
});
