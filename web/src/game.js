// Playing: the server's game kept up to date (polled while the engine thinks), moves made on the
// board or typed (SAN or UCI) going into the free line or to the server (`POST .../moves`, the
// human's move shown at once), and the game actions: takeback and resign.
import { api, hasRoute } from './api.js';
import { Line, parseMove, standardUci } from './line.js';
import { exitPreview } from './movelist.js';
import {
  S,
  board,
  canMoveAt,
  canTakeback,
  ceval,
  gameEmotions,
  gameModels,
  gameOver,
  humanColor,
  persist,
  playerId,
  prefixLength,
  rebuild,
  requestRender,
} from './state.js';
import { showError, toast } from './toast.js';
import { $, levelElo, store } from './util.js';

export function setGame(g, jump = true) {
  const changed = !S.game || S.game.id !== g.id;
  S.game = g;
  if (changed) {
    S.prefix = store.get(`feelfish.prefix.${g.id}`);
    board.setOrientation(g.color);
    if (g.mode === 'affective') ceval.setTemperament(g.temperament, g.gain);
  }
  S.optimistic = null;
  rebuild();
  if (jump) S.cursor = S.line.length;
  S.preview = null;
  persist();
  clearTimeout(S.pollTimer);
  if (g.thinking) S.pollTimer = setTimeout(refreshGame, 400);
  requestRender();
}

export async function refreshGame() {
  if (!S.game) return;
  const id = S.game.id;
  try {
    const g = await api.game(playerId());
    if (S.game && S.game.id === id && !S.pending) setGame(g, g.moves.length !== S.game.moves.length || S.cursor === S.line.length);
  } catch (e) {
    if (e.code === 'connection_lost') S.pollTimer = setTimeout(refreshGame, 1500);
    else showError(e);
  }
}

/* ---------- moves ---------- */

function whyNotMove() {
  if (!S.game) return null;
  if (gameOver()) return 'The game is over: start a new one, or browse it.';
  if (S.pending || S.game.thinking) return 'Wait for feelfish’s move.';
  if (S.cursor !== S.line.length) return 'Go to the last move (↓ or End) to play.';
  if (S.line.turn(S.cursor) !== humanColor()) return 'It is feelfish’s turn.';
  return null;
}

export function onBoardMove(uci) {
  if (S.preview) return exitPreview();
  if (!canMoveAt(S.cursor)) {
    requestRender();
    const why = whyNotMove();
    if (why) toast(why, 'warn');
    return;
  }
  if (!S.game) {
    const l = new Line(S.free.rootFen, S.line.ucis.slice(0, S.cursor));
    if (!l.push(uci)) return requestRender();
    S.free.moves = l.ucis;
    S.cursor = l.length;
    rebuild();
    persist();
    return requestRender();
  }
  playMove(uci);
}

async function playMove(uci) {
  const test = new Line(S.line.rootFen, S.line.ucis);
  if (!test.push(uci)) return requestRender();
  const move = test.ucis[test.length - 1];
  const id = S.game.id, key = playerId();
  S.pending = true;
  S.optimistic = move;
  rebuild();
  S.cursor = S.line.length;
  requestRender();
  try {
    const g = await api.move(key, move);
    S.pending = false;
    if (S.game && S.game.id === id) setGame(g);
  } catch (e) {
    S.pending = false;
    S.optimistic = null;
    rebuild();
    S.cursor = S.line.length;
    requestRender();
    showError(e);
    if (e.code === 'not_your_turn' || e.code === 'game_over' || e.code === 'connection_lost') refreshGame();
  }
}

export function submitSan(ev) {
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

// POST /api/games/{id}/takeback where the server has it and the move to take back is in the
// server's game; otherwise (an older server, or a move of the pasted PGN's prefix) a new game starts
// from the position two plies back, the moves before it kept here as the new game's prefix (so the
// move list, chart and PGN stay whole).
export async function takeback() {
  if (!canTakeback()) return;
  const old = S.game;
  const serverStart = S.line.turn(prefixLength());
  const humanMoveOnServer = old.moves.length >= 2 || (old.moves.length === 1 && serverStart === humanColor());
  if (humanMoveOnServer && (await hasRoute('/api/games/{id}/takeback'))) {
    S.pending = true;
    requestRender();
    try {
      const g = await api.takeback(playerId(old));
      S.pending = false;
      setGame(g);
    } catch (e) {
      S.pending = false;
      requestRender();
      showError(e);
    }
    return;
  }
  const keep = S.line.length - 2;
  // a game asked at a rating of its own goes on at that rating, not at its nearest level's
  const strength = old.elo && old.elo !== levelElo(S.config, old.level) ? { elo: old.elo } : { level: old.level };
  const body = { mode: old.mode, color: old.color, ...strength, fen: S.line.fen(keep) };
  if (old.mode === 'affective') Object.assign(body, { temperament: old.temperament, gain: old.gain });
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
  requestRender();
  try {
    const g = await api.createGame(body);
    S.pending = false;
    if (prefix) store.set(`feelfish.prefix.${g.id}`, prefix);
    store.remove(`feelfish.prefix.${old.id}`);
    setGame(g);
    toast('Move taken back.', 'info', undefined, 2500);
  } catch (e) {
    S.pending = false;
    requestRender();
    showError(e);
  }
}

let resignArmed = null;
export async function resign() {
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
    setGame(await api.resign(playerId()));
  } catch (e) {
    showError(e);
  }
}
