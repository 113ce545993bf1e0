"""The replay viewer (issue 7), end to end: the real client rendering offscreen with real
OpenGL, driven by the virtual mouse and keyboard. What the board shows is compared with
the engine's own ``Replay.view`` at that point, in every perspective."""

from __future__ import annotations

import hashlib
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgpack  # type: ignore[import-untyped]
import pytest

from wec.client.app import WecApp, run_replay
from wec.client.play import PlayScreen
from wec.client.replay import ReplayScreen
from wec.client.session import HotseatSession
from wec.client.settings import Settings
from wec.engine import board
from wec.engine.board import GROUND
from wec.engine.formats import position_from_dict
from wec.engine.game import Outcome
from wec.engine.intents import EndTurn, Intent, Move
from wec.engine.match import Match
from wec.engine.pieces import PieceKind, Side
from wec.engine.playout import play_turn
from wec.engine.position import Position
from wec.engine.replay import Replay, notation_file_text
from wec.engine.setup import standard_position
from wec.storage.saves import read_save, write_save

# ---------------------------------------------------------------- games


def random_match(seed: int, turns: int) -> Match:
    """A random game from the standard start (engine.playout), played through a Match."""
    rng = random.Random(seed)
    start = current = standard_position()
    intents: list[Intent] = []

    def observe(_before: Position, intent: Intent, _outcome: Outcome) -> None:
        intents.append(intent)

    for _ in range(turns):
        current = play_turn(current, rng, observe)
        if current.result is not None:
            break
    match = Match.begin(start)
    for intent in intents:
        match = match.play(intent)
    return match


def at_ground(row: int, col: int) -> int:
    return board.cell(board.square(row, col), GROUND)


def kings_and_a_hidden_aaa() -> Position:
    """Black to act; Black's stealthy AAA on (7,5) is hidden from White (R9.2); White's
    King on (9,5) can take Black's King on (10,6) (R12.1)."""
    pieces = [{"side": side, "kind": kind, "at": at, "level": "ground", **more}
              for side, kind, at, more in (
                  ("black", "king", [10, 6], {}), ("white", "king", [9, 5], {}),
                  ("black", "aaa", [7, 5], {"moved": True, "hidden": True}))]
    return position_from_dict({"format": "wec-position/1", "turn": 1, "pieces": pieces})


AAA_MOVE = Move(at_ground(7, 5), at_ground(6, 5), PieceKind.AAA)
KING_TAKES_KING = Move(at_ground(9, 5), at_ground(10, 6), PieceKind.KING)
R14_3_REFUSAL = ("R14.3: this competitive game is not over: its full history is revealed "
                 "when the game ends, so it cannot be replayed yet")


def tamper_step_hash(path: Path, step: int) -> None:
    """Give step ``step`` of a save another state hash, with a fresh checksum: the file
    still opens, only recomputing the game shows that step to be wrong."""
    name, version, body, _checksum = msgpack.unpackb(path.read_bytes(), raw=False)
    content = msgpack.unpackb(body, raw=False)
    content["steps"][step - 1]["hash"] = content["steps"][step - 2]["hash"]
    body = msgpack.packb(content, use_bin_type=True)
    path.write_bytes(msgpack.packb([name, version, body, hashlib.sha256(body).digest()],
                                   use_bin_type=True))


@pytest.fixture(scope="module")
def game() -> Match:
    return random_match(seed=7, turns=12)


# ---------------------------------------------------------------- driving


@pytest.fixture
def app(panda_base: Any, tmp_path: Path) -> Iterator[WecApp]:
    made = WecApp(base=panda_base, settings=Settings(), settings_file=tmp_path / "s.json")
    made.save_dir = tmp_path / "saves"
    yield made
    made.close()


def widget_px(base: Any, name: str, fraction: float = 0.5) -> tuple[int, int]:
    """Pixel of the named 2D widget: its vertical centre, ``fraction`` of its width from
    its left edge."""
    from panda3d.core import Point3

    node = base.aspect2d.find(f"**/{name}")
    assert not node.isEmpty(), f"no widget {name} on screen"
    left, right, bottom, top = node.node().getFrame()
    point = base.render2d.getRelativePoint(node, Point3(left + (right - left) * fraction, 0,
                                                        (bottom + top) / 2))
    width, height = base.win.getXSize(), base.win.getYSize()
    return int((point.x + 1) / 2 * width), int((1 - point.z) / 2 * height)


def click(app: WecApp, at: tuple[int, int]) -> None:
    assert app.pointer is not None
    app.pointer.click(*at)


