// The analysis panel: a live search over the WebSocket on the position shown, in the chosen mode
// (classical, affective, bayesian), with up to three lines in SAN, depth and speed, the evaluation
// bar, and in affective mode optionally the classical choice beside the affective one (compare).
// A new position stops the old search and starts a new one; searches end by themselves after
// MAX_MS so an idle page does not hold a worker for ever.
import { $, clamp, debounce, el, formatNodes, formatNps, formatScore, temperamentGain, winPercent } from './util.js';

const MAX_MS = 60000;
const COMPARE_MOVETIME = 1000;

const scoreOf = (o) => (o && o.mate !== undefined && o.mate !== null ? { mate: o.mate } : o && typeof o.cp === 'number' ? { cp: o.cp } : null);

export class Ceval {
  // root: the panel's element; bar: the evaluation bar; socket: ws.Socket; hooks: {update(run), preview(ucis, sans), error(code, message)}
  constructor(root, bar, socket, hooks) {
    this.root = root;
    this.bar = bar;
    this.socket = socket;
    this.hooks = hooks;
    this.enabled = true;
    this.mode = 'classical';
    this.multiPv = 3;
    this.temperament = 'neutral';
    this.gain = null; // affective: the emotion's hold asked; null: the temperament's
    this.config = null;
    this.target = 'auto';
    this.compare = false;
    this.modes = ['classical', 'affective'];
    this.limit = 4;
    this.seq = 0;
    this.running = new Set(); // ids started on this connection and not yet finished
    this.run = null; // the current analysis
    this.cmp = null; // the current compare search
    this.position = null;
    this.waiting = false;
    this.capTimer = null;
    this.startSoon = debounce(() => this.start(), 120);
    this.build();
  }

  build() {
    const r = this.root;
    r.replaceChildren(
      el(
        'div.ceval-head',
        {},
        el('label.switch', { title: 'Analysis on/off (key: l)' }, el('input#ceval-toggle', { type: 'checkbox', checked: true, 'aria-label': 'analysis on or off' }), el('span.slider')),
        el('div#ceval-score.ceval-score', { 'aria-live': 'off' }, '…'),
        el(
          'div.ceval-meta',
          {},
          el('div.ceval-engine', {}, 'feelfish ', el('select#ceval-mode', { 'aria-label': 'evaluation mode' })),
          el('div#ceval-stats.ceval-stats', {}, ''),
        ),
      ),
      el(
        'div.ceval-options',
        {},
        el('select#ceval-multipv', { 'aria-label': 'lines', title: 'Lines' }, [1, 2, 3].map((n) => el('option', { value: n, selected: n === 3 }, `${n} line${n > 1 ? 's' : ''}`))),
        el('label#ceval-temperament-field', { hidden: true }, 'temperament ', el('select#ceval-temperament', {}, ['neutral', 'calm', 'anxious', 'bold', 'thesis'].map((t) => el('option', { value: t }, t)))),
        el(
          'label#ceval-gain-field.gain-field',
          { hidden: true, title: "the emotion's hold on the evaluation: 0 none (as classical), 1 the thesis's formula" },
          'gain ',
          el('input#ceval-gain', { type: 'range', min: 0, max: 1, step: 0.05 }),
          el('output#ceval-gain-value', {}, ''),
        ),
        el('label#ceval-compare-field', { hidden: true }, el('input#ceval-compare', { type: 'checkbox' }), ' compare with classical'),
        el('label#ceval-target-field', { hidden: true }, 'target ', el('select#ceval-target', {}, ['auto', 'aggressive', 'conservative'].map((t) => el('option', { value: t }, t)))),
      ),
      el('div#ceval-message.ceval-message', { role: 'status', hidden: true }),
      el('div#pv-lines.pv-lines'),
      el('div#compare.compare', { hidden: true }),
    );
    this.renderModes();
    $('#ceval-toggle', r).addEventListener('change', (e) => this.setEnabled(e.target.checked));
    $('#ceval-mode', r).addEventListener('change', (e) => this.setMode(e.target.value));
    $('#ceval-multipv', r).addEventListener('change', (e) => {
      this.multiPv = Number(e.target.value);
      this.restart();
    });
    $('#ceval-temperament', r).addEventListener('change', (e) => {
      this.temperament = e.target.value;
      this.gain = null; // the temperament's own
      this.renderModes();
      this.restart();
    });
    $('#ceval-gain', r).addEventListener('input', (e) => {
      $('#ceval-gain-value', this.root).textContent = Number(e.target.value).toFixed(2);
    });
    $('#ceval-gain', r).addEventListener('change', (e) => {
      const g = Number(e.target.value);
      this.gain = g === temperamentGain(this.config, this.temperament) ? null : g;
      this.restart();
    });
    $('#ceval-target', r).addEventListener('change', (e) => {
      this.target = e.target.value;
      this.restart();
    });
    $('#ceval-compare', r).addEventListener('change', (e) => {
      this.compare = e.target.checked;
      this.restart();
    });
    // On the press, not the click: the lines are redrawn on every info, so a click whose press and
    // release straddle a redraw would land on the panel instead of the move and be lost.
    $('#pv-lines', r).addEventListener('mousedown', (e) => {
      if (e.button !== 0) return;
      const m = e.target.closest('[data-line]');
      if (!m || !this.run) return;
      const line = this.run.lines[Number(m.dataset.line)];
      if (!line) return;
      e.preventDefault(); // no text selection started by the press
      const upto = e.target.dataset.index !== undefined ? Number(e.target.dataset.index) + 1 : line.pv.length;
      this.hooks.preview(line.pv.slice(0, upto), line.san.slice(0, upto));
    });
  }

