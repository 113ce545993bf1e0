"""The board editor screen and the new-game screen's starts and preferences, driven
through the real client offscreen (real OpenGL) with the virtual mouse: R14.4, R13.1,
issue 5 items 4, 6, 7 and issue 6 item 8."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from wec.client.app import WecApp
from wec.client.editor import EditorScreen
from wec.client.play import PlayScreen
from wec.client.settings import Settings
from wec.engine import board
from wec.engine.board import AIR, GROUND, Level
from wec.engine.editor import Editor
from wec.engine.encoding import state_hash
from wec.engine.options import Options
from wec.engine.pieces import Hand, PieceKind, Side
from wec.engine.setup import standard_position
from wec.storage.preferences import preferences_path
from wec.storage.scenarios import load_scenario, scenario_description

K = PieceKind


@pytest.fixture
def app(panda_base: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[WecApp]:
    """The client with every folder it writes in ``tmp_path`` (never the real home)."""
    monkeypatch.setenv("WEC_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    made = WecApp(base=panda_base, settings=Settings(), settings_file=tmp_path / "s.json")
    made.boards_dir = tmp_path / "boards"
    made.save_dir = tmp_path / "saves"
    yield made
    made.close()


def widget_px(base: Any, name: str) -> tuple[int, int]:
    """Pixel centre of the named 2D widget."""
    from panda3d.core import Point3

    node = base.aspect2d.find(f"**/{name}")
    assert not node.isEmpty(), f"no widget {name} on screen"
    left, right, bottom, top = node.node().getFrame()
    centre = base.render2d.getRelativePoint(node, Point3((left + right) / 2, 0,
                                                          (bottom + top) / 2))
    width, height = base.win.getXSize(), base.win.getYSize()
    return int((centre.x + 1) / 2 * width), int((1 - centre.z) / 2 * height)


def cell_px(base: Any, row: int, col: int, level: Level = GROUND,
            offset: tuple[float, float] = (0.0, 0.0)) -> tuple[int, int]:
    """Pixel where a cell's floor centre (or a point ``offset`` squares from it) is."""
    from panda3d.core import Point2, Point3

    from wec.client.layout import cell_xyz

    x, y, z = cell_xyz(board.cell(board.square(row, col), level))
    seen = base.cam.getRelativePoint(base.render, Point3(x + offset[0], y + offset[1],
                                                          z + 0.05))
    flat = Point2()
    assert base.camLens.project(seen, flat), f"({row},{col}) is off screen"
    width, height = base.win.getXSize(), base.win.getYSize()
    return int((flat.x + 1) / 2 * width), int((1 - flat.y) / 2 * height)


def click(app: WecApp, at: tuple[int, int]) -> None:
    assert app.pointer is not None
    app.pointer.click(*at)


def press(app: WecApp, name: str) -> None:
    click(app, widget_px(app.base, name))


def click_cell(app: WecApp, row: int, col: int, level: Level = GROUND) -> None:
    click(app, cell_px(app.base, row, col, level))


def pixel(app: WecApp, at: tuple[int, int]) -> tuple[int, int, int]:
    from panda3d.core import PNMImage

    app.base.graphicsEngine.renderFrame()
    app.base.graphicsEngine.renderFrame()
    image = PNMImage()
    assert app.base.win.getScreenshot(image)
    x, y = at
    return (round(image.getRed(x, y) * 255), round(image.getGreen(x, y) * 255),
            round(image.getBlue(x, y) * 255))


def open_editor(app: WecApp) -> EditorScreen:
    press(app, "menu-editor")
    assert isinstance(app.screen, EditorScreen)
    return app.screen


def pieces(position: Any) -> list[tuple[Side, PieceKind, tuple[int, int], Level, Hand | None]]:
    return sorted(((p.side, p.kind, (p.row, p.col), p.level, p.hand) for p in position.pieces),
                  key=lambda t: (t[0].value, t[1].value, t[2], t[3]))


def two_kings() -> Editor:
    """What the clicks of the first test build: a White King on (1,5), a Black one on
    (10,6), from the cleared standard setup at turn 1 with the standard options."""
    return (Editor(standard_position()).clear()
            .add_piece(Side.WHITE, K.KING, (1, 5))
            .add_piece(Side.BLACK, K.KING, (10, 6)))


