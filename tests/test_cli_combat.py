"""``wec act`` and ``wec legal`` with every action kind (issue 3)."""

from __future__ import annotations

import io
import json
import random
import subprocess
import sys
from contextlib import redirect_stdout
from pathlib import Path

from wec.cli import main

WEC = str(Path(sys.executable).with_name("wec"))

EX18 = {"format": "wec-position/1", "turn": 2, "pieces": [
    {"side": "white", "kind": "tank", "at": [5, 5], "hand": "right"},
    {"side": "black", "kind": "rocket_pawn", "at": [6, 5]},
    {"side": "black", "kind": "jet", "at": [6, 5], "level": "air"},
    {"side": "white", "kind": "dozer", "at": [7, 5]},
    {"side": "black", "kind": "king", "at": [10, 1]},
    {"side": "white", "kind": "king", "at": [1, 1]}]}
FLAME_UP = '{"act": "fire", "from": [5, 5, "ground"], "weapon": "flame", "dir": [1, 0]}'


def wec(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([WEC, *args], input=stdin, capture_output=True, text=True, timeout=120)


def test_act_events_show_a_flame_kill_in_order(tmp_path):
    """EX-18 from the command line: the Rocket Pawn burns, its cooldown is recorded."""
    path = tmp_path / "ex18.json"
    path.write_text(json.dumps(EX18))
    done = wec("act", "--events", str(path), FLAME_UP)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert [e["event"] for e in out["events"]] == ["fired", "hit", "destroyed"]
    assert out["events"][0] == {"event": "fired", "side": "white", "kind": "tank",
                                "cell": [5, 5, "ground"], "weapon": "flame", "strength": 1,
                                "dir": [1, 0]}
    assert out["events"][2] == {"event": "destroyed", "cell": [6, 5, "ground"],
                                "piece": {"side": "black", "kind": "rocket_pawn"},
                                "cause": "flame"}
    tank = next(p for p in out["position"]["pieces"] if p["kind"] == "tank")
    assert tank["ready"] == [10]  # R6.3.2: fired on T = 2, Flame rate 4 -> T + 8
    # pieces are listed by square: the White King at (1,1) first, then the Tank
    assert out["position"]["actions_this_turn"] == {"fire": 1, "actors": [1], "firers": [1]}


def test_a_second_flame_is_refused_with_the_rule_and_the_file_is_untouched(tmp_path):
    path = tmp_path / "ex18.json"
    text = json.dumps(EX18)
    path.write_text(text)
    done = wec("act", str(path), FLAME_UP, FLAME_UP)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == ("wec act: intent 2: R4.5: the Tank at (5,5) ground has already "
                           "fired this turn (one Fire per piece)\n")
    assert path.read_text() == text


def test_fire_and_doze_intents_are_listed_in_the_intent_format(tmp_path):
    path = tmp_path / "ex18.json"
    path.write_text(json.dumps(EX18))
    legal = json.loads(wec("legal", str(path)).stdout)
    fires = [i for i in legal if i["act"] == "fire"]
    assert json.loads(FLAME_UP) | {"kind": "tank"} in fires
    # the Tank flames in its 8 directions; nothing else of White's fires
    assert sorted(tuple(i["dir"]) for i in fires) == sorted(
        [(1, -1), (1, 0), (1, 1), (0, -1), (0, 1), (-1, -1), (-1, 0), (-1, 1)])


def _run(*args: str) -> str:
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(list(args)) == 0
    return out.getvalue()


def test_a_standard_game_is_played_to_its_end_from_the_command_line(tmp_path):
    """Issue 3's done-when: random legal intents from ``wec legal`` applied with
    ``wec act`` (in process, same code) until the game ends (R12)."""
    rng = random.Random(5)
    path = tmp_path / "game.json"
    path.write_text(_run("position", "standard"))
    acts: set[str] = set()
    for _ in range(6000):
        legal = json.loads(_run("legal", str(path)))
        if not legal:
            break
        moves = [i for i in legal if i["act"] in ("move", "doze")]
        others = [i for i in legal if i["act"] not in ("move", "doze", "end")]
        pool = others if others and rng.random() < 0.3 else (moves or legal)
        intent = rng.choice(pool if pool else legal)
        if {"act": "end"} in legal and rng.random() < 0.4:
            intent = {"act": "end"}
        acts.add(intent["act"])
        path.write_text(_run("act", str(path), json.dumps(intent)))
    final = json.loads(path.read_text())
    assert final["result"]["reason"].startswith("R12.1: ")
    assert json.loads(_run("legal", str(path))) == []
    assert {"move", "fire", "end"} <= acts
