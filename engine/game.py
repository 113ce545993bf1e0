"""Applying intents (R4): the only way a game changes.

``apply`` takes a position and one intent and returns the next position with the
events it caused, or raises IllegalIntent naming the broken rule. It works on the
full state (the Referee defaults to one backed by it) and on either side's partial
state with a Referee backed by the other side's pieces (docs/architecture.md, "Design
note: partial state and Referee"): the acting side resolves Moves, Pick-ups, Drops,
Exchanges and Reinforces itself, asking the Referee about the unseen pieces they meet;
Fire, Doze and the turn-start phases reach hidden pieces of both sides (R9.11), so the
acting side checks their legality on what it knows (R4.13) and asks the Referee for
their effects; the side that does not act learns every action's effects from the
Referee (``observe``). Every full-state outcome records who may see each event
(``Outcome.audience``, engine.censor).
"""

from __future__ import annotations

from dataclasses import dataclass

from wec.engine.article_actions import (
    legal_article_intents,
    resolve_drop,
    resolve_exchange,
    resolve_pickup,
)
from wec.engine.censor import ACTOR, MOVED, Audience, EventLog, Subject, about
from wec.engine.dozing import legal_dozes, plan_doze, resolve_doze
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
from wec.engine.fire import legal_fires, plan_fire, resolve_fire
from wec.engine.intents import Doze, Drop, EndTurn, Exchange, Fire, Intent, Move, PickUp, Reinforce
from wec.engine.movement import (
    Plan,
    has_legal_move,
    legal_moves,
    plan_move,
    resolve_move,
    resolve_plan,
)
from wec.engine.pieces import Side
from wec.engine.position import FRESH_TURN, Position
from wec.engine.projectiles import projectile_phase
from wec.engine.referee import FullStateReferee, Referee
from wec.engine.reinforcement import legal_reinforcements, resolve_reinforce, turn_start_squares
from wec.engine.transport import transport_phase
from wec.engine.visibility import refresh


@dataclass(frozen=True, slots=True)
class Outcome:
    """The position after an intent and the effects it resolved, in order.

    On the full state ``audience`` says who may see each event (``censor.events_for``
    gives each side's stream); on a partial state the events already are that side's.
    """

    position: Position
    events: tuple[Event, ...]
    audience: Audience | None = None


def apply(position: Position, intent: Intent, referee: Referee | None = None) -> Outcome:
    """Resolve one intent of the side to act; IllegalIntent if the rules refuse it.

    On a partial state of the side that does not act, the intent is observed: its
    effects come from the Referee (``observe``)."""
    if position.result is not None:
        raise IllegalIntent("R12", f"the game is over: {position.result.winner.title} won "
                                   f"({position.result.reason})")
    if position.viewer is not None:
        if referee is None:
            raise ValueError("resolving on a partial state needs a Referee for the unseen pieces")
        if position.viewer is not position.side_to_act:
            return observe(position, intent, referee)
        if _effects_reach_unseen(position, intent):
            return _asked(position, intent, referee)
    elif referee is None:
        referee = FullStateReferee(position)
    if isinstance(intent, EndTurn):
        return end_turn(position)
    log: EventLog
    if isinstance(intent, Move):
        after, events = resolve_move(position, intent, referee)
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
        after, events = resolve_reinforce(position, intent, referee)
        log = _logged(after, events, entered=position.next_pid)
    else:
        raise TypeError(f"not an intent: {intent!r}")
    return _seen(position, _settled(after, log), referee)


def observe(view: Position, intent: Intent, referee: Referee) -> Outcome:
    """The side that does not act resolves the acting side's ``intent`` from its own
    partial state ``view`` (lockstep play): the intent's legality and effects depend on
    the actor's pieces, so the Referee, backed by them, answers with exactly what the
    outcome shows this side (question 4, ``Referee.effects``): its new view and its
    event stream. IllegalIntent if the rules refuse the intent."""
    if view.viewer is None or view.viewer is view.side_to_act:
        raise ValueError("observe resolves the enemy's intent on the other side's partial state")
    if view.result is not None:
        raise IllegalIntent("R12", f"the game is over: {view.result.winner.title} won "
                                   f"({view.result.reason})")
    return referee.effects(view.viewer, view, intent)


def _effects_reach_unseen(position: Position, intent: Intent) -> bool:
    """Whether the acting side's partial state cannot resolve ``intent`` by itself: Fire,
    Doze and the turn-start phases reach hidden pieces of both sides (R9.11, R8.8.5,
    R4.2); a Move may take an unseen homing target (R6.11.3), which only the truth
    settles."""
    if isinstance(intent, Fire | Doze | EndTurn):
        return True
    if isinstance(intent, Move) and position.projectiles:
        known = {p.pid for p in position.pieces}
        return any(pr.target is not None and pr.target not in known
                   for pr in position.projectiles)
    return False


def _asked(position: Position, intent: Intent, referee: Referee) -> Outcome:
    """Check the intent on what the acting side knows (R4.13), then ask the Referee for
    its effects (question 4)."""
    if isinstance(intent, Fire):
        plan_fire(position, intent)
    elif isinstance(intent, Doze):
        plan_doze(position, intent)
    elif isinstance(intent, EndTurn):
        _refuse_early_end(position)
    elif isinstance(intent, Move):
        plan_move(position, intent)
    assert position.viewer is not None
    return referee.effects(position.viewer, position, intent)


def apply_plan(position: Position, plan: Plan) -> Outcome:
    """Resolve a legal Move plan of the full state (from ``all_legal_plans``): the fast
    path of computer players, skipping the intent's legality check."""
    after, events = resolve_plan(position, plan, FullStateReferee(position))
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


def _seen(before: Position, settled: _Settled, referee: Referee | None = None) -> Outcome:
    """R9.5: visibility recomputed after the action: on the full state directly (and the
    audience of its events recorded), on a partial state by the Referee's detection
    answer."""
    after = settled.position
    events = tuple(settled.events)
    if after.viewer is None:
        after = refresh(before, after)
        subjects = tuple(settled.events.subjects)
        return Outcome(after, events, Audience(subjects, (0,) * len(events), (before, after)))
    assert referee is not None
    return Outcome(referee.sight(after.viewer, after), events)


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
            if target is None:
                if position.viewer is None:
                    return True
            elif target.level != proj.level or target.side is proj.side:
                return True
    return False


def _refuse_early_end(position: Position) -> None:
    """R4.4: the turn ends once the Move is made (or none is possible)."""
    if not position.actions.move and (has_legal_move(position) or legal_dozes(position)):
        raise IllegalIntent("R4.4", f"{position.side_to_act.title} must make a Move before "
                                    "ending the turn")


def end_turn(position: Position) -> Outcome:
    """R4.4, R4.11: end the turn once the Move is made (or none is possible), on the
    full state; a partial state ends it through ``apply(view, EndTurn(), referee)``."""
    if position.viewer is not None:
        raise ValueError("the turn-start phases resolve on the full state (a partial state "
                         "asks the Referee: apply(view, EndTurn(), referee))")
    _refuse_early_end(position)
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
