"""Incremental move generation equals a fresh generation in every position of a game."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st
from wec_strategies import hide_randomly, positions

from engine.game import end_turn
from engine.movement import all_legal_plans, resolve_plan
from engine.position import Position
from engine.referee import FullStateReferee
from engine.setup import standard_position


def _signature(plans):
    return [(p.piece.pid, p.passenger.pid if p.passenger else None, p.route) for p in plans]


def _play_and_compare(position: Position, rng: random.Random, turns: int) -> int:
    """Play random turns; at each, carried plans must equal plans from a fresh cache."""
    compared = 0
    for _ in range(turns):
        plans = all_legal_plans(position)
        fresh = all_legal_plans(position.evolve(pieces=position.pieces))
        assert _signature(plans) == _signature(fresh), position.turn
        compared += 1
        if plans:
            position, _ = resolve_plan(position, rng.choice(plans), FullStateReferee(position))
        if position.result is not None:
            break
        position = end_turn(position).position
    return compared


def test_incremental_generation_along_random_standard_games():
    rng = random.Random(77)
    compared = 0
    for game in range(4):
        start = hide_randomly(standard_position(), random.Random(game), share=0.3)
        compared += _play_and_compare(start, rng, 250)
    assert compared > 400


@settings(max_examples=60, deadline=None)
@given(positions(max_pieces=30), st.randoms(use_true_random=False))
def test_incremental_generation_from_random_positions(position, rng):
    if position.result is None:
        _play_and_compare(position, rng, 25)


def test_carried_move_and_doze_listings_equal_fresh_ones_in_all_action_games():
    """Plans and Doze listings carried across every action kind (Fire, Doze, articles,
    transport and projectile phases) equal listings computed from an empty cache."""
    from engine.dozing import legal_dozes
    from engine.playout import play_turn

    compared = 0

    def compare(position: Position, intent, outcome) -> None:
        nonlocal compared
        after = outcome.position
        if after.result is not None:
            return
        fresh = after.evolve(pieces=after.pieces)  # same state, empty cache
        assert [(p.piece, p.passenger, p.route) for p in all_legal_plans(after)] == [
            (p.piece, p.passenger, p.route) for p in all_legal_plans(fresh)], after.turn
        assert legal_dozes(after) == legal_dozes(fresh), after.turn
        compared += 1

    rng = random.Random(5)
    position = standard_position()
    for _ in range(600):
        position = play_turn(position, rng, compare)
        if position.result is not None:
            position = standard_position()
    assert compared > 1200
