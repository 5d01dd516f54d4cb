// feelfish's page: play the engine through the stateful games API, watch it think through the
// WebSocket analysis stream, and see its emotion (affective mode) or its model of you (bayesian).
//
// This entry point makes the widgets, connects the WebSocket, binds the controls and keys, and
// restores the stored game or line. The state is in state.js, drawn by render.js (which main.js
// hands to state.js's onRender); playing is in game.js, moving through the move list in
// movelist.js, the New game dialog and pasted positions in newgame.js, PGN export in pgn.js,
// messages in toast.js. See docs/ARCHITECTURE.md, "web/".
import { api, wsUrlFrom } from './api.js';
import { Board } from './board.js';
import { Ceval } from './ceval.js';
import { EmotionPanel } from './emotion.js';
import { onBoardMove, refreshGame, resign, setGame, submitSan, takeback } from './game.js';
import { initLab } from './lab.js';
import { exitPreview, goTo, preview } from './movelist.js';
import { analysePaste, openNewGame, submitNewGame, syncDialog } from './newgame.js';
import { OpponentPanel } from './opponent.js';
import { copyPgn, downloadPgn } from './pgn.js';
import { analysisShapes, render, renderPanels } from './render.js';
import { S, board, ceval, onRender, rebuild, setWidgets } from './state.js';
import { showError, toast } from './toast.js';
import { $, renderIcons, store } from './util.js';
import { Socket } from './ws.js';

let socket;

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
  initLab();
  $('#pgn-download').addEventListener('click', downloadPgn);
  $('#new-game').addEventListener('click', () => openNewGame());
  $('#banner').addEventListener('click', (e) => {
    if (e.target.closest('button')) openNewGame();
  });
  $('#new-game-form').addEventListener('submit', submitNewGame);
  $('#new-game-form').addEventListener('change', syncDialog);
  $('#ng-gain').addEventListener('input', syncDialog);
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
  onRender(render);
  renderIcons();
  socket = new Socket(resolveWsUrl, {
    message: (m) => ceval.onMessage(m),
    open: () => {
      ceval.resume();
      if (S.game && (S.game.thinking || !S.pending)) refreshGame();
    },
    close: () => ceval.disconnected(),
    state: renderConnection,
  });
  setWidgets({
    board: new Board($('#board'), $('#promotion'), onBoardMove),
    emotionPanel: new EmotionPanel($('#emotion-panel'), goTo),
    opponentPanel: new OpponentPanel($('#opponent-panel')),
    ceval: new Ceval($('#ceval'), $('#evalbar'), socket, {
      update: (run) => {
        if (!board) return;
        board.setShapes(analysisShapes());
        renderPanels(run);
      },
      preview,
      error: () => {},
    }),
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
