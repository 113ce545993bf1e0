"""The client's parts: board geometry and picking, the orbit camera, plain-language
events, display settings, and how the board scene draws (retained picture, level order,
numbers)."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from wec.client.camera import MAX_DISTANCE, MAX_PITCH, MIN_DISTANCE, home_orbit
from wec.client.layout import LEVEL_Z, choose_hit, ray_hits, square_at, square_xy
from wec.client.narration import narrate, narrate_all
from wec.client.settings import Settings, load_settings, save_settings
from wec.engine import board
from wec.engine.board import AIR, GROUND, SUB
from wec.engine.events import Moved
from wec.engine.game import apply, legal_intents
from wec.engine.pieces import PieceKind, Side
from wec.engine.setup import standard_position


def test_every_square_centre_maps_back_to_its_square() -> None:
    assert [square_at(*square_xy(sq)) for sq in range(board.SQUARES)] == list(
        range(board.SQUARES))
    assert square_xy(board.square(1, 1)) == (-4.5, -4.5)     # White's corner at -X, -Y
    assert square_xy(board.square(10, 10)) == (4.5, 4.5)     # Black's corner
    assert square_at(5.6, 0.0) is None and square_at(0.0, -5.6) is None


def test_a_ray_straight_down_crosses_air_then_ground_then_sub() -> None:
    x, y = square_xy(board.square(4, 7))
    hits = ray_hits((x, y, 20.0), (0.0, 0.0, -1.0))
    assert [(h.level, h.body) for h in hits] == [
        (AIR, True), (AIR, False), (GROUND, True), (GROUND, False), (SUB, True), (SUB, False)]
    assert {h.sq for h in hits} == {board.square(4, 7)}
    assert hits[1].distance == 20.0 - LEVEL_Z[AIR]


def test_a_click_means_the_nearest_cell_that_holds_something() -> None:
    sq = board.square(4, 7)
    x, y = square_xy(sq)
    hits = ray_hits((x, y, 20.0), (0.0, 0.0, -1.0))
    assert choose_hit(hits, set()) == (sq, None)  # nothing there: the square, any level
    assert choose_hit(hits, {board.cell(sq, SUB)}) == (sq, SUB)
    assert choose_hit(hits, {board.cell(sq, SUB), board.cell(sq, AIR)}) == (sq, AIR)
    assert choose_hit(ray_hits((0.0, 0.0, 20.0), (1.0, 0.0, 0.0)), set()) is None


def test_an_oblique_ray_hits_the_square_it_points_at() -> None:
    target = square_xy(board.square(3, 3))
    eye = (target[0], target[1] - 10.0, 10.0)
    hits = ray_hits(eye, (0.0, 10.0, -10.0), (GROUND,))
    assert [(h.sq, h.body) for h in hits if not h.body] == [(board.square(3, 3), False)]


def test_the_camera_starts_behind_the_viewing_side() -> None:
    black, white = home_orbit(Side.BLACK).eye(), home_orbit(Side.WHITE).eye()
    assert black[1] > 5.0 and white[1] < -5.0            # Black's rows are at +Y
    assert abs(black[0]) < 1e-9 and abs(white[0]) < 1e-9
    assert black[2] > 5.0 and white[2] > 5.0              # above the board


def test_camera_moves_stay_within_their_limits() -> None:
    orbit = home_orbit(Side.WHITE)
    assert orbit.turned(370).heading == 10.0
    assert orbit.tilted(90).pitch == MAX_PITCH
    assert orbit.zoomed(100).distance == MAX_DISTANCE and orbit.zoomed(0.01).distance == (
        MIN_DISTANCE)
    x0, y0, _ = orbit.target
    x, y, _ = orbit.panned(1.0, 0.0).target
    assert (x - x0, y - y0) == (1.0, 0.0)                      # White's right is +X
    black = home_orbit(Side.BLACK)
    x0, y0, _ = black.target
    x, y, _ = black.panned(1.0, 0.0).target
    assert abs(x - x0 + 1.0) < 1e-9 and abs(y - y0) < 1e-9     # Black's right is -X
    assert orbit.panned(100.0, 0.0).target[0] == 6.0           # never far off the board


def test_events_read_as_plain_language() -> None:
    moved = Moved(Side.BLACK, PieceKind.TANK, None, board.cell(board.square(4, 3), GROUND),
                  board.cell(board.square(6, 3), GROUND),
                  board.cell(board.square(7, 3), GROUND))
    assert narrate(moved) == ("Black Tank (4,3) ground -> (6,3) ground "
                              "(stopped short of (7,3) ground)")


def test_every_event_of_random_games_has_a_line() -> None:
    rng = random.Random(7)
    seen: set[str] = set()
    for _ in range(3):
        position = standard_position()
        for _ in range(160):
            intents = legal_intents(position)
            if not intents:
                break
            outcome = apply(position, rng.choice(intents))
            lines = narrate_all(outcome.events)
            assert all(lines)
            seen.update(type(e).__name__ for e in outcome.events)
            position = outcome.position
    assert {"Moved", "Fired", "TurnEnded"} <= seen


def test_settings_round_trip_and_a_damaged_file_gives_defaults(tmp_path: Path) -> None:
    path = tmp_path / "wec" / "settings.json"
    assert load_settings(path) == (Settings(), None)
    save_settings(Settings(detail="simple", lighting=False), path)
    assert load_settings(path) == (Settings(detail="simple", lighting=False), None)
    path.write_text(json.dumps({"detail": "ultra"}))
    settings, problem = load_settings(path)
    assert settings == Settings()
    assert problem == (f"settings file {path} ignored (detail must be one of simple, "
                       "detailed); using the defaults")
    assert json.loads(path.read_text()) == {"detail": "ultra"}  # left untouched


def test_stun_counters_and_cooldowns_float_above_pieces() -> None:
    from wec.client.scene import status_lines

    start = standard_position()
    tank = next(p for p in start.pieces if p.kind is PieceKind.TANK)
    assert status_lines(tank, 1) == []
    # in the piece's own turns (R7.1, R6.3.2, O12): until turn 7 from turn 4
    stunned = tank.but(stunned_until=7, ready=(5,) * len(tank.abilities()))
    own = [4, 6] if tank.side is Side.WHITE else [5]
    ready = [4] if tank.side is Side.WHITE else []
    assert status_lines(stunned, 4) == [(f"stunned {len(own)}", "stun")] + (
        [(f"Flame {len(ready)}", "cooldown")] if ready else [])


def test_animations_follow_the_speed_setting(panda_base: Any) -> None:
    from wec.client.animation import Choreographer
    from wec.engine.events import Fired, Hit
    from wec.engine.pieces import ArticleKind

    here = board.cell(board.square(9, 2), GROUND)
    there = board.cell(board.square(2, 2), GROUND)
    events = [Fired(Side.BLACK, PieceKind.STUNNER_PAWN, here, ArticleKind.STUNNER, 1,
                    dir=(-1, 0)),
              Hit(there, Side.WHITE, PieceKind.STUNNER_PAWN, ArticleKind.STUNNER, 1, 1, 1)]
    root = panda_base.render.attachNewNode("animation-test")
    try:
        assert Choreographer(root, "off").effects(events) is None
        full = Choreographer(root, "full").effects(events)
        fast = Choreographer(root, "fast").effects(events)
        assert full is not None and fast is not None
        assert len(full.ivals) == 2  # the shot (flash and tracer), then the hit
        assert abs(fast.getDuration() - full.getDuration() / 2) < 1e-6
    finally:
        root.removeNode()


# --------------------------------------------------------------------------- the board scene


def window_pixels(base: Any) -> bytes:
    """The window's current picture, RGB."""
    from panda3d.core import PNMImage, Texture

    image = PNMImage()
    assert base.win.getScreenshot(image)
    texture = Texture()
    texture.load(image)
    return bytes(texture.getRamImageAs("RGB"))


