"""Worked examples of /work/shared/rules-examples.md, sections D-H (combat, transports,
dozing, conversion, end of game), plus focused tests of R4-R8 and R12 where the
examples leave gaps.

Each example test is named after the example it checks and asserts what a player
would see: which pieces stand where (side, kind, row, col, level), stuns, cooldowns
("ready" turn numbers), articles on the ground, projectiles and the game result.
Unless stated the board holds only the listed pieces, all visible, with no articles.
Turn parity: Black acts on odd turns, White on even turns (R4.1).
"""

from __future__ import annotations

from typing import Any

import pytest
from rules_helpers import black, cell, cell_tuple, ground_articles, layout, sq, white

from wec import engine
from wec.engine.errors import IllegalIntent
from wec.engine.events import (
    Converted,
    Destroyed,
    Dozed,
    Fell,
    Fired,
    GameOver,
    Hit,
    HomingBroken,
    ProjectileLaunched,
    ProjectileRemoved,
    ProjectileStepped,
    Stunned,
    TransportEnded,
    TransportStepped,
)
from wec.engine.game import legal_intents
from wec.engine.intents import Doze, EndTurn, Fire, Move
from wec.engine.pieces import ArticleKind, PieceKind, Side
from wec.engine.transport import path_squares

A = ArticleKind
K = PieceKind

# --------------------------------------------------------------------------- helpers


def build(pieces: list[dict[str, Any]], *, turn: int, options: dict[str, Any] | None = None,
          articles: list[tuple[str, int, int]] | None = None,
          projectiles: list[dict[str, Any]] | None = None) -> engine.Position:
    """A ``wec-position/1`` position with exactly these pieces, articles and projectiles."""
    data: dict[str, Any] = {"format": "wec-position/1", "turn": turn, "pieces": pieces}
    if articles:
        data["articles"] = [{"kind": k, "at": [r, c]} for k, r, c in articles]
    if options:
        data["options"] = options
    if projectiles:
        data["projectiles"] = projectiles
    return engine.position_from_dict(data)


def entry(**fields: Any) -> dict[str, Any]:
    """A piece entry with fields the rules_helpers constructors do not take."""
    out: dict[str, Any] = {"level": "ground"}
    out.update(fields)
    return out


def spend_move(position: engine.Position) -> engine.Position:
    """The same position with this turn's Move counted as made (so EndTurn is allowed)."""
    data = engine.position_to_dict(position)
    data.setdefault("actions_this_turn", {})["move"] = 1
    return engine.position_from_dict(data)


def next_turn(position: engine.Position) -> engine.Outcome:
    """Count the Move as made and end the turn: runs the next turn's projectile and
    transport phases (R4.2)."""
    return engine.apply(spend_move(position), EndTurn())


def advance_to(position: engine.Position, turn: int) -> engine.Position:
    while position.turn < turn:
        position = next_turn(position).position
    assert position.turn == turn
    return position


def fire(position: engine.Position, frm: tuple[Any, ...], weapon: ArticleKind,
         **aim: Any) -> engine.Outcome:
    """Apply a Fire from ``frm`` = (row, col) or (row, col, level)."""
    return engine.apply(position, Fire(cell(*frm), weapon, **aim))


def refusal(position: engine.Position, intent: Any) -> str:
    """Apply an intent that must be refused; returns the rule named."""
    with pytest.raises(IllegalIntent) as info:
        engine.apply(position, intent)
    return info.value.rule


def move(position: engine.Position, frm: tuple[Any, ...], to: tuple[Any, ...],
         kind: PieceKind | None = None) -> engine.Outcome:
    return engine.apply(position, Move(cell(*frm), cell(*to), kind))


def piece_at(position: engine.Position, row: int, col: int, level: str = "ground",
             kind: str | None = None) -> dict[str, Any]:
    """The position-format entry of the one piece at that cell (of that kind)."""
    found = [p for p in engine.position_to_dict(position)["pieces"]
             if p["at"] == [row, col] and p["level"] == level
             and (kind is None or p["kind"] == kind)]
    assert len(found) == 1, found
    return found[0]


def projectiles(position: engine.Position) -> list[tuple[str, str, tuple[int, int], int,
                                                          tuple[int, int], bool]]:
    """Every projectile as (kind, side, square, strength, dir, homing)."""
    return sorted((p["kind"], p["side"], (p["at"][0], p["at"][1]), p["strength"],
                   (p["dir"][0], p["dir"][1]), "target" in p)
                  for p in engine.position_to_dict(position).get("projectiles", []))


def of_type(events: tuple[Any, ...], kind: type) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]


def destroyed(events: tuple[Any, ...]) -> list[tuple[str, str, tuple[int, int, str], str]]:
    """(side, kind, cell, cause) of every Destroyed event."""
    return sorted((e.piece.side.value, e.piece.kind.value, cell_tuple(e.cell), e.cause)
                  for e in of_type(events, Destroyed))


# --------------------------------------------------------------------------- EX-18

def _ex18(flame_range: int = 1, pawn: str = "rocket_pawn") -> engine.Position:
    return build([white("tank", 5, 5, hand="right"), black(pawn, 6, 5),
                  black("jet", 6, 5, "air"), white("dozer", 7, 5)],
                 turn=30, options={"flame_range": flame_range})


def test_ex18_flame_hits_only_its_level_and_range():
    """EX-18 (R6.5.1, R6.3.2): FlameRange 1 flames (6,5)G only: the Rocket Pawn dies, the
    Jet at Air and the Dozer at distance 2 are untouched; the Flame is ready on T + 8."""
    out = fire(_ex18(), (5, 5), A.FLAME, dir=(1, 0))
    assert layout(out.position) == [
        ("black", "jet", 6, 5, "air"),
        ("white", "dozer", 7, 5, "ground"),
        ("white", "tank", 5, 5, "ground"),
    ]
    assert destroyed(out.events) == [("black", "rocket_pawn", (6, 5, "ground"), "flame")]
    assert piece_at(out.position, 5, 5)["ready"] == [38]
    assert ground_articles(out.position) == {}


def test_ex18_variant_flame_range_2_is_fratricidal():
    """EX-18 variant (R6.5.1, R6.1.5): FlameRange 2 flames (6,5)G and (7,5)G; the White
    Dozer is destroyed too."""
    out = fire(_ex18(flame_range=2), (5, 5), A.FLAME, dir=(1, 0))
    assert layout(out.position) == [
        ("black", "jet", 6, 5, "air"),
        ("white", "tank", 5, 5, "ground"),
    ]
    assert destroyed(out.events) == [
        ("black", "rocket_pawn", (6, 5, "ground"), "flame"),
        ("white", "dozer", (7, 5, "ground"), "flame"),
    ]


def test_ex18_variant_flame_pawn_survives_one_hit():
    """EX-18 variant (R6.4.3): a Black Flame Pawn at (6,5): 1 hit <= 1 Anti-Flame."""
    out = fire(_ex18(pawn="flame_pawn"), (5, 5), A.FLAME, dir=(1, 0))
    assert ("black", "flame_pawn", 6, 5, "ground") in layout(out.position)
    assert destroyed(out.events) == []
    hits = of_type(out.events, Hit)
    assert [(h.kind, h.total, h.defences) for h in hits] == [(K.FLAME_PAWN, 1, 1)]


# --------------------------------------------------------------------------- EX-19

def _ex19() -> engine.Position:
    return build([white("tank", 5, 5, hand="right", articles=["xxx", "flame"]),
                  black("flame_pawn", 6, 5, articles=["xxx", "anti_flame"]),
                  white("flame_pawn", 6, 4)], turn=30)


def test_ex19_defence_stacking_and_group_fire():
    """EX-19 (R6.2.1, R6.4.3, R3.4, R6.3.2): the Tank's two Flames (n = 2) leave the Black
    pawn at 2 hits <= 2 Anti-Flame; the White Flame Pawn's hit is the 3rd > 2 -> it is
    destroyed and its XXX and Anti-Flame drop on (6,5)G. All three Flames ready on 38."""
    first = fire(_ex19(), (5, 5), A.FLAME, dir=(1, 0))
    assert [(e.weapon, e.strength) for e in of_type(first.events, Fired)] == [(A.FLAME, 2)]
    assert piece_at(first.position, 6, 5)["articles"] == ["xxx", "anti_flame"]
    assert piece_at(first.position, 6, 5)["side"] == "black"
    second = fire(first.position, (6, 4), A.FLAME, dir=(0, 1))
    assert destroyed(second.events) == [("black", "flame_pawn", (6, 5, "ground"), "flame")]
    assert layout(second.position) == [
        ("white", "flame_pawn", 6, 4, "ground"),
        ("white", "tank", 5, 5, "ground"),
    ]
    assert ground_articles(second.position) == {(6, 5): ["anti_flame", "xxx"]}
    # inherent Flame, XXX, Flame article / inherent Flame, inherent Anti-Flame
    assert piece_at(second.position, 5, 5)["ready"] == [38, 0, 38]
    assert piece_at(second.position, 6, 4)["ready"] == [38, 0]


