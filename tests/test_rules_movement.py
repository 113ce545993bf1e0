"""Per-rule unit tests of movement, turn structure, game end, governments and setup.

Rules: /work/shared/RULES.md (R1.6, R2.5, R4.1, R4.3, R4.4, R5.1-R5.3, R8.7, R11, R12,
R15). Each test names the rule it checks; positions are tiny and hand-made unless the
rule is about the standard setup.
"""

from __future__ import annotations

from collections import Counter

import pytest
from rules_helpers import (
    BLACK_TURN,
    WHITE_TURN,
    black,
    cell,
    destinations,
    end_turn,
    layout,
    make,
    move,
    plan_options,
    refused,
    white,
)

from wec import engine
from wec.engine.errors import IllegalIntent
from wec.engine.events import Captured, GameOver, Moved, TurnEnded
from wec.engine.game import legal_intents
from wec.engine.options import options_from_dict
from wec.engine.pieces import TRAITS, ArticleKind, Movement, PieceKind, Side
from wec.engine.referee import PieceInfo

A = ArticleKind
K = PieceKind

COEXISTING = ("sub", "chopper", "dozer", "destroyer", "aaa")  # R1.6(c), D-1
NON_COEXISTING = ("jet", "tank", "cleric", "queen", "flame_pawn", "rocket_pawn",
                  "stunner_pawn", "conversion_pawn", "sam_torpedo_pawn", "xxx_pawn",
                  "stealth_pawn")
HANDED = {"tank", "cleric", "chopper"}


def own(kind: str, row: int, col: int, level: str = "ground", side: str = "white", **kw):
    if kind in HANDED:
        kw.setdefault("hand", "right")
    return (white if side == "white" else black)(kind, row, col, level, **kw)


def info(side: Side, kind: PieceKind, articles=()) -> PieceInfo:
    hand = None
    return PieceInfo(side, kind, hand, tuple(articles))


# =========================================================================== R1.6

def test_r1_6_a_at_most_two_pieces_per_level():
    """R1.6(a): Destroyer + Dozer share (5,5)G; a third piece (an AAA, which coexists)
    cannot join them."""
    p = make([white("destroyer", 5, 5), white("dozer", 5, 5), white("aaa", 4, 4)])
    assert (5, 5, "ground") not in destinations(p, 4, 4)
    assert refused(p, (4, 4), (5, 5)) == "R1.6"


def test_r1_6_a_capacity_is_per_level():
    """R1.6(a): two pieces at Ground do not fill Air or Sub of the same square."""
    p = make([white("destroyer", 5, 5), white("dozer", 5, 5), white("jet", 4, 4, "air"),
              white("sub", 4, 4, "sub")])
    assert (5, 5, "air") in destinations(p, 4, 4, "air")
    assert (5, 5, "sub") in destinations(p, 4, 4, "sub")


@pytest.mark.parametrize("kind", COEXISTING)
def test_r1_6_c_king_may_join_a_coexisting_piece(kind):
    """R1.6(c), D-1: Sub, Chopper, Dozer, Destroyer and AAA coexist: a (non-coexisting)
    King may step onto their square."""
    p = make([white("king", 4, 5), own(kind, 5, 5)])
    assert (5, 5, "ground") in destinations(p, 4, 5)
    out = move(p, (4, 5), (5, 5))
    assert layout(out.position) == sorted([("white", "king", 5, 5, "ground"),
                                           ("white", kind, 5, 5, "ground")])


@pytest.mark.parametrize("kind", NON_COEXISTING)
def test_r1_6_c_king_may_not_join_a_non_coexisting_piece(kind):
    """R1.6(c), D-1: Jet, Tank, Cleric, Queen and every pawn do not coexist: neither they
    nor the King can share a level."""
    p = make([white("king", 4, 5), own(kind, 5, 5)])
    assert (5, 5, "ground") not in destinations(p, 4, 5)
    assert refused(p, (4, 5), (5, 5)) == "R1.6"


@pytest.mark.parametrize("kind", NON_COEXISTING)
def test_r1_6_c_coexisting_mover_may_join_any_own_piece(kind):
    """R1.6(c): 'at least one of them' coexists: a Destroyer may step onto any own piece."""
    p = make([white("destroyer", 4, 5), own(kind, 5, 5)])
    assert (5, 5, "ground") in destinations(p, 4, 5)


def test_r1_6_b_non_combat_piece_may_not_join_an_enemy():
    """R1.6(b), R5.1.3: a Destroyer may not end on a level holding a visible enemy even
    if the enemy coexists (no mixing of sides)."""
    p = make([white("destroyer", 4, 5), black("dozer", 5, 5)])
    assert (5, 5, "ground") not in destinations(p, 4, 5)
    assert refused(p, (4, 5), (5, 5)) == "R5.1.3"


def test_r1_6_b_enemy_pieces_at_other_levels_are_allowed():
    """R1.6: enemy pieces MAY be in the same square at other levels: a White Destroyer
    enters (5,5)G under a Black Jet at Air and above a Black Sub at Sub."""
    p = make([white("destroyer", 4, 5), black("jet", 5, 5, "air"), black("sub", 5, 5, "sub")])
    out = move(p, (4, 5), (5, 5))
    assert layout(out.position) == [("black", "jet", 5, 5, "air"), ("black", "sub", 5, 5, "sub"),
                                    ("white", "destroyer", 5, 5, "ground")]
    assert not any(isinstance(e, Captured) for e in out.events)


def test_r1_6_six_pieces_in_one_square():
    """R1.6: a square holds at most 6 pieces (2 per level): a Chopper may fly into Air of a
    square whose Ground and Sub each hold 2 pieces and whose Air holds an own Jet."""
    p = make([white("dozer", 7, 7), white("destroyer", 7, 7), white("sub", 7, 7, "sub"),
              white("sub", 7, 7, "sub"), white("jet", 7, 7, "air"),
              white("chopper", 5, 5, hand="right")])
    out = move(p, (5, 5), (7, 7, "air"))
    assert sum(1 for entry in layout(out.position) if entry[2:4] == (7, 7)) == 6


# =========================================================================== R5.1.3

def test_r5_1_3_combat_piece_takes_all_enemies_at_destination_level_only():
    """R5.1.3: a King ending on (5,5)G takes the Black Destroyer and Flame Pawn there
    (regardless of defences); the Black Jet at Air and Sub at Sub are not affected."""
    p = make([white("king", 4, 4), black("destroyer", 5, 5), black("flame_pawn", 5, 5),
              black("jet", 5, 5, "air"), black("sub", 5, 5, "sub")])
    out = move(p, (4, 4), (5, 5))
    assert out.events[1] == Captured(cell(5, 5), (info(Side.BLACK, K.DESTROYER),
                                                  info(Side.BLACK, K.FLAME_PAWN)))
    assert layout(out.position) == [("black", "jet", 5, 5, "air"), ("black", "sub", 5, 5, "sub"),
                                    ("white", "king", 5, 5, "ground")]