def key(app: WecApp, name: str) -> None:
    assert app.pointer is not None
    app.pointer.key(name)


def verified(app: WecApp, screen: ReplayScreen, seconds: float = 60.0) -> None:
    """Render frames until the viewer's integrity check has finished (a worker process
    checks a save: its pace is in seconds, not frames; client/verification.py)."""
    assert app.pointer is not None
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = screen.verification
        if found is not None and (found.error is not None or found.checked >= found.total):
            return
        app.pointer.step(1)
    raise AssertionError(f"verification unfinished after {seconds} s: "
                         f"{screen.integrity.getText()!r}")


def shown_pids(screen: ReplayScreen, among: Position) -> set[int]:
    """The pieces of ``among`` that have a node on the board."""
    return {p.pid for p in among.pieces if screen.scene.piece_node(p.pid) is not None}


def assert_shows(screen: ReplayScreen, index: int, perspective: Side | None) -> None:
    """The board shows exactly the engine's view at ``index`` for ``perspective``."""
    expected = screen.replay.view(index, perspective)
    assert screen.index == index
    assert screen.perspective is perspective
    assert screen.scene.view == expected
    full = screen.replay.view(index, None)
    assert shown_pids(screen, full) == {p.pid for p in expected.pieces}


def open_saved(app: WecApp, tmp_path: Path, match: Match) -> ReplayScreen:
    path = tmp_path / "game.wecsave"
    write_save(path, match)
    screen = app.open_replay(path)
    assert isinstance(screen, ReplayScreen), getattr(screen, "notice", screen)
    return screen


# ---------------------------------------------------------------- tests


def test_the_renderer_is_real_opengl(app: WecApp) -> None:
    gsg = app.base.win.getGsg()
    assert gsg.getSupportsGlsl()
    assert app.shading.glsl and app.shading.message is None


def test_scrub_step_and_switch_perspective_show_the_engine_state(
        app: WecApp, tmp_path: Path, game: Match) -> None:
    screen = open_saved(app, tmp_path, game)
    replay = screen.replay
    assert replay.length == len(game.actions) >= 24 and len(replay.turn_starts) == 12
    assert_shows(screen, 0, None)
    verified(app, screen)
    assert screen.integrity.getText() == f"All {replay.length:,} steps verified"

    # Drag along the timeline: the board follows the pointer.
    from panda3d.core import MouseButton

    pointer = app.pointer
    assert pointer is not None
    early, late = replay.turn_starts[2], replay.turn_starts[8]
    pointer.move(*widget_px(app.base, "replay-timeline", early / replay.length))
    pointer.step(2)
    pointer.mouse.pressButton(MouseButton.one())
    pointer.step(1)
    assert screen.dragging
    assert_shows(screen, early, None)
    pointer.move(*widget_px(app.base, "replay-timeline", late / replay.length))
    pointer.step(2)
    assert_shows(screen, late, None)
    pointer.mouse.releaseButton(MouseButton.one())
    pointer.step(1)
    assert not screen.dragging

    # Scrub: a click on the timeline at a turn mark seeks there, without animation.
    target = replay.turn_starts[5]
    click(app, widget_px(app.base, "replay-timeline", target / replay.length))
    assert_shows(screen, target, None)
    assert screen.scene.animation is None
    assert screen.status["text"] == (f"Replay: turn {replay.view(target, None).turn}, "
                                     f"step {target} of {replay.length}")

    # Step forward by action (animated), back by action (a jump), then by turn.
    key(app, "arrow_right")
    assert_shows(screen, target + 1, None)
    if any(True for _ in replay.events(target + 1, None)):
        assert screen.scene.animation is not None
    key(app, "arrow_left")
    key(app, "arrow_left")
    assert_shows(screen, target - 1, None)
    assert screen.scene.animation is None
    key(app, "page_down")
    assert_shows(screen, target, None)
    key(app, "page_down")
    assert_shows(screen, replay.turn_starts[6], None)
    key(app, "page_up")
    assert_shows(screen, target, None)

    # The history list highlights the current step and jumps on a click.
    row = screen.history.current - screen.history.top
    assert screen.history.visible_texts()[row].strip().startswith(f"{target}. ")
    slot = row - 2 if row >= 2 else row + 2
    click(app, widget_px(app.base, f"history-row-{slot}"))
    picked = screen.rows[screen.history.top + slot]
    assert picked.target != target
    assert_shows(screen, picked.target, None)

    # Perspective: Black's view at that moment, then White's, then everything again.
    key(app, "b")
    assert_shows(screen, picked.target, Side.BLACK)
    click(app, widget_px(app.base, "perspective-white"))
    assert_shows(screen, picked.target, Side.WHITE)
    key(app, "a")
    assert_shows(screen, picked.target, None)

    # At the start White's AAAs are hidden (R15.3): absent from Black's view only.
    key(app, "home")
    assert screen.history.top == 0
    pointer.move(*widget_px(app.base, "history-row-5"))  # the wheel scrolls the list
    pointer.step(1)
    pointer.mouse.pressButton(MouseButton.wheelDown())
    pointer.step(1)
    pointer.mouse.releaseButton(MouseButton.wheelDown())
    pointer.step(1)
    assert screen.history.top == 3 and screen.index == 0
    full = replay.view(0, None)
    white_aaas = {p.pid for p in full.pieces
                  if p.side is Side.WHITE and p.kind is PieceKind.AAA}
    assert len(white_aaas) == 2 and white_aaas <= shown_pids(screen, full)
    key(app, "b")
    assert_shows(screen, 0, Side.BLACK)
    assert not white_aaas & shown_pids(screen, full)
    key(app, "end")
    assert_shows(screen, replay.length, Side.BLACK)