def test_ex19_counter_example_hit_counters_reset_between_turns():
    """EX-19 counter-example (R4.2(1), R6.4.2): Fire 1 on T = 30, the pawn's hit on
    T = 32 -> the counters were reset in between -> the Black pawn survives both."""
    first = fire(_ex19(), (5, 5), A.FLAME, dir=(1, 0))
    later = advance_to(first.position, 32)
    second = fire(later, (6, 4), A.FLAME, dir=(0, 1))
    assert [(h.hits, h.total, h.defences) for h in of_type(second.events, Hit)] == [(1, 1, 2)]
    assert destroyed(second.events) == []
    assert piece_at(second.position, 6, 5) == {
        "side": "black", "kind": "flame_pawn", "at": [6, 5], "level": "ground",
        "articles": ["xxx", "anti_flame"]}


# --------------------------------------------------------------------------- EX-20

def _ex20(level: str = "ground") -> engine.Position:
    return build([white("chopper", 2, 5, level, hand="right"),
                  black("flame_pawn", 4, 5, articles=["anti_rocket"]),
                  black("aaa", 4, 5, hidden=True), black("rocket_pawn", 6, 5)], turn=10)


def test_ex20_stunner_hits_first_occupied_square_hidden_pieces_too():
    """EX-20 (R6.6.1, R7.1, R7.3, R9.11): the first occupied Ground square is (4,5):
    Flame Pawn and hidden AAA are both stunned until T = 16; the Anti-Rocket drops on
    (4,5)G; (6,5) is untouched; the AAA stays hidden; the Stunner is ready on 14."""
    out = fire(_ex20(), (2, 5), A.STUNNER, dir=(1, 0))
    p = out.position
    assert layout(p) == [
        ("black", "aaa", 4, 5, "ground"),
        ("black", "flame_pawn", 4, 5, "ground"),
        ("black", "rocket_pawn", 6, 5, "ground"),
        ("white", "chopper", 2, 5, "ground"),
    ]
    assert piece_at(p, 4, 5, kind="flame_pawn").get("stunned_until") == 16
    assert "articles" not in piece_at(p, 4, 5, kind="flame_pawn")
    aaa = piece_at(p, 4, 5, kind="aaa")
    assert aaa.get("stunned_until") == 16
    assert aaa.get("hidden") is True
    assert "stunned_until" not in piece_at(p, 6, 5)
    assert ground_articles(p) == {(4, 5): ["anti_rocket"]}
    assert piece_at(p, 2, 5)["ready"] == [14]
    assert sorted((e.kind.value, e.until) for e in of_type(out.events, Stunned)) == [
        ("aaa", 16), ("flame_pawn", 16)]


def test_ex20_stunned_pieces_sit_out_turns_11_13_15_and_act_on_17():
    """EX-20 (R7.1, R7.2): stunned until 16 -> no Move or Fire on Black turns 11, 13, 15;
    free on 17."""
    p = fire(_ex20(), (2, 5), A.STUNNER, dir=(1, 0)).position
    for turn in (11, 13, 15):
        p = advance_to(p, turn)
        assert refusal(p, Move(cell(4, 5), cell(3, 4), K.FLAME_PAWN)) == "R7.2"
        assert refusal(p, Move(cell(4, 5), cell(4, 4), K.AAA)) == "R7.2"
        assert refusal(p, Fire(cell(4, 5), A.SAM_LAUNCHER, dir=(-1, 0), kind=K.AAA)) == "R7.2"
    p = advance_to(p, 17)
    after = move(p, (4, 5), (4, 4), K.AAA).position
    assert ("black", "aaa", 4, 4, "ground") in layout(after)
    after = move(p, (4, 5), (3, 4), K.FLAME_PAWN).position
    assert ("black", "flame_pawn", 3, 4, "ground") in layout(after)


def test_ex20_variant_stunner_from_air_acts_at_air():
    """EX-20 variant (R6.1.4, R6.6.1): the Chopper at (2,5)A -> the Stunner acts at Air
    and hits nothing."""
    before = _ex20("air")
    out = fire(before, (2, 5, "air"), A.STUNNER, dir=(1, 0))
    assert of_type(out.events, Stunned) == []
    assert layout(out.position) == layout(before)
    assert piece_at(out.position, 4, 5, kind="flame_pawn")["articles"] == ["anti_rocket"]
    assert "stunned_until" not in piece_at(out.position, 4, 5, kind="aaa")
    assert ground_articles(out.position) == {}
    assert piece_at(out.position, 2, 5, "air")["ready"] == [14]


# --------------------------------------------------------------------------- EX-21

def _ex21(stunner_pawn: bool = True) -> engine.Position:
    pieces = [white("rocket_pawn", 3, 2), black("flame_pawn", 6, 3)]
    if stunner_pawn:
        pieces.append(black("stunner_pawn", 7, 2))
    return build(pieces, turn=6)


def test_ex21_rocket_launch_and_flight():
    """EX-21 (R6.8.2, R6.8.4): the Rocket (n = 1) appears at (4,2)G heading (1,0); at the
    start of T = 7 it is on (5,2)."""
    out = fire(_ex21(), (3, 2), A.ROCKET_LAUNCHER, dir=(1, 0))
    assert projectiles(out.position) == [("rocket", "white", (4, 2), 1, (1, 0), False)]
    assert of_type(out.events, ProjectileLaunched) == [
        ProjectileLaunched("rocket", Side.WHITE, sq(4, 2), 1, (1, 0))]
    assert piece_at(out.position, 3, 2)["ready"] == [14, 0]
    t7 = next_turn(out.position).position
    assert t7.turn == 7
    assert projectiles(t7) == [("rocket", "white", (5, 2), 1, (1, 0), False)]


def test_ex21_piece_moving_onto_rocket_is_hit():
    """EX-21 (R6.8.5): on T = 7 Black moves the Flame Pawn (6,3) -> (5,2) onto the Rocket
    and is destroyed at once (no Anti-Rocket); the Rocket is removed."""
    t7 = next_turn(fire(_ex21(), (3, 2), A.ROCKET_LAUNCHER, dir=(1, 0)).position).position
    out = move(t7, (6, 3), (5, 2))
    assert destroyed(out.events) == [("black", "flame_pawn", (5, 2, "ground"), "rocket")]
    assert projectiles(out.position) == []
    assert layout(out.position) == [
        ("black", "stunner_pawn", 7, 2, "ground"),
        ("white", "rocket_pawn", 3, 2, "ground"),
    ]


def test_ex21_rocket_hits_stunner_pawn_on_t9():
    """EX-21 (R6.8.4, R6.8.5): otherwise T = 8 -> (6,2); T = 9 -> (7,2): the Stunner Pawn
    is destroyed and the Rocket removed."""
    p = fire(_ex21(), (3, 2), A.ROCKET_LAUNCHER, dir=(1, 0)).position
    p = advance_to(p, 8)
    assert projectiles(p) == [("rocket", "white", (6, 2), 1, (1, 0), False)]
    out = next_turn(p)
    assert out.position.turn == 9
    assert destroyed(out.events) == [("black", "stunner_pawn", (7, 2, "ground"), "rocket")]
    assert projectiles(out.position) == []
    assert layout(out.position) == [
        ("black", "flame_pawn", 6, 3, "ground"),
        ("white", "rocket_pawn", 3, 2, "ground"),
    ]


