// The search lab panel: POST /api/lab on the position shown (the FEN field) at the chosen depth;
// the six textbook algorithms side by side: value (side to move's view), best move, nodes, time
// (leaves in each row's title). Errors show in the table's place.
import { ApiError, api } from './api.js';
import { $, el } from './util.js';

async function run() {
  const table = $('#lab-table');
  const button = $('#lab-run');
  button.disabled = true;
  table.hidden = false;
  table.replaceChildren(el('tr', {}, el('td', {}, 'searching…')));
  try {
    const r = await api.lab({ fen: $('#fen').value, depth: Number($('#lab-depth').value) });
    table.replaceChildren(
      el('tr', {}, ...['algorithm', 'value', 'best', 'nodes', 'ms'].map((h) => el('th', {}, h))),
      ...r.algorithms.map((a) =>
        el('tr', { dataset: { algorithm: a.algorithm }, title: `${a.leaves.toLocaleString('en')} leaves` }, ...[a.algorithm, a.value, a.bestMove, a.nodes.toLocaleString('en'), a.timeMs].map((v) => el('td', {}, String(v)))),
      ),
    );
  } catch (e) {
    table.replaceChildren(el('tr', {}, el('td', { class: 'form-error' }, e instanceof ApiError ? `${e.message} (${e.code})` : String(e))));
  } finally {
    button.disabled = false;
  }
}

export function initLab() {
  $('#lab-run').addEventListener('click', run);
}
