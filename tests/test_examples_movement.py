"""Worked examples of /work/shared/rules-examples.md, sections A, B and EX-25.

Each test is named after the example it checks; expected values are copied from the
example (or, where marked "derived", worked out by hand from the cited rule). Unless
stated the board holds only the listed pieces, all visible, with no articles.
"""

from __future__ import annotations

import pytest
from rules_helpers import (
    BLACK_TURN,
    WHITE_TURN,
    black,
    cell,
    dest_squares,
    destinations,
    ground_articles,
    layout,
    make,
    move,
    plan_options,
    refused,
    sq,
    white,
)

from wec import engine
from wec.engine.articles import drop_order, place_dropped
from wec.engine.board import SQUARES
from wec.engine.events import ArticleDropped, Captured, Moved
from wec.engine.pieces import ArticleKind, Hand, PieceKind, Side
from wec.engine.referee import PieceInfo

A = ArticleKind

CHESS = {"movement_system": "standard_chess"}
MDC = {"movement_system": "mass_destruction"}


def both_levels(*squares: tuple[int, int]) -> list[tuple[int, int, str]]:
    return sorted([(r, c, "air") for r, c in squares] + [(r, c, "ground") for r, c in squares])


def ground(*squares: tuple[int, int]) -> list[tuple[int, int, str]]:
    return sorted((r, c, "ground") for r, c in squares)


def air(*squares: tuple[int, int]) -> list[tuple[int, int, str]]:
    return sorted((r, c, "air") for r, c in squares)


# --------------------------------------------------------------------------- EX-01

def test_ex01_wec_pawn_white_unmoved():
    """EX-01 (R5.3.1): moves (3,4),(3,6) and two-square (4,3),(4,7); attack squares
    (3,5),(2,4),(2,6) are not reachable without an enemy."""
    p = make([white("flame_pawn", 2, 5)])
    assert destinations(p, 2, 5) == ground((3, 4), (3, 6), (4, 3), (4, 7))


def test_ex01_variant_own_rocket_pawn_blocks_square_and_via_square():
    """EX-01 variant: a White Rocket Pawn at (3,4): (3,4) illegal (no coexistence),
    (4,3) illegal (via-square occupied) -> (3,6), (4,7)."""
    p = make([white("flame_pawn", 2, 5), white("rocket_pawn", 3, 4)])
    assert destinations(p, 2, 5) == ground((3, 6), (4, 7))
    assert refused(p, (2, 5), (3, 4)) == "R1.6"
    assert refused(p, (2, 5), (4, 3)) == "R5.2.2"


def test_ex01_variant_own_destroyer_coexists_but_blocks_via_square():
    """EX-01 variant: a White Destroyer alone at (3,4): (3,4) legal (Destroyer coexists),
    (4,3) still illegal (via-square not empty) -> (3,4), (3,6), (4,7)."""
    p = make([white("flame_pawn", 2, 5), white("destroyer", 3, 4)])
    assert destinations(p, 2, 5) == ground((3, 4), (3, 6), (4, 7))
    out = move(p, (2, 5), (3, 4))
    assert layout(out.position) == [("white", "destroyer", 3, 4, "ground"),
                                    ("white", "flame_pawn", 3, 4, "ground")]
    assert refused(p, (2, 5), (4, 3)) == "R5.2.2"


def test_ex01_variant_enemy_on_attack_square_is_captured():
    """EX-01 variant: a Black Rocket Pawn at (3,5): the attack square (3,5) becomes
    reachable (capture)."""
    p = make([white("flame_pawn", 2, 5), black("rocket_pawn", 3, 5)])
    assert destinations(p, 2, 5) == ground((3, 4), (3, 5), (3, 6), (4, 3), (4, 7))
    out = move(p, (2, 5), (3, 5))
    assert layout(out.position) == [("white", "flame_pawn", 3, 5, "ground")]
    assert out.events[1] == Captured(cell(3, 5), (PieceInfo(Side.BLACK, PieceKind.ROCKET_PAWN,
                                                            None, ()),))
    assert out.position.result is None


def test_ex01_variant_moved_pawn_has_no_two_square_move():
    """EX-01 variant: the same pawn after it has moved, at (5,5): (6,4), (6,6) only."""
    p = make([white("flame_pawn", 5, 5, moved=True)])
    assert destinations(p, 5, 5) == ground((6, 4), (6, 6))


def test_ex01_pawn_loses_two_square_move_after_its_first_move():
    """EX-01 / R5.3.1: after moving (2,5)->(3,4) the pawn no longer has (2,-2)/(2,2)."""
    p = make([white("flame_pawn", 2, 5), black("king", 10, 10)])
    p = engine.apply(move(p, (2, 5), (3, 4)).position, engine.EndTurn()).position
    p = engine.apply(move(p, (10, 10), (10, 9)).position, engine.EndTurn()).position
    assert destinations(p, 3, 4) == ground((4, 3), (4, 5))