def test_ex21_rocket_leaves_the_board():
    """EX-21 (R6.8.4): with column 2 empty the Rocket reaches (10,2) on T = 12 and is
    removed on T = 13."""
    p = fire(_ex21(stunner_pawn=False), (3, 2), A.ROCKET_LAUNCHER, dir=(1, 0)).position
    p = advance_to(p, 12)
    assert projectiles(p) == [("rocket", "white", (10, 2), 1, (1, 0), False)]
    out = next_turn(p)
    assert out.position.turn == 13
    assert projectiles(out.position) == []
    assert of_type(out.events, ProjectileRemoved) == [
        ProjectileRemoved("rocket", Side.WHITE, sq(10, 2), "left_board")]
    assert len(layout(out.position)) == 2


# --------------------------------------------------------------------------- EX-23

def _ex23(jet_articles: tuple[str, ...] = (), enemy_below: bool = True) -> engine.Position:
    pieces = [white("jet", 6, 5, "air", articles=jet_articles),
              black("tank", 7, 5, hand="right")]
    if enemy_below:
        pieces += [black("rocket_pawn", 6, 5), black("destroyer", 6, 5)]
    return build(pieces, turn=20)


def test_ex23_restricted_rocket_hits_everything_below():
    """EX-23 (R6.12.1, R6.12.2): the Jet's restricted rocket at the Destroyer gives every
    piece at (6,5)G 1 Rocket hit: the Destroyer dies, the Rocket Pawn survives (1 <= 1);
    no projectile remains; the restricted launcher is ready on 28."""
    out = fire(_ex23(), (6, 5, "air"), A.ROCKET_LAUNCHER, target=cell(6, 5),
               target_kind=K.DESTROYER)
    assert destroyed(out.events) == [("black", "destroyer", (6, 5, "ground"), "rocket")]
    assert layout(out.position) == [
        ("black", "rocket_pawn", 6, 5, "ground"),
        ("black", "tank", 7, 5, "ground"),
        ("white", "jet", 6, 5, "air"),
    ]
    assert projectiles(out.position) == []
    assert piece_at(out.position, 6, 5, "air")["ready"] == [0, 28]


def test_ex23_tank_at_distance_1_cannot_be_targeted():
    """EX-23 (R6.12.1): the Black Tank at (7,5) is at distance 1 > RestrictedRocketRange 0."""
    assert refusal(_ex23(), Fire(cell(6, 5, "air"), A.ROCKET_LAUNCHER,
                                 target=cell(7, 5))) == "R6.12.1"


def test_ex23_variant_rocket_launcher_article_joins_the_restricted_rocket():
    """EX-23 variant (R6.2.2, R6.12.2): the Jet also carries XXX + Rocket Launcher: n = 2
    -> the Rocket Pawn (1 Anti-Rocket) is destroyed too; both launchers cool down."""
    out = fire(_ex23(("xxx", "rocket_launcher")), (6, 5, "air"), A.ROCKET_LAUNCHER,
               target=cell(6, 5), target_kind=K.DESTROYER)
    assert destroyed(out.events) == [
        ("black", "destroyer", (6, 5, "ground"), "rocket"),
        ("black", "rocket_pawn", (6, 5, "ground"), "rocket"),
    ]
    assert layout(out.position) == [
        ("black", "tank", 7, 5, "ground"),
        ("white", "jet", 6, 5, "air"),
    ]
    assert projectiles(out.position) == []
    assert piece_at(out.position, 6, 5, "air")["ready"] == [0, 28, 0, 28]


def test_ex23_variant_no_enemy_below_only_the_article_fires_directionally():
    """EX-23 variant (R6.12.1, R6.2.2, R6.9.1): no enemy at (6,5)G -> the restricted
    launcher cannot fire; the article alone fires a directional Rocket (n = 1) created at
    Ground of the adjacent square."""
    p = _ex23(("xxx", "rocket_launcher"), enemy_below=False)
    assert refusal(p, Fire(cell(6, 5, "air"), A.ROCKET_LAUNCHER,
                           target=cell(6, 5))) == "R6.12.1"
    out = fire(p, (6, 5, "air"), A.ROCKET_LAUNCHER, dir=(-1, 0))
    assert projectiles(out.position) == [("rocket", "white", (5, 5), 1, (-1, 0), False)]
    assert piece_at(out.position, 6, 5, "air")["ready"] == [0, 0, 0, 28]
    # fired toward the Tank, the Rocket is created on its square and hits at once (R6.8.5)
    out = fire(p, (6, 5, "air"), A.ROCKET_LAUNCHER, dir=(1, 0))
    assert destroyed(out.events) == [("black", "tank", (7, 5, "ground"), "rocket")]
    assert projectiles(out.position) == []


def test_ex23_jet_without_article_has_no_directional_rocket():
    """R6.2.2, R6.12.1: a restricted Rocket Launcher never fires in a direction."""
    assert refusal(_ex23(), Fire(cell(6, 5, "air"), A.ROCKET_LAUNCHER,
                                 dir=(-1, 0))) == "R6.12.1"


# --------------------------------------------------------------------------- EX-24

def test_ex24_stunner_ready_after_two_own_turns_flame_after_four():
    """EX-24 (R6.3.2): a White Stunner fired on T = 10 fires again on T = 14 (not 12); a
    White Flame fired on T = 10 fires again on T = 18."""
    p = build([white("stunner_pawn", 2, 2), white("tank", 2, 8, hand="left")], turn=10)
    p = fire(p, (2, 2), A.STUNNER, dir=(1, 0)).position
    p = fire(p, (2, 8), A.FLAME, dir=(1, 0)).position
    assert piece_at(p, 2, 2)["ready"] == [14, 0]
    assert piece_at(p, 2, 8)["ready"] == [18]
    p = advance_to(p, 12)
    assert refusal(p, Fire(cell(2, 2), A.STUNNER, dir=(1, 0))) == "R6.3.2"
    assert refusal(p, Fire(cell(2, 8), A.FLAME, dir=(1, 0))) == "R6.3.2"
    p = advance_to(p, 14)
    assert piece_at(fire(p, (2, 2), A.STUNNER, dir=(1, 0)).position, 2, 2)["ready"] == [18, 0]
    assert refusal(p, Fire(cell(2, 8), A.FLAME, dir=(1, 0))) == "R6.3.2"
    p = advance_to(p, 16)
    assert refusal(p, Fire(cell(2, 8), A.FLAME, dir=(1, 0))) == "R6.3.2"
    p = advance_to(p, 18)
    assert piece_at(fire(p, (2, 8), A.FLAME, dir=(1, 0)).position, 2, 8)["ready"] == [26]


def _stun_target() -> engine.Position:
    return build([white("stunner_pawn", 2, 5), black("rocket_pawn", 8, 5, moved=True)],
                 turn=10)


def test_ex24_enemy_stun_on_t10_lasts_until_17():
    """EX-24 (R7.1, R7.2): a Black piece stunned on T = 10 cannot act on T = 11, 13, 15
    and acts again on T = 17."""
    p = fire(_stun_target(), (2, 5), A.STUNNER, dir=(1, 0)).position
    assert piece_at(p, 8, 5)["stunned_until"] == 16
    for turn in (11, 13, 15):
        p = advance_to(p, turn)
        assert refusal(p, Move(cell(8, 5), cell(7, 4))) == "R7.2"
    p = advance_to(p, 17)
    assert ("black", "rocket_pawn", 7, 4, "ground") in layout(move(p, (8, 5), (7, 4)).position)


def test_ex24_restun_on_t14_extends_to_20():
    """EX-24 (R7.1): re-stunned on T = 14 -> expiry 20 -> stunned on 15, 17, 19; free on 21."""
    p = fire(_stun_target(), (2, 5), A.STUNNER, dir=(1, 0)).position
    p = advance_to(p, 14)
    out = fire(p, (2, 5), A.STUNNER, dir=(1, 0))
    assert [(e.kind, e.until) for e in of_type(out.events, Stunned)] == [(K.ROCKET_PAWN, 20)]
    p = out.position
    assert piece_at(p, 8, 5)["stunned_until"] == 20
    for turn in (15, 17, 19):
        p = advance_to(p, turn)
        assert refusal(p, Move(cell(8, 5), cell(7, 4))) == "R7.2"
    p = advance_to(p, 21)
    assert ("black", "rocket_pawn", 7, 4, "ground") in layout(move(p, (8, 5), (7, 4)).position)


