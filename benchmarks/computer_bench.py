"""Computer opponent benchmark (issue 19): the strength ladder, time per turn, memory and
the hotseat frame rate while the computer thinks.

``wec bench computer [--seconds S]`` calls :func:`run`. Everything is measured in one run:

(a) **strength ladder**: uniform random < greedy one-turn material < level 1 < level 2 <
    level 3. Each pairing plays ``GAMES`` games (default 200) from the standard start with
    fog of war on (O15 Stealth and O16 Submersion invisibility, the defaults), the stronger
    player Black in even games and White in odd ones, game ``i`` seeded ``i``. Every
    player is told only its side's view and events (wec.computer.arena). A game not over
    after ``TURN_CAP`` turns is adjudicated: the side ahead by at least ``MARGIN`` pawns
    of material (wec.computer.evaluation.material) wins, else a draw (half a point each).
    Printed: wins, losses, draws, the stronger side's score with its 95% Wilson interval,
    PASS when the score is at least 70%. The games run on both cores (multiprocessing).
(b) **time per turn** at the default level (wec.computer.DEFAULT_LEVEL): every turn it
    played in the ladder (each game process has a core to itself), median and 95th
    percentile; goals 2 s and 5 s. The work actually done per second (rule applications,
    wec.computer.levels.WORK_PER_SECOND) is printed beside the constant the budgets use.
(c) **memory**: the peak resident set of the game processes and of this one; goal 500 MB.
(d) **frame rate while thinking**: the hotseat client offscreen (``WecApp``), a Human vs
    Computer game with the computer to act: the mean frame time while its worker process
    thinks against the mean frame time of the same screen idle (the computer's turn done),
    the camera turning in both so every frame is drawn afresh; goal 1.5x.

The ladder takes the longest: about an hour and a half on the reference machine (2 cores)
for the default 200 games per pairing (see docs/computer.md, "Measures").
"""

from __future__ import annotations

import math
import multiprocessing
import os
import resource
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TextIO

from wec.computer import (
    DEFAULT_LEVEL,
    WORK_PER_SECOND,
    Computer,
    GreedyPlayer,
    Player,
    RandomPlayer,
    play_game,
)
from wec.engine.pieces import Side
from wec.engine.setup import standard_position

GAMES = 200
TURN_CAP = 160  # turns (80 per side), then adjudication
MARGIN = 3.0  # pawns of material that win an adjudication
SCORE_GOAL = 0.70
TURN_MEDIAN_GOAL = 2.0
TURN_P95_GOAL = 5.0
MEMORY_GOAL_MB = 500.0
FRAME_RATIO_GOAL = 1.5

# rung names, weakest first; an int is a computer level
RUNGS: tuple[str | int, ...] = ("random", "greedy", 1, 2, 3)


def make_player(rung: str | int, side: Side, seed: int) -> Player:
    if rung == "random":
        return RandomPlayer(side, seed)
    if rung == "greedy":
        return GreedyPlayer(side, seed)
    assert isinstance(rung, int)
    return Computer(side, rung, seed)


def rung_name(rung: str | int) -> str:
    return f"level {rung}" if isinstance(rung, int) else rung


@dataclass(frozen=True, slots=True)
class GameResult:
    """One ladder game, from the stronger player's side."""

    strong: str | int
    weak: str | int
    index: int
    outcome: str  # "win" | "loss" | "draw"
    turns: int
    adjudicated: bool
    # (rung, seconds per turn) of each side
    seconds: tuple[tuple[str | int, tuple[float, ...]], ...]
    work: tuple[tuple[str | int, float, float], ...]  # (rung, work units, seconds)
    peak_rss_mb: float