def test_r5_1_3_chopper_capture_at_air_leaves_ground_alone():
    """R5.1.3, R5.3.7: a Chopper flying to (5,5)A takes both Black pieces at Air (a Jet
    and a Chopper) and not the Black Rocket Pawn at Ground."""
    p = make([white("chopper", 3, 3, hand="right"), black("jet", 5, 5, "air"),
              black("chopper", 5, 5, "air", hand="left"), black("rocket_pawn", 5, 5)])
    out = move(p, (3, 3), (5, 5, "air"))
    assert layout(out.position) == [("black", "rocket_pawn", 5, 5, "ground"),
                                    ("white", "chopper", 5, 5, "air")]
    taken = next(e for e in out.events if isinstance(e, Captured))
    assert taken.cell == cell(5, 5, "air")
    assert sorted(i.kind.value for i in taken.pieces) == ["chopper", "jet"]


def test_r5_1_3_tank_captures_at_destination():
    """R5.1.3, D-4: the Tank has combat movement: right-handed White Tank (1,1) -> (8,4)
    takes the Black Queen there (its defences do not matter)."""
    p = make([white("tank", 1, 1, hand="right"), black("queen", 8, 4)])
    out = move(p, (1, 1), (8, 4))
    assert layout(out.position) == [("white", "tank", 8, 4, "ground")]
    assert out.position.result is None


@pytest.mark.parametrize(("mover", "frm", "to", "enemy"), [
    (white("destroyer", 4, 4), (4, 4), (5, 5), black("flame_pawn", 5, 5)),
    (white("dozer", 4, 4), (4, 4), (5, 5), black("flame_pawn", 5, 5)),
    (white("aaa", 4, 4), (4, 4), (5, 5), black("flame_pawn", 5, 5)),
    (white("sub", 4, 4, "sub"), (4, 4, "sub"), (5, 5, "sub"), black("sub", 5, 5, "sub")),
    (white("sub", 5, 5), (5, 5), (5, 5, "sub"), black("sub", 5, 5, "sub")),
    (white("jet", 4, 4, "air"), (4, 4, "air"), (5, 5, "air"), black("jet", 5, 5, "air")),
    (white("jet", 4, 4, "air"), (4, 4, "air"), (6, 6, "air"), black("jet", 6, 6, "air")),
    (white("jet", 5, 5, "air"), (5, 5, "air"), (5, 5), black("flame_pawn", 5, 5)),
    (white("jet", 5, 5), (5, 5), (5, 5, "air"), black("jet", 5, 5, "air")),
    (white("flame_pawn", 4, 4, moved=True), (4, 4), (5, 5), black("dozer", 5, 5)),
], ids=["destroyer", "dozer", "aaa", "sub-at-sub", "sub-dive", "jet-1", "jet-2", "jet-land",
        "jet-take-off", "pawn-move-square"])
def test_r5_1_3_non_combat_piece_may_not_end_on_visible_enemy(mover, frm, to, enemy):
    """R5.1.3 (R2.1 'movement is combat?' = no): Dozer, Destroyer, AAA, Sub, Jet and a
    pawn's move squares must not end at a level holding a visible enemy."""
    p = make([mover, enemy])
    assert (*to, "ground")[:3] not in destinations(p, *frm)
    assert refused(p, frm, to) == "R5.1.3"


# =========================================================================== R5.2.2

_TANK_PATH = ((2, 1), (3, 1), (4, 1), (5, 1), (6, 2), (7, 3))  # right Tank (1,1) -> (8,4)


@pytest.mark.parametrize("blocker", _TANK_PATH)
@pytest.mark.parametrize("side", ["white", "black"])
def test_r5_2_2_ground_piece_on_path_blocks(blocker, side):
    """R5.2.2: any piece (either side) at the path's level before the destination blocks."""
    kind = "dozer"
    p = make([white("tank", 1, 1, hand="right"), own(kind, *blocker, side=side)])
    assert destinations(p, 1, 1) == []
    assert refused(p, (1, 1), (8, 4)) == "R5.2.2"


@pytest.mark.parametrize("blocker", _TANK_PATH)
def test_r5_2_2_pieces_at_other_levels_do_not_block(blocker):
    """R5.2.2: pieces at Air or Sub on the path squares do not block a Ground path."""
    p = make([white("tank", 1, 1, hand="right"), black("jet", *blocker, "air"),
              black("sub", *blocker, "sub")])
    assert destinations(p, 1, 1) == [(8, 4, "ground")]
    out = move(p, (1, 1), (8, 4))
    assert ("white", "tank", 8, 4, "ground") in layout(out.position)
    assert len(layout(out.position)) == 3


def test_r5_2_2_jet_via_square_blocked_only_at_air():
    """R5.2.2, R5.3.4: the Jet's 2-square via-square (6,6) must be empty at Air; pieces at
    (6,6)G and (6,6)S do not matter."""
    free = make([white("jet", 5, 5, "air"), black("rocket_pawn", 6, 6), black("sub", 6, 6, "sub")])
    assert (7, 7, "air") in destinations(free, 5, 5, "air")
    blocked = make([white("jet", 5, 5, "air"), black("jet", 6, 6, "air")])
    assert (7, 7, "air") not in destinations(blocked, 5, 5, "air")
    assert refused(blocked, (5, 5, "air"), (7, 7, "air")) == "R5.2.2"


def test_r5_2_2_chopper_flies_over_ground_pieces():
    """R5.2.2, R5.3.7: the Chopper's flight path is at Air: a Ground piece on (6,6) under
    the (5,5) -> (7,7) flight path does not block it."""
    p = make([white("chopper", 5, 5, hand="right"), black("rocket_pawn", 6, 6)])
    assert (7, 7, "ground") in destinations(p, 5, 5)
    assert (7, 7, "air") in destinations(p, 5, 5)


def test_r5_2_2_chopper_landing_needs_empty_air_at_destination():
    """R5.3.7: ending on Ground needs Air of the destination empty; ending at Air there
    next to an own coexisting piece is still possible."""
    p = make([white("chopper", 5, 5, hand="right"), white("jet", 7, 7, "air")])
    got = destinations(p, 5, 5)
    assert (7, 7, "ground") not in got
    assert (7, 7, "air") in got
    assert refused(p, (5, 5), (7, 7)) == "R5.2.2"


def test_r5_2_2_pawn_via_square_blocked_only_at_ground():
    """R5.2.2, R5.3.1 (D-17): a Jet at Air over the via-square (3,4) does not block the
    pawn's (4,3) first move; a piece at Ground there does."""
    free = make([white("flame_pawn", 2, 5), white("jet", 3, 4, "air")])
    assert (4, 3, "ground") in destinations(free, 2, 5)
    blocked = make([white("flame_pawn", 2, 5), black("dozer", 3, 4)])
    assert (4, 3, "ground") not in destinations(blocked, 2, 5)
    assert refused(blocked, (2, 5), (4, 3)) == "R5.2.2"


def test_r5_2_3_queen_uses_cleric_path_when_tank_path_blocked():
    """R5.2.3, R5.3.8: a White Queen at (1,1) reaches (8,4) by a right Tank path
    ((2,1)..(5,1),(6,2),(7,3)) or a left Cleric path ((2,2)..(6,6),(7,5)); with the Tank
    path blocked it still goes; with both blocked it cannot."""
    alone = make([white("queen", 1, 1)])
    assert destinations(alone, 1, 1) == [(4, 8, "ground"), (8, 4, "ground")]
    tank_blocked = make([white("queen", 1, 1), black("dozer", 3, 1)])
    assert (8, 4, "ground") in destinations(tank_blocked, 1, 1)
    both = make([white("queen", 1, 1), black("dozer", 3, 1), black("dozer", 4, 4)])
    assert (8, 4, "ground") not in destinations(both, 1, 1)
    assert refused(both, (1, 1), (8, 4)) == "R5.2.2"


