"""Engine benchmark: wec move generation and random playouts beside python-chess.

``wec bench engine [--seconds S]`` calls :func:`run`. Every figure is measured in the
same process and run, so the ratios compare like with like on the machine at hand:

(a) python-chess: microseconds per ``list(board.legal_moves)`` from the chess start;
(b) wec: microseconds per ``engine.legal_moves(position)`` for the standard position,
    with the position's occupancy cache cleared before every call (full work);
(c) python-chess: random-playout plies per second (full games from the start);
(d) wec: random-playout turns per second, Moves only (full games from the standard
    position; a game stops when a primary government piece is taken or after 3000 turns);
(e) wec: random-playout turns per second with every action kind (engine.playout: each
    turn up to 3 random actions of random kinds from the full legal set, Fire, Doze,
    transport, Pick-up, Drop, Exchange, Reinforce, then the Move; the turn-start
    projectile and transport phases run as in play);
(f)-(j) hidden information (docs/architecture.md, "Design note: half states and
    questions"), per action over a fixed sample of actions of random games with every
    action kind (the actions engine.playout chooses, End turn included): (f) resolving
    on the full state (``apply(state, intent)``); (g) computing the acting side's half
    state (``project``); (h) two-halves resolution: the intent resolved on both half
    states, each side asking the other side's half referee (what the two machines of a
    network game do between them, answers included); (i) and (j) the acting side's and
    the other side's part of it, each with the other side's answers (one machine's work);
(k) the question round trips per action of each kind on the two half states (mean and
    maximum over a larger sample of actions): the half referee's questions, each a
    network round trip at most (on the LAN the questions both sides know a resolution
    asks next are implied and answered unasked: net.fog_game, docs/network.md).

(a)/(b) run in alternating batches, (c)/(d)/(e) in alternating slices and (f)-(j) in
alternating passes over the sample, so that the machine's changing speed (frequency,
other load) affects both sides of a ratio alike.

Goals: wec movegen / chess movegen under 20x; wec turns/s / chess plies/s at least 0.5x
for Moves only and at least 0.25x with every action kind; two-halves resolution at most
3x full-state resolution.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any, Protocol, TextIO

import chess

from wec import engine
from wec.engine.game import apply, end_turn
from wec.engine.half_referee import HalfReferee
from wec.engine.half_resolution import round_trips
from wec.engine.intents import Doze, EndTurn, Fire, Intent, Move
from wec.engine.knowledge import project
from wec.engine.movement import all_legal_plans, resolve_plan
from wec.engine.playout import play_turn
from wec.engine.position import Position

MOVEGEN_GOAL = 20.0  # wec movegen time / chess movegen time must stay under this
PLAYOUT_GOAL = 0.5  # wec turns/s / chess plies/s must reach at least this
ALL_ACTIONS_GOAL = 0.25  # the same with every action kind
HALVES_GOAL = 3.0  # two-halves resolution time / full-state resolution time, at most
SPLIT_SAMPLE = 120  # actions resolved per timed pass of (f)-(j)
ROUND_TRIP_SAMPLE = 600  # actions whose question round trips (k) counts
TURN_CAP = 3000  # a wec playout stops after this many turns
BATCH_SECONDS = 0.01  # target length of one timed batch of movegen calls
SLICE_SECONDS = 0.1  # length of one interleaved playout slice


def _batch_size(call: Callable[[], object]) -> int:
    """How many calls take about BATCH_SECONDS (after one warm-up call)."""
    call()  # warm up (route memo, imports)
    batch, elapsed = 1, 0.0
    while batch < 1 << 20:
        t0 = time.perf_counter()
        for _ in range(batch):
            call()
        elapsed = time.perf_counter() - t0
        if elapsed >= BATCH_SECONDS / 4:
            break
        batch *= 2
    return max(1, int(batch * BATCH_SECONDS / max(elapsed, 1e-9)))


def time_per_call(calls: list[Callable[[], object]], seconds: float) -> list[tuple[float, int]]:
    """Median seconds per call of each callable, and its number of calls.

    The callables run in alternating batches of about BATCH_SECONDS for ``seconds`` each
    in all, so a change in machine load affects all of them alike.
    """
    batches = [_batch_size(call) for call in calls]
    samples: list[list[float]] = [[] for _ in calls]
    counts = [0] * len(calls)
    deadline = time.perf_counter() + seconds * len(calls)
    while not samples[-1] or time.perf_counter() < deadline:
        for i, (call, batch) in enumerate(zip(calls, batches, strict=True)):
            t0 = time.perf_counter()
            for _ in range(batch):
                call()
            samples[i].append((time.perf_counter() - t0) / batch)
            counts[i] += batch
    return [(statistics.median(s), n) for s, n in zip(samples, counts, strict=True)]


def movegen(seconds: float) -> dict[str, Any]:
    """(a) and (b), interleaved: microseconds per call, moves listed, calls made.

    (a) list(board.legal_moves) at the chess start; (b) engine.legal_moves on the
    standard position with its occupancy cache cleared before each call (full work).
    """
    board = chess.Board()
    position = engine.standard_position()
    derived = position.derived

    def chess_call() -> object:
        return list(board.legal_moves)

    def wec_call() -> object:
        derived.clear()  # each call rebuilds occupancy: the full work
        return engine.legal_moves(position)

    (chess_s, chess_calls), (wec_s, wec_calls) = time_per_call([chess_call, wec_call], seconds)
    return {"chess_us": chess_s * 1e6, "chess_moves": len(list(board.legal_moves)),
            "chess_calls": chess_calls, "wec_us": wec_s * 1e6,
            "wec_moves": len(engine.legal_moves(position)), "wec_calls": wec_calls}


class Player(Protocol):
    """What the interleaved playouts drive: one ply or one turn per step."""

    def step(self) -> None: ...


class ChessPlayer:
    """(c) python-chess random games from the start, one ply per step."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.board = chess.Board()
        self.plies = self.games = 0

    def step(self) -> None:
        board = self.board
        board.push(self.rng.choice(list(board.legal_moves)))
        self.plies += 1
        if board.is_game_over():
            self.games += 1
            self.board = chess.Board()


