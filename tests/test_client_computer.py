"""Human vs Computer in the 3D client (issue 19), offscreen with the virtual mouse: the
game is started from the main menu, the computer's turn runs in its worker process while
the frames go on with a "thinking" line shown, its actions are played and animated from
the human's side, and the human plays on."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from wec.client.app import WecApp
from wec.client.computer_play import THINKING, ComputerPlayScreen, ComputerSetupScreen
from wec.client.settings import Settings
from wec.engine.intents import Doze, EndTurn, Move
from wec.engine.pieces import Side

SIZE = (1280, 720)


@pytest.fixture
def app(panda_base: Any, tmp_path: Path) -> Iterator[WecApp]:
    made = WecApp(base=panda_base, settings=Settings(), settings_file=tmp_path / "s.json")
    made.save_dir = tmp_path / "saves"
    base = made.base
    base.win.setSize(*SIZE)
    base.adjustWindowAspectRatio(SIZE[0] / SIZE[1])
    assert made.pointer is not None
    made.pointer.size = SIZE
    made.pointer.mouse.setWindowSize(*SIZE)
    base.graphicsEngine.renderFrame()
    yield made
    made.close()


def press(app: WecApp, name: str) -> None:
    from panda3d.core import Point3

    base = app.base
    node = base.aspect2d.find(f"**/{name}")
    assert not node.isEmpty(), f"no widget {name} on screen"
    left, right, bottom, top = node.node().getFrame()
    centre = base.render2d.getRelativePoint(node, Point3((left + right) / 2, 0,
                                                          (bottom + top) / 2))
    width, height = base.win.getXSize(), base.win.getYSize()
    assert app.pointer is not None
    app.pointer.click(int((centre.x + 1) / 2 * width), int((1 - centre.z) / 2 * height))


def frames_until(app: WecApp, done: Any, timeout: float = 90.0) -> int:
    """Render frames until ``done()``; how many it took."""
    deadline = time.monotonic() + timeout
    count = 0
    while not done():
        assert time.monotonic() < deadline, "timed out"
        app.base.taskMgr.step()
        count += 1
    return count


def start_game(app: WecApp, side: str, level: int) -> ComputerPlayScreen:
    press(app, "menu-computer")
    assert isinstance(app.screen, ComputerSetupScreen)
    press(app, f"computer-side-{side}")
    press(app, f"computer-level-{level}")
    press(app, "computer-budget-1")  # the quick budget
    press(app, "computer-start")
    screen = app.screen
    assert isinstance(screen, ComputerPlayScreen)
    return screen


def test_the_computer_moves_first_while_the_frames_go_on(app: WecApp) -> None:
    screen = start_game(app, "white", 1)
    session = screen.computer_session
    assert (session.human, session.computer, session.level) == (Side.WHITE, Side.BLACK, 1)
    assert screen.viewer is Side.WHITE
    # Black (the computer) is to act: its worker thinks and the indicator says so
    shown: list[str] = []

    def computer_done() -> bool:
        if screen.thinking_shown:
            shown.append(screen.thinking.getText())
        return session.current.side_to_act is Side.WHITE

    frames = frames_until(app, computer_done)
    assert frames > 1, "the window kept drawing while the computer thought"
    assert shown and "is thinking" in shown[0] and "level 1" in shown[0]
    node = app.base.aspect2d.find(f"**/{THINKING}")
    assert not node.isEmpty()
    assert not screen.thinking_shown  # the human's turn: no indicator
    black = [a for a in session.match.history if a.side is Side.BLACK]
    assert black and isinstance(black[-1].intent, EndTurn)
    assert any(isinstance(a.intent, Move | Doze) for a in black)
    # the board and the move list are White's: the computer's moves as White saw them
    assert screen.interaction.view.viewer is Side.WHITE
    assert screen.history and screen.history[0].startswith("1.")
    # the human plays a Move and ends the turn; the computer answers
    move = next(i for i in screen.interaction.legal if isinstance(i, Move))
    assert screen.send(move)
    assert screen.send(EndTurn())
    frames_until(app, lambda: screen.worker.thinking or
                 session.current.side_to_act is Side.WHITE)
    frames_until(app, lambda: session.current.side_to_act is Side.WHITE)
    assert session.current.turn == 4


def test_the_human_cannot_act_for_the_computer_and_undo_goes_back_to_its_turn(
        app: WecApp) -> None:
    screen = start_game(app, "black", 1)
    session = screen.computer_session
    assert session.human is Side.BLACK and screen.humans_turn
    assert not screen.thinking_shown
    move = next(i for i in screen.interaction.legal if isinstance(i, Move))
    assert screen.send(move) and screen.send(EndTurn())
    app.base.taskMgr.step()
    assert not screen.humans_turn
    assert screen.send(EndTurn()) is False  # White's turn is the computer's
    assert "thinking" in screen.note["text"]
    frames_until(app, lambda: screen.humans_turn)
    assert session.current.turn == 3
    screen.undo()
    # back into Black's turn 1: the computer's turn and Black's End taken back
    assert session.current.turn == 1 and session.current.actions.move
    assert screen.humans_turn and screen.told == 0
    screen.undo()  # and again: Black's Move
    assert session.current.turn == 1 and not session.current.actions.move
    # the computer is told the game again from the start when it next thinks
    assert screen.send(move) and screen.send(EndTurn())
    frames_until(app, lambda: screen.humans_turn)
    assert session.current.turn == 3


def test_the_board_editor_is_not_offered_against_the_computer(app: WecApp) -> None:
    """Its buffer would be the whole position: the computer's hidden pieces on show."""
    screen = start_game(app, "black", 1)
    app.base.taskMgr.step()
    assert screen.editor_button.isHidden()
    screen.open_editor()
    assert app.screen is screen
    assert "not available against the computer" in screen.note["text"]
    # and the mode line does not promise the full history the screen does not show
    assert screen._mode_text() == ("against the computer: undo on, your side's history "
                                   "until the end (R14.2)")
    assert not screen.reveals_all()


def test_leaving_and_continuing_keeps_the_computer_game(app: WecApp) -> None:
    screen = start_game(app, "black", 2)
    session = screen.computer_session
    screen.leave()
    press(app, "menu-continue")
    again = app.screen
    assert isinstance(again, ComputerPlayScreen) and again.session is session
    screen.worker.process.join(5)
    assert not screen.worker.process.is_alive()  # the left screen's worker ended