# =========================================================================== R5.1.6

@pytest.mark.parametrize(("tank_range", "expected"), [
    (6, [(2, 7), (10, 3)]), (7, [(1, 8)]), (8, [])])
def test_r5_1_6_tank_range_exact_white_right(tank_range, expected):
    """R5.1.6, R5.3.5, O6: right-handed White Tank at (4,1): forward path (5..8,1),
    (9,2), (10,3), then off the board; right path (4,2)..(4,5),(3,6),(2,7),(1,8), then
    off. Only square number TankRange is a destination (range 8: none)."""
    p = make([white("tank", 4, 1, hand="right")], options={"tank_range": tank_range})
    assert destinations(p, 4, 1) == [(r, c, "ground") for r, c in expected]


@pytest.mark.parametrize("earlier", [(4, 2), (4, 5), (3, 6), (2, 7), (8, 1), (9, 2), (10, 3)])
def test_r5_1_6_earlier_path_squares_are_not_destinations(earlier):
    """R5.1.6 (D-14): at range 7 the earlier squares of a path are path only."""
    p = make([white("tank", 4, 1, hand="right")])
    assert destinations(p, 4, 1) == [(1, 8, "ground")]
    assert refused(p, (4, 1), earlier) in ("R5.1.6", "R5.3.5")


@pytest.mark.parametrize(("tank_range", "expected"), [
    (6, [(2, 4), (10, 8)]), (7, [(1, 3)]), (8, [])])
def test_r5_1_6_tank_range_exact_white_left(tank_range, expected):
    """R5.3.5: left-handed = mirror: White Tank at (4,10): left path (4,9)..(4,6),(3,5),
    (2,4),(1,3); forward (5..8,10),(9,9),(10,8)."""
    p = make([white("tank", 4, 10, hand="left")], options={"tank_range": tank_range})
    assert destinations(p, 4, 10) == [(r, c, "ground") for r, c in expected]


@pytest.mark.parametrize(("tank_range", "expected"), [
    (6, [(1, 8), (9, 4)]), (7, [(10, 3)]), (8, [])])
def test_r5_1_6_tank_range_exact_black_right(tank_range, expected):
    """R1.3, R5.3.5: a Black right-handed Tank at (7,10) is the 180-degree turn of the
    White one at (4,1)."""
    p = make([black("tank", 7, 10, hand="right")], turn=BLACK_TURN,
             options={"tank_range": tank_range})
    assert destinations(p, 7, 10) == [(r, c, "ground") for r, c in expected]


@pytest.mark.parametrize(("tank_range", "dest"), [(6, (8, 2)), (7, (9, 2)), (8, (10, 2))])
def test_r5_1_6_chess_tank_range(tank_range, dest):
    """R5.4.2, O6: Standard Chess Tank at (2,2) goes exactly TankRange squares."""
    p = make([white("tank", 2, 2, hand="right")],
             options={"movement_system": "standard_chess", "tank_range": tank_range})
    assert destinations(p, 2, 2) == sorted([(*dest, "ground"), (2, 2 + tank_range, "ground")])


# =========================================================================== R2.5

def _carried(carrier: str, level: str, passenger: str = "flame_pawn"):
    hand = {"hand": "right"} if carrier == "chopper" else {}
    return make([white(carrier, 5, 5, level, **hand), white(passenger, 5, 5, level)])


@pytest.mark.parametrize(("carrier", "level"), [("chopper", "air"), ("sub", "sub")])
def test_r2_5_passenger_at_non_native_level_cannot_move(carrier, level):
    """R2.5, D-5: a Flame Pawn carried at Air / Sub makes no Move of its own."""
    p = _carried(carrier, level)
    assert destinations(p, 5, 5, level, kind="flame_pawn") == []
    assert refused(p, (5, 5, level), (6, 6, level), kind="flame_pawn") == "R2.5"
    assert refused(p, (5, 5, level), (5, 5), kind="flame_pawn") == "R2.5"
    assert all(m.kind is not K.FLAME_PAWN for m in engine.legal_moves(p))


def test_r2_5_passenger_goes_with_chopper_without_asking():
    """R2.5, R8.7.1: the passenger at a non-native level must come along; a Move with no
    carry choice takes it; carry false is refused."""
    p = _carried("chopper", "air")
    assert plan_options(p, 5, 5, "air", kind="chopper") == [
        ((r, c, "ground"), True) for r, c in
        sorted([(7, 3), (7, 6), (7, 7), (6, 3), (4, 7), (3, 3), (3, 4), (3, 7)])]
    assert refused(p, (5, 5, "air"), (7, 7), kind="chopper", carry=False) == "R2.5"
    out = move(p, (5, 5, "air"), (7, 7), kind="chopper")
    assert layout(out.position) == [("white", "chopper", 7, 7, "ground"),
                                    ("white", "flame_pawn", 7, 7, "ground")]
    assert out.events[0] == Moved(Side.WHITE, K.CHOPPER, engine.Hand.RIGHT, cell(5, 5, "air"),
                                  cell(7, 7), cell(7, 7), K.FLAME_PAWN)


def test_r2_5_passenger_goes_with_sub():
    """R2.5: a Sub moving at Sub level takes its Sub-level passenger; surfacing brings it
    back to Ground; carry false is refused."""
    p = _carried("sub", "sub", "dozer")
    assert refused(p, (5, 5, "sub"), (6, 6, "sub"), kind="sub", carry=False) == "R2.5"
    out = move(p, (5, 5, "sub"), (6, 6, "sub"), kind="sub")
    assert layout(out.position) == [("white", "dozer", 6, 6, "sub"), ("white", "sub", 6, 6, "sub")]
    up = move(p, (5, 5, "sub"), (5, 5), kind="sub")
    assert layout(up.position) == [("white", "dozer", 5, 5, "ground"),
                                   ("white", "sub", 5, 5, "ground")]


def test_r2_4_jet_carried_at_air_is_native_and_may_move_itself():
    """R2.4, R8.7.1: a Jet sharing Air with an own Chopper is at a native level: it may
    move itself, and the Chopper may land without it."""
    p = make([white("chopper", 5, 5, "air", hand="right"), white("jet", 5, 5, "air")])
    assert (5, 5, "ground") in destinations(p, 5, 5, "air", kind="jet")
    out = move(p, (5, 5, "air"), (7, 7), kind="chopper", carry=False)
    assert layout(out.position) == [("white", "chopper", 7, 7, "ground"),
                                    ("white", "jet", 5, 5, "air")]


# =========================================================================== R8.7 carrying

def _standard_white_to_act():
    """Standard setup after Black's first Move (Rocket Pawn (9,1) -> (8,2)): T = 2."""
    p = engine.standard_position()
    p = move(p, (9, 1), (8, 2)).position
    return end_turn(p).position


def test_r8_7_standard_chopper_with_jet_options():
    """R8.7.1, R5.3.7: White's right-handed Chopper + Jet at (1,4) in the standard setup:
    (3,2), (3,5), (3,6) at Ground or Air, with or without the Jet; (2,2)A with or without
    it; (2,2)G only alone (the Stunner Pawn is there: the pair would make 3 pieces)."""
    p = _standard_white_to_act()
    assert p.turn == WHITE_TURN
    expected = []
    for sq_ in ((3, 2), (3, 5), (3, 6)):
        for level in ("air", "ground"):
            expected += [((*sq_, level), False), ((*sq_, level), True)]
    expected += [((2, 2, "air"), False), ((2, 2, "air"), True), ((2, 2, "ground"), False)]
    assert plan_options(p, 1, 4, kind="chopper") == sorted(expected)
    assert refused(p, (1, 4), (2, 2), kind="chopper", carry=True) == "R1.6"


