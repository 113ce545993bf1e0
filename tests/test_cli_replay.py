"""``wec history`` and ``wec replay`` (issue 7 items 1, 4, 5): wec/commands/replay.py.

The CLI contract: a refusal exits with status 2, prints nothing on stdout and one line
on stderr naming the file and what is wrong (the first bad step and its turn for an
altered save, R14.3 for an unfinished competitive game). A notation file rebuilds the
game it was written from: the same position at the end of every turn.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import msgpack
import pytest

from wec.benchmarks.replay_bench import generate_match
from wec.cli import main
from wec.engine.encoding import state_hash
from wec.engine.intents import EndTurn
from wec.engine.match import Match
from wec.engine.notation import NotationError
from wec.engine.options import Options
from wec.engine.pieces import Side
from wec.engine.replay import Replay, match_from_notation, notation_file_text
from wec.engine.savegame import encode_save, position_in_engine_order
from wec.storage.saves import write_save

ALTERED = "the file was altered or made by a different engine version"
R14_3_HISTORY = ("R14.3: this competitive game is not over, so its full history is not "
                 "revealed yet; give --side black or --side white for that side's censored "
                 "copy")


@pytest.fixture(scope="module")
def game() -> Match:
    return generate_match(turns=24, seed=11)


@pytest.fixture
def save(tmp_path: Path, game: Match) -> Path:
    path = tmp_path / "game.wecsave"
    write_save(path, game)
    return path


def run(capsys: Any, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def turn_end_hashes(match: Match) -> list[str]:
    """The state hash after every end of turn, and at the end."""
    ends = [a.state_hash for a in match.actions if isinstance(a.intent, EndTurn)]
    return [*ends, match.current_hash]


# ---------------------------------------------------------------- history

def test_history_prints_one_turn_per_line(capsys, save, game):
    code, out, err = run(capsys, "history", str(save))
    assert (code, err) == (0, "")
    assert out.splitlines() == game.turn_notation()
    assert len(out.splitlines()) == 24


def test_history_of_one_side_is_censored(capsys, save, game):
    """R14.3: --side prints what that side may read; here it differs from the full
    history where the enemy acted unseen."""
    code, out, err = run(capsys, "history", str(save), "--side", "white")
    assert (code, err) == (0, "")
    assert out.splitlines() == game.turn_notation(Side.WHITE)
    assert out.splitlines() != game.turn_notation()


def test_an_unfinished_competitive_game_needs_a_side(capsys, tmp_path):
    match = generate_match(turns=4, seed=8).go_competitive()
    path = tmp_path / "competitive.wecsave"
    write_save(path, match)
    code, out, err = run(capsys, "history", str(path))
    assert (code, out) == (2, "")
    assert err == f"wec history: {path}: {R14_3_HISTORY}\n"
    code, out, err = run(capsys, "history", str(path), "--side", "black")
    assert (code, err) == (0, "")
    assert out.splitlines() == match.turn_notation(Side.BLACK)
    code, out, err = run(capsys, "replay", str(path))
    assert (code, out) == (2, "")
    assert err == (f"wec replay: {path}: R14.3: this competitive game is not over: its full "
                   "history is revealed when the game ends, so it cannot be replayed yet\n")


def test_history_refuses_an_altered_save_at_its_first_bad_step(capsys, tmp_path, game):
    envelope = msgpack.unpackb(encode_save(game), raw=False)
    body = msgpack.unpackb(envelope[2], raw=False)
    body["steps"][41]["hash"] = "f" * 64
    packed = msgpack.packb(body, use_bin_type=True)
    path = tmp_path / "altered.wecsave"
    path.write_bytes(msgpack.packb(["wec-save", 2, packed, hashlib.sha256(packed).digest()],
                                   use_bin_type=True))
    turn = game.actions[41].turn
    for command in (["history"], ["replay", "--verify"]):
        code, out, err = run(capsys, *command, str(path))
        assert (code, out) == (2, "")
        assert err == (f"wec {command[0]}: {path}: step 42 (turn {turn}): state hash "
                       f"differs: {ALTERED}\n")


# ---------------------------------------------------------------- notation files

def test_a_notation_file_rebuilds_the_game(capsys, tmp_path, save, game):
    """Save -> notation file -> the game rebuilt by the rules: the same position after
    every turn (the order inside a turn is not written, R4.6) and the same steps."""
    out_path = tmp_path / "game.wecn"
    code, out, err = run(capsys, "history", str(save), "--out", str(out_path))
    assert (code, err) == (0, "")
    assert out == f"wrote {out_path}: 24 turn(s) in R16 notation\n"
    text = out_path.read_text(encoding="utf-8")
    assert text == "\n".join(['[Format "wec-notation/1"]', '[Start "standard"]',
                              *game.turn_notation()]) + "\n"
    rebuilt = match_from_notation(text)
    assert turn_end_hashes(rebuilt) == turn_end_hashes(game)
    assert len(rebuilt.actions) == len(game.actions)
    assert rebuilt.current == game.current
    code, out, err = run(capsys, "replay", "--notation", "--verify", str(out_path))
    assert (code, err) == (0, "")
    assert out == (f"ok: {len(game.actions)} steps, 24 turns, every turn rebuilt by the "
                   "rules and written back as recorded\n")


def test_a_game_from_another_start_keeps_it_in_the_file(game):
    """A start that is not the standard one (here turn 9 of a game, with other options)
    is written as position data, in engine order, and read back as such."""
    first_of_turn_9 = next(n for n, a in enumerate(game.actions, start=1) if a.turn == 9)
    start = game.position_at(first_of_turn_9 - 1).evolve(options=Options(tank_range=8))
    later = _play_a_few_turns(Match.begin(start))
    text = notation_file_text(Replay.of_match(later))
    assert text.splitlines()[1] == f"[Start {_json(position_in_engine_order(start))}]"
    rebuilt = match_from_notation(text)
    assert position_in_engine_order(rebuilt.start) == position_in_engine_order(start)
    assert turn_end_hashes(rebuilt) == turn_end_hashes(later)


def _play_a_few_turns(match: Match) -> Match:
    """Three whole turns of the first legal intents (a Move, then the end)."""
    from wec.engine.game import legal_intents
    from wec.engine.intents import Move

    for _ in range(3):
        move = next(i for i in legal_intents(match.current) if isinstance(i, Move))
        match = match.play(move).play(EndTurn())
    return match


def _json(value: Any) -> str:
    import json

    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def test_a_standard_start_with_options_writes_them(game):
    from wec.engine.setup import standard_position

    options = Options(tank_range=6)
    match = _play_a_few_turns(Match.begin(standard_position(options)))
    text = notation_file_text(Replay.of_match(match))
    assert text.splitlines()[:3] == ['[Format "wec-notation/1"]', '[Start "standard"]',
                                     '[Options {"tank_range":6}]']
    assert match_from_notation(text).current == match.current


def test_a_censored_copy_cannot_rebuild_the_game(capsys, tmp_path, save):
    out_path = tmp_path / "black.wecn"
    code, out, err = run(capsys, "history", str(save), "--side", "black", "--out",
                         str(out_path))
    assert (code, err) == (0, "")
    assert out_path.read_text().splitlines()[2] == '[View "black"]'
    code, out, err = run(capsys, "replay", "--notation", "--verify", str(out_path))
    assert (code, out) == (2, "")
    assert err == (f"wec replay: {out_path}: R14.3: this is black's censored copy: the "
                   "pieces hidden from that side are missing, so it cannot rebuild the game\n")


def test_a_game_with_an_option_change_has_no_notation_file(capsys, tmp_path, game):
    changed = game.with_options(Options(stun_duration=5))
    path = tmp_path / "options.wecsave"
    write_save(path, changed)
    step = len(game.actions) + 1
    turn = game.current.turn
    code, out, err = run(capsys, "history", str(path), "--out", str(tmp_path / "x.wecn"))
    assert (code, out) == (2, "")
    assert err == (f"wec history: R16: step {step} (turn {turn}) changes the options (R14.2) "
                   "and the notation has no code for that, so a notation file cannot "
                   "rebuild this game\n")
    assert not (tmp_path / "x.wecn").exists()


@pytest.mark.parametrize("text, message", [
    ("MV:K(10,6)->(10,5)\n",
     'not a wec notation file: the first tag must be [Format "wec-notation/1"]'),
    ('[Format "wec-notation/1"]\nMV:K(10,6)->(10,5)\n[Start "standard"]\n',
     "line 3: the tag '[Start \"standard\"]' comes after the first turn: tags are [Name "
     "VALUE] lines before the first turn"),
    ('[Format "wec-notation/1"]\n[Start standard]\n',
     "line 2: tag Start: the value is not JSON (Expecting value)"),
    ('[Format "wec-notation/1"]\n[Start]\n',
     "line 2: the tag '[Start]' is malformed: tags are [Name VALUE] lines before the first "
     "turn"),
    ('[Format "wec-notation/1"]\n[Start {"turn": 0}]\n',
     "start: format: expected 'wec-position/1' (got None)"),
    ('[Format "wec-notation/1"]\nMV:K(10,6)-(10,5)\n',
     "line 2: R16.1: expected '->' at column 11, found '-(10,5)'"),
])
def test_a_bad_notation_file_is_refused_naming_the_line(text, message):
    with pytest.raises(NotationError) as refused:
        match_from_notation(text)
    assert str(refused.value) == message


def test_a_notation_turn_that_does_not_replay_names_the_turn():
    text = '[Format "wec-notation/1"]\n[Start "standard"]\nMV:K(10,6)->(5,5)\n'
    with pytest.raises(NotationError) as refused:
        match_from_notation(text)
    assert str(refused.value).startswith("turn 1 (T=1): no order of its actions is legal "
                                         "and writes back 'MV:K(10,6)->(5,5)'")


# ---------------------------------------------------------------- replay

def test_replay_verify_says_ok(capsys, save, game):
    code, out, err = run(capsys, "replay", "--verify", str(save))
    assert (code, err) == (0, "")
    assert out == f"ok: {len(game.actions)} steps, 24 turns, hashes match\n"


def test_replay_refuses_a_missing_or_foreign_file_before_any_window(capsys, tmp_path):
    missing = tmp_path / "missing.wecsave"
    assert run(capsys, "replay", str(missing)) == (
        2, "", f"wec replay: {missing}: no such file\n")
    foreign = tmp_path / "notes.txt"
    foreign.write_bytes(b"just text")
    assert run(capsys, "replay", str(foreign)) == (
        2, "", f"wec replay: {foreign}: not a wec saved game (it does not start with the "
               "wec-save header)\n")


def test_the_rebuilt_game_saves_and_replays(tmp_path, game):
    """A game rebuilt from notation is an ordinary match: saved, opened, verified."""
    rebuilt = match_from_notation(notation_file_text(Replay.of_match(game)))
    replay = Replay.open(encode_save(rebuilt))
    verification = replay.verify(10_000)
    assert (verification.done, verification.error) == (True, None)
    assert state_hash(replay.position(replay.length)) == game.current_hash
