"""The fog game's idle work runs only while the event loop has nothing else to do
(net.game_host ``run_when_idle``): a peer's message that arrives goes first.

On loopback a message crossed three turns of the loop to be read and handled; when a
slice of idle work ran in every turn, a message waited behind up to three of them."""

from __future__ import annotations

import asyncio
import gc
import time
import weakref
from collections.abc import Callable, Iterator

from wec.net.game_host import PAUSE_MS, LoopPauses, run_when_idle


def slices(order: list[str], count: int, during: dict[int, Callable[[], object]],
           name: str = "slice") -> Iterator[None]:
    for k in range(count):
        order.append(f"{name} {k}")
        if k in during:
            during[k]()
        yield


def test_a_message_arriving_during_a_slice_goes_before_the_next_slice() -> None:
    """A frame read during slice 0, whose handler it schedules in turn: both run before
    any further slice (with a slice every turn, slice 1 ran between them), and the work
    resumes once the loop is free, to its end."""
    order: list[str] = []
    finished: list[bool] = []

    async def main() -> None:
        loop = asyncio.get_running_loop()

        def frame_read() -> None:
            order.append("frame read")
            loop.call_soon(lambda: order.append("message handled"))

        work = slices(order, 4, {0: lambda: loop.call_soon(frame_read)})
        run_when_idle(loop, work, lambda: True, lambda: finished.append(True))
        await asyncio.sleep(0.05)  # a timer: the loop is otherwise free

    asyncio.run(main())
    assert order == ["slice 0", "frame read", "message handled", "slice 1", "slice 2",
                     "slice 3"]
    assert finished == [True]


def test_work_replaced_by_newer_work_stops() -> None:
    """``current()`` false (a newer step started other work): no further slice, and the
    stopped work is not reported finished."""
    order: list[str] = []
    finished: list[bool] = []
    state = {"current": True}

    async def main() -> None:
        loop = asyncio.get_running_loop()
        work = slices(order, 5, {1: lambda: state.update(current=False)})
        run_when_idle(loop, work, lambda: state["current"], lambda: finished.append(True))
        await asyncio.sleep(0.05)

    asyncio.run(main())
    assert order == ["slice 0", "slice 1"]
    assert finished == []


def test_two_works_in_one_loop_take_turns_and_both_finish() -> None:
    """Two peers in one process each run their idle work on the same loop: the works
    take their slices in turn and both finish, a message still going first. Until
    session 22 each work waited while the other's callback was ready, and neither ran
    (at full CPU) until the loop stopped."""
    order: list[str] = []
    finished: list[str] = []

    async def main() -> None:
        loop = asyncio.get_running_loop()
        message = {1: lambda: loop.call_soon(lambda: order.append("message handled"))}
        run_when_idle(loop, slices(order, 3, message, "a"), lambda: True,
                      lambda: finished.append("a"))
        run_when_idle(loop, slices(order, 2, {}, "b"), lambda: True,
                      lambda: finished.append("b"))
        started = time.process_time()
        await asyncio.sleep(0.05)
        assert time.process_time() - started < 0.04  # the loop slept: no spinning

    asyncio.run(main())
    assert order == ["a 0", "b 0", "a 1", "message handled", "b 1", "a 2"]
    assert finished == ["b", "a"]



def test_the_works_left_in_a_loop_that_stopped_go_with_it() -> None:
    """A loop that stops with idle work still pending (a client's network loop ended in
    the middle of a game): the work, and the game its frames hold, go once the loop is
    gone. The works were kept by their loop, with the loop itself as a value of their
    weak-keyed store, which so never let go of either (until session 29)."""
    state: dict[str, object] = {}

    def endless() -> Iterator[None]:
        while True:
            yield

    async def main() -> None:
        loop = asyncio.get_running_loop()
        work = endless()
        state["work"] = weakref.ref(work)  # type: ignore[arg-type]
        state["loop"] = weakref.ref(loop)
        run_when_idle(loop, work, lambda: True, lambda: None)
        await asyncio.sleep(0)  # one slice; the loop then stops with the work pending

    asyncio.run(main())
    gc.collect()
    assert state["loop"]() is None  # type: ignore[operator]
    assert state["work"]() is None  # type: ignore[operator]


class Clocks:
    """A wall clock and a thread CPU clock the test moves by hand."""

    def __init__(self) -> None:
        self.wall = self.cpu = 0.0

    def computes(self, seconds: float) -> None:
        self.wall += seconds
        self.cpu += seconds

    def stands_still(self, seconds: float) -> None:
        self.wall += seconds


def test_only_time_without_cpu_counts_as_a_pause() -> None:
    """``LoopPauses.timed``: wall time beyond the thread's CPU time by more than PAUSE_MS
    is noted (start, ms lost); as much time computing is not, nor a shorter stand-still;
    the list keeps the first LIMIT only."""
    clocks = Clocks()
    pauses = LoopPauses(wall=lambda: clocks.wall, cpu=lambda: clocks.cpu,
                        now=lambda: 100.0 + clocks.wall)
    assert pauses.timed(lambda: clocks.computes(0.004) or "answer") == "answer"
    pauses.timed(lambda: clocks.stands_still(PAUSE_MS / 1000 * 0.9))
    assert pauses.found == []
    clocks.computes(0.001)
    pauses.timed(lambda: (clocks.computes(0.0005), clocks.stands_still(0.006)))
    [(start, lost)] = pauses.found
    assert round(start, 6) == round(100.0 + 0.004 + 0.00135 + 0.001, 6)
    assert round(lost, 6) == 6.0
    pauses.found.extend([(0.0, 2.0)] * (LoopPauses.LIMIT - 1))
    pauses.timed(lambda: clocks.stands_still(0.003))
    assert len(pauses.found) == LoopPauses.LIMIT  # bounded: a long game keeps the first


def test_the_idle_slices_are_timed_with_the_threads_own_clocks() -> None:
    """``run_when_idle`` with ``pauses`` times each slice on the real clocks: a slice
    that sleeps 6 ms (time passing with no CPU time, what a pause of the machine looks
    like from inside) is noted. (Whether a slice that computes is noted depends on the
    machine pausing it meanwhile: the clocks' test is above.)"""
    pauses = LoopPauses()

    async def main() -> None:
        loop = asyncio.get_running_loop()
        done: list[bool] = []

        def work() -> Iterator[None]:
            yield
            time.sleep(0.006)
            yield

        before = time.monotonic()
        run_when_idle(loop, work(), lambda: True, lambda: done.append(True), pauses)
        while not done:
            await asyncio.sleep(0.01)
        assert any(before <= start <= time.monotonic() and 5.0 <= lost < 1000.0
                   for start, lost in pauses.found), pauses.found

    asyncio.run(main())
