"""Article placement: where dropped articles land (R7.4, used by R3.4 and R7.3)."""

from __future__ import annotations

from functools import lru_cache

from wec.engine import board
from wec.engine.pieces import ArticleKind, Side, traits
from wec.engine.position import Piece, normal_ready

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
    sign = 1 if side is Side.WHITE else -1
    size = board.SIZE
    order = [sq]
    for f, r in _RINGS:
        to_row, to_col = row + sign * f, col + sign * r
        if 1 <= to_row <= size and 1 <= to_col <= size:
            order.append((to_row - 1) * size + to_col - 1)
    return tuple(order)


def _rings() -> tuple[tuple[int, int], ...]:
    """The owner offsets (forward, right) of drop_order's rings k = 1 .. SIZE - 1."""
    out: list[tuple[int, int]] = []
    for k in range(1, board.SIZE):
        out += [(k, r) for r in range(-k, k + 1)]
        out += [(f, -k) for f in range(k - 1, -k, -1)]
        out += [(f, k) for f in range(k - 1, -k, -1)]
        out += [(-k, r) for r in range(-k, k + 1)]
    return tuple(out)


_RINGS = _rings()


Ground = tuple[tuple[ArticleKind, ...], ...]
GroundReady = tuple[tuple[int, ...], ...]


class ArticleTable:
    """Ground articles with their per-instance state (R1.7, R3.5), changed in place
    while one action resolves, then packed back into a Position's two fields."""

    def __init__(self, ground: Ground, ready: GroundReady) -> None:
        self.kinds = list(ground)
        # None while every ground article is ready (the common case, kept cheap)
        self.ready: list[tuple[int, ...]] | None = list(ready) if ready else None

    def _materialise(self) -> list[tuple[int, ...]]:
        if self.ready is None:
            self.ready = [(0,) * len(here) for here in self.kinds]
        return self.ready

    def put(self, sq: int, article: ArticleKind, ready: int = 0) -> None:
        if ready or self.ready is not None:
            table = self._materialise()
            table[sq] = (*table[sq], ready)
        self.kinds[sq] = (*self.kinds[sq], article)

    def take(self, sq: int, article: ArticleKind) -> int:
        """Remove the first-placed ``article`` lying on ``sq``; its ready turn."""
        at = self.kinds[sq].index(article)
        self.kinds[sq] = self.kinds[sq][:at] + self.kinds[sq][at + 1:]
        if self.ready is None:
            return 0
        ready = self.ready[sq][at]
        self.ready[sq] = self.ready[sq][:at] + self.ready[sq][at + 1:]
        return ready

    def place_dropped(self, sq: int, side: Side, articles: tuple[ArticleKind, ...],
                      ready: tuple[int, ...] = ()) -> tuple[tuple[ArticleKind, int], ...]:
        """Drop ``articles`` (in acquisition order) around ``sq`` by R7.4; the placements."""
        placed = []
        order = drop_order(sq, side)
        at = 0
        for i, article in enumerate(articles):
            while len(self.kinds[order[at]]) >= GROUND_ARTICLE_LIMIT:
                at += 1  # R3.6 keeps total articles <= 200 = 100 squares x 2, so this ends
            self.put(order[at], article, ready[i] if ready else 0)
            placed.append((article, order[at]))
        return tuple(placed)

    def packed(self) -> tuple[Ground, GroundReady]:
        ready = () if self.ready is None or not any(map(any, self.ready)) else tuple(
            self.ready)
        return tuple(self.kinds), ready


def with_articles(piece: Piece, articles: tuple[ArticleKind, ...],
                  article_ready: tuple[int, ...]) -> Piece:
    """``piece`` carrying ``articles`` whose instances are ready at ``article_ready``."""
    inherent = piece.ready[:len(traits(piece.kind).inherent)] if piece.ready else (
        (0,) * len(traits(piece.kind).inherent))
    return piece.but(articles=articles, ready=normal_ready(inherent + article_ready))


def take_article(piece: Piece, article: ArticleKind) -> tuple[Piece, int]:
    """``piece`` without its earliest-acquired ``article``, and that instance's ready turn."""
    at = piece.articles.index(article)
    ready = piece.article_ready()
    return (with_articles(piece, piece.articles[:at] + piece.articles[at + 1:],
                          ready[:at] + ready[at + 1:]), ready[at])


def add_article(piece: Piece, article: ArticleKind, ready: int = 0) -> Piece:
    """``piece`` having acquired ``article`` last (R7.4 keeps acquisition order)."""
    return with_articles(piece, (*piece.articles, article), (*piece.article_ready(), ready))


def place_dropped(ground: Ground, sq: int, side: Side, articles: tuple[ArticleKind, ...]
                  ) -> tuple[Ground, tuple[tuple[ArticleKind, int], ...]]:
    """R7.4 placement of stateless ``articles`` on ``ground``: new ground + placements."""
    table = ArticleTable(ground, ())
    placed = table.place_dropped(sq, side, articles)
    return tuple(table.kinds), placed