  renderModes() {
    const sel = $('#ceval-mode', this.root);
    sel.replaceChildren(
      ...['classical', 'affective', 'bayesian'].map((m) =>
        el('option', { value: m, disabled: !this.modes.includes(m), selected: m === this.mode, title: this.modes.includes(m) ? '' : 'not on this server yet' }, m),
      ),
    );
    $('#ceval-temperament-field', this.root).hidden = this.mode !== 'affective';
    $('#ceval-gain-field', this.root).hidden = this.mode !== 'affective';
    const gain = this.gain ?? temperamentGain(this.config, this.temperament);
    if (gain !== null) $('#ceval-gain', this.root).value = gain;
    $('#ceval-gain-value', this.root).textContent = gain === null ? '' : gain.toFixed(2);
    $('#ceval-compare-field', this.root).hidden = this.mode !== 'affective';
    $('#ceval-target-field', this.root).hidden = this.mode !== 'bayesian';
    $('#ceval-temperament', this.root).value = this.temperament;
    this.root.dataset.mode = this.mode;
  }

  configure(config) {
    if (config && Array.isArray(config.modes)) this.modes = config.modes;
    if (config && config.wsSearchesPerConnection) this.limit = config.wsSearchesPerConnection;
    if (config) this.config = config;
    this.renderModes();
  }

  setMode(mode) {
    if (!this.modes.includes(mode)) return;
    this.mode = mode;
    this.renderModes();
    this.restart();
  }

  // A game's temperament and gain (its own, or null: the temperament's).
  setTemperament(t, gain = null) {
    if (!t) return;
    this.temperament = t;
    this.gain = typeof gain === 'number' && gain !== temperamentGain(this.config, t) ? gain : null;
    this.renderModes();
  }

  setEnabled(on) {
    this.enabled = on;
    $('#ceval-toggle', this.root).checked = on;
    this.root.classList.toggle('off', !on);
    if (on) this.restart();
    else {
      this.stopAll();
      this.run = null;
      this.render();
    }
  }

  toggle() {
    this.setEnabled(!this.enabled);
  }

  // position: {key, fen, moves, turn, ended: {winner, reason} | undefined, ply}
  setPosition(position) {
    if (this.position && position.key === this.position.key && this.run && this.run.key === position.key) return;
    this.position = position;
    this.stopAll();
    this.run = null;
    this.render();
    this.startSoon();
  }

  restart() {
    this.stopAll();
    this.run = null;
    this.render();
    this.startSoon();
  }

  stopAll() {
    clearTimeout(this.capTimer);
    for (const r of [this.run, this.cmp])
      if (r && !r.done && this.running.has(r.id)) {
        this.socket.send({ op: 'stop', id: r.id });
        r.stopped = true;
      }
    this.cmp = null;
  }

  body(extra) {
    const p = this.position;
    const b = { fen: p.rootFen, moves: p.moves, mode: this.mode, multiPv: this.multiPv, ...extra };
    if (this.mode === 'affective') b.affective = this.gain === null ? { temperament: this.temperament } : { temperament: this.temperament, gain: this.gain };
    if (this.mode === 'bayesian') b.bayesian = { target: this.target };
    return b;
  }

