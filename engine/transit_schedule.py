"""The transport steps the other side can count on (R8.2-R8.4; issue 21, fog of war).

A side's transport phase (R4.2(3)) asks the other side one presence question per step
of each traveller (R1.6, R8.4.2: is the next square-level free of enemy pieces?), and a
landing flyer or diver one more (R8.3.2, R8.4.2). Under fog of war the other side
receives those questions, so their *number* must not depend on anything the rules do not
show it. What it is shown is the Fire that starts a transport: a Fire is public, its
firer revealed (R8.1.3, R9.8), its destination and path named, so it can count the
steps the transport will take (one per own turn, along a minimal king path: the
Chebyshev distance, R8.4.1, R8.5). What it is not shown is a hidden traveller stopping
early because its own side's hidden piece stands in the way (R8.4.2).

So each side keeps a *schedule*: the travels its Fires announced, with the turn-start
steps still due. Its transport phase then takes one step per scheduled travel, a real
one for a piece still in transit and a *phantom* one (the same questions and operation
numbers, nothing moves) for a travel that ended early; every step of a travel asks the
same number of questions whatever happens in it (:func:`questions_per_step`). The
schedule is a function of public facts (the Fires, whose turn starts) and of the side's
own pieces (which it knows), so both machines, and the end-of-game audit, agree on it.

What it does not cover: a traveller moved farther from its destination by a Doze
(R8.8.5: a Bike rider; while hidden only its own side can select it, R8.8.2) takes more
steps than its Fire announced, and the extra steps show.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from wec.engine import board
from wec.engine.board import GROUND
from wec.engine.fire import TRANSPORTS, plan_fire
from wec.engine.intents import EndTurn, Fire, Intent
from wec.engine.pieces import ArticleKind, Side
from wec.engine.position import Position

_RISES = (ArticleKind.JUMP_PACK, ArticleKind.SCUBA_SUIT)  # R8.3.1: no step with the Fire


@dataclass(frozen=True)
class Travel:
    """A transport its side's Fire announced: the traveller, the turn-start steps still
    due, and whether it travels above or below Ground (a Jump Pack or Scuba Suit, or a
    piece that fired from there: it lands or falls when its transport ends, R8.3.2,
    R8.4.2)."""

    pid: int
    steps: int
    lands: bool


def questions_per_step(lands: bool) -> int:
    """The presence questions every transit step asks (R1.6): the next square-level,
    and for a flyer or diver its landing (R8.3.2, R8.4.2) or, when it neither lands nor
    is blocked, the square-level it entered again (a question whose answer is known)."""
    return 2 if lands else 1


def travels_at_start(position: Position, side: Side) -> tuple[Travel, ...]:
    """``side``'s schedule for the pieces in transit as a game's record begins (none in
    a start position, R14.4(b)): each as it stands."""
    return tuple(Travel(p.pid, board.distance(p.sq, p.transit.dest),
                        p.transit.article is not ArticleKind.BIKE or p.level is not GROUND)
                 for p in sorted(position.pieces, key=lambda p: p.pid)
                 if p.side is side and p.transit is not None)


def travels_after(travels: Sequence[Travel], before: Position, intent: Intent,
                  side: Side) -> tuple[Travel, ...]:
    """``side``'s schedule after ``intent`` (legal, made on ``before``: the full state or
    ``side``'s half state). A transport Fire of ``side``'s adds its travel: as many
    turn-start steps as the distance to its destination, less the step a Bike (or a
    piece already above Ground) takes with the Fire (R8.2.1, R8.3.1). The other side's
    End of turn begins ``side``'s turn, whose transport phase took one step of each."""
    if isinstance(intent, EndTurn) and before.side_to_act is side.other:
        return tuple(Travel(t.pid, t.steps - 1, t.lands) for t in travels if t.steps > 1)
    if not isinstance(intent, Fire) or before.side_to_act is not side \
            or intent.weapon not in TRANSPORTS or intent.dest is None:
        return tuple(travels)
    firer = plan_fire(before, intent).piece
    rises = intent.weapon in _RISES and firer.level is GROUND
    steps = board.distance(firer.sq, intent.dest) - (0 if rises else 1)
    kept = tuple(t for t in travels if t.pid != firer.pid)
    if steps <= 0:
        return kept
    added = Travel(firer.pid, steps,
                   intent.weapon is not ArticleKind.BIKE or firer.level is not GROUND)
    return tuple(sorted((*kept, added), key=lambda t: t.pid))
