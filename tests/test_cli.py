"""The ``wec`` command end to end, through the installed console script."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

WEC = str(Path(sys.executable).with_name("wec"))
COMMANDS = ("position", "moves", "act", "legal", "half", "view", "hash", "play", "shot",
            "save-info", "bench")


def wec(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([WEC, *args], input=stdin, capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def start_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("cli") / "start.json"
    done = wec("position", "standard")
    assert done.returncode == 0
    path.write_text(done.stdout)
    return path


def test_help_lists_every_command_and_each_has_help():
    listing = wec("--help")
    assert listing.returncode == 0
    for command in COMMANDS:
        assert command in listing.stdout
        assert wec(command, "--help").returncode == 0


def test_standard_position_is_the_r15_setup(start_file):
    data = json.loads(start_file.read_text())
    assert data["format"] == "wec-position/1" and data["turn"] == 1
    assert len(data["pieces"]) == 56 and len(data["articles"]) == 68
    assert {"side": "white", "kind": "tank", "at": [1, 1], "level": "ground",
            "hand": "right"} in data["pieces"]


def test_moves_pipeline_from_standard_input():
    start = wec("position", "standard").stdout
    done = wec("moves", "/dev/stdin", "--at", "9,2", stdin=start)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [[7, 4, "ground"], [8, 1, "ground"], [8, 3, "ground"]]
    chopper = wec("moves", "-", "--at", "10,4,ground", "--kind", "chopper", stdin=start)
    assert json.loads(chopper.stdout) == [
        [8, 2, "air"], [8, 2, "ground"], [8, 5, "air"], [8, 5, "ground"],
        [8, 6, "air"], [8, 6, "ground"], [9, 2, "air"], [9, 2, "ground"]]


def test_moves_of_the_side_not_to_act_is_refused_with_the_rule(start_file):
    done = wec("moves", str(start_file), "--at", "1,1")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == ("wec moves: R4.1: it is Black's turn (turn 1); (1,1) ground holds "
                           "White's Tank\n")


def test_act_plays_a_turn_and_prints_the_position(start_file):
    done = wec("act", str(start_file),
               '{"act": "move", "from": [9, 2, "ground"], "to": [7, 4, "ground"]}',
               '{"act": "end"}')
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["turn"] == 2
    assert {"side": "black", "kind": "stunner_pawn", "at": [7, 4], "level": "ground",
            "moved": True} in data["pieces"]


@pytest.mark.parametrize(("intents", "message"), [
    (['{"act": "end"}'],
     "wec act: intent 1: R4.4: Black must make a Move before ending the turn"),
    (['{"act": "move", "from": [10, 1, "ground"], "to": [3, 4, "ground"]}'],
     "wec act: intent 1: R5.2.2: path blocked at (9,1) ground"),
    (['{"act": "move", "from": [9, 2], "to": [8, 1]}',
      '{"act": "move", "from": [9, 4], "to": [8, 3]}'],
     "wec act: intent 2: R4.3: Black has already made this turn's Move"),
    (['{"act": "fly"}'], "wec act: intent 1: intent.act: expected one of move, end, pickup, "
                         "drop, exchange, reinforce, fire, doze (got 'fly')"),
    (['{"act": "move", "from": [11, 2, "ground"], "to": [8, 1, "ground"]}'],
     "wec act: intent 1: intent.from: expected [row, col, level] with row and col 1..10 and "
     "level air, ground or sub (got [11, 2, 'ground'])"),
    (['not json'], "wec act: intent 1: not valid JSON: Expecting value"),
])
def test_act_refusals_exit_2_with_one_line_and_leave_the_file_alone(start_file, intents, message):
    before = hashlib.sha256(start_file.read_bytes()).hexdigest()
    done = wec("act", str(start_file), *intents)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", message + "\n")
    assert hashlib.sha256(start_file.read_bytes()).hexdigest() == before


@pytest.mark.parametrize(("content", "message"), [
    ("{", "not valid JSON: line 1 column 2: Expecting property name enclosed in double quotes"),
    ('{"format": "wec-position/2", "pieces": []}',
     "format: 'wec-position/2' is not readable by this version of wec (it reads "
     "wec-position/1)"),
    ('{"format": "wec-position/1", "pieces": [{"side": "white", "kind": "tank", "at": [1, 1]}]}',
     "pieces[0].hand: a tank is handed (R2.3): give \"hand\": \"right\" or \"left\""),
    ('{"format": "wec-position/1", "pieces": [{"side": "white", "kind": "king", "at": [1, 1]},'
     ' {"side": "white", "kind": "queen", "at": [1, 1]}]}',
     "pieces[1]: R1.6: king and queen share (1,1) ground but neither can coexist"),
    ('{"format": "wec-position/1", "pieces": [], "options": {"tank_range": 9}}',
     "options.tank_range: O6 tank_range must be a whole number 6..8 (got 9)"),
    ('{"format": "wec-position/1", "pieces": [], "colour": "red"}',
     "position.colour: unknown field (known: format, turn, options, pieces, articles, "
     "reinforcements, turn_start_squares, locks, projectiles, hits_this_turn, "
     "actions_this_turn, result, viewer, last_seen, next_id)"),
])
def test_malformed_files_are_refused_with_the_field(tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_text(content)
    done = wec("act", str(path), '{"act": "end"}')
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"wec act: {path}: {message}\n"
    assert path.read_text() == content


def test_legal_lists_moves_then_end_after_the_move(start_file):
    legal = json.loads(wec("legal", str(start_file)).stdout)
    acts = Counter(intent["act"] for intent in legal)
    # no articles within reach; every ready weapon in every direction it can go
    assert acts == {"move": 108, "doze": 22, "fire": 136}
    to_articles = {"act": "move", "from": [9, 2, "ground"], "to": [8, 1, "ground"],
                   "kind": "stunner_pawn"}
    assert to_articles in legal
    moved = wec("act", str(start_file), json.dumps(to_articles)).stdout
    # (8,1) holds a Stealth article (R15.2): now Pick-up it, or end the turn.
    after = json.loads(wec("legal", "-", stdin=moved).stdout)
    assert [i for i in after if i["act"] != "fire"] == [
        {"act": "pickup", "from": [8, 1, "ground"], "article": "stealth",
         "kind": "stunner_pawn"},
        {"act": "end"}]


def test_hash_matches_the_engine(start_file):
    from wec.engine import standard_position, state_hash

    done = wec("hash", str(start_file))
    assert done.stdout.strip() == state_hash(standard_position())


def test_every_command_module_is_registered() -> None:
    """wec.cli names its command modules (a frozen app bundle cannot list a folder):
    every module in wec/cli/commands is named, so none of its commands goes missing."""
    import pkgutil

    from wec.cli import COMMAND_MODULES
    from wec.cli import commands as package

    found = sorted(info.name for info in pkgutil.iter_modules(package.__path__))
    assert list(COMMAND_MODULES) == found


# ---------------------------------------------------------------- half states (issue 17)

def test_half_prints_what_one_sides_machine_holds(start_file):
    black = json.loads(wec("half", str(start_file), "--side", "black").stdout)
    assert black["viewer"] == "black" and black["next_id"] == 56
    kinds = Counter((p["side"], p["kind"]) for p in black["pieces"])
    assert kinds[("white", "aaa")] == 0 and kinds[("black", "aaa")] == 2  # R15.3
    assert all("id" in p and "hidden" not in p for p in black["pieces"])
    assert all(r.get("kind") is None for r in black["reinforcements"] if r["side"] == "white")
    refused = wec("half", str(start_file), "--side", "grey")
    assert refused.returncode == 2 and refused.stdout == ""


def test_act_with_a_peer_resolves_as_the_two_machines_would(start_file, tmp_path):
    """The two half states, each resolving every intent with the other as its referee,
    reach exactly the half states of the full-state result (``wec half`` of ``wec act``)."""
    halves = {}
    for side in ("black", "white"):
        halves[side] = tmp_path / f"{side}.json"
        halves[side].write_text(wec("half", str(start_file), "--side", side).stdout)
    intents = ['{"act": "move", "from": [9,3,"ground"], "to": [8,4,"ground"], '
               '"kind": "flame_pawn"}', '{"act": "end"}',
               '{"act": "move", "from": [2,3,"ground"], "to": [3,3,"ground"], "kind": "aaa"}']
    done = wec("act", str(halves["white"]), "--peer", str(halves["black"]), "--events",
               *intents)
    assert done.returncode == 0, done.stderr
    both = json.loads(done.stdout)
    full = tmp_path / "after.json"
    full.write_text(wec("act", str(start_file), *intents).stdout)
    for side in ("black", "white"):
        # a full-state file has no identifiers: read back, its pieces take their order's
        expected = json.loads(wec("half", str(full), "--side", side).stdout)
        assert _anonymous(both[side]["position"]) == _anonymous(expected)
    # Black never sees White's AAA (stealthy, R9.2): its stream leaves the AAA's Move out
    assert [e["event"] for e in both["black"]["events"]] == ["moved", "turn_ended"]
    assert [e["event"] for e in both["white"]["events"]] == ["moved", "turn_ended", "moved"]


def test_act_with_a_peer_refuses_halves_that_do_not_fit(start_file, tmp_path):
    black = tmp_path / "black.json"
    black.write_text(wec("half", str(start_file), "--side", "black").stdout)
    later = json.loads(wec("half", str(start_file), "--side", "white").stdout)
    later["turn"] = 3
    white = tmp_path / "white.json"
    white.write_text(json.dumps(later))
    for peer, message in (
            (black, "both files are black's half state; give the other side's with --peer"),
            (start_file, "a half state names its side (\"viewer\"); this is the full state "
                         "(wec half FILE --side SIDE writes a half state)"),
            (white, "the two half states differ in their public part: turn (black's 1, "
                    "white's 3)")):
        done = wec("act", str(black), "--peer", str(peer), '{"act": "end"}')
        assert (done.returncode, done.stdout) == (2, "")
        assert done.stderr == f"wec act: {message}\n"


def _anonymous(half: dict) -> dict:
    """A half state's JSON without the identifiers (the same state, named otherwise)."""
    out = {key: value for key, value in half.items() if key != "next_id"}
    out["pieces"] = [{k: v for k, v in p.items() if k != "id"} for p in half["pieces"]]
    return out
