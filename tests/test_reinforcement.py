"""Reinforcements (R10): when and where they enter (EX-32), and a hidden occupant (D-12)."""

from __future__ import annotations

import pytest

from wec.engine import EndTurn, IllegalIntent, apply, intent_from_dict, position_from_dict
from wec.engine.board import square
from wec.engine.events import Reinforced, ReinforceFoiled
from wec.engine.game import legal_intents
from wec.engine.intents import Reinforce
from wec.engine.pieces import PieceKind


def _ex32(turn: int = 40, extra=()):
    return position_from_dict({
        "format": "wec-position/1", "turn": turn,
        "pieces": [{"side": "white", "kind": "destroyer", "at": [9, 7]},
                   {"side": "white", "kind": "king", "at": [1, 5]},
                   {"side": "black", "kind": "king", "at": [10, 1]}, *extra],
        "reinforcements": [{"side": "white", "kind": "queen", "at": [10, 8]},
                           {"side": "white", "kind": "dozer", "at": [10, 8]}]})


def act(position, **intent):
    return apply(position, intent_from_dict(intent))


def black_passes(position):
    """End White's turn; Black's King shuffles; Black ends."""
    position = apply(position, EndTurn()).position
    king = next(p for p in position.pieces if p.side.value == "black")
    to = [king.row - 1 if king.row > 1 else king.row + 1, king.col]
    position = act(position, act="move", **{"from": [king.row, king.col]}, to=to).position
    return apply(position, EndTurn()).position


def refused(position, **intent) -> IllegalIntent:
    with pytest.raises(IllegalIntent) as caught:
        act(position, **intent)
    return caught.value


def test_ex32_reinforcement_sequence():
    p = act(_ex32(), act="move", **{"from": [9, 7]}, to=[10, 8]).position  # T = 40
    no = refused(p, act="reinforce", at=[10, 8], kind="queen")
    assert (no.rule, no.detail) == (
        "R10.3", "no own piece stood at Ground on (10,8) when this turn started, so no "
                 "reinforcement may enter there this turn")
    p = black_passes(p)  # T = 42: the Destroyer started the turn on (10,8)
    assert p.turn == 42 and p.turn_start_squares == (square(10, 8),)
    p = act(p, act="move", **{"from": [10, 8]}, to=[9, 8]).position
    assert [i for i in legal_intents(p) if isinstance(i, Reinforce)] == [
        Reinforce(square(10, 8), PieceKind.QUEEN), Reinforce(square(10, 8), PieceKind.DOZER)]
    outcome = act(p, act="reinforce", at=[10, 8], kind="queen")
    assert outcome.events == (Reinforced(p.side_to_act, PieceKind.QUEEN, None, square(10, 8)),)
    queen = next(x for x in outcome.position.pieces if x.kind is PieceKind.QUEEN)
    assert (queen.row, queen.col, queen.articles, queen.stunned_until) == (10, 8, (), 0)
    assert [r.kind for r in outcome.position.reinforcements] == [PieceKind.DOZER]
    twice = refused(outcome.position, act="reinforce", at=[10, 8], kind="dozer")
    assert twice.rule == "R4.3"
    p = black_passes(outcome.position)  # T = 44: the Queen started on (10,8) and leaves
    p = act(p, act="move", **{"from": [10, 8]}, to=[3, 5]).position
    p = act(p, act="reinforce", at=[10, 8], kind="dozer").position
    assert [(x.kind.value, x.row, x.col) for x in p.pieces if x.kind is PieceKind.DOZER] == [
        ("dozer", 10, 8)]
    assert p.reinforcements == ()


def test_ex32_a_missed_chance_does_not_carry_over():
    p = act(_ex32(), act="move", **{"from": [9, 7]}, to=[10, 8]).position
    p = black_passes(p)
    p = black_passes(act(p, act="move", **{"from": [10, 8]}, to=[9, 8]).position)  # T = 44
    assert p.turn_start_squares == ()
    assert refused(p, act="reinforce", at=[10, 8], kind="queen").rule == "R10.3"


def test_r10_3_a_hidden_enemy_on_the_square_foils_the_reinforce_d12():
    hidden = {"side": "black", "kind": "aaa", "at": [10, 8], "hidden": True}
    p = act(_ex32(42, extra=[hidden]), act="move", **{"from": [9, 7]}, to=[9, 6]).position
    p = p.evolve(turn_start_squares=(square(10, 8),))
    outcome = act(p, act="reinforce", at=[10, 8], kind="queen")
    assert outcome.events == (ReinforceFoiled(p.side_to_act, square(10, 8)),)
    assert outcome.position.actions.reinforce == 1  # spent (R4.13)
    assert len(outcome.position.reinforcements) == 2
    assert len(outcome.position.pieces) == len(p.pieces)


def test_r10_3_the_square_must_be_empty_and_the_kind_waiting():
    p = _ex32(42, extra=[{"side": "white", "kind": "destroyer", "at": [10, 8]}])
    assert p.turn_start_squares == (square(10, 8),)
    wrong = refused(p, act="reinforce", at=[10, 8], kind="tank")
    assert (wrong.rule, wrong.detail) == ("R10.1", "no such reinforcement of White waits at "
                                                   "(10,8)")
    busy = refused(p, act="reinforce", at=[10, 8], kind="queen")
    assert (busy.rule, busy.detail) == ("R10.3", "Ground of (10,8) is not empty")


def test_r10_4_reinforcement_limits_per_square_are_checked_on_reading():
    from wec.engine import FormatError

    with pytest.raises(FormatError, match=r"R10\.4"):
        position_from_dict({"format": "wec-position/1", "pieces": [], "reinforcements": [
            {"side": "white", "kind": "tank", "at": [10, 1], "hand": "right"},
            {"side": "white", "kind": "jet", "at": [10, 1]}]})