def test_ex24_own_stunner_during_own_turn_expires_on_17():
    """EX-24 (R7.1, R6.1.5): a Black piece stunned by its own Stunner during T = 11 ->
    expiry 17: no actions for the rest of T = 11 nor on 13, 15; free on 17."""
    p = build([black("stunner_pawn", 9, 5), black("rocket_pawn", 7, 5, moved=True),
               white("king", 1, 1)], turn=11)
    out = fire(p, (9, 5), A.STUNNER, dir=(-1, 0))
    p = out.position
    assert piece_at(p, 7, 5)["stunned_until"] == 17
    assert refusal(p, Move(cell(7, 5), cell(6, 4))) == "R7.2"
    assert refusal(p, Fire(cell(7, 5), A.ROCKET_LAUNCHER, dir=(-1, 0))) == "R7.2"
    for turn in (13, 15):
        p = advance_to(p, turn)
        assert refusal(p, Move(cell(7, 5), cell(6, 4))) == "R7.2"
    p = advance_to(p, 17)
    assert ("black", "rocket_pawn", 6, 4, "ground") in layout(move(p, (7, 5), (6, 4)).position)


# --------------------------------------------------------------------------- EX-27

def _ex27(destroyer_below: bool = False) -> engine.Position:
    pieces = [entry(side="white", kind="rocket_pawn", at=[6, 5], level="air",
                    articles=["jump_pack"],
                    transit={"article": "jump_pack", "dest": [9, 5], "path": "beeline"}),
              black("chopper", 6, 8, "air", hand="right")]
    if destroyer_below:
        pieces.append(black("destroyer", 6, 5))
    return build(pieces, turn=15)


def test_ex27_stunned_jump_pack_flyer_falls():
    """EX-27 (R6.6.1, R7.3): the first piece at Air is the pawn at (6,5)A -> stunned; the
    Jump Pack drops on (6,5)G; the transport ends; the pawn falls to (6,5)G, stunned
    until T = 21."""
    out = fire(_ex27(), (6, 8, "air"), A.STUNNER, dir=(0, -1))
    p = out.position
    assert layout(p) == [
        ("black", "chopper", 6, 8, "air"),
        ("white", "rocket_pawn", 6, 5, "ground"),
    ]
    pawn = piece_at(p, 6, 5)
    assert pawn["stunned_until"] == 21
    assert "transit" not in pawn
    assert "articles" not in pawn
    assert ground_articles(p) == {(6, 5): ["jump_pack"]}
    assert [(e.kind, e.to) for e in of_type(out.events, Fell)] == [
        (K.ROCKET_PAWN, cell(6, 5))]
    assert piece_at(p, 6, 8, "air")["ready"] == [19]  # Stunner rate 2: 15 + 4


def test_ex27_variant_falling_onto_an_enemy_destroys():
    """EX-27 variant (R7.3): a Black Destroyer at (6,5)G -> the pawn cannot be there ->
    destroyed; the Jump Pack still lies on (6,5)G."""
    out = fire(_ex27(destroyer_below=True), (6, 8, "air"), A.STUNNER, dir=(0, -1))
    assert destroyed(out.events) == [("white", "rocket_pawn", (6, 5, "air"), "crash")]
    assert layout(out.position) == [
        ("black", "chopper", 6, 8, "air"),
        ("black", "destroyer", 6, 5, "ground"),
    ]
    assert ground_articles(out.position) == {(6, 5): ["jump_pack"]}


# --------------------------------------------------------------------------- EX-28

def _ex28(blocker: bool = False) -> engine.Position:
    pieces = [white("stunner_pawn", 2, 3, articles=["bike"]), white("king", 1, 10)]
    if blocker:
        pieces.append(black("rocket_pawn", 6, 5, moved=True))
    return build(pieces, turn=12)


def _bike_off(position: engine.Position) -> engine.Outcome:
    p = move(position, (1, 10), (1, 9)).position
    return fire(p, (2, 3), A.BIKE, dest=sq(6, 4), path="beeline")


def _shuffle_king(position: engine.Position) -> engine.Position:
    """White's Move by the King between (1,9) and (1,10)."""
    frm, to = ((1, 9), (1, 10)) if occupied(position, 1, 9) else ((1, 10), (1, 9))
    return move(position, frm, to).position


def occupied(position: engine.Position, row: int, col: int) -> bool:
    return any(p["at"] == [row, col] for p in engine.position_to_dict(position)["pieces"])


def test_ex28_bike_steps_once_per_own_turn():
    """EX-28 (R8.2.1, R8.5.1, R4.5): Bike to (6,4) beeline: step now (1,1) -> (3,4);
    T = 14 -> (4,4); T = 16 -> (5,4); T = 18 -> (6,4), transport ends; the pawn may not
    make the Move on T = 18; it may from T = 20."""
    out = _bike_off(_ex28())
    p = out.position
    assert ("white", "stunner_pawn", 3, 4, "ground") in layout(p)
    assert piece_at(p, 3, 4)["transit"] == {"article": "bike", "dest": [6, 4],
                                            "path": "beeline"}
    assert [(e.frm, e.to) for e in of_type(out.events, TransportStepped)] == [
        (cell(2, 3), cell(3, 4))]
    p = engine.apply(p, EndTurn()).position
    for turn, square in ((14, (4, 4)), (16, (5, 4))):
        p = advance_to(p, turn)
        assert ("white", "stunner_pawn", *square, "ground") in layout(p)
        assert piece_at(p, *square)["transit"]["dest"] == [6, 4]
        assert refusal(p, Move(cell(*square), cell(square[0] + 1, square[1] + 1))) == "R8.4.3"
        p = _shuffle_king(p)
    out = next_turn(p)
    assert out.position.turn == 17
    out = next_turn(out.position)
    p = out.position
    assert p.turn == 18
    assert layout(p) == [
        ("white", "king", 1, 9, "ground"),
        ("white", "stunner_pawn", 6, 4, "ground"),
    ]
    pawn = piece_at(p, 6, 4)
    assert "transit" not in pawn
    assert pawn["articles"] == ["bike"]
    assert [e.why for e in of_type(out.events, TransportEnded)] == ["arrived"]
    assert refusal(p, Move(cell(6, 4), cell(7, 5))) == "R4.5"
    p = advance_to(_shuffle_king(p), 20)
    assert ("white", "stunner_pawn", 7, 5, "ground") in layout(move(p, (6, 4), (7, 5)).position)


def test_ex28_variant_blocked_step_ends_transport():
    """EX-28 variant (R8.4.2): on T = 15 Black puts a piece on (5,4)G -> on T = 16 the
    step is blocked; the transport ends with the pawn on (4,4), Bike kept; it may make
    the Move on T = 16."""
    p = engine.apply(_bike_off(_ex28(blocker=True)).position, EndTurn()).position
    p = advance_to(p, 14)
    p = _shuffle_king(p)
    p = advance_to(p, 15)
    p = move(p, (6, 5), (5, 4)).position
    out = engine.apply(p, EndTurn())
    p = out.position
    assert p.turn == 16
    assert layout(p) == [
        ("black", "rocket_pawn", 5, 4, "ground"),
        ("white", "king", 1, 10, "ground"),
        ("white", "stunner_pawn", 4, 4, "ground"),
    ]
    pawn = piece_at(p, 4, 4)
    assert "transit" not in pawn
    assert pawn["articles"] == ["bike"]
    assert [e.why for e in of_type(out.events, TransportEnded)] == ["blocked"]
    after = move(p, (4, 4), (5, 5)).position
    assert ("white", "stunner_pawn", 5, 5, "ground") in layout(after)


def test_ex28_mover_cannot_ride_the_bike():
    """EX-28 (R4.5, R8.1.1): the Stunner Pawn cannot be both the T = 12 Move piece and
    the Bike rider."""
    p = move(_ex28(), (2, 3), (3, 4)).position
    assert refusal(p, Fire(cell(3, 4), A.BIKE, dest=sq(6, 4))) == "R4.5"


# --------------------------------------------------------------------------- EX-30

def _ex30() -> engine.Position:
    return build([white("dozer", 5, 5), white("rocket_pawn", 5, 5),
                  white("tank", 5, 6, hand="right"), black("flame_pawn", 6, 5),
                  black("king", 4, 4), white("jet", 6, 6, "air")], turn=20)