def ladder_game(args: tuple[str | int, str | int, int, int]) -> GameResult:
    """Game ``index`` of the pairing ``strong`` against ``weak`` (a process pool task)."""
    strong, weak, index, cap = args
    strong_side = Side.BLACK if index % 2 == 0 else Side.WHITE
    players = {strong_side: make_player(strong, strong_side, index),
               strong_side.other: make_player(weak, strong_side.other, index)}
    rungs = {strong_side: strong, strong_side.other: weak}
    record = play_game(standard_position(), players[Side.BLACK], players[Side.WHITE],
                       max_turns=cap, margin=MARGIN)
    outcome = ("draw" if record.winner is None
               else "win" if record.winner is strong_side else "loss")
    work = []
    for side, player in players.items():
        if isinstance(player, Computer):
            work.append((rungs[side], player.total_work, sum(record.seconds[side])))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    return GameResult(strong, weak, index, outcome, record.turns, record.adjudicated,
                      tuple((rungs[s], tuple(v)) for s, v in record.seconds.items()),
                      tuple(work), peak)


def wilson(score: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion ``score`` over ``n`` games."""
    if n == 0:
        return 0.0, 1.0
    centre = (score + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(score * (1 - score) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def play_pairings(pairings: list[tuple[str | int, str | int]], games: int, cap: int,
                  processes: int = 2,
                  progress: Callable[[GameResult], None] | None = None) -> list[GameResult]:
    tasks = [(strong, weak, i, cap) for strong, weak in pairings for i in range(games)]
    # every pairing advances together (game i of each pairing before game i + 1 of any),
    # so a run stopped early has a running score for every rung; within a round the
    # longest pairing first
    tasks.sort(key=lambda t: (t[2], -max(_cost(t[0]), _cost(t[1]))))
    results: list[GameResult] = []
    context = multiprocessing.get_context("spawn")
    with context.Pool(processes, maxtasksperchild=20) as pool:
        for result in pool.imap_unordered(ladder_game, tasks):
            results.append(result)
            if progress is not None:
                progress(result)
    results.sort(key=lambda r: (RUNGS.index(r.strong), r.index))
    return results


def _cost(rung: str | int) -> int:
    return rung if isinstance(rung, int) else 0


def run(seconds: float = 3.0, out: TextIO = sys.stdout, games: int = GAMES,
        cap: int = TURN_CAP, frames: bool = True) -> dict[str, Any]:
    """Run the benchmark (``seconds`` sets the frame-rate measurement's length) and print
    its figures; return them."""
    began = time.perf_counter()
    figures: dict[str, Any] = {}
    pairings = [(RUNGS[i + 1], RUNGS[i]) for i in range(len(RUNGS) - 1)]
    print(f"strength ladder: {games} games per pairing, standard start, fog of war on, "
          f"sides alternated, turn cap {cap} (adjudicated on a {MARGIN:g}-pawn material "
          f"lead), on {min(2, os.cpu_count() or 1)} processes", file=out, flush=True)
    so_far: dict[tuple[str | int, str | int], list[GameResult]] = {}

    def progress(result: GameResult) -> None:
        """Every 25 games of a pairing, its running score with the 95% interval, so a
        run stopped early still tells how far the ladder got."""
        key = (result.strong, result.weak)
        mine = so_far.setdefault(key, [])
        mine.append(result)
        if len(mine) % 25 == 0 and len(mine) < games:
            wins = sum(r.outcome == "win" for r in mine)
            draws = sum(r.outcome == "draw" for r in mine)
            score = (wins + 0.5 * draws) / len(mine)
            low, high = wilson(score, len(mine))
            print(f"  ... {len(mine)}/{games} games of {rung_name(key[0])} vs "
                  f"{rung_name(key[1])}: score {score:.1%} [{low:.1%}, {high:.1%}], "
                  f"{(time.perf_counter() - began) / 60:.0f} min", file=out, flush=True)

    results = play_pairings(pairings, games, cap, processes=min(2, os.cpu_count() or 1),
                            progress=progress)
    print(f"{'pairing':<24} {'W':>4} {'L':>4} {'D':>4} {'adj':>4} {'turns':>6} "
          f"{'score':>6}  95% interval   goal", file=out)
    ladder_pass = True
    for strong, weak in pairings:
        mine = [r for r in results if r.strong == strong and r.weak == weak]
        wins = sum(r.outcome == "win" for r in mine)
        losses = sum(r.outcome == "loss" for r in mine)
        draws = sum(r.outcome == "draw" for r in mine)
        n = len(mine)
        score = (wins + 0.5 * draws) / n if n else 0.0
        low, high = wilson(score, n)
        ok = score >= SCORE_GOAL
        ladder_pass &= ok
        name = f"{rung_name(strong)} vs {rung_name(weak)}"
        key = f"{rung_name(strong)}_vs_{rung_name(weak)}".replace(" ", "_")
        figures[key] = {"wins": wins, "losses": losses, "draws": draws, "games": n,
                        "score": score, "low": low, "high": high,
                        "adjudicated": sum(r.adjudicated for r in mine),
                        "mean_turns": statistics.fmean(r.turns for r in mine) if mine else 0}
        print(f"{name:<24} {wins:>4} {losses:>4} {draws:>4} "
              f"{figures[key]['adjudicated']:>4} {figures[key]['mean_turns']:>6.1f} "
              f"{score:>6.1%}  [{low:.1%}, {high:.1%}]  >= {SCORE_GOAL:.0%} "
              f"{'PASS' if ok else 'FAIL'}", file=out)
    figures["ladder_pass"] = ladder_pass
    # (b) time per turn at the default level
    turns = [t for r in results for rung, times in r.seconds if rung == DEFAULT_LEVEL
             for t in times]
    median = statistics.median(turns) if turns else 0.0
    p95 = _percentile(turns, 0.95)
    work = [(w, s) for r in results for rung, w, s in r.work if rung == DEFAULT_LEVEL]
    rate = sum(w for w, _ in work) / max(1e-9, sum(s for _, s in work))
    figures.update(turn_median_s=median, turn_p95_s=p95, turns_timed=len(turns),
                   work_per_second=rate)
    time_ok = median <= TURN_MEDIAN_GOAL and p95 <= TURN_P95_GOAL
    print(f"time per turn, level {DEFAULT_LEVEL} (default), {len(turns)} turns: median "
          f"{median:.3f} s (goal {TURN_MEDIAN_GOAL:g}), 95th percentile {p95:.3f} s (goal "
          f"{TURN_P95_GOAL:g}) {'PASS' if time_ok else 'FAIL'}", file=out)
    print(f"work rate: {rate:.0f} rule applications/s measured; the budgets assume "
          f"{WORK_PER_SECOND:.0f}", file=out)
    # (c) memory
    peak_games = max((r.peak_rss_mb for r in results), default=0.0)
    peak_self = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    figures.update(peak_game_process_mb=peak_games, peak_bench_process_mb=peak_self)
    memory_ok = max(peak_games, peak_self) <= MEMORY_GOAL_MB
    print(f"memory: peak resident set {peak_games:.0f} MB per game process, "
          f"{peak_self:.0f} MB this process (goal {MEMORY_GOAL_MB:g} MB) "
          f"{'PASS' if memory_ok else 'FAIL'}", file=out)
    figures["pass"] = ladder_pass and time_ok and memory_ok
    if frames:
        frame = frame_ratio(seconds)
        figures.update(frame)
        frame_ok = frame["frame_ratio"] <= FRAME_RATIO_GOAL
        figures["pass"] = figures["pass"] and frame_ok
        print(f"hotseat frame while the computer thinks: {frame['thinking_ms']:.2f} ms "
              f"({frame['thinking_frames']} frames) vs idle {frame['idle_ms']:.2f} ms "
              f"({frame['idle_frames']} frames): {frame['frame_ratio']:.2f}x (goal "
              f"{FRAME_RATIO_GOAL:g}x) {'PASS' if frame_ok else 'FAIL'}", file=out)
    figures["bench_seconds"] = time.perf_counter() - began
    print(f"benchmark time: {figures['bench_seconds'] / 60:.1f} min", file=out)
    return figures


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(q * len(ordered)) - 1)]


def frame_ratio(seconds: float) -> dict[str, Any]:
    """(d): the hotseat frame while the computer thinks (wec.benchmarks.thinking_frames)."""
    from wec.benchmarks.thinking_frames import measure_thinking_frames

    return measure_thinking_frames(seconds)
