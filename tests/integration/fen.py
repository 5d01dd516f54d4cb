"""A FEN's board for tests and benchmarks that read positions without an engine (standard library only)."""


def squares(fen):
    """The pieces of a FEN's board by square name ("e1": "K")."""
    board = {}
    for i, row in enumerate(fen.split()[0].split("/")):
        f = 0
        for ch in row:
            if ch.isdigit():
                f += int(ch)
            else:
                board["%s%d" % (chr(97 + f), 8 - i)] = ch
                f += 1
    return board