def test_play_pause_and_speed(app: WecApp, tmp_path: Path, game: Match) -> None:
    screen = open_saved(app, tmp_path, game)
    app.base.messenger.send("aspectRatioChanged")  # the bar is laid out again, still works
    assert app.base.aspect2d.findAllMatches("**/replay-timeline").getNumPaths() == 1
    click(app, widget_px(app.base, "speed-4x"))
    assert screen.speed == 4.0
    key(app, "space")
    assert screen.playing
    assert screen.controls["replay-play"]["text"] == "Pause (Space)"
    assert app.pointer is not None
    for _ in range(300):
        if screen.index >= 2:
            break
        app.pointer.step(1)
    assert screen.index >= 2, "playing moves on by itself"
    key(app, "space")
    assert not screen.playing
    paused_at = screen.index
    app.pointer.step(30)
    assert screen.index == paused_at
    assert_shows(screen, paused_at, None)
    key(app, "[")
    assert screen.speed == 2.0


def test_a_tampered_save_shows_the_first_bad_step_and_nothing_past_it(
        app: WecApp, tmp_path: Path, game: Match) -> None:
    path = tmp_path / "tampered.wecsave"
    write_save(path, game)
    tamper_step_hash(path, 20)
    screen = app.open_replay(path)
    assert isinstance(screen, ReplayScreen), getattr(screen, "notice", screen)
    turn = game.actions[19].turn
    verified(app, screen)
    assert screen.error is not None and (screen.error.step, screen.error.turn) == (20, turn)
    assert screen.integrity.getText() == (f"Step 20 (turn {turn}) fails the integrity "
                                          "check: the replay stops before it")
    panel = app.base.aspect2d.find("**/integrity-panel")
    assert not panel.isEmpty()
    assert screen.integrity_panel is not None
    assert f"stops before step 20 (turn {turn})" in screen.integrity_panel.text
    click(app, widget_px(app.base, "integrity-look"))
    assert screen.integrity_panel is None
    key(app, "end")
    assert_shows(screen, 19, None)
    rows = [text.strip() for text in screen.history.visible_texts()]
    assert "20. not shown: it fails the integrity check" in rows
    bad_row = rows.index("20. not shown: it fails the integrity check")
    assert rows[bad_row - 1] == f"Turn {turn} {game.actions[19].side.title}"
    assert rows[bad_row - 2].startswith("19. ")
    key(app, "arrow_right")
    assert screen.index == 19
    click(app, widget_px(app.base, "replay-timeline", 0.95))
    assert screen.index == 19
    # Playing stops at the last good position.
    screen.seek(17)
    key(app, "]")
    key(app, "]")
    assert screen.speed == 4.0
    key(app, "space")
    assert app.pointer is not None
    for _ in range(300):
        if not screen.playing:
            break
        app.pointer.step(1)
    assert not screen.playing
    assert_shows(screen, 19, None)


def test_a_tampered_short_save_is_refused_naming_the_first_bad_step(
        app: WecApp, tmp_path: Path) -> None:
    """A history under eight steps is checked in full when opened (engine.replay)."""
    match = Match.begin(kings_and_a_hidden_aaa()).play(AAA_MOVE).play(EndTurn())
    path = tmp_path / "short.wecsave"
    write_save(path, match.play(KING_TAKES_KING))
    tamper_step_hash(path, 3)
    refused = app.open_replay(path)
    assert refused.frame.getName() == "main-menu"
    assert refused.notice.getText() == (
        f"cannot replay {path}: step 3 (turn 2): state hash differs: the file was altered "
        "or made by a different engine version")


