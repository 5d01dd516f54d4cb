// Small DOM and formatting helpers shared by the page's modules.

export const $ = (sel, root = document) => root.querySelector(sel);
export const $$ = (sel, root = document) => Array.from(root.querySelectorAll(sel));

// el('div.class#id', {attrs}, children...) -> HTMLElement. Children may be strings or nodes.
export function el(tag, attrs, ...children) {
  const m = /^([a-z0-9-]+)((?:[.#][\w-]+)*)$/i.exec(tag);
  const node = document.createElement(m ? m[1] : tag);
  if (m && m[2])
    for (const part of m[2].match(/[.#][\w-]+/g)) {
      if (part[0] === '.') node.classList.add(part.slice(1));
      else node.id = part.slice(1);
    }
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'dataset') Object.assign(node.dataset, v);
    else if (k.startsWith('on') && typeof v === 'function') node.addEventListener(k.slice(2), v);
    else if (k === 'text') node.textContent = v;
    else node.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) node.append(c);
  return node;
}

// svg('polyline', {attrs}) -> an SVG element (the page's charts).
export function svg(tag, attrs = {}) {
  const n = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, v);
  return n;
}

export const clamp = (x, lo, hi) => Math.min(hi, Math.max(lo, x));

// Lichess's Win% (the API's formula): cp from White's view -> 0..100 for White. `turn` settles
// "mate 0" (the side to move is mated).
export function winPercent(score, turn = 'white') {
  if (!score) return 50;
  if (score.mate !== undefined && score.mate !== null)
    return score.mate > 0 ? 100 : score.mate < 0 ? 0 : turn === 'white' ? 0 : 100;
  const cp = clamp(score.cp, -1000, 1000);
  return 50 + 50 * (2 / (1 + Math.exp(-0.00368208 * cp)) - 1);
}

// "+0.34", "-1.20", "#3", "#-2" (White's view).
export function formatScore(score) {
  if (!score) return '';
  if (score.mate !== undefined && score.mate !== null) return `#${score.mate}`;
  const v = score.cp / 100;
  return (v > 0 ? '+' : '') + v.toFixed(Math.abs(v) >= 10 ? 1 : 2);
}

export function formatNps(nps) {
  if (!nps) return '';
  if (nps >= 1e6) return `${(nps / 1e6).toFixed(1)} Mn/s`;
  if (nps >= 1e3) return `${Math.round(nps / 1e3)} kn/s`;
  return `${nps} n/s`;
}

export function formatNodes(n) {
  if (n >= 1e9) return `${(n / 1e9).toFixed(1)} G`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)} M`;
  if (n >= 1e3) return `${Math.round(n / 1e3)} k`;
  return `${n}`;
}

// A level's rating as /api/config says (docs/levels.md): a number, null for the engine's full
// strength, undefined before the server has said.
export function levelElo(config, level) {
  const found = ((config && config.levels) || []).find((l) => l.level === level);
  return found ? found.elo : undefined;
}

// What a level plays like: "≈ 1600", "max" for full strength, "" when not known.
export function levelRating(config, level) {
  const elo = levelElo(config, level);
  return elo === undefined ? '' : elo ? `≈ ${elo}` : 'max';
}

// The affective mode's gain (the emotion's hold) of a temperament when none is asked, as /api/config
// lists them; null before the configuration has come.
export function temperamentGain(config, name) {
  const t = config && Array.isArray(config.temperaments) && config.temperaments.find((x) => x.name === name);
  return t ? t.gain : null;
}

export const titleCase = (s) => (s ? s[0].toUpperCase() + s.slice(1) : s);
export const words = (s) => (s || '').replace(/_/g, ' ');

export function debounce(fn, ms) {
  let t;
  const d = (...args) => {
    clearTimeout(t);
    t = setTimeout(() => fn(...args), ms);
  };
  d.cancel = () => clearTimeout(t);
  return d;
}

// Local storage that never throws (private windows, full quota).
export const store = {
  get(key, fallback = null) {
    try {
      const v = localStorage.getItem(key);
      return v === null ? fallback : JSON.parse(v);
    } catch {
      return fallback;
    }
  },
  set(key, value) {
    try {
      localStorage.setItem(key, JSON.stringify(value));
    } catch {
      /* storage unavailable: the page still works, it just forgets */
    }
  },
  remove(key) {
    try {
      localStorage.removeItem(key);
    } catch {
      /* as above */
    }
  },
};

// Inline SVG icons (the page must not depend on fonts having these glyphs).
const ICONS = {
  first: 'M6 5h2v14H6zM18 5v14L9 12z',
  prev: 'M16 5v14L7 12z',
  next: 'M8 5v14l9-7z',
  last: 'M16 5h2v14h-2zM6 5v14l9-7z',
  flip: 'M7 3 3 7h3v10h2V7h3zm10 18 4-4h-3V7h-2v10h-3z',
  takeback: 'M12 5V1L6 6l6 5V7a6 6 0 1 1-6 6H4a8 8 0 1 0 8-8z',
  flag: 'M5 3h2v18H5zm3 1h10l-2 4 2 4H8z',
  copy: 'M8 3h11v13h-2V5H8zM4 7h11v14H4z',
  download: 'M11 3h2v9l3-3 1.4 1.4L12 15.8l-5.4-5.4L8 9l3 3zM5 18h14v2H5z',
  plus: 'M11 4h2v7h7v2h-7v7h-2v-7H4v-2h7z',
  close: 'M6.4 5 12 10.6 17.6 5 19 6.4 13.4 12 19 17.6 17.6 19 12 13.4 6.4 19 5 17.6 10.6 12 5 6.4z',
  play: 'M8 5v14l11-7z',
  stop: 'M6 6h12v12H6z',
};

export function icon(name) {
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('aria-hidden', 'true');
  svg.classList.add('icon');
  const path = document.createElementNS('http://www.w3.org/2000/svg', 'path');
  path.setAttribute('d', ICONS[name]);
  svg.append(path);
  return svg;
}

// Replaces every <i data-icon="name"> in root with its SVG.
export function renderIcons(root = document) {
  for (const i of $$('i[data-icon]', root)) i.replaceWith(icon(i.dataset.icon));
}