def differing_pixels(first: bytes, second: bytes) -> int:
    return sum(first[i:i + 3] != second[i:i + 3] for i in range(0, len(first), 3))


def showing_picture(play: Any) -> bool:
    """Whether the board is shown from its retained picture; it never is while something
    else is drawn in 3D (a node another test left under ``render`` would say so here)."""
    render = play.base.render
    others = [child.getName() for child in render.getChildren()
              if child not in (play.scene.root, play.base.camera) and not child.isHidden()]
    assert not others, f"something else under render: {others}"
    return bool(play.scene.retained.showing_picture)


@pytest.fixture
def playing(panda_base: Any, tmp_path: Path) -> Iterator[Any]:
    """The play screen of a new standard game (Black to act), a few frames in."""
    from wec.client.app import WecApp
    from wec.engine.options import Options

    app = WecApp(base=panda_base, settings=Settings(), settings_file=tmp_path / "s.json")
    play = app.start_game(Options())
    app.pointer.move(0, 0)  # the window's corner, off the board: no square is hovered
    app.pointer.step(3)
    yield play
    app.close()


def test_a_still_board_is_shown_from_its_picture_with_the_same_pixels(playing: Any) -> None:
    """Nothing moves: after one frame drawn directly, the board is rendered once into a
    picture and shown from it; the window shows the pixels it would have drawn (a few
    edge pixels of thin parts may round the other way)."""
    from wec.client.camera import home_orbit

    base, retained = playing.base, playing.scene.retained
    assert showing_picture(playing)
    pictures = retained.pictures_drawn
    playing.app.pointer.step(5)
    assert retained.pictures_drawn == pictures  # rendered once, then only shown
    home = home_orbit(Side.BLACK)
    # From home, from aside, low over the board's edge (the Sub plane shows beyond the
    # rim), close up: the picture, cropped to the board's outline, loses nothing.
    for orbit in (home, home.turned(60.0), home.tilted(-45.0).zoomed(1.5),
                  home.zoomed(0.35).panned(2.0, 1.0)):
        playing.camera.set_orbit(orbit)
        playing.app.pointer.step(3)
        assert showing_picture(playing)
        from_picture = window_pixels(base)
        playing.scene.invalidate()
        playing.app.pointer.step(1)
        assert not retained.showing_picture
        drawn = window_pixels(base)
        total = len(drawn) // 3
        assert differing_pixels(from_picture, drawn) < total // 1000, orbit
        background = bytes(round(255 * c) for c in tuple(base.win.getClearColor())[:3])
        assert sum(drawn[i:i + 3] != background for i in range(0, len(drawn), 3)) > total // 10


