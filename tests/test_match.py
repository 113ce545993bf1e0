"""Matches (R14, engine/match.py): the game as data, modes, Undo and option changes.

Random games are driven by ``engine.playout.play_turn`` (as tests/test_random_games.py
does); its observer hands over every intent, which the match then plays itself.
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest

from wec.engine import encode_state, position_from_dict, position_to_dict, standard_position
from wec.engine.board import GROUND, cell_at
from wec.engine.encoding import state_hash
from wec.engine.errors import FormatError, IllegalIntent, MatchError
from wec.engine.events import Captured, Moved
from wec.engine.game import Outcome, legal_intents
from wec.engine.intents import EndTurn, Intent, Move
from wec.engine.knowledge import view
from wec.engine.match import Match, Mode, OptionChange
from wec.engine.options import Options
from wec.engine.pieces import PieceKind, Side
from wec.engine.playout import play_turn
from wec.engine.position import Position


def position(turn: int, pieces: list[dict[str, Any]]) -> Position:
    return position_from_dict({"format": "wec-position/1", "turn": turn, "pieces": pieces})


def piece(side: str, kind: str, row: int, col: int, **fields: Any) -> dict[str, Any]:
    return {"side": side, "kind": kind, "at": [row, col], "level": "ground", **fields}


def at_ground(row: int, col: int) -> int:
    return cell_at(row, col, GROUND)


def hidden_aaa_start() -> Position:
    """White to act (turn 2); Black's stealthy AAA on (7,5) is hidden from White (R9.2)."""
    return position(2, [piece("black", "king", 10, 6), piece("white", "king", 1, 5),
                        piece("white", "dozer", 6, 5, moved=True),
                        piece("black", "aaa", 7, 5, moved=True, hidden=True)])


DOZER_ONTO_AAA = Move(at_ground(6, 5), at_ground(7, 5), PieceKind.DOZER)


def random_game(seed: int, turns: int) -> tuple[Position, list[tuple[Intent, Position]]]:
    """A random game from the standard start: each intent with the position it led to."""
    rng = random.Random(seed)
    start = current = standard_position()
    played: list[tuple[Intent, Position]] = []

    def observe(before: Position, intent: Intent, outcome: Outcome) -> None:
        played.append((intent, outcome.position))

    for _ in range(turns):
        current = play_turn(current, rng, observe)
        if current.result is not None:
            break
    return start, played


@pytest.fixture(scope="module")
def game() -> tuple[Match, list[tuple[Intent, Position]]]:
    start, played = random_game(seed=4, turns=60)
    match = Match.begin(start)
    for intent, _ in played:
        match = match.play(intent)
    return match, played


# ---------------------------------------------------------------- R14.1, R14.2


def test_a_new_game_starts_non_competitive():
    """R14.1, O32 off at creation: Undo, option changes and the editor are available."""
    match = Match.begin(standard_position())
    assert match.mode is Mode.NON_COMPETITIVE
    assert (match.competitive, match.editing_allowed, match.undo_allowed) == (False, True, False)
    assert match.history == ()
    assert match.current is match.start
    assert match.current_hash == state_hash(standard_position())
    match.require_editor()  # no refusal


def test_the_match_replays_a_random_game_to_the_same_positions(game):
    """Every action records its intent, side, turn, full position and that position's
    hash; the positions are those play_turn reached (Move intents name their twin)."""
    match, played = game
    assert len(match.history) == len(played) > 140
    before = match.start
    for action, (intent, reached) in zip(match.history, played, strict=True):
        assert action.intent == intent
        assert (action.side, action.turn) == (before.side_to_act, before.turn)
        assert encode_state(action.position) == encode_state(reached)
        assert action.state_hash == state_hash(reached)
        before = action.position
    assert match.current_hash == state_hash(played[-1][1])


def test_undo_restores_the_exact_position_at_every_action(game):
    """R14.2: step back to any earlier state, action by action."""
    match, played = game
    expected = [encode_state(match.start)] + [encode_state(p) for _, p in played]
    for index in range(len(played) + 1):
        back = match.undo_to(index)
        assert len(back.history) == index
        assert encode_state(back.current) == expected[index], index
        assert back.current_hash == state_hash(back.current)
        assert back.current is match.position_at(index)  # stored, not replayed
    stepping = match
    for index in range(len(played) - 1, -1, -1):
        stepping = stepping.undo()
        assert encode_state(stepping.current) == expected[index], index
    assert stepping.current is match.start
    assert encode_state(match.undo(7).current) == expected[len(played) - 7]