# ---------------------------------------------------------------- the editor


def test_the_editor_opens_from_the_main_menu_on_the_standard_setup(app: WecApp) -> None:
    editor = open_editor(app)
    assert editor.position == standard_position()
    assert editor.status.getText() == ("Turn 1, Black to start - 56 pieces, 68 articles, "
                                       "20 reinforcements")
    assert editor.problem_lines() == []
    assert editor.problems_panel.text() == ("None: the board is a valid start. "
                                            "Play it or save it.")
    assert editor.buttons["editor-play"]["state"] == "normal"
    # every piece is drawn, hidden ones too (the editor sees everything): 56 pieces
    assert sum(1 for p in editor.position.pieces if editor.scene.piece_node(p.pid)) == 56


def test_build_a_board_by_clicking_see_its_problems_fix_them_and_play_it(app: WecApp) -> None:
    editor = open_editor(app)
    press(app, "editor-clear")
    assert editor.position.pieces == () and editor.position.reinforcements == ()
    assert editor.problem_lines() == ["R14.4(d): Black has no legal Move",
                                      "R14.4(d): White has no legal Move"]
    assert editor.buttons["editor-play"]["state"] == "disabled"

    click_cell(app, 1, 5)  # the palette starts on a White King at Ground
    assert pieces(editor.position) == [(Side.WHITE, K.KING, (1, 5), GROUND, None)]
    assert editor.note.getText() == "Placed the White King at (1,5) ground"
    assert editor.problem_lines() == ["R14.4(d): Black has no legal Move"]
    assert editor.problems_panel.text() == "R14.4(d): Black has no legal Move"
    assert app.pointer is not None
    app.pointer.step(2)  # the pointer rests on (1,5): the panel says what is there
    assert editor.square_panel.text() == "Square (1,5)\nground: White King"

    press(app, "editor-side-black")
    click_cell(app, 10, 6)
    assert pieces(editor.position) == [(Side.BLACK, K.KING, (10, 6), GROUND, None),
                                       (Side.WHITE, K.KING, (1, 5), GROUND, None)]
    assert editor.problem_lines() == []
    assert editor.buttons["editor-play"]["state"] == "normal"

    press(app, "editor-play")
    assert isinstance(app.screen, PlayScreen)
    expected = two_kings().start_position()
    assert app.screen.session.match.current_hash == state_hash(expected)
    assert app.screen.status["text"] == "Turn 1 - Black to act"


def test_a_problem_square_glows_red_until_the_edit_is_undone(app: WecApp) -> None:
    editor = open_editor(app)
    press(app, "editor-clear")
    click_cell(app, 1, 5)
    press(app, "editor-side-black")
    click_cell(app, 10, 6)
    editor.choose("kind", "Ground: Tank")
    editor.choose("hand", "left")
    press(app, "editor-side-white")
    click_cell(app, 1, 5)  # a Tank onto the White King's square
    assert editor.problem_lines() == [
        "R14.4(a): R1.6(c): a King and a Tank share (1,5) ground but neither can coexist"]
    shared = board.cell(board.square(1, 5), GROUND)
    assert editor.scene.lit_cells() == [shared]
    assert editor.buttons["editor-play"]["state"] == "disabled"
    # the square glows red beside the pieces; the same-coloured empty (1,3) stays plain
    red, green, blue = pixel(app, cell_px(app.base, 1, 5, offset=(0.3, -0.3)))
    plain = pixel(app, cell_px(app.base, 1, 3, offset=(0.3, -0.3)))
    assert red - green > 100 and red - blue > 100, f"red glow: {(red, green, blue)}"
    assert abs(plain[0] - plain[1]) < 40, f"plain square: {plain}"

    press(app, "editor-undo")
    assert editor.note.getText() == "Undone: placed the White Tank (left) at (1,5) ground"
    assert editor.problem_lines() == [] and editor.scene.lit_cells() == []
    press(app, "editor-redo")
    assert editor.problem_lines()[0].startswith("R14.4(a): R1.6(c)")
    press(app, "editor-undo")
    assert editor.position == two_kings().position