def test_every_change_draws_the_board_afresh_until_it_is_still_again(playing: Any) -> None:
    from wec.client.interaction import Highlight

    scene, retained, step = playing.scene, playing.scene.retained, playing.app.pointer.step
    assert showing_picture(playing)
    scene.hover(board.square(5, 5), GROUND)          # the mouse moved to another square
    step(1)
    assert not retained.showing_picture
    step(1)
    assert showing_picture(playing)
    pictures = retained.pictures_drawn
    home = playing.camera.orbit
    playing.camera.set_orbit(home.turned(5.0))
    step(1)
    assert not retained.showing_picture
    playing.camera.set_orbit(home)  # back where the picture was taken
    step(2)
    assert showing_picture(playing) and retained.pictures_drawn == pictures
    scene.light({board.cell(board.square(5, 5), GROUND): Highlight.MOVE})
    step(3)
    assert not retained.showing_picture              # the highlight pulses every frame
    scene.light({})
    step(2)
    assert showing_picture(playing)
    playing.app.shading.set_lighting(False)
    step(1)
    assert not retained.showing_picture
    playing.app.shading.set_lighting(True)
    step(2)
    assert showing_picture(playing)
    scene.root.hide()                                 # the hand-over curtain
    step(1)
    assert not retained.showing_picture
    assert retained._card is not None and retained._card.isStashed()
    scene.root.show()
    step(2)
    assert showing_picture(playing)


def test_animations_and_other_3d_things_are_drawn_directly(playing: Any) -> None:
    """A playing animation moves pieces every frame, and something else in 3D could not
    be placed in depth over a flat picture: both draw the board directly."""
    from direct.interval.IntervalGlobal import Wait
    from panda3d.core import CardMaker

    scene, retained, step = playing.scene, playing.scene.retained, playing.app.pointer.step
    assert showing_picture(playing)
    scene.animation = Wait(10.0)
    scene.animation.start()
    step(2)
    assert not retained.showing_picture
    scene.animation.finish()
    step(2)
    assert showing_picture(playing)
    flash = playing.base.render.attachNewNode(CardMaker("flash").generate())
    step(2)
    assert not retained.showing_picture
    flash.removeNode()
    step(2)
    assert showing_picture(playing)


