"""The computer opponent's thinking in a second OS process (issue 19), so the frame rate
holds while it thinks.

A search takes up to a few seconds of CPU; on the Panda3D main thread that would freeze
the window, and a thread would not help (the GIL). ``ComputerWorker`` starts a worker
process with the *spawn* context (a fresh interpreter: never a fork of a process holding
an OpenGL context, as client.verification does for the replay check) that keeps one
``wec.computer.Computer`` for the game. The screen sends it, down one pipe, what the
computer's side was told of the game (its view after each action and the events it
saw: never the other side's pieces beyond that view) and, when the computer is to act,
its current view with a request number; the worker answers on the other pipe with the
request number and the intent. ``poll()`` never blocks.

The worker steps aside for the window's frames (``_step_aside``: its own session with a
lower weight, one core) and ends when its pipe closes, its parent is gone or ``close()``
terminates it.

Nothing here imports Panda3D: the worker's interpreter imports this module, the engine
and wec.computer only.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
from multiprocessing.connection import Connection
from typing import Any

from wec.engine.events import Event
from wec.engine.intents import Intent
from wec.engine.pieces import Side
from wec.engine.position import Position

STOP_SECONDS = 2.0
GROUP_NICENESS = 5  # the worker's session's niceness (Linux autogroup): frames come first


def _step_aside() -> None:
    """Keep the window's frames going: leave the window's session (Linux gives each
    session its fair share of the CPU, autogroup), lower that new session's weight, and
    think on one core (the last), so the renderer keeps the others to itself."""
    with contextlib.suppress(AttributeError, OSError):
        os.setsid()
    with contextlib.suppress(OSError), open("/proc/self/autogroup", "w") as group:
        group.write(str(GROUP_NICENESS))
    with contextlib.suppress(AttributeError, OSError):
        cores = sorted(os.sched_getaffinity(0))
        if len(cores) > 1:
            os.sched_setaffinity(0, {cores[-1]})

# messages to the worker, each a tuple starting with its kind
RESET = "reset"  # (RESET, side, level, seed, budget): a new Computer, nothing observed
OBSERVE = "observe"  # (OBSERVE, view, events): the next step as the side saw it
THINK = "think"  # (THINK, request, view): the next intent from this view
REFUSE = "refuse"  # (REFUSE, intent): the game refused it; plan the turn again
# messages from the worker
INTENT = "intent"  # (INTENT, request, intent)
FAILED = "failed"  # (FAILED, request, text)


def _clean(view: Position) -> Position:
    """The view without what the engine derived of it (it stays in this process): a
    copy given its pieces anew starts with nothing derived."""
    return view.evolve(pieces=view.pieces)


def think_in_worker(orders: Connection, answers: Connection) -> None:
    """The worker process: follow the orders until the pipe closes."""
    from wec.computer import Computer

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _step_aside()
    computer: Computer | None = None
    parent = multiprocessing.parent_process()
    while True:
        try:
            if not orders.poll(1.0):
                if parent is not None and not parent.is_alive():
                    return
                continue
            order = orders.recv()
        except (EOFError, OSError):
            return
        kind = order[0]
        try:
            if kind == RESET:
                _, side, level, seed, budget = order
                computer = Computer(side, level, seed, budget)
            elif kind == OBSERVE and computer is not None:
                computer.observe(order[1], order[2])
            elif kind == REFUSE and computer is not None:
                computer.refuse(order[1])
            elif kind == THINK and computer is not None:
                answer: tuple[Any, ...] = (INTENT, order[1], computer.next_intent(order[2]))
                answers.send(answer)
        except (BrokenPipeError, EOFError, OSError):
            return
        except Exception as problem:  # reported to the screen, which plays on
            request = order[1] if kind == THINK else -1
            with contextlib.suppress(BrokenPipeError, EOFError, OSError):
                answers.send((FAILED, request, f"{type(problem).__name__}: {problem}"))


class ComputerWorker:
    """The screen's end of the worker process (see the module docstring)."""

    def __init__(self, side: Side, level: int, seed: int = 0,
                 budget: float | None = None) -> None:
        context = multiprocessing.get_context("spawn")
        orders, self._orders = context.Pipe(duplex=False)
        self._answers, answers = context.Pipe(duplex=False)
        self.process = context.Process(target=think_in_worker, args=(orders, answers),
                                       name="wec-computer", daemon=True)
        try:
            self.process.start()
        finally:
            orders.close()
            answers.close()
        self.side, self.level, self.seed, self.budget = side, level, seed, budget
        self.observed = 0
        self.request = 0
        self.waiting: int | None = None  # the request being thought about
        self.failure: str | None = None
        self.reset()

    def reset(self) -> None:
        """Forget the game (an undo took it back): observations start again."""
        self._send((RESET, self.side, self.level, self.seed, self.budget))
        self.observed = 0
        self.waiting = None

    def observe(self, view: Position, events: tuple[Event, ...] = ()) -> None:
        self._send((OBSERVE, _clean(view), events))
        self.observed += 1

    def think(self, view: Position) -> None:
        """Ask for the next intent from ``view`` (the computer's side to act)."""
        self.request += 1
        self.waiting = self.request
        self._send((THINK, self.request, _clean(view)))

    def refuse(self, intent: Intent) -> None:
        """The game refused ``intent`` (a hidden piece changed the plan)."""
        self._send((REFUSE, intent))

    @property
    def thinking(self) -> bool:
        return self.waiting is not None

    def poll(self) -> Intent | None:
        """The intent asked for, once it has come (never blocks); None meanwhile. An
        answer to an earlier request (before a reset) is dropped."""
        try:
            while self.waiting is not None and self._answers.poll():
                kind, request, payload = self._answers.recv()
                if request != self.waiting:
                    continue
                self.waiting = None
                if kind == INTENT:
                    intent: Intent = payload
                    return intent
                self.failure = str(payload)
        except (EOFError, OSError):
            self.failure = f"the computer's process ended (exit code {self.process.exitcode})"
            self.waiting = None
        return None

    def _send(self, message: tuple[Any, ...]) -> None:
        try:
            self._orders.send(message)
        except (BrokenPipeError, EOFError, OSError):
            self.failure = "the computer's process is gone"

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._orders.close()
        with contextlib.suppress(OSError):
            self._answers.close()
        if self.process.is_alive():
            self.process.join(timeout=0.2)
        if self.process.is_alive():
            self.process.terminate()
            self.process.join(timeout=STOP_SECONDS)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(timeout=STOP_SECONDS)
