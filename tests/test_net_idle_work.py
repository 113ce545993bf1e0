"""The fog game's idle work runs only while the event loop has nothing else to do
(net.game_host ``run_when_idle``): a peer's message that arrives goes first.

On loopback a message crossed three turns of the loop to be read and handled; when a
slice of idle work ran in every turn, a message waited behind up to three of them."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator

from wec.net.game_host import PAUSE_MS, LoopPauses, run_when_idle


def slices(order: list[str], count: int, during: dict[int, Callable[[], object]]
           ) -> Iterator[None]:
    for k in range(count):
        order.append(f"slice {k}")
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


def busy(seconds: float) -> None:
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


def test_a_slice_that_does_not_run_while_it_has_work_is_noted_as_a_pause() -> None:
    """``LoopPauses``: a slice whose wall-clock time exceeds the thread's CPU time by more
    than PAUSE_MS is noted (start, ms lost); one that computes for as long is not. A
    sleep stands for the process not running (what the test machine's pauses look like
    from inside: time passing with no CPU time and no wait of the program's)."""
    pauses = LoopPauses()

    async def main() -> None:
        loop = asyncio.get_running_loop()
        done: list[bool] = []

        def work() -> Iterator[None]:
            busy(0.002)  # 2 ms of CPU (more than PAUSE_MS): no pause
            yield
            time.sleep(0.006)  # 6 ms without running: a pause of about 6 ms
            yield
            busy(0.001)

        before = time.monotonic()
        run_when_idle(loop, work(), lambda: True, lambda: done.append(True), pauses)
        while not done:
            await asyncio.sleep(0.01)
        assert len(pauses.found) == 1, pauses.found
        [(start, lost)] = pauses.found
        assert before <= start <= time.monotonic()
        assert 5.0 <= lost < 50.0 and PAUSE_MS < 5.0

    asyncio.run(main())


def test_a_message_handled_by_the_host_is_timed_the_same_way() -> None:
    pauses = LoopPauses()
    assert pauses.timed(lambda: busy(0.002) or "answer") == "answer"
    assert pauses.found == []
    assert pauses.timed(lambda: time.sleep(0.005) or 7) == 7
    assert len(pauses.found) == 1 and pauses.found[0][1] >= 4.5
    pauses.found.extend([(0.0, 2.0)] * (LoopPauses.LIMIT - 1))
    pauses.timed(lambda: time.sleep(0.003))
    assert len(pauses.found) == LoopPauses.LIMIT  # bounded: a long game keeps the first