def test_translucent_things_are_drawn_level_by_level(playing: Any) -> None:
    """Sub level, the Sub plane (left out where the Ground covers it), the Ground
    squares (88% opaque, not writing depth), the Sub pieces seen through the water,
    Ground level, Air plane, Air level."""
    from wec.client.scene import LEVEL_BIN, XRAY

    scene = playing.scene
    planes, squares = scene._layer_planes, scene._ground_tiles

    def order(node: Any) -> tuple[str, int]:
        return node.getBinName(), node.getBinDrawOrder()

    assert order(squares) == (LEVEL_BIN, 2) and not squares.getDepthWrite()
    assert order(planes[SUB]) == (LEVEL_BIN, 1) and order(planes[AIR]) == (LEVEL_BIN, 5)
    assert order(scene._xray) == (LEVEL_BIN, XRAY) and 2 < XRAY < 4
    scene.set_level_shown(GROUND, False)
    assert order(planes[SUB]) == (LEVEL_BIN, 1)
    assert order(scene.levels[GROUND]) == (LEVEL_BIN, 4)   # its faded pieces
    scene.set_level_shown(GROUND, True)
    assert not scene.levels[GROUND].hasTransparency()      # pieces opaque again


def test_rank_and_file_numbers_are_one_draw_each_way(playing: Any) -> None:
    from panda3d.core import ShaderAttrib

    scene = playing.scene
    sets = scene._label_sets
    for numbers in sets.values():
        assert numbers.findAllMatches("**/+GeomNode").getNumPaths() == 1
    scene.face_labels(180.0)                       # Black's side: read from +Y
    assert not sets[180.0].isHidden() and sets[0.0].isHidden()
    scene.face_labels(10.0)
    assert not sets[0.0].isHidden() and sets[180.0].isHidden()
    # Glyphs are alpha-only textures: drawn without the lit shader (which would read
    # them black), in their light colour on the dark rim.
    shader = scene._labels.getState().getAttrib(ShaderAttrib)
    assert shader is not None and shader.getShader() is None
    base = playing.base
    scene.face_labels(playing.camera.orbit.heading)
    playing.app.pointer.step(2)
    x, y = rim_label_px(base, scene)
    image = window_pixels(base)
    width = base.win.getXSize()
    height = base.win.getYSize()
    brightest = max(image[3 * ((height - 1 - j) * width + i)]
                    for i in range(x - 6, x + 7) for j in range(y - 6, y + 7))
    assert brightest > 150, f"the number at ({x}, {y}) is not drawn light: {brightest}"


def rim_label_px(base: Any, scene: Any) -> tuple[int, int]:
    """Pixel of the number "5" on the left rim (rows), where the camera sees it."""
    from panda3d.core import Point2, Point3

    seen = base.cam.getRelativePoint(scene.root, Point3(-5.6, 5 - 5.5, 0.01))
    flat = Point2()
    assert base.camLens.project(seen, flat)
    width, height = base.win.getXSize(), base.win.getYSize()
    return int((flat.x + 1) / 2 * width), int((1 - flat.y) / 2 * height)


def test_the_ground_hides_the_sub_plane_from_the_home_view_not_from_low_and_aside() -> None:
    """The Ground with its rim (5.8 squares each side of the centre) covers the Sub
    plane (5 each side, 1.7 lower) from the home views; from low and far aside the Sub
    plane shows beyond the rim."""
    from wec.client.layout import hides_from

    rim, sub = (5.8, -0.02), (5.0, LEVEL_Z[SUB])
    for side in (Side.BLACK, Side.WHITE):
        assert hides_from(home_orbit(side).eye(), rim, sub)
    low = home_orbit(Side.WHITE).tilted(-48.0).zoomed(1.8)   # pitch 8, far out
    assert not hides_from(low.eye(), rim, sub)
    assert not hides_from((0.0, 0.0, -3.0), rim, sub)         # from below: never


