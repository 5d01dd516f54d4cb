// The opponent model (bayesian mode): the style posterior as bars (attacking, positional, mixed),
// the target the engine plays for and why, the game phase and how many games the model has learned,
// and the model's learning curve (GET /api/bayes/curve): parameters each target moves from the
// default as games were learned, and the measured matches against the default.
// Shape: {phase, target, reason, gamesLearned, style: null | {style, posterior: {attacking, positional, mixed}}}.
import { api, hasRoute } from './api.js';
import { $, el, svg, titleCase } from './util.js';

const STYLES = ['attacking', 'positional', 'mixed'];

export class OpponentPanel {
  constructor(root) {
    this.root = root;
    root.replaceChildren(
      el('h2.panel-title', {}, 'Opponent model', el('span#opponent-source.panel-sub', {}, '')),
      el(
        'div#style-bars.style-bars',
        {},
        STYLES.map((s) =>
          el(
            `div.style-bar.${s}`,
            { dataset: { style: s } },
            el('span.style-name', {}, s),
            el('div.style-track', {}, el(`div#style-${s}.style-fill`)),
            el(`span#style-${s}-p.style-p`, {}, ''),
          ),
        ),
      ),
      el('div#style-verdict.style-verdict', {}, ''),
      el('div.opponent-target', {}, 'target: ', el('strong#opponent-target', {}, '—'), el('span#opponent-phase.opponent-phase', {}, '')),
      el('div#opponent-reason.opponent-reason', {}, ''),
      el('div.opponent-learned', {}, 'games learned: ', el('strong#opponent-learned', {}, '—')),
      el(
        'div.chart-title',
        {},
        'learning curve',
        el('span.legend.aggressive', {}, 'aggressive'),
        el('span.legend.conservative', {}, 'conservative'),
      ),
      el('div#learning-curve.learning-curve', {}),
      el('ul#curve-matches.curve-matches', {}),
    );
    this.curveKey = null; // the games learned the drawn curve is for
  }

  // Fetches and draws the curve when the model has learned something since it was drawn.
  async refreshCurve(games) {
    if (this.curveKey === games || !(await hasRoute('/api/bayes/curve'))) return;
    this.curveKey = games;
    try {
      this.drawCurve(await api.bayesCurve());
    } catch {
      this.curveKey = null; // try again next time
    }
  }

  /** @param {{gamesStored: number, changes: {games: number, changedParams: {aggressive: number, conservative: number}}[], matches: {games: number, target: string, rule: string, control: string, wins: number, draws: number, losses: number, score: number | null, elo: number | null, eloMargin: number | null}[]}} curve */
  drawCurve(curve) {
    const box = $('#learning-curve', this.root);
    const pts = curve.changes;
    const W = Math.max(120, Math.round(box.clientWidth) || 260);
    const H = 70;
    const top = Math.max(3, ...pts.map((p) => Math.max(p.changedParams.aggressive, p.changedParams.conservative)));
    // x: games learned on a log scale from the first point to the last; y: parameters moved.
    const lo = Math.log10(Math.max(1, pts.length ? pts[0].games : 1));
    const hi = Math.log10(Math.max(1, pts.length ? pts[pts.length - 1].games : 1));
    const x = (g) => (hi > lo ? 10 + ((W - 20) * (Math.log10(Math.max(1, g)) - lo)) / (hi - lo) : W / 2);
    const y = (v) => H - 14 - ((H - 22) * v) / top;
    const s = svg('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': 'parameters moved from the default by games learned (log scale)' });
    s.append(svg('line', { x1: 0, x2: W, y1: y(0), y2: y(0), class: 'zero' }));
    const label = (text, at, anchor) => {
      const t = svg('text', { x: at, y: H - 3, 'text-anchor': anchor, class: 'axis' });
      t.textContent = text;
      s.append(t);
    };
    if (pts.length) {
      label(`${pts[0].games}`, 4, 'start');
      if (pts.length > 1) label(`${pts[pts.length - 1].games} games`, W - 4, 'end');
      const t = svg('text', { x: 4, y: 10, class: 'axis' });
      t.textContent = `${top} parameters`;
      s.append(t);
    }
    for (const t of ['aggressive', 'conservative']) {
      if (pts.length > 1) s.append(svg('polyline', { points: pts.map((p) => `${x(p.games).toFixed(1)},${y(p.changedParams[t]).toFixed(1)}`).join(' '), class: `series ${t}` }));
      for (const p of pts) {
        const c = svg('circle', { cx: x(p.games), cy: y(p.changedParams[t]), r: 2.5, class: `point ${t}` });
        const title = svg('title');
        title.textContent = `${p.games} games: ${t} moves ${p.changedParams[t]} parameters`;
        c.append(title);
        s.append(c);
      }
    }
    box.replaceChildren(s);
    box.dataset.points = String(pts.length);
    if (!pts.length) box.append(el('div.chart-empty', {}, 'No game learned yet: finished games and feelfish learn teach the model.'));
    const fmt = (v, d = 0) => (v === null ? '—' : `${v >= 0 ? '+' : ''}${v.toFixed(d)}`);
    $('#curve-matches', this.root).replaceChildren(
      ...curve.matches.slice(-5).map((m) =>
        el(
          'li.curve-match',
          {},
          `after ${m.games} games (${m.target}, ${m.control}): ${m.wins}-${m.draws}-${m.losses}, `,
          m.score === null ? '' : `${(100 * m.score).toFixed(1)} %, `,
          `${fmt(m.elo)} ± ${m.eloMargin === null ? '∞' : m.eloMargin.toFixed(0)} Elo`,
        ),
      ),
    );
  }

  show(model, source) {
    $('#opponent-source', this.root).textContent = source ? ` · ${source}` : '';
    const style = model && model.style;
    for (const s of STYLES) {
      const p = style && style.posterior ? Number(style.posterior[s]) || 0 : 0;
      $(`#style-${s}`, this.root).style.width = `${Math.round(p * 100)}%`;
      $(`#style-${s}-p`, this.root).textContent = style ? p.toFixed(2) : '';
      $(`.style-bar.${s}`, this.root).classList.toggle('best', !!style && style.style === s);
    }
    $('#style-verdict', this.root).textContent = !model
      ? 'No model yet: analyse or play in bayesian mode.'
      : style
        ? `${titleCase(style.style)} style`
        : 'Not enough of your moves yet to judge your style.';
    $('#opponent-target', this.root).textContent = model ? model.target : '—';
    $('#opponent-target', this.root).dataset.target = model ? model.target : '';
    $('#opponent-phase', this.root).textContent = model && model.phase ? ` · ${model.phase}` : '';
    $('#opponent-reason', this.root).textContent = model && model.reason ? model.reason : '';
    $('#opponent-learned', this.root).textContent = model && model.gamesLearned !== undefined ? String(model.gamesLearned) : '—';
    if (model && model.gamesLearned !== undefined) this.refreshCurve(model.gamesLearned);
  }
}
