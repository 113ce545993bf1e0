"""What a shot being aimed would do, as far as the aiming side knows (issue 18).

The engine resolves the Fire on the side's own view taken as the whole world
(``engine.fire.resolve_fire``): hidden enemy pieces are absent from it, so the preview
is exactly what this side can know, never more. A projectile's course beyond its
launch square is followed the way it flies (R6.8.4, R6.11.2: one square a turn along
its direction, or toward its target) to the first piece this side knows of at its
level, or to the board's edge.
"""

from __future__ import annotations

from dataclasses import dataclass

from wec.client.narration import article_name, direction_words, narrate
from wec.engine import board
from wec.engine.board import GROUND, Level
from wec.engine.errors import WecError
from wec.engine.events import Converted, Destroyed, Hit, ProjectileLaunched, Stunned
from wec.engine.fire import resolve_fire
from wec.engine.intents import Fire
from wec.engine.pieces import ArticleKind, describe_kind
from wec.engine.position import Position

PROJECTILE_LEVEL = {"rocket": board.GROUND, "sam": board.AIR, "torpedo": board.SUB}


@dataclass(frozen=True, slots=True)
class AimPreview:
    """The cells a shot reaches (its ray or area, or a projectile's course), the cells
    of pieces it would hit, and one line saying so."""

    path: tuple[int, ...]
    hits: tuple[int, ...]
    text: str


def reach_of(fire: Fire, view: Position) -> tuple[Level, list[int]] | None:
    """The squares along a directional Fire's aim it may reach (R6.5 Flame: FlameRange;
    R6.6 Stunner: StunRange; R6.7 Conversion: 1), at the firer's level."""
    if fire.dir is None:
        return None
    level = board.cell_level(fire.frm)
    reach = {ArticleKind.FLAME: view.options.flame_range,
             ArticleKind.STUNNER: view.options.stunner_range,
             ArticleKind.CONVERSION: 1}.get(fire.weapon)
    if reach is None:
        return None
    squares = []
    for k in range(1, reach + 1):
        sq = board.offset(board.cell_square(fire.frm), fire.dir, k)
        if sq is None:
            break
        squares.append(sq)
    return level, squares


def preview(fire: Fire, view: Position) -> AimPreview:
    """What ``fire`` would do on ``view`` (the aiming side's partial state)."""
    try:
        _after, log = resolve_fire(view.evolve(viewer=None), fire)
    except (WecError, ValueError, AssertionError) as problem:
        return AimPreview((), (), f"cannot tell what this shot would do: {problem}")
    events = list(log)
    hits = tuple(dict.fromkeys(e.cell for e in events if isinstance(e, Hit)))
    weapon = article_name(fire.weapon)
    effects = [narrate(e, view.turn) for e in events
               if isinstance(e, Hit | Destroyed | Stunned | Converted)]
    launched = next((e for e in events if isinstance(e, ProjectileLaunched)), None)
    if launched is not None:
        path, struck = _course(launched, view)
        hits = hits or struck
        aim = ("homing on " + _target_name(launched.target, view)
               if launched.target is not None else direction_words(launched.dir))
        if struck and not effects:
            first = next(p for p in view.pieces if p.cell == struck[0])
            effects = [f"would meet the {first.side.title} {describe_kind(first.kind)} at "
                       f"{board.describe_cell(first.cell)} first (if nothing moves)"]
        text = (f"{weapon} {aim}: a projectile flies one square a turn to the board's "
                "edge; " + ("; ".join(effects) if effects else "nothing you know of "
                            "in its way"))
        return AimPreview(path, hits, text)
    reached = reach_of(fire, view)
    if reached is not None:
        level, squares = reached
        if fire.weapon is ArticleKind.STUNNER and hits:  # stops at the first piece
            stop = board.cell_square(hits[0])
            squares = squares[:squares.index(stop) + 1] if stop in squares else squares
        path = tuple(board.cell(sq, level) for sq in squares)
        span = {ArticleKind.FLAME: f"range {view.options.flame_range}",
                ArticleKind.STUNNER: f"range {view.options.stunner_range}, stops at the "
                                     "first piece",
                ArticleKind.CONVERSION: "the next square"}[fire.weapon]
        assert fire.dir is not None
        text = (f"{weapon} {direction_words(fire.dir)} ({span}): "
                + ("; ".join(effects) if effects else "hits nothing you know of"))
        return AimPreview(path, hits, text)
    if fire.target is not None:
        text = (f"{weapon} at {_target_name(fire.target, view)}: "
                + ("; ".join(effects) if effects else "no effect you know of"))
        return AimPreview((fire.target,), hits or (fire.target,), text)
    if fire.dest is not None:
        return AimPreview((board.cell(fire.dest, GROUND),), (),
                          f"{weapon}: travel to {board.describe_square(fire.dest)} by the "
                          f"{fire.path} path, one step a turn (R8)")
    return AimPreview((), hits, "; ".join(effects))


def _target_name(cell: int | None, view: Position) -> str:
    target = next((p for p in view.pieces if p.cell == cell), None)
    if target is None or cell is None:
        return "its target"
    return f"the {target.side.title} {describe_kind(target.kind)} at {board.describe_cell(cell)}"


def _course(launched: ProjectileLaunched, view: Position) -> tuple[tuple[int, ...],
                                                                  tuple[int, ...]]:
    """The cells a projectile would pass from its launch square, and the first cell on
    the way holding a piece this side knows of (if nothing moves)."""
    level = PROJECTILE_LEVEL[launched.projectile]
    occupied = {p.cell for p in view.pieces}
    target_sq = board.cell_square(launched.target) if launched.target is not None else None
    sq: int | None = launched.sq
    path: list[int] = []
    for _ in range(2 * board.SIZE):
        if sq is None:
            break
        cell = board.cell(sq, level)
        path.append(cell)
        if cell in occupied:
            return tuple(path), (cell,)
        if target_sq is not None:
            if sq == target_sq:
                break
            sq = board.offset(sq, board.sign_step(sq, target_sq))
        else:
            sq = board.offset(sq, launched.dir)
    return tuple(path), ()
