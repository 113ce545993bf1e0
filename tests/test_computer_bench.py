"""``wec bench computer`` runs and reports its figures (a tiny ladder here: one short game
per pairing; the strength itself is not asserted), and the frame-rate measurement while
the computer thinks works in a process of its own (it opens its own offscreen window)."""

from __future__ import annotations

import io
import json
import subprocess
import sys

from wec.benchmarks.computer_bench import RUNGS, run, wilson


def test_the_bench_plays_every_pairing_and_prints_the_figures() -> None:
    out = io.StringIO()
    figures = run(seconds=0.5, out=out, games=2, cap=2, frames=False)
    text = out.getvalue()
    for strong, weak in zip(RUNGS[1:], RUNGS[:-1], strict=True):
        name = (f"{'level ' + str(strong) if isinstance(strong, int) else strong} vs "
                f"{'level ' + str(weak) if isinstance(weak, int) else weak}")
        assert name in text
        key = name.replace(" ", "_")
        assert figures[key]["games"] == 2
        assert 0.0 <= figures[key]["low"] <= figures[key]["score"] <= figures[key]["high"] <= 1
    assert figures["turns_timed"] > 0 and figures["turn_median_s"] > 0
    assert figures["work_per_second"] > 0
    assert figures["peak_game_process_mb"] > 0
    assert "time per turn, level 2 (default)" in text and "memory: peak" in text


def test_wilson_intervals() -> None:
    low, high = wilson(0.7, 200)
    assert 0.63 < low < 0.64 and 0.75 < high < 0.77
    assert wilson(1.0, 10)[1] == 1.0 and wilson(0.0, 10)[0] == 0.0


def test_the_frame_rate_while_thinking_is_measured() -> None:
    code = ("import json; from wec.benchmarks.thinking_frames import measure_thinking_frames; "
            "print(json.dumps(measure_thinking_frames(1.0)))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    assert figures["thinking_frames"] > 0 and figures["idle_frames"] > 0
    assert figures["frame_ratio"] > 0