def test_the_game_over_screen_opens_the_replay_and_escape_returns(
        app: WecApp) -> None:
    match = Match.begin(kings_and_a_hidden_aaa()).play(AAA_MOVE).play(EndTurn())
    play = app.play(HotseatSession(match))
    assert play.send(KING_TAKES_KING)
    assert play.banner is not None and play.banner.frame.getName() == "game-over"
    # The finished game is kept with its full history, so Replays lists it.
    assert app.save_dir is not None
    kept = sorted(app.save_dir.glob("*-finished-turn2.wecsave"))
    assert len(kept) == 1
    assert read_save(kept[0]).current_hash == play.session.match.current_hash
    assert app.recent_saves() == kept
    click(app, widget_px(app.base, "banner-1"))  # Watch the replay
    screen = app.screen
    assert isinstance(screen, ReplayScreen)
    assert screen.replay.length == 3 and screen.replay.finished
    assert_shows(screen, 0, None)
    aaa = next(p.pid for p in screen.replay.view(0, None).pieces if p.kind is PieceKind.AAA)
    assert screen.scene.piece_node(aaa) is not None
    key(app, "w")  # White's view: the hidden AAA is not there (R9.2)
    assert_shows(screen, 0, Side.WHITE)
    assert screen.scene.piece_node(aaa) is None
    key(app, "end")
    assert_shows(screen, 3, Side.WHITE)
    assert "Game over: White won" in screen.detail.getText()
    key(app, "escape")
    back = app.screen
    assert isinstance(back, PlayScreen)
    assert back.banner is not None and back.banner.frame.getName() == "game-over"


def test_the_main_menu_lists_recent_games_finished_first(app: WecApp) -> None:
    assert app.save_dir is not None
    app.save_dir.mkdir(parents=True)
    unfinished = Match.begin(kings_and_a_hidden_aaa()).play(AAA_MOVE)
    write_save(app.save_dir / "b-unfinished.wecsave", unfinished)
    finished = unfinished.play(EndTurn()).play(KING_TAKES_KING)
    write_save(app.save_dir / "a-finished.wecsave", finished)
    app.main_menu()
    click(app, widget_px(app.base, "menu-replays"))
    listed = app.screen
    assert listed.frame.getName() == "replays"
    assert [e.path.name for e in listed.entries] == ["a-finished.wecsave",
                                                     "b-unfinished.wecsave"]
    first = listed.entries[0].text
    assert "Black monarchy v White monarchy   2 turns   White won" in first
    assert listed.entries[1].text.endswith("in progress")
    click(app, widget_px(app.base, "replay-0"))
    screen = app.screen
    assert isinstance(screen, ReplayScreen) and screen.replay.length == 3
    key(app, "escape")
    assert app.screen.frame.getName() == "replays"


def test_an_unfinished_competitive_game_is_refused(app: WecApp, tmp_path: Path) -> None:
    match = Match.begin(kings_and_a_hidden_aaa()).go_competitive().play(AAA_MOVE)
    refused = app.open_replay(match)
    assert refused.frame.getName() == "main-menu"
    assert refused.notice.getText() == R14_3_REFUSAL
    assert app.save_dir is not None
    app.save_dir.mkdir(parents=True)
    write_save(app.save_dir / "competitive.wecsave", match)
    click(app, widget_px(app.base, "menu-replays"))
    listed = app.screen
    assert listed.entries[0].text.endswith(
        "competitive   competitive, in progress: no replay before it ends (R14.3)")
    click(app, widget_px(app.base, "replay-0"))
    assert app.screen.frame.getName() == "replays"
    assert app.screen.notice.getText() == R14_3_REFUSAL


def test_a_notation_file_is_rebuilt_and_replayed(app: WecApp, tmp_path: Path,
                                                 game: Match) -> None:
    """``wec replay --notation``: the R16 notation file rebuilds the same game."""
    path = tmp_path / "game.wecnotation"
    path.write_text(notation_file_text(Replay.of_match(game)), encoding="utf-8")
    screen = app.open_replay(path, notation=True)
    assert isinstance(screen, ReplayScreen), getattr(screen, "notice", screen)
    assert screen.replay.length == len(game.actions)
    key(app, "end")
    assert_shows(screen, len(game.actions), None)
    assert screen.scene.view == game.current
    key(app, "escape")
    censored = tmp_path / "black.wecnotation"
    censored.write_text(notation_file_text(Replay.of_match(game), Side.BLACK),
                        encoding="utf-8")
    refused = app.open_replay(censored, notation=True)
    assert refused.frame.getName() == "main-menu"
    assert refused.notice.getText().startswith(
        f"cannot replay {censored}: R14.3: this is black's censored copy")


