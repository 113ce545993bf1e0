"""Board geometry (R1): squares, levels, cells, directions and distance.

A *square* is an int 0..99 (``(row-1)*10 + (col-1)``) and a *cell* is one level of
one square, an int ``square*3 + level``. Small ints keep the rules fast and make
iteration order obvious (no hashing involved).
"""

from __future__ import annotations

from enum import IntEnum

SIZE = 10
SQUARES = SIZE * SIZE
CELLS = SQUARES * 3


class Level(IntEnum):
    """The three levels of every square (R1.5); the int order is Air, Ground, Sub."""

    AIR = 0
    GROUND = 1
    SUB = 2

    @property
    def label(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, text: str) -> Level:
        try:
            return cls[text.upper()]
        except KeyError:
            raise ValueError(f"unknown level {text!r} (expected air, ground or sub)") from None


AIR = Level.AIR
GROUND = Level.GROUND
SUB = Level.SUB

# The 8 king vectors (R1.10) as (drow, dcol), in a fixed order.
DIRECTIONS: tuple[tuple[int, int], ...] = (
    (1, -1), (1, 0), (1, 1), (0, -1), (0, 1), (-1, -1), (-1, 0), (-1, 1),
)


def on_board(row: int, col: int) -> bool:
    """True when (row, col) is one of the 100 squares (R1.1)."""
    return 1 <= row <= SIZE and 1 <= col <= SIZE


def square(row: int, col: int) -> int:
    """The square index of (row, col); the caller guarantees it is on the board."""
    return (row - 1) * SIZE + (col - 1)


def row_of(sq: int) -> int:
    return sq // SIZE + 1


def col_of(sq: int) -> int:
    return sq % SIZE + 1


def cell(sq: int, level: int) -> int:
    return sq * 3 + level


def cell_square(c: int) -> int:
    return c // 3


def cell_level(c: int) -> Level:
    return _LEVELS[c % 3]


_LEVELS = (Level.AIR, Level.GROUND, Level.SUB)


def cell_at(row: int, col: int, level: int) -> int:
    return square(row, col) * 3 + level


def distance(a: int, b: int) -> int:
    """Chebyshev distance between two squares, levels ignored (R1.9, D-2)."""
    return _DISTANCE[a][b]


_DISTANCE: list[list[int]] = [
    [max(abs(a // SIZE - b // SIZE), abs(a % SIZE - b % SIZE)) for b in range(SQUARES)]
    for a in range(SQUARES)]


def describe_square(sq: int) -> str:
    return f"({row_of(sq)},{col_of(sq)})"


def describe_cell(c: int) -> str:
    """Human form used in error messages, e.g. ``(4,3) ground``."""
    return f"{describe_square(cell_square(c))} {cell_level(c).label}"


def describe_direction(d: tuple[int, int]) -> str:
    """``toward row 10``, ``toward row 1 and column 10``: a direction (R1.10) in the
    board's own numbers, which both players read the same way."""
    dr, dc = d
    parts = []
    if dr:
        parts.append("row 10" if dr > 0 else "row 1")
    if dc:
        parts.append("column 10" if dc > 0 else "column 1")
    return "toward " + " and ".join(parts) if parts else "in place"


def offset(sq: int, d: tuple[int, int], k: int = 1) -> int | None:
    """The square ``k`` steps from ``sq`` along ``d``, or None off the board."""
    if k == 1:
        return _NEIGHBOURS[sq].get(d)
    row, col = row_of(sq) + d[0] * k, col_of(sq) + d[1] * k
    return square(row, col) if on_board(row, col) else None


# per square, the adjacent square in each direction that stays on the board
_NEIGHBOURS: list[dict[tuple[int, int], int]] = [
    {d: square(row_of(s) + d[0], col_of(s) + d[1]) for d in DIRECTIONS
     if on_board(row_of(s) + d[0], col_of(s) + d[1])} for s in range(SQUARES)]


def neighbours(sq: int) -> tuple[int, ...]:
    """The on-board squares adjacent to ``sq`` (R1.9: distance 1)."""
    return _NEIGHBOUR_SQUARES[sq]


_NEIGHBOUR_SQUARES: list[tuple[int, ...]] = [tuple(n.values()) for n in _NEIGHBOURS]


def sign_step(frm: int, to: int) -> tuple[int, int]:
    """R6.11.2, R8.5.1: ``(sign Δrow, sign Δcol)`` from ``frm`` toward ``to``."""
    dr, dc = row_of(to) - row_of(frm), col_of(to) - col_of(frm)
    return ((dr > 0) - (dr < 0), (dc > 0) - (dc < 0))
