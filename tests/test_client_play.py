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
    play = start_standard(app)
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