class WecPlayer:
    """(d) wec random games from the standard position, one turn per step.

    Each turn: a uniform random plan among all legal plans (if any), resolved on the
    full state; the turn then ends unless the game is over. A game stops when a
    primary government piece is taken (p.result) or after TURN_CAP turns.
    """

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.position = engine.standard_position()
        self.turns = self.game_turns = 0
        self.captured = self.capped = self.white_wins = self.black_wins = 0

    def step(self) -> None:
        p = self.position
        plans = all_legal_plans(p)
        if plans:
            p, _ = resolve_plan(p, self.rng.choice(plans))
        if p.result is None:
            p = end_turn(p).position
        self.turns += 1
        self.game_turns += 1
        if p.result is not None:
            self.captured += 1
            if p.result.winner is engine.Side.WHITE:
                self.white_wins += 1
            else:
                self.black_wins += 1
        elif self.game_turns >= TURN_CAP:
            self.capped += 1
        else:
            self.position = p
            return
        self.position = engine.standard_position()
        self.game_turns = 0


class AllActionsPlayer:
    """(e) wec random games with every action kind, one turn per step."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.position = engine.standard_position()
        self.turns = self.game_turns = self.games = 0

    def step(self) -> None:
        self.position = play_turn(self.position, self.rng)
        self.turns += 1
        self.game_turns += 1
        if self.position.result is not None or self.game_turns >= TURN_CAP:
            self.games += self.position.result is not None
            self.position = engine.standard_position()
            self.game_turns = 0


def playouts(seconds: float, seed: int) -> dict[str, Any]:
    """(c) and (d), interleaved in slices of SLICE_SECONDS so that a change in machine
    speed affects both alike; games carry on across slices. The ratio is the median of
    the per-slice-pair ratios; the rates are totals over all slices."""
    chess_player, wec_player = ChessPlayer(random.Random(seed)), WecPlayer(random.Random(seed))
    all_player = AllActionsPlayer(random.Random(seed))
    totals = {"chess": 0.0, "wec": 0.0, "all": 0.0}
    ratios: list[float] = []
    all_ratios: list[float] = []
    players: tuple[tuple[str, Player, Callable[[], int]], ...] = (
        ("chess", chess_player, lambda: chess_player.plies),
        ("wec", wec_player, lambda: wec_player.turns),
        ("all", all_player, lambda: all_player.turns))
    deadline = time.perf_counter() + 3 * seconds
    while not ratios or time.perf_counter() < deadline:
        rates = {}
        for name, player, count in players:
            before = count()
            t0 = time.perf_counter()
            while time.perf_counter() - t0 < SLICE_SECONDS:
                player.step()
            elapsed = time.perf_counter() - t0
            totals[name] += elapsed
            rates[name] = (count() - before) / elapsed
        ratios.append(rates["wec"] / rates["chess"])
        all_ratios.append(rates["all"] / rates["chess"])
    return {"plies": chess_player.plies, "games": chess_player.games,
            "plies_per_s": chess_player.plies / totals["chess"],
            "turns": wec_player.turns, "games_king_captured": wec_player.captured,
            "games_capped": wec_player.capped, "white_wins": wec_player.white_wins,
            "black_wins": wec_player.black_wins,
            "turns_per_s": wec_player.turns / totals["wec"],
            "ratio": statistics.median(ratios), "slices": len(ratios),
            "all_turns": all_player.turns, "all_games": all_player.games,
            "all_turns_per_s": all_player.turns / totals["all"],
            "all_ratio": statistics.median(all_ratios)}


def sample_actions(seed: int, count: int = SPLIT_SAMPLE) -> list[tuple[Position, Intent]]:
    """The first ``count`` actions (full state before, intent) of random games with every
    action kind, from the standard position."""
    rng = random.Random(seed)
    position = engine.standard_position()
    actions: list[tuple[Position, Intent]] = []
    while len(actions) < count:
        position = play_turn(position, rng,
                             lambda before, intent, _: actions.append((before, intent)))
        if position.result is not None:
            position = engine.standard_position()
    return actions[:count]


def split_resolution(seconds: float, seed: int) -> dict[str, Any]:
    """(f)-(j): microseconds per action, each measured in passes over the same sample,
    the kinds of pass alternating."""
    actions = sample_actions(seed)
    halves = [(project(before, before.side_to_act), project(before, before.side_to_act.other))
              for before, _ in actions]

    def full() -> object:
        return [apply(before, intent) for before, intent in actions]

    def views() -> object:
        return [project(before, before.side_to_act) for before, _ in actions]

    def both() -> object:
        return [(apply(own, intent, HalfReferee(other)), apply(other, intent, HalfReferee(own)))
                for (_, intent), (own, other) in zip(actions, halves, strict=True)]

    def acting() -> object:
        return [apply(own, intent, HalfReferee(other))
                for (_, intent), (own, other) in zip(actions, halves, strict=True)]

    def observing() -> object:
        return [apply(other, intent, HalfReferee(own))
                for (_, intent), (own, other) in zip(actions, halves, strict=True)]

    timed = time_per_call([full, views, both, acting, observing], seconds)
    per_action = [s * 1e6 / len(actions) for s, _ in timed]
    return {"actions": len(actions), "passes": timed[0][1], "full_us": per_action[0],
            "view_us": per_action[1], "halves_us": per_action[2], "acting_us": per_action[3],
            "observing_us": per_action[4]}


def question_round_trips(seed: int, count: int = ROUND_TRIP_SAMPLE) -> dict[str, list[int]]:
    """(k): per action kind, the round trips the questions of both sides take, for each
    of ``count`` actions of random games (engine.half_resolution ``round_trips``)."""
    out: dict[str, list[int]] = {}
    for before, intent in sample_actions(seed + 1, count):
        own, other = project(before, before.side_to_act), project(before,
                                                                 before.side_to_act.other)
        trips = (round_trips(apply(own, intent, HalfReferee(other)))
                 + round_trips(apply(other, intent, HalfReferee(own))))
        out.setdefault(_kind(intent), []).append(trips)
    return out


def _kind(intent: Intent) -> str:
    """The kind of an action for (k): Fires by weapon, transport articles together."""
    if isinstance(intent, Fire):
        return ("fire: transport" if intent.dest is not None
                else f"fire: {intent.weapon.value}")
    if isinstance(intent, EndTurn):
        return "end turn"
    if isinstance(intent, Move | Doze):
        return type(intent).__name__.lower()
    return type(intent).__name__.lower()


def _verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def run(seconds: float, out: TextIO, seed: int = 20240601) -> dict[str, Any]:
    """Measure (a)-(i) for ``seconds`` each ((a) and (b), (c)-(e), (f)-(i) interleaved),
    print a table to ``out`` and return the figures."""
    seconds = max(float(seconds), 0.01)
    mg = movegen(seconds)
    chess_us, wec_us = mg["chess_us"], mg["wec_us"]
    play = playouts(seconds, seed)
    hidden = split_resolution(seconds, seed)
    trips = question_round_trips(seed)
    cp = wp = play
    movegen_ratio = wec_us / chess_us
    playout_ratio = play["ratio"]
    figures: dict[str, Any] = {
        "seconds": seconds,
        "seed": seed,
        "chess_movegen_us": chess_us,
        "chess_movegen_moves": mg["chess_moves"],
        "chess_movegen_calls": mg["chess_calls"],
        "wec_movegen_us": wec_us,
        "wec_movegen_moves": mg["wec_moves"],
        "wec_movegen_calls": mg["wec_calls"],
        "movegen_ratio": movegen_ratio,
        "movegen_goal": MOVEGEN_GOAL,
        "movegen_pass": movegen_ratio < MOVEGEN_GOAL,
        "chess_plies_per_s": cp["plies_per_s"],
        "chess_plies": cp["plies"],
        "chess_games": cp["games"],
        "wec_turns_per_s": wp["turns_per_s"],
        "wec_turns": wp["turns"],
        "wec_games_king_captured": wp["games_king_captured"],
        "wec_games_capped": wp["games_capped"],
        "playout_slices": play["slices"],
        "wec_white_wins": wp["white_wins"],
        "wec_black_wins": wp["black_wins"],
        "playout_ratio": playout_ratio,
        "playout_goal": PLAYOUT_GOAL,
        "playout_pass": playout_ratio >= PLAYOUT_GOAL,
        "all_actions_turns_per_s": play["all_turns_per_s"],
        "all_actions_turns": play["all_turns"],
        "all_actions_games": play["all_games"],
        "all_actions_ratio": play["all_ratio"],
        "all_actions_goal": ALL_ACTIONS_GOAL,
        "all_actions_pass": play["all_ratio"] >= ALL_ACTIONS_GOAL,
        "split_actions": hidden["actions"],
        "split_passes": hidden["passes"],
        "full_resolution_us": hidden["full_us"],
        "view_us": hidden["view_us"],
        "halves_resolution_us": hidden["halves_us"],
        "acting_resolution_us": hidden["acting_us"],
        "observing_resolution_us": hidden["observing_us"],
        "view_ratio": hidden["view_us"] / hidden["full_us"],
        "halves_ratio": hidden["halves_us"] / hidden["full_us"],
        "acting_ratio": hidden["acting_us"] / hidden["full_us"],
        "observing_ratio": hidden["observing_us"] / hidden["full_us"],
        "halves_goal": HALVES_GOAL,
        "halves_pass": hidden["halves_us"] / hidden["full_us"] <= HALVES_GOAL,
        "round_trips": {kind: {"actions": len(counts), "mean": sum(counts) / len(counts),
                               "max": max(counts)} for kind, counts in sorted(trips.items())},
    }
    _report(figures, out)
    return figures


def _report(f: dict[str, Any], out: TextIO) -> None:
    rows = [
        ("(a) python-chess movegen", f"{f['chess_movegen_us']:10.2f} us/call",
         f"{f['chess_movegen_moves']} moves, {f['chess_movegen_calls']} calls"),
        ("(b) wec movegen (cache cleared)", f"{f['wec_movegen_us']:10.2f} us/call",
         f"{f['wec_movegen_moves']} moves, {f['wec_movegen_calls']} calls"),
        ("(c) python-chess random playouts", f"{f['chess_plies_per_s']:10.0f} plies/s",
         f"{f['chess_plies']} plies, {f['chess_games']} games finished"),
        ("(d) wec random playouts", f"{f['wec_turns_per_s']:10.0f} turns/s",
         f"{f['wec_turns']} turns; games: {f['wec_games_king_captured']} ended by a "
         f"primary piece taken (White {f['wec_white_wins']}, Black {f['wec_black_wins']}), "
         f"{f['wec_games_capped']} hit the {TURN_CAP}-turn cap"),
        ("(e) wec playouts, every action kind", f"{f['all_actions_turns_per_s']:10.0f} turns/s",
         f"{f['all_actions_turns']} turns, {f['all_actions_games']} games finished"),
        ("(f) full-state resolution", f"{f['full_resolution_us']:10.2f} us/action",
         f"{f['split_actions']} actions of random games (every kind), {f['split_passes']} "
         "passes"),
        ("(g) half-state computation (project)", f"{f['view_us']:10.2f} us/action",
         "the acting side's half state"),
        ("(h) two-halves resolution", f"{f['halves_resolution_us']:10.2f} us/action",
         "both half states, each asking the other's half referee"),
        ("(i) of which the acting side", f"{f['acting_resolution_us']:10.2f} us/action",
         "its half state, the other side answering"),
        ("(j) of which the other side", f"{f['observing_resolution_us']:10.2f} us/action",
         "its half state, the acting side answering"),
    ]
    width = max(len(r[0]) for r in rows)
    print(f"wec engine benchmark: {f['seconds']:g} s per measurement, seed {f['seed']}",
          file=out)
    for name, value, note in rows:
        print(f"  {name:<{width}}  {value}   {note}", file=out)
    print("ratios:", file=out)
    print(f"  wec movegen / chess movegen    = {f['movegen_ratio']:6.2f}x   "
          f"(goal < {MOVEGEN_GOAL:g}x)    {_verdict(f['movegen_pass'])}", file=out)
    print(f"  wec turns/s / chess plies/s    = {f['playout_ratio']:6.2f}x   "
          f"(median of {f['playout_slices']} interleaved slice pairs)", file=out)
    print(f"{'':35}"
          f"(goal >= {PLAYOUT_GOAL:g}x)   {_verdict(f['playout_pass'])}", file=out)
    print(f"  every action kind / chess      = {f['all_actions_ratio']:6.2f}x   "
          f"(goal >= {ALL_ACTIONS_GOAL:g}x)  {_verdict(f['all_actions_pass'])}", file=out)
    print(f"  two halves / full-state        = {f['halves_ratio']:6.2f}x   "
          f"(goal <= {HALVES_GOAL:g}x)    {_verdict(f['halves_pass'])}", file=out)
    print(f"  acting side / full-state       = {f['acting_ratio']:6.2f}x", file=out)
    print(f"  other side / full-state        = {f['observing_ratio']:6.2f}x", file=out)
    print(f"  half state / full-state        = {f['view_ratio']:6.2f}x", file=out)
    print("(k) question round trips per action, both sides (each one network round trip "
          "at most: the LAN's implied questions travel with other messages):", file=out)
    for kind, trips in f["round_trips"].items():
        print(f"  {kind:<24} mean {trips['mean']:5.2f}   max {trips['max']:3d}   "
              f"({trips['actions']} actions)", file=out)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--seed", type=int, default=20240601)
    args = parser.parse_args(argv)
    run(seconds=args.seconds, out=sys.stdout, seed=args.seed)


if __name__ == "__main__":
    main()
