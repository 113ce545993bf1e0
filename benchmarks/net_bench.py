"""LAN-play benchmark (issue 8 item 10): ``wec bench net [--seconds S]`` calls :func:`run`.

Figures, each beside a yardstick measured in the same run:

(a) intent latency: two ``wec peer`` processes play random legal intents (both sides,
    the standard setup with O15/O16 off) for ``seconds``; for every intent, the time from
    the mover's "sent" (its intent event's ``sent_at``, read before the frame is written) to the
    receiver's "applied" (its intent event, after decoding, checking and resolving it
    with the engine). Both processes read the same monotonic clock. Median and 95th
    percentile, on loopback and across the veth pair of two network namespaces.
    Yardstick: the round trip of a 64-byte TCP echo between two processes on the same
    path.
(b) handshake: ``net.session.measure_handshake`` on loopback (dial until both sides
    hold an open session: TCP connect, X25519, both Ed25519 signatures, HKDF), median
    and 95th percentile. Yardstick: a bare TCP connect and accept on loopback.
(c) discovery: ``benchmarks.netns.measure_discovery``: seconds until a newcomer in one
    namespace and a peer in the other see each other (zeroconf). Yardstick: the veth
    echo round trip.

(d) fog of war (issue 21): two ``wec peer`` processes play the submarine_duel scenario
    (its subs hidden from the start, so that hidden Moves happen) with O15 and O16 on
    (each holding only its half state) by random legal intents for ``seconds``, at
    least ``FOG_SECONDS`` (40 s), on loopback, each player picking, a quarter of the
    time, a Move of a piece the other does not see when it has one
    (``--hidden-moves``: uniform random play made two hidden Moves in a 15 s run, too
    few for a 95th percentile). For every action, the
    time from the mover's "sent" (its ``intent_sent`` event's ``sent_at``, read before
    the first frame is written) until both sides applied it (the later of the two
    ``intent`` events: every question, answer, opening and PSI run of the action done on
    both machines): a hidden Move (a piece the receiver does not see: the first-hit PSI
    runs) apart from every other (ordinary) action, median and 95th percentile; and the
    bytes on the wire per action kind (every frame both sides sent for it: header,
    padded plaintext, tag), median and maximum. Yardstick: the same figures of the
    protocol alone (both FogGames in one process, no transport:
    benchmarks/fog_bench.py), so the stack's share shows. Beside it, not instead of it:
    the same ordinary figures for the actions during which neither peer paused (each
    peer's final event lists where its work stood still while it had work: net.game_host
    ``LoopPauses``), and how many actions had a pause: on the 2-core test machine
    pauses of 2-5 ms fall in a varying share of the actions, and the goal's tail moves
    with them. And each action kind's median, 95th percentile and maximum time (an End
    of turn is a chain of round trips, a Pick-up one: where the tail comes from), and the
    collector's full passes in either peer that fell inside an action (how many, the
    longest: net.heap ``FullCollections``; the host settles the heap after every
    step, ``settling_heap``).
(e) the end-of-game audit (benchmarks/fog_bench.py, in process): one side's audit of a
    random game of the standard setup with fog of war, scaled to 1,000 turns (one pass
    over the actions). Yardstick: the engine alone replaying the same actions on the
    full state (best of ten), with the ratio: the machine's speed moved by a third
    within an hour (session 26: the audit read 8.1 s in one run and 11.5 s in another
    of the same code).

Goals: intent applied within 20 ms at the 95th percentile (both paths, and an ordinary
intent with fog of war), a hidden-move resolution (PSI included) within 50 ms at the
95th percentile, the audit of a 1,000-turn game within 10 s, handshake within 50 ms
(95th percentile), discovery within 2 s. The veth and discovery figures need root
(network namespaces); without it they are reported as unavailable, not failed.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from wec.benchmarks.netns import (
    NamespaceError,
    NamespacePair,
    NamespaceProcess,
    measure_discovery,
    namespace_pair,
    require_root,
)
from wec.net.game_host import PAUSE_MS
from wec.net.session import measure_handshake

INTENT_GOAL_MS = 20.0
HIDDEN_MOVE_GOAL_MS = 50.0
FOG_SCENARIO = "submarine_duel"  # subs hidden from the start: hidden Moves are common
AUDIT_GOAL_S = 10.0  # a 1,000-turn game
# the share of the fog players' choices that Move a piece the peer does not see, when one
# can: uniform random play made two hidden Moves a run, too few for a 95th percentile
HIDDEN_MOVE_SHARE = 0.25
# The fog game is played at least this long (s): some 200 ordinary actions, so that
# their 95th percentile rests on the ten slowest, and some 24 hidden Moves. In the 3 s
# the other parts take by default it gave some 15 ordinary actions, and the "95th
# percentile" was the slowest but one: one pause of the virtual machine decided the
# verdict (three 5 s runs, 24 actions each: 15.9, 20.9 and 14.9 ms; two 15 s runs, 81
# each: 17.2 and 18.8 ms). 15 s until session 44: 9 hidden Moves, whose "95th
# percentile" was their slowest, and a game that ended before pieces travel (Ends with
# a piece in transit are the slowest ordinary actions: session 43's 60 s games gave an
# ordinary p95 of 17.0-18.9 ms where 15 s ones gave 11.7-15.3 ms).
FOG_SECONDS = 40.0
HANDSHAKE_GOAL_MS = 50.0
DISCOVERY_GOAL_S = 2.0
ECHO_BYTES = 64


def free_port() -> int:
    """A TCP port free on this machine's loopback now: the loopback runs (and a second
    run of the benchmark at the same time, as two CI clones may be) never share one; in
    a fresh network namespace every port is free, so the same number serves there."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


