"""Applying intents (R4): the only way a game changes.

``apply`` takes a position and one intent and returns the next position with the
events it caused, or raises IllegalIntent naming the broken rule. On the full state
(hotseat, the computer opponent, tests, replays) it resolves on the truth and records
who may see each event (``Outcome.audience``, engine.censor). On one side's half state
it resolves with a Referee answering for the other side's pieces from the other side's
half state (engine.half_resolution; docs/architecture.md, "Design note: half states and
questions"): both sides of a network game resolve every intent that way.
"""

from __future__ import annotations

from dataclasses import dataclass

from wec.engine.article_actions import (
    legal_article_intents,
    resolve_drop,
    resolve_exchange,
    resolve_pickup,
)
from wec.engine.dozing import legal_dozes, resolve_doze
from wec.engine.effects import Working
from wec.engine.errors import IllegalIntent
from wec.engine.events import (
    Dropped,
    Event,
    Exchanged,
    Moved,
    PickedUp,
    Reinforced,
    ReinforceFoiled,
    TurnEnded,
)
from wec.engine.fire import legal_fires, resolve_fire
from wec.engine.half_resolution import refuse_early_end, resolve
from wec.engine.intents import Doze, Drop, EndTurn, Exchange, Fire, Intent, Move, PickUp, Reinforce
from wec.engine.movement import Plan, legal_moves, resolve_move, resolve_plan
from wec.engine.outcome import ACTOR, MOVED, Audience, EventLog, Outcome, Subject, about
from wec.engine.pieces import Side
from wec.engine.position import FRESH_TURN, Position
from wec.engine.projectiles import projectile_phase
from wec.engine.questions import Referee
from wec.engine.reinforcement import legal_reinforcements, resolve_reinforce, turn_start_squares
from wec.engine.transport import transport_phase
from wec.engine.visibility import refresh

__all__ = ["Outcome", "apply", "apply_plan", "end_turn", "legal_intents"]


def apply(position: Position, intent: Intent, referee: Referee | None = None) -> Outcome:
    """Resolve one intent of the side to act; IllegalIntent if the rules refuse it.

    On a half state (``position.viewer`` set, either side's) ``referee`` answers for the
    other side's pieces (engine.half_resolution ``resolve``)."""
    if position.viewer is not None:
        if referee is None:
            raise ValueError("resolving on a half state needs a Referee for the other side's "
                             "pieces (engine.half_referee)")
        return resolve(position, intent, referee)
    if position.result is not None:
        raise IllegalIntent("R12", f"the game is over: {position.result.winner.title} won "
                                   f"({position.result.reason})")
    if isinstance(intent, EndTurn):
        return end_turn(position)
    log: EventLog
    if isinstance(intent, Move):
        after, events = resolve_move(position, intent)
        log = _logged(after, events)
    elif isinstance(intent, Fire):
        after, log = resolve_fire(position, intent)
    elif isinstance(intent, Doze):
        after, log = resolve_doze(position, intent)
    elif isinstance(intent, PickUp):
        after, events = resolve_pickup(position, intent)
        log = _logged(after, events)
    elif isinstance(intent, Drop):
        after, events = resolve_drop(position, intent)
        log = _logged(after, events)
    elif isinstance(intent, Exchange):
        after, events = resolve_exchange(position, intent)
        log = _logged(after, events)
    elif isinstance(intent, Reinforce):
        after, events = resolve_reinforce(position, intent)
        log = _logged(after, events, entered=position.next_pid)
    else:
        raise TypeError(f"not an intent: {intent!r}")
    return _seen(position, _settled(after, log))


def apply_plan(position: Position, plan: Plan) -> Outcome:
    """Resolve a legal Move plan of the full state (from ``all_legal_plans``): the fast
    path of computer players, skipping the intent's legality check."""
    after, events = resolve_plan(position, plan)
    return _seen(position, _settled(after, _logged(after, events)))