def test_undo_then_playing_the_same_intents_gives_the_same_hashes(game):
    match, played = game
    hashes = [a.state_hash for a in match.history]
    for index in (0, 1, len(played) // 2, len(played) - 1):
        again = match.undo_to(index)
        for intent, _ in played[index:]:
            again = again.play(intent)
        assert [a.state_hash for a in again.history] == hashes, index


def test_undo_past_the_start_is_refused_naming_it():
    match = Match.begin(hidden_aaa_start()).play(DOZER_ONTO_AAA)
    with pytest.raises(MatchError) as refused:
        match.undo(2)
    assert str(refused.value) == ("R14.2: cannot undo past the start of the match (turn 2): "
                                  "1 action(s) can be undone")
    with pytest.raises(MatchError, match=r"^R14.2: cannot undo past the start"):
        Match.begin(hidden_aaa_start()).undo()
    with pytest.raises(MatchError, match=r"^R14.2: no state after 2 action\(s\): the match "
                                         r"has 1$"):
        match.undo_to(2)
    assert len(match.history) == 1  # the record itself never changes


def test_an_illegal_intent_propagates_and_leaves_the_match_as_it_was():
    match = Match.begin(hidden_aaa_start())
    with pytest.raises(IllegalIntent) as refused:
        match.play(EndTurn())
    assert str(refused.value) == "R4.4: White must make a Move before ending the turn"
    assert match.history == ()


# ---------------------------------------------------------------- R4.13: views


def test_legal_intents_are_listed_on_the_side_to_acts_view(game):
    """R4.13: at every position of the game the listing equals the engine's listing on
    ``knowledge.view`` for the side to act; playing each listed intent is accepted."""
    match, _ = game
    for index in range(0, len(match.history) + 1, 9):
        back = match.undo_to(index)
        side = back.current.side_to_act
        listed = back.legal_intents()
        assert listed == legal_intents(view(back.current, side)), index
        assert back.legal_intents(side_view=False) == legal_intents(back.current)
        for intent in listed[::5]:
            back.play(intent)  # IllegalIntent here would be a listing bug


def test_a_move_onto_a_hidden_enemy_is_listed_and_resolved_on_the_truth():
    """White's view lacks the hidden AAA, so its Dozer may step onto (7,5); on the truth
    the Dozer stops there and takes the AAA (R5.2.4, D-16)."""
    match = Match.begin(hidden_aaa_start())
    assert [p.kind for p in match.view(Side.WHITE).pieces] == [
        PieceKind.KING, PieceKind.KING, PieceKind.DOZER]
    assert DOZER_ONTO_AAA in match.legal_intents()
    after = match.play(DOZER_ONTO_AAA)
    moved, captured = after.history[-1].events
    assert isinstance(moved, Moved) and moved.to == at_ground(7, 5)
    assert isinstance(captured, Captured)
    assert [(p.side, p.kind) for p in captured.pieces] == [(Side.BLACK, PieceKind.AAA)]
    assert after.play(EndTurn()).turn_notation() == ["MV:DO(6,5)->(7,5),RS:DO*AAA(7,5)0B"]


# ---------------------------------------------------------------- R14.3: competitive


def test_competitive_mode_refuses_undo_options_and_the_editor():
    match = Match.begin(hidden_aaa_start()).play(DOZER_ONTO_AAA).go_competitive()
    assert match.mode is Mode.COMPETITIVE
    assert (match.editing_allowed, match.undo_allowed) == (False, False)
    refusals = [
        (lambda: match.undo(), "R14.3: no Undo in competitive mode"),
        (lambda: match.undo_to(0), "R14.3: no Undo in competitive mode"),
        (lambda: match.with_options(Options(tank_range=8)),
         "R14.3: no option changes in competitive mode"),
        (lambda: match.with_options(Options()), "R14.3: no option changes in competitive mode"),
        (match.require_editor, "R14.3: no board editor in competitive mode"),
    ]
    for attempt, message in refusals:
        with pytest.raises(MatchError) as refused:
            attempt()
        assert (refused.value.rule, str(refused.value)) == ("R14.3", message)
    after = match.play(EndTurn())  # play goes on
    assert after.current.turn == 3 and after.competitive


def test_the_switch_to_competitive_is_one_way():
    match = Match.begin(hidden_aaa_start())
    competitive = match.go_competitive()
    with pytest.raises(MatchError) as refused:
        competitive.go_competitive()
    assert str(refused.value) == ("R14.3: the match is already competitive; the switch to "
                                  "competitive is one-way")
    with pytest.raises(MatchError, match=r"^R14\.3: no option changes"):
        competitive.with_options(replace(competitive.current.options, competitive=False))
    with pytest.raises(MatchError) as by_option:
        match.with_options(Options(competitive=True))
    assert str(by_option.value) == ("R14.3: option O32 competitive is switched with "
                                    "go_competitive (one-way), not as an option change")
    assert match.mode is Mode.NON_COMPETITIVE  # the original record is unchanged


def test_going_competitive_at_the_start_marks_the_start_position():
    """O32 is part of the state: a competitive start is saved and loaded as such."""
    match = Match.begin(hidden_aaa_start()).go_competitive()
    assert match.history == ()
    assert position_to_dict(match.start)["options"]["competitive"] is True
    loaded = Match.begin(position_from_dict(position_to_dict(match.start)))
    assert loaded.mode is Mode.COMPETITIVE
    assert loaded.current_hash == match.current_hash != state_hash(hidden_aaa_start())


def test_going_competitive_mid_game_is_a_step_of_the_history():
    played = Match.begin(hidden_aaa_start()).play(DOZER_ONTO_AAA)
    match = played.go_competitive()
    switch = match.history[-1]
    assert isinstance(switch.intent, OptionChange) and switch.intent.options.competitive
    assert (switch.side, switch.turn, switch.events) == (Side.WHITE, 2, ())
    assert match.position_at(1).options.competitive is False  # what was played stays
    assert match.current.options.competitive is True


def test_a_players_history_is_censored_in_competitive_mode_until_the_game_ends():
    """R14.2 (D-43): a non-competitive history shows everything; R14.3: in competitive
    mode White's copy leaves out the hidden AAA's Move, and the game's end reveals it."""
    start = position(1, [piece("black", "king", 10, 6), piece("white", "king", 9, 5),
                         piece("black", "aaa", 7, 5, moved=True, hidden=True)])
    aaa_move = Move(at_ground(7, 5), at_ground(6, 5), PieceKind.AAA)
    open_match = Match.begin(start).play(aaa_move).play(EndTurn())
    full = ["MV:AAA(7,5)->(6,5)"]
    assert open_match.notation_for(Side.WHITE) == full
    competitive = Match.begin(start).go_competitive().play(aaa_move).play(EndTurn())
    assert competitive.notation_for(Side.WHITE) == ["MV:-"]
    assert competitive.notation_for(Side.BLACK) == full
    king_takes_king = Move(at_ground(9, 5), at_ground(10, 6), PieceKind.KING)
    over = competitive.play(king_takes_king)
    assert over.current.result is not None and over.current.result.winner is Side.WHITE
    assert over.notation_for(Side.WHITE) == [*full, "MV:K(9,5)->(10,6),RS:K*K(10,6)0B"]


# ---------------------------------------------------------------- R14.2: options


def test_options_changed_at_the_start_become_the_start_options():
    match = Match.begin(standard_position()).with_options(Options(tank_range=8))
    assert match.history == ()
    assert match.start.options.tank_range == 8
    assert match.current_hash == state_hash(match.start)


def test_options_changed_mid_game_are_an_undoable_step():
    """R14.2: the change acts from the next action on; Undo steps back over it."""
    played = Match.begin(hidden_aaa_start()).play(DOZER_ONTO_AAA)
    changed = played.with_options(Options(stun_duration=5))
    step = changed.history[-1]
    assert step.intent == OptionChange(Options(stun_duration=5))
    assert changed.current.options.stun_duration == 5
    assert changed.position_at(1).options.stun_duration == 3
    assert changed.play(EndTurn()).turn_notation() == ["MV:DO(6,5)->(7,5),RS:DO*AAA(7,5)0B"]
    assert encode_state(changed.undo().current) == encode_state(played.current)
    assert played.with_options(Options()) is played  # no change, no step


def test_invalid_options_are_refused_naming_the_option():
    match = Match.begin(standard_position())
    with pytest.raises(FormatError) as refused:
        match.with_options(Options(tank_range=9))
    assert str(refused.value) == ("options.tank_range: O6 tank_range must be a whole number "
                                  "6..8 (got 9)")
    stealthy_king = position_from_dict({
        "format": "wec-position/1", "turn": 2, "options": {"king_may_be_stealthy": True},
        "pieces": [piece("black", "king", 10, 6),
                   piece("white", "king", 1, 5, articles=["stealth"])]})
    with pytest.raises(FormatError) as invalid:
        Match.begin(stealthy_king).with_options(Options())
    assert str(invalid.value) == ("pieces[1]: R9.9: a primary government piece may not carry "
                                  "Stealth unless option O26 king_may_be_stealthy is on")
