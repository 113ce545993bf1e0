"""net.fog_codec: the engine's values on the wire (issue 21). Every question and answer
of a fog-of-war game goes through it, so it must give back exactly what it was given,
and refuse with WireError (never crash, never build a value of another type) whatever a
hostile peer sends instead."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_net_fog import Wire, fog_options, new_pair, random_intent

from wec.engine.board import Level
from wec.engine.pieces import PieceKind, Side
from wec.engine.setup import standard_position
from wec.net import fog_codec as codec
from wec.net import private_sight as ps
from wec.net.fog_codec import WireError


def _game_values() -> list[Any]:
    """The questions and answers both sides received in 40 actions of a random game."""
    wire = Wire(new_pair(standard_position(fog_options())))
    wire.run()
    rng = random.Random(5)
    for step in range(40):
        g = wire.games[wire.games[Side.BLACK].half.side_to_act]
        wire.play(g.side, random_intent(g.half, rng, step % 3))
    values = []
    for side in Side:
        for message in wire.received[side]:
            payload = codec.unpack(message.body)
            if message.kind == "answer" and isinstance(payload["a"], list) \
                    and len(payload["a"]) == 3 and all(isinstance(part, bytes)
                                                       for part in payload["a"]):
                values.append(payload["a"])  # a detection's answer (net.private_sight)
            elif message.kind == "answer" and not isinstance(payload["a"], bytes):
                values.append(payload["a"])
            elif message.kind == "ask":
                values.append(payload["q"][1:])
    return values


def test_every_question_and_answer_of_a_game_round_trips() -> None:
    values = _game_values()
    assert len(values) > 100
    detections = 0
    for data in values:
        if isinstance(data, list) and len(data) == 3 and all(isinstance(part, bytes)
                                                              for part in data):
            # a detection's answer: input labels, material, and the clear part, the
            # largest of the codec's values (every piece the asker sees whatever it has)
            clear = ps.clear_from_wire(data[2])
            assert ps.clear_to_wire(clear) == data[2]
            detections += 1
            continue
        value = codec.from_wire(data)
        assert codec.to_wire(value) == data
    assert detections > 20


@pytest.mark.parametrize(("data", "words"), [
    ({"e": "Side", "v": "green"}, "unknown enum"),
    ({"e": "Side", "v": ["white"]}, "does not decode"),  # unhashable value
    ({"e": "Colour", "v": "white"}, "unknown enum"),
    ({"e": "Level", "v": 1, "x": 0}, "unknown enum"),
    ({"c": "Piece", "f": [0]}, "fields"),
    ({"c": "Position", "f": []}, "unknown class"),
    ({"c": "Piece"}, "unknown class"),
    ({"s": [1, "a"]}, "integers only"),
    ({"n": "f" * 81}, "hexadecimal"),
    (1.5, "holds a float"),
])
def test_hostile_values_are_refused(data: Any, words: str) -> None:
    with pytest.raises(WireError, match=words):
        codec.from_wire(data)


_SIDE = {"e": "Side", "v": "white"}
_FLAME = {"e": "ArticleKind", "v": "flame"}


@pytest.mark.parametrize(("fields", "reason"), [
    (["x", 3, []], "a FirstHit whose index is not int (got str)"),
    ([True, 3, []], "a FirstHit whose index is not int (got bool)"),
    ([0, None, []], "a FirstHit whose cell is not int (got NoneType)"),
    ([0, 3, [7]], "a FirstHit whose pieces is not tuple[PieceInfo, ...] (got tuple)"),
    ([0, 3, [{"c": "PieceInfo", "f": [_SIDE, {"e": "PieceKind", "v": "tank"}, None,
                                      [_FLAME, 1], []]}]],
     "a PieceInfo whose articles is not tuple[ArticleKind, ...] (got tuple)"),
    ([0, 3, [{"c": "PieceInfo", "f": [_SIDE, {"e": "PieceKind", "v": "tank"}, 0, [], []]}]],
     "a PieceInfo whose hand is not Hand | None (got int)"),
])
def test_a_field_of_another_type_is_refused_naming_it(fields: list[Any], reason: str) -> None:
    """A travelling class is built only from fields of its declared types (since session
    40): a value from the peer with a number where a flag is due, a text for a number,
    or a tuple holding something else is refused naming the class and the field, by
    both readers, before any code of ours reads it."""
    data = {"c": "FirstHit", "f": fields}
    for read, form in ((codec.from_wire, data), (codec.from_compact, codec.compact(data))):
        with pytest.raises(WireError) as refused:
            read(form)
        assert refused.value.reason == reason


def test_optional_fields_and_defaults_still_decode() -> None:
    value = codec.from_wire({"c": "FirstHit", "f": [
        1, 4, [{"c": "PieceInfo", "f": [_SIDE, {"e": "PieceKind", "v": "tank"}, None, [_FLAME],
                                        [2]]}]]})
    assert value.index == 1 and value.cell == 4 and value.pieces[0].hand is None
    assert value.pieces[0].articles == (codec.from_wire(_FLAME),)


@pytest.mark.parametrize("read", [codec.from_wire, codec.from_compact])
def test_nesting_is_bounded(read: Any) -> None:
    data: Any = 1
    for _ in range(40):
        data = [data]
    with pytest.raises(WireError, match="nests too deep"):
        read(data)


def test_enum_members_come_back_as_themselves() -> None:
    for member in (*Side, *PieceKind, *Level):
        assert codec.from_wire(codec.to_wire(member)) is member


scalars = st.one_of(st.none(), st.booleans(), st.integers(-(1 << 63), (1 << 100)),
                    st.text(max_size=8), st.binary(max_size=8), st.sampled_from(list(Side)),
                    st.sampled_from(list(PieceKind)), st.sampled_from(list(Level)))


@settings(max_examples=200, deadline=None)
@given(st.recursive(scalars, lambda inner: st.lists(inner, max_size=4).map(tuple),
                    max_leaves=20))
def test_round_trip_of_nested_tuples_and_enums(value: Any) -> None:
    assert codec.from_wire(codec.to_wire(value)) == value


def test_the_one_pass_compact_form_is_the_two_passes() -> None:
    """``to_compact`` and ``from_compact`` (one walk each, on the path of every
    detection's clear part) give exactly ``compact(to_wire(...))`` and
    ``from_wire(expand(...))`` for every value a game sends, clear parts included."""
    checked = 0
    for data in _game_values():
        if isinstance(data, list) and len(data) == 3 and all(isinstance(part, bytes)
                                                              for part in data):
            clear = ps.clear_from_wire(data[2])
            values: list[Any] = [clear.pieces, clear.hits, clear.acted, clear.projectiles,
                                 *[entry for _, entry in clear.entries]]
        else:
            values = [codec.from_wire(data)]
        for value in values:
            two_passes = codec.compact(codec.to_wire(value))
            assert codec.to_compact(value) == two_passes
            assert codec.from_compact(two_passes) == value
            checked += 1
    assert checked > 200


_keys = st.sampled_from(["m", "k", "e", "v", "c", "f", "n", "s"])
_wild = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-3, 400), st.text(max_size=6),
              st.floats(allow_nan=False), st.sampled_from(["Side", "Piece", "white", "ff"])),
    lambda inner: st.one_of(st.lists(inner, max_size=5),
                            st.dictionaries(_keys, inner, max_size=3)),
    max_leaves=25)


def _outcome(read: Any, data: Any) -> Any:
    try:
        return ("value", read(data))
    except WireError:
        return ("refused",)


@settings(max_examples=400, deadline=None)
@given(_wild)
def test_the_one_pass_reader_takes_and_refuses_what_the_two_passes_do(data: Any) -> None:
    """On anything a peer could send (compact numbers out of range, named forms inside
    compact ones, floats, deep nesting), ``from_compact`` gives the same value as
    ``from_wire(expand(...))`` or refuses it as that does."""
    assert _outcome(codec.from_compact, data) == _outcome(
        lambda d: codec.from_wire(codec.expand(d)), data)
