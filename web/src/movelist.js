// Moving through the move list: the cursor (the ply shown) and the preview of an analysis line
// played out on the board. The list itself is drawn by render.js.
import { Line } from './line.js';
import { S, requestRender } from './state.js';

export function goTo(ply) {
  S.preview = null;
  S.cursor = Math.max(0, Math.min(S.line.length, ply));
  requestRender();
}

export function preview(ucis, sans) {
  const base = S.line.fen(S.cursor);
  const l = new Line(base, []);
  for (const u of ucis) if (!l.push(u)) break;
  S.preview = { line: l, sans };
  requestRender();
}

export function exitPreview() {
  if (!S.preview) return;
  S.preview = null;
  requestRender();
}
