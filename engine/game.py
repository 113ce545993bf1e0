"""Applying intents (R4): the only way a game changes.

``apply`` takes a position and one intent and returns the next position with the
events it caused, or raises IllegalIntent naming the broken rule. It works on the
full state (the Referee defaults to one backed by it) and on the acting side's
partial state with a Referee backed by the other side's pieces.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.article_actions import (
    legal_article_intents,
    resolve_drop,
    resolve_exchange,
    resolve_pickup,
)
from engine.dozing import legal_dozes, resolve_doze
from engine.effects import Working
from engine.errors import IllegalIntent
from engine.events import Event, TurnEnded
from engine.fire import legal_fires, resolve_fire
from engine.intents import Doze, Drop, EndTurn, Exchange, Fire, Intent, Move, PickUp, Reinforce
from engine.movement import Plan, has_legal_move, legal_moves, resolve_move, resolve_plan
from engine.position import FRESH_TURN, Position
from engine.projectiles import projectile_phase
from engine.referee import FullStateReferee, Referee
from engine.reinforcement import legal_reinforcements, resolve_reinforce, turn_start_squares
from engine.transport import transport_phase
from engine.visibility import refresh


@dataclass(frozen=True, slots=True)
class Outcome:
    """The position after an intent and the effects it resolved, in order."""

    position: Position
    events: tuple[Event, ...]


def apply(position: Position, intent: Intent, referee: Referee | None = None) -> Outcome:
    """Resolve one intent of the side to act; IllegalIntent if the rules refuse it."""
    if position.result is not None:
        raise IllegalIntent("R12", f"the game is over: {position.result.winner.title} won "
                                   f"({position.result.reason})")
    if referee is None:
        if position.viewer is not None:
            raise ValueError("resolving on a partial state needs a Referee for the unseen pieces")
        referee = FullStateReferee(position)
    elif position.viewer not in (None, position.side_to_act):
        raise ValueError("a partial state resolves only its own side's intents")
    if isinstance(intent, EndTurn):
        return end_turn(position)
    if isinstance(intent, Move):
        after, events = resolve_move(position, intent, referee)
    elif isinstance(intent, Fire):
        after, events = resolve_fire(position, intent)
    elif isinstance(intent, Doze):
        after, events = resolve_doze(position, intent)
    elif isinstance(intent, PickUp):
        after, events = resolve_pickup(position, intent)
    elif isinstance(intent, Drop):
        after, events = resolve_drop(position, intent)
    elif isinstance(intent, Exchange):
        after, events = resolve_exchange(position, intent)
    elif isinstance(intent, Reinforce):
        after, events = resolve_reinforce(position, intent, referee)
    else:
        raise TypeError(f"not an intent: {intent!r}")
    return _seen(position, _settled(after, events), referee)


def apply_plan(position: Position, plan: Plan) -> Outcome:
    """Resolve a legal Move plan of the full state (from ``all_legal_plans``): the fast
    path of computer players, skipping the intent's legality check."""
    after, events = resolve_plan(position, plan, FullStateReferee(position))
    return _seen(position, _settled(after, events))


def _seen(before: Position, outcome: Outcome, referee: Referee | None = None) -> Outcome:
    """R9.5: visibility recomputed after the action: on the full state directly, on a
    partial state by the Referee's detection answer."""
    after = outcome.position
    if after.viewer is None:
        return Outcome(refresh(before, after), outcome.events)
    assert referee is not None
    return Outcome(referee.sight(after.viewer, after), outcome.events)


def _settled(after: Position, events: list[Event]) -> Outcome:
    """A Move or other action leaves only the mover's side at the cells it changed,
    so collisions there are decided on what that side knows."""
    if after.projectiles and after.result is None and _projectile_affected(after):
        # R6.8.5, R6.11.3: a piece that arrived on a projectile is hit; a homing
        # target that left the projectile's level breaks the lock
        w = Working(after)
        after = w.finish()
        events.extend(w.events)
    return Outcome(after, tuple(events))


def _projectile_affected(position: Position) -> bool:
    """Whether a projectile shares its cell with a piece or has a homing target that
    left its level, play or side (the cases ``Working.settle`` acts on)."""
    cells = {p.sq * 3 + p.level for p in position.pieces}
    by_pid = None
    for proj in position.projectiles:
        if proj.cell in cells:
            return True
        if proj.target is not None:
            if by_pid is None:
                by_pid = {p.pid: p for p in position.pieces}
            target = by_pid.get(proj.target)
            if target is None:
                if position.viewer is None:
                    return True
            elif target.level != proj.level or target.side is proj.side:
                return True
    return False


def end_turn(position: Position) -> Outcome:
    """R4.4, R4.11: end the turn once the Move is made (or none is possible)."""
    if not position.actions.move and (has_legal_move(position) or legal_dozes(position)):
        raise IllegalIntent("R4.4", f"{position.side_to_act.title} must make a Move before "
                                    "ending the turn")
    if position.viewer is not None and position.projectiles:
        raise ValueError("the projectile phase resolves on the full state")
    # R4.2: (1) fresh per-turn counters, (2) the projectile phase, (3) the transport
    # phase, each step judged (R12.2); then note where the new side to act stands on
    # its activation squares (R10.3).
    after = position.evolve(turn=position.turn + 1, actions=FRESH_TURN, hits=())
    events: list[Event] = [TurnEnded(after.turn)]
    for phase in (projectile_phase, transport_phase):
        if after.result is not None:
            break
        start = after
        after, happened = phase(after)
        events.extend(happened)
        if happened and after.viewer is None:
            after = refresh(start, after)  # R9.5: after every step
    after = after.evolve(turn_start_squares=turn_start_squares(after))
    return Outcome(after, tuple(events))


def legal_intents(position: Position) -> list[Intent]:
    """Every intent the side to act may send now, on what it knows (R4.13)."""
    if position.result is not None:
        return []
    moves: list[Intent] = [*legal_moves(position), *legal_dozes(position)]
    intents = (moves + list(legal_fires(position)) + list(legal_article_intents(position))
               + list(legal_reinforcements(position)))
    if position.actions.move or not moves:
        intents.append(EndTurn())
    return intents
