"""Identical twins: two own pieces of one kind and hand sharing a cell (R1.6).

A Move intent names its piece by cell, kind and hand only, and ``select_mover`` then
takes the first twin in canonical order that can reach the destination. Move
generation (``all_legal_plans``, ``legal_moves``) therefore lists only the plans
such an intent names, so that ``apply(move_of(plan))`` reaches exactly the position
``apply_plan(plan)`` does, and a game replayed from its intents is the game played.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from wec.engine import encode_state, position_from_dict, standard_position
from wec.engine.board import GROUND, cell_at
from wec.engine.game import apply, apply_plan
from wec.engine.intents import Intent, Move
from wec.engine.movement import all_legal_plans, legal_moves, move_of
from wec.engine.pieces import ArticleKind, Hand, PieceKind
from wec.engine.playout import play_turn
from wec.engine.position import Position


def position(turn: int, pieces: list[dict[str, Any]]) -> Position:
    return position_from_dict({"format": "wec-position/1", "turn": turn, "pieces": pieces})


def piece(side: str, kind: str, row: int, col: int, **fields: Any) -> dict[str, Any]:
    return {"side": side, "kind": kind, "at": [row, col], "level": "ground", **fields}


def at_ground(row: int, col: int) -> int:
    return cell_at(row, col, GROUND)


KINGS = [piece("black", "king", 10, 6), piece("white", "king", 1, 5)]


def assert_every_plan_replays_by_its_intent(start: Position) -> None:
    for plan in all_legal_plans(start):
        by_plan = apply_plan(start, plan).position
        by_intent = apply(start, move_of(start, plan)).position
        assert encode_state(by_intent) == encode_state(by_plan), move_of(start, plan)


def test_only_the_twin_the_intent_names_is_listed():
    """Two White AAAs on (5,5) differ only in what R16 does not write (``moved`` and a
    SAM cooldown): the Move intent names the first in canonical order (not moved), so
    only its 8 steps are listed, and each moves that AAA."""
    start = position(2, [*KINGS, piece("white", "aaa", 5, 5, moved=True, ready=[0, 6]),
                         piece("white", "aaa", 5, 5)])
    fresh, cooling = sorted((p for p in start.pieces if p.kind is PieceKind.AAA),
                            key=lambda p: p.moved)
    aaa_plans = [p for p in all_legal_plans(start) if p.piece.kind is PieceKind.AAA]
    assert len(aaa_plans) == 8
    assert {p.piece.pid for p in aaa_plans} == {fresh.pid}
    assert_every_plan_replays_by_its_intent(start)
    after = apply(start, Move(at_ground(5, 5), at_ground(6, 5), PieceKind.AAA)).position
    stayed = next(p for p in after.pieces if p.pid == cooling.pid)
    assert (stayed.row, stayed.col, stayed.ready) == (5, 5, (0, 6))


def test_a_stunned_first_twin_leaves_the_move_to_the_other():
    """R7.2: the first Destroyer (no articles) is stunned until turn 5, so the loaded one
    moves; its plans are listed and its intent moves it."""
    start = position(2, [*KINGS, piece("white", "destroyer", 5, 5, stunned_until=5),
                         piece("white", "destroyer", 5, 5, articles=["flame"])])
    ds_plans = [p for p in all_legal_plans(start) if p.piece.kind is PieceKind.DESTROYER]
    assert len(ds_plans) == 8
    assert {p.piece.articles for p in ds_plans} == {(ArticleKind.FLAME,)}
    assert_every_plan_replays_by_its_intent(start)


def test_twin_choppers_carrying_each_other_replay_by_intent():
    """R8.7: two right-handed Choppers share Ground of (5,5), one with a Flame. Only the
    first (no articles) is listed as mover, alone or carrying its twin."""
    start = position(2, [*KINGS, piece("white", "chopper", 5, 5, hand="right"),
                         piece("white", "chopper", 5, 5, hand="right", articles=["flame"])])
    chopper_plans = [p for p in all_legal_plans(start) if p.piece.kind is PieceKind.CHOPPER]
    assert chopper_plans
    assert {p.piece.articles for p in chopper_plans} == {()}
    assert {p.passenger is None for p in chopper_plans} == {True, False}
    assert_every_plan_replays_by_its_intent(start)


def test_twins_equal_in_every_written_field_are_told_apart_by_identifier():
    """Two Destroyers equal in all but their identifier: the first listed (lowest pid)
    moves, however the position was reached (never by occupancy order)."""
    start = position(2, [*KINGS, piece("white", "destroyer", 5, 5),
                         piece("white", "destroyer", 5, 5)])
    first = min(p.pid for p in start.pieces if p.kind is PieceKind.DESTROYER)
    for state in (start, start.evolve(pieces=start.pieces[::-1])):
        ds_plans = [p for p in all_legal_plans(state) if p.piece.kind is PieceKind.DESTROYER]
        assert {p.piece.pid for p in ds_plans} == {first} and len(ds_plans) == 8
        assert_every_plan_replays_by_its_intent(state)


def test_legal_moves_list_each_twin_intent_once():
    start = position(2, [*KINGS, piece("white", "dozer", 5, 5, moved=True),
                         piece("white", "dozer", 5, 5)])
    moves = legal_moves(start)
    assert len(moves) == len(set(moves))
    assert moves == [move_of(start, plan) for plan in all_legal_plans(start)]
    dozer_moves = [m for m in moves if m.kind is PieceKind.DOZER]
    assert len(dozer_moves) == 8


def test_a_chopper_sharing_its_cell_with_one_in_transit_names_its_hand():
    """A left-handed Chopper in transit on a Bike (R8.4) shares Ground of (5,5) with a
    right-handed one: the Move intent names the hand, else R5.1.1 would refuse it as
    ambiguous."""
    start = position(2, [*KINGS, piece("white", "chopper", 5, 5, hand="right"),
                         piece("white", "chopper", 5, 5, hand="left", articles=["bike"],
                               transit={"article": "bike", "dest": [8, 5],
                                        "path": "beeline"})])
    plans = [p for p in all_legal_plans(start) if p.piece.kind is PieceKind.CHOPPER]
    assert plans and {p.piece.hand for p in plans} == {Hand.RIGHT}
    assert {move_of(start, p).hand for p in plans} == {Hand.RIGHT}
    assert_every_plan_replays_by_its_intent(start)


@pytest.mark.parametrize("seed", [18, 28])
def test_random_games_replay_by_their_intents(seed):
    """Seeds 18 (turn 141, two AAAs) and 28 (turn 62) once moved a second twin that no
    intent names; every Move play_turn makes now replays by its intent."""
    rng = random.Random(seed)
    current = standard_position()
    moves = 0

    def check(before: Position, intent: Intent, outcome: Any) -> None:
        nonlocal moves
        if isinstance(intent, Move):
            again = apply(before, intent).position
            assert encode_state(again) == encode_state(outcome.position), before.turn
            moves += 1

    for _ in range(150):
        if current.result is not None:
            break
        current = play_turn(current, rng, check)
    assert moves > 60
