"""Where things stand in 3D: board squares and levels to world coordinates and back.

One square is one unit; the board is centred on the origin with row 1 at -Y (White's
home rows) and row 10 at +Y (Black's). The three levels are stacked planes: Air
above the Ground checkerboard, Sub below it (R1.5). Picking is plain geometry (a ray
against the level planes), so it is exact, cheap and testable without rendering.
"""

from __future__ import annotations

from dataclasses import dataclass

from wec.engine import board
from wec.engine.board import AIR, GROUND, SUB, Level
from wec.engine.pieces import Side

LEVEL_Z: dict[Level, float] = {AIR: 1.7, GROUND: 0.0, SUB: -1.7}
PIECE_BODY = 0.4
"""Height above a level plane at which a piece's body is hit by a click."""

# Colours as the manual gives them (R2 GUI): Air pieces blue, Sub pieces green, dark for
# Black and lighter for White; Ground pieces black and white.
PIECE_COLOURS: dict[tuple[Side, Level], tuple[float, float, float, float]] = {
    (Side.BLACK, GROUND): (0.27, 0.27, 0.30, 1.0),
    (Side.WHITE, GROUND): (0.95, 0.93, 0.86, 1.0),
    (Side.BLACK, AIR): (0.10, 0.22, 0.68, 1.0),
    (Side.WHITE, AIR): (0.52, 0.74, 1.00, 1.0),
    (Side.BLACK, SUB): (0.05, 0.40, 0.16, 1.0),
    (Side.WHITE, SUB): (0.48, 0.92, 0.55, 1.0),
}
# A colour-blind-safe alternative (Okabe-Ito): Air in blues, Sub in oranges, which stay
# apart under every common colour-vision deficiency; Ground stays black and white.
COLOUR_BLIND_COLOURS: dict[tuple[Side, Level], tuple[float, float, float, float]] = {
    (Side.BLACK, GROUND): (0.27, 0.27, 0.30, 1.0),
    (Side.WHITE, GROUND): (0.95, 0.93, 0.86, 1.0),
    (Side.BLACK, AIR): (0.0, 0.30, 0.55, 1.0),
    (Side.WHITE, AIR): (0.34, 0.71, 0.91, 1.0),
    (Side.BLACK, SUB): (0.65, 0.30, 0.0, 1.0),
    (Side.WHITE, SUB): (0.90, 0.62, 0.0, 1.0),
}
PALETTES = {"manual": PIECE_COLOURS, "colour-blind": COLOUR_BLIND_COLOURS}

LAYER_TINTS: dict[Level, tuple[float, float, float]] = {
    AIR: (0.45, 0.65, 1.0),
    SUB: (0.20, 0.75, 0.45),
}


def square_xy(sq: int) -> tuple[float, float]:
    """The centre of a square in world X, Y."""
    return board.col_of(sq) - 5.5, board.row_of(sq) - 5.5


def cell_xyz(cell: int) -> tuple[float, float, float]:
    x, y = square_xy(board.cell_square(cell))
    return x, y, LEVEL_Z[board.cell_level(cell)]


def square_at(x: float, y: float) -> int | None:
    """The square under world point (x, y), or None off the board."""
    col = round(x + 5.5)
    row = round(y + 5.5)
    if not board.on_board(row, col):
        return None
    return board.square(row, col)


def home_heading(side: Side) -> float:
    """Camera heading that puts a side's home rows nearest the viewer (H=0 looks to +Y)."""
    return 0.0 if side is Side.WHITE else 180.0


def piece_heading(side: Side) -> float:
    """Models face +Y; Black's pieces face -Y, toward White."""
    return 0.0 if side is Side.WHITE else 180.0


@dataclass(frozen=True, slots=True)
class Hit:
    """A ray crossing one level plane (``body`` when it crossed a piece's body height)."""

    distance: float
    sq: int
    level: Level
    body: bool


def ray_hits(origin: tuple[float, float, float], direction: tuple[float, float, float],
             shown: tuple[Level, ...] = (AIR, GROUND, SUB)) -> list[Hit]:
    """Every level plane (and piece-body plane) the ray crosses over the board, nearest
    first: what the click may mean, for the caller to choose among."""
    ox, oy, oz = origin
    dx, dy, dz = direction
    hits: list[Hit] = []
    if abs(dz) < 1e-9:
        return hits
    for level in shown:
        for body, height in ((False, LEVEL_Z[level]), (True, LEVEL_Z[level] + PIECE_BODY)):
            t = (height - oz) / dz
            if t <= 0:
                continue
            sq = square_at(ox + dx * t, oy + dy * t)
            if sq is not None:
                hits.append(Hit(t, sq, level, body))
    hits.sort(key=lambda h: h.distance)
    return hits


def hides_from(eye: tuple[float, float, float], front: tuple[float, float],
               back: tuple[float, float]) -> bool:
    """Whether, seen from ``eye``, a square centred on the board (``front``: half side,
    height) covers all of another one below it (``back``): every ray from the eye to the
    back square crosses the front one first (the Ground and its rim over the Sub plane)."""
    ex, ey, ez = eye
    front_half, front_z = front
    back_half, back_z = back
    if ez <= front_z or back_z >= front_z:
        return False
    grow = (ez - back_z) / (ez - front_z)  # the front square's shadow on the back plane
    return all(e + (-front_half - e) * grow <= -back_half
               and e + (front_half - e) * grow >= back_half for e in (ex, ey))


def choose_hit(hits: list[Hit], interesting: set[int]) -> tuple[int, Level | None] | None:
    """The click's square and level: the nearest crossing whose cell holds something
    (a piece, a lit cell); else the Ground square under the ray with no level (the
    chooser decides); None off the board."""
    for hit in hits:
        if board.cell(hit.sq, hit.level) in interesting:
            return hit.sq, hit.level
    for hit in hits:
        if hit.level is GROUND and not hit.body:
            return hit.sq, None
    return (hits[0].sq, None) if hits else None
