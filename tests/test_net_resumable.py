"""net.resumable: a computation that waits for what has not come yet and carries on
from exactly there when resumed (the fog resolution's way of waiting for the peer)."""

from __future__ import annotations

import threading

import pytest

from wec.net.resumable import Resumable, wait_until


def test_the_work_carries_on_where_it_waited_without_running_again() -> None:
    inbox: list[int] = []
    trace: list[str] = []

    def work() -> int:
        trace.append("start")
        total = 0
        for k in range(3):
            wait_until(lambda k=k: k < len(inbox))
            trace.append(f"got {inbox[k]}")
            total += inbox[k]
        return total

    run = Resumable(work)
    assert run.resume() == (False, None)
    inbox.append(5)
    assert run.resume() == (False, None)
    assert run.resume() == (False, None)  # nothing new: it waits again, runs nothing
    inbox.extend([7, 11])
    assert run.resume() == (True, 23)
    assert trace == ["start", "got 5", "got 7", "got 11"]
    assert not run.usable()
    with pytest.raises(RuntimeError, match="finished"):
        run.resume()


def test_an_error_of_the_work_reaches_the_caller_and_ends_it() -> None:
    ready = [False]

    def work() -> None:
        wait_until(lambda: ready[0])
        raise ValueError("R5.2.2: path blocked at (4,3) ground")

    run = Resumable(work)
    assert run.resume() == (False, None)
    ready[0] = True
    with pytest.raises(ValueError, match=r"R5\.2\.2"):
        run.resume()
    assert not run.usable()


def test_another_thread_cannot_resume_it() -> None:
    run = Resumable(lambda: wait_until(lambda: False))
    assert run.resume() == (False, None)
    seen: list[bool] = []
    thread = threading.Thread(target=lambda: seen.append(run.usable()))
    thread.start()
    thread.join()
    assert seen == [False]
    assert run.usable()


def test_waiting_outside_a_resumable_is_an_error() -> None:
    with pytest.raises(RuntimeError, match="outside"):
        wait_until(lambda: False)
    wait_until(lambda: True)  # nothing to wait for: returns at once
