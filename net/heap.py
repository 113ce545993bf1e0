"""The heap of a process that owns its peer (the client, ``wec peer``:
``PeerConfig.freeze_heap``), kept out of the way of the game's actions.

Python's cyclic collector now and then walks every object the process holds (a *full
pass*): with a fog game's record growing all game long, such a pass took 16-25 ms in a
peer, and up to 271 ms in a 200-turn game in one process, in the middle of an action.
``net.game_host`` therefore freezes what the process holds at a game's start
(:func:`fresh_heap`) and what survives each step of the game, in its idle time
(:func:`settling_heap`); full passes then walk only what came since. It unfreezes when
the peer stops. :class:`FullCollections` notes the full passes that still happen
(``wec peer``'s final event, ``wec bench net``'s "fog: full collections" line)."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Iterator


class FullCollections:
    """The collector's full passes (over its oldest generation) in this process while
    it is watched, as (start by ``time.monotonic()``, ms), the first ``LIMIT`` only: a
    pass blocks every thread of the process, and one that falls inside an action makes
    it that much longer. ``wec peer`` reports them in its final event and ``wec bench
    net`` counts them (:func:`settling_heap` is what keeps them short). Watched through
    ``gc.callbacks`` from :meth:`watch` to :meth:`stop`."""

    LIMIT = 10_000

    def __init__(self, now: Callable[[], float] = time.monotonic,
                 wall: Callable[[], float] = time.perf_counter) -> None:
        self.found: list[tuple[float, float]] = []
        self._now, self._wall = now, wall
        self._began: tuple[float, float] | None = None

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if info.get("generation") != 2:
            return
        if phase == "start":
            self._began = (self._now(), self._wall())
        elif self._began is not None:
            at, wall = self._began
            self._began = None
            if len(self.found) < self.LIMIT:
                self.found.append((at, (self._wall() - wall) * 1000.0))

    def watch(self) -> FullCollections:
        """Start noting the full passes (once)."""
        if self not in gc.callbacks:
            gc.callbacks.append(self)
        return self

    def stop(self) -> None:
        """Stop noting them."""
        if self in gc.callbacks:
            gc.callbacks.remove(self)


def settling_heap() -> Iterator[None]:
    """One slice of idle work after a step of the game: the young generations'
    garbage collected (``gc.collect(1)``: 1.3-1.4 ms median in ``wec bench net``'s
    game, traced in session 42; 0.1-0.5 ms when first written) and what survives frozen
    (``gc.freeze``). What a game keeps (its record, every message and answer of its
    actions) grows all game long and lives as long as it does; frozen, the collector's
    full passes no longer walk it. Frozen only at a game's start, the full passes walked
    everything made since: in ``wec bench net``'s fog game each peer made two or three of
    16-25 ms, inside actions, and in a 200-turn game in one process seven took 984 ms,
    the longest 271 ms. Settled after every step, none walked more than the last step's
    survivors (the same game: one pass, 1.4 ms). What this leaves uncollected is cyclic
    garbage made of objects already frozen: the game itself once it is dropped, and
    whatever else the game made and let go; the next game's start collects it
    (:func:`fresh_heap`)."""
    gc.collect(1)
    gc.freeze()
    yield


def fresh_heap() -> None:
    """At a game's start: everything unfrozen, the whole heap collected, what lives
    frozen again. What the process holds by now (modules, rules tables, caches) lives
    as long as it does: frozen, the collector's full passes need not walk it (such a
    pass took 20-30 ms, in the middle of an action, every 15 s or so of play). Unfrozen
    first, so that the games that ended since the last start go: a game's objects hold
    reference cycles (a ``FogGame`` and its resolutions), and frozen (by
    :func:`settling_heap`, or by an earlier start while the game was kept) a cycle is
    never collected: every game played would stay in memory (some 50 MB per 100 turns
    of a fog game) for as long as the process runs. The collection walks the whole heap
    once, while the game sets up. Then the young generation's threshold goes up to
    ``YOUNG_THRESHOLD`` (:func:`released_heap` puts it back)."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()
    global _THRESHOLDS
    if _THRESHOLDS is None:
        _THRESHOLDS = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, *_THRESHOLDS[1:])


# The young generation's threshold while a process owns its peer (the default is 700):
# a fog action allocates containers by the tens of thousands, and the collector's young
# passes (0.06-1.4 ms) and middle passes (0.6-3 ms) fell inside the actions, some 250 a
# side in a 15 s ``wec bench net`` game (session 30, traced). The step's survivors are
# collected and frozen after every step all the same (:func:`settling_heap`), so the
# young generation never grows past one step's objects.
YOUNG_THRESHOLD = 20_000
_THRESHOLDS: tuple[int, int, int] | None = None  # the process's own, restored by release


def released_heap() -> None:
    """The peer stops: the heap unfrozen and the collector's thresholds as they were (the
    client goes on without the network, :func:`fresh_heap` undone)."""
    global _THRESHOLDS
    gc.unfreeze()
    if _THRESHOLDS is not None:
        gc.set_threshold(*_THRESHOLDS)
        _THRESHOLDS = None
