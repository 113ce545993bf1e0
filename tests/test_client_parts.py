"""The client's pure parts: board geometry and picking, the orbit camera, plain-language
events, display settings."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from client.camera import MAX_DISTANCE, MAX_PITCH, MIN_DISTANCE, home_orbit
from client.layout import LEVEL_Z, choose_hit, ray_hits, square_at, square_xy
from client.narration import narrate, narrate_all
from client.settings import Settings, load_settings, save_settings
from engine import board
from engine.board import AIR, GROUND, SUB
from engine.events import Moved
from engine.game import apply, legal_intents
from engine.pieces import PieceKind, Side
from engine.setup import standard_position


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
    from client.scene import status_lines

    start = standard_position()
    tank = next(p for p in start.pieces if p.kind is PieceKind.TANK)
    assert status_lines(tank, 1) == []
    stunned = tank.but(stunned_until=7, ready=(5,) * len(tank.abilities()))
    assert status_lines(stunned, 4) == [("stunned 3", "stun"), ("Flame 1", "cooldown")]


def test_animations_follow_the_speed_setting(panda_base: Any) -> None:
    from client.animation import Choreographer
    from engine.events import Fired, Hit
    from engine.pieces import ArticleKind

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
