// The page's messages: toasts (info, warnings, errors) in the corner, and errors shown with the
// server's or the position reader's code and message.
import { ApiError } from './api.js';
import { PositionError } from './line.js';
import { $, el } from './util.js';

export function toast(text, kind = 'info', code = undefined, ms = 8000) {
  const box = $('#toasts');
  const t = el(
    `div.toast.${kind}`,
    { role: kind === 'error' ? 'alert' : 'status' },
    code ? el('code.toast-code', {}, code) : null,
    el('span.toast-text', {}, text),
    el('button.toast-close', { type: 'button', 'aria-label': 'dismiss', onclick: () => t.remove() }, '×'),
  );
  box.append(t);
  while (box.children.length > 4) box.firstChild.remove();
  if (ms) setTimeout(() => t.remove(), ms);
  return t;
}

export function showError(e) {
  if (e instanceof ApiError || e instanceof PositionError) {
    const retry = e.retryAfter ? ` (retry in ${e.retryAfter} s)` : '';
    toast(`${e.message}${retry}`, 'error', e.code);
  } else {
    toast(String((e && e.message) || e), 'error', 'error');
  }
}
