"""The replay benchmark runs and reports (benchmarks/replay_bench.py, ``wec bench
replay``) on a small generated game; its speed is not asserted here, its exactness is."""

from __future__ import annotations

import io

from wec.benchmarks.replay_bench import cached_save, generate_match, run
from wec.engine.savegame import encode_save


def test_the_generator_keeps_the_game_going_and_is_deterministic():
    """Turns 1..40 played and no result (R12), the same game for the same seed."""
    game = generate_match(turns=40, seed=3)
    assert (game.current.turn, game.current.result) == (41, None)
    assert encode_save(game) == encode_save(generate_match(turns=40, seed=3))
    kinds = {type(action.intent).__name__ for action in game.actions}
    assert {"Move", "EndTurn", "Fire", "PickUp"} <= kinds


def test_the_save_is_cached(tmp_path):
    first, generated = cached_save(turns=5, seed=2, folder=tmp_path)
    again, regenerated = cached_save(turns=5, seed=2, folder=tmp_path)
    assert generated > 0 and regenerated == 0.0
    assert first == again
    assert len(list(tmp_path.glob("game-g1-t5-s2-*.wecsave"))) == 1


def test_bench_runs_and_reports(tmp_path):
    out = io.StringIO()
    figures = run(seconds=0.2, out=out, turns=30, seed=4, cache=tmp_path)
    assert figures["game_turns"] == 30
    assert figures["steps"] > 100
    assert figures["snapshots"] == -(-figures["steps"] // 8)  # every 8 steps and the last
    for key in ("open_ms", "open_worst_ms", "seek_ms", "seek_worst_ms", "back_worst_ms",
                "snapshot_ms", "pgn_ms", "seek_per_snapshot", "open_per_pgn"):
        assert figures[key] > 0, key
    assert figures["steps_back_exact"] == figures["steps_back"] >= 4
    assert figures["back_pass"] is True
    assert isinstance(figures["open_pass"], bool) and isinstance(figures["seek_pass"], bool)
    text = out.getvalue()
    assert text.startswith(f"wec replay benchmark: 30 turns, {figures['steps']} steps")
    assert f"{figures['steps_back_exact']}/{figures['steps_back']} exact" in text
    assert text.count("PASS") + text.count("FAIL") == 3
    assert f"= {figures['seek_per_snapshot']:7.1f}x" in text
