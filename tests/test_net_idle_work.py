"""The fog game's idle work runs only while the event loop has nothing else to do
(net.game_host ``run_when_idle``): a peer's message that arrives goes first.

On loopback a message crossed three turns of the loop to be read and handled; when a
slice of idle work ran in every turn, a message waited behind up to three of them."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator

from wec.net.game_host import run_when_idle


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