def test_ex30_legal_doze():
    """EX-30 (R8.8.2-R8.8.5): selection {(5,6), (6,5)}, direction (1,0): Dozer + Rocket
    Pawn -> (6,5); Tank -> (6,6)G; Black Flame Pawn -> (7,5); the Jet at Air stays;
    nothing is captured."""
    out = engine.apply(_ex30(), Doze(sq(5, 5), (sq(5, 6), sq(6, 5)), (1, 0)))
    assert layout(out.position) == [
        ("black", "flame_pawn", 7, 5, "ground"),
        ("black", "king", 4, 4, "ground"),
        ("white", "dozer", 6, 5, "ground"),
        ("white", "jet", 6, 6, "air"),
        ("white", "rocket_pawn", 6, 5, "ground"),
        ("white", "tank", 6, 6, "ground"),
    ]
    assert len(of_type(out.events, Dozed)) == 1
    assert destroyed(out.events) == []
    assert out.position.result is None


def test_ex30_doze_with_the_enemy_king():
    """EX-30 (R8.8.2): selection {(4,4), (5,6), (6,5)} (3 pieces), direction (1,0): the
    Black King ends on (5,4)."""
    out = engine.apply(_ex30(), Doze(sq(5, 5), (sq(4, 4), sq(5, 6), sq(6, 5)), (1, 0)))
    assert layout(out.position) == [
        ("black", "flame_pawn", 7, 5, "ground"),
        ("black", "king", 5, 4, "ground"),
        ("white", "dozer", 6, 5, "ground"),
        ("white", "jet", 6, 6, "air"),
        ("white", "rocket_pawn", 6, 5, "ground"),
        ("white", "tank", 6, 6, "ground"),
    ]
    assert destroyed(out.events) == []


# --------------------------------------------------------------------------- EX-33

def _ex33() -> engine.Position:
    return build([white("conversion_pawn", 5, 4), black("conversion_pawn", 6, 4),
                  black("destroyer", 6, 4), white("cleric", 7, 5, hand="right"),
                  white("king", 5, 5), white("flame_pawn", 6, 3)], turn=20)


def test_ex33_conversion_anomaly():
    """EX-33 (R6.7.1, R6.7.4, R5.1.4): the Destroyer (1 hit > 0) becomes White; the Black
    pawn (1 <= 1) stays Black; (6,4)G holds both sides and no other piece may enter it
    (the King's capture would otherwise be legal)."""
    out = fire(_ex33(), (5, 4), A.CONVERSION, dir=(1, 0))
    p = out.position
    assert [(e.kind, e.side) for e in of_type(out.events, Converted)] == [
        (K.DESTROYER, Side.WHITE)]
    assert [(r, c, lv) for s, k, r, c, lv in layout(p) if (r, c) == (6, 4)] == [
        (6, 4, "ground"), (6, 4, "ground")]
    assert piece_at(p, 6, 4, kind="destroyer")["side"] == "white"
    assert piece_at(p, 6, 4, kind="conversion_pawn")["side"] == "black"
    assert refusal(p, Move(cell(5, 5), cell(6, 4))) == "R5.1.4"


def test_ex33_flame_into_the_anomaly_hits_both_sides():
    """EX-33 (R6.7.4, R6.5.1): a Flame into (6,4) hits both pieces there."""
    p = fire(_ex33(), (5, 4), A.CONVERSION, dir=(1, 0)).position
    out = fire(p, (6, 3), A.FLAME, dir=(0, 1))
    assert destroyed(out.events) == [
        ("black", "conversion_pawn", (6, 4, "ground"), "flame"),
        ("white", "destroyer", (6, 4, "ground"), "flame"),
    ]
    assert not any((r, c) == (6, 4) for _, _, r, c, _ in layout(out.position))


def test_ex33_second_conversion_ends_the_anomaly():
    """EX-33 (R6.4.3, R6.7.4): the Cleric at (7,5) fires Conversion (-1,-1) at (6,4): the
    Black pawn's 2nd hit > 1 -> converted; both pieces White."""
    p = fire(_ex33(), (5, 4), A.CONVERSION, dir=(1, 0)).position
    out = fire(p, (7, 5), A.CONVERSION, dir=(-1, -1))
    assert [(e.kind, e.side) for e in of_type(out.events, Converted)] == [
        (K.CONVERSION_PAWN, Side.WHITE)]
    assert [(s, k) for s, k, r, c, _ in layout(out.position) if (r, c) == (6, 4)] == [
        ("white", "conversion_pawn"), ("white", "destroyer")]
    assert out.position.result is None


def test_r6_7_2_converted_piece_keeps_its_state():
    """R6.7.2: a converted Tank keeps its articles, handedness, stun and cooldown."""
    p = build([black("cleric", 6, 5, hand="left"),
               entry(side="white", kind="tank", at=[5, 5], hand="left", articles=["anti_flame"],
                     stunned_until=24, ready=[26, 0])], turn=21)
    out = fire(p, (6, 5), A.CONVERSION, dir=(-1, 0))
    assert piece_at(out.position, 5, 5) == {
        "side": "black", "kind": "tank", "at": [5, 5], "level": "ground", "hand": "left",
        "articles": ["anti_flame"], "stunned_until": 24, "ready": [26, 0]}


# --------------------------------------------------------------------------- EX-35

def test_ex35_converting_the_king_wins():
    """EX-35 (R6.7.3, R12.1): the Cleric converts the Black King -> White wins at once."""
    p = build([white("cleric", 8, 5, hand="right"), black("king", 9, 6)], turn=40)
    out = fire(p, (8, 5), A.CONVERSION, dir=(1, 1))
    assert layout(out.position) == [
        ("white", "cleric", 8, 5, "ground"),
        ("white", "king", 9, 6, "ground"),
    ]
    assert out.position.result is not None
    assert out.position.result.winner is Side.WHITE
    assert [e.winner for e in of_type(out.events, GameOver)] == [Side.WHITE]
    assert refusal(out.position, EndTurn()) == "R12"  # the game ended at once


def test_ex35_variant_converted_queen_game_goes_on():
    """EX-35 variant (R6.2.1, R6.4.3, R12.1): Cleric with XXX + Conversion (n = 2) against
    the Queen's 1 Anti-Conversion -> the Queen becomes White; the game goes on."""
    p = build([white("cleric", 8, 4, hand="right", articles=["xxx", "conversion"]),
               black("queen", 9, 4), black("king", 10, 10)], turn=40)
    out = fire(p, (8, 4), A.CONVERSION, dir=(1, 0))
    assert layout(out.position) == [
        ("black", "king", 10, 10, "ground"),
        ("white", "cleric", 8, 4, "ground"),
        ("white", "queen", 9, 4, "ground"),
    ]
    assert out.position.result is None
    assert piece_at(out.position, 8, 4)["ready"] == [48, 0, 48]


# --------------------------------------------------------------------------- EX-37

def _ex37(flame_range: int) -> engine.Position:
    return build([white("tank", 5, 3, hand="right", articles=["xxx", "flame"]),
                  white("king", 5, 4), black("king", 5, 5)],
                 turn=20, options={"flame_range": flame_range})


def test_ex37_both_kings_die_the_actor_loses():
    """EX-37 (R6.5.1, R12.2): FlameRange 2, n = 2: both Kings (1 Anti-Flame) are destroyed
    in White's turn -> White loses."""
    out = fire(_ex37(2), (5, 3), A.FLAME, dir=(0, 1))
    assert destroyed(out.events) == [
        ("black", "king", (5, 5, "ground"), "flame"),
        ("white", "king", (5, 4, "ground"), "flame"),
    ]
    assert layout(out.position) == [("white", "tank", 5, 3, "ground")]
    assert out.position.result is not None
    assert out.position.result.winner is Side.BLACK


def test_ex37_variant_flame_range_1_own_king_only():
    """EX-37 variant (R12.1): FlameRange 1: only (5,4) is flamed -> White's King dies ->
    White loses; the Black King is untouched."""
    out = fire(_ex37(1), (5, 3), A.FLAME, dir=(0, 1))
    assert destroyed(out.events) == [("white", "king", (5, 4, "ground"), "flame")]
    assert layout(out.position) == [
        ("black", "king", 5, 5, "ground"),
        ("white", "tank", 5, 3, "ground"),
    ]
    assert out.position.result is not None
    assert out.position.result.winner is Side.BLACK


# --------------------------------------------------------------------------- EX-38

