"""The replay (issue 7 items 3 and 4): engine/replay.py over the wec-save format.

A replay must show, at every index, exactly the position the game reached (state hash,
every field, the pieces' identifiers a client follows), step back exactly, and refuse
every altered file at its first bad step and turn: a tampered hash, intent, snapshot or
notation line, whether found by seeking or by the full check from the start. Games
are random with every action kind, kept going by the benchmark's generator
(benchmarks/replay_bench.py); the match plays every intent itself. Opening time is a
benchmark (wec bench replay), not a test.
"""

from __future__ import annotations

import hashlib
import random
import zlib
from typing import Any

import msgpack
import pytest

from wec.benchmarks.replay_bench import generate_match
from wec.engine.encoding import state_hash
from wec.engine.errors import ReplayIntegrityError, ReplayRefused, SaveError
from wec.engine.formats import intent_to_dict
from wec.engine.game import legal_intents
from wec.engine.intents import EndTurn, Fire, Move
from wec.engine.knowledge import view
from wec.engine.match import Match, OptionChange
from wec.engine.options import Options
from wec.engine.pieces import ArticleKind, PieceKind, Side
from wec.engine.playout import play_turn
from wec.engine.position import Position
from wec.engine.replay import Replay, StepInfo
from wec.engine.savegame import (
    SNAPSHOT_INTERVAL,
    decode_save,
    decode_snapshot,
    encode_save,
    expand_snapshot,
    read_content,
)
from wec.engine.setup import standard_position

ALTERED = "the file was altered or made by a different engine version"


# ---------------------------------------------------------------- games and files

@pytest.fixture(scope="module")
def games() -> list[Match]:
    """Three random games of 30 turns (about 150 steps, every action kind)."""
    return [generate_match(turns=30, seed=seed) for seed in (1, 2, 3)]


@pytest.fixture(scope="module")
def game(games: list[Match]) -> Match:
    return games[0]


@pytest.fixture(scope="module")
def saved(game: Match) -> bytes:
    return encode_save(game)


def finished_competitive_game() -> Match:
    """A game switched to competitive mode after 6 turns (R14.3, a step of its own),
    then played at random until a King falls (R12.1)."""
    for seed in range(2, 12):
        played = [generate_match(turns=6, seed=seed).go_competitive()]
        rng = random.Random(seed)

        def observe(before: Position, intent: Any, outcome: Any,
                    played: list[Match] = played) -> None:
            played.append(played[-1].play(intent))

        current = played[0].current
        for _ in range(200):
            current = play_turn(current, rng, observe)
            if current.result is not None:
                return played[-1]
    raise AssertionError("no seed finished its game")


def open_body(data: bytes) -> tuple[int, dict[str, Any]]:
    envelope = msgpack.unpackb(data, raw=False)
    return envelope[1], msgpack.unpackb(envelope[2], raw=False)


def seal(body: dict[str, Any], version: int = 2) -> bytes:
    """A save around ``body`` with a correct checksum: what someone altering a save
    by hand does to get past the checksum."""
    packed = msgpack.packb(body, use_bin_type=True)
    return msgpack.packb(["wec-save", version, packed, hashlib.sha256(packed).digest()],
                         use_bin_type=True)


def snapshot_content(body: dict[str, Any], step: int) -> tuple[int, dict[str, Any]]:
    """The place in the body's snapshot list of the snapshot of ``step``, decoded."""
    at = next(i for i, (number, _) in enumerate(body["snapshots"]) if number == step)
    return at, msgpack.unpackb(zlib.decompress(body["snapshots"][at][1]), raw=False)


def verify_all(replay: Replay) -> Any:
    verification = replay.verify(0)
    while not verification.done:
        verification = replay.verify(64)
    return verification


def first_non_snapshot_step(game: Match, after: int) -> int:
    """A step from ``after`` on that is not snapshotted, nor is the step after it."""
    return next(n for n in range(after, len(game.actions))
                if n % SNAPSHOT_INTERVAL not in (0, SNAPSHOT_INTERVAL - 1))


# ---------------------------------------------------------------- seeking

def test_a_long_game_is_saved_with_snapshots_and_notation(game, saved):
    """Version 2: a snapshot every 8 steps and after the last; the notation of every
    turn, full and censored for each side (docs/formats.md)."""
    version, body = open_body(saved)
    assert version == 2
    assert sorted(body) == ["intent_format", "mode", "notation", "snapshots", "start",
                            "start_hash", "steps"]
    length = len(game.actions)
    expected = list(range(8, length + 1, 8)) + ([length] if length % 8 else [])
    assert [number for number, _ in body["snapshots"]] == expected
    assert body["notation"] == {"full": game.turn_notation(None),
                                "black": game.turn_notation(Side.BLACK),
                                "white": game.turn_notation(Side.WHITE)}