def _logged(after: Position, events: list[Event], entered: int = -1) -> EventLog:
    """The events of a Move, Pick-up, Drop, Exchange or Reinforce with their subjects
    (engine.censor): the pieces that acted; taken pieces and dropped articles are
    public. ``entered`` is the pid a reinforcement enters with."""
    log = EventLog()
    actions = after.actions
    for event in events:
        subject: Subject = None
        if isinstance(event, Moved):
            assert actions.mover is not None
            subject = (MOVED, _mover_and_passenger(after, event, actions.mover))
        elif isinstance(event, PickedUp | Dropped):
            subject = about(actions.actors[-1])
        elif isinstance(event, Exchanged):
            subject = about(*actions.actors[-2:])
        elif isinstance(event, Reinforced):
            subject = about(entered)
        elif isinstance(event, ReinforceFoiled):
            subject = (ACTOR, ())
        log.emit(event, subject)
    return log


def _mover_and_passenger(after: Position, event: Moved, mover: int) -> tuple[int, ...]:
    if event.passenger is None:
        return (mover,)
    passenger = next(p.pid for p in after.pieces
                     if p.cell == event.to and p.pid != mover and p.side is event.side
                     and p.kind is event.passenger)
    return (mover, passenger)


def _seen(before: Position, settled: _Settled) -> Outcome:
    """R9.5: visibility recomputed after the action, and the audience of its events
    recorded (engine.censor)."""
    after = refresh(before, settled.position)
    events = tuple(settled.events)
    subjects = tuple(settled.events.subjects)
    return Outcome(after, events, Audience(subjects, (0,) * len(events), (before, after)))


@dataclass(slots=True)
class _Settled:
    position: Position
    events: EventLog


def _settled(after: Position, events: EventLog) -> _Settled:
    """A Move or other action leaves only the mover's side at the cells it changed,
    so collisions there are decided on what that side knows."""
    if after.projectiles and after.result is None and _projectile_affected(after):
        # R6.8.5, R6.11.3: a piece that arrived on a projectile is hit; a homing
        # target that left the projectile's level breaks the lock
        w = Working(after)
        after = w.finish()
        events.merge(w.events)
    return _Settled(after, events)


def _projectile_affected(position: Position) -> bool:
    """Whether a projectile shares its cell with a piece or has a homing target that
    left its level, play or side (the cases ``Working.settle`` acts on)."""
    # every piece is in its own side's occupancy map
    black, white = position.known_occupancy(Side.BLACK), position.known_occupancy(Side.WHITE)
    by_pid = None
    for proj in position.projectiles:
        cell = proj.sq * 3 + proj.level
        if black[cell] or white[cell]:
            return True
        if proj.target is not None:
            if by_pid is None:
                by_pid = {p.pid: p for p in position.pieces}
            target = by_pid.get(proj.target)
            if target is None or target.level != proj.level or target.side is proj.side:
                return True
    return False


def end_turn(position: Position) -> Outcome:
    """R4.4, R4.11: end the turn once the Move is made (or none is possible), on the
    full state; a half state ends it through ``apply(half, EndTurn(), referee)``."""
    if position.viewer is not None:
        raise ValueError("the turn-start phases of a half state resolve through "
                         "apply(half, EndTurn(), referee)")
    refuse_early_end(position)
    # R4.2: (1) fresh per-turn counters, (2) the projectile phase, (3) the transport
    # phase, each step judged (R12.2); then note where the new side to act stands on
    # its activation squares (R10.3).
    after = position.evolve(turn=position.turn + 1, actions=FRESH_TURN, hits=())
    log = EventLog()
    log.emit(TurnEnded(after.turn))
    states = [after]
    steps = [0]
    for phase in (projectile_phase, transport_phase):
        if after.result is not None:
            break
        start = after
        after, happened = phase(after)
        if happened:
            after = refresh(start, after)  # R9.5: after every step
            steps += [len(states) - 1] * len(happened)
            states.append(after)
            log.merge(happened)
    squares = turn_start_squares(after)
    if squares != after.turn_start_squares:  # else the state as it is (often: none)
        after = after.evolve(turn_start_squares=squares)
    if len(states) > 1:
        states[-1] = after  # the same pieces, with the activation squares noted
    else:
        states.append(after)
    return Outcome(after, tuple(log), Audience(tuple(log.subjects), tuple(steps),
                                               tuple(states)))


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