def test_ex38_own_rocket_kills_own_president():
    """EX-38 (R6.8.4, R6.8.5, R12.2): at the start of T = 24 the White Rocket steps onto
    (3,5) and destroys the White President in White's own turn -> White loses."""
    p = build([white("president", 3, 5), black("president", 10, 5)], turn=23,
              options={"government": {"black": "democracy", "white": "democracy"}},
              projectiles=[{"kind": "rocket", "side": "white", "at": [4, 5], "strength": 1,
                            "dir": [-1, 0]}])
    out = next_turn(p)
    assert out.position.turn == 24
    assert destroyed(out.events) == [("white", "president", (3, 5, "ground"), "rocket")]
    assert projectiles(out.position) == []
    assert layout(out.position) == [("black", "president", 10, 5, "ground")]
    assert out.position.result is not None
    assert out.position.result.winner is Side.BLACK


# --------------------------------------------------------------------------- EX-39

def test_ex39_no_legal_move_may_end_turn():
    """EX-39 (R4.4, R7.2): Black's King and two Pawns are all stunned until T = 16; on
    T = 13 Black has no legal Move and may end the turn without one; the stunned pieces
    cannot Fire either."""
    p = build([entry(side="black", kind="king", at=[10, 6], stunned_until=16),
               entry(side="black", kind="flame_pawn", at=[9, 3], stunned_until=16),
               entry(side="black", kind="rocket_pawn", at=[9, 8], stunned_until=16),
               white("king", 1, 5)], turn=13)
    assert engine.legal_moves(p) == []
    assert legal_intents(p) == [EndTurn()]
    assert refusal(p, Fire(cell(9, 8), A.ROCKET_LAUNCHER, dir=(-1, 0))) == "R7.2"
    assert refusal(p, Fire(cell(9, 3), A.FLAME, dir=(-1, 0))) == "R7.2"
    after = engine.apply(p, EndTurn()).position
    assert after.turn == 14
    assert layout(after) == layout(p)


# --------------------------------------------------------------------------- R6.3, R4.3, R4.5

def test_r6_3_2_cooldown_refusal_names_the_ready_turn():
    """R6.3.2: an AAA's SAM Launcher fired on T = 21 (rate 4) is refused until T = 29."""
    p = build([black("aaa", 7, 3), white("king", 1, 1)], turn=21)
    p = fire(p, (7, 3), A.SAM_LAUNCHER, dir=(-1, 0)).position
    assert piece_at(p, 7, 3)["ready"] == [0, 29]
    p = advance_to(p, 27)
    with pytest.raises(IllegalIntent) as info:
        engine.apply(p, Fire(cell(7, 3), A.SAM_LAUNCHER, dir=(-1, 0)))
    assert info.value.rule == "R6.3.2"
    assert "29" in str(info.value)
    p = advance_to(p, 29)
    out = fire(p, (7, 3), A.SAM_LAUNCHER, dir=(-1, 0))
    assert ("sam", "black", (6, 3), 1, (-1, 0), False) in projectiles(out.position)


def test_r4_5_one_fire_per_piece():
    """R4.5: a Tank carrying XXX + Stunner fires its Flame; its Stunner may not fire in
    the same turn (each piece is the firer of at most one Fire)."""
    p = build([white("tank", 5, 5, hand="right", articles=["xxx", "stunner"]),
               black("rocket_pawn", 8, 5)], turn=20)
    p = fire(p, (5, 5), A.FLAME, dir=(0, 1)).position
    assert refusal(p, Fire(cell(5, 5), A.STUNNER, dir=(1, 0))) == "R4.5"
    assert "stunned_until" not in piece_at(p, 8, 5)


def test_r4_3_at_most_two_fires_per_turn():
    """R4.3, R6.1.1: a third Fire in one turn is refused even by a fresh piece."""
    p = build([white("tank", 3, 3, hand="right"), white("flame_pawn", 3, 6),
               white("rocket_pawn", 3, 9), black("king", 10, 10)], turn=20)
    p = fire(p, (3, 3), A.FLAME, dir=(1, 0)).position
    p = fire(p, (3, 6), A.FLAME, dir=(1, 0)).position
    assert refusal(p, Fire(cell(3, 9), A.ROCKET_LAUNCHER, dir=(1, 0))) == "R4.3"
    assert projectiles(p) == []
    # the budget is per turn: two turns later the Rocket Pawn fires
    p = advance_to(p, 22)
    assert projectiles(fire(p, (3, 9), A.ROCKET_LAUNCHER, dir=(1, 0)).position) == [
        ("rocket", "white", (4, 9), 1, (1, 0), False)]


# --------------------------------------------------------------------------- R6.8, R6.11

def test_r6_8_2_directional_launch_needs_an_on_board_square():
    """R6.8.2: a Rocket Pawn on the last row cannot fire a Rocket off the board."""
    p = build([white("rocket_pawn", 10, 5, moved=True)], turn=20)
    assert refusal(p, Fire(cell(10, 5), A.ROCKET_LAUNCHER, dir=(1, 0))) == "R6.8.2"


def test_r6_8_4_projectile_leaving_the_board_is_removed():
    """R6.8.4: a Black SAM at (1,4)A heading (-1,-1) leaves the board at the next
    projectile phase; a Rocket heading (0,1) from (5,9) steps to (5,10), then leaves."""
    p = build([white("king", 1, 1), black("king", 10, 10)], turn=20,
              projectiles=[{"kind": "sam", "side": "black", "at": [1, 4], "strength": 2,
                            "dir": [-1, -1]},
                           {"kind": "rocket", "side": "white", "at": [5, 9], "strength": 1,
                            "dir": [0, 1]}])
    out = next_turn(p)
    assert projectiles(out.position) == [("rocket", "white", (5, 10), 1, (0, 1), False)]
    assert of_type(out.events, ProjectileRemoved) == [
        ProjectileRemoved("sam", Side.BLACK, sq(1, 4), "left_board")]
    out = next_turn(out.position)
    assert projectiles(out.position) == []
    assert of_type(out.events, ProjectileRemoved) == [
        ProjectileRemoved("rocket", Side.WHITE, sq(5, 10), "left_board")]


def _homing_start() -> engine.Position:
    """T = 20: a White AAA at (2,2) fires a homing SAM at the Black Jet at (5,5)A
    (distance 3 = HomingRange); the SAM starts at (3,3)A heading (1,1)."""
    p = build([white("aaa", 2, 2), black("jet", 5, 5, "air")], turn=20)
    out = fire(p, (2, 2), A.SAM_LAUNCHER, target=cell(5, 5, "air"))
    assert projectiles(out.position) == [("sam", "white", (3, 3), 1, (1, 1), True)]
    t21 = next_turn(out.position).position
    assert projectiles(t21) == [("sam", "white", (4, 4), 1, (1, 1), True)]
    return t21


def test_r6_11_2_homing_sam_follows_a_moving_target():
    """R6.11.2: the Jet flies (5,5)A -> (3,5)A on T = 21; on T = 22 the SAM steps from
    (4,4) toward (3,5), i.e. (-1,1), lands on the Jet and destroys it (no Anti-SAM)."""
    p = move(_homing_start(), (5, 5, "air"), (3, 5, "air")).position
    out = next_turn(p)
    assert [(e.frm, e.to, e.dir) for e in of_type(out.events, ProjectileStepped)] == [
        (sq(4, 4), sq(3, 5), (-1, 1))]
    assert destroyed(out.events) == [("black", "jet", (3, 5, "air"), "sam")]
    assert projectiles(out.position) == []
    assert layout(out.position) == [("white", "aaa", 2, 2, "ground")]


def test_r6_11_3_lock_breaks_when_the_target_lands():
    """R6.11.2, R6.11.3: the Jet flies to (5,7)A; the SAM homes (4,4) -> (5,5) -> (5,6);
    on T = 23 the Jet lands at (5,7)G: the lock breaks and the SAM flies on along its
    last step (0,1), passing over the landed Jet at Air without hitting it."""
    p = move(_homing_start(), (5, 5, "air"), (5, 7, "air")).position
    p = next_turn(p).position
    assert p.turn == 22
    assert projectiles(p) == [("sam", "white", (5, 5), 1, (1, 1), True)]
    p = next_turn(p).position
    assert p.turn == 23
    assert projectiles(p) == [("sam", "white", (5, 6), 1, (0, 1), True)]
    out = move(p, (5, 7, "air"), (5, 7, "ground"))
    assert of_type(out.events, HomingBroken) == [
        HomingBroken("sam", Side.WHITE, sq(5, 6), (0, 1))]
    assert projectiles(out.position) == [("sam", "white", (5, 6), 1, (0, 1), False)]
    out = engine.apply(out.position, EndTurn())
    assert projectiles(out.position) == [("sam", "white", (5, 7), 1, (0, 1), False)]
    assert ("black", "jet", 5, 7, "ground") in layout(out.position)
    assert destroyed(out.events) == []