def test_every_snapshot_decodes_to_the_very_position(game, saved):
    """Every field equal, the pieces' identifiers, the order of locks, actors and
    last-seen markers included, not only the state hash."""
    content = read_content(saved)
    for number, blob in content.snapshots.items():
        decoded = decode_snapshot(expand_snapshot(blob, "here"), "here")
        assert decoded == game.position_at(number), number
        assert state_hash(decoded) == game.hash_at(number)


def test_seeking_anywhere_gives_the_match_position(games):
    """At every index, visited in a random order: the very position the match reached
    (every field and identifier), its hash, and the events each side saw of the step."""
    for seed, game in enumerate(games):
        replay = Replay.open(encode_save(game))
        assert replay.length == len(game.actions)
        order = list(range(len(game.actions) + 1))
        random.Random(seed).shuffle(order)
        for index in order:
            assert replay.position(index) == game.position_at(index), (seed, index)
            assert replay.state_hash(index) == game.hash_at(index)
        for number, action in enumerate(game.actions, start=1):
            assert replay.events(number, None) == action.events
            assert replay.events(number, Side.BLACK) == action.events_for(Side.BLACK)
            assert replay.events(number, Side.WHITE) == action.events_for(Side.WHITE)


def test_a_fresh_seek_to_every_index_matches(game, saved):
    """Each index on a newly opened replay: from its snapshot alone."""
    for index in range(0, len(game.actions) + 1, 5):
        assert Replay.open(saved).position(index) == game.position_at(index), index


def test_stepping_back_is_exact(game, saved):
    """From the end back to the start, one step at a time, and one step back after a
    seek to each index: the same positions and hashes as the match."""
    replay = Replay.open(saved)
    for index in range(len(game.actions), -1, -1):
        assert replay.position(index) == game.position_at(index)
        assert state_hash(replay.position(index)) == game.hash_at(index)
    for index in range(1, len(game.actions) + 1, 3):
        fresh = Replay.open(saved)
        fresh.position(index)
        assert fresh.position(index - 1) == game.position_at(index - 1), index


def test_views_are_what_each_side_knew(game, saved):
    """R9: the perspective selector shows the side's view at that moment."""
    replay = Replay.open(saved)
    for index in (0, 17, len(game.actions)):
        assert replay.view(index, None) == game.position_at(index)
        for side in (Side.BLACK, Side.WHITE):
            seen = replay.view(index, side)
            assert seen.viewer is side
            assert state_hash(seen) == state_hash(view(game.position_at(index), side))


def test_steps_turns_and_notation_are_known_at_once(game, saved):
    replay = Replay.open(saved)
    assert [(s.number, s.turn, s.side, s.intent) for s in replay.steps] == [
        (n, a.turn, a.side, a.intent) for n, a in enumerate(game.actions, start=1)]
    starts = [0] + [n for n, a in enumerate(game.actions, start=1)
                    if isinstance(a.intent, EndTurn) and n < len(game.actions)]
    assert replay.turn_starts == tuple(starts)
    assert replay.turns == 30
    assert replay.turn_notation() == game.turn_notation()
    assert replay.turn_notation(Side.WHITE) == game.turn_notation(Side.WHITE)
    assert replay.finished is False
    assert replay.competitive is False
    assert replay.start == game.start


def test_verification_runs_in_slices_to_the_end(game, saved):
    replay = Replay.open(saved)
    first = replay.verify(10)
    assert (first.checked, first.total, first.error, first.done) == (
        10, len(game.actions), None, False)
    assert replay.verify(0).checked == 10
    last = verify_all(replay)
    assert (last.checked, last.error, last.done) == (len(game.actions), None, True)
    assert replay.verify(5) == last


def test_step_summaries_are_plain_language():
    match = (Match.begin(standard_position())
             .play(Fire(262, ArticleKind.FLAME, dir=(0, 1), kind=PieceKind.FLAME_PAWN))
             .play(Move(259, 232, PieceKind.CONVERSION_PAWN)).play(EndTurn()))
    infos = Replay.of_match(match).steps
    assert infos[1] == StepInfo(2, 1, Side.BLACK, Move(259, 232, PieceKind.CONVERSION_PAWN))
    assert [info.summary for info in infos] == [
        "Black Flame Pawn (9,8) ground fires flame toward column 10",
        "Black Conversion Pawn (9,7) ground -> (8,8) ground",
        "Black ends turn 1"]


# ---------------------------------------------------------------- other sources

