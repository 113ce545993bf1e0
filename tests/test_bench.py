"""The engine benchmark runs and reports its figures (speed itself is not asserted)."""

from __future__ import annotations

import io

from wec.benchmarks.engine_bench import run


def test_bench_runs_and_reports() -> None:
    out = io.StringIO()
    figures = run(seconds=0.2, out=out)
    for key in ("chess_movegen_us", "wec_movegen_us", "chess_plies_per_s", "wec_turns_per_s",
                "movegen_ratio", "playout_ratio", "chess_movegen_moves", "wec_movegen_moves",
                "chess_plies", "wec_turns", "all_actions_turns_per_s", "all_actions_turns",
                "all_actions_ratio", "full_resolution_us", "halves_resolution_us",
                "acting_resolution_us", "observing_resolution_us", "halves_ratio"):
        assert figures[key] > 0, key
    assert figures["chess_movegen_moves"] == 20  # the chess start position
    assert isinstance(figures["movegen_pass"], bool)
    assert isinstance(figures["playout_pass"], bool)
    assert isinstance(figures["all_actions_pass"], bool)
    assert figures["wec_movegen_moves"] == 108  # Black's legal Moves at the standard start
    assert figures["playout_slices"] >= 1
    assert isinstance(figures["halves_pass"], bool)
    assert figures["halves_pass"] == (figures["halves_ratio"] <= 3.0)
    trips = figures["round_trips"]
    assert {"move", "end turn"} <= set(trips)  # every random game Moves and ends turns
    for kind, row in trips.items():
        assert 1 <= row["mean"] <= row["max"], kind  # every action asks at least once
    text = out.getvalue()
    assert "wec movegen / chess movegen" in text
    assert "wec turns/s / chess plies/s" in text
    assert f"{figures['movegen_ratio']:6.2f}x" in text
    assert f"{figures['playout_ratio']:6.2f}x" in text
    assert "every action kind / chess" in text
    assert f"{figures['all_actions_ratio']:6.2f}x" in text
    assert "two halves / full-state" in text
    assert f"{figures['halves_ratio']:6.2f}x" in text
    assert "question round trips per action" in text
    assert text.count("PASS") + text.count("FAIL") == 4