def test_ex01_attack_squares_refused_without_enemy():
    """EX-01: (3,5), (2,4), (2,6) are attack squares only (R5.3.1)."""
    p = make([white("flame_pawn", 2, 5)])
    for target in ((3, 5), (2, 4), (2, 6)):
        assert refused(p, (2, 5), target) == "R5.3.1"


# --------------------------------------------------------------------------- EX-02

def test_ex02_wec_pawn_black_orientation():
    """EX-02 (R1.3, R5.3.1): Black Stunner Pawn at (9,4), never moved; White pawns at
    (8,4) and (9,5). Moves (8,3),(8,5),(7,2),(7,6); attacks (8,4) and (9,5); (9,3) not
    reachable. Total 6."""
    p = make([black("stunner_pawn", 9, 4), white("flame_pawn", 8, 4),
              white("rocket_pawn", 9, 5)], turn=BLACK_TURN)
    got = destinations(p, 9, 4)
    assert got == ground((7, 2), (7, 6), (8, 3), (8, 4), (8, 5), (9, 5))
    assert len(got) == 6
    assert refused(p, (9, 4), (9, 3)) == "R5.3.1"


def test_ex02_black_pawn_side_attack_captures():
    """EX-02: the (0,-1) attack = Black's left = (9,5); the pawn takes the White pawn."""
    p = make([black("stunner_pawn", 9, 4), white("flame_pawn", 8, 4),
              white("rocket_pawn", 9, 5)], turn=BLACK_TURN)
    out = move(p, (9, 4), (9, 5))
    assert layout(out.position) == [("black", "stunner_pawn", 9, 5, "ground"),
                                    ("white", "flame_pawn", 8, 4, "ground")]


# --------------------------------------------------------------------------- EX-04

@pytest.mark.parametrize(("cleric_range", "expected"), [(6, (7, 7)), (7, (8, 6)), (8, (9, 7))])
def test_ex04_left_cleric_from_1_3(cleric_range, expected):
    """EX-04 (R5.3.6): White left-handed Cleric at (1,3): range 7 -> {(8,6)}; range 6 ->
    {(7,7)}; range 8 -> {(9,7)}."""
    p = make([white("cleric", 1, 3, hand="left")], options={"cleric_range": cleric_range})
    assert destinations(p, 1, 3) == ground(expected)


def test_ex04_left_cleric_path_squares_block():
    """EX-04: the range-7 path is (2,4),(3,5),(4,6),(5,7),(6,8),(7,7); a piece on any of
    them blocks the Move (R5.2.2); the destination itself is free."""
    for blocker in ((2, 4), (3, 5), (4, 6), (5, 7), (6, 8), (7, 7)):
        p = make([white("cleric", 1, 3, hand="left"), black("rocket_pawn", *blocker)])
        assert destinations(p, 1, 3) == [], blocker
        assert refused(p, (1, 3), (8, 6)) == "R5.2.2"


def test_ex04_right_cleric_from_1_3():
    """EX-04: White right-handed Cleric at (1,3), range 7 -> {(4,10)} via
    (2,4),(3,5),(4,6),(5,7),(6,8),(5,9)."""
    p = make([white("cleric", 1, 3, hand="right")])
    assert destinations(p, 1, 3) == ground((4, 10))
    blocked = make([white("cleric", 1, 3, hand="right"), white("dozer", 5, 9)])
    assert destinations(blocked, 1, 3) == []


def test_ex04_left_cleric_from_1_6_path_leaves_board():
    """EX-04 (R5.2.1, D-15): White left-handed Cleric at (1,6): no destination; the
    forward-right path passes (6,11) off the board although it ends on (8,9)."""
    p = make([white("cleric", 1, 6, hand="left")])
    assert destinations(p, 1, 6) == []
    # The refusal names the broken rule: the on-board path rule or the Cleric's movement.
    assert refused(p, (1, 6), (8, 9)) in ("R5.2.1", "R5.3.6")


def test_ex04_right_cleric_from_1_6():
    """EX-04: White right-handed Cleric at (1,6) -> {(8,3)} via
    (2,5),(3,4),(4,3),(5,2),(6,1),(7,2)."""
    p = make([white("cleric", 1, 6, hand="right")])
    assert destinations(p, 1, 6) == ground((8, 3))


# --------------------------------------------------------------------------- EX-05

def test_ex05_right_chopper_from_ground():
    """EX-05 (R5.3.7): White right-handed Chopper at (5,5)G: (7,3),(7,6),(7,7),(6,3),
    (4,7),(3,3),(3,4),(3,7), each at Ground or Air -> 16 options."""
    p = make([white("chopper", 5, 5, hand="right")])
    got = destinations(p, 5, 5)
    assert got == both_levels((7, 3), (7, 6), (7, 7), (6, 3), (4, 7), (3, 3), (3, 4), (3, 7))
    assert len(got) == 16


