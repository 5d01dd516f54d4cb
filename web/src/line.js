// A line of moves from a root position, replayed with chessops: the positions, FENs, SAN and the
// moves in standard UCI (castling as the king's two-square move, e1g1, as the server writes it).
import { Chess, normalizeMove } from 'chessops/chess';
import { chessgroundDests } from 'chessops/compat';
import { INITIAL_FEN, makeFen, parseFen } from 'chessops/fen';
import { parsePgn, startingPosition } from 'chessops/pgn';
import { makeSanAndPlay, parseSan } from 'chessops/san';
import { kingCastlesTo, makeSquare, makeUci, parseUci } from 'chessops/util';

export { INITIAL_FEN };

const SETUP_ERRORS = {
  ERR_FEN: 'the FEN is malformed',
  ERR_BOARD: 'the board part (first field) is malformed: 8 ranks of 8 squares separated by /',
  ERR_TURN: 'the side to move (second field) must be w or b',
  ERR_CASTLING: 'the castling field is malformed',
  ERR_EP_SQUARE: 'the en-passant field is malformed',
  ERR_HALFMOVES: 'the halfmove clock is malformed',
  ERR_FULLMOVES: 'the fullmove number is malformed',
  ERR_EMPTY: 'the board is empty',
  ERR_KINGS: 'each side needs exactly one king',
  ERR_OPPOSITE_CHECK: 'the side not to move is in check',
  ERR_PAWNS_ON_BACKRANK: 'there are pawns on the first or last rank',
};

export class PositionError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

// A chessops position from a FEN, or a PositionError with a readable message.
export function positionFromFen(fen) {
  const setup = parseFen(fen.trim());
  if (setup.isErr) throw new PositionError('bad_fen', `Invalid FEN: ${SETUP_ERRORS[setup.error.message] || setup.error.message}`);
  const pos = Chess.fromSetup(setup.value);
  if (pos.isErr) throw new PositionError('bad_fen', `Impossible position: ${SETUP_ERRORS[pos.error.message] || pos.error.message}`);
  return pos.value;
}

export const fenOf = (pos) => makeFen(pos.toSetup());

// The move in standard UCI: chessops represents castling as the king taking its rook.
export function standardUci(pos, move) {
  const piece = pos.board.get(move.from);
  const target = pos.board.get(move.to);
  if (piece && piece.role === 'king' && target && target.role === 'rook' && target.color === piece.color) {
    const side = move.to > move.from ? 'h' : 'a';
    return makeSquare(move.from) + makeSquare(kingCastlesTo(piece.color, side));
  }
  return makeUci(move);
}

// Parses a UCI move (e1g1 and e1h1 both read) or SAN into a legal chessops move, or undefined.
export function parseMove(pos, text) {
  const t = text.trim();
  if (!t) return undefined;
  const uci = parseUci(t.toLowerCase());
  if (uci && 'from' in uci) {
    const m = normalizeMove(pos, uci);
    if (pos.isLegal(m)) return m;
  }
  const cleaned = t.replace(/[!?]+$/, '').replace(/^0-0-0/, 'O-O-O').replace(/^0-0/, 'O-O');
  return parseSan(pos, cleaned);
}

export class Line {
  constructor(rootFen = INITIAL_FEN, ucis = []) {
    this.rootFen = rootFen;
    const root = positionFromFen(rootFen);
    this.positions = [root];
    this.fens = [fenOf(root)];
    this.ucis = [];
    this.sans = [];
    this.moves = [];
    for (const u of ucis) if (!this.push(u)) throw new PositionError('bad_move', `move ${u} is not legal after ${this.ucis.length} plies`);
  }

  get length() {
    return this.ucis.length;
  }

  pos(ply) {
    return this.positions[ply];
  }

  fen(ply) {
    return this.fens[ply];
  }

  turn(ply) {
    return this.positions[ply].turn;
  }

  // Appends a move given as UCI or SAN; false when it is not legal.
  push(text) {
    const pos = this.positions[this.positions.length - 1];
    const move = parseMove(pos, text);
    if (!move) return false;
    const next = pos.clone();
    this.ucis.push(standardUci(pos, move));
    this.moves.push(move);
    this.sans.push(makeSanAndPlay(next, move));
    this.positions.push(next);
    this.fens.push(fenOf(next));
    return true;
  }