  start() {
    if (!this.enabled || !this.position || this.position.ended) {
      this.render();
      return;
    }
    if (!this.socket.open) {
      this.render();
      return; // the socket's open hook calls resume()
    }
    const want = this.compare && this.mode === 'affective' ? 2 : 1;
    if (this.running.size + want > this.limit) {
      this.waiting = true; // a finishing search calls start() again
      return;
    }
    this.waiting = false;
    const p = this.position;
    const id = `a${++this.seq}`;
    this.run = { id, key: p.key, turn: p.turn, ply: p.ply, mode: this.mode, lines: [], depth: 0, seldepth: 0, nps: 0, nodes: 0, emotion: null, bayesian: null, done: false, error: null, started: performance.now() };
    this.running.add(id);
    this.socket.send({ op: 'analyse', id, ...this.body({ limits: { infinite: true } }) });
    clearTimeout(this.capTimer);
    this.capTimer = setTimeout(() => {
      if (this.run && this.run.id === id && !this.run.done) {
        this.run.capped = true;
        this.socket.send({ op: 'stop', id });
      }
    }, MAX_MS);
    if (want === 2) {
      const cid = `c${this.seq}`;
      this.cmp = { id: cid, key: p.key, result: null, done: false };
      this.running.add(cid);
      this.socket.send({ op: 'analyse', id: cid, ...this.body({ multiPv: 1, compare: true, limits: { movetime: COMPARE_MOVETIME } }) });
    }
    this.render();
  }

  // The socket (re)opened: nothing of the old connection runs any more.
  resume() {
    this.running.clear();
    this.run = null;
    this.cmp = null;
    this.startSoon();
  }

  disconnected() {
    this.running.clear();
    this.render();
  }

  onMessage(msg) {
    const id = msg.id;
    if (msg.type === 'bestmove' || msg.type === 'error') {
      if (id) this.running.delete(id);
      if (!id && msg.type === 'error') this.showMessage(`${msg.error.code}: ${msg.error.message}`, 'error');
    }
    if (this.cmp && id === this.cmp.id) return this.onCompare(msg);
    const run = this.run;
    if (run && id === run.id) {
      if (msg.type === 'info') this.onInfo(run, msg);
      else if (msg.type === 'bestmove') this.onBest(run, msg);
      else if (msg.type === 'error') this.onError(run, msg.error);
    }
    if (this.waiting && (msg.type === 'bestmove' || msg.type === 'error')) this.start();
  }

  onInfo(run, msg) {
    const i = (msg.multiPv || 1) - 1;
    run.lines[i] = { score: scoreOf(msg), pv: msg.pv || [], san: msg.san || [], depth: msg.depth };
    if (i === 0 || msg.depth > run.depth) {
      run.depth = Math.max(run.depth, msg.depth);
      run.seldepth = Math.max(run.seldepth, msg.seldepth || 0);
    }
    run.nps = msg.nps;
    run.nodes = msg.nodes;
    if (msg.emotion) run.emotion = msg.emotion;
    if (msg.bayesian) run.bayesian = msg.bayesian;
    this.render();
  }

  onBest(run, msg) {
    run.done = true;
    clearTimeout(this.capTimer);
    if (Array.isArray(msg.pvs) && msg.pvs.length && !run.stopped)
      run.lines = msg.pvs.map((p) => ({ score: scoreOf(p), pv: p.moves || [], san: p.san || [], depth: p.depth || msg.depth }));
    if (msg.depth) run.depth = Math.max(run.depth, msg.depth);
    if (msg.nps) run.nps = msg.nps;
    if (msg.emotion) run.emotion = msg.emotion;
    if (msg.bayesian) run.bayesian = msg.bayesian;
    this.render();
  }

  onError(run, error) {
    run.done = true;
    run.error = error;
    clearTimeout(this.capTimer);
    if (error.code === 'too_many_searches' || error.code === 'queue_full') {
      // Busy: try again shortly (this is the "queue full" case of the issue's error list).
      run.retry = setTimeout(() => this.run === run && this.restart(), 1500);
    }
    this.render();
    this.hooks.error && this.hooks.error(error);
  }

  onCompare(msg) {
    if (msg.type === 'bestmove') {
      this.cmp.done = true;
      this.cmp.result = msg.compare || null;
      if (msg.emotion && this.run && !this.run.emotion) this.run.emotion = msg.emotion;
    } else if (msg.type === 'error') {
      this.cmp.done = true;
      this.cmp.error = msg.error;
    }
    this.renderCompare();
    this.hooks.update(this.run, this.cmp);
  }

  showMessage(text, kind) {
    const m = $('#ceval-message', this.root);
    m.textContent = text || '';
    m.hidden = !text;
    m.className = `ceval-message ${kind || ''}`;
  }

  // The score to show: line 1's, from White's view.
  score() {
    return this.run && this.run.lines[0] ? this.run.lines[0].score : null;
  }