def test_remove_by_clicking_with_a_chooser_for_a_shared_square(app: WecApp) -> None:
    editor = open_editor(app)
    press(app, "editor-clear")
    editor.choose("kind", "Air: Chopper")
    click_cell(app, 4, 4)  # a White right-handed Chopper at Ground
    editor.choose("kind", "Pawn: Flame Pawn")
    click_cell(app, 4, 4)  # and a Flame Pawn beside it (a Chopper coexists, R1.6(c))
    assert pieces(editor.position) == [(Side.WHITE, K.CHOPPER, (4, 4), GROUND, Hand.RIGHT),
                                       (Side.WHITE, K.FLAME_PAWN, (4, 4), GROUND, None)]
    press(app, "editor-tool-remove")
    click_cell(app, 4, 4)
    assert editor.popup is not None
    assert [b["text"] for b in editor.popup.buttons] == [
        "White Chopper (right) at (4,4) ground", "White Flame Pawn at (4,4) ground",
        "Cancel (Esc)"]
    press(app, "choice-1")
    assert editor.popup is None
    assert pieces(editor.position) == [(Side.WHITE, K.CHOPPER, (4, 4), GROUND, Hand.RIGHT)]
    assert editor.note.getText() == "Removed the White Flame Pawn at (4,4) ground"
    click_cell(app, 4, 4)  # one thing left: removed at once
    assert editor.position.pieces == ()
    press(app, "editor-undo")
    press(app, "editor-undo")
    assert len(editor.position.pieces) == 2


def test_articles_reinforcements_and_carried_articles_from_the_palette(app: WecApp) -> None:
    editor = open_editor(app)
    press(app, "editor-clear")
    editor.choose("article", "Bike")
    click_cell(app, 5, 5)
    assert editor.position.ground_articles[board.square(5, 5)] == (
        board_article("bike"),)
    editor.choose("kind", "Government: Queen")
    editor.choose("carry0", "Stealth")
    click_cell(app, 2, 2, GROUND)
    queen = next(p for p in editor.position.pieces if p.kind is K.QUEEN)
    assert queen.articles == (board_article("stealth"),)
    editor.choose("carry0", "nothing")
    editor.choose("kind", "Air: Jet")
    editor.choose("level", "Air")
    click_cell(app, 3, 3, AIR)
    assert any(p.kind is K.JET and p.level is AIR and (p.row, p.col) == (3, 3)
               for p in editor.position.pieces)
    click(app, widget_px(app.base, "editor-reinforcement"))
    click_cell(app, 10, 2)  # a reinforcement waits for its activation square (10,2)
    waiting = editor.position.reinforcements
    assert [(r.side, r.kind, r.sq) for r in waiting] == [(Side.WHITE, K.JET,
                                                          board.square(10, 2))]
    assert editor.note.getText() == "Placed a White Jet reinforcement waiting at (10,2) (R10)"
    click(app, widget_px(app.base, "editor-reinforcement"))  # back to pieces on the board
    editor.choose("kind", "Pawn: Rocket Pawn")
    editor.choose("level", "Ground")
    editor.choose("stun", "2 turns")
    click_cell(app, 6, 6)
    pawn = next(p for p in editor.position.pieces if p.kind is K.ROCKET_PAWN)
    assert pawn.stunned_until == 3  # R7.1: stunned in turns 1 and 2
    editor.choose("projectile", "sam")
    editor.choose("direction", "NE")
    assert editor.palette.tool == "projectile"
    click_cell(app, 7, 2, AIR)  # a SAM flies at Air (R6.8.1)
    shots = [(pr.kind, pr.side, (board.row_of(pr.sq), board.col_of(pr.sq)), pr.level, pr.dir)
             for pr in editor.position.projectiles]
    assert shots == [("sam", Side.WHITE, (7, 2), AIR, (1, 1))]


def board_article(name: str) -> Any:
    from wec.engine.pieces import ArticleKind

    return ArticleKind(name)


def test_a_scenario_loaded_into_the_editor(app: WecApp) -> None:
    editor = open_editor(app)
    press(app, "editor-scenario")
    assert editor.popup is not None
    labels = [b["text"] for b in editor.popup.buttons]
    press(app, f"choice-{labels.index('air_war')}")
    assert state_hash(editor.position) == state_hash(load_scenario("air_war"))
    assert editor.note.getText() == ("Loaded the scenario air_war: "
                                     + scenario_description("air_war"))
    assert editor.problem_lines() == []
    press(app, "editor-undo")
    assert editor.position == standard_position()


