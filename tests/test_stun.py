"""Stun state (R7.1, R7.2) and a side with no legal Move (R4.4, D-9, EX-39)."""

from __future__ import annotations

import pytest
from rules_helpers import make

from wec.engine import EndTurn, IllegalIntent, apply, intent_from_dict, legal_moves
from wec.engine.game import legal_intents


def _stunned_black(until: int, turn: int):
    return make([
        {"side": "black", "kind": "king", "at": [10, 6], "stunned_until": until},
        {"side": "black", "kind": "flame_pawn", "at": [9, 3], "stunned_until": until},
        {"side": "black", "kind": "rocket_pawn", "at": [9, 8], "stunned_until": until},
        {"side": "white", "kind": "king", "at": [1, 5]},
    ], turn=turn)


def test_ex39_a_side_with_every_piece_stunned_may_end_without_a_move():
    """EX-39: Black's King and two Pawns are stunned until T = 16; on T = 13 Black has no
    legal Move and may end the turn without one (R4.4, D-9)."""
    position = _stunned_black(16, 13)
    assert legal_moves(position) == []
    assert legal_intents(position) == [EndTurn()]
    after = apply(position, EndTurn()).position
    assert after.turn == 14


def test_r7_2_a_stunned_piece_may_not_move_until_its_stun_expires():
    """R7.1: stunned while T < stunned_until; on T = 15 still stunned, on T = 17 free."""
    move = intent_from_dict({"act": "move", "from": [10, 6], "to": [9, 6]})
    with pytest.raises(IllegalIntent) as refusal:
        apply(_stunned_black(16, 15), move)
    assert refusal.value.rule == "R7.2"
    assert str(refusal.value) == ("R7.2: the King at (10,6) ground is stunned until turn 16 "
                                  "and may not Move")
    after = apply(_stunned_black(16, 17), move).position
    assert after.pieces[0].kind.value == "king"
    assert len(legal_moves(_stunned_black(16, 17))) > 0


def test_the_move_stays_mandatory_while_an_unstunned_piece_can_move():
    position = make([
        {"side": "black", "kind": "king", "at": [10, 6], "stunned_until": 16},
        {"side": "black", "kind": "dozer", "at": [5, 5]},
        {"side": "white", "kind": "king", "at": [1, 5]},
    ], turn=13)
    assert len(legal_moves(position)) == 8  # only the Dozer moves
    with pytest.raises(IllegalIntent) as refusal:
        apply(position, EndTurn())
    assert refusal.value.rule == "R4.4"


def test_stun_is_kept_through_moves_and_the_position_format():
    from wec.engine import position_from_dict, position_to_dict

    position = _stunned_black(16, 13)
    data = position_to_dict(position)
    assert {"side": "black", "kind": "king", "at": [10, 6], "level": "ground",
            "stunned_until": 16} in data["pieces"]
    assert position_to_dict(position_from_dict(data)) == data
