"""Random playouts with every action kind: for property tests and the benchmark.

A turn picks a few random actions by category first (so that numerous intents such
as transport destinations do not crowd out the rest), makes the Move, and ends.
Deterministic for a given seed (the random generator is the caller's).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar

from engine.game import Outcome, apply, legal_intents
from engine.intents import Doze, EndTurn, Intent, Move
from engine.position import Position

MAX_EXTRA_ACTIONS = 3
T = TypeVar("T")


class Random(Protocol):
    """What a playout needs of a seeded generator (the caller's ``random.Random``)."""

    def random(self) -> float: ...

    def choice(self, seq: Sequence[T]) -> T: ...


def category(intent: Intent) -> str:
    if isinstance(intent, Move | Doze):
        return "move"
    return type(intent).__name__.lower()


def random_intent(position: Position, rng: Random, moves_only: bool = False) -> Intent:
    """A legal intent of the side to act: a random category, then a random intent."""
    by_category: dict[str, list[Intent]] = {}
    for intent in legal_intents(position):
        by_category.setdefault(category(intent), []).append(intent)
    if moves_only or ("move" in by_category and rng.random() < 0.5):
        names = ["move"] if "move" in by_category else ["endturn"]
    else:
        names = sorted(by_category)
    return rng.choice(by_category[rng.choice(names)])


def play_turn(position: Position, rng: Random,
              observe: Callable[[Position, Intent, Outcome], None] | None = None) -> Position:
    """One whole random turn: up to 3 other actions, the Move, then the end of turn."""
    for step in range(MAX_EXTRA_ACTIONS + 2):
        if position.result is not None:
            return position
        intent = random_intent(position, rng, moves_only=step > MAX_EXTRA_ACTIONS)
        if isinstance(intent, EndTurn) and not position.actions.move and step <= 1:
            continue  # no Move possible yet: try once more before giving up the turn
        outcome = apply(position, intent)
        if observe is not None:
            observe(position, intent, outcome)
        position = outcome.position
        if isinstance(intent, EndTurn):
            return position
    if position.result is not None:
        return position
    outcome = apply(position, EndTurn())
    if observe is not None:
        observe(position, EndTurn(), outcome)
    return outcome.position