  render() {
    const run = this.run;
    const p = this.position;
    const scoreEl = $('#ceval-score', this.root);
    const stats = $('#ceval-stats', this.root);
    const lines = $('#pv-lines', this.root);
    this.root.classList.toggle('off', !this.enabled);
    if (!this.enabled) {
      scoreEl.textContent = '';
      stats.textContent = 'analysis off';
      lines.replaceChildren();
      this.showMessage('');
      this.renderBar(null);
      this.renderCompare();
      this.hooks.update(null, null);
      return;
    }
    if (p && p.ended) {
      scoreEl.textContent = p.ended.reason === 'mate' ? '#' : '½';
      stats.textContent = p.ended.reason === 'mate' ? 'checkmate' : p.ended.reason.replace(/_/g, ' ');
      lines.replaceChildren();
      this.showMessage('');
      this.renderBar(p.ended.reason === 'mate' ? { mate: 0 } : { cp: 0 }, p.turn);
      this.renderCompare();
      this.hooks.update(null, null);
      return;
    }
    if (!this.socket.open) {
      const secs = Math.max(0, Math.ceil((this.socket.retryAt - Date.now()) / 1000));
      this.showMessage(this.socket.state === 'reconnecting' ? `Connection to the engine lost: reconnecting${secs ? ` in ${secs} s` : ''}…` : 'Connecting to the engine…', 'warn');
    } else if (run && run.error) {
      this.showMessage(`${run.error.code}: ${run.error.message}`, 'error');
    } else this.showMessage('');
    const score = this.score();
    scoreEl.textContent = score ? formatScore(score) : run ? '…' : '';
    scoreEl.classList.toggle('thinking', !!run && !run.done);
    if (run) {
      const bits = [];
      if (run.depth) bits.push(`depth ${run.depth}${run.seldepth ? `/${run.seldepth}` : ''}`);
      if (run.nps) bits.push(formatNps(run.nps));
      if (run.nodes) bits.push(`${formatNodes(run.nodes)} nodes`);
      if (run.done && !run.error) bits.push(run.capped ? `stopped after ${MAX_MS / 1000} s` : 'done');
      stats.textContent = bits.join(' · ') || 'starting…';
    } else stats.textContent = this.socket.open ? 'starting…' : 'offline';
    lines.replaceChildren(
      ...(run ? run.lines : [])
        .slice(0, this.multiPv)
        .map((line, i) => (line ? this.renderLine(line, i) : null))
        .filter(Boolean),
    );
    this.renderBar(score, run ? run.turn : 'white');
    this.renderCompare();
    this.hooks.update(run, this.cmp);
  }

  renderLine(line, i) {
    if (!this.marked && performance.mark) {
      this.marked = true;
      performance.mark('feelfish:first-line'); // read by tests/bench/web.mjs
    }
    const p = this.position;
    const tokens = [];
    let turn = p.turn;
    let number = p.fullmove;
    line.san.forEach((san, k) => {
      if (turn === 'white') tokens.push(' ', el('span.num', {}, `${number}.`));
      else if (k === 0) tokens.push(' ', el('span.num', {}, `${number}…`));
      tokens.push(' ', el('span.pv-san', { dataset: { index: k }, title: 'Preview on the board' }, san));
      if (turn === 'black') number++;
      turn = turn === 'white' ? 'black' : 'white';
    });
    return el('div.pv', { dataset: { line: i }, title: 'Click a move to preview the line on the board' }, el('strong.pv-score', {}, formatScore(line.score)), el('span.pv-moves', {}, tokens));
  }

  renderBar(score, turn = 'white') {
    const w = score ? winPercent(score, turn) : 50;
    const fill = this.bar.querySelector('.evalbar-white');
    fill.style.height = `${clamp(w, 0, 100)}%`;
    this.bar.title = score ? `${formatScore(score)} (White's winning chances ${Math.round(w)}%)` : 'evaluation';
    this.bar.setAttribute('aria-valuenow', String(Math.round(w)));
    this.bar.dataset.score = score ? formatScore(score) : '';
  }

  renderCompare() {
    const box = $('#compare', this.root);
    const c = this.cmp;
    if (!this.enabled || !this.compare || this.mode !== 'affective' || !c) {
      box.hidden = true;
      return;
    }
    box.hidden = false;
    if (c.error) {
      box.replaceChildren(el('div.error', {}, `compare: ${c.error.code}: ${c.error.message}`));
      return;
    }
    if (!c.result) {
      box.replaceChildren(el('div.muted', {}, `comparing with the classical search (${COMPARE_MOVETIME / 1000} s)…`));
      return;
    }
    const side = (name, r) => {
      const pv = r && r.pvs && r.pvs[0];
      return el(
        `div.compare-side.${name}`,
        {},
        el('div.compare-name', {}, name),
        el('div.compare-move', {}, pv && pv.san ? pv.san[0] : '—'),
        el('div.compare-score', {}, pv ? formatScore(scoreOf(pv)) : ''),
      );
    };
    const a = c.result.affective;
    const k = c.result.classical;
    const differ = a && k && a.bestMove !== k.bestMove;
    box.replaceChildren(side('affective', a), side('classical', k), el('div.compare-verdict', {}, differ ? 'the emotion changes the choice' : 'same choice'));
    box.classList.toggle('differ', !!differ);
  }
}
