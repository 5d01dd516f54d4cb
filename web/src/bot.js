// The bot's page (bot.html): the Lichess bot's games now, from GET /api/bot every 2 s; the chosen
// game's board, and the engine's thinking on it through a WebSocket subscription to the game's
// current search (its info frames: depth, score, principal variation in SAN).
import { Chessground } from '@lichess-org/chessground';
import { api, wsUrlFrom } from './api.js';
import { $ } from './util.js';
import { Socket } from './ws.js';

const POLL_MS = 2000;
let chosen = null; // Lichess game id shown
let watching = null; // job id subscribed to
let config = null;
const cg = Chessground($('#board'), { viewOnly: true, coordinates: true, animation: { enabled: true } });

const text = (tag, content, cls) => {
  const el = document.createElement(tag);
  el.textContent = content;
  if (cls) el.className = cls;
  return el;
};

function score(frame) {
  if (frame.mate !== undefined && frame.mate !== null) return `#${frame.mate}`;
  if (frame.cp === undefined || frame.cp === null) return '';
  return (frame.cp >= 0 ? '+' : '') + (frame.cp / 100).toFixed(2);
}

function showThinking(frame) {
  const box = $('#bot-thinking');
  box.replaceChildren(
    text('div', `depth ${frame.depth} · ${score(frame)} · ${Math.round((frame.nodes || 0) / 1000)} kN`, 'bot-think-head'),
    text('div', (frame.san || frame.pv || []).slice(0, 12).join(' '), 'bot-think-pv'),
  );
  if (frame.emotion) box.append(text('div', `feels ${frame.emotion.label || ''} · goal ${frame.emotion.goal || ''}`));
}

const socket = new Socket(async () => {
  if (!config) config = await api.config();
  return wsUrlFrom(config);
}, {
  message: (m) => {
    if (m.type === 'info' && m.job === watching) showThinking(m);
  },
  open: () => {
    if (watching) socket.send({ op: 'subscribe', job: watching });
  },
  state: (s) => {
    $('#conn').dataset.state = s === 'open' ? 'open' : s;
    $('#conn-text').textContent = s === 'open' ? 'watching' : 'connecting…';
  },
});

function watch(job) {
  if (job === watching) return;
  watching = job || null;
  if (watching && socket.open) socket.send({ op: 'subscribe', job: watching });
  if (!watching) $('#bot-thinking').replaceChildren(text('div', 'waiting for the opponent', 'bot-think-head'));
}

function render(st) {
  $('#bot-account').textContent = st.account
    ? `${st.account} · ${st.connected ? 'connected to' : 'reconnecting to'} ${st.url} · ${st.mode} mode`
    : st.fatal || 'starting…';
  const list = $('#bot-games');
  list.replaceChildren();
  if (!st.games.length) list.append(text('p', 'No game now: challenge the bot on Lichess.'));
  if (!chosen || !st.games.some((g) => g.id === chosen)) chosen = st.games.length ? st.games[0].id : null;
  for (const g of st.games) {
    const b = text('button', `vs ${g.opponent || '…'}${g.opponentBot ? ' (BOT)' : ''} · ${g.color} · ${g.plies} plies · ${g.status}`, 'button small');
    b.type = 'button';
    b.setAttribute('aria-pressed', String(g.id === chosen));
    b.onclick = () => {
      chosen = g.id;
      render(st);
    };
    list.append(b);
  }
  const g = st.games.find((x) => x.id === chosen);
  if (g && g.fen) cg.set({ fen: g.fen, orientation: g.color });
  watch(g && g.job);
  const r = st.record;
  $('#bot-record').textContent = `won ${r.wins} · lost ${r.losses} · drawn ${r.draws} · aborted ${r.aborted} · ${st.counts.moves} moves` +
    (st.opponentStyle ? ` · last recognised style: ${st.opponentStyle.opponent} plays ${st.opponentStyle.style}` : '') +
    (st.challengeQueue && st.challengeQueue.length ? ` · waiting: ${st.challengeQueue.join(', ')}` : '');
  $('#bot-errors').replaceChildren(...(st.errors || []).slice(0, 5).map((e) => text('li', e)));
}

async function poll() {
  try {
    render(await api.bot());
  } catch (e) {
    $('#bot-account').textContent = e.code === 'bot_off' ? 'This server runs no bot (start it with --bot config.yml).' : `The server did not answer (${e.message}).`;
  }
  setTimeout(poll, POLL_MS);
}

socket.connect();
poll();
