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

A Doze may move a Bike rider in transit, and its transit goes on from the new square
(R8.8.5), one step farther from its destination at most (R8.8.3: one square). Whether a
Doze moved a hidden rider is not shown: its own side may select it (R8.8.2) or leave its
square out of the Doze's public form, a hidden Dozer's Doze travels as a hidden Move, and
an enemy Doze (O24) moves every Ground piece of a selected square, hidden ones too. So
every action that may be a Doze moving the side's rider (its own Doze or hidden Move;
with O24, the other side's too) adds a step to each of the side's Bike travels, up to the
farthest the rider can be from its destination (:func:`may_doze`). The schedule then
never falls short of the steps the rider still has to take, and a rider that needs fewer
takes phantom steps.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from wec.engine import board
from wec.engine.board import GROUND
from wec.engine.events import Converted
from wec.engine.fire import TRANSPORTS, plan_fire
from wec.engine.intents import Doze, EndTurn, Fire, Intent, Move
from wec.engine.pieces import ArticleKind, Side
from wec.engine.position import Piece, Position

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
    most: int = board.SIZE - 1  # the most steps its transit can take: its destination's
    # farthest square on the board (a Doze may add steps up to it, R8.8.5)


def farthest(dest: int) -> int:
    """The king distance from ``dest`` to the farthest square of the board: no transit to
    ``dest`` takes more steps (R8.4.1), however it is dozed on the way (R8.8.5)."""
    return max(board.distance(dest, sq) for sq in range(board.SQUARES))


def may_doze(before: Position, intent: Intent, hidden: bool, side: Side) -> bool:
    """Whether ``intent`` (made on ``before``; ``hidden``: its actor hidden from the other
    side, as its public form says) may have dozed a Bike rider of ``side``'s in transit,
    for all the other side is shown: a Doze, or a hidden Move (a hidden Dozer's Doze
    travels as one), made by ``side`` or, when enemy pieces may be dozed (O24), by the
    other side (R8.8.2, R8.8.5)."""
    if before.side_to_act is not side and not before.options.enemy_dozing:
        return False
    return isinstance(intent, Doze) or (hidden and isinstance(intent, Move))


def questions_per_step(lands: bool) -> int:
    """The presence questions every transit step asks (R1.6): the next square-level,
    and for a flyer or diver its landing (R8.3.2, R8.4.2) or, when it neither lands nor
    is blocked, the square-level it entered again (a question whose answer is known)."""
    return 2 if lands else 1


def travels_at_start(position: Position, side: Side) -> tuple[Travel, ...]:
    """``side``'s schedule for the pieces in transit as a game's record begins (none in
    a start position, R14.4(b)): each as it stands."""
    return tuple(_as_it_stands(p) for p in sorted(position.pieces, key=lambda p: p.pid)
                 if p.side is side and p.transit is not None)


def _as_it_stands(piece: Piece) -> Travel:
    """The travel of ``piece`` (in transit) from where it stands: one turn-start step per
    square to its destination (one to arrive where a Doze put it there, R8.8.5)."""
    assert piece.transit is not None
    return Travel(piece.pid, max(board.distance(piece.sq, piece.transit.dest), 1),
                  piece.transit.article is not ArticleKind.BIKE or piece.level is not GROUND,
                  farthest(piece.transit.dest))