def test_r8_7_chopper_carries_jet_when_asked():
    """R8.7.1: carry true: the Jet goes to (3,5)A with the Chopper; the history names it."""
    p = _standard_white_to_act()
    out = move(p, (1, 4), (3, 5, "air"), kind="chopper", carry=True)
    assert out.events[0] == Moved(Side.WHITE, K.CHOPPER, engine.Hand.RIGHT, cell(1, 4),
                                  cell(3, 5, "air"), cell(3, 5, "air"), K.JET)
    here = [e for e in layout(out.position) if e[2:4] in ((1, 4), (3, 5))]
    assert here == [("white", "chopper", 3, 5, "air"), ("white", "jet", 3, 5, "air")]


@pytest.mark.parametrize("carry", [False, None])
def test_r8_7_chopper_leaves_jet_when_not_asked(carry):
    """R8.7.1: the passenger at a native level is optional: carry false (or no choice)
    leaves the Jet at (1,4)G."""
    p = _standard_white_to_act()
    out = move(p, (1, 4), (3, 5, "air"), kind="chopper", carry=carry)
    assert out.events[0].passenger is None
    here = [e for e in layout(out.position) if e[2:4] in ((1, 4), (3, 5))]
    assert here == [("white", "chopper", 3, 5, "air"), ("white", "jet", 1, 4, "ground")]


def test_r8_7_legal_moves_offer_both_carry_choices():
    """R8.7.1: the generated Moves of the Chopper at (1,4) name the carry choice."""
    p = _standard_white_to_act()
    frm = cell(1, 4)
    mine = [m for m in engine.legal_moves(p) if m.frm == frm and m.kind is K.CHOPPER]
    assert len(mine) == 15
    assert engine.Move(frm, cell(3, 5, "air"), K.CHOPPER, True) in mine
    assert engine.Move(frm, cell(3, 5, "air"), K.CHOPPER, False) in mine
    assert engine.Move(frm, cell(2, 2), K.CHOPPER, False) in mine
    assert engine.Move(frm, cell(2, 2), K.CHOPPER, True) not in mine


def test_r8_7_sub_dives_with_passenger_which_then_cannot_move():
    """R8.7.1, R2.5: standard setup, White's Sub at (1,2) dives carrying the Dozer; on
    White's next turn the Dozer (at Sub, not native) cannot move and the Sub must take it."""
    p = _standard_white_to_act()
    out = move(p, (1, 2), (1, 2, "sub"), kind="sub", carry=True)
    assert out.events[0] == Moved(Side.WHITE, K.SUB, None, cell(1, 2), cell(1, 2, "sub"),
                                  cell(1, 2, "sub"), K.DOZER)
    p = end_turn(out.position).position
    p = end_turn(move(p, (9, 10), (8, 9)).position).position
    assert p.turn == 4
    assert destinations(p, 1, 2, "sub", kind="dozer") == []
    assert refused(p, (1, 2, "sub"), (2, 3, "sub"), kind="dozer") == "R2.5"
    assert refused(p, (1, 2, "sub"), (1, 2), kind="sub", carry=False) == "R2.5"
    up = move(p, (1, 2, "sub"), (1, 2), kind="sub")
    here = [e for e in layout(up.position) if e[2:4] == (1, 2)]
    assert here == [("white", "dozer", 1, 2, "ground"), ("white", "sub", 1, 2, "ground")]


def test_r8_7_3_sub_with_passenger_does_not_capture():
    """R8.7.3, R5.1.3: a Sub moving with a passenger does not capture."""
    p = make([white("sub", 5, 5, "sub"), white("dozer", 5, 5, "sub"), black("sub", 6, 6, "sub")])
    assert (6, 6, "sub") not in destinations(p, 5, 5, "sub", kind="sub")
    assert refused(p, (5, 5, "sub"), (6, 6, "sub"), kind="sub") == "R5.1.3"


def test_r8_7_3_chopper_with_passenger_captures():
    """R8.7.3: a Chopper's capture takes enemies at its destination level; its passenger
    arrives with it."""
    p = make([white("chopper", 5, 5, hand="right"), white("flame_pawn", 5, 5),
              black("rocket_pawn", 7, 7)])
    out = move(p, (5, 5), (7, 7), kind="chopper", carry=True)
    assert layout(out.position) == [("white", "chopper", 7, 7, "ground"),
                                    ("white", "flame_pawn", 7, 7, "ground")]
    assert out.events[1] == Captured(cell(7, 7), (info(Side.BLACK, K.ROCKET_PAWN),))


def test_r8_7_1_pair_needs_an_empty_destination_level():
    """R8.7.1, R1.6: the destination level must end up empty apart from the pair."""
    p = make([white("chopper", 5, 5, hand="right"), white("jet", 5, 5), white("dozer", 7, 7)])
    assert refused(p, (5, 5), (7, 7), kind="chopper", carry=True) == "R1.6"
    out = move(p, (5, 5), (7, 7), kind="chopper", carry=False)
    assert ("white", "chopper", 7, 7, "ground") in layout(out.position)


def test_r8_7_1_carry_without_passenger_or_carrier_refused():
    """R8.7.1: only a Chopper or Sub carries, and only a co-located own piece."""
    lone = make([white("chopper", 5, 5, hand="right")])
    assert refused(lone, (5, 5), (7, 7), carry=True) == "R8.7.1"
    king = make([white("king", 5, 5), white("dozer", 5, 5)])
    assert refused(king, (5, 5), (6, 6), kind="king", carry=True) == "R8.7.1"


def test_r8_7_2_o25_off_forbids_a_sub_to_take_the_king_to_sub():
    """R8.7.2, O25 king_may_fly_or_go_sub = false: a Sub may not take the King to Sub;
    carrying it along the Ground is allowed, and the Sub may still dive without it."""
    p = make([white("sub", 5, 5), white("king", 5, 5)],
             options={"king_may_fly_or_go_sub": False})
    assert refused(p, (5, 5), (5, 5, "sub"), kind="sub", carry=True) == "R8.7.2"
    opts = plan_options(p, 5, 5, kind="sub")
    assert ((5, 5, "sub"), True) not in opts
    assert ((5, 5, "sub"), False) in opts
    assert ((6, 6, "ground"), True) in opts
    out = move(p, (5, 5), (6, 6), kind="sub", carry=True)
    assert ("white", "king", 6, 6, "ground") in layout(out.position)


def test_r8_7_2_o25_off_a_chopper_carries_the_king_only_to_ground():
    """R8.7.2, O25 off: the primary piece may be carried only where the carrier does not
    go to Air or Sub: a Chopper ending at Ground carries the King (its flight path passes
    through Air, R5.3.7, but the King ends at Ground); one ending in Air may not; it may
    still fly there without it."""
    p = make([white("chopper", 5, 5, hand="right"), white("king", 5, 5)],
             options={"king_may_fly_or_go_sub": False})
    assert refused(p, (5, 5), (7, 7, "air"), kind="chopper", carry=True) == "R8.7.2"
    out = move(p, (5, 5), (7, 7, "ground"), kind="chopper", carry=True)
    assert ("white", "king", 7, 7, "ground") in layout(out.position)
    opts = plan_options(p, 5, 5, kind="chopper")
    assert ((7, 7, "ground"), True) in opts and ((7, 7, "air"), True) not in opts
    assert ((7, 7, "air"), False) in opts and ((7, 7, "ground"), False) in opts