  // The moves' squares as chessground keys for the last-move highlight of ply (1-based).
  lastMoveKeys(ply) {
    if (ply < 1) return undefined;
    const u = this.ucis[ply - 1];
    return [u.slice(0, 2), u.slice(2, 4)];
  }

  dests(ply) {
    return chessgroundDests(this.positions[ply]);
  }

  // How the line ends at ply: undefined while it goes on, else {winner, reason}.
  outcome(ply) {
    const pos = this.positions[ply];
    if (pos.isCheckmate()) return { winner: pos.turn === 'white' ? 'black' : 'white', reason: 'mate' };
    if (pos.isStalemate()) return { winner: undefined, reason: 'stalemate' };
    if (pos.isInsufficientMaterial()) return { winner: undefined, reason: 'insufficient_material' };
    return undefined;
  }

  // Move number label of ply (1-based): "12." for White's move, "12…" for Black's.
  moveNumber(ply) {
    const root = this.positions[0];
    const fullmoves = root.fullmoves + Math.floor((ply - 1 + (root.turn === 'black' ? 1 : 0)) / 2);
    return fullmoves;
  }
}

// The main line's moves of the first game of a PGN, as written: tags, comments, variations, NAGs,
// move numbers and the result dropped. (chessops's reader skips a token it cannot read as SAN;
// here every token must be a legal move, so a typo is reported rather than cutting the game short.)
function movetextTokens(pgn) {
  const lines = pgn.split(/\r?\n/);
  let i = 0;
  while (i < lines.length && (/^\s*\[/.test(lines[i]) || !lines[i].trim())) i++;
  const body = [];
  for (; i < lines.length && !/^\s*\[/.test(lines[i]); i++) body.push(lines[i].replace(/;.*$/, ''));
  let s = body.join(' ').replace(/\{[^}]*\}/g, ' ');
  for (let prev = ''; prev !== s; ) {
    prev = s;
    s = s.replace(/\([^()]*\)/g, ' ');
  }
  s = s.replace(/\$\d+/g, ' ').replace(/\d+\s*\.+/g, ' ');
  const out = [];
  for (const tok of s.split(/\s+/)) {
    if (!tok) continue;
    if (/^(1-0|0-1|1\/2-1\/2|\*)$/.test(tok)) break;
    out.push(tok);
  }
  return out;
}

// Reads a pasted text as a FEN or a PGN: {kind, rootFen, ucis}. A FEN is returned as pasted (the
// caller validates it: the server for a game, so its exact error code is shown; positionFromFen for
// analysis); a PGN is replayed here and throws PositionError at its first illegal move.
export function readPosition(text) {
  const t = text.trim();
  if (!t) throw new PositionError('position_missing', 'Paste a FEN or a PGN first.');
  if (!/\n/.test(t) && t.includes('/') && !t.includes('.') && !t.includes('[')) return { kind: 'fen', rootFen: t, ucis: [] };
  const games = parsePgn(t);
  if (!games.length) throw new PositionError('bad_pgn', 'This is neither a FEN nor a PGN.');
  const game = games[0];
  const start = startingPosition(game.headers);
  if (start.isErr) throw new PositionError('bad_pgn', `The PGN's FEN tag is not a legal position (${SETUP_ERRORS[start.error.message] || start.error.message}).`);
  const rootFen = fenOf(start.value);
  const line = new Line(rootFen);
  const tokens = movetextTokens(t);
  for (const san of tokens) {
    if (!line.push(san)) {
      const n = line.length + 1;
      const dots = line.turn(n - 1) === 'white' ? '.' : '...';
      throw new PositionError('bad_pgn', `PGN move ${line.moveNumber(n)}${dots} ${san} is not legal there.`);
    }
  }
  if (!tokens.length && !game.headers.get('FEN')) throw new PositionError('bad_pgn', 'This is neither a FEN nor a PGN with moves.');
  return { rootFen, ucis: line.ucis, kind: 'pgn' };
}