def test_ex05_left_chopper_from_ground():
    """EX-05: left-handed Chopper at (5,5)G: (7,3),(7,4),(7,7),(6,7),(4,3),(3,3),(3,6),(3,7)."""
    p = make([white("chopper", 5, 5, hand="left")])
    assert destinations(p, 5, 5) == both_levels((7, 3), (7, 4), (7, 7), (6, 7), (4, 3), (3, 3),
                                                (3, 6), (3, 7))


@pytest.mark.parametrize(("hand", "squares"), [("right", ((3, 2), (3, 3))),
                                                ("left", ((2, 3), (3, 3)))])
def test_ex05_chopper_in_corner(hand, squares):
    """EX-05: right-handed Chopper at (1,1)G: (3,2), (3,3) only; left-handed: (2,3), (3,3)."""
    p = make([white("chopper", 1, 1, hand=hand)])
    assert destinations(p, 1, 1) == both_levels(*squares)


def test_ex05_chopper_in_air_lands_only():
    """EX-05: the same right-handed Chopper at (5,5)A: the same 8 squares, Ground only
    (8 options)."""
    p = make([white("chopper", 5, 5, "air", hand="right")])
    got = destinations(p, 5, 5, "air")
    assert got == ground((7, 3), (7, 6), (7, 7), (6, 3), (4, 7), (3, 3), (3, 4), (3, 7))
    assert len(got) == 8


def test_ex05_black_chopper_uses_black_orientation():
    """EX-05 derived (R1.3): a Black right-handed Chopper at (6,6)G has the 180-degree
    turn of the White destinations: (4,8),(4,5),(4,4),(5,8),(7,4),(8,8),(8,7),(8,4)."""
    p = make([black("chopper", 6, 6, hand="right")], turn=BLACK_TURN)
    assert destinations(p, 6, 6) == both_levels((4, 8), (4, 5), (4, 4), (5, 8), (7, 4), (8, 8),
                                                (8, 7), (8, 4))


# --------------------------------------------------------------------------- EX-06

def test_ex06_chopper_3d_blocking_by_air_piece():
    """EX-06 (R5.3.7): right-handed Chopper at (5,5)G, White Jet at (6,6)A: (7,7)
    unreachable; (7,6) reachable via (6,5)A; the other six destinations at G or A -> 14."""
    p = make([white("chopper", 5, 5, hand="right"), white("jet", 6, 6, "air")])
    got = destinations(p, 5, 5, kind="chopper")
    assert got == both_levels((7, 3), (7, 6), (6, 3), (4, 7), (3, 3), (3, 4), (3, 7))
    assert len(got) == 14
    assert refused(p, (5, 5), (7, 7, "air"), kind="chopper") == "R5.2.2"
    assert refused(p, (5, 5), (7, 7), kind="chopper") == "R5.2.2"
    out = move(p, (5, 5), (7, 6, "air"), kind="chopper")
    assert layout(out.position) == [("white", "chopper", 7, 6, "air"),
                                    ("white", "jet", 6, 6, "air")]


def test_ex06_variant_jet_above_chopper_blocks_take_off():
    """EX-06 variant: the White Jet at (5,5)A above the Chopper: no destination at all."""
    p = make([white("chopper", 5, 5, hand="right"), white("jet", 5, 5, "air")])
    assert destinations(p, 5, 5, kind="chopper") == []
    assert refused(p, (5, 5), (3, 3), kind="chopper") == "R5.2.2"


def test_ex06_variant_enemy_pawn_on_ground_destination():
    """EX-06 variant: a Black Rocket Pawn at (7,7)G, no Jet: (7,7)G is a legal capture;
    (7,7)A is also legal (no capture; the pawn stays)."""
    p = make([white("chopper", 5, 5, hand="right"), black("rocket_pawn", 7, 7)])
    assert (7, 7, "ground") in destinations(p, 5, 5)
    assert (7, 7, "air") in destinations(p, 5, 5)
    taken = move(p, (5, 5), (7, 7))
    assert layout(taken.position) == [("white", "chopper", 7, 7, "ground")]
    assert taken.events[1] == Captured(cell(7, 7), (PieceInfo(Side.BLACK, PieceKind.ROCKET_PAWN,
                                                              None, ()),))
    above = move(p, (5, 5), (7, 7, "air"))
    assert layout(above.position) == [("black", "rocket_pawn", 7, 7, "ground"),
                                      ("white", "chopper", 7, 7, "air")]
    assert not any(isinstance(e, Captured) for e in above.events)


# --------------------------------------------------------------------------- EX-08

