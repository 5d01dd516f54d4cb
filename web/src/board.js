// The board: chessground (Lichess's board) showing a position, taking moves by drag or by clicking
// a piece and then one of its legal-destination dots, and asking which piece a pawn promotes to.
import { Chessground } from '@lichess-org/chessground';
import { el } from './util.js';

const PROMOTION_ROLES = ['queen', 'knight', 'rook', 'bishop'];

export class Board {
  // onMove(uci) is called with the move in UCI (e7e8q for promotions).
  constructor(element, promotionLayer, onMove) {
    this.element = element;
    this.promotionLayer = promotionLayer;
    this.onMove = onMove;
    this.orientation = 'white';
    this.view = null;
    this.cg = Chessground(element, {
      orientation: 'white',
      coordinates: true,
      animation: { enabled: true, duration: 180 },
      highlight: { lastMove: true, check: true },
      movable: { free: false, showDests: true, color: undefined, events: { after: (o, d) => this.afterMove(o, d) } },
      premovable: { enabled: false },
      draggable: { enabled: true, showGhost: true },
      drawable: { enabled: true, visible: true },
      disableContextMenu: true,
    });
  }

  // view: {fen, turn, check, lastMove, movable (bool), dests (Map), shapes}
  show(view) {
    this.cancelPromotion(false);
    this.view = view;
    this.cg.set({
      fen: view.fen,
      orientation: this.orientation,
      turnColor: view.turn,
      check: view.check ? view.turn : false,
      lastMove: view.lastMove,
      movable: { color: view.movable ? view.turn : undefined, dests: view.movable ? view.dests : new Map() },
    });
    this.cg.setAutoShapes(view.shapes || []);
    this.element.dataset.turn = view.turn;
    this.element.dataset.movable = view.movable ? 'yes' : 'no';
  }

  setShapes(shapes) {
    this.cg.setAutoShapes(shapes || []);
  }

  flip() {
    this.orientation = this.orientation === 'white' ? 'black' : 'white';
    this.cg.set({ orientation: this.orientation });
    this.element.dataset.orientation = this.orientation;
    const row = this.element.closest('.board-row');
    if (row) row.classList.toggle('flipped', this.orientation === 'black');
  }

  setOrientation(color) {
    if (color !== this.orientation) this.flip();
    this.element.dataset.orientation = this.orientation;
  }

  afterMove(orig, dest) {
    const piece = this.cg.state.pieces.get(dest);
    if (piece && piece.role === 'pawn' && (dest[1] === '8' || dest[1] === '1')) {
      this.askPromotion(orig, dest, piece.color);
      return;
    }
    this.onMove(orig + dest);
  }

  // Lichess's chooser: the four pieces in a column from the promotion square, over a dimmed board.
  askPromotion(orig, dest, color) {
    const layer = this.promotionLayer;
    layer.replaceChildren();
    const file = dest.charCodeAt(0) - 97;
    const col = this.orientation === 'white' ? file : 7 - file;
    const fromTop = (dest[1] === '8') === (this.orientation === 'white');
    PROMOTION_ROLES.forEach((role, i) => {
      const row = fromTop ? i : 7 - i;
      const b = el(
        'button.promotion-choice',
        {
          type: 'button',
          'aria-label': `promote to ${role}`,
          title: `Promote to ${role}`,
          dataset: { role },
          style: `left:${col * 12.5}%;top:${row * 12.5}%`,
          onclick: (ev) => {
            ev.stopPropagation();
            this.cancelPromotion(false);
            this.onMove(orig + dest + { queen: 'q', knight: 'n', rook: 'r', bishop: 'b' }[role]);
          },
        },
        el(`piece.${role}.${color}`),
      );
      layer.append(b);
    });
    layer.onclick = () => this.cancelPromotion(true);
    layer.hidden = false;
    this.pendingPromotion = true;
    this.keyHandler = (ev) => {
      if (ev.key === 'Escape') this.cancelPromotion(true);
    };
    document.addEventListener('keydown', this.keyHandler);
  }

  cancelPromotion(restore) {
    if (!this.pendingPromotion) return;
    this.pendingPromotion = false;
    this.promotionLayer.hidden = true;
    this.promotionLayer.replaceChildren();
    document.removeEventListener('keydown', this.keyHandler);
    if (restore && this.view) this.show(this.view);
  }

  // A square's key under a point of the page (tests and keyboard help use it).
  keyAt(x, y) {
    return this.cg.getKeyAtDomPos([x, y]);
  }
}