@pytest.mark.parametrize("carrier", ["chopper", "sub"])
def test_r8_7_2_o25_on_allows_carrying_king(carrier):
    """R8.7.2, O25 default on: the King may be carried to Air / Sub."""
    hand = {"hand": "right"} if carrier == "chopper" else {}
    p = make([white(carrier, 5, 5, **hand), white("king", 5, 5)])
    up = (7, 7, "air") if carrier == "chopper" else (5, 5, "sub")
    out = move(p, (5, 5), up, kind=carrier, carry=True)
    assert ("white", "king", *up) in layout(out.position)


# =========================================================================== R5.3.7 / R5.3.4

def test_r5_3_7_chopper_from_air_must_land():
    """R5.3.7, D-20: from Air the Chopper MUST end at Ground."""
    p = make([white("chopper", 5, 5, "air", hand="right")])
    assert all(level == "ground" for _, _, level in destinations(p, 5, 5, "air"))
    assert refused(p, (5, 5, "air"), (7, 7, "air")) == "R5.3.7"
    out = move(p, (5, 5, "air"), (7, 7))
    assert layout(out.position) == [("white", "chopper", 7, 7, "ground")]


def test_r5_3_7_chopper_cannot_hover_in_place():
    """R5.3.7: landing happens at a destination square, never straight down."""
    p = make([white("chopper", 5, 5, "air", hand="right")])
    assert refused(p, (5, 5, "air"), (5, 5)) == "R5.3.7"


def test_r5_3_4_jet_on_ground_only_takes_off():
    """R5.3.4: a Jet on Ground cannot move horizontally; it only takes off in place."""
    p = make([white("jet", 5, 5)])
    assert refused(p, (5, 5), (5, 6)) == "R5.3.4"
    assert refused(p, (5, 5), (6, 6, "air")) == "R5.3.4"
    out = move(p, (5, 5), (5, 5, "air"))
    assert layout(out.position) == [("white", "jet", 5, 5, "air")]


def test_r5_3_4_jet_cannot_move_three_squares():
    """R5.3.4 (D-18): at most 2 squares along a direction; no knight-like offsets."""
    p = make([white("jet", 5, 5, "air")])
    assert refused(p, (5, 5, "air"), (8, 8, "air")) == "R5.3.4"
    assert refused(p, (5, 5, "air"), (7, 6, "air")) == "R5.3.4"


# =========================================================================== R4

def test_r4_1_black_acts_first_in_standard_game():
    """R4.1, R15.3: turn 1, Black to act; a White piece may not move."""
    p = engine.standard_position()
    assert p.turn == 1
    assert p.side_to_act is Side.BLACK
    with pytest.raises(IllegalIntent) as exc:
        move(p, (2, 1), (3, 2))
    assert exc.value.rule == "R4.1"


def test_r4_1_wrong_side_piece_refused_on_white_turn():
    """R4.1: on an even turn White acts; the Black pawn may not move."""
    p = make([white("king", 1, 1), black("flame_pawn", 7, 5)], turn=WHITE_TURN)
    assert refused(p, (7, 5), (6, 4)) == "R4.1"


def test_r4_1_turns_alternate():
    """R4.1: after White's turn 2 ends it is turn 3 and Black acts."""
    p = make([white("king", 1, 1), black("king", 10, 10)])
    out = end_turn(move(p, (1, 1), (2, 2)).position)
    assert out.events == (TurnEnded(3),)
    assert out.position.turn == 3
    assert out.position.side_to_act is Side.BLACK
    assert refused(out.position, (2, 2), (3, 3)) == "R4.1"


def test_r4_3_only_one_move_per_turn():
    """R4.3: exactly one Move per turn; a second Move is refused (any piece)."""
    p = make([white("king", 1, 1), white("dozer", 5, 5), black("king", 10, 10)])
    after = move(p, (1, 1), (2, 2)).position
    assert refused(after, (5, 5), (6, 6)) == "R4.3"
    assert refused(after, (2, 2), (3, 3)) == "R4.3"
    assert engine.legal_moves(after) == []
    assert legal_intents(after) == [engine.EndTurn()]


def test_r4_4_end_turn_refused_before_the_move():
    """R4.4: the Move is mandatory while a legal Move exists."""
    p = make([white("king", 1, 1), black("king", 10, 10)])
    with pytest.raises(IllegalIntent) as exc:
        end_turn(p)
    assert exc.value.rule == "R4.4"
    assert engine.EndTurn() not in legal_intents(p)


def test_r4_4_end_turn_without_move_when_none_is_legal():
    """R4.4, D-9: a side with no legal Move may end the turn without one: White's only
    piece is a moved pawn on the last row with no enemy beside it."""
    p = make([white("flame_pawn", 10, 5, moved=True), black("king", 1, 1)])
    assert engine.legal_moves(p) == []
    # its Flame may still fire (R4.4 says nothing against it): 5 on-board directions
    fires = [i for i in legal_intents(p) if not isinstance(i, engine.EndTurn)]
    assert sorted(i.dir for i in fires) == [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1)]
    assert legal_intents(p)[-1] == engine.EndTurn()
    out = end_turn(p)
    assert out.position.turn == 3


def test_r5_3_1_pawn_on_last_row_keeps_side_attacks():
    """R5.3.1: a pawn on the last row keeps its side attacks."""
    p = make([white("flame_pawn", 10, 5, moved=True), black("dozer", 10, 6)])
    assert destinations(p, 10, 5) == [(10, 6, "ground")]


# =========================================================================== R12

def test_r12_capturing_the_enemy_king_wins():
    """R12.1, R12.2: White's King takes the Black King: White wins at once; the game is
    over and every further intent is refused."""
    p = make([white("king", 5, 5), black("king", 6, 6), black("dozer", 9, 9)])
    out = move(p, (5, 5), (6, 6))
    result = out.position.result
    assert result is not None
    assert result.winner is Side.WHITE
    assert result.reason.startswith("R12.1")
    assert out.events[:2] == (
        Moved(Side.WHITE, K.KING, None, cell(5, 5), cell(6, 6), cell(6, 6), None),
        Captured(cell(6, 6), (info(Side.BLACK, K.KING),)))
    assert isinstance(out.events[2], GameOver)
    assert out.events[2].winner is Side.WHITE
    assert len(out.events) == 3
    for intent in (engine.EndTurn(), engine.Move(cell(6, 6), cell(7, 7))):
        with pytest.raises(IllegalIntent) as exc:
            engine.apply(out.position, intent)
        assert exc.value.rule.startswith("R12")
    assert legal_intents(out.position) == []
    assert engine.legal_moves(out.position) == []


def test_r12_black_capturing_white_king_wins_for_black():
    """R12.2: the acting side wins when the opponent's primary piece is taken."""
    p = make([white("king", 5, 5), black("dozer", 9, 9), black("king", 6, 6)], turn=BLACK_TURN)
    out = move(p, (6, 6), (5, 5))
    assert out.position.result is not None
    assert out.position.result.winner is Side.BLACK
    assert layout(out.position) == [("black", "dozer", 9, 9, "ground"),
                                    ("black", "king", 5, 5, "ground")]


