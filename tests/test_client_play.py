"""Issue 18, the play screen as a player sees it: the real client, offscreen with real
OpenGL at 1280x720 (and 1920x1080 for the layout), driven by the virtual mouse and
keyboard; every test asserts what a player would notice on screen."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from wec.client.app import WecApp
from wec.client.play import COVER_COLOUR, PlayScreen
from wec.client.session import HotseatSession
from wec.client.settings import Settings
from wec.engine import board
from wec.engine.board import AIR, GROUND, SUB, Level
from wec.engine.intents import EndTurn, Move
from wec.engine.pieces import ArticleKind, PieceKind, Side, describe_kind
from wec.engine.position import Position
from wec.engine.setup import standard_position
from wec.storage.scenarios import load_scenario

SIZE = (1280, 720)


def resize(app: WecApp, size: tuple[int, int]) -> None:
    """Make the offscreen window ``size`` (as a player's window resize would)."""
    base = app.base
    base.win.setSize(*size)
    base.adjustWindowAspectRatio(size[0] / size[1])
    assert app.pointer is not None
    app.pointer.size = size
    app.pointer.mouse.setWindowSize(*size)
    base.graphicsEngine.renderFrame()


@pytest.fixture
def app(panda_base: Any, tmp_path: Path) -> Iterator[WecApp]:
    assert panda_base.win.getGsg().getSupportsGlsl()
    made = WecApp(base=panda_base, settings=Settings(), settings_file=tmp_path / "s.json")
    made.save_dir = tmp_path / "saves"
    resize(made, SIZE)
    yield made
    made.close()
    resize(made, (1024, 768))


# ---------------------------------------------------------------- helpers


def size(base: Any) -> tuple[int, int]:
    return base.win.getXSize(), base.win.getYSize()


def widget_px(base: Any, name: str) -> tuple[int, int]:
    node = base.aspect2d.find(f"**/{name}")
    assert not node.isEmpty(), f"no widget {name} on screen"
    from panda3d.core import Point3

    left, right, bottom, top = node.node().getFrame()
    centre = base.render2d.getRelativePoint(node, Point3((left + right) / 2, 0,
                                                          (bottom + top) / 2))
    width, height = size(base)
    return int((centre.x + 1) / 2 * width), int((1 - centre.z) / 2 * height)


def point_px(base: Any, point: tuple[float, float, float]) -> tuple[int, int] | None:
    from panda3d.core import Point2, Point3

    seen = base.cam.getRelativePoint(base.render, Point3(*point))
    flat = Point2()
    if seen.y <= 0 or not base.camLens.project(seen, flat):
        return None
    width, height = size(base)
    return int((flat.x + 1) / 2 * width), int((1 - flat.y) / 2 * height)


def cell_px(base: Any, row: int, col: int, level: Level = GROUND,
            offset: tuple[float, float] = (0.0, 0.0)) -> tuple[int, int]:
    from wec.client.layout import cell_xyz

    x, y, z = cell_xyz(board.cell(board.square(row, col), level))
    found = point_px(base, (x + offset[0], y + offset[1], z + 0.05))
    assert found is not None, f"({row},{col}) is off screen"
    return found


def row_px(base: Any, listed: Any, slot: int) -> tuple[int, int]:
    """Pixel of line ``slot`` (from the top shown) of a ScrollList."""
    from panda3d.core import Point3

    x, z = listed.row_point(slot)
    point = base.render2d.getRelativePoint(listed.frame, Point3(x, 0, z))
    width, height = size(base)
    return int((point.x + 1) / 2 * width), int((1 - point.z) / 2 * height)


def click(app: WecApp, at: tuple[int, int], button: int = 1) -> None:
    assert app.pointer is not None
    app.pointer.click(*at, button=button)


def press(app: WecApp, name: str) -> None:
    click(app, widget_px(app.base, name))


def key(app: WecApp, name: str, shift: bool = False) -> None:
    from panda3d.core import KeyboardButton

    assert app.pointer is not None
    if shift:
        app.pointer.mouse.pressButton(KeyboardButton.shift())
    app.pointer.key(name)
    if shift:
        app.pointer.mouse.releaseButton(KeyboardButton.shift())
        app.pointer.step(1)


def park(app: WecApp) -> None:
    """The pointer in the window's corner, over no square."""
    assert app.pointer is not None
    app.pointer.move(2, 2)
    app.pointer.step(2)


def screenshot(app: WecApp) -> Any:
    from panda3d.core import PNMImage

    app.base.graphicsEngine.renderFrame()
    app.base.graphicsEngine.renderFrame()
    image = PNMImage()
    assert app.base.win.getScreenshot(image)
    return image


def rgb(image: Any, x: int, y: int) -> tuple[int, int, int]:
    return (round(image.getRed(x, y) * 255), round(image.getGreen(x, y) * 255),
            round(image.getBlue(x, y) * 255))


def region_difference(first: Any, second: Any, centre: tuple[int, int],
                      half: tuple[int, int]) -> float:
    """Mean absolute difference (0-255, all channels) of two pictures around a pixel."""
    cx, cy = centre
    total, count = 0.0, 0
    for x in range(cx - half[0], cx + half[0] + 1):
        for y in range(cy - half[1], cy + half[1] + 1):
            a, b = rgb(first, x, y), rgb(second, x, y)
            total += sum(abs(p - q) for p, q in zip(a, b, strict=True))
            count += 3
    return total / count


def visible_texts(base: Any) -> list[str]:
    """Every text a player could read now: text nodes and DirectGui labels and buttons
    under the 2D and 3D scenes that are not hidden."""
    texts: list[str] = []
    for root in (base.aspect2d, base.render2d, base.pixel2d, base.render):
        for found in root.findAllMatches("**/+TextNode"):
            if not found.isHidden() and found.node().getText():
                texts.append(str(found.node().getText()))
        for item in root.findAllMatches("**/+PGItem"):
            if item.isHidden():
                continue
            node = item.node()
            state = node.getState() if hasattr(node, "getState") else 0
            shown = node.getStateDef(state)
            for found in shown.findAllMatches("**/+TextNode"):
                if found.node().getText():
                    texts.append(str(found.node().getText()))
    return texts


def play_position(app: WecApp, position: Position) -> PlayScreen:
    screen = app.play(HotseatSession.new(position))
    park(app)
    return screen


def start_standard(app: WecApp) -> PlayScreen:
    screen = play_position(app, standard_position())
    assert isinstance(screen, PlayScreen)
    return screen


def cell(row: int, col: int, level: Level = GROUND) -> int:
    return board.cell(board.square(row, col), level)


def aaa_move() -> Move:
    """The issue's example: Black's hidden AAA (9,8) ground -> (8,9) ground."""
    return Move(cell(9, 8), cell(8, 9), kind=PieceKind.AAA)


def take_seat(app: WecApp, play: PlayScreen) -> None:
    assert play.cover is not None
    press(app, "banner-0")
    park(app)
    assert play.cover is None


# ---------------------------------------------------------------- hotseat secrets


# Everything the cover may say: whose turn, why (an undo, a resumed game), what to do.
COVER_TEXT = re.compile(
    r"(Black|White) to play|I am (Black|White): show my board|"
    r"((Undo went back into (Black|White)'s turn\.|The game goes on\.)\n)?"
    r"Turn \d+\. Pass the seat to (Black|White); the other player looks away\.")
SQUARE = re.compile(r"\(\d+,\d+\)")
PIECE_NAMES = sorted({describe_kind(kind) for kind in PieceKind} | {"Pawn"})


def assert_cover_shows_nothing(app: WecApp, play: PlayScreen) -> None:
    """The whole window is the cover's colour but for its few words in the middle, and
    no text on screen is anything but the cover's."""
    assert play.cover is not None and play.scene.root.isHidden() and play.hud.isHidden()
    image = screenshot(app)
    width, height = size(app.base)
    colour = tuple(round(c * 255) for c in COVER_COLOUR[:3])
    # the cover's words and button lie within 26% of the width and 22% of the height
    # around the middle; every other pixel is the cover itself
    odd = [(x, y) for x in range(0, width, 7) for y in range(0, height, 7)
           if not (abs(x - width / 2) < 0.26 * width and abs(y - height / 2) < 0.22 * height)
           and rgb(image, x, y) != colour]
    assert odd == [], f"{len(odd)} pixels of the cover differ, e.g. {odd[:5]}"
    texts = visible_texts(app.base)
    assert texts, "the cover says whose turn it is"
    for text in texts:
        assert COVER_TEXT.fullmatch(text), f"text on the cover: {text!r}"
        assert not SQUARE.search(text), text
        assert not any(name in text for name in PIECE_NAMES), text


def test_the_hand_over_cover_is_opaque_and_shows_nothing_of_either_side(app: WecApp) -> None:
    play = start_standard(app)
    assert play.send(aaa_move())
    assert "AAA" in play.note.getText()  # Black's own message line names its move
    key(app, "e")
    assert_cover_shows_nothing(app, play)
    take_seat(app, play)
    assert play.viewer is Side.WHITE and not play.scene.root.isHidden()


def test_a_competitive_history_hides_the_enemys_hidden_move_everywhere(app: WecApp) -> None:
    play = start_standard(app)
    press(app, "competitive")
    press(app, "banner-0")
    assert play.session.match.competitive
    assert play.send(aaa_move())
    key(app, "e")
    assert_cover_shows_nothing(app, play)
    take_seat(app, play)
    # R14.3: White reads nothing of Black's hidden AAA, on the board or in any text
    assert play.history == []
    shown = " ".join(visible_texts(app.base))
    assert "Black AAA" not in shown and "(8,9)" not in shown
    assert "You saw nothing of Black's turn" in play.note.getText()


def test_a_non_competitive_history_shows_everything(app: WecApp) -> None:
    """R14.2: hidden enemy activity included."""
    play = start_standard(app)
    assert play.send(aaa_move())
    key(app, "e")
    take_seat(app, play)
    assert play.history == ["1. Black AAA (9,8) ground -> (8,9) ground"]
    assert "1. Black AAA (9,8) ground -> (8,9) ground" in play.log.visible_texts()
    # the board still shows White's view only (R9): no Black AAA there
    assert all(p.kind is not PieceKind.AAA or p.side is Side.WHITE
               for p in play.scene.view.pieces)


def test_the_full_history_is_revealed_when_a_competitive_game_ends(app: WecApp) -> None:
    play = start_standard(app)
    play.session.go_competitive()
    assert play.send(aaa_move())
    key(app, "e")
    take_seat(app, play)
    assert not any("AAA" in line for line in play.history)
    press(app, "resign")
    press(app, "banner-0")
    assert any("Black AAA (9,8) ground -> (8,9) ground" in line for line in play.history)


def test_undo_into_the_other_sides_turn_passes_through_a_hand_over(app: WecApp) -> None:
    play = start_standard(app)
    click(app, cell_px(app.base, 9, 2))
    click(app, cell_px(app.base, 7, 4))
    key(app, "e")
    take_seat(app, play)
    assert play.viewer is Side.WHITE
    key(app, "u")  # back into Black's turn: the seat changes hands first
    assert play.viewer is Side.BLACK
    assert_cover_shows_nothing(app, play)
    assert play.cover is not None
    take_seat(app, play)
    assert play.scene.view is not None and play.scene.view.viewer is Side.BLACK
    key(app, "u")  # Black's own move: same side, no hand-over
    assert play.cover is None and play.viewer is Side.BLACK
    assert len(play.session.match.history) == 0


def test_a_resumed_game_opens_on_the_hand_over(app: WecApp) -> None:
    start_standard(app)
    click(app, cell_px(app.base, 9, 2))
    click(app, cell_px(app.base, 7, 4))
    press(app, "menu")
    press(app, "menu-continue")
    resumed = app.screen
    assert isinstance(resumed, PlayScreen) and resumed.cover is not None
    assert_cover_shows_nothing(app, resumed)


def test_resign_in_hotseat(app: WecApp) -> None:
    play = start_standard(app)
    press(app, "resign")
    assert play.banner is not None and play.banner.frame.getName() == "resign-confirm"
    press(app, "banner-0")
    assert play.banner is not None and play.banner.frame.getName() == "game-over"
    assert play.session.ending is not None
    assert (play.session.ending.winner, play.session.ending.reason) == (
        Side.WHITE, "Black resigned")
    assert play.status.getText() == "Game over: White won"
    assert app.sounds.played[-1] == "game_end"
    assert any(path.name.endswith("-finished-turn1.wecsave")
               for path in app.saves_folder().glob("*.wecsave"))


# ---------------------------------------------------------------- the three levels


def with_pieces(position: Position, **moves: Any) -> Position:
    """``position`` with pieces changed: ``name=(pid-finder, changes)``."""
    pieces = list(position.pieces)
    for finder, changes in moves.values():
        index = next(i for i, p in enumerate(pieces) if finder(p))
        pieces[index] = pieces[index].but(**changes)
    return position.evolve(pieces=tuple(pieces))


def without(position: Position, finder: Any) -> Position:
    return position.evolve(pieces=tuple(p for p in position.pieces if not finder(p)))


def at(row: int, col: int, level: Level = GROUND, side: Side | None = None,
       kind: PieceKind | None = None) -> Any:
    return lambda p: (p.sq == board.square(row, col) and p.level is level
                      and (side is None or p.side is side) and (kind is None or p.kind is kind))


@pytest.mark.parametrize("side", [Side.BLACK, Side.WHITE])
def test_own_subs_are_clearly_visible_from_the_default_camera(app: WecApp, side: Side) -> None:
    """submarine_duel: each side's four Subs at the Sub level, under pawns. The region of
    an own Sub's square differs clearly from the same position without that Sub."""
    duel = load_scenario("submarine_duel")
    if side is Side.WHITE:  # White to act: the same position a turn later
        duel = duel.evolve(turn=2)
    subs = [p for p in duel.pieces if p.side is side and p.level is SUB]
    assert len(subs) == 4
    for sub in subs[:2]:
        play_position(app, duel)
        shown = screenshot(app)
        centre = cell_px(app.base, sub.row, sub.col)
        play_position(app, without(duel, lambda p, pid=sub.pid: p.pid == pid))
        missing = screenshot(app)
        # the square's region (a square is about 50 pixels across at 1280x720)
        difference = region_difference(shown, missing, centre, (20, 18))
        assert difference > 25, f"{side.title}'s Sub at {sub.row},{sub.col}: {difference:.1f}"


def test_a_flyer_is_tied_to_its_square_by_a_stem_and_a_shadow(app: WecApp) -> None:
    position = with_pieces(standard_position(), jet=(at(10, 4, kind=PieceKind.JET),
                                                      {"sq": board.square(7, 5),
                                                       "level": AIR}))
    play = play_position(app, position)
    from panda3d.core import GeomVertexReader

    stems = play.scene._ties.find("**/stems")
    assert not stems.isEmpty()
    reader = GeomVertexReader(stems.node().getGeom(0).getVertexData(), "vertex")
    points = []
    while not reader.isAtEnd():
        point = reader.getData3()
        points.append((round(point.x, 2), round(point.y, 2), round(point.z, 2)))
    x, y = board.col_of(board.square(7, 5)) - 5.5, board.row_of(board.square(7, 5)) - 5.5
    assert (x, y, 1.7) in points and (x, y, 0.02) in points
    shadow = screenshot(app)
    play_position(app, standard_position())
    plain = screenshot(app)
    assert region_difference(shadow, plain, cell_px(app.base, 7, 5), (8, 8)) > 15


def test_level_buttons_show_their_state(app: WecApp) -> None:
    play = start_standard(app)
    air = play.level_buttons[AIR]
    assert air["text"] == "Air (1): shown"
    shown_colour = tuple(air["frameColor"][0])
    press(app, "level-air")
    assert play.scene.layer_shown[AIR] is False
    assert air["text"] == "Air (1): faded" and tuple(air["frameColor"][0]) != shown_colour
    key(app, "1")
    assert air["text"] == "Air (1): shown"


def test_a_camera_view_per_level(app: WecApp) -> None:
    from wec.client.layout import LEVEL_Z

    play = start_standard(app)
    home = play.camera.orbit
    key(app, "3", shift=True)
    assert play.camera.orbit.target[2] == LEVEL_Z[SUB]
    assert not play.scene.layer_shown[AIR] and play.level_buttons[AIR]["text"].endswith("faded")
    key(app, "1", shift=True)
    assert play.camera.orbit.target[2] == LEVEL_Z[AIR] and play.scene.layer_shown[AIR]
    assert play.camera.orbit.pitch > home.pitch
    key(app, "2", shift=True)
    assert play.camera.orbit == home
    press(app, "view-sub")
    assert play.camera.orbit.target[2] == LEVEL_Z[SUB]
    key(app, "home")
    assert play.camera.orbit == home


def test_legal_destinations_are_lit_in_their_levels_colour(app: WecApp) -> None:
    from wec.client.scene import MOVE_COLOURS

    position = with_pieces(standard_position(), jet=(at(10, 4, kind=PieceKind.JET),
                                                      {"sq": board.square(7, 5),
                                                       "level": AIR}))
    play = play_position(app, position)
    play.type_square("7,5,air")
    lit = {quad.getPythonTag("cell"): quad.getPythonTag("colour")
           for quad in play.scene._lit.getChildren() if quad.hasPythonTag("cell")}
    air = [c for c in lit if board.cell_level(c) is AIR and c != cell(7, 5, AIR)]
    ground = [c for c in lit if board.cell_level(c) is GROUND]
    assert air and ground  # flying on, or landing
    for lit_cell in air:
        assert lit[lit_cell] == pytest.approx(MOVE_COLOURS[AIR])
    for lit_cell in ground:
        assert lit[lit_cell] == pytest.approx(MOVE_COLOURS[GROUND])
    assert not play.scene._lit.find("footprints").isEmpty()  # frames on the Air's squares


# ---------------------------------------------------------------- squares and articles


def test_every_article_kind_has_its_own_badge_and_the_legend_names_them(app: WecApp) -> None:
    from wec.client.icons import BADGES

    assert set(BADGES) == set(ArticleKind)
    looks = {(b.code, b.fill, b.rim, b.shape) for b in BADGES.values()}
    assert len(looks) == len(ArticleKind) and len({b.code for b in BADGES.values()}) == 18
    play = start_standard(app)
    # badges lie inside their squares (two at most, side by side), none on a border
    for sq, article, x, y in play.scene._article_spots(play.interaction.view):
        cx, cy = board.col_of(sq) - 5.5, board.row_of(sq) - 5.5
        assert abs(x - cx) + 0.19 <= 0.5 and abs(y - cy) + 0.19 <= 0.5, (sq, article)
    key(app, "g")
    assert play.legend is not None
    texts = visible_texts(app.base)
    from wec.client.narration import article_name

    for kind in ArticleKind:
        assert article_name(kind) in texts
    assert "your reinforcements wait here (R10)" in texts
    assert "enemy reinforcements wait here (R10.5)" in texts
    assert not play.legend.frame.isHidden()
    key(app, "g")
    assert play.legend is None


def test_the_xxx_pawns_carried_articles_show_at_its_feet(app: WecApp) -> None:
    xxx = at(9, 5, kind=PieceKind.XXX_PAWN)
    carrying = with_pieces(standard_position(), xxx=(xxx, {"articles": (
        ArticleKind.FLAME, ArticleKind.SAM_LAUNCHER)}))
    play = play_position(app, carrying)
    pawn = next(p for p in play.interaction.view.pieces if xxx(p))
    assert not play.scene.piece_node(pawn.pid).find("carried").isEmpty()
    with_articles = screenshot(app)
    feet = cell_px(app.base, 9, 5, offset=(0.0, 0.3))
    play_position(app, standard_position())
    bare = screenshot(app)
    assert region_difference(with_articles, bare, feet, (12, 5)) > 20


def test_the_inspector_names_everything_on_every_level_of_the_square(app: WecApp) -> None:
    square = board.square(6, 5)
    position = with_pieces(
        standard_position(),
        jet=(at(10, 4, kind=PieceKind.JET), {"sq": square, "level": AIR}),
        tank=(at(10, 1, kind=PieceKind.TANK), {"sq": square, "stunned_until": 7,
                                               "ready": (5, 0),
                                               "articles": (ArticleKind.ANTI_SAM,)}),
        sub=(at(10, 2, kind=PieceKind.SUB), {"sq": square, "level": SUB}))
    play = play_position(app, position)
    assert app.pointer is not None
    app.pointer.move(*cell_px(app.base, 6, 5))
    app.pointer.step(3)
    text = play.info.text()
    assert play.info.title.getText() == "Under the pointer: (6,5)"
    for line in ("Air:", "Black Jet", "SAM Launcher: ready", "Ground:",
                 "Black Tank (left-handed)", "carries Anti-SAM",
                 # stunned until turn 7 from turn 1: Black's own turns 1, 3 and 5 (O12)
                 "stunned: misses 3 more of its turns",
                 # its Flame ready at turn 5: Black's own turns 1 and 3 still to wait
                 "Flame: ready in 2 of its turns", "Articles on the ground:",
                 "Sub:", "Black Sub", "Torpedo Launcher: ready", "submerged (R9.6)"):
        assert line in text, f"{line!r} not in {text!r}"
    tank = next(p for p in play.interaction.view.pieces if p.kind is PieceKind.TANK
                and p.sq == square)
    label = play.scene.piece_node(tank.pid).find("status/line")
    assert label.node().getText() == "stunned 3"  # the board counts alike


def test_stun_reads_in_own_turns_everywhere_and_labels_are_not_tinted(app: WecApp) -> None:
    play = start_standard(app)
    click(app, cell_px(app.base, 9, 2), button=3)  # Black's Stunner Pawn: its Stunner
    click(app, cell_px(app.base, 8, 2))
    assert "hit by Stunner" in play.history[0]
    firer = next(p for p in play.session.current.pieces
                 if p.cell == cell(9, 2) and p.side is Side.BLACK)
    label = play.scene.piece_node(firer.pid).find("status")
    from panda3d.core import ColorScaleAttrib

    scale = label.getNetState().getAttrib(ColorScaleAttrib)
    assert scale is None or scale.isOff() or not scale.hasScale(), \
        "the label keeps its own colour, not the piece's tint"
    text = label.find("line").node()
    assert text.getText() == "Stunner 2"
    colour = text.getTextColor()
    assert min(colour[0], colour[1], colour[2]) > 0.5  # light on its dark card


def test_last_seen_ghosts_say_when_the_piece_was_seen(app: WecApp) -> None:
    app.settings.hotseat_curtain = False
    play = start_standard(app)
    click(app, cell_px(app.base, 9, 2))
    click(app, cell_px(app.base, 7, 4))
    key(app, "e")
    dive = next(i for i in play.session.legal() if isinstance(i, Move)
                and i.frm == cell(1, 2) and i.to == cell(1, 2, SUB))
    assert play.send(dive), play.note.getText()
    key(app, "e")
    assert play.viewer is Side.BLACK
    assert play.scene.marker_turns == {("sub", cell(1, 2)): 2}
    texts = visible_texts(app.base)
    assert "seen T2" in texts
    assert app.pointer is not None
    app.pointer.move(*cell_px(app.base, 1, 2))
    app.pointer.step(3)
    assert "Last seen: White Sub, seen on turn 2 (R9.10)" in play.info.text()


def test_own_stealthy_pieces_say_so_and_never_whether_the_enemy_sees_them(
        app: WecApp) -> None:
    play = start_standard(app)
    # Black's AAAs are hidden from White, Black's Stealth Pawn is locked and seen (R15.3):
    # both read the same, "stealthy"
    for row, col, kind in ((9, 3, PieceKind.AAA), (9, 6, PieceKind.STEALTH_PAWN)):
        piece = next(p for p in play.interaction.view.pieces
                     if p.cell == cell(row, col) and p.kind is kind)
        label = play.scene.piece_node(piece.pid).find("status/line")
        assert label.node().getText() == "stealthy"


def test_reinforcement_squares_of_both_sides_are_marked(app: WecApp) -> None:
    play = start_standard(app)
    assert not play.scene._dressing.find("**/reinforcement-squares").isEmpty()
    waiting = play.interaction.view.reinforcements
    assert {r.side for r in waiting} == {Side.BLACK, Side.WHITE}
    assert all(r.kind is None for r in waiting if r.side is Side.WHITE)  # R10.5


# ---------------------------------------------------------------- what just happened


def test_the_last_move_seen_is_marked_quietly(app: WecApp) -> None:
    play = start_standard(app)
    click(app, cell_px(app.base, 9, 2))
    click(app, cell_px(app.base, 7, 4))
    key(app, "e")
    take_seat(app, play)
    marks = play.scene._overlay.find("last-move")
    assert not marks.isEmpty()
    assert sorted(play._last_move_cells()) == sorted([cell(9, 2), cell(7, 4)])
    assert play.note.getText() == ("Your turn, White. Black Stunner Pawn (9,2) ground -> "
                                   "(7,4) ground")


def play_turns(play: PlayScreen, turns: int) -> None:
    """Each side makes a legal Move (the first after which it may end its turn and the
    game goes on) and ends the turn, ``turns`` times; then the screen shows it."""
    from wec.engine.errors import IllegalIntent

    session = play.session
    for _ in range(turns):
        for move in [i for i in session.legal() if isinstance(i, Move)]:
            session.play(move)
            if session.ending is None:
                try:
                    session.play(EndTurn())
                except IllegalIntent:
                    pass
                else:
                    if session.ending is None:
                        break
                    session.undo()
            session.undo()
        else:
            raise AssertionError("no Move after which the turn may end")
    play.interaction = play._interaction()
    play.redraw()


def test_the_move_list_scrolls_and_a_click_shows_that_moment_read_only(app: WecApp) -> None:
    app.settings.hotseat_curtain = False
    play = start_standard(app)
    play_turns(play, 40)
    rows = play.rows()
    assert len(rows) == 40 and play.log.count == 40 > play.log.rows
    last = play.log.visible_texts()
    from wec.client.hud import shorten

    assert last[-1] == shorten(play.history[-1], play.log.chars)  # it follows the latest
    press(app, "move-list-up")
    assert play.log.visible_texts() != last and play.log.top < 40 - play.log.rows
    # the wheel over the list scrolls it too
    from wec.client.hud import WHEEL_DOWN

    before = play.log.top
    play.log.frame.guiItem.getStateDef(0)  # the list is a real widget
    from direct.showbase.MessengerGlobal import messenger

    messenger.send(WHEEL_DOWN + play.log.frame.guiId, [None])
    assert play.log.top > before
    # a click on a line shows that moment, read-only
    play.log.scroll(-100)
    click(app, row_px(app.base, play.log, 2))
    index = rows[2].index
    assert play.browsing == index
    assert play.scene.view == play.session.match.position_at(index)  # everything: R14.2
    assert play.log.current == 2 and not play.back_button.isHidden()
    assert str(play.end_button["state"]) == "disabled"
    moves = len(play.session.match.history)
    click(app, cell_px(app.base, 9, 2))  # the board is read-only meanwhile
    assert len(play.session.match.history) == moves and play.interaction.selection is None
    key(app, "escape")
    assert play.browsing is None and play.scene.view == play.interaction.view


def test_a_competitive_moment_shows_only_what_the_side_knew(app: WecApp) -> None:
    from wec.engine.knowledge import project

    app.settings.hotseat_curtain = False
    play = start_standard(app)
    play.session.go_competitive()
    play_turns(play, 3)
    play.browse(0)
    row = play.rows()[0]
    assert play.scene.view == project(play.session.match.position_at(row.index), play.viewer)


def test_captured_pieces_are_listed(app: WecApp) -> None:
    # Black's Rocket Pawn captures White's (hidden-free) Stunner Pawn moved next to it
    start = with_pieces(standard_position(), victim=(at(2, 2, side=Side.WHITE),
                                                     {"sq": board.square(8, 1)}))
    play = play_position(app, start)
    attack = next(i for i in play.session.legal() if isinstance(i, Move)
                  and i.to == cell(8, 1))
    assert play.send(attack)
    assert play.losses.getText() == "Black lost: nothing yet\nWhite lost: Stunner Pawn"
    assert "captured at (8,1) ground: White Stunner Pawn" in play.history[0]


# ---------------------------------------------------------------- actions and aiming


def test_a_and_d_open_the_actions_menu_and_the_camera_keeps_its_place(app: WecApp) -> None:
    play = start_standard(app)
    orbit = play.camera.orbit
    key(app, "a")
    assert play.actions is not None and play.camera.orbit == orbit
    key(app, "escape")
    assert play.actions is None
    key(app, "d")
    assert play.actions is not None and play.actions.title.getText().startswith("Drop (D)")
    assert play.camera.orbit == orbit
    key(app, "escape")
    app.pointer.mouse.pressButton(__import__("panda3d.core").core.KeyboardButton.left())
    app.pointer.step(10)
    app.pointer.mouse.releaseButton(__import__("panda3d.core").core.KeyboardButton.left())
    app.pointer.step(1)
    assert play.camera.orbit.heading != orbit.heading  # arrows still orbit


def many_actions() -> Position:
    """Black's row 9 moved onto row 8's articles, each carrying an article: many
    Pick-ups and Drops for the Actions menu."""
    position = standard_position()
    pieces = []
    for piece in position.pieces:
        if piece.side is Side.BLACK and piece.row == 9 and piece.level is GROUND:
            piece = piece.but(sq=board.square(8, piece.col), articles=(ArticleKind.FLAME,))
        pieces.append(piece)
    return position.evolve(pieces=tuple(pieces))


def test_the_actions_menu_groups_by_piece_in_plain_words_and_scrolls(app: WecApp) -> None:
    play = play_position(app, many_actions())
    key(app, "a")
    menu = play.actions
    assert menu is not None
    rows = play.action_rows
    headings = [r.label for r in rows if r.heading]
    lines = [r.label for r in rows if not r.heading]
    assert len(headings) >= 8 and len(rows) > menu.rows  # more than fits: it scrolls
    assert any(label.startswith("Pick up ") for label in lines)
    assert any(label.startswith("Drop Flame") for label in lines)
    for label in lines:
        assert "_" not in label and "direction (" not in label and "ground" not in label
    # each line once under its piece
    group: list[str] = []
    for row in rows:
        if row.heading:
            assert len(group) == len(set(group)), group
            group = []
        else:
            group.append(row.label)
    shown = menu.visible_texts()
    press(app, "actions-panel-down")
    assert menu.visible_texts() != shown
    # a line plays its action
    menu.scroll(-100)
    first = next(n for n, r in enumerate(rows) if not r.heading)
    click(app, row_px(app.base, menu, first))
    assert play.session.match.history[-1].intent == rows[first].intent


def badge_px(app: WecApp, play: PlayScreen, sq: int,
             article: ArticleKind) -> tuple[int, int]:
    for spot_sq, kind, x, y in play.scene._article_spots(play.interaction.view):
        if (spot_sq, kind) == (sq, article):
            found = point_px(app.base, (x, y, 0.01))
            assert found is not None
            return found
    raise AssertionError(f"no {article} badge on {sq}")


def test_a_click_on_an_article_badge_picks_it_up(app: WecApp) -> None:
    from wec.engine.intents import PickUp

    play = play_position(app, many_actions().evolve(pieces=tuple(
        p.but(articles=()) for p in many_actions().pieces)))
    square = board.square(8, 2)  # Black's Stunner Pawn on a Torpedo Launcher
    assert play.interaction.view.ground_articles[square] == (ArticleKind.TORPEDO_LAUNCHER,)
    click(app, badge_px(app, play, square, ArticleKind.TORPEDO_LAUNCHER))
    done = play.session.match.history[-1].intent
    assert isinstance(done, PickUp) and done.article is ArticleKind.TORPEDO_LAUNCHER
    assert done.at == cell(8, 2)


def test_dragging_one_piece_onto_another_offers_their_exchanges(app: WecApp) -> None:
    from wec.engine.intents import Exchange

    play = play_position(app, many_actions())
    assert app.pointer is not None
    app.pointer.move(*cell_px(app.base, 8, 5))  # Black's XXX Pawn, carrying a Flame
    app.pointer.step(2)
    from panda3d.core import MouseButton

    app.pointer.mouse.pressButton(MouseButton.one())
    app.pointer.step(2)
    app.pointer.move(*cell_px(app.base, 8, 6))  # onto the Stealth Pawn
    app.pointer.step(2)
    app.pointer.mouse.releaseButton(MouseButton.one())
    app.pointer.step(2)
    assert play.chooser is not None
    texts = visible_texts(app.base)
    assert any(t.startswith("Swap Flame for the Flame of the") or t.startswith("Give Flame")
               for t in texts), texts
    press(app, "choice-0")
    assert isinstance(play.session.match.history[-1].intent, Exchange)


def test_a_doze_is_chosen_on_the_board(app: WecApp) -> None:
    from wec.client.interaction import Highlight
    from wec.engine.intents import Doze

    play = start_standard(app)
    click(app, cell_px(app.base, 10, 2))  # Dozer and Sub share the square
    assert play.chooser is not None
    dozer = next(n for n, b in enumerate(play.chooser.buttons) if "Dozer" in b["text"])
    press(app, f"choice-{dozer}")
    key(app, "z")
    lit = play.interaction.highlights()
    assert lit[cell(9, 2)] is Highlight.DOZE_PICK
    click(app, cell_px(app.base, 9, 2))  # take the Stunner Pawn along
    lit = play.interaction.highlights()
    assert lit[cell(9, 2)] is Highlight.MOVE  # chosen; now also the way to go
    click(app, cell_px(app.base, 9, 2))
    done = play.session.match.history[-1].intent
    assert isinstance(done, Doze) and done.squares == (board.square(9, 2),)
    assert done.dir == (-1, 0)


def test_aiming_shows_the_ray_its_range_and_what_it_would_hit(app: WecApp) -> None:
    play = start_standard(app)
    click(app, cell_px(app.base, 9, 2), button=3)  # Black's Stunner Pawn: its Stunner
    assert app.pointer is not None
    app.pointer.move(*cell_px(app.base, 6, 2))  # anywhere along the ray
    app.pointer.step(3)
    assert play.aim is not None
    assert play.aim.path == tuple(cell(row, 2) for row in range(8, 1, -1))  # stops there
    assert play.aim.hits == (cell(2, 2),)
    assert "range 9" in play.note.getText() and "White Stunner Pawn" in play.note.getText()
    assert not play.scene._overlay.find("aim-path").isEmpty()
    assert not play.scene._overlay.find("aim-hits").isEmpty()
    key(app, "escape")
    click(app, cell_px(app.base, 9, 1), button=3)  # the Rocket Pawn: a projectile
    app.pointer.move(*cell_px(app.base, 8, 1))
    app.pointer.step(3)
    assert play.aim is not None and play.aim.hits == (cell(2, 1),)
    assert "the board's edge" in play.aim.text and "White Rocket Pawn" in play.aim.text


def test_a_prompt_starting_with_r_is_not_an_error(app: WecApp) -> None:
    from wec.client.hud import REFUSAL, TEXT

    play = start_standard(app)
    click(app, cell_px(app.base, 9, 1), button=3)
    assert play.note.getText().startswith("Rocket Launcher of the Rocket Pawn")
    assert tuple(play.note.textNode.getTextColor()) == pytest.approx(TEXT)
    click(app, cell_px(app.base, 9, 1))
    click(app, cell_px(app.base, 5, 5))  # a refusal names its rule: red
    assert play.note.getText().startswith("R5")
    assert tuple(play.note.textNode.getTextColor()) == pytest.approx(REFUSAL)


# ---------------------------------------------------------------- layout


def widget_rects(base: Any, root: Any) -> list[tuple[str, tuple[float, float, float, float]]]:
    """Every visible panel, button and text under ``root``: (name, left, right, bottom,
    top in render2d units, -1..1 across the window)."""
    from panda3d.core import Point3

    rects = []
    for item in root.findAllMatches("**/+PGItem"):
        if item.isHidden():
            continue
        left, right, bottom, top = item.node().getFrame()
        if right <= left or top <= bottom:
            continue
        low = base.render2d.getRelativePoint(item, Point3(left, 0, bottom))
        high = base.render2d.getRelativePoint(item, Point3(right, 0, top))
        rects.append((item.getName(), (low.x, high.x, low.z, high.z)))
    for text in root.findAllMatches("**/+TextNode"):
        if text.isHidden() or not text.node().getText():
            continue
        bounds = text.getTightBounds(base.render2d)
        if bounds is None:
            continue
        low, high = bounds
        rects.append((str(text.node().getText())[:30], (low.x, high.x, low.z, high.z)))
    return rects


def board_outline(base: Any) -> list[tuple[float, float]]:
    """The board's outline on screen (render2d units): the rim with its numbers and the
    Air plane above it, as the camera sees them."""
    from wec.client.scene import convex_hull

    points = []
    for reach, z in ((5.85, 0.0), (5.0, 1.7)):
        for x in (-reach, reach):
            for y in (-reach, reach):
                found = point_px(base, (x, y, z))
                assert found is not None, "the board reaches out of the window"
                width, height = size(base)
                points.append((found[0] / width * 2 - 1, 1 - found[1] / height * 2))
    return convex_hull(points)


def overlaps(outline: list[tuple[float, float]], rect: tuple[float, float, float, float],
             ) -> bool:
    """Whether a convex polygon and a rectangle overlap (separating axes)."""
    left, right, bottom, top = rect
    corners = [(left, bottom), (right, bottom), (right, top), (left, top)]
    xs = [p[0] for p in outline]
    ys = [p[1] for p in outline]
    if max(xs) <= left or min(xs) >= right or max(ys) <= bottom or min(ys) >= top:
        return False
    for index, (ax, ay) in enumerate(outline):
        bx, by = outline[(index + 1) % len(outline)]
        nx, ny = by - ay, ax - bx  # outward for a counter-clockwise outline
        if all((cx - ax) * nx + (cy - ay) * ny >= 0 for cx, cy in corners):
            return False
    return True


@pytest.mark.parametrize("window", [(1280, 720), (1920, 1080)])
@pytest.mark.parametrize("side", [Side.BLACK, Side.WHITE])
def test_no_panel_covers_the_board(app: WecApp, window: tuple[int, int], side: Side) -> None:
    resize(app, window)
    position = standard_position()
    if side is Side.WHITE:
        position = position.evolve(turn=2)
    play = play_position(app, position)
    outline = board_outline(app.base)
    rects = widget_rects(app.base, play.hud)
    assert len(rects) > 20 and overlaps(outline, (-0.02, 0.02, -0.02, 0.02))
    covering = [(name, rect) for name, rect in rects if overlaps(outline, rect)]
    assert covering == []
    # every rank and file number is on screen, inside the board's space
    left, right, bottom, top = play.layout.board_ndc()
    for n in range(1, 11):
        for x, y in ((-5.6, n - 5.5), (5.6, n - 5.5), (n - 5.5, -5.6), (n - 5.5, 5.6)):
            found = point_px(app.base, (x, y, 0.01))
            assert found is not None
            nx = found[0] / window[0] * 2 - 1
            ny = 1 - found[1] / window[1] * 2
            assert left <= nx <= right and bottom <= ny <= top, (n, x, y)
    # the chooser, the Actions menu and the status open beside the board too
    key(app, "a")
    key(app, "f2")
    click(app, cell_px(app.base, 10, 4) if side is Side.BLACK else cell_px(app.base, 1, 4))
    assert play.chooser is not None
    covering = [(name, rect) for name, rect in widget_rects(app.base, play.hud)
                if overlaps(outline, rect)]
    assert covering == []


def test_the_network_chat_sits_beside_the_board(app: WecApp) -> None:
    """The LAN screen's chat and its buttons keep to the left and right columns."""
    from wec.client.network_play import NetworkPlayScreen

    assert NetworkPlayScreen.chat_reserve > 0
    play = start_standard(app)
    left = play.layout.left
    assert play.panel_rect[2] == left[2] + play.chat_reserve  # room left for a chat


# ---------------------------------------------------------------- options, help


def test_the_options_screen_names_explains_and_cites_every_option(app: WecApp) -> None:
    from wec.client.option_text import OPTION_TEXT
    from wec.engine.options import option_specs

    press(app, "menu-new")
    screen = app.screen
    texts = visible_texts(app.base)
    for name, _oid, _kind, _allowed in option_specs():
        text = OPTION_TEXT[name]
        assert "_" not in text.title and text.title in texts, name
        if name != "rate_of_fire":
            assert text.explanation in texts, name
    assert screen.widgets["mdc_pawn_movement"].get() == "Sides and forward"
    assert screen.widgets["reinforcements"].get() == "Normal"
    assert not any("all_sides_and_forward" in t for t in texts)
    # the rule numbers in a tooltip
    assert app.pointer is not None
    app.pointer.move(*widget_px(app.base, "option-title-tank_range"))
    app.pointer.step(3)
    assert screen.tooltip.text().startswith("O6, rules R5.3.5: Tank range")
    # a human value is stored as the option's value
    screen.widgets["mdc_pawn_movement"].set(
        screen.widgets["mdc_pawn_movement"]["items"].index("Forward three"))
    assert screen.chosen().mdc_pawn_movement == "all_forward"


def test_help_shows_the_controls_and_the_rules_reference(app: WecApp) -> None:
    from wec.client.help import CONTROLS
    from wec.client.resources import rules_file

    assert rules_file().is_file()
    play = start_standard(app)
    key(app, "f1")
    assert play.help is not None
    text = play.help.all_text()
    for keys, does in CONTROLS:
        assert keys in text and does.split(";")[0] in text
    first_heading = next(line for line in rules_file().read_text("utf-8").splitlines()
                         if line.startswith("# "))
    assert first_heading[2:] in text
    assert play.help.frame["frameColor"][3] == 1.0  # opaque: nothing shows through
    shown = play.help.visible_text()
    key(app, "page_down")
    assert play.help.visible_text() != shown and play.help.top > 0
    press(app, "help-section-3")
    assert play.help.lines[play.help.top].section == 3
    key(app, "f1")
    assert play.help is None
    # from the main menu too
    press(app, "menu")
    press(app, "menu-help")
    assert app.help is not None and "Controls" in app.help.all_text()
    key(app, "escape")
    assert app.help is None


def test_the_readme_lists_the_same_controls_as_the_help() -> None:
    from wec.client.help import controls_table

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text("utf-8")
    lines = readme.splitlines()
    table = controls_table()
    start = lines.index(table[2])
    assert lines[start - 2:start - 2 + len(table)] == table


# ---------------------------------------------------------------- sounds, no display


def test_moves_and_shots_play_their_sounds(app: WecApp) -> None:
    play = start_standard(app)
    click(app, cell_px(app.base, 9, 1), button=3)
    click(app, cell_px(app.base, 8, 1))
    assert app.sounds.played[-1:] == ["fire"]
    click(app, cell_px(app.base, 9, 2))
    click(app, cell_px(app.base, 7, 4))
    assert app.sounds.played[-1] == "move"
    assert len(play.session.match.history) == 2


def test_the_volume_is_a_setting(app: WecApp, tmp_path: Path) -> None:
    from wec.client.settings import load_settings

    press(app, "menu-settings")
    assert not app.screen.frame.find("**/setting-volume").isEmpty()
    app.screen._set("25", "volume")  # as picking 25 in the drop-down does
    press(app, "settings-done")
    kept, problem = load_settings(tmp_path / "s.json")
    assert problem is None and kept.volume == 25 and app.sounds.volume == 25


def test_wec_play_without_a_display_says_what_to_do(monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    import wec.client.app as client_app

    def no_window(*_args: Any, **_kwargs: Any) -> Any:
        raise RuntimeError("Could not open window")

    monkeypatch.setattr(client_app, "WecApp", no_window)
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    assert client_app.run() == 2
    said = capsys.readouterr().err
    assert "wec play: cannot open a window: Could not open window" in said
    assert "no display was found" in said
    assert "wec play --offscreen-check" in said and "wec shot" in said


def test_two_ghosts_in_one_cell_stand_side_by_side_each_with_its_turn(app: WecApp) -> None:
    from wec.engine.knowledge import view
    from wec.engine.position import Marker

    play = start_standard(app)
    where = cell(5, 5)
    seen = view(standard_position(), Side.BLACK).evolve(last_seen=(
        Marker(Side.BLACK, -1, PieceKind.AAA, where),
        Marker(Side.BLACK, -1, PieceKind.TANK, where)))
    play.scene.marker_turns = {("aaa", where): 3, ("tank", where): 5}
    play.scene.show(seen)
    ghosts = play.scene._dressing.findAllMatches("marker")
    assert ghosts.getNumPaths() == 2
    xs = sorted(round(ghost.getX(), 2) for ghost in ghosts)
    assert xs[1] - xs[0] > 0.3  # apart, not one over the other
    texts = sorted(t.node().getText() for t in play.scene._dressing.findAllMatches(
        "**/+TextNode"))
    assert texts == ["seen T3", "seen T5"]


def test_a_cut_line_of_the_actions_menu_is_shown_whole_under_the_pointer(
        app: WecApp) -> None:
    """In a 1024 x 768 window the Actions menu cuts its longer lines ("Doze: choose the
    squares on th..."): pointing at one shows it whole under itself; a line that fits,
    or the pointer off the list, shows nothing."""
    resize(app, (1024, 768))
    play = start_standard(app)
    key(app, "a")
    menu = play.actions
    assert menu is not None
    shown = menu.visible_texts()
    cut = next(n for n, text in enumerate(shown) if text.endswith("..."))
    whole = menu.full[cut]
    assert whole.startswith(shown[cut][:-3]) and len(whole) > len(shown[cut]) - 3
    assert app.pointer is not None
    app.pointer.move(*row_px(app.base, menu, cut))
    app.pointer.step(3)
    assert menu.whole_text() == whole.strip()
    fits = next(n for n, text in enumerate(shown) if not text.endswith("..."))
    app.pointer.move(*row_px(app.base, menu, fits))
    app.pointer.step(3)
    assert menu.whole_text() == ""
    app.pointer.move(*cell_px(app.base, 5, 5))
    app.pointer.step(3)
    assert menu.whole_text() == ""