def test_ex08_jet_in_air_center():
    """EX-08 (R5.3.4): White Jet at (5,5)A: 8 one-square, 8 two-square moves plus landing
    at (5,5)G -> 17 options."""
    p = make([white("jet", 5, 5, "air")])
    got = destinations(p, 5, 5, "air")
    assert got == sorted(air((4, 4), (4, 5), (4, 6), (5, 4), (5, 6), (6, 4), (6, 5), (6, 6),
                             (3, 3), (3, 5), (3, 7), (5, 3), (5, 7), (7, 3), (7, 5), (7, 7))
                         + ground((5, 5)))
    assert len(got) == 17


def test_ex08_jet_in_air_corner():
    """EX-08: White Jet at (1,1)A: (1,2),(2,1),(2,2),(1,3),(3,1),(3,3), landing -> 7."""
    p = make([white("jet", 1, 1, "air")])
    got = destinations(p, 1, 1, "air")
    assert got == sorted(air((1, 2), (2, 1), (2, 2), (1, 3), (3, 1), (3, 3)) + ground((1, 1)))
    assert len(got) == 7


def test_ex08_jet_next_to_own_chopper_in_air():
    """EX-08: White Jet at (5,5)A with a White Chopper alone at (6,6)A: (6,6)A legal
    (the Chopper coexists), (7,7)A illegal (via-square not empty) -> 16 options."""
    p = make([white("jet", 5, 5, "air"), white("chopper", 6, 6, "air", hand="right")])
    got = destinations(p, 5, 5, "air")
    assert (6, 6, "air") in got
    assert (7, 7, "air") not in got
    assert len(got) == 16
    assert refused(p, (5, 5, "air"), (7, 7, "air")) == "R5.2.2"
    out = move(p, (5, 5, "air"), (6, 6, "air"))
    assert layout(out.position) == [("white", "chopper", 6, 6, "air"),
                                    ("white", "jet", 6, 6, "air")]


def test_ex08_jet_on_ground_only_takes_off():
    """EX-08: White Jet at (5,5)G: only take-off to (5,5)A."""
    p = make([white("jet", 5, 5)])
    assert destinations(p, 5, 5) == air((5, 5))


def test_ex08_sub_submerged():
    """EX-08 (R5.3.3): White Sub at (5,5)S: the 8 adjacent squares at Sub, or surface to
    (5,5)G -> 9."""
    p = make([white("sub", 5, 5, "sub")])
    got = destinations(p, 5, 5, "sub")
    assert got == sorted([(r, c, "sub") for r in (4, 5, 6) for c in (4, 5, 6)
                          if (r, c) != (5, 5)] + [(5, 5, "ground")])
    assert len(got) == 9


def test_ex08_sub_cannot_surface_under_enemy():
    """EX-08: with a Black Rocket Pawn at (5,5)G the Sub cannot surface (non-combat) -> 8."""
    p = make([white("sub", 5, 5, "sub"), black("rocket_pawn", 5, 5)])
    got = destinations(p, 5, 5, "sub")
    assert (5, 5, "ground") not in got
    assert len(got) == 8
    assert refused(p, (5, 5, "sub"), (5, 5)) == "R5.1.3"


# --------------------------------------------------------------------------- EX-09

@pytest.mark.parametrize("hand", ["right", "left"])
def test_ex09_chess_tank(hand):
    """EX-09 (R5.4.2): Tank at (2,2), range 7: {(9,2), (2,9)} (handedness irrelevant)."""
    p = make([white("tank", 2, 2, hand=hand)], options=CHESS)
    assert destinations(p, 2, 2) == ground((9, 2), (2, 9))


@pytest.mark.parametrize("hand", ["right", "left"])
def test_ex09_chess_cleric(hand):
    """EX-09 (R5.4.3): Cleric at (2,2): {(9,9)}."""
    p = make([white("cleric", 2, 2, hand=hand)], options=CHESS)
    assert destinations(p, 2, 2) == ground((9, 9))


def test_ex09_chess_cleric_without_any_on_board_destination():
    """EX-09 / R5.4.3, R5.2.1: a Standard Chess Cleric at (5,5) has no range-7 diagonal on
    the board; a Move is refused naming the Standard Chess Cleric rule (or the on-board
    path rule), not the WEC movement section R5.3."""
    p = make([white("cleric", 5, 5, hand="right")], options=CHESS)
    assert destinations(p, 5, 5) == []
    assert refused(p, (5, 5), (7, 7)) in ("R5.2.1", "R5.4.3")


def test_ex09_chess_queen():
    """EX-09 (R5.4.5): secondary government piece at (2,2): {(9,2), (2,9), (9,9)}."""
    p = make([white("queen", 2, 2)], options=CHESS)
    assert destinations(p, 2, 2) == ground((9, 2), (2, 9), (9, 9))


