"""The Doze listing equals a brute force over every selection and direction (R8.8)."""

from __future__ import annotations

import random
from itertools import combinations

from wec.engine import board, standard_position
from wec.engine.dozing import (
    _MEMO,
    _known_ground,
    _movers,
    coincident_of,
    dozer_reason,
    legal_dozes,
    selection_reason,
    shift_reason,
)
from wec.engine.intents import Doze
from wec.engine.pieces import PieceKind
from wec.engine.playout import play_turn
from wec.engine.position import Position


def brute_force(position: Position) -> set[Doze]:
    out = set()
    known = _known_ground(position)
    for dozer in position.pieces:
        if (dozer.side is not position.side_to_act or dozer.kind is not PieceKind.DOZER
                or dozer.level != board.GROUND or dozer_reason(position, dozer)):
            continue
        coincident = coincident_of(position, dozer)
        assert coincident is not None
        near = sorted(s for d in board.DIRECTIONS
                      if (s := board.offset(dozer.sq, d)) is not None)
        for size in range(len(near) + 1):
            for squares in combinations(near, size):
                if selection_reason(position, dozer, squares, known):
                    continue
                movers = _movers(dozer, coincident, squares, known)
                for d in board.DIRECTIONS:
                    if shift_reason(movers, known, d) is None:
                        out.add(Doze(dozer.sq, squares, d))
    return out


def test_listing_matches_brute_force_along_random_games():
    _MEMO.clear()  # every listing below is computed here, none remembered from elsewhere
    rng = random.Random(88)
    p = standard_position()
    compared = with_dozes = 0
    for _ in range(300):
        listed = legal_dozes(p)
        assert set(listed) == brute_force(p)
        assert len(listed) == len(set(listed))
        compared += 1
        with_dozes += bool(listed)
        p = play_turn(p, rng)
        if p.result is not None:
            p = standard_position()
    assert compared == 300 and with_dozes >= 20
