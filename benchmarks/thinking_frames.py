"""The hotseat frame while the computer thinks (issue 19, figure (d) of ``wec bench
computer``): kept beside the benchmarks, which may drive the whole client, so the client's
own modules never import the application that opens them."""

from __future__ import annotations

import statistics
import time
from typing import Any

from wec.client.computer_play import ComputerPlayScreen, ComputerSession
from wec.computer import DEFAULT_LEVEL
from wec.engine.intents import EndTurn
from wec.engine.pieces import Side


def measure_thinking_frames(seconds: float = 3.0) -> dict[str, Any]:
    """The hotseat frame while the computer thinks against the frame of the same screen
    idle: an offscreen ``WecApp`` at its default size, a Human vs Computer game at the
    default level, the human Black, the camera turning a little every frame (back and
    forth) so each frame is drawn afresh. Turn after turn: a batch of idle frames (the
    human to act, nothing thinking), the human's Move and End, then frames while the
    computer's worker thinks, until ``seconds`` of thinking frames are timed. Frames
    with an animation playing are not compared (one side would have more of them)."""
    from wec.client.app import WecApp
    from wec.client.settings import Settings
    from wec.engine.setup import standard_position

    app = WecApp(offscreen=True, settings=Settings())
    base = app.base
    session = ComputerSession.against(standard_position(), Side.BLACK, DEFAULT_LEVEL, seed=1)
    screen = app.play_computer(session)
    thinking: list[float] = []
    idle: list[float] = []
    home = screen.camera.orbit
    turns = 0

    def frame() -> tuple[float, bool]:
        """One frame, the camera turned a little; its time and whether an animation
        played in it."""
        nonlocal turns
        turns += 1
        screen.camera.set_orbit(home.turned(0.3 * (1 if turns % 2 else -1)))
        animation = screen.scene.animation
        busy = animation is not None and animation.isPlaying()
        began = time.perf_counter()
        base.taskMgr.step()
        return time.perf_counter() - began, busy

    limit = time.monotonic() + 60 + 10 * seconds
    while sum(thinking) < seconds and time.monotonic() < limit and not screen._finished():
        for _ in range(30):  # idle: the human to act, nothing thinks
            if screen.humans_turn and not screen.worker.thinking:
                elapsed, busy = frame()
                if not busy:
                    idle.append(elapsed)
        if not screen.humans_turn:  # the computer still playing its turn
            frame()
            continue
        _human_turn(screen)
        while not screen.humans_turn and time.monotonic() < limit:
            was_thinking = screen.worker.thinking
            elapsed, busy = frame()
            if was_thinking and screen.worker.thinking and not busy:
                thinking.append(elapsed)
    app.close()
    base.destroy()
    think_ms = statistics.fmean(thinking) * 1000 if thinking else 0.0
    idle_ms = statistics.fmean(idle) * 1000 if idle else 0.0
    return {"thinking_ms": think_ms, "idle_ms": idle_ms, "thinking_frames": len(thinking),
            "idle_frames": len(idle),
            "frame_ratio": think_ms / idle_ms if idle_ms else float("inf")}


def _human_turn(screen: ComputerPlayScreen) -> None:
    """A quick turn for the human (the first legal Move, then the End)."""
    from wec.engine.intents import Doze, Move

    legal = screen.session.legal()
    move = next((i for i in legal if isinstance(i, Move | Doze)), None)
    if move is not None:
        screen.send(move)
    screen.send(EndTurn())
