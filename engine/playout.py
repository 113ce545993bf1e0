"""Random playouts with every action kind: for property tests, the benchmark and
the simplest computer opponent.

Each action picks a random category among those with a legal intent (Move, Fire,
Pick-up, Drop, Exchange, Reinforce), then a random intent of it, so that numerous
intents such as transport destinations do not crowd out the rest. Categories are
tried in a random order and only generated until one has an intent, which is the
same as choosing uniformly among the non-empty ones. A turn takes up to 3 other
actions, the Move, and ends. Deterministic for a given seed (the caller's generator).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar, overload

from wec.engine.article_actions import legal_drops, legal_exchanges, legal_pickups
from wec.engine.dozing import doze_choices
from wec.engine.fire import fire_choices
from wec.engine.game import Outcome, apply, apply_plan, end_turn
from wec.engine.intents import Doze, EndTurn, Intent, Move
from wec.engine.movement import Plan, all_legal_plans, move_of
from wec.engine.position import Position
from wec.engine.reinforcement import legal_reinforcements

MAX_EXTRA_ACTIONS = 3
T = TypeVar("T")


class Random(Protocol):
    """What a playout needs of a seeded generator (the caller's ``random.Random``)."""

    def random(self) -> float: ...

    def choice(self, seq: Sequence[T]) -> T: ...

    def shuffle(self, x: list[T]) -> None: ...


Choice = Intent | Plan
Observer = Callable[[Position, Intent, Outcome], None]


def category(intent: Intent) -> str:
    if isinstance(intent, Move | Doze):
        return "move"
    return type(intent).__name__.lower()


def _moves(p: Position) -> Sequence[Choice]:
    """The Move plans, then the Dozes, read as one listing without copying them (a
    Doze is built only if chosen)."""
    key = (_MOVES, p.turn, p.actions)  # the cache outlives a turn when no piece changed
    found = p.derived.listings.get(key)
    if found is None:
        found = p.derived.mine("listings")[key] = Joined([all_legal_plans(p),
                                                          *doze_choices(p)])
    return found  # type: ignore[return-value]


_MOVES = "playout moves"


def _articles(listing: Callable[[Position], Sequence[Choice]]
              ) -> Callable[[Position], Sequence[Choice]]:
    """One kind of article intents (Pick-up, Drop or Exchange), listed at most once per
    position and turn budget."""
    def listed(p: Position) -> Sequence[Choice]:
        key = (listing, p.turn, p.actions)
        found = p.derived.listings.get(key)
        if found is None:
            found = p.derived.mine("listings")[key] = listing(p)
        return found  # type: ignore[return-value]
    return listed


class Joined(Sequence[Choice]):
    """Consecutive sequences read as one, without copying them: what ``rng.choice``
    needs (a length and an item by index) of a listing kept in parts."""

    __slots__ = ("ends", "parts")

    def __init__(self, parts: Sequence[Sequence[Choice]]) -> None:
        self.parts = parts
        ends = []
        total = 0
        for part in parts:
            total += len(part)
            ends.append(total)
        self.ends = ends

    def __len__(self) -> int:
        return self.ends[-1] if self.ends else 0

    @overload
    def __getitem__(self, index: int) -> Choice: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Choice]: ...

    def __getitem__(self, index: int | slice) -> Choice | Sequence[Choice]:
        if isinstance(index, slice):
            return [item for part in self.parts for item in part][index]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        at = bisect_right(self.ends, index)
        return self.parts[at][index - (self.ends[at - 1] if at else 0)]


_OTHER: dict[str, Callable[[Position], Sequence[Choice]]] = {
    "fire": lambda p: Joined(fire_choices(p)),
    "pickup": _articles(legal_pickups),
    "drop": _articles(legal_drops),
    "exchange": _articles(legal_exchanges),
    "reinforce": lambda p: list(legal_reinforcements(p)),
}


def random_choice(position: Position, rng: Random, moves_only: bool) -> Choice | None:
    """A random legal action (a Move plan or an intent), or None if there is none."""
    if moves_only or rng.random() < 0.5:
        moves = _moves(position)
        if moves or moves_only:
            return rng.choice(moves) if moves else None
    names = ["move", *_OTHER]
    rng.shuffle(names)
    for name in names:
        found = _moves(position) if name == "move" else _OTHER[name](position)
        if found:
            return rng.choice(found)
    return None


def play_turn(position: Position, rng: Random, observe: Observer | None = None) -> Position:
    """One whole random turn: up to 3 other actions, the Move, then the end of turn."""
    for step in range(MAX_EXTRA_ACTIONS + 1):
        if position.result is not None:
            return position
        choice = random_choice(position, rng, moves_only=step == MAX_EXTRA_ACTIONS)
        if choice is None:
            break
        if isinstance(choice, Plan):
            outcome = apply_plan(position, choice)
            if observe is not None:
                observe(position, move_of(position, choice), outcome)
        else:
            outcome = apply(position, choice)
            if observe is not None:
                observe(position, choice, outcome)
        position = outcome.position
        if position.actions.move:
            break
    if position.result is not None:
        return position
    outcome = end_turn(position)
    if observe is not None:
        observe(position, EndTurn(), outcome)
    return outcome.position
