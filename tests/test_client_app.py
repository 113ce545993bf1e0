"""End to end: the real client, rendering offscreen with real OpenGL, driven by a virtual
mouse and keyboard through Panda3D's own MouseWatcher and ButtonThrower."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from panda3d.core import GeomVertexReader

from wec.client.app import WecApp
from wec.client.interaction import Highlight
from wec.client.settings import Settings
from wec.engine import board
from wec.engine.board import GROUND, Level
from wec.engine.pieces import PieceKind, Side


@pytest.fixture
def app(panda_base: Any, tmp_path: Path) -> Iterator[WecApp]:
    made = WecApp(base=panda_base, settings=Settings(), settings_file=tmp_path / "s.json")
    yield made
    made.close()


def size(base: Any) -> tuple[int, int]:
    return base.win.getXSize(), base.win.getYSize()


def widget_px(base: Any, name: str) -> tuple[int, int]:
    """Pixel centre of the named 2D widget (buttons are named after what they do)."""
    node = base.aspect2d.find(f"**/{name}")
    assert not node.isEmpty(), f"no widget {name} on screen"
    from panda3d.core import Point3

    left, right, bottom, top = node.node().getFrame()  # a PGItem's clickable frame
    centre = base.render2d.getRelativePoint(node, Point3((left + right) / 2, 0,
                                                          (bottom + top) / 2))
    width, height = size(base)
    x, z = centre.x, centre.z
    return int((x + 1) / 2 * width), int((1 - z) / 2 * height)


def cell_px(base: Any, row: int, col: int, level: Level = GROUND,
            offset: tuple[float, float] = (0.0, 0.0)) -> tuple[int, int]:
    """Pixel where the centre of a cell's floor (or a point ``offset`` from it, in
    squares) appears on screen."""
    from panda3d.core import Point2, Point3

    from wec.client.layout import cell_xyz

    x, y, z = cell_xyz(board.cell(board.square(row, col), level))
    seen = base.cam.getRelativePoint(base.render, Point3(x + offset[0], y + offset[1],
                                                          z + 0.05))
    flat = Point2()
    assert base.camLens.project(seen, flat), f"({row},{col}) is off screen"
    width, height = size(base)
    return int((flat.x + 1) / 2 * width), int((1 - flat.y) / 2 * height)


def click(app: WecApp, at: tuple[int, int], button: int = 1) -> None:
    assert app.pointer is not None
    app.pointer.click(*at, button=button)


def pixel(app: WecApp, at: tuple[int, int]) -> tuple[int, int, int]:
    from panda3d.core import PNMImage

    app.base.graphicsEngine.renderFrame()
    app.base.graphicsEngine.renderFrame()
    image = PNMImage()
    assert app.base.win.getScreenshot(image)
    x, y = at
    return (round(image.getRed(x, y) * 255), round(image.getGreen(x, y) * 255),
            round(image.getBlue(x, y) * 255))


def start_standard_game(app: WecApp) -> Any:
    click(app, widget_px(app.base, "menu-new"))
    assert app.screen.frame.getName() == "new-game"
    click(app, widget_px(app.base, "start"))
    from wec.client.play import PlayScreen

    assert isinstance(app.screen, PlayScreen)
    return app.screen


def test_the_renderer_is_real_opengl(app: WecApp) -> None:
    gsg = app.base.win.getGsg()
    assert gsg.getSupportsGlsl()
    assert app.shading.glsl and app.shading.message is None


def test_a_hotseat_move_by_mouse_from_the_main_menu(app: WecApp) -> None:
    play = start_standard_game(app)
    assert play.status["text"] == "Turn 1 - Black to act"
    click(app, cell_px(app.base, 9, 2))  # Black's Stunner Pawn
    lit = play.scene.lit_cells()
    expected = [board.cell(board.square(r, c), GROUND) for r, c in ((7, 4), (8, 1), (8, 3))]
    assert sorted(lit) == sorted([*expected, board.cell(board.square(9, 2), GROUND)])
    assert play.interaction.highlights()[expected[0]] is Highlight.MOVE
    # Away from the article tokens (at the square's far corners): the glow is yellow.
    # Compared with an unlit square of the same colour, (5,4): blue drops, red stays.
    red, green, blue = pixel(app, cell_px(app.base, 7, 4, offset=(0.0, -0.38)))
    plain_red, plain_green, plain_blue = pixel(app, cell_px(app.base, 5, 4, offset=(0.0, -0.38)))
    assert red >= plain_red and green >= plain_green - 10, "the glow is bright"
    assert plain_blue - blue > 40, f"the glow is yellow: {(red, green, blue)}"
    click(app, cell_px(app.base, 7, 4))
    moved = [p for p in play.session.current.pieces if p.sq == board.square(7, 4)]
    assert [(p.side, p.kind) for p in moved] == [(Side.BLACK, PieceKind.STUNNER_PAWN)]
    assert play.history[0] == "1. Black Stunner Pawn (9,2) ground -> (7,4) ground"
    assert play.scene.lit_cells() == []


def test_an_illegal_click_explains_why_in_one_line(app: WecApp) -> None:
    play = start_standard_game(app)
    click(app, cell_px(app.base, 9, 2))
    click(app, cell_px(app.base, 5, 5))
    assert play.note["text"] == ("R5.3.1: a Stunner Pawn at (9,2) ground cannot reach "
                                 "(5,5) ground")
    assert len(play.session.match.history) == 0


def test_end_turn_hands_the_seat_over_behind_a_curtain(app: WecApp) -> None:
    play = start_standard_game(app)
    click(app, cell_px(app.base, 9, 2))
    click(app, cell_px(app.base, 7, 4))
    assert app.pointer is not None
    app.pointer.key("e")
    assert play.cover is not None and play.cover.frame.getName() == "hand-over"
    assert play.scene.root.isHidden() and play.hud.isHidden()
    click(app, widget_px(app.base, "banner-0"))
    assert play.cover is None and not play.scene.root.isHidden()
    assert play.status["text"] == "Turn 2 - White to act"
    # White's view: Black's AAAs start hidden (R15), so White sees none of them.
    shown = {(p.side, p.kind) for p in play.interaction.view.pieces}
    assert (Side.BLACK, PieceKind.AAA) not in shown and (Side.WHITE, PieceKind.AAA) in shown
    assert play.camera.orbit.eye()[1] < 0  # behind White's home rows


def test_undo_steps_back_one_action(app: WecApp) -> None:
    play = start_standard_game(app)
    start_hash = play.session.match.current_hash
    click(app, cell_px(app.base, 9, 2))
    click(app, cell_px(app.base, 7, 4))
    assert app.pointer is not None
    app.pointer.key("u")
    assert play.session.match.current_hash == start_hash
    assert play.note["text"] == (
        "Undone: Black Stunner Pawn (9,2) ground -> (7,4) ground (R14.2)")


def test_a_forbidden_option_combination_is_refused_on_the_options_screen(
        app: WecApp) -> None:
    click(app, widget_px(app.base, "menu-new"))
    screen = app.screen
    screen.set_option("sub_jet_combat", True)
    click(app, widget_px(app.base, "start"))
    assert screen is app.screen  # still on the options screen
    assert screen.error.getText() == (
        "options.sub_jet_combat: O4 sub_jet_combat may be true only with action_restriction "
        "move_only and movement_system standard_chess or mass_destruction (R5.6.1)")


def test_level_toggles_fade_a_level(app: WecApp) -> None:
    play = start_standard_game(app)
    click(app, widget_px(app.base, "level-air"))
    assert play.scene.layer_shown[board.AIR] is False
    assert abs(play.scene.levels[board.AIR].getColorScale()[3] - 0.12) < 1e-3
    assert app.pointer is not None
    app.pointer.key("1")
    assert play.scene.layer_shown[board.AIR] is True


def test_a_screenshot_shows_the_board(app: WecApp, tmp_path: Path) -> None:
    start_standard_game(app)
    shot = tmp_path / "board.png"
    app.screenshot(shot)
    from panda3d.core import PNMImage

    image = PNMImage(str(shot))
    width, height = image.getXSize(), image.getYSize()
    colours = {(round(image.getRed(x, y), 1), round(image.getGreen(x, y), 1),
                round(image.getBlue(x, y), 1))
               for x in range(0, width, 16) for y in range(0, height, 16)}
    assert len(colours) > 40, "a board with pieces, not an empty frame"


def test_fire_by_right_click_then_a_lit_square(app: WecApp) -> None:
    play = start_standard_game(app)
    click(app, cell_px(app.base, 9, 2), button=3)  # Black's Stunner Pawn: its Stunner
    ahead = board.cell(board.square(8, 2), GROUND)
    assert play.interaction.highlights()[ahead] is Highlight.AIM
    click(app, cell_px(app.base, 8, 2))
    assert play.history == [
        "1. Black Stunner Pawn at (9,2) ground fires Stunner toward row 1; White Stunner "
        "Pawn at (2,2) ground hit by Stunner: 1 hit, 1 defence"]
    firer = next(p for p in play.session.current.pieces if p.cell == board.cell(
        board.square(9, 2), GROUND))
    status = play.scene.piece_node(firer.pid).find("status/line")
    # R6.3.2: ready again at turn 5; Black's own turns 1 and 3 are still to wait
    assert status.node().getText() == "Stunner 2"


def test_keyboard_square_entry_selects_and_moves(app: WecApp) -> None:
    play = start_standard_game(app)
    assert app.pointer is not None
    app.pointer.key("k")
    assert play.entry is not None
    play.type_square("9,2")
    assert play.interaction.selection is not None
    play.type_square("7,4")
    assert [p.kind for p in play.session.current.pieces if p.sq == board.square(7, 4)] == [
        PieceKind.STUNNER_PAWN]
    play.type_square("12,1")
    assert play.note["text"] == "R1.1: (12,1) is off the board (rows and columns 1-10)"


def test_switching_to_competitive_is_confirmed_and_turns_undo_off(app: WecApp) -> None:
    play = start_standard_game(app)
    click(app, cell_px(app.base, 9, 2))
    click(app, cell_px(app.base, 7, 4))
    assert not play.undo_button.isHidden()
    click(app, widget_px(app.base, "competitive"))
    assert play.banner is not None and play.banner.frame.getName() == "competitive-confirm"
    click(app, widget_px(app.base, "banner-0"))
    assert play.session.match.competitive
    assert play.undo_button.isHidden() and play.competitive_button.isHidden()
    before = play.session.match.current_hash
    assert app.pointer is not None
    app.pointer.key("u")  # refused quietly: nothing is undone
    assert play.session.match.current_hash == before
    assert play.history[0] == "1. Black Stunner Pawn (9,2) ground -> (7,4) ground"


def test_the_status_screen_shows_only_what_the_viewer_sees(app: WecApp) -> None:
    play = start_standard_game(app)
    assert app.pointer is not None
    app.pointer.key("f2")
    assert play.status_panel is not None
    text = play.status_panel.text()
    assert "Turn 1, Black to act; non-competitive (undo on, R14.2)" in text
    assert "Options: the standard game" in text
    assert "Black: 28 pieces, government monarchy" in text
    assert "White: 26 pieces seen, government monarchy" in text  # two AAAs hidden (R15)


def test_save_and_load_resume_the_same_game(app: WecApp, tmp_path: Path) -> None:
    app.save_dir = tmp_path / "saves"
    play = start_standard_game(app)
    click(app, cell_px(app.base, 9, 2))
    click(app, cell_px(app.base, 7, 4))
    played_hash = play.session.match.current_hash
    click(app, widget_px(app.base, "save"))
    saves = sorted(app.save_dir.glob("*.wecsave"))
    assert len(saves) == 1 and play.note["text"] == f"Saved as {saves[0].name}"
    click(app, widget_px(app.base, "menu"))
    click(app, widget_px(app.base, "menu-load"))
    click(app, widget_px(app.base, "save-0"))
    resumed = app.screen
    assert resumed.session.match.current_hash == played_hash
    assert resumed.history[0] == "1. Black Stunner Pawn (9,2) ground -> (7,4) ground"
    assert resumed.session.can_undo  # the whole history came back (R14.2)


def test_a_damaged_save_is_refused_on_the_menu_and_left_untouched(
        app: WecApp, tmp_path: Path) -> None:
    bad = tmp_path / "broken.wecsave"
    bad.write_bytes(b"\x94\xa8wec-save\x01")
    app.open_position(bad)
    assert app.screen.frame.getName() == "main-menu"
    assert str(bad) in app.screen.notice.getText()
    assert bad.read_bytes() == b"\x94\xa8wec-save\x01"


def test_settings_are_changed_by_clicking_and_kept_for_the_next_start(
        app: WecApp, tmp_path: Path) -> None:
    from wec.client.settings import load_settings

    click(app, widget_px(app.base, "menu-settings"))
    assert app.screen.frame.getName() == "settings"
    click(app, widget_px(app.base, "setting-smooth_edges"))
    click(app, widget_px(app.base, "setting-lighting"))
    click(app, widget_px(app.base, "settings-done"))
    kept, problem = load_settings(tmp_path / "s.json")
    assert problem is None
    assert (kept.smooth_edges, kept.lighting, kept.detail) == (False, False, "detailed")
    assert app.shading.lighting is False


def test_every_play_screen_label_fits_its_button_and_the_move_list_title_its_room(
        app: WecApp, tmp_path: Path) -> None:
    """In a 1024 x 768 window (narrower than the default 1280 x 800) the right panel is
    narrow: "View (Shift+1)" ran past the window's right edge and "Moves (click to look
    back)" under the list's arrows. Each label is drawn smaller where it would not fit;
    the picture's last column, beside the view buttons, stays the background's."""
    screen = start_standard_game(app)
    app.base.graphicsEngine.renderFrame()
    for made in screen.skin.buttons:
        if made.isHidden():
            continue
        left, right, bottom, top = made.area()
        label_left, label_right, label_bottom, label_top = made.label_area()
        assert left < label_left and label_right < right, (made["text"], made.area(),
                                                           made.label_area())
        assert bottom < label_bottom and label_top < top, (made["text"], made.area(),
                                                           made.label_area())
    title, arrow = screen.log.title, screen.log.up
    title_right = title.getX() + title.getScale()[0] * title.textNode.getRight()
    arrow_left = arrow.getX() + arrow.getScale()[0] * arrow["frameSize"][0]
    assert title_right < arrow_left, (title_right, arrow_left)
    from panda3d.core import PNMImage

    image = PNMImage()
    app.base.win.getScreenshot(image)
    width = image.getXSize()
    view_rows = [widget_px(app.base, f"view-{level.label}")[1] for level in Level]
    edge = [image.getXel(width - 1, y) for row in view_rows for y in range(row - 6, row + 7)]
    assert all(max(rgb) < 0.3 for rgb in edge), max(max(rgb) for rgb in edge)


def _labels_past_their_frames(base: Any) -> list[tuple[str, str]]:
    """The buttons on screen (DirectGui's, found among the live objects; an option
    menu's frame is sized by DirectGui to its items) whose label runs past their frame."""
    import gc

    from direct.gui.DirectButton import DirectButton
    from direct.gui.DirectOptionMenu import DirectOptionMenu

    found = []
    for made in [o for o in gc.get_objects() if isinstance(o, DirectButton)]:
        if isinstance(made, DirectOptionMenu) or made.isEmpty() or made.isHidden() \
                or made.getTop() != base.render2d.getTop():
            continue
        text = made["text"]
        if not isinstance(text, str) or not text:
            continue
        label = made.component("text0")
        scale, x = label.getScale()[0], label.getPos()[0]
        left, right = made["frameSize"][0], made["frameSize"][1]
        node = label.textNode
        if x + scale * node.getLeft() < left or x + scale * node.getRight() > right:
            found.append((made.getName(), text))
    return found


def test_every_screens_button_labels_fit_their_frames(app: WecApp) -> None:
    """In a 1024 x 768 window "Restore standard defaults" ran past its frame on the
    options screen: the menu's screens, each checked."""
    for name in (None, "menu-new", "menu-computer", "menu-settings", "menu-lan",
                 "menu-replays", "menu-editor", "menu-help"):
        if name is not None:
            click(app, widget_px(app.base, name))
        app.base.graphicsEngine.renderFrame()
        assert _labels_past_their_frames(app.base) == [], name
        app.main_menu()


def test_scroll_arrows_are_a_pair_of_triangles_pointing_their_way(app: WecApp) -> None:
    """The move list's arrows were the font's "^" and "v", unlike in size and height:
    each is now a triangle, the up one with its point at the top, the down one at the
    bottom, the same size."""
    screen = start_standard_game(app)
    app.base.graphicsEngine.renderFrame()
    shapes = []
    for arrow, up in ((screen.log.up, True), (screen.log.down, False)):
        found = arrow.component("geom0")  # what the button draws (DirectGui's copy)
        assert found.getName() == ("arrow-up" if up else "arrow-down")
        low, high = found.getTightBounds()
        reader = GeomVertexReader(found.node().getGeom(0).getVertexData(), "vertex")
        points = []
        while not reader.isAtEnd():
            point = reader.getData3()
            points.append((round(point.x, 3), round(point.z, 3)))
        apex = max(points, key=lambda p: p[1]) if up else min(points, key=lambda p: p[1])
        others = [p for p in points if p != apex]
        assert apex[0] == 0 and all(p[1] == others[0][1] for p in others), points
        shapes.append((round(high.x - low.x, 3), round(high.z - low.z, 3)))
    assert shapes[0] == shapes[1] and shapes[0][0] > 0
