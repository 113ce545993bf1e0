"""Where the play screen puts things: two columns of panels beside the board, a message
line under it, and the board framed in the space between (issue 18: no panel over it).

The window is split in ``aspect2d`` units (the height always runs from -1 to 1, the
width from ``-ratio`` to ``ratio``):

- the left column: the game status, then the inspector (what is under the pointer) or
  whichever popup replaces it for a while (a chooser, the Actions menu, the status,
  the legend, the network chat);
- the right column: the level toggles and camera views, the move list with the
  captured pieces, and the buttons;
- between them: the board, and the message line along the bottom.

``frame_board`` then places the camera: the lens's film offset moves the picture's
centre into the board's space and the distance is chosen so that everything the board
may draw (rim, numbers, the three level planes, a flyer's top) fits inside it, seen
from the orbit's heading and pitch. Picking goes through the same lens, so clicks stay
exact.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from panda3d.core import NodePath, Point2, Point3

from wec.client.camera import Orbit

MARGIN = 0.02
MESSAGE_HEIGHT = 0.085
BUTTON_ROW = 0.085

Rect = tuple[float, float, float, float]  # left, right, bottom, top (aspect2d units)


@dataclass(frozen=True)
class PlayLayout:
    """The play screen's regions for a window of aspect ``ratio`` (width / height)."""

    ratio: float

    @property
    def wide(self) -> bool:
        return self.ratio >= 1.55

    @property
    def left_width(self) -> float:
        return 0.76 if self.wide else 0.6

    @property
    def right_width(self) -> float:
        return 0.88 if self.wide else 0.66

    @property
    def left(self) -> Rect:
        x0 = -self.ratio + MARGIN
        return (x0, x0 + self.left_width, -1 + MARGIN, 1 - MARGIN)

    @property
    def right(self) -> Rect:
        x1 = self.ratio - MARGIN
        return (x1 - self.right_width, x1, -1 + MARGIN, 1 - MARGIN)

    @property
    def board(self) -> Rect:
        """Where the board is drawn: between the columns, above the message line."""
        return (self.left[1] + MARGIN, self.right[0] - MARGIN,
                -1 + MARGIN + MESSAGE_HEIGHT + MARGIN, 1 - MARGIN)

    @property
    def message(self) -> Rect:
        board = self.board
        return (board[0], board[1], -1 + MARGIN, -1 + MARGIN + MESSAGE_HEIGHT)

    def board_ndc(self) -> Rect:
        """The board's space in normalised device coordinates (-1..1 both ways)."""
        left, right, bottom, top = self.board
        return (left / self.ratio, right / self.ratio, bottom, top)


def board_extent(sub: bool = False) -> list[tuple[float, float, float]]:
    """Points (board coordinates) that hold everything the board may draw: the rim and
    its numbers at the Ground, the Air plane and the top of a flyer above it, and (when
    the camera looks at the Sub level, ``sub``) the Sub plane; from above, the Ground
    hides the Sub plane."""
    points: list[tuple[float, float, float]] = []
    layers = [(5.85, 0.0), (5.0, 1.7), (5.0, 2.55)] + ([(5.0, -1.7)] if sub else [])
    for reach, z in layers:
        points.extend((x * reach, y * reach, z) for x in (-1, 1) for y in (-1, 1))
    return points


def _projected(orbit: Orbit, lens: Any, points: list[tuple[float, float, float]],
               ) -> list[tuple[float, float]] | None:
    """The points in film coordinates (-1..1 over the lens's film, offset ignored) seen
    from ``orbit``; None when one lies behind the camera."""
    world = NodePath("fit-world")
    camera = world.attachNewNode("fit-camera")
    camera.setPos(*orbit.eye())
    camera.lookAt(Point3(*orbit.target))
    fov = lens.getFov()
    half_w = math.tan(math.radians(fov[0]) / 2)
    half_h = math.tan(math.radians(fov[1]) / 2)
    seen: list[tuple[float, float]] = []
    for x, y, z in points:
        p = camera.getRelativePoint(world, Point3(x, y, z))
        if p.y <= 0.1:
            return None
        seen.append((p.x / p.y / half_w, p.z / p.y / half_h))
    return seen


def frame_board(orbit: Orbit, lens: Any, space: Rect,
                points: list[tuple[float, float, float]] | None = None,
                ) -> tuple[Orbit, tuple[float, float]]:
    """The orbit at the distance that makes ``points`` (default: ``board_extent``) fill
    ``space`` (normalised device coordinates) and the lens film offset that centres them
    there. The heading, pitch and target are kept."""
    points = points or board_extent(sub=orbit.target[2] < 0)
    left, right, bottom, top = space
    width, height = right - left, top - bottom
    low, high = 6.0, 80.0
    best = orbit
    for _ in range(30):
        middle = (low + high) / 2
        trial = Orbit(orbit.heading, orbit.pitch, middle, orbit.target)
        seen = _projected(trial, lens, points)
        if seen is None:
            low = middle
            continue
        xs = [p[0] for p in seen]
        ys = [p[1] for p in seen]
        if max(xs) - min(xs) <= width and max(ys) - min(ys) <= height:
            high = middle
            best = trial
        else:
            low = middle
    seen = _projected(best, lens, points) or [(0.0, 0.0)]
    xs = [p[0] for p in seen]
    ys = [p[1] for p in seen]
    centre = ((max(xs) + min(xs)) / 2, (max(ys) + min(ys)) / 2)
    goal = ((left + right) / 2, (bottom + top) / 2)
    film = lens.getFilmSize()
    # a film offset of f moves the picture by -2 f / film size (see the tests)
    offset = ((centre[0] - goal[0]) * film[0] / 2, (centre[1] - goal[1]) * film[1] / 2)
    return best, offset


def framed(orbit: Orbit, lens: Any, space: Rect) -> Orbit:
    """``orbit`` aimed at the board's centre (at its target's height) and at the
    distance that fits the board in ``space`` (normalised device coordinates), the
    lens's film offset set to centre it there (:func:`frame_board`): for a screen whose
    panels leave the board that space."""
    centred = Orbit(orbit.heading, orbit.pitch, orbit.distance, (0.0, 0.0, orbit.target[2]))
    fitted, offset = frame_board(centred, lens, space)
    lens.setFilmOffset(*offset)
    return fitted


def screen_point(base: Any, point: tuple[float, float, float]) -> tuple[float, float] | None:
    """Where a board point appears, in aspect2d units; None behind the camera."""
    seen = base.cam.getRelativePoint(base.render, Point3(*point))
    flat = Point2()
    if seen.y <= 0:
        return None
    base.camLens.project(seen, flat)
    return flat.x * base.getAspectRatio(), flat.y
