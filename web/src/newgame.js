// Starting over: the New game dialog (mode, level, temperament or target, colour, and an optional
// start position from a FEN or PGN) and the Position panel's Analyse (a free line from a pasted FEN
// or PGN).
import { api } from './api.js';
import { setGame } from './game.js';
import { Line, positionFromFen, readPosition } from './line.js';
import { S, persist, rebuild, requestRender } from './state.js';
import { showError } from './toast.js';
import { $, $$, el, levelRating, store, temperamentGain } from './util.js';

export function openNewGame(positionText) {
  const d = $('#new-game-dialog');
  const saved = store.get('feelfish.settings', {});
  const modes = (S.config && S.config.modes) || ['classical', 'affective'];
  for (const r of $$('input[name=mode]', d)) {
    r.disabled = !modes.includes(r.value);
    r.closest('label').title = r.disabled ? 'not available on this server yet' : '';
    r.checked = r.value === (saved.mode && modes.includes(saved.mode) ? saved.mode : 'classical');
  }
  for (const r of $$('input[name=level]', d)) {
    r.checked = r.value === String(saved.level || 3);
    r.nextElementSibling.replaceChildren(r.value, el('small.elo', {}, levelRating(S.config, Number(r.value))));
  }
  for (const r of $$('input[name=temperament]', d)) r.checked = r.value === (saved.temperament || 'neutral');
  for (const r of $$('input[name=target]', d)) r.checked = r.value === (saved.target || 'auto');
  const temperament = saved.temperament || 'neutral';
  const gain = typeof saved.gain === 'number' ? saved.gain : temperamentGain(S.config, temperament);
  if (gain !== null) $('#ng-gain').value = gain;
  $('#ng-gain-field').dataset.temperament = temperament;
  $('#ng-mode-hint').textContent = modes.includes('bayesian') ? '' : 'bayesian mode arrives with its server side.';
  if (positionText !== undefined) $('#ng-position').value = positionText;
  $('#ng-error').hidden = true;
  syncDialog();
  if (!d.open) d.showModal();
}

export function syncDialog() {
  const d = $('#new-game-dialog');
  const mode = $('input[name=mode]:checked', d).value;
  $('#ng-temperament').hidden = mode !== 'affective';
  $('#ng-gain-field').hidden = mode !== 'affective';
  $('#ng-target').hidden = mode !== 'bayesian';
  // a temperament chosen brings its own gain; the slider then moves it
  const temperament = $('input[name=temperament]:checked', d).value;
  const field = $('#ng-gain-field');
  if (field.dataset.temperament !== temperament) {
    field.dataset.temperament = temperament;
    const own = temperamentGain(S.config, temperament);
    if (own !== null) $('#ng-gain').value = own;
  }
  $('#ng-gain-value').textContent = Number($('#ng-gain').value).toFixed(2);
}

export async function submitNewGame(ev) {
  ev.preventDefault();
  const d = $('#new-game-dialog');
  const color = ev.submitter && ev.submitter.value ? ev.submitter.value : 'white';
  if (color === 'cancel') return d.close();
  const mode = $('input[name=mode]:checked', d).value;
  const level = Number($('input[name=level]:checked', d).value);
  const temperament = $('input[name=temperament]:checked', d).value;
  const target = $('input[name=target]:checked', d).value;
  const gain = Number($('#ng-gain').value);
  const ownGain = gain === temperamentGain(S.config, temperament);
  store.set('feelfish.settings', { mode, level, temperament, target, gain: ownGain ? null : gain });
  const errBox = $('#ng-error');
  errBox.hidden = true;
  const body = { mode, color, level };
  if (mode === 'affective') body.temperament = temperament;
  if (mode === 'affective' && !ownGain) body.gain = gain;
  if (mode === 'bayesian') body.target = target;
  let prefix = null;
  try {
    const text = $('#ng-position').value.trim();
    if (text) {
      const p = readPosition(text);
      if (p.kind === 'fen') body.fen = p.rootFen;
      else if (p.ucis.length <= 600) {
        // the server plays the PGN's moves into the game: its PGN, repetitions and the opponent
        // model see them
        body.fen = p.rootFen;
        if (p.ucis.length) body.moves = p.ucis;
      } else {
        const l = new Line(p.rootFen, p.ucis);
        body.fen = l.fen(l.length);
        prefix = { fen: p.rootFen, moves: p.ucis, emotions: [], bayesian: [] };
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

export function analysePaste() {
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
    requestRender();
  } catch (e) {
    box.replaceChildren(el('code', {}, e.code || 'error'), ` ${e.message}`);
    box.hidden = false;
  }
}
