"""Computations that wait for the peer's messages without being re-run.

A fog resolution (net.fog_game) asks the peer a question, and can only go on once the
answer comes, a message or more later. Re-running it from the start with the answers
so far, at every message, costs a whole resolution per message: an End of turn of a
dozen questions runs the engine a dozen times on each side, on the path of the turn's
messages. A :class:`Resumable` instead runs the computation in a greenlet (a stack of
its own, switched to and from in the same thread); where the computation needs what has
not come yet, :func:`wait_until` hands control back to the caller of :meth:`resume`,
and the next ``resume`` carries on from exactly there.

A greenlet belongs to the thread that made it. A caller on another thread (a game
restored on one thread and played on another) gets ``usable() == False`` and makes a
fresh Resumable, which re-runs the computation from the start: the computations here
are written so that a re-run from the record gives the same result (net.fog_game keeps
every question and answer), so this is slower, never different.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

from greenlet import getcurrent, greenlet

Result = TypeVar("Result")


class _Waiting:
    """What a waiting computation hands back to :meth:`Resumable.resume`."""


_WAITING = _Waiting()


class Resumable(Generic[Result]):
    """``work`` run until it waits or returns; resumed where it waited."""

    def __init__(self, work: Callable[[], Result]) -> None:
        self._thread = threading.get_ident()
        self._greenlet = greenlet(work)

    def usable(self) -> bool:
        """Whether :meth:`resume` can run here: same thread, not finished."""
        return self._thread == threading.get_ident() and not self._greenlet.dead

    def resume(self) -> tuple[bool, Result | None]:
        """Run on until the work waits (``(False, None)``) or returns (``(True,
        result)``); an exception of the work's propagates (the work is then over)."""
        if not self.usable():
            raise RuntimeError("a finished or foreign-thread computation resumed")
        self._greenlet.parent = getcurrent()
        outcome = self._greenlet.switch()
        if outcome is _WAITING:
            return False, None
        return True, outcome


def wait_until(ready: Callable[[], bool]) -> None:
    """Inside a :class:`Resumable`'s work: hand control back to whoever resumed it until
    ``ready()`` holds (checked again at every resume)."""
    while not ready():
        parent = getcurrent().parent
        if parent is None:
            raise RuntimeError("wait_until outside a Resumable's work")
        parent.switch(_WAITING)


__all__ = ["Resumable", "wait_until"]
