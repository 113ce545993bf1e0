"""The computer player: from one side's observations to its turn.

``Computer`` keeps a side's belief as observations come (``observe``) and gives the next
intent of its turn (``next_intent``) from the side's current view, planning the whole
turn once and planning again when the game did not go as planned (a hidden collision
stopped the Move, an intent was refused). ``think`` is the same as one call: a history
of observations in, the turn out. Neither ever receives a full state: a view with no
``viewer`` is refused.

Deterministic: every decision draws from ``random.Random`` seeded with the seed, the
turn and the number of actions already made this turn (a string seed, hashed by SHA-512,
so neither PYTHONHASHSEED nor the machine changes it).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from contextlib import suppress
from dataclasses import dataclass

from wec.computer.belief import Belief, Observation
from wec.computer.levels import settings_for
from wec.computer.search import (
    Line,
    Settings,
    Work,
    candidate_turns,
    choose,
    escapes,
    score_turn,
)
from wec.computer.worlds import sample_world
from wec.engine.events import Event
from wec.engine.intents import EndTurn, Intent
from wec.engine.pieces import Side
from wec.engine.position import Position


def _check_view(view: Position) -> Side:
    if view.viewer is None:
        raise ValueError("the computer plays from its side's view, never from the full state")
    return view.viewer


def _own(view: Position, side: Side) -> tuple[tuple[object, ...], ...]:
    """What the side knows for sure of its own pieces (what a plan expects of them)."""
    return tuple(sorted((p.kind.value, p.sq * 3 + p.level, tuple(a.value for a in p.articles),
                         p.stunned_until)
                        for p in view.pieces if p.side is side))


@dataclass(frozen=True, slots=True)
class Plan:
    """A planned turn: its intents and, after each, what the side's own pieces should be."""

    turn: int
    intents: tuple[Intent, ...]
    expected: tuple[tuple[tuple[object, ...], ...], ...]