@pytest.mark.parametrize("hand", ["right", "left"])
def test_ex09_chess_chopper(hand):
    """EX-09 (R5.4.4): Chopper at (1,1) (either hand): {(3,2), (2,3)}; at (5,5):
    (3,4),(3,6),(4,3),(4,7),(6,3),(6,7),(7,4),(7,6); each at Ground or Air."""
    corner = make([white("chopper", 1, 1, hand=hand)], options=CHESS)
    assert destinations(corner, 1, 1) == both_levels((3, 2), (2, 3))
    center = make([white("chopper", 5, 5, hand=hand)], options=CHESS)
    assert destinations(center, 5, 5) == both_levels((3, 4), (3, 6), (4, 3), (4, 7), (6, 3),
                                                     (6, 7), (7, 4), (7, 6))


def test_ex09_chess_pawn_unmoved():
    """EX-09 (R5.4.1): White Pawn at (2,5), never moved: moves (3,5), (4,5) (via (3,5));
    attacks (3,4), (3,6) only if an enemy is there."""
    p = make([white("flame_pawn", 2, 5)], options=CHESS)
    assert destinations(p, 2, 5) == ground((3, 5), (4, 5))
    assert refused(p, (2, 5), (3, 4)) == "R5.4.1"
    assert refused(p, (2, 5), (3, 6)) == "R5.4.1"
    enemies = make([white("flame_pawn", 2, 5), black("rocket_pawn", 3, 4),
                    black("rocket_pawn", 3, 6)], options=CHESS)
    assert destinations(enemies, 2, 5) == ground((3, 4), (3, 5), (3, 6), (4, 5))


def test_ex09_chess_pawn_blocked_forward():
    """EX-09 (R5.4.1): the forward square is a move square only: an enemy on (3,5) stops
    both the 1- and the 2-square move (via-square not empty)."""
    p = make([white("flame_pawn", 2, 5), black("rocket_pawn", 3, 5)], options=CHESS)
    assert destinations(p, 2, 5) == []
    assert refused(p, (2, 5), (3, 5)) == "R5.1.3"
    assert refused(p, (2, 5), (4, 5)) == "R5.2.2"


def test_ex09_chess_pawn_moved():
    """EX-09 (R5.4.1): after leaving its starting square only (1,0) remains."""
    p = make([white("flame_pawn", 4, 5, moved=True)], options=CHESS)
    assert destinations(p, 4, 5) == ground((5, 5))


# --------------------------------------------------------------------------- EX-11

def test_ex11_mdc_chopper():
    """EX-11 (R5.5.4): White right-handed Chopper at (5,5)G:
    (8,6),(7,3),(7,7),(6,2),(4,8),(3,3),(3,7),(2,4)."""
    p = make([white("chopper", 5, 5, hand="right")], options=MDC)
    assert destinations(p, 5, 5) == both_levels((8, 6), (7, 3), (7, 7), (6, 2), (4, 8), (3, 3),
                                                (3, 7), (2, 4))


_MDC_ENEMY_SQUARES = ((6, 4), (6, 5), (6, 6), (5, 4), (5, 6))
_MDC_MODES = [
    ("all_sides_and_forward", ((6, 4), (6, 5), (6, 6), (5, 4), (5, 6))),
    ("all_forward", ((6, 4), (6, 5), (6, 6))),
    ("all_but_directly_in_front", ((6, 4), (6, 6), (5, 4), (5, 6))),
]


@pytest.mark.parametrize(("mode", "expected"), _MDC_MODES)
def test_ex11_mdc_pawn_captures(mode, expected):
    """EX-11 (R5.5.1): White Pawn at (5,5), enemies on every listed square: each mode's
    squares are entered by capture."""
    pieces = [white("flame_pawn", 5, 5, moved=True)]
    pieces += [black("rocket_pawn", r, c) for r, c in _MDC_ENEMY_SQUARES]
    p = make(pieces, options={**MDC, "mdc_pawn_movement": mode})
    assert destinations(p, 5, 5) == ground(*expected)
    for target in expected:
        out = move(p, (5, 5), target)
        assert ("white", "flame_pawn", *target, "ground") in layout(out.position)
        assert len(layout(out.position)) == 5  # one enemy taken
        assert out.events[1] == Captured(cell(*target), (
            PieceInfo(Side.BLACK, PieceKind.ROCKET_PAWN, None, ()),))


@pytest.mark.parametrize(("mode", "expected"), _MDC_MODES)
def test_ex11_mdc_pawn_moves_on_empty_board(mode, expected):
    """EX-11: each square is entered by moving if empty."""
    p = make([white("flame_pawn", 5, 5, moved=True)], options={**MDC, "mdc_pawn_movement": mode})
    assert destinations(p, 5, 5) == ground(*expected)


def test_ex11_mdc_default_pawn_mode_is_all_sides_and_forward():
    """EX-11 / D-21: the default MDC pawn movement is All sides and forward."""
    p = make([white("flame_pawn", 5, 5, moved=True)], options=MDC)
    assert destinations(p, 5, 5) == ground(*_MDC_MODES[0][1])


