// Renders the page from the state: the board (with the analysis's best-move arrows), the move list,
// the game's players and status, the result banner, the controls, the emotion and opponent panels,
// and the position the analysis follows. It only reads the state: the clicks on what it draws are
// bound by main.js.
import {
  S,
  board,
  canMoveAt,
  canTakeback,
  ceval,
  emotionPanel,
  gameEmotions,
  gameModels,
  gameOver,
  humanColor,
  latestAt,
  opponentPanel,
  prefixLength,
} from './state.js';
import { $, el, titleCase, words } from './util.js';

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

export function analysisShapes() {
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
      el('span.elo', {}, g.elo ? ` ≈ ${g.elo}` : ' · full strength'),
    ),
    el('div.game-meta', {}, `${g.mode}${g.mode === 'affective' ? ` · ${g.temperament} · gain ${Number(g.gain).toFixed(2)}` : ''}${g.mode === 'bayesian' && g.target ? ` · target ${g.target}` : ''} · game ${g.id}`),
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
    el('button.button.small.primary', { type: 'button' }, 'New game'), // opens the dialog: bound by main.js
    el('a.button.small', { href: `review.html?game=${encodeURIComponent(S.game.id)}`, id: 'request-analysis' }, 'Request analysis'),
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

export function renderPanels(run) {
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

export function render() {
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
