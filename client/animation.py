"""Animating what a side saw happen: shots, projectiles, hits, stuns, captures.

The scene is already drawn in its new state when these play; effects are short-lived
overlays (flashes, tracers, rings) built from the side's censored events, so an
animation can never show more than the events do. The speed setting scales every
duration: ``off`` shows nothing, ``fast`` runs at twice the pace, ``full`` as designed.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from direct.interval.Interval import Interval
from direct.interval.IntervalGlobal import (
    Func,
    LerpColorScaleInterval,
    LerpPosInterval,
    LerpScaleInterval,
    Parallel,
    Sequence,
    Wait,
)
from panda3d.core import CardMaker, LineSegs, NodePath, TransparencyAttrib
from panda3d.direct import CInterval

from wec.client.layout import LEVEL_Z, cell_xyz, square_xy
from wec.engine import board
from wec.engine.board import AIR, GROUND, SUB
from wec.engine.events import (
    Captured,
    Converted,
    Destroyed,
    Event,
    Fired,
    Hit,
    ProjectileLaunched,
    ProjectileStepped,
    Stunned,
)

SPEEDS = {"off": 0.0, "fast": 0.5, "full": 1.0}
FLASH_SECONDS = 0.45
TRACER_SECONDS = 0.35
SHOT_LEVEL = {"sam": AIR, "torpedo": SUB, "rocket": GROUND}

Colour = tuple[float, float, float, float]
COLOURS: dict[str, Colour] = {
    "fire": (1.0, 0.55, 0.1, 1.0),
    "hit": (1.0, 0.15, 0.1, 1.0),
    "destroyed": (1.0, 0.3, 0.05, 1.0),
    "stun": (1.0, 0.95, 0.2, 1.0),
    "capture": (1.0, 0.45, 0.1, 1.0),
    "convert": (0.85, 0.35, 1.0, 1.0),
}


# types-panda3d (0.4.1) gives Sequence and Parallel no constructor of their own, so mypy
# sees CMetaInterval's (a name) instead of MetaInterval's (the intervals): these two are
# the only places the client builds them.
def sequence(*intervals: Interval | CInterval) -> Sequence:
    """``Sequence(*intervals)``: the intervals one after another."""
    return Sequence(*intervals)  # type: ignore[call-overload, no-any-return]  # stub bug above


def parallel(*intervals: Interval | CInterval) -> Parallel:
    """``Parallel(*intervals)``: the intervals all at once."""
    return Parallel(*intervals)  # type: ignore[call-overload, no-any-return]  # stub bug above


def _flash(parent: NodePath, x: float, y: float, z: float, colour: Colour,
           seconds: float, grow: float = 1.6) -> Sequence:
    """A square burst on a cell that swells and fades."""
    maker = CardMaker("flash")
    maker.setFrame(-0.4, 0.4, -0.4, 0.4)
    node = parent.attachNewNode(maker.generate())
    node.setP(-90)
    node.setPos(x, y, z + 0.03)
    node.setColor(*colour)
    node.setTransparency(TransparencyAttrib.MAlpha)
    node.setDepthWrite(False)
    node.setLightOff()
    node.setBin("fixed", 20)
    node.hide()
    return sequence(Func(node.show),
                    parallel(LerpScaleInterval(node, seconds, grow, startScale=0.6),
                             LerpColorScaleInterval(node, seconds, (1, 1, 1, 0),
                                                    startColorScale=(1, 1, 1, 1))),
                    Func(node.removeNode))


def _tracer(parent: NodePath, start: tuple[float, float, float],
            end: tuple[float, float, float], colour: Colour,
            seconds: float) -> Sequence:
    """A bright line from the firer along its aim that fades."""
    lines = LineSegs("tracer")
    lines.setThickness(4)
    lines.setColor(*colour)
    lines.moveTo(*start)
    lines.drawTo(*end)
    node = parent.attachNewNode(lines.create())
    node.setLightOff()
    node.setTransparency(TransparencyAttrib.MAlpha)
    node.setBin("fixed", 21)
    node.hide()
    return sequence(Func(node.show),
                    LerpColorScaleInterval(node, seconds, (1, 1, 1, 0),
                                           startColorScale=(1, 1, 1, 1)),
                    Func(node.removeNode))


def _lifted(cell: int, height: float = 0.4) -> tuple[float, float, float]:
    x, y, z = cell_xyz(cell)
    return x, y, z + height


class Choreographer:
    """Builds the interval that plays a side's events over the scene."""

    def __init__(self, parent: NodePath, speed: str = "full") -> None:
        self.parent = parent
        self.speed = speed

    def effects(self, events: Iterable[Event], models: Any = None) -> Sequence | None:
        """The effect intervals of ``events``, in order; None when there is nothing to play
        (or animations are off)."""
        scale = SPEEDS[self.speed]
        if scale == 0.0:
            return None
        steps = [step for e in events if (step := self._step(e, scale, models)) is not None]
        return sequence(*steps) if steps else None

    def _step(self, event: Event, scale: float, models: Any) -> Sequence | Parallel | None:
        flash = FLASH_SECONDS * scale
        if isinstance(event, Fired):
            start = _lifted(event.cell)
            if event.dir is not None:
                sq = board.offset(board.cell_square(event.cell), event.dir, 3)
                sq = sq if sq is not None else board.cell_square(event.cell)
                end = (*square_xy(sq), start[2])
            elif event.target is not None:
                end = _lifted(event.target)
            elif event.dest is not None:
                end = (*square_xy(event.dest), LEVEL_Z[GROUND] + 0.4)
            else:
                end = start
            return parallel(_flash(self.parent, *cell_xyz(event.cell), COLOURS["fire"], flash,
                                   1.2),
                            _tracer(self.parent, start, end, COLOURS["fire"],
                                    TRACER_SECONDS * scale))
        if isinstance(event, Hit):
            return _flash(self.parent, *cell_xyz(event.cell), COLOURS["hit"], flash)
        if isinstance(event, Destroyed):
            return _flash(self.parent, *cell_xyz(event.cell), COLOURS["destroyed"],
                          flash * 1.5, 2.2)
        if isinstance(event, Stunned):
            return _flash(self.parent, *cell_xyz(event.cell), COLOURS["stun"], flash, 1.3)
        if isinstance(event, Captured):
            return _flash(self.parent, *cell_xyz(event.cell), COLOURS["capture"], flash, 1.8)
        if isinstance(event, Converted):
            return _flash(self.parent, *cell_xyz(event.cell), COLOURS["convert"], flash, 1.5)
        if isinstance(event, ProjectileLaunched | ProjectileStepped) and models is not None:
            return self._projectile(event, scale, models)
        return None

    def _projectile(self, event: ProjectileLaunched | ProjectileStepped, scale: float,
                    models: Any) -> Sequence:
        level = SHOT_LEVEL[event.projectile]
        z = LEVEL_Z[level] + 0.45
        if isinstance(event, ProjectileLaunched):
            frm_sq, to_sq = event.sq, event.sq
        else:
            frm_sq, to_sq = event.frm, event.to
        shot = models.projectile(event.projectile)
        shot.reparentTo(self.parent)
        shot.setPos(*square_xy(frm_sq), z)
        shot.setLightOff()
        shot.hide()
        return sequence(Func(shot.show),
                        LerpPosInterval(shot, 0.3 * scale, (*square_xy(to_sq), z)),
                        Wait(0.05 * scale), Func(shot.removeNode))