def test_the_picture_card_is_the_board_outline_cut_to_the_window() -> None:
    from wec.client.scene import clip_to_window, convex_hull

    square = [(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)]
    assert convex_hull([*square, (0.0, 0.0), (0.2, -0.1)]) == square
    # A triangle sticking out below and right: cut along the window's edges, not squeezed.
    cut = clip_to_window([(0.0, 0.0), (3.0, -1.0), (0.0, -3.0)])
    assert sorted((round(x, 4), round(y, 4)) for x, y in cut) == [
        (0.0, -1.0), (0.0, 0.0), (1.0, -1.0), (1.0, -0.3333)]
    assert clip_to_window([(2.0, 2.0), (3.0, 2.0), (3.0, 3.0)]) == []


def test_a_refused_message_is_named_in_a_players_words() -> None:
    """The lines "Bob refused your claim of a win on time: ..." name every message a
    peer can refuse in words, never by its wire tag."""
    from wec.client import narration
    from wec.net.messages import _REGISTRY

    assert narration.message_words("time_claim") == "claim of a win on time"
    assert narration.message_words("intent") == "move"
    never_refused = {"hello", "pairing", "pairing_state", "heartbeat", "bye", "rejected",
                     "desync", "game_closed"}  # session and link plumbing
    ours = {tag for tag, (cls, _) in _REGISTRY.items()  # not the test modules' own
            if cls.__module__.startswith("wec.")}
    assert len(ours) > 30
    assert ours - never_refused <= set(narration._MESSAGE_WORDS)
    assert narration.message_words("made_up_tag") == "made up tag"  # untrusted text


def test_every_intent_reads_in_plain_words_without_identifiers() -> None:
    """Where no event tells what an intent did (a network game still resolving it, a
    side's own steps in a replay) it reads in the history's words: "Black Rocket Pawn
    (2,1) ground -> (3,2) ground", not "move rocket_pawn (2,1) ground -> ...". Every
    legal intent of random positions, its piece named from the position."""
    from wec.client.narration import intent_words
    from wec.engine.intents import EndTurn, Move

    rng = random.Random(4)
    position = standard_position()
    kinds: set[str] = set()
    for _ in range(300):
        if position.result is not None:
            break
        legal = legal_intents(position)
        for intent in legal:
            side = position.side_to_act
            text = intent_words(intent, side, position)
            kinds.add(type(intent).__name__)
            assert "_" not in text and "None" not in text and "direction (" not in text, text
            assert text.startswith(side.title), text
            # the acting piece is named, looked up where the intent leaves its kind out
            assert not text.startswith(f"{side.title} ("), text
        intent = rng.choice(legal)
        position = apply(position, intent).position
    assert {"Move", "Fire", "EndTurn"} <= kinds
    move = next(i for i in legal_intents(standard_position()) if isinstance(i, Move)
                and i.frm == board.cell(board.square(9, 1), GROUND))
    assert intent_words(move, Side.BLACK, standard_position()) == \
        f"Black {narrate_kind(standard_position(), move.frm)} (9,1) ground -> " \
        f"{board.describe_cell(move.to)}"
    assert intent_words(EndTurn(), Side.WHITE) == "White ends the turn"


def narrate_kind(position: Any, cell: int) -> str:
    from wec.engine.pieces import describe_kind

    return describe_kind(next(p.kind for p in position.pieces if p.cell == cell))


def test_an_enemy_action_seen_not_at_all_is_told_by_its_kind_alone() -> None:
    """A hidden piece's Move travels as a placeholder Move (net.fog_codec HIDDEN_MOVE);
    the network game's message line read "Bob: move (1,1) air -> (1,1) air"."""
    from wec.client.narration import unseen_action_words
    from wec.engine.intents import Doze, Exchange, Move, PickUp
    from wec.engine.pieces import ArticleKind
    from wec.net.fog_codec import HIDDEN_MOVE

    assert unseen_action_words(HIDDEN_MOVE) == "a move you do not see"
    assert unseen_action_words(Move(5, 8)) == "a move you do not see"
    # a hidden Dozer's Doze travels as a hidden Move: whether it dozed is not shown
    assert unseen_action_words(Doze(4, (4,), (1, 0))) == "a move you do not see"
    assert unseen_action_words(PickUp(4, ArticleKind.FLAME)) == "a pick-up you do not see"
    assert unseen_action_words(Exchange(4, 4, ArticleKind.FLAME)) == \
        "an exchange you do not see"