@pytest.mark.parametrize(("government", "kind"), [
    ("monarchy", "king"), ("dictatorship", "dictator"), ("theocracy", "avatar"),
    ("democracy", "president")])
def test_r12_1_every_primary_piece_ends_the_game(government, kind):
    """R12.1, R11.1: taking any government's primary piece ends the game; here by a
    Tank (R5.1.3: regardless of defences)."""
    p = make([white("tank", 1, 1, hand="right"), black(kind, 8, 4), white("king", 1, 5)],
             options={"government": {"black": government, "white": "monarchy"}})
    out = move(p, (1, 1), (8, 4))
    assert out.position.result is not None
    assert out.position.result.winner is Side.WHITE
    assert out.position.result.reason.startswith("R12.1")
    assert isinstance(out.events[-1], GameOver)


@pytest.mark.parametrize(("government", "kind"), [
    ("monarchy", "queen"), ("dictatorship", "assassin"), ("theocracy", "acolyte"),
    ("democracy", "prime_minister")])
def test_r12_taking_a_secondary_piece_does_not_end_the_game(government, kind):
    """R12.1: only primary government pieces decide the game."""
    p = make([white("king", 5, 5), black(kind, 6, 6), black("king", 10, 10)],
             options={"government": {"black": government, "white": "monarchy"}})
    out = move(p, (5, 5), (6, 6))
    assert out.position.result is None
    assert not any(isinstance(e, GameOver) for e in out.events)
    assert end_turn(out.position).position.turn == 3


# =========================================================================== R11

_R11_DEFENCES = {
    K.KING: {A.ANTI_FLAME, A.ANTI_ROCKET}, K.QUEEN: {A.ANTI_CONVERSION, A.ANTI_STUNNER},
    K.DICTATOR: {A.ANTI_CONVERSION, A.ANTI_ROCKET}, K.ASSASSIN: {A.ANTI_FLAME, A.ANTI_STUNNER},
    K.AVATAR: {A.ANTI_STUNNER, A.ANTI_ROCKET}, K.ACOLYTE: {A.ANTI_FLAME, A.ANTI_CONVERSION},
    K.PRESIDENT: {A.ANTI_CONVERSION, A.ANTI_FLAME},
    K.PRIME_MINISTER: {A.ANTI_ROCKET, A.ANTI_STUNNER},
}


@pytest.mark.parametrize("kind", list(_R11_DEFENCES), ids=lambda k: k.value)
def test_r11_1_government_piece_defences(kind):
    """R11.1, R11.2: each government piece has exactly its two defences, and moves as
    the King (primary) or the Queen (secondary) (R5.3.9)."""
    t = TRAITS[kind]
    assert len(t.inherent) == 2
    assert set(t.inherent) == _R11_DEFENCES[kind]
    primary = kind in (K.KING, K.DICTATOR, K.AVATAR, K.PRESIDENT)
    assert t.primary is primary
    assert t.secondary is not primary
    assert t.movement is (Movement.KING if primary else Movement.QUEEN)
    assert not t.coexists and not t.carries and not t.handed


def test_r11_1_governments_replace_king_and_queen_in_setup():
    """R11.1, R15.1: Black Democracy, White Theocracy: President and Prime Minister stand
    on Black's King (10,6) and Queen (10,5) squares; Avatar and Acolyte on White's (1,5)
    and (1,6); no King or Queen remains; the waiting secondary reinforcement is the
    government's (D-40)."""
    options = options_from_dict({"government": {"black": "democracy", "white": "theocracy"}})
    p = engine.standard_position(options)
    rows = layout(p)
    assert ("black", "president", 10, 6, "ground") in rows
    assert ("black", "prime_minister", 10, 5, "ground") in rows
    assert ("white", "avatar", 1, 5, "ground") in rows
    assert ("white", "acolyte", 1, 6, "ground") in rows
    kinds = Counter(kind for _, kind, *_ in rows)
    assert kinds["king"] == kinds["queen"] == 0
    assert len(rows) == 56
    reinf = engine.position_to_dict(p)["reinforcements"]
    assert {"side": "black", "kind": "prime_minister", "at": [1, 3]} in reinf
    assert {"side": "white", "kind": "acolyte", "at": [10, 8]} in reinf
    assert not any(r["kind"] == "queen" for r in reinf)


def test_r11_1_default_government_is_monarchy():
    """R11.1, O5 default: King (1,5)/(10,6) and Queen (1,6)/(10,5)."""
    rows = layout(engine.standard_position())
    for entry in (("white", "king", 1, 5, "ground"), ("white", "queen", 1, 6, "ground"),
                  ("black", "king", 10, 6, "ground"), ("black", "queen", 10, 5, "ground")):
        assert entry in rows


# =========================================================================== R15

_WHITE_R15 = {  # col: (row 1 pieces, row 2 pieces); (kind, hand)
    1: ([("tank", "right")], [("rocket_pawn", None)]),
    2: ([("dozer", None), ("sub", None)], [("stunner_pawn", None)]),
    3: ([("cleric", "right")], [("flame_pawn", None), ("aaa", None)]),
    4: ([("chopper", "right"), ("jet", None)], [("conversion_pawn", None), ("destroyer", None)]),
    5: ([("king", None)], [("stealth_pawn", None)]),
    6: ([("queen", None)], [("xxx_pawn", None)]),
    7: ([("chopper", "left"), ("jet", None)], [("conversion_pawn", None), ("destroyer", None)]),
    8: ([("cleric", "left")], [("flame_pawn", None), ("aaa", None)]),
    9: ([("dozer", None), ("sub", None)], [("stunner_pawn", None)]),
    10: ([("tank", "left")], [("rocket_pawn", None)]),
}
_BLACK_R15 = {  # col: (row 10 pieces, row 9 pieces), as printed in R15.1
    1: ([("tank", "left")], [("rocket_pawn", None)]),
    2: ([("dozer", None), ("sub", None)], [("stunner_pawn", None)]),
    3: ([("cleric", "left")], [("flame_pawn", None), ("aaa", None)]),
    4: ([("chopper", "left"), ("jet", None)], [("conversion_pawn", None), ("destroyer", None)]),
    5: ([("queen", None)], [("xxx_pawn", None)]),
    6: ([("king", None)], [("stealth_pawn", None)]),
    7: ([("chopper", "right"), ("jet", None)], [("conversion_pawn", None), ("destroyer", None)]),
    8: ([("cleric", "right")], [("flame_pawn", None), ("aaa", None)]),
    9: ([("dozer", None), ("sub", None)], [("stunner_pawn", None)]),
    10: ([("tank", "right")], [("rocket_pawn", None)]),
}


def _expected_setup():
    out = []
    for side, table, rows in (("white", _WHITE_R15, (1, 2)), ("black", _BLACK_R15, (10, 9))):
        for col, (back, front) in table.items():
            for row, entries in ((rows[0], back), (rows[1], front)):
                for kind, hand in entries:
                    entry = {"side": side, "kind": kind, "at": [row, col], "level": "ground"}
                    if hand:
                        entry["hand"] = hand
                    if kind == "aaa":
                        entry["hidden"] = True
                    out.append(entry)
    return out


def _key(entry):
    return (entry["at"], entry["side"], entry["kind"])