@pytest.mark.parametrize(("mode", "expected"), [
    ("all_sides_and_forward", ((3, 4), (3, 5), (3, 6), (2, 4), (2, 6))),
    ("all_forward", ((3, 4), (3, 5), (3, 6))),
    ("all_but_directly_in_front", ((3, 4), (3, 6), (2, 4), (2, 6))),
])
def test_ex11_mdc_pawn_no_two_square_move_from_start(mode, expected):
    """EX-11: no 2-square move even from the starting square."""
    p = make([white("flame_pawn", 2, 5)], options={**MDC, "mdc_pawn_movement": mode})
    assert destinations(p, 2, 5) == ground(*expected)


def test_ex11_mdc_black_pawn_orientation():
    """EX-11 derived (R1.3): a Black pawn at (6,6) in All sides and forward: (5,7),(5,6),
    (5,5),(6,7),(6,5)."""
    p = make([black("flame_pawn", 6, 6, moved=True)], turn=BLACK_TURN, options=MDC)
    assert destinations(p, 6, 6) == ground((5, 7), (5, 6), (5, 5), (6, 7), (6, 5))


# --------------------------------------------------------------------------- EX-12

def _ex12(*extra):
    return make([white("destroyer", 5, 5), white("flame_pawn", 5, 5),
                 white("stunner_pawn", 4, 4, moved=True), *extra])


def test_ex12_coexistence_and_capacity():
    """EX-12 (R1.6, R5.1.2): Destroyer + Flame Pawn at (5,5), Stunner Pawn at (4,4)
    (moved): it may move to (5,3) but not (5,5) (would be 3 pieces)."""
    p = _ex12()
    assert destinations(p, 4, 4) == ground((5, 3))
    assert refused(p, (4, 4), (5, 5)) == "R1.6"
    out = move(p, (4, 4), (5, 3))
    assert ("white", "stunner_pawn", 5, 3, "ground") in layout(out.position)


def test_ex12_variant_destroyer_at_5_3():
    """EX-12 variant: a White Destroyer alone at (5,3) -> legal (2 pieces, coexists)."""
    p = _ex12(white("destroyer", 5, 3))
    assert destinations(p, 4, 4) == ground((5, 3))
    out = move(p, (4, 4), (5, 3))
    assert layout(out.position) == [
        ("white", "destroyer", 5, 3, "ground"), ("white", "destroyer", 5, 5, "ground"),
        ("white", "flame_pawn", 5, 5, "ground"), ("white", "stunner_pawn", 5, 3, "ground")]


def test_ex12_variant_rocket_pawn_at_5_3():
    """EX-12 variant: a White Rocket Pawn alone at (5,3) -> illegal (no coexistence)."""
    p = _ex12(white("rocket_pawn", 5, 3))
    assert destinations(p, 4, 4) == []
    assert refused(p, (4, 4), (5, 3)) == "R1.6"


def test_ex12_variant_visible_black_piece_at_5_3():
    """EX-12 variant: a visible Black piece at (5,3) -> illegal (pawn move squares
    cannot capture)."""
    p = _ex12(black("dozer", 5, 3))
    assert destinations(p, 4, 4) == []
    assert refused(p, (4, 4), (5, 3)) == "R5.1.3"


# --------------------------------------------------------------------------- EX-13

def _ex13(extra_articles=None):
    return make([white("tank", 1, 1, hand="right"),
                 black("rocket_pawn", 4, 1, articles=["stealth"], hidden=True)],
                articles=extra_articles)


def test_ex13_hidden_collision_legal_on_white_information():
    """EX-13 (R4.13): (8,4) is legal on White's information (the pawn is hidden)."""
    p = _ex13()
    assert destinations(p, 1, 1) == ground((8, 4))
    assert engine.legal_moves(p) == [engine.Move(cell(1, 1), cell(8, 4), PieceKind.TANK, None)]


def test_ex13_hidden_collision_stops_and_takes():
    """EX-13 (R5.2.4, R3.4, R16): the Tank stops at (4,1) and takes the Black pawn; the
    Stealth article drops on (4,1)G; the Move is reported as (8,4) but ends at (4,1)."""
    intent = engine.intent_from_dict({"act": "move", "from": [1, 1, "ground"],
                                      "to": [8, 4, "ground"]})
    out = engine.apply(_ex13(), intent)
    assert out.events == (
        Moved(Side.WHITE, PieceKind.TANK, Hand.RIGHT, cell(1, 1), cell(4, 1), cell(8, 4), None),
        Captured(cell(4, 1), (PieceInfo(Side.BLACK, PieceKind.ROCKET_PAWN, None, (A.STEALTH,)),)),
        ArticleDropped(A.STEALTH, sq(4, 1)),
    )
    data = engine.position_to_dict(out.position)
    assert data["pieces"] == [{"side": "white", "kind": "tank", "at": [4, 1], "level": "ground",
                               "hand": "right", "moved": True}]
    assert data["articles"] == [{"kind": "stealth", "at": [4, 1]}]
    assert out.position.result is None
    assert out.position.actions.move == 1


