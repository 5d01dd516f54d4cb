// The affective panel: the relief <-> fear gauge with the emotion's label, desirability and arousal,
// the active goal and the relevance factors, and a chart of the emotion over the game's moves
// (the engine's appraisal before each of its moves in an affective game, or the analysis's).
import { $, clamp, el, svg, words } from './util.js';

const fmt = (x) => (typeof x === 'number' ? (x >= 0 ? '+' : '') + x.toFixed(2) : '—');

export class EmotionPanel {
  constructor(root, onPly) {
    this.root = root;
    this.onPly = onPly;
    root.replaceChildren(
      el('h2.panel-title', {}, 'Emotion', el('span#emotion-source.panel-sub', {}, '')),
      el(
        'div.gauge',
        { role: 'meter', 'aria-label': 'relief (fear to relief)', 'aria-valuemin': -1, 'aria-valuemax': 1, id: 'emotion-gauge' },
        el('div.gauge-track', {}, el('div.gauge-zero'), el('div#gauge-fill.gauge-fill'), el('div#gauge-marker.gauge-marker')),
        el('div.gauge-ends', {}, el('span', {}, 'fear'), el('span', {}, 'relief')),
      ),
      el('div.emotion-headline', {}, el('span#emotion-label.emotion-label', {}, '—'), el('span#emotion-intensity.emotion-intensity', {}, '')),
      el(
        'div.emotion-dims',
        {},
        this.dim('desirability', 'undesirable', 'desirable'),
        this.dim('arousal', 'calm', 'excited'),
      ),
      el('div.emotion-goal', {}, 'goal: ', el('strong#emotion-goal', {}, '—')),
      el('div#emotion-factors.emotion-factors'),
      el('div.chart-title', {}, 'over the game ', el('span.legend.relief', {}, 'relief'), el('span.legend.desirability', {}, 'desirability'), el('span.legend.arousal', {}, 'arousal')),
      el('div#emotion-chart.emotion-chart'),
    );
  }

  dim(name, lo, hi) {
    return el(
      `div.dim.${name}`,
      {},
      el('span.dim-name', {}, name),
      el('div.dim-track', {}, el('div.gauge-zero'), el(`div#dim-${name}.dim-fill`)),
      el(`span#dim-${name}-value.dim-value`, { title: `${lo} (-1) … ${hi} (+1)` }, ''),
    );
  }

  // emotion: the API's object; source: text saying where it comes from.
  show(emotion, source) {
    $('#emotion-source', this.root).textContent = source ? ` · ${source}` : '';
    const marker = $('#gauge-marker', this.root);
    const fill = $('#gauge-fill', this.root);
    const label = $('#emotion-label', this.root);
    if (!emotion) {
      label.textContent = 'no emotion yet';
      label.dataset.label = 'none';
      marker.style.left = '50%';
      fill.style.left = fill.style.width = '0';
      $('#emotion-intensity', this.root).textContent = '';
      $('#emotion-goal', this.root).textContent = '—';
      $('#emotion-factors', this.root).replaceChildren();
      for (const d of ['desirability', 'arousal']) this.setDim(d, null);
      return;
    }
    const relief = clamp(emotion.relief, -1, 1);
    const pos = 50 + 50 * relief;
    marker.style.left = `${pos}%`;
    fill.style.left = `${Math.min(50, pos)}%`;
    fill.style.width = `${Math.abs(pos - 50)}%`;
    fill.dataset.sign = relief < 0 ? 'fear' : 'relief';
    $('#emotion-gauge', this.root).setAttribute('aria-valuenow', relief.toFixed(2));
    label.textContent = emotion.label;
    label.dataset.label = emotion.label;
    const gain = typeof emotion.gain === 'number' ? ` · gain ${emotion.gain.toFixed(2)}` : '';
    $('#emotion-intensity', this.root).textContent = `relief ${fmt(emotion.relief)} · intensity ${(emotion.intensity ?? 0).toFixed(2)}${gain}`;
    $('#emotion-goal', this.root).textContent = words(emotion.goal);
    this.setDim('desirability', emotion.desirability);
    this.setDim('arousal', emotion.arousal);
    const f = emotion.factors || {};
    const inputs = emotion.inputs || {};
    const names = { material: 'material', mobility: 'mobility', kingSafety: 'king safety', oppKingExposure: 'enemy king exposure' };
    $('#emotion-factors', this.root).replaceChildren(
      el('div.factor-head', {}, el('span', {}, 'term'), el('span', {}, 'board'), el('span', { title: 'relevance factor: the evaluation weight is 1 + r·|relief|' }, 'weight r')),
      ...Object.keys(names).map((k) => el('div.factor', {}, el('span', {}, names[k]), el('span', {}, fmt(inputs[k])), el('span', {}, fmt(f[k])))),
    );
  }

  setDim(name, v) {
    const fill = $(`#dim-${name}`, this.root);
    const value = $(`#dim-${name}-value`, this.root);
    if (typeof v !== 'number') {
      fill.style.left = fill.style.width = '0';
      value.textContent = '';
      return;
    }
    const pos = 50 + 50 * clamp(v, -1, 1);
    fill.style.left = `${Math.min(50, pos)}%`;
    fill.style.width = `${Math.abs(pos - 50)}%`;
    value.textContent = fmt(v);
  }

  // points: [{ply, relief, desirability, arousal}], plies: the game's length, cursor: the ply shown.
  chart(points, plies, cursor) {
    const box = $('#emotion-chart', this.root);
    const W = Math.max(120, Math.round(box.clientWidth) || 300); // drawn at its size: round points
    const H = 90;
    const n = Math.max(plies, 1, ...points.map((p) => p.ply));
    const x = (ply) => 4 + ((W - 8) * ply) / n;
    const y = (v) => H / 2 - (H / 2 - 6) * clamp(v, -1, 1);
    const s = svg('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': 'emotion over the game' });
    s.append(svg('rect', { x: 0, y: 0, width: W, height: H / 2, class: 'zone-relief' }));
    s.append(svg('rect', { x: 0, y: H / 2, width: W, height: H / 2, class: 'zone-fear' }));
    s.append(svg('line', { x1: 0, x2: W, y1: H / 2, y2: H / 2, class: 'zero' }));
    if (cursor !== undefined) s.append(svg('line', { x1: x(cursor), x2: x(cursor), y1: 0, y2: H, class: 'cursor' }));
    const sorted = [...points].sort((a, b) => a.ply - b.ply);
    for (const key of ['arousal', 'desirability', 'relief']) {
      if (sorted.length > 1)
        s.append(svg('polyline', { points: sorted.map((p) => `${x(p.ply).toFixed(1)},${y(p[key]).toFixed(1)}`).join(' '), class: `series ${key}` }));
    }
    for (const p of sorted) {
      const c = svg('circle', { cx: x(p.ply), cy: y(p.relief), r: p.ply === cursor ? 3.5 : 2.5, class: 'point' });
      const t = svg('title');
      t.textContent = `ply ${p.ply}: ${p.label || ''} (relief ${fmt(p.relief)})`;
      c.append(t);
      // On the press: the chart is redrawn on every analysis info, which would lose a click.
      c.addEventListener('mousedown', (e) => e.button === 0 && this.onPly(p.ply));
      s.append(c);
    }
    box.replaceChildren(s);
    box.dataset.points = String(points.length);
    if (!points.length) box.append(el('div.chart-empty', {}, 'The chart fills as feelfish plays in affective mode (or as you analyse in it).'));
  }
}