class Computer:
    """One side's computer player (see the module docstring)."""

    def __init__(self, side: Side, level: int = 2, seed: int = 0,
                 budget: float | None = None) -> None:
        self.side = side
        self.level = level
        self.seed = seed
        self.settings: Settings = settings_for(level, budget)
        self.belief = Belief(side)
        self.plan: Plan | None = None
        self.step = 0
        self.refused: list[Intent] = []  # intents the game refused this turn
        self.refused_turn = 0
        self.last_work = 0.0
        self.last_scored = 0  # candidate turns the last decision scored on its worlds
        self.total_work = 0.0  # rule applications over the game (wec bench computer)

    # ------------------------------------------------------------ observations

    def observe(self, view: Position, events: Sequence[Event] = ()) -> None:
        """Take in the side's view after a step of the game and the events it saw."""
        if _check_view(view) is not self.side:
            raise ValueError(f"{self.side.title}'s computer was given another side's view")
        self.belief.update(Observation(view, tuple(events)))

    # ------------------------------------------------------------ deciding

    def next_intent(self, view: Position) -> Intent:
        """The next intent of the side's turn, from its current view (the side to act)."""
        if _check_view(view) is not self.side or view.side_to_act is not self.side:
            raise ValueError(f"it is not {self.side.title}'s turn in this view")
        if self.belief.previous is None:
            self.belief.update(Observation(view))
        plan = self.plan
        if (plan is None or plan.turn != view.turn or self.step >= len(plan.intents)
                or (self.step > 0 and plan.expected[self.step - 1] != _own(view, self.side))):
            plan = self.plan = self._plan(view)
            self.step = 0
        intent = plan.intents[self.step]
        self.step += 1
        return intent

    def refuse(self, intent: Intent) -> None:
        """The game refused ``intent``: plan the rest of the turn again without it."""
        if self.plan is not None and self.plan.turn != self.refused_turn:
            self.refused, self.refused_turn = [], self.plan.turn
        self.refused.append(intent)
        self.plan = None

    def plan_turn(self, view: Position) -> list[Intent]:
        """The whole turn from ``view``, as a list of intents ending with the End."""
        if _check_view(view) is not self.side:
            raise ValueError(f"{self.side.title}'s computer was given another side's view")
        if self.belief.previous is None:
            self.belief.update(Observation(view))
        return list(self._plan(view).intents)

    def _plan(self, view: Position) -> Plan:
        if view.result is not None:
            raise ValueError("the game is over")
        if view.turn != self.refused_turn:  # refusals hold for the turn they came in
            self.refused, self.refused_turn = [], view.turn
        settings = self.settings
        rng = random.Random(f"wec-computer:{self.seed}:{view.turn}:{len(view.actions.actors)}:"
                            f"{view.actions.move}:{view.actions.fire}:{len(self.refused)}")
        work = Work(settings.work)
        worlds = [sample_world(view, self.belief, rng) for _ in range(settings.worlds)]
        side = self.side
        # candidate turns from the first worlds, interleaved best first
        per_world = []
        generation = 0.0
        for world in worlds[:settings.generation_worlds]:
            budget = Work(settings.work * 0.45 / settings.generation_worlds)
            per_world.append(candidate_turns(world, side, settings, budget))
            generation += budget.spent
        lines: list[Line] = []
        seen: set[tuple[Intent, ...]] = set()
        for rank in range(max((len(t) for t in per_world), default=0)):
            for turns in per_world:
                if rank < len(turns) and turns[rank].intents not in seen:
                    if any(i in self.refused for i in turns[rank].intents):
                        continue
                    seen.add(turns[rank].intents)
                    lines.append(turns[rank])
        kept = lines[:settings.candidates]
        if settings.escapes:
            kept += escapes(worlds[0], side, lines[settings.candidates:], settings.escapes)
        lines = kept
        if not lines:
            return self._fallback(view)
        careful = not (settings.forget > 0 and rng.random() < settings.forget)
        scored: list[tuple[float, int]] = []
        for index, line in enumerate(lines):
            if index > 0 and work.left <= 0:
                break
            scored.append((score_turn(worlds, line.intents, side, settings, careful, work),
                           index))
        self.last_scored = len(scored)
        self.last_work = generation + work.spent
        self.total_work += self.last_work
        chosen = lines[choose(scored, settings.temperature, rng)]
        return self._as_plan(view, worlds[0], chosen.intents)

    def _as_plan(self, view: Position, world: Position, intents: tuple[Intent, ...]) -> Plan:
        from wec.engine.errors import IllegalIntent
        from wec.engine.game import apply
        from wec.engine.knowledge import project

        expected = []
        position = world
        for intent in intents:
            with suppress(IllegalIntent):  # possible on another world: planned again then
                position = apply(position, intent).position
            expected.append(_own(project(position, self.side), self.side))
        return Plan(view.turn, (*intents, EndTurn()), (*expected, expected[-1] if expected
                                                        else _own(view, self.side)))

    def _fallback(self, view: Position) -> Plan:
        """No turn found (every line refused): the first legal Move, else the End."""
        from wec.engine.game import legal_intents
        from wec.engine.intents import Doze, Move

        legal = [i for i in legal_intents(view) if i not in self.refused]
        moves = [i for i in legal if isinstance(i, Move | Doze)]
        intents: tuple[Intent, ...] = (moves[0],) if moves and not view.actions.move else ()
        return Plan(view.turn, (*intents, EndTurn()), (_own(view, self.side),) * (len(intents) + 1))


def think(view: Position, history: Iterable[Observation] = (), level: int = 2, seed: int = 0,
          budget: float | None = None) -> list[Intent]:
    """The turn ``level`` would play from ``view`` (the side to act's partial state), given
    the side's earlier observations: a list of intents ending with the End."""
    side = _check_view(view)
    if view.side_to_act is not side:
        raise ValueError(f"it is {view.side_to_act.title}'s turn, not {side.title}'s")
    computer = Computer(side, level, seed, budget)
    for observation in history:
        computer.belief.update(observation)
    return computer.plan_turn(view)