def travels_after(travels: Sequence[Travel], before: Position, intent: Intent,
                  side: Side, hidden: bool = False, after: Position | None = None
                  ) -> tuple[Travel, ...]:
    """``side``'s schedule after ``intent`` (legal, made on ``before``, giving ``after``:
    the full state or ``side``'s half state; ``hidden``: its actor hidden from the other
    side). A transport Fire of ``side``'s adds its travel: as many turn-start steps as
    the distance to its destination, less the step a Bike (or a piece already above
    Ground) takes with the Fire (R8.2.1, R8.3.1). The other side's End of turn begins
    ``side``'s turn, whose transport phase took one step of each. An action that may
    have dozed a Bike rider (:func:`may_doze`) adds a step to each Bike travel, up to its
    most. A piece in transit converted to ``side`` keeps travelling (R6.7.2): its travel
    is added as it stands, which the side that lost it knows (it was its own)."""
    kept = _announced(travels, before, intent, side, hidden)
    if after is None:
        return kept
    had = {p.pid for p in before.pieces if p.side is side}
    gained = [_as_it_stands(p) for p in after.pieces
              if p.side is side and p.transit is not None and p.pid not in had]
    if not gained:
        return kept
    steps = {t.pid: t for t in kept}
    for t in gained:
        if t.pid not in steps or steps[t.pid].steps < t.steps:
            steps[t.pid] = t
    return tuple(steps[pid] for pid in sorted(steps))


def _announced(travels: Sequence[Travel], before: Position, intent: Intent,
               side: Side, hidden: bool) -> tuple[Travel, ...]:
    """``travels_after`` without the pieces converted to ``side``."""
    if isinstance(intent, EndTurn) and before.side_to_act is side.other:
        return tuple(replace(t, steps=t.steps - 1) for t in travels if t.steps > 1)
    if may_doze(before, intent, hidden, side):
        return tuple(t if t.lands else replace(t, steps=min(t.steps + 1, t.most))
                     for t in travels)
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
                   intent.weapon is not ArticleKind.BIKE or firer.level is not GROUND,
                   farthest(intent.dest))
    return tuple(sorted((*kept, added), key=lambda t: t.pid))


def step_due(travels: Sequence[Travel]) -> bool:
    """Whether a schedule (or a bound of one, ``bound_after``) has a transport step due at
    its side's turn start."""
    return any(t.steps > 0 for t in travels)


def bound_after(bound: Sequence[Travel], before: Position, form: Intent, side: Side,
                hidden: bool, events: Sequence[object]) -> tuple[Travel, ...]:
    """An upper bound of ``side``'s schedule kept by the other side from what it is
    shown, after an action: ``before`` its half state before it, ``form`` the action's
    public form (``hidden``: its actor hidden), ``events`` its own stream of it. The
    bound takes every step the schedule takes (``travels_after``), so when the bound has
    no step due, ``side``'s transport phase has none either, and both sides know it
    (engine.half_resolution asks no transport phase then). It names no piece: a
    transport Fire's travel is counted from the Fire's public cell and destination (its
    firer's older travel, unknown, is kept too); a piece of the other side's in transit
    converted to ``side`` (R6.7.2, shown to its side as ``Converted``) adds a travel of
    the most steps any can take."""
    if isinstance(form, EndTurn) and before.side_to_act is side.other:
        kept = tuple(replace(t, steps=t.steps - 1) for t in bound if t.steps > 1)
    elif may_doze(before, form, hidden, side):
        kept = tuple(t if t.lands else replace(t, steps=min(t.steps + 1, t.most))
                     for t in bound)
    elif (isinstance(form, Fire) and before.side_to_act is side and form.weapon in TRANSPORTS
          and form.dest is not None):
        sq, level = board.cell_square(form.frm), board.cell_level(form.frm)
        rises = form.weapon in _RISES and level is GROUND
        steps = board.distance(sq, form.dest) - (0 if rises else 1)
        kept = tuple(bound)
        if steps > 0:
            kept += (Travel(-1, steps, form.weapon is not ArticleKind.BIKE or level is not GROUND,
                            farthest(form.dest)),)
    else:
        kept = tuple(bound)
    converted = {e.cell for e in events if isinstance(e, Converted) and e.side is side}
    if converted and any(p.side is side.other and p.transit is not None and p.cell in converted
                         for p in before.pieces):
        most = board.SIZE - 1
        kept += (Travel(-1, most, False, most),)
    return kept

