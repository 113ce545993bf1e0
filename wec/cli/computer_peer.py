"""``wec peer --computer LEVEL``: the headless peer's side played by the computer (issue 19).

``ComputerSeat.next_intent(lockstep)`` is asked whenever it is our turn. It hands the
computer (wec.computer) only what our side is told: our side's view after every action
of the game and the events our side saw (``observations``), never the other side's
pieces beyond that view. The computer thinks on a worker thread, so the peer's event
loop keeps answering heartbeats and messages meanwhile; ``next_intent`` returns None
until the intent is ready (the peer's loop asks again every 0.2 s). A takeback (the
match got shorter) starts the computer afresh from the game's start.

Where our side's view comes from is ``observations``: the lockstep's match. In an
open-information game (``wec peer --no-fog``) it is the full state and the view its
projection; with fog of war (issue 21) it is a HalfMatch, whose positions already are our
half states and whose actions carry our own events, taken as they are.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

from wec.computer import Computer, Observation
from wec.computer.arena import match_observations
from wec.engine.intents import Intent
from wec.engine.knowledge import project
from wec.engine.pieces import Side


def observations(lockstep: Any, side: Side, start: int = 0) -> Iterator[Observation]:
    """What ``side`` was told of the game from its ``start``-th step on (step 0: the
    start): its view after each step and the events it saw of it."""
    if getattr(lockstep, "fog", False):
        return _half_observations(lockstep.match, side, start)
    return match_observations(lockstep.match, side, start)


def _half_observations(match: Any, side: Side, start: int) -> Iterator[Observation]:
    """With fog of war: our half states and our events, as the FogLockstep keeps them."""
    if start == 0:
        yield Observation(match.start)
    for action in match.history[max(0, start - 1):]:
        yield Observation(action.position, action.events_for(side))


class ComputerSeat:
    """The computer in one side's seat of a LAN game (see the module docstring)."""

    def __init__(self, level: int, seed: int = 0, budget: float | None = None) -> None:
        self.level, self.seed, self.budget = level, seed, budget
        self.computer: Computer | None = None
        self.seen = 0  # steps observed (the start counts as one)
        self.thinking: threading.Thread | None = None
        self.ready: tuple[int, Intent] | None = None  # (steps when asked, the intent)
        self.error: BaseException | None = None

    def _catch_up(self, lockstep: Any) -> Computer:
        side = lockstep.our_side
        steps = len(lockstep.match.actions) + 1
        if self.computer is None or self.computer.side is not side or steps < self.seen:
            self.computer = Computer(side, self.level, self.seed, self.budget)
            self.seen = 0
        for observation in observations(lockstep, side, self.seen):
            self.computer.belief.update(observation)
        self.seen = steps
        return self.computer

    def next_intent(self, lockstep: Any) -> Intent | None:
        """Our next intent once the computer has it, else None (it is thinking)."""
        if self.error is not None:
            error, self.error = self.error, None
            raise error
        steps = len(lockstep.match.actions) + 1
        if self.thinking is not None:
            if self.thinking.is_alive():
                return None
            self.thinking = None
        if self.ready is not None:
            at, intent = self.ready
            self.ready = None
            if at == steps:
                return intent
        computer = self._catch_up(lockstep)
        view = (lockstep.current if getattr(lockstep, "fog", False)
                else project(lockstep.match.current, computer.side))

        def think() -> None:
            try:
                self.ready = (steps, computer.next_intent(view))
            except BaseException as exc:  # handed to the peer's loop on the next call
                self.error = exc

        self.thinking = threading.Thread(target=think, name="wec-computer", daemon=True)
        self.thinking.start()
        return None

    def refused(self, intent: Intent) -> None:
        """The game refused ``intent`` (a hidden collision changed the plan): the computer
        plans the rest of its turn again."""
        if self.computer is not None:
            self.computer.refuse(intent)