def test_wec_replay_refuses_a_bad_file_before_opening_a_window(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "broken.wecsave"
    bad.write_bytes(b"not a save")
    assert run_replay(bad, notation=False) == 1
    message = capsys.readouterr().err
    assert message.startswith(f"wec replay: cannot replay {bad}: not a wec saved game")
    words = tmp_path / "words.wecnotation"
    words.write_text("hello\n", encoding="utf-8")
    assert run_replay(words, notation=True) == 1
    assert capsys.readouterr().err == (f"wec replay: cannot replay {words}: line 1: R16.1: "
                                       "expected 'MV:' at column 1, found 'hello'\n")
    match = Match.begin(kings_and_a_hidden_aaa()).go_competitive().play(AAA_MOVE)
    competitive = tmp_path / "competitive.wecsave"
    write_save(competitive, match)
    assert run_replay(competitive, notation=False) == 1
    assert capsys.readouterr().err == f"wec replay: {competitive}: {R14_3_REFUSAL}\n"


@pytest.mark.parametrize("window", [(1024, 768), (1280, 800)])
def test_no_panel_covers_the_replayed_board(app: WecApp, tmp_path: Path, game: Match,
                                             window: tuple[int, int]) -> None:
    """The board is framed between the history list, the buttons and the timeline bar,
    from both sides (until session 22 its first two columns were behind the history
    list and its first row behind the bar)."""
    from test_client_play import board_outline, overlaps, resize, widget_rects

    resize(app, window)
    try:
        screen = open_saved(app, tmp_path, game)
        for side in (None, Side.BLACK, Side.WHITE):
            if side is not None:
                screen.set_perspective(side)
            app.base.graphicsEngine.renderFrame()
            outline = board_outline(app.base)
            rects = widget_rects(app.base, app.base.aspect2d)
            assert len(rects) > 10
            assert [name for name, rect in rects if overlaps(outline, rect)] == [], side
        screen.leave()
        assert tuple(app.base.camLens.getFilmOffset()) == (0, 0)  # for the next screen
    finally:
        resize(app, (1024, 768))


def test_a_sides_steps_read_in_plain_words_naming_their_side_once(game: Match) -> None:
    """Seen from a side: its own steps in the history's words (never an intent's
    identifiers, "move rocket_pawn ..."), the enemy's as that side saw them, each line
    naming its side once ("White: White Tank ..." read twice), an enemy step seen not at
    all by its kind alone."""
    from wec.client.replay import step_line

    replay = Replay.of_match(game)
    for perspective in (Side.BLACK, Side.WHITE):
        for step in range(1, replay.length + 1):
            line = step_line(replay, step, perspective)
            side = replay.steps[step - 1].side.title
            assert "_" not in line, line
            assert line.count(f"{side}:") + line.count(f"{side} ") >= 1, line
            assert f"{side}: {side}" not in line, line
            if replay.steps[step - 1].side is not perspective and "do not see" in line:
                assert line.endswith(" you do not see"), line


def test_step_lines_name_the_piece_and_read_as_each_side_knew_them() -> None:
    """Exact lines of a short game: a Move whose intent leaves its piece's kind out is
    named from the position (the "Everything" view read "2. Black (9,10) ground -> ..."),
    a direction reads in the board's numbers, and White reads Black's Flame with what
    it did."""
    from wec.client.replay import step_line
    from wec.engine.intents import Fire
    from wec.engine.pieces import ArticleKind

    fired = Match.begin(standard_position()).play(
        Fire(262, ArticleKind.FLAME, dir=(0, 1), kind=PieceKind.FLAME_PAWN))
    game = fired.play(Move(268, 235)).play(EndTurn())
    replay = Replay.of_match(game)
    own = ["1. Black Flame Pawn (9,8) ground fires flame toward column 10",
           "2. Black Rocket Pawn (9,10) ground -> (8,9) ground",
           "3. Black ends turn 1"]
    lines = {side: [step_line(replay, step, side) for step in (1, 2, 3)]
             for side in (None, Side.BLACK, Side.WHITE)}
    assert lines[None] == own and lines[Side.BLACK] == own
    assert lines[Side.WHITE] == [
        "1. Black Flame Pawn at (9,8) ground fires Flame toward column 10; Black Stunner "
        "Pawn at (9,9) ground hit by Flame: 1 hit; Black Stunner Pawn destroyed at (9,9) "
        "ground (flame)", *own[1:]]