def test_r6_11_3_lock_break_before_the_first_step_keeps_the_launch_direction():
    """R6.11.3, D-27: the target is destroyed in the launch turn (a second Fire), so the
    SAM flies on along its launch direction (1,1)."""
    p = build([white("aaa", 2, 2), white("jet", 5, 4, "air", articles=["flame"]),
               black("jet", 5, 5, "air")], turn=20)
    p = fire(p, (2, 2), A.SAM_LAUNCHER, target=cell(5, 5, "air")).position
    out = fire(p, (5, 4, "air"), A.FLAME, dir=(0, 1))
    assert destroyed(out.events) == [("black", "jet", (5, 5, "air"), "flame")]
    assert of_type(out.events, HomingBroken) == [
        HomingBroken("sam", Side.WHITE, sq(3, 3), (1, 1))]
    assert projectiles(out.position) == [("sam", "white", (3, 3), 1, (1, 1), False)]
    assert projectiles(next_turn(out.position).position) == [
        ("sam", "white", (4, 4), 1, (1, 1), False)]


def test_r6_2_2_group_rocket_has_strength_two():
    """R6.2.1, R6.2.2, R6.4.3: a Rocket Pawn with XXX + Rocket Launcher fires one Rocket of
    strength 2; at the next projectile phase it reaches a Black Rocket Pawn (1 Anti-Rocket)
    and destroys it (2 > 1)."""
    p = build([white("rocket_pawn", 3, 5, articles=["xxx", "rocket_launcher"]),
               black("rocket_pawn", 5, 5, moved=True)], turn=20)
    out = fire(p, (3, 5), A.ROCKET_LAUNCHER, dir=(1, 0))
    assert projectiles(out.position) == [("rocket", "white", (4, 5), 2, (1, 0), False)]
    assert piece_at(out.position, 3, 5)["ready"] == [28, 0, 0, 28]
    out = next_turn(out.position)
    assert [(h.hits, h.total, h.defences) for h in of_type(out.events, Hit)] == [(2, 2, 1)]
    assert destroyed(out.events) == [("black", "rocket_pawn", (5, 5, "ground"), "rocket")]
    assert projectiles(out.position) == []


def test_r6_11_1_homing_target_beyond_homing_range_is_refused():
    """R6.11.1: a target at distance 4 > HomingRange 3 cannot be aimed at; with O14 = 4 it
    can."""
    pieces = [white("aaa", 2, 2), black("jet", 6, 5, "air")]
    assert refusal(build(pieces, turn=20), Fire(cell(2, 2), A.SAM_LAUNCHER,
                                                target=cell(6, 5, "air"))) == "R6.11.1"
    out = fire(build(pieces, turn=20, options={"homing_range": 4}), (2, 2), A.SAM_LAUNCHER,
               target=cell(6, 5, "air"))
    assert projectiles(out.position) == [("sam", "white", (3, 3), 1, (1, 1), True)]


def test_r6_8_5_passing_through_a_projectile_square_is_no_hit():
    """R1.8, R6.8.5: a Rocket never blocks a path, and a Tank merely passing its square
    (here (3,1)G) is not hit; it arrives on (8,4)."""
    p = build([white("tank", 1, 1, hand="right")], turn=20,
              projectiles=[{"kind": "rocket", "side": "black", "at": [3, 1], "strength": 1,
                            "dir": [0, -1]}])
    out = move(p, (1, 1), (8, 4))
    assert layout(out.position) == [("white", "tank", 8, 4, "ground")]
    assert projectiles(out.position) == [("rocket", "black", (3, 1), 1, (0, -1), False)]
    assert destroyed(out.events) == []


def test_r4_2_transit_step_onto_a_projectile_is_hit():
    """R4.2, R6.8.5: the projectile phase runs first (the Black Rocket (5,3) -> (5,4)), then
    the Bike rider steps (4,4) -> (5,4) onto it and is destroyed; the Bike drops there."""
    p = build([entry(side="white", kind="stunner_pawn", at=[4, 4], articles=["bike"],
                     moved=True, transit={"article": "bike", "dest": [6, 4]})], turn=13,
              projectiles=[{"kind": "rocket", "side": "black", "at": [5, 3], "strength": 1,
                            "dir": [0, 1]}])
    out = next_turn(p)
    assert out.position.turn == 14
    assert destroyed(out.events) == [("white", "stunner_pawn", (5, 4, "ground"), "rocket")]
    assert layout(out.position) == []
    assert projectiles(out.position) == []
    assert ground_articles(out.position) == {(5, 4): ["bike"]}


def test_r8_4_2_blocked_jump_pack_lands_where_it_is():
    """R8.4.2: a Black Jet at (4,5)A blocks the flyer's step from (3,5)A: the transport
    ends and the pawn lands on (3,5)G, keeping its Jump Pack; over an enemy at Ground it
    would be destroyed."""
    flyer = entry(side="white", kind="stunner_pawn", at=[3, 5], level="air",
                  articles=["jump_pack"], moved=True,
                  transit={"article": "jump_pack", "dest": [5, 5]})
    out = next_turn(build([flyer, black("jet", 4, 5, "air")], turn=13))
    assert out.position.turn == 14
    assert layout(out.position) == [
        ("black", "jet", 4, 5, "air"),
        ("white", "stunner_pawn", 3, 5, "ground"),
    ]
    pawn = piece_at(out.position, 3, 5)
    assert "transit" not in pawn
    assert pawn["articles"] == ["jump_pack"]
    out = next_turn(build([flyer, black("jet", 4, 5, "air"), black("destroyer", 3, 5)],
                          turn=13))
    assert destroyed(out.events) == [("white", "stunner_pawn", (3, 5, "air"), "crash")]
    assert ground_articles(out.position) == {(3, 5): ["jump_pack"]}


# --------------------------------------------------------------------------- R8.3, R8.5

def test_r8_3_jump_pack_rises_flies_and_lands_at_destination():
    """R8.3.1, R8.3.2: fired on T = 12 the pawn rises to (2,5)A; T = 14 -> (3,5)A; on
    T = 16 the step enters (4,5) and it lands there at Ground; the transport ends and it
    keeps the Jump Pack."""
    p = build([white("stunner_pawn", 2, 5, articles=["jump_pack"]), white("king", 1, 10)],
              turn=12)
    p = move(p, (1, 10), (1, 9)).position
    out = fire(p, (2, 5), A.JUMP_PACK, dest=sq(4, 5))
    assert ("white", "stunner_pawn", 2, 5, "air") in layout(out.position)
    assert piece_at(out.position, 2, 5, "air")["transit"]["dest"] == [4, 5]
    p = advance_to(engine.apply(out.position, EndTurn()).position, 14)
    assert ("white", "stunner_pawn", 3, 5, "air") in layout(p)
    p = _shuffle_king(p)
    out = next_turn(engine.apply(p, EndTurn()).position)
    p = out.position
    assert p.turn == 16
    assert layout(p) == [
        ("white", "king", 1, 10, "ground"),
        ("white", "stunner_pawn", 4, 5, "ground"),
    ]
    pawn = piece_at(p, 4, 5)
    assert "transit" not in pawn
    assert pawn["articles"] == ["jump_pack"]
    assert [e.why for e in of_type(out.events, TransportEnded)] == ["arrived"]
    assert of_type(out.events, Destroyed) == []


def test_r8_3_1_jump_pack_needs_room_at_air():
    """R8.3.1: a Black Jet at (2,5)A: the Jump Pack cannot rise there -> refused."""
    p = build([white("stunner_pawn", 2, 5, articles=["jump_pack"]), black("jet", 2, 5, "air")],
              turn=12)
    assert refusal(p, Fire(cell(2, 5), A.JUMP_PACK, dest=sq(4, 5))) == "R8.3.1"