def test_save_a_board_load_it_back_and_start_a_new_game_from_it(app: WecApp) -> None:
    editor = open_editor(app)
    press(app, "editor-clear")
    click_cell(app, 1, 5)
    press(app, "editor-side-black")
    click_cell(app, 10, 6)
    press(app, "editor-board-name")  # typing a name: the keys go to the entry
    assert editor.name_entry.guiItem.getFocus()
    editor.name_entry.enterText("two kings")
    press(app, "editor-save")
    saved = app.boards_folder() / "two-kings.json"
    assert editor.note.getText() == f"Saved the board as two-kings.json in {saved.parent}"
    assert json.loads(saved.read_text(encoding="utf-8"))["format"] == "wec-position/1"
    assert not [p for p in saved.parent.iterdir() if p.name.endswith(".tmp")]

    press(app, "editor-clear")
    click_cell(app, 5, 5)  # a click on the board ends the typing and places a King
    assert not editor.name_entry.guiItem.getFocus() and len(editor.position.pieces) == 1
    press(app, "editor-load")
    assert [b["text"] for b in editor.popup.buttons] == ["two-kings", "Cancel (Esc)"]
    press(app, "choice-0")
    assert state_hash(editor.position) == state_hash(two_kings().position)

    press(app, "editor-back")
    press(app, "menu-new")
    screen = app.screen
    screen.choose_start("Saved board: two-kings")
    assert screen.error.getText() == ""
    press(app, "start")
    assert isinstance(app.screen, PlayScreen)
    assert app.screen.session.match.current_hash == state_hash(two_kings().start_position())


def test_a_saved_board_with_problems_is_refused_as_a_start(app: WecApp) -> None:
    editor = open_editor(app)
    press(app, "editor-clear")
    editor.name_entry.enterText("empty")
    press(app, "editor-save")  # work in progress may be saved
    press(app, "editor-back")
    press(app, "menu-new")
    screen = app.screen
    screen.choose_start("Saved board: empty")
    refusal = ("cannot start from empty.json: not a valid start board (2 problems): "
               "R14.4(d): Black has no legal Move; R14.4(d): White has no legal Move")
    assert screen.error.getText() == refusal
    press(app, "start")
    assert app.screen is screen and screen.error.getText() == refusal


def test_the_editor_from_a_game_and_refused_in_competitive_mode(app: WecApp) -> None:
    press(app, "menu-new")
    press(app, "start")
    play = app.screen
    click_cell(app, 9, 2)
    click_cell(app, 7, 4)  # Black's Stunner Pawn moves
    session, current = play.session, play.session.current
    press(app, "edit-board")
    editor = app.screen
    assert isinstance(editor, EditorScreen) and editor.from_game
    assert editor.position == current  # R14.4: the current position is the edit buffer
    assert app.pointer is not None
    app.pointer.key("escape")  # Esc leaves the editor like Back
    assert isinstance(app.screen, PlayScreen) and app.screen.session is session
    play = app.screen
    press(app, "competitive")
    press(app, "banner-0")
    assert app.pointer is not None
    app.pointer.key("b")
    assert app.screen is play
    assert play.note["text"] == "R14.3: no board editor in competitive mode"


# ---------------------------------------------------------------- the new-game screen


def test_a_new_game_from_a_scenario_is_exactly_that_scenario(app: WecApp) -> None:
    press(app, "menu-new")
    screen = app.screen
    assert screen.description.getText().startswith("The standard game: the setup of R15")
    screen.choose_start("Scenario: open_information")
    assert screen.description.getText() == scenario_description("open_information")
    # the scenario's own options are on screen: O15 and O16 off
    assert screen.widgets["stealth_invisibility"]["indicatorValue"] == 0
    assert screen.widgets["submersion_invisibility"]["indicatorValue"] == 0
    press(app, "start")
    assert isinstance(app.screen, PlayScreen)
    assert app.screen.session.match.current_hash == state_hash(
        load_scenario("open_information"))