def test_ex13_variant_full_square_drops_by_black_orientation():
    """EX-13 derived (R3.4, R7.4): with (4,1) already holding 2 articles, the Stealth
    article goes to the Black pawn's ring 1: forward-left for Black = (3,2)."""
    out = move(_ex13([("bike", 4, 1), ("xxx", 4, 1)]), (1, 1), (8, 4))
    assert ArticleDropped(A.STEALTH, sq(3, 2)) in out.events
    assert ground_articles(out.position) == {(4, 1): ["bike", "xxx"], (3, 2): ["stealth"]}


def test_ex13_variant_non_combat_mover_also_stops_and_takes():
    """EX-13 / R5.2.4, D-16: the hidden-collision rule applies to non-combat pieces: a
    White Destroyer stepping onto a hidden Black AAA takes it."""
    p = make([white("destroyer", 4, 4), black("aaa", 5, 5, hidden=True)])
    assert (5, 5, "ground") in destinations(p, 4, 4)
    out = move(p, (4, 4), (5, 5))
    assert layout(out.position) == [("white", "destroyer", 5, 5, "ground")]
    assert out.events[1] == Captured(cell(5, 5), (PieceInfo(Side.BLACK, PieceKind.AAA, None,
                                                            ()),))


def test_ex13_variant_hidden_piece_on_jet_via_square():
    """EX-13 / R5.2.4: a Jet's 2-square move stops on a via-square holding a hidden enemy
    at Air and takes it; the Move is reported at the chosen destination."""
    p = make([white("jet", 5, 5, "air"), black("chopper", 6, 6, "air", hand="left",
                                               hidden=True)])
    out = move(p, (5, 5, "air"), (7, 7, "air"))
    assert out.events[0] == Moved(Side.WHITE, PieceKind.JET, None, cell(5, 5, "air"),
                                  cell(6, 6, "air"), cell(7, 7, "air"), None)
    assert layout(out.position) == [("white", "jet", 6, 6, "air")]


# --------------------------------------------------------------------------- EX-25

def _ground_with(counts: dict[tuple[int, int], list[ArticleKind]]):
    squares = [()] * SQUARES
    for (r, c), arts in counts.items():
        squares[sq(r, c)] = tuple(arts)
    return tuple(squares)


def test_ex25_drop_placement_white_piece():
    """EX-25 (R7.4): White Tank at (5,5) carrying Flame, XXX, Anti-Flame (acquisition
    order); ground (5,5) 1, (6,4) 2, (6,5) 1, (6,6) 0. Flame -> (5,5); XXX -> (6,5)
    (forward-left (6,4) full); Anti-Flame -> (6,6) (forward-right)."""
    ground = _ground_with({(5, 5): [A.STEALTH], (6, 4): [A.BIKE, A.SCUBA_SUIT],
                           (6, 5): [A.JUMP_PACK]})
    after, placed = place_dropped(ground, sq(5, 5), Side.WHITE,
                                  (A.FLAME, A.XXX, A.ANTI_FLAME))
    assert placed == ((A.FLAME, sq(5, 5)), (A.XXX, sq(6, 5)), (A.ANTI_FLAME, sq(6, 6)))
    assert after[sq(5, 5)] == (A.STEALTH, A.FLAME)
    assert after[sq(6, 4)] == (A.BIKE, A.SCUBA_SUIT)
    assert after[sq(6, 5)] == (A.JUMP_PACK, A.XXX)
    assert after[sq(6, 6)] == (A.ANTI_FLAME,)
    assert sum(len(x) for x in after) == 7


def test_ex25_drop_order_white_ring_1_and_2():
    """EX-25 / R7.4: White orientation from (5,5): own square, ring 1 forward-left,
    forward, forward-right, left, right, back-left, back, back-right; ring 2 front row
    left to right, left column front to back, right column, back row left to right."""
    expected = [(5, 5),
                (6, 4), (6, 5), (6, 6), (5, 4), (5, 6), (4, 4), (4, 5), (4, 6),
                (7, 3), (7, 4), (7, 5), (7, 6), (7, 7), (6, 3), (5, 3), (4, 3),
                (6, 7), (5, 7), (4, 7), (3, 3), (3, 4), (3, 5), (3, 6), (3, 7)]
    assert list(drop_order(sq(5, 5), Side.WHITE)[:25]) == [sq(r, c) for r, c in expected]


