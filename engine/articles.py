"""Article placement: where dropped articles land (R7.4, used by R3.4 and R7.3)."""

from __future__ import annotations

from functools import lru_cache

from engine import board
from engine.pieces import ArticleKind, Side

GROUND_ARTICLE_LIMIT = 2  # R1.7
MAX_ARTICLES = 200  # R3.6


@lru_cache(maxsize=256)
def drop_order(sq: int, side: Side) -> tuple[int, ...]:
    """Squares in R7.4 order around ``sq`` in ``side``'s orientation, off-board ones skipped.

    The piece's own square, then ring k = 1, 2, ...: front row left to right, left
    column front to back, right column front to back, back row left to right (D-29).
    For k = 1 that is forward-left, forward, forward-right, left, right, back-left,
    back, back-right, as R7.4(2) lists.
    """
    row, col = board.row_of(sq), board.col_of(sq)
    order = [sq]
    for k in range(1, board.SIZE):
        ring = [(k, r) for r in range(-k, k + 1)]
        ring += [(f, -k) for f in range(k - 1, -k, -1)]
        ring += [(f, k) for f in range(k - 1, -k, -1)]
        ring += [(-k, r) for r in range(-k, k + 1)]
        for f, r in ring:
            dr, dc = (f, r) if side is Side.WHITE else (-f, -r)
            if board.on_board(row + dr, col + dc):
                order.append(board.square(row + dr, col + dc))
    return tuple(order)


Ground = tuple[tuple[ArticleKind, ...], ...]


def place_dropped(ground: Ground, sq: int, side: Side, articles: tuple[ArticleKind, ...]
                  ) -> tuple[Ground, tuple[tuple[ArticleKind, int], ...]]:
    """Drop ``articles`` (in acquisition order) around ``sq``; returns new ground + placements."""
    if not articles:
        return ground, ()
    squares = list(ground)
    placed = []
    order = drop_order(sq, side)
    at = 0
    for article in articles:
        while len(squares[order[at]]) >= GROUND_ARTICLE_LIMIT:
            at += 1  # R3.6 keeps total articles <= 200 = 100 squares x 2, so this ends
        target = order[at]
        squares[target] = squares[target] + (article,)
        placed.append((article, target))
    return tuple(squares), tuple(placed)
