"""Fog of war over the wire (issue 21): figures for ``wec bench net``.

:func:`measure` plays one random game with fog of war on (the R13 defaults: O15, O16,
O17) between two in-process ``FogGame``s (net.fog_game: real Ed25519, X25519 PSI,
Merkle commitments; messages handed over in memory, no transport), each choosing its
intents from its own half state as engine.playout does, then has both sides reveal and
times one side's audit (net.audit). It returns:

* ``audit_seconds`` for the ``turns`` played and ``audit_seconds_per_1000_turns``
  (scaled linearly: the audit is one pass over the actions; goal <= 10 s), and its
  yardstick ``replay_seconds``: the engine alone replaying the same actions on the full
  state, best of ten (the machine's speed moves by a third within an hour);
* ``hidden_move_ms`` and ``ordinary_ms``: the time from ``play`` until both sides have
  resolved the action (every message of both sides handled, PSI included), median and
  95th percentile, for Moves of a piece the other side does not see and for every
  other action (issue goals on loopback: 50 ms and 20 ms at the 95th percentile; in
  process this is the computation without the network's round trips);
* ``ms_per_action``: the same time per action kind (a hidden Move apart), median and
  95th percentile: which kinds make the tail;
* ``bytes_per_action``: per action kind (a hidden Move apart), the median and maximum
  bytes of all fog messages of both sides for one action (bodies and evidence
  entries).

Between actions the heap is settled as the peers' hosts settle it after each step
(net.heap ``settling_heap``, in idle time: outside the times measured), so that
the collector's full passes land in the figures as they land in a peer's actions.

``run`` prints them; helper code calls it from ``wec bench net``.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections import deque
from typing import Any, TextIO

from wec.engine.game import apply
from wec.engine.intents import EndTurn, Intent
from wec.engine.knowledge import project
from wec.engine.movement import Plan, move_of
from wec.engine.pieces import Side
from wec.engine.playout import MAX_EXTRA_ACTIONS, random_choice
from wec.engine.setup import standard_position
from wec.net import fog_codec
from wec.net.fog_game import Fault, FogGame, FogMessage, Refused
from wec.net.heap import settling_heap
from wec.net.identity import Identity


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def _deliver(games: dict[Side, FogGame], queues: dict[Side, deque[FogMessage]],
             sizes: list[int]) -> None:
    while any(queues.values()):
        for side in Side:
            if queues[side]:
                m = queues[side].popleft()
                step = games[side].receive(m)
                # and, once its messages are out, a finish that waited (as net.game_host)
                for made in (step, games[side].settle()):
                    if any(isinstance(e, Fault) for e in made.events):
                        raise RuntimeError(f"fault: {made.events}")
                    for out in made.send:
                        sizes.append(out.size)
                        queues[side.other].append(out)


def measure(turns: int = 100, seed: int = 1) -> dict[str, Any]:
    """Play ``turns`` turns (or to the game's end), reveal, audit; the figures."""
    rng = random.Random(seed)
    game_id = bytes(range(16))
    keys = {side: Identity.generate() for side in Side}
    full = standard_position()
    games = {side: FogGame(game_id=game_id, side=side, half=project(full, side),
                           identity=keys[side], peer_key=keys[side.other].public_key,
                           seed=rng.randbytes(32)) for side in Side}
    queues: dict[Side, deque[FogMessage]] = {side: deque() for side in Side}
    sizes: list[int] = []
    for side in Side:
        for m in games[side].opening():
            queues[side.other].append(m)
    _deliver(games, queues, sizes)
    hidden_ms: list[float] = []
    other_ms: list[float] = []
    by_kind: dict[str, list[int]] = {}
    ms_by_kind: dict[str, list[float]] = {}
    intents: list[Intent] = []  # every action played, in order (the yardstick's replay)
    started = time.perf_counter()
    while games[Side.BLACK].half.turn <= turns and games[Side.BLACK].result is None:
        g = games[games[Side.BLACK].half.side_to_act]
        for step in range(MAX_EXTRA_ACTIONS + 2):
            half = g.half
            choice = (random_choice(half, rng, moves_only=step == MAX_EXTRA_ACTIONS)
                      if step <= MAX_EXTRA_ACTIONS else None)
            intent: Intent
            if choice is None or (half.actions.move and rng.random() < 0.3):
                intent = EndTurn()
            else:
                intent = move_of(half, choice) if isinstance(choice, Plan) else choice
            sizes.clear()
            t0 = time.perf_counter()
            played = g.play(intent)
            if any(isinstance(e, Refused) for e in played.events):
                if half.actions.move:
                    intent = EndTurn()
                    played = g.play(intent)
                else:
                    continue
            if not any(isinstance(e, Refused) for e in played.events):
                intents.append(intent)
            for out in played.send:
                sizes.append(out.size)
                queues[g.side.other].append(out)
            _deliver(games, queues, sizes)
            ms = (time.perf_counter() - t0) * 1000
            for _ in settling_heap():  # as a peer's idle time does
                pass
            hidden = any(m.kind == "intent" and fog_codec.unpack(m.body)["hidden"]
                         for m in played.send)
            kind = type(intent).__name__ + (" (hidden)" if hidden else "")
            (hidden_ms if hidden and kind.startswith("Move") else other_ms).append(ms)
            by_kind.setdefault(kind, []).append(sum(sizes))
            ms_by_kind.setdefault(kind, []).append(ms)
            if isinstance(intent, EndTurn) or g.result is not None:
                break
    play_seconds = time.perf_counter() - started
    played_turns = games[Side.BLACK].half.turn - 1
    reveals = {side: games[side].reveal() for side in Side}
    t0 = time.perf_counter()
    verdict = games[Side.BLACK].audit(reveals[Side.WHITE])
    audit_seconds = time.perf_counter() - t0
    if not verdict.clean:
        raise RuntimeError(f"the benchmark game does not audit clean: {verdict.reason}")
    # the yardstick: the engine alone replaying the same actions on the full state (the
    # audit's own replay, without its checks), timed in the same run, the best of ten
    replay_seconds = float("inf")
    for _ in range(10):
        t0 = time.perf_counter()
        position = full
        for played_intent in intents:
            position = apply(position, played_intent).position
        replay_seconds = min(replay_seconds, time.perf_counter() - t0)

    def summary(values: list[float]) -> dict[str, float | int]:
        if not values:
            return {"count": 0}
        return {"count": len(values), "median": round(statistics.median(values), 1),
                "p95": round(_percentile(values, 0.95), 1)}

    return {
        "turns": played_turns, "actions": len(games[Side.BLACK].actions),
        "play_seconds": round(play_seconds, 2),
        "audit_seconds": round(audit_seconds, 3),
        "audit_seconds_per_1000_turns": round(audit_seconds * 1000 / max(1, played_turns), 2),
        "replay_seconds": round(replay_seconds, 3),
        "hidden_move_ms": summary(hidden_ms), "ordinary_ms": summary(other_ms),
        "ms_per_action": {k: summary(v) for k, v in sorted(ms_by_kind.items())},
        "bytes_per_action": {k: {"count": len(v), "median": int(statistics.median(v)),
                                 "max": max(v)} for k, v in sorted(by_kind.items())},
    }


def run(out: TextIO = sys.stdout, turns: int = 100) -> dict[str, Any]:
    """Measure and print the figures (``wec bench net`` calls this)."""
    figures = measure(turns)
    out.write(f"fog of war over the wire (in process, {figures['turns']} turns, "
              f"{figures['actions']} actions, played in {figures['play_seconds']} s)\n")
    out.write(f"  audit: {figures['audit_seconds']} s, scaled to 1,000 turns "
              f"{figures['audit_seconds_per_1000_turns']} s (goal <= 10 s)\n")
    for name in ("hidden_move_ms", "ordinary_ms"):
        f = figures[name]
        if f.get("count"):
            out.write(f"  {name}: n={f['count']} median {f['median']} ms, p95 {f['p95']} ms\n")
    for kind, f in figures["ms_per_action"].items():
        out.write(f"  {kind}: n={f['count']} median {f['median']} ms, p95 {f['p95']} ms\n")
    for kind, f in figures["bytes_per_action"].items():
        out.write(f"  bytes per action, {kind}: n={f['count']} median {f['median']}, "
                  f"max {f['max']}\n")
    return figures


if __name__ == "__main__":  # pragma: no cover
    run(turns=int(sys.argv[1]) if len(sys.argv) > 1 else 100)