def test_ex25_drop_order_black_ring_1_and_2():
    """EX-25 derived for Black (R1.3, R7.4): Black's forward is row-1 and Black's right
    is column-1, so from (5,5): ring 1 = (4,6),(4,5),(4,4),(5,6),(5,4),(6,6),(6,5),(6,4);
    ring 2 = front row (3,7)..(3,3), left column (4,7),(5,7),(6,7), right column
    (4,3),(5,3),(6,3), back row (7,7)..(7,3)."""
    expected = [(5, 5),
                (4, 6), (4, 5), (4, 4), (5, 6), (5, 4), (6, 6), (6, 5), (6, 4),
                (3, 7), (3, 6), (3, 5), (3, 4), (3, 3), (4, 7), (5, 7), (6, 7),
                (4, 3), (5, 3), (6, 3), (7, 7), (7, 6), (7, 5), (7, 4), (7, 3)]
    assert list(drop_order(sq(5, 5), Side.BLACK)[:25]) == [sq(r, c) for r, c in expected]


def test_ex25_drop_placement_black_piece():
    """EX-25 mirrored for a Black Tank at (5,5) (derived): ground (5,5) 1, Black
    forward-left (4,6) 2, forward (4,5) 1, forward-right (4,4) 0 -> Flame (5,5),
    XXX (4,5), Anti-Flame (4,4). The White ring-1 squares (6,4),(6,5),(6,6) are Black's
    back ring and stay empty."""
    ground = _ground_with({(5, 5): [A.STEALTH], (4, 6): [A.BIKE, A.SCUBA_SUIT],
                           (4, 5): [A.JUMP_PACK]})
    after, placed = place_dropped(ground, sq(5, 5), Side.BLACK,
                                  (A.FLAME, A.XXX, A.ANTI_FLAME))
    assert placed == ((A.FLAME, sq(5, 5)), (A.XXX, sq(4, 5)), (A.ANTI_FLAME, sq(4, 4)))
    assert after[sq(4, 4)] == (A.ANTI_FLAME,)
    assert after[sq(6, 4)] == after[sq(6, 5)] == after[sq(6, 6)] == ()


def test_ex25_drop_order_black_corner_skips_off_board():
    """EX-25 derived (R7.4): Black piece at (10,1) (Black's back rank): ring 1 on board
    = forward-left (9,2), forward (9,1), left (10,2); ring 2 = (8,3),(8,2),(8,1) then the
    left column (9,3),(10,3); every other square is off the board and skipped."""
    expected = [(10, 1), (9, 2), (9, 1), (10, 2), (8, 3), (8, 2), (8, 1), (9, 3), (10, 3)]
    assert list(drop_order(sq(10, 1), Side.BLACK)[:9]) == [sq(r, c) for r, c in expected]


def test_ex25_drop_placement_spills_to_ring_2():
    """EX-25 derived (R7.4): a White piece at (5,5) with its own square and all of ring 1
    full drops its 3 articles on ring 2's front row from the left: (7,3),(7,3),(7,4)."""
    full = {(r, c): [A.BIKE, A.BIKE] for r in (4, 5, 6) for c in (4, 5, 6)}
    after, placed = place_dropped(_ground_with(full), sq(5, 5), Side.WHITE,
                                  (A.FLAME, A.XXX, A.ANTI_FLAME))
    assert placed == ((A.FLAME, sq(7, 3)), (A.XXX, sq(7, 3)), (A.ANTI_FLAME, sq(7, 4)))
    assert after[sq(7, 3)] == (A.FLAME, A.XXX)


def test_ex25_capture_drops_by_owner_orientation():
    """EX-25 / R3.4 (D-6): a captured Black piece's articles drop from its square in
    Black's orientation: (5,5) holds 2 articles, so Flame and XXX fill Black's
    forward-left (4,6) and Anti-Flame goes to Black's forward (4,5)."""
    p = make([white("king", 4, 5), black("flame_pawn", 5, 5,
                                         articles=["flame", "xxx", "anti_flame"])],
             articles=[("bike", 5, 5), ("scuba_suit", 5, 5)])
    out = move(p, (4, 5), (5, 5))
    assert [e for e in out.events if isinstance(e, ArticleDropped)] == [
        ArticleDropped(A.FLAME, sq(4, 6)), ArticleDropped(A.XXX, sq(4, 6)),
        ArticleDropped(A.ANTI_FLAME, sq(4, 5))]
    assert ground_articles(out.position) == {(4, 5): ["anti_flame"], (4, 6): ["flame", "xxx"],
                                             (5, 5): ["bike", "scuba_suit"]}


def test_dest_squares_helper_matches_destinations():
    """Sanity of the helper used above: levels collapse to squares."""
    p = make([white("chopper", 1, 1, hand="right")], turn=WHITE_TURN)
    assert dest_squares(p, 1, 1) == [(3, 2), (3, 3)]
    assert plan_options(p, 1, 1) == [((3, 2, "air"), False), ((3, 2, "ground"), False),
                                     ((3, 3, "air"), False), ((3, 3, "ground"), False)]
