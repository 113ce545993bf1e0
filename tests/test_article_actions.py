"""Pick-up, Drop and Exchange (R4.7-R4.9) with capacity (R2.6), R9.9, stun (R7.2), O3."""

from __future__ import annotations

import random

import pytest
from rules_helpers import black, ground_articles, make, white

from wec.engine import IllegalIntent, apply, intent_from_dict, position_to_dict
from wec.engine.board import GROUND, cell_at
from wec.engine.game import legal_intents
from wec.engine.intents import Drop, EndTurn, Exchange, Move, PickUp
from wec.engine.setup import standard_position


def act(position, **intent):
    return apply(position, intent_from_dict(intent)).position


def refusal(position, **intent) -> IllegalIntent:
    with pytest.raises(IllegalIntent) as caught:
        apply(position, intent_from_dict(intent))
    return caught.value


def carried(position, row, col, kind, level="ground"):
    for p in position_to_dict(position)["pieces"]:
        if p["at"] == [row, col] and p["kind"] == kind and p["level"] == level:
            return p.get("articles", [])
    raise AssertionError(f"no {kind} at ({row},{col})")


def next_turn(position):
    """End this turn and the opponent's (the opponent's King steps back and forth)."""
    position = apply(position, EndTurn()).position
    king = next(p for p in position.pieces if p.side is position.side_to_act)
    target = [king.row + (1 if king.row < 10 else -1), king.col, "ground"]
    position = act(position, act="move", **{"from": [king.row, king.col, "ground"]}, to=target)
    return apply(position, EndTurn()).position


def test_ex29_xxx_capacity_sequence():
    """EX-29: a Destroyer at (5,5) on the standard layout: Flame (1/1), then XXX (2/3), then
    at (4,5) Anti-Flame (3/3), then no more; the XXX cannot be dropped while 2 others are
    held; dropping Flame first makes it droppable."""
    layout = standard_position()
    articles = [(a, r, c) for (r, c), kinds in ground_articles(layout).items() for a in kinds]
    p = make([white("destroyer", 5, 5), black("king", 10, 6)], articles=articles, turn=2)
    p = act(p, act="pickup", **{"from": [5, 5, "ground"]}, article="flame")
    assert carried(p, 5, 5, "destroyer") == ["flame"]
    refused_xxx_then = refusal(p, act="pickup", **{"from": [5, 5, "ground"]}, article="xxx")
    assert refused_xxx_then.rule == "R4.3"  # one Pick-up per turn
    p = next_turn(act(p, act="move", **{"from": [5, 5]}, to=[5, 4]))
    p = next_turn(act(p, act="move", **{"from": [5, 4]}, to=[5, 5]))
    p = act(p, act="pickup", **{"from": [5, 5, "ground"]}, article="xxx")
    assert carried(p, 5, 5, "destroyer") == ["flame", "xxx"]
    p = next_turn(act(p, act="move", **{"from": [5, 5]}, to=[4, 5]))
    p = act(p, act="pickup", **{"from": [4, 5, "ground"]}, article="anti_flame")
    assert carried(p, 4, 5, "destroyer") == ["flame", "xxx", "anti_flame"]
    p = next_turn(act(p, act="move", **{"from": [4, 5]}, to=[4, 6]))
    full = refusal(p, act="pickup", **{"from": [4, 6, "ground"]}, article="anti_rocket")
    assert (full.rule, full.detail) == (
        "R2.6", "the Destroyer at (4,6) ground would carry 4 articles (at most 3)")
    no_xxx = refusal(p, act="drop", **{"from": [4, 6, "ground"]}, article="xxx")
    assert (no_xxx.rule, no_xxx.detail) == (
        "R2.6", "the Destroyer at (4,6) ground would carry 2 articles (at most 1)")
    p = act(p, act="drop", **{"from": [4, 6, "ground"]}, article="flame")
    assert carried(p, 4, 6, "destroyer") == ["xxx", "anti_flame"]
    assert ground_articles(p)[(4, 6)] == ["anti_rocket", "flame"]


def test_ex29_xxx_pawn_carries_two():
    """EX-29: an XXX Pawn at (5,6) may pick up both XXX and Rocket Launcher (2/2), no more
    (its inherent box is the third slot, R2.6(a))."""
    p = make([white("xxx_pawn", 5, 6, articles=["rocket_launcher"]), white("dozer", 1, 1),
              black("king", 10, 6)], articles=[("xxx", 5, 6), ("anti_sam", 5, 6)])
    p = act(p, act="pickup", **{"from": [5, 6, "ground"]}, article="xxx")
    assert carried(p, 5, 6, "xxx_pawn") == ["rocket_launcher", "xxx"]
    p = next_turn(act(p, act="move", **{"from": [1, 1]}, to=[2, 2]))
    full = refusal(p, act="pickup", **{"from": [5, 6, "ground"]}, article="anti_sam")
    assert (full.rule, full.detail) == (
        "R2.6", "the XXX Pawn at (5,6) ground would carry 3 articles (at most 2)")


