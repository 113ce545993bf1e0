"""What resolving an intent produces: the events in order, each with its subject, and
the outcome (the next position with its events).

Low-level value types shared by the rules (which emit events), engine.censor (which
decides who may see each one) and engine.game (which returns outcomes). Every event is
recorded with its *subject*: the pieces it concerns, or none for a public event
(projectiles, R6.8.3; articles on Ground, R9.1; the turn and the game end; pieces taken
by a Move). The subject modes say how the pieces are judged (engine.censor).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from wec.engine.events import Event
from wec.engine.position import Position

# How an event's subject pieces are judged (engine.censor).
PIECES = "pieces"  # every subject shown, before and after the step
FIRED = "fired"  # the firer, after the Fire (R9.8)
MOVED = "moved"  # the mover, then its passenger (left out when not shown)
DOZED = "dozed"  # one subject per entry of Dozed.moved (entries left out when not shown)
ACTOR = "actor"  # only the side named by the event

Subject = tuple[str, tuple[int, ...]] | None  # None: public
PUBLIC: Subject = None


def about(*pids: int) -> Subject:
    """The subject of an event concerning these pieces."""
    return (PIECES, pids)


class EventLog(list[Event]):
    """Events in the order they resolved, each with its subject (``subjects``)."""

    __slots__ = ("subjects",)

    def __init__(self) -> None:
        super().__init__()
        self.subjects: list[Subject] = []

    def emit(self, event: Event, subject: Subject = PUBLIC) -> None:
        self.append(event)
        self.subjects.append(subject)

    def emit_public(self, events: Sequence[Event]) -> None:
        self.extend(events)
        self.subjects.extend([PUBLIC] * len(events))

    def merge(self, other: EventLog) -> None:
        self.extend(other)
        self.subjects.extend(other.subjects)


@dataclass(frozen=True, slots=True)
class Audience:
    """Who may see each event of a full-state outcome: its subject, and the step it
    happened in (step ``i`` runs from ``states[i]`` to ``states[i + 1]``, full states
    with visibility computed)."""

    subjects: tuple[Subject, ...]
    steps: tuple[int, ...]
    states: tuple[Position, ...]


@dataclass(frozen=True, slots=True)
class Outcome:
    """The position after an intent and the effects it resolved, in order.

    On the full state ``audience`` says who may see each event (``censor.events_for``
    gives each side's stream); resolved on a half state the events already are that
    side's, and ``questions`` is the transcript of the questions it asked the other side
    (engine.questions) with their answers.
    """

    position: Position
    events: tuple[Event, ...]
    audience: Audience | None = None
    questions: tuple[tuple[str, object, object], ...] = ()