def test_r15_1_standard_pieces_exact():
    """R15.1, D-44, R15.3: 28 pieces per side at the listed squares, all at Ground,
    handedness as printed (owner's columns 1-5 right, 6-10 left), no articles, no pawn
    moved; only the four AAAs are hidden."""
    got = engine.position_to_dict(engine.standard_position())["pieces"]
    assert sorted(got, key=_key) == sorted(_expected_setup(), key=_key)
    assert Counter(e["side"] for e in got) == {"white": 28, "black": 28}


def test_r15_1_piece_counts_per_side():
    """R15.1: per side 10 Pawns (2 Rocket, 2 Stunner, 2 Flame, 2 Conversion, 1 Stealth,
    1 XXX), 2 each of Tank, Dozer, Sub, Chopper, Destroyer, AAA, Cleric, Jet, plus King
    and Queen."""
    expected = {"rocket_pawn": 2, "stunner_pawn": 2, "flame_pawn": 2, "conversion_pawn": 2,
                "stealth_pawn": 1, "xxx_pawn": 1, "tank": 2, "dozer": 2, "sub": 2, "chopper": 2,
                "destroyer": 2, "aaa": 2, "cleric": 2, "jet": 2, "king": 1, "queen": 1}
    rows = layout(engine.standard_position())
    for side in ("white", "black"):
        assert Counter(kind for s, kind, *_ in rows if s == side) == expected


def test_r15_1_black_is_the_180_degree_turn_of_white():
    """R15.1: Black's setup = White's turned by (r,c) -> (11-r, 11-c), same hands."""
    pieces = engine.position_to_dict(engine.standard_position())["pieces"]
    whites = sorted((11 - e["at"][0], 11 - e["at"][1], e["kind"], e.get("hand"))
                    for e in pieces if e["side"] == "white")
    blacks = sorted((e["at"][0], e["at"][1], e["kind"], e.get("hand"))
                    for e in pieces if e["side"] == "black")
    assert whites == blacks


_R15_2 = {  # col: rows 3..8, copied from the R15.2 table
    1: ["ASH", "ATL", "TL", "TL", "ATL", "SH"],
    2: ["TL", "ASH", "SH", "SH", "ASH", "TL"],
    3: ["BI+SL", "SL", "ASL", "ASL", "SL", "BI+SL"],
    4: ["JP", "AST", "ST", "CS", "ACS", "JP"],
    5: ["SC", "AFL", "XXX+FL", "XXX+RL", "ARL", "SC"],
    6: ["SC", "ARL", "XXX+RL", "XXX+FL", "AFL", "SC"],
    7: ["JP", "ACS", "CS", "ST", "AST", "JP"],
    8: ["BI+SL", "SL", "ASL", "ASL", "SL", "BI+SL"],
    9: ["TL", "ASH", "SH", "SH", "ASH", "TL"],
    10: ["SH", "ATL", "TL", "TL", "ATL", "ASH"],
}
_CODES = {"FL": "flame", "ST": "stunner", "CS": "conversion", "RL": "rocket_launcher",
          "SL": "sam_launcher", "TL": "torpedo_launcher", "AFL": "anti_flame",
          "AST": "anti_stunner", "ACS": "anti_conversion", "ARL": "anti_rocket",
          "ASL": "anti_sam", "ATL": "anti_torpedo", "SH": "stealth", "ASH": "anti_stealth",
          "BI": "bike", "JP": "jump_pack", "SC": "scuba_suit", "XXX": "xxx"}


def test_r15_2_standard_articles_exact():
    """R15.2: the 68 unowned Ground articles exactly as tabled (rows 3-8)."""
    expected = {}
    for col, cells in _R15_2.items():
        for row, text in zip(range(3, 9), cells, strict=True):
            expected[(row, col)] = sorted(_CODES[c] for c in text.split("+"))
    got = {}
    for item in engine.position_to_dict(engine.standard_position())["articles"]:
        got.setdefault(tuple(item["at"]), []).append(item["kind"])
    assert {k: sorted(v) for k, v in got.items()} == expected


def test_r15_2_article_totals():
    """R15.2 totals: SL 8, TL 8, SH 6, ASH 6, ASL 4, ATL 4, BI 4, JP 4, SC 4, XXX 4,
    FL 2, ST 2, CS 2, RL 2, AFL 2, AST 2, ACS 2, ARL 2 = 68; rows 1-2 and 9-10 empty;
    the layout is 180-degree symmetric; no piece carries anything."""
    p = engine.standard_position()
    totals = Counter(a.value for here in p.ground_articles for a in here)
    assert totals == {"sam_launcher": 8, "torpedo_launcher": 8, "stealth": 6, "anti_stealth": 6,
                      "anti_sam": 4, "anti_torpedo": 4, "bike": 4, "jump_pack": 4,
                      "scuba_suit": 4, "xxx": 4, "flame": 2, "stunner": 2, "conversion": 2,
                      "rocket_launcher": 2, "anti_flame": 2, "anti_stunner": 2,
                      "anti_conversion": 2, "anti_rocket": 2}
    assert sum(totals.values()) == 68
    for s, here in enumerate(p.ground_articles):
        row = s // 10 + 1
        if row in (1, 2, 9, 10):
            assert here == ()
        assert sorted(a.value for a in here) == sorted(a.value for a in p.ground_articles[99 - s])
    assert all(piece.articles == () for piece in p.pieces)


def test_r15_3_initial_state():
    """R15.3: T = 1, Black to act, nothing done yet, no result; the White Stealth Pawn
    (2,5) and the Black Stealth Pawn (9,6) are locked on each other and both visible; the
    four AAAs (2,3),(2,8),(9,3),(9,8) are hidden."""
    p = engine.standard_position()
    data = engine.position_to_dict(p)
    assert data["turn"] == 1
    assert "result" not in data and "actions_this_turn" not in data
    pieces = data["pieces"]
    locks = {(tuple(pieces[lk["holder"]]["at"]), pieces[lk["holder"]]["kind"], lk["instance"],
              tuple(pieces[lk["target"]]["at"]), pieces[lk["target"]]["kind"])
             for lk in data["locks"]}
    assert locks == {((2, 5), "stealth_pawn", 0, (9, 6), "stealth_pawn"),
                     ((9, 6), "stealth_pawn", 0, (2, 5), "stealth_pawn")}
    hidden = sorted((e["side"], tuple(e["at"]), e["kind"]) for e in pieces if e.get("hidden"))
    assert hidden == [("black", (9, 3), "aaa"), ("black", (9, 8), "aaa"),
                      ("white", (2, 3), "aaa"), ("white", (2, 8), "aaa")]


def test_r15_4_reinforcements():
    """R15.4 (D-39 placeholder): White: (10,1) Tank >; (10,2) Jet + Sub; (10,3) Cleric >;
    (10,8) Queen + Dozer; (10,9) Jet + Sub; (10,10) AAA + Destroyer. Black: (1,10) Tank >;
    (1,9) Jet + Sub; (1,8) Cleric >; (1,3) Queen + Dozer; (1,2) Jet + Sub; (1,1) AAA +
    Destroyer."""
    got = engine.position_to_dict(engine.standard_position())["reinforcements"]
    norm = sorted((r["side"], tuple(r["at"]), r["kind"], r.get("hand")) for r in got)
    expected = []
    for side, entries in (
        ("white", [((10, 1), "tank", "right"), ((10, 2), "jet", None), ((10, 2), "sub", None),
                   ((10, 3), "cleric", "right"), ((10, 8), "queen", None),
                   ((10, 8), "dozer", None), ((10, 9), "jet", None), ((10, 9), "sub", None),
                   ((10, 10), "aaa", None), ((10, 10), "destroyer", None)]),
        ("black", [((1, 10), "tank", "right"), ((1, 9), "jet", None), ((1, 9), "sub", None),
                   ((1, 8), "cleric", "right"), ((1, 3), "queen", None),
                   ((1, 3), "dozer", None), ((1, 2), "jet", None), ((1, 2), "sub", None),
                   ((1, 1), "aaa", None), ((1, 1), "destroyer", None)]),
    ):
        expected += [(side, at, kind, hand) for at, kind, hand in entries]
    assert norm == sorted(expected)
    assert len(got) == 20