def test_a_short_game_is_written_and_opened_as_version_1():
    """Fewer than 8 steps: nothing to snapshot, a version 1 file any wec reads."""
    match = generate_match(turns=1, seed=5)
    assert len(match.actions) < SNAPSHOT_INTERVAL
    data = encode_save(match)
    assert open_body(data)[0] == 1
    replay = Replay.open(data)
    assert [replay.position(i) for i in range(replay.length + 1)] == [
        match.position_at(i) for i in range(len(match.actions) + 1)]
    assert replay.verify(0).done


def test_a_long_version_1_file_opens(game, saved):
    """A version 1 file of a long game (an older wec wrote no snapshots): checked in
    full when opened, then every position at hand."""
    _, body = open_body(saved)
    del body["snapshots"], body["notation"]
    replay = Replay.open(seal(body, version=1))
    assert replay.position(77) == game.position_at(77)
    assert replay.turn_notation(Side.BLACK) == game.turn_notation(Side.BLACK)
    assert replay.verify(1) == replay.verify(0)
    assert replay.verify(0).done and replay.verify(0).error is None
    body["steps"][60]["hash"] = "0" * 64
    with pytest.raises(ReplayIntegrityError) as refused:
        Replay.open(seal(body, version=1))
    assert str(refused.value) == (f"step 61 (turn {game.actions[60].turn}): state hash "
                                  f"differs: {ALTERED}")


def test_a_game_in_memory_replays_without_a_file(game):
    replay = Replay.of_match(game)
    assert replay.position(33) is game.position_at(33)
    assert replay.events(33, Side.WHITE) == game.actions[32].events_for(Side.WHITE)
    assert replay.verify(0).checked == len(game.actions)


def test_load_game_still_checks_everything(game, saved):
    """decode_save (Load game) replays every step and now compares the snapshots too."""
    assert decode_save(saved).actions == game.actions
    _, body = open_body(saved)
    at, content = snapshot_content(body, 16)
    content["ids"]["pids"] = [pid + 1000 for pid in content["ids"]["pids"]]
    content["ids"]["next_pid"] += 1000
    body["snapshots"][at][1] = zlib.compress(msgpack.packb(content, use_bin_type=True))
    turn = game.actions[15].turn
    with pytest.raises(SaveError) as refused:
        decode_save(seal(body))
    assert str(refused.value) == (f"step 16 (turn {turn}): snapshot differs from the "
                                  f"replayed position: {ALTERED}")


# ---------------------------------------------------------------- integrity

def test_a_tampered_hash_is_refused_at_its_step(game, saved):
    """Found by the full check and by showing that step; the steps before still show,
    no step from it on does."""
    step = first_non_snapshot_step(game, 40)
    turn = game.actions[step - 1].turn
    _, body = open_body(saved)
    body["steps"][step - 1]["hash"] = "0" * 64
    message = f"step {step} (turn {turn}): state hash differs: {ALTERED}"
    replay = Replay.open(seal(body))
    assert replay.position(step + 1) == game.position_at(step + 1)  # passed, not shown
    with pytest.raises(ReplayIntegrityError) as refused:
        replay.position(step)
    assert (str(refused.value), refused.value.step, refused.value.turn) == (
        message, step, turn)
    verification = verify_all(Replay.open(seal(body)))
    assert (verification.checked, verification.done) == (step - 1, True)
    assert str(verification.error) == message
    assert Replay.open(seal(body)).position(step - 1) == game.position_at(step - 1)


def test_a_tampered_intent_is_refused_at_its_step(game, saved):
    """Another legal intent: the replay of that step reaches another position, whether
    seeking across it or checking from the start; an impossible one breaks a rule."""
    step = first_non_snapshot_step(game, 50)
    turn = game.actions[step - 1].turn
    before = game.position_at(step - 1)
    other = next(i for i in legal_intents(before)
                 if i != game.actions[step - 1].intent
                 and state_hash(Match.begin(before).play(i).current) != game.hash_at(step))
    _, body = open_body(saved)
    body["steps"][step - 1]["intent"] = intent_to_dict(other)
    message = f"step {step} (turn {turn}): state hash differs: {ALTERED}"
    with pytest.raises(ReplayIntegrityError) as refused:
        Replay.open(seal(body)).position(step + 1)
    assert (str(refused.value), refused.value.step) == (message, step)
    assert str(verify_all(Replay.open(seal(body))).error) == message
    body["steps"][step - 1]["intent"] = {"act": "move", "from": [1, 1, "ground"],
                                         "to": [9, 9, "ground"]}
    verification = verify_all(Replay.open(seal(body)))
    assert verification.error is not None
    assert str(verification.error).startswith(f"step {step} (turn {turn}): illegal intent: R")