def test_r4_7_only_at_ground_and_only_articles_in_the_own_square():
    p = make([white("chopper", 5, 5, "air", hand="right"), white("tank", 4, 4, hand="left"),
              black("king", 10, 6)], articles=[("flame", 5, 5), ("stealth", 4, 5)])
    air = refusal(p, act="pickup", **{"from": [5, 5, "air"]}, article="flame")
    assert (air.rule, air.detail) == (
        "R4.7", "only a piece at Ground picks up; the Chopper is at air")
    elsewhere = refusal(p, act="pickup", **{"from": [4, 4, "ground"]}, article="stealth")
    assert (elsewhere.rule, elsewhere.detail) == ("R4.7", "no unowned stealth lies at (4,4)")


def test_r9_9_the_king_may_not_acquire_stealth_unless_o26():
    pieces = [white("king", 5, 5), white("dozer", 5, 6, articles=["stealth"]),
              black("king", 10, 6)]
    p = make(pieces, articles=[("stealth", 5, 5)])
    no = refusal(p, act="pickup", **{"from": [5, 5, "ground"]}, article="stealth")
    assert no.rule == "R9.9"
    given = refusal(p, act="exchange", **{"from": [5, 6, "ground"]}, to=[5, 5, "ground"],
                    give="stealth", take=None)
    assert given.rule == "R9.9"
    allowed = make(pieces, articles=[("stealth", 5, 5)], options={"king_may_be_stealthy": True})
    assert carried(act(allowed, act="pickup", **{"from": [5, 5, "ground"]},
                       article="stealth"), 5, 5, "king") == ["stealth"]


def test_r4_8_drop_onto_a_full_square_is_refused_d11():
    p = make([white("dozer", 5, 5, articles=["flame"]), black("king", 10, 6)],
             articles=[("xxx", 5, 5), ("stealth", 5, 5)])
    full = refusal(p, act="drop", **{"from": [5, 5, "ground"]}, article="flame")
    assert (full.rule, full.detail) == (
        "R4.8", "(5,5) already holds 2 unowned articles (D-11)")


def test_r4_8_drop_from_air_lands_on_ground_of_the_square():
    p = make([white("jet", 5, 5, "air", articles=["anti_sam"]), black("king", 10, 6)])
    after = act(p, act="drop", **{"from": [5, 5, "air"]}, article="anti_sam")
    assert ground_articles(after)[(5, 5)] == ["anti_sam"]
    assert carried(after, 5, 5, "jet", "air") == []


def test_r4_9_transfer_swap_distance_and_the_secondary_piece():
    p = make([white("tank", 5, 5, hand="right", articles=["flame"]),
              white("sub", 6, 6, "sub", articles=["anti_torpedo"]),
              white("dozer", 8, 8, articles=["bike"]),
              white("queen", 1, 6, articles=["xxx"]),
              black("king", 10, 6)])
    swap = act(p, act="exchange", **{"from": [5, 5, "ground"]}, to=[6, 6, "sub"],
               give="flame", take="anti_torpedo")
    assert carried(swap, 5, 5, "tank") == ["anti_torpedo"]
    assert carried(swap, 6, 6, "sub", "sub") == ["flame"]
    far = refusal(p, act="exchange", **{"from": [5, 5, "ground"]}, to=[8, 8, "ground"],
                  give="flame", take="bike")
    assert far.rule == "R4.9"
    queen = act(p, act="exchange", **{"from": [8, 8, "ground"]}, to=[1, 6, "ground"],
                give="bike", take=None)
    assert carried(queen, 1, 6, "queen") == ["xxx", "bike"]
    assert carried(queen, 8, 8, "dozer") == []
    over = refusal(p, act="exchange", **{"from": [5, 5, "ground"]}, to=[6, 6, "sub"],
                   give="flame", take=None)
    assert (over.rule, over.detail) == (
        "R2.6", "the Sub at (6,6) sub would carry 2 articles (at most 1)")


