"""The occupancy maps carried from move to move equal a rebuild from the pieces."""

from __future__ import annotations

import random

from wec_strategies import hide_randomly, random_game_positions

from wec.engine import apply, legal_moves
from wec.engine.pieces import Side


def _cells(occ):
    return [sorted(p.pid for p in here) for here in occ]


def test_carried_occupancy_equals_a_rebuild_after_every_move():
    rng = random.Random(5)
    compared = 0
    for position in random_game_positions(seed=3, turns=150)[::5]:
        position = hide_randomly(position, rng)
        for side in (Side.BLACK, Side.WHITE):
            position.known_occupancy(side)
        for move in legal_moves(position)[::4]:
            after = apply(position, move).position
            rebuilt = after.evolve(pieces=after.pieces)  # a fresh cache
            for side in (Side.BLACK, Side.WHITE):
                assert _cells(after.known_occupancy(side)) == _cells(
                    rebuilt.known_occupancy(side)), move
            compared += 1
    assert compared > 300