def test_a_tampered_snapshot_is_refused_at_its_step(game, saved):
    """Another position under the right hash is caught when that snapshot is used; the
    right position with other identifiers (same hash) by the byte-for-byte check."""
    _, body = open_body(saved)
    turn = game.actions[23].turn
    at, _ = snapshot_content(body, 24)
    _, earlier = snapshot_content(body, 16)
    body["snapshots"][at][1] = zlib.compress(msgpack.packb(earlier, use_bin_type=True))
    with pytest.raises(ReplayIntegrityError) as refused:
        Replay.open(seal(body)).position(26)
    assert str(refused.value) == f"step 24 (turn {turn}): snapshot: state hash differs: {ALTERED}"
    assert refused.value.step == 24

    _, body = open_body(saved)
    at, content = snapshot_content(body, 24)
    content["ids"]["pids"] = [pid + 1000 for pid in content["ids"]["pids"]]
    content["ids"]["next_pid"] += 1000
    body["snapshots"][at][1] = zlib.compress(msgpack.packb(content, use_bin_type=True))
    verification = verify_all(Replay.open(seal(body)))
    assert verification.checked == 23
    assert str(verification.error) == (f"step 24 (turn {turn}): snapshot differs from the "
                                       f"replayed position: {ALTERED}")


def test_a_tampered_notation_line_is_refused_at_the_end_of_its_turn(game, saved):
    _, body = open_body(saved)
    body["notation"]["black"][4] = "MV:KI(10,6)->(10,5)"
    fifth_end = [n for n, a in enumerate(game.actions, start=1)
                 if isinstance(a.intent, EndTurn)][4]
    turn = game.actions[fifth_end - 1].turn
    verification = verify_all(Replay.open(seal(body)))
    assert str(verification.error) == (f"step {fifth_end} (turn {turn}): notation (black) "
                                       f"of turn {turn} differs from the replayed game: "
                                       f"{ALTERED}")


def test_a_damaged_file_is_refused_as_decode_save_does(saved):
    damaged = bytearray(saved)
    damaged[len(saved) // 2] ^= 0x01
    with pytest.raises(SaveError) as refused:
        Replay.open(bytes(damaged))
    assert str(refused.value) == "corrupted: checksum mismatch (the file was damaged or altered)"
    newer = msgpack.packb(["wec-save", 3, b"", b"\x00" * 32])
    with pytest.raises(SaveError) as refused:
        Replay.open(newer)
    assert str(refused.value) == "made by a newer wec: format 3, this wec reads up to 2"


# ---------------------------------------------------------------- R14.3

def test_an_unfinished_competitive_game_is_not_replayed():
    match = generate_match(turns=4, seed=8).go_competitive()
    data = encode_save(match)
    message = ("R14.3: this competitive game is not over: its full history is revealed "
               "when the game ends, so it cannot be replayed yet")
    with pytest.raises(ReplayRefused) as refused:
        Replay.open(data)
    assert str(refused.value) == message
    with pytest.raises(ReplayRefused):
        Replay.of_match(match)
    censored = Replay.open(data, allow_unfinished_competitive=True)
    assert censored.turn_notation(Side.BLACK) == match.turn_notation(Side.BLACK)
    for peek in (lambda: censored.position(1), lambda: censored.view(1, Side.BLACK),
                 lambda: censored.events(1, None), lambda: censored.turn_notation(None)):
        with pytest.raises(ReplayRefused):
            peek()
    assert (censored.competitive, censored.finished, censored.replayable) == (
        True, False, False)


def test_a_finished_competitive_game_is_replayed_in_full():
    match = finished_competitive_game()
    replay = Replay.open(encode_save(match))
    assert (replay.competitive, replay.finished, replay.replayable) == (True, True, True)
    switch = next(info for info in replay.steps if isinstance(info.intent, OptionChange))
    assert switch.intent == OptionChange(Options(competitive=True))
    assert switch.summary == f"{switch.side.title} switches the game to competitive mode (R14.3)"
    assert replay.position(replay.length) == match.current
    assert replay.position(switch.number) == match.position_at(switch.number)
    assert verify_all(replay).error is None
    assert replay.verify(5) == replay.verify(0) == replay.verify(5)  # done stays done
    assert replay.turn_notation() == match.turn_notation()


def test_verifying_in_a_thread_while_seeking(game, saved):
    """The client may verify from a thread: seeks meanwhile still show the match."""
    import threading

    replay = Replay.open(saved)
    results = []
    worker = threading.Thread(target=lambda: results.append(verify_all(replay)))
    worker.start()
    order = list(range(len(game.actions) + 1))
    random.Random(9).shuffle(order)
    for index in order[:60]:
        assert replay.position(index) == game.position_at(index)
    worker.join()
    assert (results[0].checked, results[0].error) == (len(game.actions), None)
