"""The replay's full integrity check (issue 7 item 4) in a second OS process.

``Replay.verify`` replays the whole game from its start position and compares every
recorded state hash, snapshot and notation line: several seconds of CPU for a
1,000-turn game. Run a few milliseconds per frame on the Panda3D main thread it takes
minutes at a software renderer's frame rate; a thread would not help (the GIL). So
``BackgroundVerification`` gives the save's bytes to a worker process started with the
*spawn* context (a fresh interpreter: never a fork of a process holding an OpenGL
context), which opens its own ``Replay`` and verifies it in chunks, sending its
progress and, at the end, either success or the first bad step (step, turn and the
engine's message) through a one-way pipe. The save goes down its own pipe from a
thread, so opening the viewer does not wait for the worker's interpreter to start.
The worker leaves the viewer's session: Linux shares the CPU fairly between sessions
(autogroup), so the check gets a share of its own on a busy machine instead of
splitting the viewer's. The viewer calls ``poll()`` every frame: it never blocks and
returns the latest ``engine.replay.Verification``.

The worker ends by itself once done, at its next report (every ``REPORT_SECONDS``)
once the viewer has closed the pipe (``cancel()``, or the viewer's process ending,
even killed), or when its parent process is gone; ``cancel()`` also terminates it, and
as a daemon process the viewer's interpreter stops it on exit. If no process can be
started, ``start_background_verification`` logs why and returns None: the viewer then
verifies in per-frame slices, as before.

Nothing here imports Panda3D: the worker's interpreter imports this module and the
engine only.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import signal
import threading
import time
from multiprocessing import connection
from multiprocessing.connection import Connection
from typing import Any

from wec.engine.errors import ReplayIntegrityError
from wec.engine.replay import Replay, Verification

__all__ = ["BackgroundVerification", "start_background_verification", "verify_in_worker"]

log = logging.getLogger(__name__)

REPORT_SECONDS = 0.1
"""How often the worker reports its progress (the viewer's green line follows it)."""
CHUNK_STEPS = 8
"""Steps per ``Replay.verify`` call in the worker, between looks at the clock."""
STOP_SECONDS = 2.0
"""How long ``cancel()`` waits for the worker to end after asking it to."""

# The worker's messages, each a tuple starting with its kind:
PROGRESS = "progress"  # (PROGRESS, checked, total): every step so far checks out
BAD_STEP = "bad-step"  # (BAD_STEP, checked, total, step, turn, detail): the first bad one
BROKEN = "broken"      # (BROKEN, text): the worker could not verify at all (not a verdict)


# ---------------------------------------------------------------- the worker


def verify_in_worker(source: Connection, report: Connection) -> None:
    """The worker process: receive the save's bytes on ``source``, verify the game from
    the start in chunks, send progress on ``report`` about every ``REPORT_SECONDS`` and
    the verdict, then return. Returns early once nobody listens any more (pipe closed
    or parent gone)."""
    _own_session()
    try:
        data = source.recv_bytes()
    except (EOFError, OSError):  # the viewer closed before sending the save
        return
    finally:
        source.close()
    try:
        # Only counts and the first bad step leave this process, so an unfinished
        # competitive game (R14.3) may be opened here: nothing of its history is shown.
        replay = Replay.open(data, allow_unfinished_competitive=True)
    except ReplayIntegrityError as error:  # a version 1 save is checked in full on opening
        _send(report, (BAD_STEP, error.step - 1, 0, error.step, error.turn, error.detail))
        return
    except Exception as problem:  # not a verdict on the game: the viewer checks itself
        _send(report, (BROKEN, f"cannot open the save: {type(problem).__name__}: {problem}"))
        return
    try:
        _verify_reporting(replay, report)
    except Exception as problem:
        _send(report, (BROKEN, f"verification stopped: {type(problem).__name__}: {problem}"))


def _verify_reporting(replay: Replay, report: Connection) -> None:
    parent = multiprocessing.parent_process()
    found = replay.verify(0)
    while True:
        deadline = time.monotonic() + REPORT_SECONDS
        while not found.done and time.monotonic() < deadline:
            found = replay.verify(CHUNK_STEPS)
        message = _bad_step_message(found) if found.error is not None \
            else (PROGRESS, found.checked, found.total)
        if not _send(report, message) or found.done:
            return
        if parent is not None and not parent.is_alive():
            return


def _bad_step_message(found: Verification) -> tuple[Any, ...]:
    error = found.error
    assert error is not None
    return (BAD_STEP, found.checked, found.total, error.step, error.turn, error.detail)


def _send(report: Connection, message: tuple[Any, ...]) -> bool:
    """Send ``message``; False when the viewer has closed its end (time to stop)."""
    try:
        report.send(message)
    except (BrokenPipeError, EOFError, OSError):
        return False
    return True


def _own_session() -> None:
    """Leave the viewer's session: Linux shares the CPU fairly between sessions
    (autogroup), so the check gets a share of its own instead of taking the viewer's;
    a Ctrl+C in the viewer's terminal is the viewer's to handle (the worker then ends
    with its pipe)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with contextlib.suppress(AttributeError, OSError):  # no sessions here: run as is
        os.setsid()


# ---------------------------------------------------------------- the viewer's side


class BackgroundVerification:
    """The full check of one save, running in a spawned worker process. ``poll()``
    (every frame, never blocking) gives the latest ``Verification``; ``failure`` says
    why the worker could not give a verdict (the caller then verifies by itself);
    ``cancel()`` stops the worker."""

    def __init__(self, data: bytes, total: int) -> None:
        context = multiprocessing.get_context("spawn")
        source, feed = context.Pipe(duplex=False)
        reader, writer = context.Pipe(duplex=False)
        self.process = context.Process(target=verify_in_worker, args=(source, writer),
                                       name="wec-replay-verification", daemon=True)
        try:
            self.process.start()
        except BaseException:
            feed.close()
            reader.close()
            raise
        finally:
            source.close()  # the worker holds the only copies of its ends: a closed
            writer.close()  # pipe then means the other side is gone
        self._reader: Connection | None = reader
        self.latest = Verification(0, total)
        self.failure: str | None = None
        # The save (up to tens of MB) goes down the pipe while the worker starts up,
        # from a thread: the viewer's frames do not wait for it (writing frees the GIL).
        self._feeder = threading.Thread(target=_feed, args=(feed, data),
                                        name="wec-replay-verification-feed", daemon=True)
        self._feeder.start()

    @property
    def finished(self) -> bool:
        """A verdict arrived (all verified or a bad step), or the worker failed."""
        return self.latest.done or self.failure is not None

    def poll(self) -> Verification:
        """The latest progress or verdict the worker sent (what arrived since the last
        call is read now; nothing waits)."""
        reader = self._reader
        if reader is None:
            return self.latest
        try:
            while not self.finished and reader.poll():
                self._take(reader.recv())
        except (EOFError, OSError):
            self.process.join(timeout=0.1)  # it has closed its end: it is ending
            self.failure = (f"the verifying process ended without a verdict "
                            f"(exit code {self.process.exitcode})")
        if self.finished:
            self._close_pipe()
        return self.latest

    def wait(self, timeout: float) -> Verification:
        """Block until the verdict arrives (or the worker fails), at most ``timeout``
        seconds; the latest ``Verification``. For tests and benchmarks: the viewer
        polls."""
        deadline = time.monotonic() + timeout
        while not self.finished and self._reader is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            connection.wait([self._reader], left)
            self.poll()
        return self.latest

    def _take(self, message: tuple[Any, ...]) -> None:
        kind = message[0]
        if kind == PROGRESS:
            _, checked, total = message
            self.latest = Verification(checked, total)
        elif kind == BAD_STEP:
            _, checked, _total, step, turn, detail = message
            self.latest = Verification(max(0, checked), self.latest.total,
                                       ReplayIntegrityError(step, turn, detail))
        else:
            self.failure = str(message[1])

    def cancel(self) -> None:
        """Stop the worker (the viewer closes) and wait a moment for it to end."""
        self._close_pipe()
        if self.process.is_alive():
            self.process.terminate()
            self.process.join(timeout=STOP_SECONDS)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(timeout=STOP_SECONDS)

    def _close_pipe(self) -> None:
        if self._reader is not None:
            self._reader.close()
            self._reader = None


def _feed(feed: Connection, data: bytes) -> None:
    """Send the save's bytes to the worker, then close the pipe (a worker that ended or
    was cancelled first just leaves the pipe broken)."""
    try:
        feed.send_bytes(data)
    except (BrokenPipeError, EOFError, OSError):
        pass
    finally:
        feed.close()


def start_background_verification(data: bytes, total: int) -> BackgroundVerification | None:
    """A worker verifying the save ``data`` (``total`` steps), or None, logged, when
    this environment cannot start one (the caller verifies in slices instead)."""
    try:
        return BackgroundVerification(data, total)
    except Exception as problem:  # no multiprocessing, no fork/exec, no semaphores...
        log.warning("replay verification runs in the viewer's frames: cannot start a "
                    "process (%s: %s)", type(problem).__name__, problem)
        return None
