"""Hypothesis round trips of the position format and intents (docs/formats.md)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from wec_strategies import positions

from wec.engine import (
    EndTurn,
    FormatError,
    Move,
    encode_state,
    intent_from_dict,
    intent_to_dict,
    position_from_dict,
    position_to_dict,
)
from wec.engine.board import CELLS, DIRECTIONS, SQUARES
from wec.engine.fire import TRANSPORTS, WEAPONS
from wec.engine.formats import validate_position
from wec.engine.intents import Doze, Fire
from wec.engine.pieces import Hand, PieceKind
from wec.engine.position import PATH_MODES


@settings(max_examples=300, deadline=None)
@given(positions())
def test_position_json_round_trip_keeps_the_state(position):
    data = json.loads(json.dumps(position_to_dict(position)))
    again = position_from_dict(data)
    assert encode_state(again) == encode_state(position)
    assert position_to_dict(again) == data


@settings(max_examples=200, deadline=None)
@given(positions())
def test_generated_positions_are_valid_boards(position):
    validate_position(position)  # the strategy keeps R1.6, R2.5, R2.6, R9.9


moves = st.builds(Move, st.integers(0, CELLS - 1), st.integers(0, CELLS - 1),
                  st.none() | st.sampled_from(list(PieceKind)), st.none() | st.booleans(),
                  st.none() | st.sampled_from(list(Hand)))


directions = st.sampled_from(DIRECTIONS)
squares = st.integers(0, SQUARES - 1)
fires = st.one_of(
    st.builds(Fire, st.integers(0, CELLS - 1), st.sampled_from(WEAPONS), dir=directions,
              kind=st.none() | st.sampled_from(list(PieceKind))),
    st.builds(Fire, st.integers(0, CELLS - 1), st.sampled_from(WEAPONS),
              target=st.integers(0, CELLS - 1),
              target_kind=st.none() | st.sampled_from(list(PieceKind))),
    st.builds(Fire, st.integers(0, CELLS - 1), st.sampled_from(TRANSPORTS), dest=squares,
              path=st.sampled_from(PATH_MODES), hand=st.none() | st.sampled_from(list(Hand))))
dozes = st.builds(Doze, squares, st.lists(squares, max_size=4, unique=True).map(tuple),
                  directions)


@given(st.one_of(moves, st.just(EndTurn()), fires, dozes))
def test_intent_json_round_trip(intent):
    assert intent_from_dict(json.loads(json.dumps(intent_to_dict(intent)))) == intent


def test_intents_may_name_their_format_version():
    from wec.engine import FormatError

    assert intent_from_dict({"format": "wec-intent/1", "act": "end"}) == EndTurn()
    try:
        intent_from_dict({"format": "wec-intent/2", "act": "end"})
    except FormatError as exc:
        assert str(exc) == ("intent.format: 'wec-intent/2' is not readable by this version "
                            "of wec (it reads wec-intent/1)")
    else:
        raise AssertionError("a newer intent format must be refused")


@pytest.mark.parametrize("act", [[1], {"move": 1}, 7, None, b"move"])
def test_an_intent_whose_act_is_not_a_name_is_refused_with_a_format_error(act):
    """A peer's or a file's intent with a list, map, number or bytes as its act is
    refused with the readable names, never a crash (found by the network fuzzer)."""
    with pytest.raises(FormatError, match=r"^intent\.act: expected one of move, "):
        intent_from_dict({"act": act})
