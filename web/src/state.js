// The page's state and what is read from it. Either a game (the server's game object, plus
// `prefix`: moves kept in this browser that came before the server game's initial position, from a
// pasted PGN or a takeback the server could not do) or a free analysis line. The board, move list
// and panels are rendered from that state and the cursor (the ply shown), by render.js: main.js
// hands its render() to onRender at start, and the modules that change the state call
// requestRender(), so that none of them imports render.js.
import { INITIAL_FEN, Line } from './line.js';
import { showError } from './toast.js';
import { store } from './util.js';

export const S = {
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

// The page's widgets, made once by main.js at start (setWidgets) and used by the other modules.
export let board;
export let ceval;
export let emotionPanel;
export let opponentPanel;

export function setWidgets(w) {
  ({ board, ceval, emotionPanel, opponentPanel } = w);
}

// requestRender() draws the page from the state at once, with the function main.js hands to
// onRender at start (render.js's render()).
let renderer = null;
export function onRender(fn) {
  renderer = fn;
}
export function requestRender() {
  renderer();
}

export const humanColor = () => (S.game ? S.game.color : null);
export const gameOver = () => !!S.game && S.game.status !== 'started';

// Whether a move can be played at the ply shown: never during a preview or where the line's position
// is over; in a game, only the human's move at the end of the line, while nothing waits and the game
// goes on.
export function canMoveAt(ply) {
  if (S.preview) return false;
  if (S.line.outcome(ply)) return false;
  if (!S.game) return true;
  return !S.pending && !gameOver() && !S.game.thinking && ply === S.line.length && S.line.turn(ply) === humanColor();
}

export function canTakeback() {
  const n = S.line.length;
  return !!S.game && !gameOver() && !S.pending && !S.game.thinking && n >= 2 && S.line.turn(n) === humanColor();
}

// The id the player names the game by: its fullId (the public id and a secret, as on Lichess), which
// the server gives only to the game's creator and takes for moves, takeback and resign; the public
// id when this page only watches the game.
export function playerId(g = S.game) {
  return g.fullId || g.id;
}

export function persist() {
  if (S.game) {
    store.set('feelfish.current', playerId());
    if (S.prefix) store.set(`feelfish.prefix.${S.game.id}`, S.prefix);
    if (location.hash !== `#${playerId()}`) history.replaceState(null, '', `#${playerId()}`);
  } else {
    store.remove('feelfish.current');
    store.set('feelfish.free', S.free);
    if (location.hash) history.replaceState(null, '', location.pathname);
  }
}

export function rebuild() {
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

export function prefixLength() {
  return S.prefix ? S.prefix.moves.length : 0;
}

// The engine's emotions over the whole line (prefix ones first), plies counted from the line's root.
export function gameEmotions() {
  const out = S.prefix && S.prefix.emotions ? [...S.prefix.emotions] : [];
  if (S.game && Array.isArray(S.game.emotions)) for (const e of S.game.emotions) out.push({ ...e, ply: e.ply + prefixLength() });
  return out;
}

// The opponent model records of a bayesian game: `bayesianHistory` (one per engine move, with its
// ply, like `emotions`), else `bayesian` as such a list or as the latest record alone.
export function gameModels() {
  const out = S.prefix && S.prefix.bayesian ? [...S.prefix.bayesian] : [];
  const g = S.game;
  const list = g && (Array.isArray(g.bayesianHistory) ? g.bayesianHistory : Array.isArray(g.bayesian) ? g.bayesian : null);
  if (list) for (const r of list) out.push({ ...r, ply: (r.ply ?? 0) + prefixLength() });
  else if (g && g.bayesian && typeof g.bayesian === 'object')
    out.push({ ...g.bayesian, ply: g.bayesian.ply !== undefined ? g.bayesian.ply + prefixLength() : S.line.length - 1 });
  return out;
}

export function latestAt(records, ply) {
  let best = null;
  for (const r of records) if (r.ply <= ply && (!best || r.ply >= best.ply)) best = r;
  return best;
}