# ---------------------------------------------------------------- statistics


def percentile(values: list[float], share: float) -> float:
    """The ``share`` (0..1) percentile by the nearest-rank method."""
    ordered = sorted(values)
    rank = max(1, min(len(ordered), int(-(-share * len(ordered) // 1))))
    return ordered[rank - 1]


def _ms(seconds: float) -> float:
    return round(seconds * 1000.0, 3)


def summary_ms(values: list[float]) -> dict[str, float | int]:
    """Median, 95th percentile and count of durations in seconds, as milliseconds."""
    return {"median_ms": _ms(statistics.median(values)), "p95_ms": _ms(percentile(values, 0.95)),
            "count": len(values)}


# ---------------------------------------------------------------- yardsticks


def echo_server(port: int) -> None:
    """A TCP echo server (run in its own process); stops when standard input closes."""
    async def serve_echo() -> None:
        async def echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            with contextlib.suppress(asyncio.IncompleteReadError, ConnectionError):
                while True:
                    writer.write(await reader.readexactly(ECHO_BYTES))
                    await writer.drain()
            writer.close()

        server = await asyncio.start_server(echo, "0.0.0.0", port)
        print(json.dumps({"event": "listening"}), flush=True)
        async with server:
            await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)

    asyncio.run(serve_echo())


def echo_client(host: str, port: int, count: int) -> None:
    """Print the round trips (s) of ``count`` 64-byte echoes as one JSON line."""
    async def measure() -> list[float]:
        reader, writer = await asyncio.open_connection(host, port)
        payload = bytes(ECHO_BYTES)
        times = []
        for _ in range(count):
            start = time.perf_counter()
            writer.write(payload)
            await writer.drain()
            await reader.readexactly(ECHO_BYTES)
            times.append(time.perf_counter() - start)
        writer.close()
        return times

    print(json.dumps({"event": "echo", "times": asyncio.run(measure())}), flush=True)


def tcp_connect_times(count: int) -> list[float]:
    """Seconds of a bare TCP connect (until both ends hold the connection) on loopback."""
    async def measure() -> list[float]:
        accepted: asyncio.Queue[asyncio.StreamWriter] = asyncio.Queue()

        async def keep(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await accepted.put(writer)

        server = await asyncio.start_server(keep, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        times = []
        async with server:
            for _ in range(count):
                start = time.perf_counter()
                _, writer = await asyncio.open_connection("127.0.0.1", port)
                other = await accepted.get()
                times.append(time.perf_counter() - start)
                writer.close()
                other.close()
        return times

    return asyncio.run(measure())


# ---------------------------------------------------------------- processes


Starter = Any  # (side, arguments) -> NamespaceProcess


def _local_starter(processes: list[NamespaceProcess]) -> Starter:
    def start(side: str, arguments: list[str]) -> NamespaceProcess:
        popen = subprocess.Popen(
            [sys.executable, "-u", *arguments], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, encoding="utf-8",
            errors="replace", env={**os.environ, "PYTHONUNBUFFERED": "1"})
        process = NamespaceProcess(popen, f"local {side}: python {' '.join(arguments)}")
        processes.append(process)
        return process
    return start


def _pair_starter(pair: NamespacePair) -> Starter:
    def start(side: str, arguments: list[str]) -> NamespaceProcess:
        return pair.run_python("a" if side == "a" else "b", arguments)
    return start


def echo_round_trips(start: Starter, host: str, count: int) -> list[float]:
    """Round trips of a TCP echo from a process on side b to one on side a."""
    port = free_port()
    server = start("a", ["-c", f"from benchmarks.net_bench import echo_server; "
                               f"echo_server({port})"])
    try:
        server.wait_for_event(lambda e: e.get("event") == "listening", 15)
        client = start("b", ["-c", f"from benchmarks.net_bench import echo_client; "
                                   f"echo_client({host!r}, {port}, {count})"])
        result = client.wait_for_event(lambda e: e.get("event") == "echo", 30)
        client.close()
    finally:
        server.close()
    return [float(t) for t in result["times"]]


def intent_latencies(start: Starter, host: str, seconds: float, folder: Path
                     ) -> list[float]:
    """Seconds from the mover's send to the receiver's apply, for every intent of two
    ``wec peer`` processes playing random legal intents for ``seconds``."""
    found: list[float] = _play_for(start, host, seconds, folder, fog=False,
                                   latencies=True)
    return found


def _play_for(start: Starter, host: str, seconds: float, folder: Path, *, fog: bool,
              latencies: bool) -> Any:
    common = ["--random", "--no-discovery", "--auto-confirm", "--stay", "--heartbeat", "1",
              *(["--hidden-moves", str(HIDDEN_MOVE_SHARE)] if fog else ["--no-fog"])]
    port = free_port()
    host_peer = start("a", [
        "-m", "wec", "peer", "--name", "BenchHost", "--host", "--port", str(port),
        "--colour", "white", "--seed", "1", "--state-dir", str(folder / "host"), *common,
        *(["--scenario", FOG_SCENARIO] if fog else [])])
    host_peer.wait_for_event(lambda e: e.get("event") == "started", 20)
    joiner = start("b", [
        "-m", "wec", "peer", "--name", "BenchJoiner", "--join", "BenchHost", "--address",
        f"{host}:{port}", "--colour", "black", "--seed", "2",
        "--state-dir", str(folder / "joiner"), *common])
    events: dict[str, list[dict[str, Any]]] = {"host": [], "joiner": []}
    try:
        joiner.wait_for_event(lambda e: e.get("event") == "game_started", 30)
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            for name, process in (("host", host_peer), ("joiner", joiner)):
                event = process.read_event(0.01)
                while event is not None:
                    events[name].append(event)
                    event = process.read_event(0.0)
            if any(e.get("event") == "result" for e in events["joiner"]):
                break
    finally:
        for process in (host_peer, joiner):
            with contextlib.suppress(OSError, ValueError):
                process.send_line("quit")
        for name, process in (("host", host_peer), ("joiner", joiner)):
            # what comes after the deadline, up to the final event with where the peer
            # paused (it comes once the peer knows its last messages arrived: 2-3 s;
            # without it the actions are left unmarked, paused None)
            final = None
            with contextlib.suppress(TimeoutError):
                final = process.wait_for_event(lambda e: e.get("event") == "final", 20)
            event = process.read_event(0.0)
            while event is not None:
                events[name].append(event)
                event = process.read_event(0.0)
            if final is not None:
                events[name].append(final)
        for process in (host_peer, joiner):
            process.close()
    if latencies:
        return _match_latencies(events["host"], events["joiner"])
    return fog_actions(events["host"], events["joiner"])


def peer_pauses(events: list[dict[str, Any]], key: str = "pauses"
                ) -> list[tuple[float, float]] | None:
    """Where a ``wec peer`` paused (its final event's ``pauses``: net.game_host
    ``LoopPauses``; with ``key`` ``full_collections``, the collector's full passes:
    ``FullCollections``), as (start, ms), None when it printed no final event."""
    for event in events:
        if event.get("event") == "final" and isinstance(event.get(key), list):
            return [(float(at), float(ms)) for at, ms in event[key]]
    return None


def _both(first: list[dict[str, Any]], second: list[dict[str, Any]], key: str
          ) -> list[tuple[float, float]] | None:
    """Both peers' :func:`peer_pauses` under ``key``, None unless both reported."""
    reported = [peer_pauses(first, key), peer_pauses(second, key)]
    return None if None in reported else [p for side in reported for p in side or ()]


def _within(spans: list[tuple[float, float]] | None, start: float, done: float
            ) -> list[float] | None:
    """The ms of the ``spans`` (start, ms) that overlap ``start``..``done``."""
    if spans is None:
        return None
    return [ms for at, ms in spans if at < done and at + ms / 1000.0 > start]


def fog_actions(first: list[dict[str, Any]], second: list[dict[str, Any]]
                ) -> list[dict[str, Any]]:
    """Per action of a fog-of-war game (both peers' events): ``seconds`` from the
    mover's send until both applied it, ``hidden`` (the receiver does not see the
    actor), ``kind`` (the intent's act, from the mover), ``bytes`` (both sides'
    frames for it) and ``paused``: whether either peer paused while the action was under
    way (:func:`peer_pauses`; None when a peer did not report). Actions not seen sent
    and applied on both sides are left out. ``collections``: the ms of the collector's
    full passes in either peer during the action (None when a peer did not report)."""
    def by_index(events: list[dict[str, Any]], kind: str) -> dict[int, dict[str, Any]]:
        return {int(e["index"]): e for e in events if e.get("event") == kind
                and "index" in e}

    pauses = _both(first, second, "pauses")
    collections = _both(first, second, "full_collections")
    found = []
    for movers, others in ((first, second), (second, first)):
        sent = by_index(movers, "intent_sent")
        ours, theirs = by_index(movers, "intent"), by_index(others, "intent")
        for index, event in sent.items():
            if "sent_at" not in event or index not in ours or index not in theirs:
                continue
            done = max(float(ours[index]["at"]), float(theirs[index]["at"]))
            intent = ours[index].get("intent") or {}
            start = float(event["sent_at"])
            paused = _within(pauses, start, done)
            found.append({"index": index, "seconds": done - start,
                          "paused": None if paused is None else bool(paused),
                          "collections": _within(collections, start, done),
                          "hidden": theirs[index].get("intent") is None,
                          "kind": str(intent.get("act", "?")),
                          "bytes": int(ours[index].get("wire_bytes", 0))
                          + int(theirs[index].get("wire_bytes", 0))})
    return sorted(found, key=lambda a: a["index"])


def fog_figures(actions: list[dict[str, Any]]) -> dict[str, Any]:
    """The (d) figures of :func:`fog_actions`' records."""
    hidden = [a["seconds"] for a in actions if a["hidden"] and a["kind"] == "move"]
    ordinary = [a["seconds"] for a in actions if not a["hidden"]]
    kinds: dict[str, list[int]] = {}
    times: dict[str, list[float]] = {}
    for a in actions:
        kind = a["kind"] + (" (hidden)" if a["hidden"] else "")
        kinds.setdefault(kind, []).append(a["bytes"])
        times.setdefault(kind, []).append(a["seconds"])
    reported = [a for a in actions if not a["hidden"] and a.get("paused") is not None]
    unpaused = [a["seconds"] for a in reported if not a["paused"]]
    passes = [ms for a in actions for ms in a.get("collections") or ()]
    return {"fog_hidden_move": summary_ms(hidden) if hidden else None,
            # the collector's full passes that fell inside actions (net.heap
            # settling_heap keeps them short): None when a peer did not report them
            "fog_collections": None if any(a.get("collections") is None for a in actions)
            else {"count": len(passes), "max_ms": max(passes, default=0.0)},
            "fog_ordinary": summary_ms(ordinary) if ordinary else None,
            # the ordinary actions during which neither peer paused (net.game_host
            # LoopPauses), and how many did: read beside the goal, never instead of it
            "fog_ordinary_unpaused": summary_ms(unpaused) if unpaused else None,
            "fog_ordinary_paused": (len(reported) - len(unpaused)) if reported else None,
            "fog_bytes": {kind: {"count": len(v), "median": int(statistics.median(v)),
                                 "max": max(v)} for kind, v in sorted(kinds.items())},
            # where the ordinary figure's tail comes from (an End of turn is a chain of
            # round trips, a Pick-up one): not goals
            "fog_times": {kind: {**summary_ms(v), "max_ms": _ms(max(v))}
                          for kind, v in sorted(times.items())}}


def _match_latencies(first: list[dict[str, Any]], second: list[dict[str, Any]]
                     ) -> list[float]:
    def intents(events: list[dict[str, Any]], by_us: bool) -> dict[tuple[str, int], float]:
        # The mover's time is "sent_at", read before the frame was written: its printed
        # "at" comes after the write returned, when the receiver may already have applied
        # the intent (that ordering made latencies come out negative under load).
        clock = "sent_at" if by_us else "at"
        return {(e["side"], e["index"]): float(e[clock]) for e in events
                if e.get("event") == "intent" and e.get("by_us") is by_us and clock in e}

    latencies = []
    for sent_events, applied_events in ((first, second), (second, first)):
        sent = intents(sent_events, True)
        for key, applied_at in intents(applied_events, False).items():
            if key in sent:
                latencies.append(applied_at - sent[key])
    return latencies


# ---------------------------------------------------------------- the run


def run(seconds: float, out: TextIO, fog_seconds: float | None = None) -> dict[str, Any]:
    """Measure (a)-(e), print a table to ``out`` and return the figures. The fog game
    is played for ``fog_seconds`` (by default ``seconds``, and at least
    ``FOG_SECONDS``)."""
    figures: dict[str, Any] = {"seconds": seconds}
    fog_for = max(seconds, FOG_SECONDS) if fog_seconds is None else fog_seconds
    echo_count = max(50, int(seconds * 200))
    with tempfile.TemporaryDirectory(prefix="wec-net-bench-") as folder:
        processes: list[NamespaceProcess] = []
        local = _local_starter(processes)
        try:
            figures["loopback_latencies"] = intent_latencies(
                local, "127.0.0.1", seconds, Path(folder) / "loopback")
            figures["loopback_intent"] = summary_ms(figures["loopback_latencies"])
            figures["loopback_echo"] = summary_ms(echo_round_trips(local, "127.0.0.1",
                                                                   echo_count))
            figures["fog_actions"] = _play_for(local, "127.0.0.1", fog_for,
                                               Path(folder) / "fog", fog=True,
                                               latencies=False)
            figures.update(fog_figures(figures["fog_actions"]))
        finally:
            for process in processes:
                process.close()
        from wec.benchmarks.fog_bench import measure as measure_fog

        audit = _apart_from_our_heap(
            lambda: measure_fog(turns=max(10, min(100, int(seconds * 10)))))
        figures["fog_audit"] = {"turns": audit["turns"], "seconds": audit["audit_seconds"],
                                "replay_seconds": audit["replay_seconds"],
                                "per_1000_turns_s": audit["audit_seconds_per_1000_turns"]}
        # the protocol's own computation (both FogGames in one process, no transport):
        # the yardstick of the fog rows, so the stack's share shows
        figures["fog_in_process"] = {
            name: None if not audit[key].get("count") else
            {"median_ms": audit[key]["median"], "p95_ms": audit[key]["p95"],
             "count": audit[key]["count"]}
            for name, key in (("hidden_move", "hidden_move_ms"), ("ordinary", "ordinary_ms"))}
        handshakes = measure_handshake(max(10, int(seconds * 20)))
        figures["handshake"] = summary_ms(handshakes)
        figures["tcp_connect"] = summary_ms(tcp_connect_times(max(10, int(seconds * 20))))
        try:
            require_root()
            with namespace_pair() as pair:
                figures["veth_latencies"] = intent_latencies(
                    _pair_starter(pair), pair.a.address, seconds, Path(folder) / "veth")
                figures["veth_intent"] = summary_ms(figures["veth_latencies"])
                figures["veth_echo"] = summary_ms(echo_round_trips(
                    _pair_starter(pair), pair.a.address, echo_count))
            with namespace_pair() as pair:
                figures["discovery_s"] = round(measure_discovery(pair), 3)
            figures["namespaces"] = None
        except NamespaceError as error:
            figures["veth_intent"] = figures["veth_echo"] = figures["discovery_s"] = None
            figures["veth_latencies"] = None
            figures["namespaces"] = str(error)
    _judge(figures)
    _report(figures, out)
    return figures


def _judge(figures: dict[str, Any]) -> None:
    figures["loopback_intent_pass"] = figures["loopback_intent"]["p95_ms"] <= INTENT_GOAL_MS
    figures["handshake_pass"] = figures["handshake"]["p95_ms"] <= HANDSHAKE_GOAL_MS
    veth = figures["veth_intent"]
    figures["veth_intent_pass"] = None if veth is None else veth["p95_ms"] <= INTENT_GOAL_MS
    discovery = figures["discovery_s"]
    figures["discovery_pass"] = None if discovery is None else discovery <= DISCOVERY_GOAL_S
    hidden, ordinary = figures["fog_hidden_move"], figures["fog_ordinary"]
    figures["fog_hidden_move_pass"] = (None if hidden is None
                                       else hidden["p95_ms"] <= HIDDEN_MOVE_GOAL_MS)
    figures["fog_ordinary_pass"] = (None if ordinary is None
                                    else ordinary["p95_ms"] <= INTENT_GOAL_MS)
    figures["fog_audit_pass"] = figures["fog_audit"]["per_1000_turns_s"] <= AUDIT_GOAL_S


def _apart_from_our_heap(measure: Callable[[], Any]) -> Any:
    """``measure()`` with this process's objects so far kept out of the garbage
    collector's full passes (``gc.freeze``). The in-process yardstick measures the fog
    protocol's own computation, yet it ran in the process that had just driven the
    loopback and namespace plays, whose leftovers the full collections walked too: four
    of them took 57 to 168 ms there against 18 to 124 ms run alone (``gc.callbacks``,
    100 turns), and one landing in a hidden Move put that row's yardstick at 158-209 ms
    against 30-33 ms run alone."""
    gc.collect()
    gc.freeze()
    try:
        return measure()
    finally:
        gc.unfreeze()


def _verdict(passed: bool | None) -> str:
    return "n/a " if passed is None else "PASS" if passed else "FAIL"


def _report(figures: dict[str, Any], out: TextIO) -> None:
    def line(label: str, measured: dict[str, Any] | None, yardstick: dict[str, Any] | None,
             yard_label: str, goal: str, passed: bool | None) -> None:
        if measured is None:
            out.write(f"{label:<28} unavailable: {figures['namespaces']}\n")
            return
        yard = (f"{yard_label} {yardstick['median_ms']:.3f} / {yardstick['p95_ms']:.3f} ms"
                if yardstick else "")
        out.write(f"{label:<28} median {measured['median_ms']:8.3f} ms  p95 "
                  f"{measured['p95_ms']:8.3f} ms  (n={measured['count']})  {yard}  "
                  f"goal {goal}  {_verdict(passed)}\n")

    out.write("wec bench net: LAN play (yardsticks measured in the same run)\n")
    line("intent applied, loopback", figures["loopback_intent"], figures["loopback_echo"],
         "tcp echo rtt", f"p95 <= {INTENT_GOAL_MS:g} ms", figures["loopback_intent_pass"])
    line("intent applied, veth", figures["veth_intent"], figures["veth_echo"],
         "tcp echo rtt", f"p95 <= {INTENT_GOAL_MS:g} ms", figures["veth_intent_pass"])
    line("handshake, loopback", figures["handshake"], figures["tcp_connect"],
         "tcp connect", f"p95 <= {HANDSHAKE_GOAL_MS:g} ms", figures["handshake_pass"])
    for label, key, process, goal in (
            ("fog: hidden Move, loopback", "fog_hidden_move", "hidden_move",
             HIDDEN_MOVE_GOAL_MS),
            ("fog: ordinary, loopback", "fog_ordinary", "ordinary", INTENT_GOAL_MS)):
        if figures[key] is None:
            out.write(f"{label:<28} none played in this run  goal p95 <= {goal:g} ms  "
                      f"{_verdict(None)}\n")
        else:
            line(label, figures[key], figures["fog_in_process"][process],
                 "in process", f"p95 <= {goal:g} ms", figures[key + "_pass"])
    unpaused, paused = figures.get("fog_ordinary_unpaused"), figures.get("fog_ordinary_paused")
    if paused is None:
        out.write(f"{'fog: ordinary, no pause':<28} the peers did not report their "
                  "pauses\n")
    elif unpaused is None:
        out.write(f"{'fog: ordinary, no pause':<28} none: all {paused} ordinary actions had "
                  f"a peer pause > {PAUSE_MS:g} ms\n")
    else:
        out.write(f"{'fog: ordinary, no pause':<28} median {unpaused['median_ms']:8.3f} ms  "
                  f"p95 {unpaused['p95_ms']:8.3f} ms  (n={unpaused['count']}; {paused} "
                  f"ordinary actions had a peer pause > {PAUSE_MS:g} ms: not a goal)\n")
    passes = figures.get("fog_collections")
    if passes is None:
        out.write(f"{'fog: full collections':<28} the peers did not report them\n")
    else:
        out.write(f"{'fog: full collections':<28} {passes['count']} inside actions, the "
                  f"longest {passes['max_ms']:.1f} ms (the collector's passes over its "
                  "oldest generation, either peer: not a goal)\n")
    audit = figures["fog_audit"]
    out.write(f"{'fog: audit of 1,000 turns':<28} {audit['per_1000_turns_s']:8.3f} s   "
              f"(measured {audit['seconds']:.3f} s on {audit['turns']} turns, in process; "
              f"the engine's replay of the same actions {audit['replay_seconds']:.3f} s, "
              f"ratio {audit['seconds'] / max(audit['replay_seconds'], 1e-9):.1f})  "
              f"goal <= {AUDIT_GOAL_S:g} s  {_verdict(figures['fog_audit_pass'])}\n")
    for kind, spent in figures["fog_times"].items():
        out.write(f"{'fog: time, ' + kind:<28} median {spent['median_ms']:8.3f} ms  p95 "
                  f"{spent['p95_ms']:8.3f} ms  max {spent['max_ms']:8.3f} ms  "
                  f"(n={spent['count']}: not a goal)\n")
    for kind, sizes in figures["fog_bytes"].items():
        out.write(f"{'fog: bytes, ' + kind:<28} median {sizes['median']:8d}  max "
                  f"{sizes['max']:8d}  (n={sizes['count']}, frames of both sides)\n")
    discovery = figures["discovery_s"]
    if discovery is None:
        out.write(f"{'discovery, veth':<28} unavailable: {figures['namespaces']}\n")
    else:
        echo = figures["veth_echo"]
        out.write(f"{'discovery, veth':<28} {discovery:8.3f} s   (tcp echo rtt "
                  f"{echo['median_ms']:.3f} ms)  goal <= {DISCOVERY_GOAL_S:g} s  "
                  f"{_verdict(figures['discovery_pass'])}\n")
