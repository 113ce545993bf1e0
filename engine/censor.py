"""Events per side (R14.3, R9.1): who may see each resolved event, and each side's stream.

Every event an action or turn-start phase resolves is recorded with its *subject*: the
pieces it concerns, or none for a public event (projectiles, R6.8.3; articles on Ground,
R9.1; the turn and game end; pieces taken by a Move, which the collision shows to the
mover and which are the other side's own). A side sees an event about a piece when the
piece is its own (before or after the step), or when the enemy piece is visible to it
both before and after the step in which the event happened: events "concerning enemy
pieces hidden from that player (their moves, positions, articles, results on them) are
omitted" (R14.3). Two refinements follow the rules' own reveals:

* a Fire reveals its firer where it fired (R9.8): ``Fired`` is judged on the state after
  the Fire (before it, if the firer left play in it);
* a Move or Doze of visible pieces is shown without the pieces hidden from the side: a
  hidden passenger is left out of ``Moved``, hidden dozed pieces out of ``Dozed``.

``ReinforceFoiled`` is shown to the reinforcing side only (R10.5: the enemy never learns
what waited there). ``events_for(side, outcome)`` gives a side's stream of a full-state
outcome; resolving on that side's partial state gives the same stream
(tests/test_split_resolution.py).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Protocol

from wec.engine.events import Dozed, Event, Moved, ReinforceFoiled
from wec.engine.outcome import (
    ACTOR,
    DOZED,
    FIRED,
    MOVED,
    PIECES,
    PUBLIC,
    Audience,
    EventLog,
    Outcome,
    Subject,
    about,
)
from wec.engine.pieces import Side
from wec.engine.position import Piece, Position

__all__ = ["ACTOR", "DOZED", "FIRED", "MOVED", "PIECES", "PUBLIC", "Audience", "EventLog",
           "Judge", "Subject", "about", "censored", "events_for"]


def events_for(side: Side, outcome: Outcome) -> tuple[Event, ...]:
    """``side``'s event stream of a full-state outcome: exactly what its view allows."""
    audience = outcome.audience
    if audience is None:
        raise ValueError("events_for needs a full-state outcome (from apply on the full state)")
    events = outcome.events
    if len(audience.subjects) != len(events):
        raise AssertionError("every event needs its subject")
    pieces: dict[int, tuple[dict[int, Piece], dict[int, Piece]]] = {}
    out: list[Event] = []
    for event, subject, step in zip(events, audience.subjects, audience.steps, strict=True):
        if subject is None:
            out.append(event)
            continue
        if step not in pieces:
            pieces[step] = (_by_pid(audience.states[step]), _by_pid(audience.states[step + 1]))
        shown = _Judge(side, *pieces[step])
        seen = censored(event, subject, shown)
        if seen is not None:
            out.append(seen)
    return tuple(out)


def _by_pid(position: Position) -> dict[int, Piece]:
    return {p.pid: p for p in position.pieces}


class Judge(Protocol):
    """Whether ``side`` sees the piece ``pid`` in one step (``after_only``: judged on the
    state after the step alone, R9.8's fire reveal)."""

    side: Side

    def __call__(self, pid: int, after_only: bool = False) -> bool: ...


class _Judge:
    """Whether ``side`` sees a piece in one step (``before`` and ``after`` by pid)."""

    def __init__(self, side: Side, before: dict[int, Piece], after: dict[int, Piece]) -> None:
        self.side, self.before, self.after = side, before, after

    def __call__(self, pid: int, after_only: bool = False) -> bool:
        then, now = self.before.get(pid), self.after.get(pid)
        if then is None and now is None:
            return False
        if (then is not None and then.side is self.side) or (
                now is not None and now.side is self.side):
            return True  # its own piece (a converted one too, R6.7.2)
        if after_only and now is not None:
            return not now.hidden
        return all(not p.hidden for p in (then, now) if p is not None)


def censored(event: Event, subject: tuple[str, tuple[int, ...]], shown: Judge) -> Event | None:
    """The event as ``shown``'s side sees it, or None."""
    mode, pids = subject
    if mode == PIECES:
        return event if all(shown(pid) for pid in pids) else None
    if mode == FIRED:
        return event if shown(pids[0], after_only=True) else None
    if mode == MOVED:
        assert isinstance(event, Moved)
        if not shown(pids[0]):
            return None
        if len(pids) > 1 and not shown(pids[1]):
            return replace(event, passenger=None)
        return event
    if mode == DOZED:
        assert isinstance(event, Dozed)
        kept = tuple(entry for entry, pid in zip(event.moved, pids, strict=True) if shown(pid))
        if not kept:
            return None
        return event if len(kept) == len(event.moved) else replace(event, moved=kept)
    if mode == ACTOR:
        assert isinstance(event, ReinforceFoiled)
        return event if event.side is shown.side else None
    raise ValueError(f"unknown subject mode {mode!r}")