PORT_STARBOARD = [
    # White at (2,3) travelling to (6,4): the line runs forward and slightly right; the
    # diagonal-first path (3,4)... lies right of it (starboard), diagonal-last left (port)
    ((2, 3), (6, 4), [(3, 4), (4, 4), (5, 4), (6, 4)], [(3, 3), (4, 3), (5, 3), (6, 4)],
     "starboard"),
    # mirrored: to (6,2) the diagonal-first path (3,2)... lies left (port)
    ((2, 3), (6, 2), [(3, 3), (4, 3), (5, 3), (6, 2)], [(3, 2), (4, 2), (5, 2), (6, 2)],
     "port"),
]


@pytest.mark.parametrize(("frm", "dest", "starboard", "port", "beeline_is"), PORT_STARBOARD)
def test_r8_5_2_port_and_starboard_paths(frm, dest, starboard, port, beeline_is):
    """R8.5.1, R8.5.2: beeline = diagonal first; port / starboard = the extreme minimal
    path left / right of the line origin -> destination (White's right = +column)."""
    def squares(path: str) -> list[int]:
        return list(path_squares(sq(*frm), sq(*dest), path))
    assert squares("starboard") == [sq(*s) for s in starboard]
    assert squares("port") == [sq(*s) for s in port]
    assert squares("beeline") == squares(beeline_is)


def test_r8_5_2_bike_on_the_port_path_takes_the_straight_step_first():
    """R8.2.1, R8.5.2: a Bike fired to (6,4) on the port path steps at once to (3,3)."""
    p = move(_ex28(), (1, 10), (1, 9)).position
    out = fire(p, (2, 3), A.BIKE, dest=sq(6, 4), path="port")
    assert ("white", "stunner_pawn", 3, 3, "ground") in layout(out.position)
    assert piece_at(out.position, 3, 3)["transit"] == {"article": "bike", "dest": [6, 4],
                                                       "path": "port"}


def test_r8_5_2_orthogonal_paths_coincide():
    """R8.5.2: where the displacement is orthogonal or exactly diagonal all three coincide."""
    for dest in ((6, 3), (5, 6), (2, 9)):
        paths = {path_squares(sq(2, 3), sq(*dest), mode)
                 for mode in ("beeline", "port", "starboard")}
        assert len(paths) == 1


# --------------------------------------------------------------------------- R8.8 refusals

def test_r8_8_2_doze_of_more_than_four_pieces_is_refused():
    """R8.8.2: the selected squares hold 5 pieces (> 4) -> refused; 4 are fine."""
    p = build([white("dozer", 5, 5), white("rocket_pawn", 5, 5),
               white("destroyer", 5, 6), white("flame_pawn", 5, 6),
               white("destroyer", 6, 5), white("stunner_pawn", 6, 5),
               white("conversion_pawn", 4, 5)], turn=20)
    five = Doze(sq(5, 5), (sq(4, 5), sq(5, 6), sq(6, 5)), (0, -1))
    assert refusal(p, five) == "R8.8.2"
    out = engine.apply(p, Doze(sq(5, 5), (sq(5, 6), sq(6, 5)), (0, -1)))
    assert layout(out.position) == [
        ("white", "conversion_pawn", 4, 5, "ground"),
        ("white", "destroyer", 5, 5, "ground"),
        ("white", "destroyer", 6, 4, "ground"),
        ("white", "dozer", 5, 4, "ground"),
        ("white", "flame_pawn", 5, 5, "ground"),
        ("white", "rocket_pawn", 5, 4, "ground"),
        ("white", "stunner_pawn", 6, 4, "ground"),
    ]


@pytest.mark.parametrize(("blocker", "squares", "d"), [
    (white("rocket_pawn", 7, 5), ((6, 5),), (1, 0)),  # 2 non-coexisting pieces at (7,5)
    (black("tank", 7, 5, hand="left"), ((6, 5),), (1, 0)),  # an enemy at (7,5)
    (None, ((6, 5),), (1, 0)),  # from row 9: the dozed pawn on row 10 would leave the board
])
def test_r8_8_4_blocked_doze_is_refused(blocker, squares, d):
    """R8.8.4: every destination on the board and lawful at Ground (capacity, coexistence,
    one side), or the direction is illegal; nothing moves."""
    row = 9 if blocker is None else 5
    pieces = [white("dozer", row, 5), white("king", row, 5),
              white("flame_pawn", row + 1, 5, moved=True)]
    if blocker is not None:
        pieces.append(blocker)
    p = build(pieces, turn=20)
    chosen = tuple(sq(r + (row - 5), c) for r, c in squares)
    assert refusal(p, Doze(sq(row, 5), chosen, d)) == "R8.8.4"


# --------------------------------------------------------------------------- R6.7.5, R6.12.1

def test_r6_7_5_conversion_kill_of_a_passenger():
    """R6.7.5, R3.4: a Black Jet with a Conversion article converts the White Chopper at
    (5,5)A; its passenger, a White Conversion Pawn (1 Anti-Conversion), stays White and
    is destroyed; its Bike drops on (5,5)G."""
    p = build([black("jet", 6, 5, "air", articles=["conversion"]),
               white("chopper", 5, 5, "air", hand="right"),
               white("conversion_pawn", 5, 5, "air", articles=["bike"])], turn=21)
    out = fire(p, (6, 5, "air"), A.CONVERSION, dir=(-1, 0))
    assert layout(out.position) == [
        ("black", "chopper", 5, 5, "air"),
        ("black", "jet", 6, 5, "air"),
    ]
    assert destroyed(out.events) == [
        ("white", "conversion_pawn", (5, 5, "air"), "conversion_kill")]
    assert ground_articles(out.position) == {(5, 5): ["bike"]}
    assert piece_at(out.position, 6, 5, "air")["ready"] == [0, 0, 29]


def test_r6_7_5_conversion_kill_when_the_passenger_is_converted():
    """R6.7.5: the carrier holds an Anti-Conversion and stays White; the passenger Rocket
    Pawn is converted to Black and, at Air with a White carrier, is destroyed."""
    p = build([black("jet", 6, 5, "air", articles=["conversion"]),
               white("chopper", 5, 5, "air", hand="right", articles=["anti_conversion"]),
               white("rocket_pawn", 5, 5, "air")], turn=21)
    out = fire(p, (6, 5, "air"), A.CONVERSION, dir=(-1, 0))
    assert layout(out.position) == [
        ("black", "jet", 6, 5, "air"),
        ("white", "chopper", 5, 5, "air"),
    ]
    assert destroyed(out.events) == [("black", "rocket_pawn", (5, 5, "air"), "conversion_kill")]


def test_r6_7_5_no_kill_at_ground():
    """R6.7.4, R6.7.5: at Ground a converted piece next to an unconverted one is the
    anomaly, not a kill: both stay."""
    p = build([black("cleric", 6, 5, hand="left"), white("sub", 5, 5),
               white("conversion_pawn", 5, 5)], turn=21)
    out = fire(p, (6, 5), A.CONVERSION, dir=(-1, 0))
    assert destroyed(out.events) == []
    assert layout(out.position) == [
        ("black", "cleric", 6, 5, "ground"),
        ("black", "sub", 5, 5, "ground"),
        ("white", "conversion_pawn", 5, 5, "ground"),
    ]


def test_r6_12_1_restricted_rocket_range():
    """R6.12.1: a Sub at (5,5)S cannot aim its restricted rocket at a Destroyer at
    distance 1 ((5,6)G) nor at a piece at Air; with option O13 = 1 the Destroyer is in
    range and is destroyed at once."""
    pieces = [white("sub", 5, 5, "sub"), black("destroyer", 5, 6), black("jet", 5, 5, "air")]
    p = build(pieces, turn=20)
    assert refusal(p, Fire(cell(5, 5, "sub"), A.ROCKET_LAUNCHER, target=cell(5, 6))) == "R6.12.1"
    assert refusal(p, Fire(cell(5, 5, "sub"), A.ROCKET_LAUNCHER,
                           target=cell(5, 5, "air"))) == "R6.12.1"
    p = build(pieces, turn=20, options={"restricted_rocket_range": 1})
    out = fire(p, (5, 5, "sub"), A.ROCKET_LAUNCHER, target=cell(5, 6))
    assert destroyed(out.events) == [("black", "destroyer", (5, 6, "ground"), "rocket")]
    assert projectiles(out.position) == []
    assert piece_at(out.position, 5, 5, "sub")["ready"] == [0, 28]
