"""The heap of a process that owns its peer (net.heap ``settling_heap`` and
``fresh_heap``): what survives a game's step is frozen so that the collector's full
passes do not walk the game's growing record, and what a finished game leaves is freed
at the next game's start."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from wec.benchmarks.fog_bench import measure
from wec.net.fog_game import FogGame
from wec.net.heap import YOUNG_THRESHOLD, fresh_heap, released_heap, settling_heap


@pytest.fixture(autouse=True)
def unfrozen_afterwards() -> Iterator[None]:
    yield
    released_heap()  # the rest of the worker's tests as before (conftest freezes anew)


class Node:
    def __init__(self) -> None:
        self.other: Node | None = None


def walked(thing: object) -> bool:
    """Whether the collector still walks ``thing`` (it is in a generation: not frozen)."""
    return any(o is thing for generation in range(3) for o in gc.get_objects(generation))


def test_a_settled_heap_freezes_what_lives_and_collects_the_young_garbage() -> None:
    survivor = Node()
    first, second = Node(), Node()
    first.other, second.other = second, first  # a cycle, garbage once dropped
    gone = weakref.ref(first)
    del first, second
    assert walked(survivor) and gone() is not None
    for _ in settling_heap():
        pass
    assert gone() is None  # collected, not frozen
    assert not walked(survivor)  # frozen: no full pass walks it again


def test_cyclic_garbage_frozen_while_it_lived_is_freed_at_the_next_games_start() -> None:
    first, second = Node(), Node()
    first.other, second.other = second, first
    for _ in settling_heap():  # the cycle lives through a step: frozen
        pass
    gone = weakref.ref(first)
    del first, second
    gc.collect()
    assert gone() is not None  # frozen: no collection reaches it
    fresh_heap()
    assert gone() is None
    assert gc.get_freeze_count() > 0  # what lives is frozen again


def test_a_game_start_raises_the_young_threshold_and_the_peers_stop_puts_it_back() -> None:
    """While a process owns its peer the collector's young passes are rare (a fog
    action's containers by the tens of thousands set them off some 250 times a side in
    a 15 s bench game); when the peer stops, the process's own thresholds come back."""
    before = gc.get_threshold()
    assert before[0] < YOUNG_THRESHOLD
    fresh_heap()
    assert gc.get_threshold() == (YOUNG_THRESHOLD, *before[1:])
    fresh_heap()  # a second game's start: the same, and the process's own kept
    released_heap()
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0


def test_a_finished_fog_game_is_freed_once_its_waiting_resolutions_are_let_go(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Two FogGames play three turns, the heap settled after every action as a peer's
    host settles it. Black's audit closes Black's game (``FogGame.close``): at the next
    game's start it is freed. White's last action still has its owner side waiting for
    a question, on a greenlet whose frames hold the game out of the collector's sight:
    it stays, whatever is collected, until it is closed (as White's own audit, or a host
    dropping the game, does)."""
    games: list[weakref.ref[FogGame]] = []
    made = FogGame.__init__

    def noted(self: FogGame, *args: object, **kwargs: object) -> None:
        made(self, *args, **kwargs)  # type: ignore[arg-type]
        games.append(weakref.ref(self))

    monkeypatch.setattr(FogGame, "__init__", noted)
    figures = measure(turns=3)
    assert figures["actions"] >= 6 and len(games) == 2
    fresh_heap()
    black, white = (game() for game in games)
    assert black is None and white is not None
    white.close()
    del white
    fresh_heap()
    assert games[1]() is None


def test_after_the_verdict_no_message_of_the_peers_is_taken(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The verdict closed the game (its waiting resolutions let go) and its record is
    final: a copy of the peer's last message (the reveal), and a message the peer signs
    afresh as the next of its chain, are taken not at all: nothing sent, no event, no
    entry added to the record, no input noted, no resolution made again (until session
    23 the fresh one was taken and ran the last action again from its start)."""
    games: list[FogGame] = []
    received: list[tuple[FogGame, object]] = []
    made, receive = FogGame.__init__, FogGame.receive

    def noted(self: FogGame, *args: object, **kwargs: object) -> None:
        made(self, *args, **kwargs)  # type: ignore[arg-type]
        games.append(self)

    def kept(self: FogGame, message: object) -> object:
        received.append((self, message))
        return receive(self, message)  # type: ignore[arg-type]

    monkeypatch.setattr(FogGame, "__init__", noted)
    monkeypatch.setattr(FogGame, "receive", kept)
    measure(turns=3)  # Black audits White's reveal: the verdict closes Black's game
    black, white = games
    assert black.verdict is not None and black.verdict.clean
    last = [message for game, message in received if game is black][-1]
    assert last.kind == "reveal"  # type: ignore[attr-defined]
    white._send("ask", {"n": len(black.actions) - 1, "i": 0, "q": ["detect"]})
    fresh = white._flush().send[0]
    entries, inputs = len(black.log), len(black._inputs)
    for message in (last, fresh):
        step = black.receive(message)  # type: ignore[arg-type]
        assert step.send == () and step.events == ()
    assert len(black.log) == entries and len(black._inputs) == inputs
    assert all(act.owner_run is None and act.mine_run is None for act in black.actions)
