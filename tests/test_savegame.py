"""Saved games (docs/formats.md "Saved games"): engine/savegame.py, wec/saves.py and
``wec save-info``.

A save must bring back exactly the match that was saved (R14: resume, Undo, replay,
the mode), refuse every damaged, foreign or newer file with a message that says what
is wrong, never change the file it reads, and never leave a broken file when a write
fails. Random games are driven by ``engine.playout.play_turn`` as in
tests/test_match.py; the match plays every intent itself.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import random
from pathlib import Path
from typing import Any

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wec.cli import main
from wec.engine import encode_state, position_from_dict, position_to_dict, standard_position
from wec.engine.board import GROUND, cell_at, square
from wec.engine.encoding import state_hash
from wec.engine.errors import MatchError, SaveError
from wec.engine.game import Outcome
from wec.engine.intents import Doze, Drop, EndTurn, Exchange, Fire, Intent, Move, PickUp, Reinforce
from wec.engine.match import Match, Mode, OptionChange
from wec.engine.options import Options, options_from_dict, options_to_dict
from wec.engine.pieces import ArticleKind, PieceKind
from wec.engine.playout import play_turn
from wec.engine.position import Position
from wec.engine.savegame import SAVE_VERSION, decode_save, encode_save, save_summary
from wec.storage.saves import read_save, write_save

TRUNCATED = "truncated: the file ends before the saved game does"
FOREIGN = "not a wec saved game (it does not start with the wec-save header)"
CHECKSUM = "corrupted: checksum mismatch (the file was damaged or altered)"
ALTERED = "state hash differs: the file was altered or made by a different engine version"


# ---------------------------------------------------------------- building matches

def piece(side: str, kind: str, row: int, col: int, **fields: Any) -> dict[str, Any]:
    return {"side": side, "kind": kind, "at": [row, col], "level": "ground", **fields}


def position(turn: int, pieces: list[dict[str, Any]], **fields: Any) -> Position:
    return position_from_dict({"format": "wec-position/1", "turn": turn, "pieces": pieces,
                               **fields})


def at_ground(row: int, col: int) -> int:
    return cell_at(row, col, GROUND)


def play_random_turns(match: Match, seed: int, turns: int) -> Match:
    """``match`` after up to ``turns`` random whole turns (every action kind, R4.3)."""
    rng = random.Random(seed)
    played = [match]

    def observe(before: Position, intent: Intent, outcome: Outcome) -> None:
        played.append(played[-1].play(intent))

    current = match.current
    for _ in range(turns):
        current = play_turn(current, rng, observe)
        if current.result is not None:
            break
    return played[-1]


def small_match() -> Match:
    """Five steps from a four-piece board: White's Dozer takes the hidden AAA (R5.2.4),
    Black's King steps aside, White's King steps up."""
    start = position(2, [piece("black", "king", 10, 6), piece("white", "king", 1, 5),
                         piece("white", "dozer", 6, 5, moved=True),
                         piece("black", "aaa", 7, 5, moved=True, hidden=True)])
    return (Match.begin(start)
            .play(Move(at_ground(6, 5), at_ground(7, 5), PieceKind.DOZER)).play(EndTurn())
            .play(Move(at_ground(10, 6), at_ground(10, 5), PieceKind.KING)).play(EndTurn())
            .play(Move(at_ground(1, 5), at_ground(2, 5))))


def reinforcement_match() -> Match:
    """EX-32 (R10.3): the Destroyer started turn 42 on (10,8), steps off, the Queen
    enters there; then random play goes on."""
    start = position(42, [piece("white", "destroyer", 10, 8), piece("white", "king", 1, 5),
                          piece("black", "king", 10, 1)],
                     reinforcements=[{"side": "white", "kind": "queen", "at": [10, 8]},
                                     {"side": "white", "kind": "dozer", "at": [10, 8]}])
    match = (Match.begin(start).play(Move(at_ground(10, 8), at_ground(9, 8)))
             .play(Reinforce(square(10, 8), PieceKind.QUEEN)))
    return play_random_turns(match, seed=3, turns=6)


def open_body(data: bytes) -> dict[str, Any]:
    envelope = msgpack.unpackb(data, raw=False)
    body: dict[str, Any] = msgpack.unpackb(envelope[2], raw=False)
    return body


def seal(body: Any, version: int = 1) -> bytes:
    """A save around ``body`` with a correct checksum (what someone altering a save by
    hand would do to get past the checksum)."""
    packed = msgpack.packb(body, use_bin_type=True)
    return msgpack.packb(["wec-save", version, packed, hashlib.sha256(packed).digest()],
                         use_bin_type=True)


def assert_same_match(loaded: Match, saved: Match) -> None:
    """Every action identical: intent, side, turn, full position, events, what each side
    saw and the state hash; the same start, current state and file bytes."""
    assert loaded.start == saved.start
    assert loaded.actions == saved.actions
    assert loaded.current_hash == saved.current_hash == state_hash(loaded.current)
    assert encode_state(loaded.current) == encode_state(saved.current)
    assert loaded.mode is saved.mode
    assert encode_save(loaded) == encode_save(saved)


def refusal(data: bytes) -> str:
    with pytest.raises(SaveError) as refused:
        decode_save(data)
    return str(refused.value)


def refusal_of_file(path: Path) -> str:
    """The message of reading ``path``, checking that the attempt left it as it was."""
    before, stamp = path.read_bytes(), path.stat().st_mtime_ns
    with pytest.raises(SaveError) as refused:
        read_save(path)
    assert path.read_bytes() == before
    assert path.stat().st_mtime_ns == stamp
    return str(refused.value)


@pytest.fixture(scope="module")
def small() -> bytes:
    return encode_save(small_match())


@pytest.fixture(scope="module")
def long_game() -> Match:
    return play_random_turns(Match.begin(standard_position()), seed=4, turns=40)


# ---------------------------------------------------------------- round trips

def test_the_file_is_laid_out_as_documented(small):
    """["wec-save", 1, BODY, SHA-256(BODY)], BODY a map with sorted keys: a history
    shorter than one snapshot interval is still written as version 1 (version 2 adds
    snapshots and notation, engine.savegame)."""
    envelope = msgpack.unpackb(small, raw=False)
    assert small[:10] == b"\x94\xa8wec-save"
    assert envelope[:2] == ["wec-save", 1]
    assert SAVE_VERSION == 2
    assert envelope[3] == hashlib.sha256(envelope[2]).digest()
    body = open_body(small)
    assert list(body) == ["intent_format", "mode", "start", "start_hash", "steps"]
    assert (body["intent_format"], body["mode"]) == ("wec-intent/1", "non_competitive")
    assert body["start_hash"] == small_match().start_hash
    assert body["steps"][0] == {
        "hash": small_match().actions[0].state_hash,
        "intent": {"act": "move", "from": [6, 5, "ground"], "kind": "dozer",
                   "to": [7, 5, "ground"]}}
    assert body["steps"][1]["intent"] == {"act": "end"}
    assert seal(body) == small


def test_every_action_kind_survives_a_round_trip(long_game):
    """A random game from the standard start (Move, Doze, Fire, Pick-up, Drop, Exchange,
    End) and an EX-32 game with a Reinforce come back identical."""
    games = [long_game, reinforcement_match()]
    kinds = {type(action.intent) for game in games for action in game.actions}
    assert kinds == {Move, Doze, Fire, PickUp, Drop, Exchange, Reinforce, EndTurn}
    for game in games:
        assert_same_match(decode_save(encode_save(game)), game)


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), turns=st.integers(0, 25))
def test_random_games_round_trip(seed, turns):
    game = play_random_turns(Match.begin(standard_position()), seed, turns)
    assert_same_match(decode_save(encode_save(game)), game)


def test_other_governments_and_options_round_trip():
    """O1, O2, O5, O6 in the start position and a mid-game option change (R14.2)."""
    options = options_from_dict({
        "movement_system": "mass_destruction", "mdc_pawn_movement": "all_forward",
        "government": {"black": "theocracy", "white": "democracy"}, "tank_range": 8})
    game = play_random_turns(Match.begin(standard_position(options)), seed=7, turns=8)
    game = play_random_turns(game.with_options(Options(
        movement_system="standard_chess", government_black=options.government_black,
        government_white=options.government_white)), seed=8, turns=4)
    loaded = decode_save(encode_save(game))
    assert_same_match(loaded, game)
    assert loaded.start.options == options
    assert loaded.current.options.movement_system == "standard_chess"
    assert save_summary(loaded)["sides"] == {"black": {"government": "theocracy"},
                                             "white": {"government": "democracy"}}


def test_orders_the_position_format_does_not_write_are_kept():
    """Loading must reach the saved positions, not merely similar ones. Two Dozers equal
    in every written field share (5,5) once one has moved there: which one made the
    Move (R4.5) follows the engine's order of pieces. Of two Flames on a square, the
    first placed is picked up with its cooldown (R3.5). A start read back from the
    canonical position format would reach other states; the save keeps both orders."""
    dozers = position(2, [piece("black", "king", 10, 6), piece("white", "king", 1, 5),
                          piece("white", "dozer", 5, 5, moved=True),
                          piece("white", "dozer", 5, 6, moved=True)])
    # the engine's order is not canonical (as for the standard start)
    start = dozers.evolve(pieces=tuple(p.but(pid=i)
                                       for i, p in enumerate(reversed(dozers.pieces))))
    onto_twin = Move(at_ground(5, 6), at_ground(5, 5))
    flames = position(2, [piece("black", "king", 10, 6), piece("white", "king", 1, 5),
                          piece("white", "destroyer", 5, 5, moved=True)],
                      articles=[{"kind": "flame", "at": [5, 5], "ready": 9},
                                {"kind": "flame", "at": [5, 5]}])
    pick_up = PickUp(at_ground(5, 5), ArticleKind.FLAME)
    for begin, intent in ((start, onto_twin), (flames, pick_up)):
        game = Match.begin(begin).play(intent)
        from_canonical = Match.begin(position_from_dict(position_to_dict(begin))).play(intent)
        assert from_canonical.current_hash != game.current_hash
        assert_same_match(decode_save(encode_save(game)), game)
    game = (Match.begin(start).play(onto_twin).play(EndTurn())
            .play(Move(at_ground(10, 6), at_ground(10, 5))).play(EndTurn())
            .play(Move(at_ground(5, 5), at_ground(4, 5), PieceKind.DOZER)))
    assert_same_match(decode_save(encode_save(game)), game)
    assert [p.ready for p in Match.begin(flames).play(pick_up).current.pieces] == [
        (), (), (0, 9)]  # the Destroyer's Flame came with its cooldown


def test_undo_works_after_loading(long_game):
    """R14.2: the loaded match steps back to any earlier state and plays on as the
    saved one does."""
    loaded = decode_save(encode_save(long_game))
    for index in (0, 1, 57, len(long_game.actions) - 1):
        back = loaded.undo_to(index)
        assert encode_state(back.current) == encode_state(long_game.position_at(index))
        assert back.current_hash == long_game.hash_at(index)
    replayed = loaded.undo(3)
    for action in long_game.actions[-3:]:
        assert isinstance(action.intent, Intent)
        replayed = replayed.play(action.intent)
    assert replayed.current_hash == long_game.current_hash
    assert_same_match(decode_save(encode_save(loaded.undo(5))), long_game.undo(5))


def test_competitive_mode_survives_a_save():
    """R14.3: switched mid-game (a step of the history) or at the start (O32 of the start
    position), the loaded match is competitive: no Undo."""
    mid_game = small_match().go_competitive().play(EndTurn())
    at_start = Match.begin(small_match().start).go_competitive()
    for game in (mid_game, at_start):
        loaded = decode_save(encode_save(game))
        assert_same_match(loaded, game)
        assert loaded.mode is Mode.COMPETITIVE
        assert open_body(encode_save(game))["mode"] == "competitive"
        with pytest.raises(MatchError) as refused:
            loaded.undo_to(0)
        assert str(refused.value) == "R14.3: no Undo in competitive mode"
    switch = decode_save(encode_save(mid_game)).actions[5]
    assert switch.intent == OptionChange(Options(competitive=True))
    assert open_body(encode_save(mid_game))["steps"][5]["options"]["competitive"] is True
    assert open_body(encode_save(at_start))["start"]["options"]["competitive"] is True


def test_an_option_change_step_survives():
    """R14.2: a mid-game option change is a step of its own, undone like an action."""
    game = small_match().with_options(Options(stun_duration=5)).play(EndTurn())
    loaded = decode_save(encode_save(game))
    assert_same_match(loaded, game)
    assert loaded.actions[5].intent == OptionChange(Options(stun_duration=5))
    assert (loaded.actions[5].side.value, loaded.actions[5].turn) == ("white", 4)
    assert loaded.current.options.stun_duration == 5
    assert loaded.undo(2).current.options.stun_duration == 3
    assert save_summary(loaded)["actions"] == 6
    assert save_summary(loaded)["option_changes"] == 1


# ---------------------------------------------------------------- summary

def test_summary_of_a_game_under_way(small):
    assert save_summary(decode_save(small)) == {
        "sides": {"black": {"government": "monarchy"}, "white": {"government": "monarchy"}},
        "turn": 4, "side_to_act": "white", "mode": "non_competitive", "result": None,
        "actions": 5, "option_changes": 0}


def test_summary_of_a_finished_competitive_game():
    """R12.1: White's King takes Black's; the game is over, nobody is to act."""
    start = position(1, [piece("black", "king", 10, 6), piece("white", "king", 9, 5),
                         piece("black", "aaa", 7, 5, moved=True, hidden=True)])
    game = (Match.begin(start).go_competitive()
            .play(Move(at_ground(7, 5), at_ground(6, 5), PieceKind.AAA)).play(EndTurn())
            .play(Move(at_ground(9, 5), at_ground(10, 6), PieceKind.KING)))
    assert save_summary(decode_save(encode_save(game))) == {
        "sides": {"black": {"government": "monarchy"}, "white": {"government": "monarchy"}},
        "turn": 2, "side_to_act": None, "mode": "competitive",
        "result": {"winner": "white",
                   "reason": "R12.1: Black lost the King, taken at (10,6) ground by a King"},
        "actions": 3, "option_changes": 0}


# ---------------------------------------------------------------- damaged files

def test_every_truncation_is_refused(small, tmp_path):
    assert refusal(b"") == "empty file: not a wec saved game"
    for length in range(1, len(small)):
        assert refusal(small[:length]) == TRUNCATED, length
    for length in (1, 9, 10, 11, 15, len(small) // 2, len(small) - 33, len(small) - 1):
        path = tmp_path / f"cut{length}.wecsave"
        path.write_bytes(small[:length])
        assert refusal_of_file(path) == f"{path}: {TRUNCATED}"


def test_a_flipped_byte_in_the_body_fails_the_checksum(small, tmp_path):
    damaged = bytearray(small)
    damaged[len(small) // 2] ^= 0x20
    path = tmp_path / "flipped.wecsave"
    path.write_bytes(bytes(damaged))
    assert refusal_of_file(path) == f"{path}: {CHECKSUM}"
    damaged = bytearray(small)
    damaged[-1] ^= 0x01  # the checksum itself
    assert refusal(bytes(damaged)) == CHECKSUM


def test_every_single_byte_flip_is_refused(small):
    """Wherever a byte is damaged (header, version, lengths, body, checksum), the file
    is refused with one of the documented messages; it never loads."""
    allowed = ("not a wec saved game", "truncated: ", "corrupted: ")
    for index in range(len(small)):
        for flip in (0x01, 0x80, 0xFF):
            damaged = bytearray(small)
            damaged[index] ^= flip
            assert refusal(bytes(damaged)).startswith(allowed), (index, flip)


def test_extra_bytes_after_the_save_are_refused(small):
    assert refusal(small + b"\x00") == ("corrupted: 1 unexpected byte(s) after the end of the "
                                        "saved game")


@pytest.mark.parametrize("name, content, message", [
    ("position.json", json.dumps(position_to_dict(standard_position())).encode(), FOREIGN),
    ("picture.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", FOREIGN),
    ("notes.txt", b"a wec-save, honest", FOREIGN),
    ("other.msgpack", msgpack.packb(["wec-state", 1, {}]), FOREIGN),
    ("empty.wecsave", b"", "empty file: not a wec saved game"),
])
def test_foreign_files_are_refused(tmp_path, name, content, message):
    path = tmp_path / name
    path.write_bytes(content)
    assert refusal_of_file(path) == f"{path}: {message}"


def test_a_newer_version_is_refused_as_such(small, tmp_path):
    """The first two elements keep their meaning: whatever follows in a newer format."""
    path = tmp_path / "newer.wecsave"
    path.write_bytes(seal(open_body(small), version=3))
    assert refusal_of_file(path) == (f"{path}: made by a newer wec: format 3, this wec reads "
                                     "up to 2")
    other_layout = msgpack.packb(["wec-save", 3, {"anything": [1, 2]}, b"", b"", b""])
    assert refusal(other_layout) == "made by a newer wec: format 3, this wec reads up to 2"
    assert refusal(seal(open_body(small), version=0)) == (
        "corrupted: the format version is not a version of wec saves (got 0)")


def test_a_tampered_intent_is_caught_by_the_replay(small, tmp_path):
    """The checksum is recomputed, so only the replay catches it: a legal but different
    Move changes the state hash of step 3 (turn 3); an impossible one breaks R5.3.2."""
    body = open_body(small)
    body["steps"][2]["intent"]["to"] = [10, 7, "ground"]
    path = tmp_path / "tampered.wecsave"
    path.write_bytes(seal(body))
    assert refusal_of_file(path) == f"{path}: step 3 (turn 3): {ALTERED}"
    body["steps"][2]["intent"]["to"] = [5, 5, "ground"]
    assert refusal(seal(body)) == ("step 3 (turn 3): illegal intent: R5.3.2: a King at (10,6) "
                                   "ground cannot reach (5,5) ground")
    body["steps"][2]["intent"]["act"] = "teleport"
    assert refusal(seal(body)) == (
        "step 3 (turn 3): invalid content: intent.act: expected one of move, end, pickup, "
        "drop, exchange, reinforce, fire, doze (got 'teleport')")


def _edit(data: bytes, change: Any) -> bytes:
    body = open_body(data)
    change(body)
    return seal(body)


@pytest.mark.parametrize("change, message", [
    (lambda b: b.update(mode="competitive"),
     "invalid content: mode: the file says competitive but its history leaves the game "
     "non_competitive"),
    (lambda b: b.pop("start_hash"),
     "invalid content: the body must have exactly the keys intent_format, mode, start, "
     "start_hash, steps (got intent_format, mode, start, steps)"),
    (lambda b: b.update(start_hash="0" * 64), f"start position: {ALTERED}"),
    (lambda b: b["start"]["pieces"][0].update(kind="wizard"),
     "invalid content: start position: pieces[0].kind: expected one of tank, dozer, cleric, "
     "chopper, jet, sub, destroyer, aaa, king, queen, dictator, assassin, avatar, acolyte, "
     "president, prime_minister, flame_pawn, rocket_pawn, stunner_pawn, conversion_pawn, "
     "sam_torpedo_pawn, xxx_pawn, stealth_pawn (got 'wizard')"),
    (lambda b: b["start"].update(viewer="black"),
     "invalid content: start position: a saved game holds the full state, not Black's view"),
    (lambda b: b["steps"][1].update(hash="f" * 64), f"step 2 (turn 2): {ALTERED}"),
    (lambda b: b.update(intent_format="wec-intent/2"),
     "invalid content: intent_format 'wec-intent/2' is not readable by this version of wec "
     "(it reads wec-intent/1)"),
    (lambda b: b["steps"].insert(0, {"options": {"stun_duration": 5}, "hash": "0" * 64}),
     "step 1 (turn 2): invalid option change: R14.2: it changes nothing or comes before the "
     "first action, so no match records it as a step"),
    (lambda b: b["steps"][3].update(options={"tank_range": 9}),
     "step 4 (turn 3): invalid content: an option change must have exactly the keys hash, "
     "options (got hash, intent, options)"),
    (lambda b: b["steps"][3].pop("hash"),
     "step 4 (turn 3): invalid content: a played intent must have exactly the keys hash, "
     "intent (got intent)"),
    (lambda b: b["steps"].append({"options": {"tank_range": 9}, "hash": "0" * 64}),
     "step 6 (turn 4): invalid option change: options.tank_range: O6 tank_range must be a "
     "whole number 6..8 (got 9)"),
    (lambda b: b["steps"].append({"options": {"competitive": True, "tank_range": 8},
                                  "hash": "0" * 64}),
     "step 6 (turn 4): invalid content: R14.3: the switch to competitive may change no "
     "other option"),
    (lambda b: b["steps"][0]["intent"].update(to=[7, 5, 1.5]),
     "invalid content: unexpected float value"),
])
def test_altered_content_is_refused_naming_where(small, change, message):
    assert refusal(_edit(small, change)) == message


def test_a_body_that_is_not_a_map_is_refused():
    assert refusal(seal([1, 2, 3])) == "invalid content: the body is not a map"
    packed = b"\xc1"  # never valid msgpack
    envelope = msgpack.packb(["wec-save", 1, packed, hashlib.sha256(packed).digest()])
    assert refusal(envelope) == "invalid content: the body is not readable as msgpack"


# ---------------------------------------------------------------- files

def test_write_then_read_gives_the_match_back(tmp_path, long_game):
    path = tmp_path / "game.wecsave"
    write_save(path, long_game)
    assert path.read_bytes() == encode_save(long_game)
    assert_same_match(read_save(path), long_game)
    write_save(str(path), small_match())  # replacing an older save
    assert path.read_bytes() == encode_save(small_match())
    assert os.listdir(tmp_path) == ["game.wecsave"]


def _failing(error: BaseException) -> Any:
    def fail(*args: Any, **kwargs: Any) -> None:
        raise error
    return fail


@pytest.mark.parametrize("step, error, message", [
    ("replace", OSError(errno.EIO, "Input/output error"), "Input/output error"),
    ("fsync", OSError(errno.ENOSPC, "No space left on device"), "No space left on device"),
])
def test_a_failed_write_keeps_the_old_save_and_leaves_no_temporary_file(
        tmp_path, monkeypatch, step, error, message):
    """The disk fills up while writing, or the final rename fails: the old save is
    intact, readable, and alone in its folder."""
    path = tmp_path / "game.wecsave"
    write_save(path, small_match())
    old = path.read_bytes()
    monkeypatch.setattr(os, step, _failing(error))
    with pytest.raises(SaveError) as refused:
        write_save(path, small_match().play(EndTurn()))
    monkeypatch.undo()
    assert str(refused.value) == f"{path}: cannot write: {message}"
    assert path.read_bytes() == old
    assert os.listdir(tmp_path) == ["game.wecsave"]
    assert_same_match(read_save(path), small_match())


def test_an_interrupted_write_keeps_the_old_save(tmp_path, monkeypatch):
    """Ctrl-C in the middle of the write: the interruption goes on, the old file stays."""
    path = tmp_path / "game.wecsave"
    write_save(path, small_match())
    old = path.read_bytes()
    monkeypatch.setattr(os, "fsync", _failing(KeyboardInterrupt()))
    with pytest.raises(KeyboardInterrupt):
        write_save(path, small_match().play(EndTurn()))
    monkeypatch.undo()
    assert path.read_bytes() == old
    assert os.listdir(tmp_path) == ["game.wecsave"]


def test_writing_into_a_missing_folder_is_refused(tmp_path):
    path = tmp_path / "nowhere" / "game.wecsave"
    with pytest.raises(SaveError) as refused:
        write_save(path, small_match())
    assert str(refused.value) == f"{path}: cannot write: No such file or directory"
    assert os.listdir(tmp_path) == []


def test_writing_through_a_link_replaces_the_file_it_names(tmp_path):
    target = tmp_path / "real.wecsave"
    write_save(target, small_match())
    link = tmp_path / "latest.wecsave"
    link.symlink_to(target)
    write_save(link, small_match().play(EndTurn()))
    assert link.is_symlink()
    assert target.read_bytes() == encode_save(small_match().play(EndTurn()))


def test_reading_a_missing_file_names_it(tmp_path):
    path = tmp_path / "gone.wecsave"
    with pytest.raises(SaveError) as refused:
        read_save(path)
    assert str(refused.value) == f"{path}: cannot read: No such file or directory"


# ---------------------------------------------------------------- wec save-info

def test_save_info_prints_the_summary(tmp_path, capsys):
    path = tmp_path / "game.wecsave"
    write_save(path, small_match().with_options(Options(stun_duration=5)))
    assert main(["save-info", str(path)]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert json.loads(out) == {
        "sides": {"black": {"government": "monarchy"}, "white": {"government": "monarchy"}},
        "turn": 4, "side_to_act": "white", "mode": "non_competitive", "result": None,
        "actions": 5, "option_changes": 1, "fog_of_war": True,
        "options": options_to_dict(Options(stun_duration=5))}


@pytest.mark.parametrize("content, message", [
    (None, "cannot read: No such file or directory"),
    (b"{}", FOREIGN),
    ("small[:-40]", TRUNCATED),
    ("newer", "made by a newer wec: format 3, this wec reads up to 2"),
])
def test_save_info_refuses_a_bad_file_with_one_line(tmp_path, capsys, small, content, message):
    """The CLI contract: status 2, nothing on stdout, one stderr line naming the file."""
    path = tmp_path / "bad.wecsave"
    if content == "small[:-40]":
        content = small[:-40]
    elif content == "newer":
        content = seal(open_body(small), version=3)
    if content is not None:
        path.write_bytes(content)
    assert main(["save-info", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"wec save-info: {path}: {message}\n"
    if content is not None:
        assert path.read_bytes() == content