def test_a_scenario_with_another_government_swaps_the_government_pieces(
        app: WecApp) -> None:
    press(app, "menu-new")
    screen = app.screen
    screen.choose_start("Scenario: king_hunt")
    screen.widgets["government.black"].set(
        screen.widgets["government.black"]["items"].index("Theocracy"))
    press(app, "start")
    start = app.screen.session.current
    black = {(p.row, p.col): p.kind for p in start.pieces if p.side is Side.BLACK}
    assert black[(7, 6)] is K.AVATAR  # R11.1: on the King's square
    assert K.KING not in black.values() and K.QUEEN not in black.values()
    assert K.ACOLYTE in black.values()
    assert start.options.government_black.value == "theocracy"


def test_save_as_my_defaults_then_the_screen_reopens_with_them(app: WecApp) -> None:
    press(app, "menu-new")
    screen = app.screen
    tank = screen.widgets["tank_range"]
    tank.set(tank["items"].index("8"))
    screen.widgets["government.white"].set(
        screen.widgets["government.white"]["items"].index("Democracy"))
    press(app, "save-defaults")
    path = preferences_path()
    assert path.is_file() and str(path).startswith(str(Path(app.boards_folder()).parent))
    assert screen.notice.getText() == f"Saved as your defaults ({path})"
    press(app, "back")
    press(app, "menu-new")
    reopened = app.screen
    assert reopened is not screen
    tank = reopened.widgets["tank_range"]
    assert tank.get() == "8" and reopened.widgets["government.white"].get() == "Democracy"
    assert reopened.chosen().tank_range == 8
    press(app, "restore-defaults")
    assert reopened.chosen() == Options() and not path.exists()
    assert reopened.widgets["tank_range"].get() == "7"
    assert reopened.notice.getText() == ("Standard defaults restored (R13.1); new games start "
                                         "with them")


def test_damaged_preferences_are_named_and_the_standard_defaults_used(app: WecApp) -> None:
    path = preferences_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{not json", encoding="utf-8")
    press(app, "menu-new")
    screen = app.screen
    assert screen.error.getText() == (f"{path}: not valid JSON: line 1 column 2: Expecting "
                                      "property name enclosed in double quotes; using the "
                                      "standard defaults (R13.1)")
    assert screen.chosen() == Options()
    assert path.read_text(encoding="utf-8") == "{not json"


def test_the_editor_hands_its_options_to_the_options_screen(app: WecApp) -> None:
    editor = open_editor(app)
    press(app, "editor-options")
    options = editor.options_screen
    assert options is not None and editor.scene.root.isHidden()
    tank = options.widgets["tank_range"]
    tank.set(tank["items"].index("6"))
    press(app, "start")  # "Use these options"
    assert editor.options_screen is None and not editor.scene.root.isHidden()
    assert editor.position.options.tank_range == 6
    assert editor.note.getText() == "Options set: tank_range 6"
    press(app, "editor-undo")
    assert editor.position.options == Options()


@pytest.mark.parametrize("window", [(1024, 768), (1280, 800)])
def test_no_panel_covers_the_edited_board(app: WecApp, window: tuple[int, int]) -> None:
    """The board is framed between the palette, the buttons, the status lines and the
    problems panel (in a 1024 x 768 window its left edge ran under the palette), and a
    click still lands on the square under the pointer."""
    from test_client_play import board_outline, overlaps, resize, widget_rects

    resize(app, window)
    try:
        screen = open_editor(app)
        app.base.graphicsEngine.renderFrame()
        outline = board_outline(app.base)
        rects = widget_rects(app.base, app.base.aspect2d)
        assert len(rects) > 10
        assert [name for name, rect in rects if overlaps(outline, rect)] == []
        press(app, "editor-clear")
        screen.choose("kind", "Pawn: Flame Pawn")
        click_cell(app, 1, 1)  # the corners: a click lands on the square under it
        click_cell(app, 10, 10)
        assert [place for _, _, place, _, _ in pieces(screen.position)] == [(1, 1),
                                                                           (10, 10)]
        screen.back()
        assert tuple(app.base.camLens.getFilmOffset()) == (0, 0)  # for the next screen
    finally:
        resize(app, (1024, 768))