def test_r15_standard_first_moves_of_black():
    """R15, R4.1: Black's legal Moves at turn 1 are Black's only; none are refused by
    R1.6 for the standard pairs (every pair has a coexisting piece)."""
    p = engine.standard_position()
    moves = engine.legal_moves(p)
    assert moves
    for m in moves:
        mover = [q for q in p.pieces if q.cell == m.frm and q.side is Side.BLACK]
        assert mover
    for sq_pieces in Counter((q.side, q.cell) for q in p.pieces).items():
        assert sq_pieces[1] <= 2


# =========================================================================== R1.6 landings

@pytest.mark.parametrize(("kind", "legal"), [("dozer", True), ("destroyer", True),
                                             ("tank", False), ("flame_pawn", False)])
def test_r1_6_jet_landing_needs_coexistence(kind, legal):
    """R1.6(c), R5.3.4, D-1: the Jet does not coexist: it may land on an own Dozer or
    Destroyer, not on an own Tank or pawn."""
    p = make([white("jet", 5, 5, "air"), own(kind, 5, 5)])
    assert ((5, 5, "ground") in destinations(p, 5, 5, "air")) is legal
    if legal:
        out = move(p, (5, 5, "air"), (5, 5))
        assert ("white", "jet", 5, 5, "ground") in layout(out.position)
    else:
        assert refused(p, (5, 5, "air"), (5, 5)) == "R1.6"


def test_r1_6_sub_surfaces_under_own_non_coexisting_piece():
    """R1.6(c): the Sub coexists, so it may surface under an own Tank."""
    p = make([white("sub", 5, 5, "sub"), white("tank", 5, 5, hand="right")])
    out = move(p, (5, 5, "sub"), (5, 5), kind="sub")
    assert layout(out.position) == [("white", "sub", 5, 5, "ground"),
                                    ("white", "tank", 5, 5, "ground")]


def test_r5_3_1_black_pawn_two_square_via_square():
    """R5.3.1, D-17, R1.3: a Black pawn at (9,4) cannot make (7,6) when its via-square
    (8,5) holds a piece at Ground, but keeps (7,2)."""
    p = make([black("flame_pawn", 9, 4), black("destroyer", 8, 5)], turn=BLACK_TURN)
    got = destinations(p, 9, 4, kind="flame_pawn")
    assert got == [(7, 2, "ground"), (8, 3, "ground"), (8, 5, "ground")]
    assert refused(p, (9, 4), (7, 6)) == "R5.2.2"


# =========================================================================== R5.5 MDC

_MDC = {"movement_system": "mass_destruction"}


@pytest.mark.parametrize(("tank_range", "hand", "expected"), [
    (6, "right", [(2, 8), (8, 2)]), (6, "left", [(2, 8), (8, 2)]),
    (7, "right", [(3, 9), (9, 1)]), (7, "left", [(1, 9), (9, 3)]),
    (8, "right", [(2, 10), (10, 2)]), (8, "left", [(2, 10), (10, 2)])])
def test_r5_5_2_mdc_tank_ranges(tank_range, hand, expected):
    """R5.5.2, R5.1.6: zig-zag Tank at (2,2): range 7 right {(7,-1),(1,7)} -> (9,1),(3,9);
    left {(7,1),(-1,7)} -> (9,3),(1,9); ranges 6 and 8 are (+-N,0),(0,+-N) for both hands
    (the back and left paths leave the board)."""
    p = make([white("tank", 2, 2, hand=hand)], options={**_MDC, "tank_range": tank_range})
    assert destinations(p, 2, 2) == [(r, c, "ground") for r, c in expected]


@pytest.mark.parametrize(("cleric_range", "hand", "expected"), [
    (6, "left", [(1, 7), (3, 1), (7, 9), (9, 3)]),
    (6, "right", [(1, 3), (3, 9), (7, 1), (9, 7)]),
    (7, "left", [(6, 10), (10, 4)]), (7, "right", [(4, 10), (10, 6)]),
    (8, "left", []), (8, "right", [])])
def test_r5_5_3_mdc_cleric_ranges(cleric_range, hand, expected):
    """R5.5.3: spiral Cleric at (5,5): range 6 = squares 6 of P1..P4, left
    (2,4),(-4,2),(-2,-4),(4,-2); range 7 left (1,5),(5,-1) on the board (the other two
    leave it), right (-1,5),(5,1); range 8 ((0,+-6),(+-6,0)) leaves the board."""
    p = make([white("cleric", 5, 5, hand=hand)], options={**_MDC, "cleric_range": cleric_range})
    assert destinations(p, 5, 5) == [(r, c, "ground") for r, c in expected]


def test_r5_5_5_mdc_queen_union_of_paths():
    """R5.5.5: MDC Queen at (2,2) = both-hand zig-zag Tank (9,1),(3,9),(9,3),(1,9) plus the
    spiral Cleric paths that stay on the board: left P1 -> (3,7), right P4 -> (7,3)."""
    p = make([white("queen", 2, 2)], options=_MDC)
    assert destinations(p, 2, 2) == [(r, c, "ground") for r, c in
                                     [(1, 9), (3, 7), (3, 9), (7, 3), (9, 1), (9, 3)]]


def test_two_choppers_in_one_cell_are_told_apart_by_hand():
    """R8.7 (a Chopper carrying a Chopper) and R5.1.1: with two own Choppers in one cell,
    an intent must name the hand; each moves by its own hand (R5.3.7)."""
    from wec.engine import apply, intent_from_dict, legal_moves
    from wec.engine.pieces import Hand

    p = make([white("chopper", 5, 5, hand="right"), white("chopper", 5, 5, hand="left")])
    plain = intent_from_dict({"act": "move", "from": [5, 5], "to": [7, 6], "kind": "chopper"})
    with pytest.raises(IllegalIntent) as refusal:
        apply(p, plain)
    assert refusal.value.rule == "R5.1.1"
    assert "name the one to move with \"hand\"" in str(refusal.value)
    right = intent_from_dict({"act": "move", "from": [5, 5], "to": [7, 6], "kind": "chopper",
                              "hand": "right"})
    out = apply(p, right).position
    assert ("white", "chopper", 7, 6, "ground") in layout(out)
    left = {(m.to, m.carry) for m in legal_moves(p) if m.hand is Hand.LEFT}
    right_moves = {(m.to, m.carry) for m in legal_moves(p) if m.hand is Hand.RIGHT}
    assert len(left) == len(right_moves) == 32  # 8 squares x 2 levels x carry or not
    assert left != right_moves
    for generated in legal_moves(p):
        apply(p, generated)  # every generated Move names its piece unambiguously