def test_r7_2_stunned_pieces_take_no_part_in_article_actions():
    p = make([white("dozer", 5, 5, articles=["flame"]),
              {**white("tank", 5, 6, hand="left"), "stunned_until": 9},
              black("king", 10, 6)], articles=[("xxx", 5, 6)])
    assert refusal(p, act="pickup", **{"from": [5, 6, "ground"]}, article="xxx").rule == "R7.2"
    assert refusal(p, act="exchange", **{"from": [5, 5, "ground"]}, to=[5, 6, "ground"],
                   give="flame", take=None).rule == "R7.2"


def test_r4_12_action_restrictions():
    """O3 move_only: no article action at all; one_action_per_piece: a piece that dropped
    may not also Move or exchange, while another piece still may act."""
    pieces = [white("dozer", 5, 5, articles=["flame"]), white("aaa", 5, 6),
              black("king", 10, 6)]
    move_only = make(pieces, options={"action_restriction": "move_only"})
    no = refusal(move_only, act="drop", **{"from": [5, 5, "ground"]}, article="flame")
    assert (no.rule, no.detail) == ("R4.12", "option O3 action_restriction is move_only: no "
                                             "Drop at all")
    assert {type(i).__name__ for i in legal_intents(move_only)} == {"Move"}
    one_each = make(pieces, options={"action_restriction": "one_action_per_piece"})
    dropped = act(one_each, act="drop", **{"from": [5, 5, "ground"]}, article="flame")
    again = refusal(dropped, act="move", **{"from": [5, 5]}, to=[4, 4])
    assert (again.rule, again.detail) == (
        "R4.12", "option O3 allows one action per piece and the Dozer at (5,5) ground has "
                 "acted this turn")
    movers = {i.frm for i in legal_intents(dropped) if isinstance(i, Move)}
    assert movers == {cell_at(5, 6, GROUND)}
    moved = act(dropped, act="move", **{"from": [5, 6]}, to=[4, 6])
    assert [type(i).__name__ for i in legal_intents(moved)] == ["EndTurn"]


def test_r9_4_dropping_an_anti_stealth_releases_its_lock():
    p = make([white("stealth_pawn", 2, 5, articles=["xxx", "anti_stealth", "anti_stealth"]),
              black("stealth_pawn", 9, 6), black("aaa", 9, 3),
              black("rocket_pawn", 9, 9, articles=["stealth"]), black("king", 10, 6)])
    pawn, target_a, target_b, target_c = (p.pieces[0], p.pieces[1], p.pieces[2], p.pieces[3])
    from wec.engine.position import Lock
    p = p.evolve(locks=(Lock(pawn.pid, 0, target_a.pid), Lock(pawn.pid, 1, target_b.pid),
                        Lock(pawn.pid, 2, target_c.pid)))
    after = act(p, act="drop", **{"from": [2, 5, "ground"]}, article="anti_stealth")
    # the first carried Anti-Stealth (instance 1) left: its lock ends, instance 2 becomes 1
    assert after.locks == (Lock(pawn.pid, 0, target_a.pid), Lock(pawn.pid, 1, target_c.pid))


def test_legal_intents_list_every_article_action_and_each_applies():
    p = make([white("dozer", 5, 5, articles=["flame"]), white("tank", 5, 6, hand="left"),
              white("queen", 1, 6), black("king", 10, 6)],
             articles=[("xxx", 5, 6), ("stealth", 5, 5)])
    intents = legal_intents(p)
    article_intents = [i for i in intents if isinstance(i, PickUp | Drop | Exchange)]
    assert sorted(str(i.describe()) for i in article_intents) == [
        "drop flame at (5,5) ground",
        "exchange flame between (5,5) ground and (1,6) ground",
        "exchange flame between (5,5) ground and (5,6) ground",
        "pick up xxx at (5,6) ground",
    ]  # the Dozer is full (1/1): no Pick-up of the stealth under it
    for intent in intents:
        apply(p, intent)


def test_random_games_with_every_article_action_conserve_articles():
    """Articles are permanent (R3.4): ground + carried stays 68 along random games, and
    every square-level keeps R1.6 (validate_position) after every intent."""
    from wec.engine.formats import validate_position

    rng = random.Random(404)
    p = standard_position()
    kinds_seen = set()
    for _ in range(1500):
        intents = legal_intents(p)
        non_end = [i for i in intents if not isinstance(i, EndTurn)]
        intent = rng.choice(non_end) if non_end and rng.random() < 0.7 else rng.choice(intents)
        kinds_seen.add(type(intent).__name__)
        p = apply(p, intent).position
        total = sum(len(g) for g in p.ground_articles) + sum(len(x.articles) for x in p.pieces)
        assert total == 68
        validate_position(p)
        if p.result is not None:
            p = standard_position()
    assert kinds_seen >= {"Move", "EndTurn", "PickUp", "Drop", "Exchange"}
