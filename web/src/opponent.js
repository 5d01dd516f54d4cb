// The opponent model (bayesian mode): the style posterior as bars (attacking, positional, mixed),
// the target the engine plays for and why, the game phase and how many games the model has learned.
// Shape: {phase, target, reason, gamesLearned, style: null | {style, posterior: {attacking, positional, mixed}}}.
import { $, el, titleCase } from './util.js';

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
  }
}
