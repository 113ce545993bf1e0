"""The LAN-play benchmark (benchmarks/net_bench.py, ``wec bench net``) runs and reports;
its statistics are exact. Speed itself is not asserted, only that each figure is there
beside its yardstick with a verdict."""

from __future__ import annotations

import io
from typing import Any

import pytest

from wec.benchmarks.fog_bench import measure as measure_fog
from wec.benchmarks.net_bench import (
    _match_latencies,
    fog_actions,
    fog_figures,
    percentile,
    run,
    summary_ms,
)


def test_percentiles_use_the_nearest_rank() -> None:
    values = [float(v) for v in range(1, 21)]  # 1..20
    assert percentile(values, 0.95) == 19.0
    assert percentile(values, 0.5) == 10.0
    assert percentile([7.0], 0.95) == 7.0
    assert summary_ms([0.001, 0.002, 0.003, 0.010]) == {"median_ms": 2.5, "p95_ms": 10.0,
                                                         "count": 4}


def test_latencies_pair_each_sent_intent_with_its_application_on_the_other_side() -> None:
    # The mover's clock is "sent_at" (read before the write), never its printed "at",
    # which can come after the receiver applied the intent.
    host = [{"event": "intent", "by_us": True, "side": "white", "index": 0, "at": 10.5,
             "sent_at": 10.0},
            {"event": "intent", "by_us": False, "side": "black", "index": 0, "at": 9.004},
            {"event": "turn_end", "at": 10.1}]
    joiner = [{"event": "intent", "by_us": True, "side": "black", "index": 0, "at": 9.3,
               "sent_at": 9.0},
              {"event": "intent", "by_us": False, "side": "white", "index": 0, "at": 10.002},
              {"event": "intent", "by_us": False, "side": "white", "index": 1, "at": 11.0}]
    latencies = sorted(round(v, 6) for v in _match_latencies(host, joiner))
    assert latencies == [0.002, 0.004]  # white #1 was never reported sent: not counted


def test_an_intent_reported_sent_without_its_send_time_is_not_counted() -> None:
    host = [{"event": "intent", "by_us": True, "side": "white", "index": 0, "at": 10.0}]
    joiner = [{"event": "intent", "by_us": False, "side": "white", "index": 0, "at": 9.9}]
    assert _match_latencies(host, joiner) == []


def test_a_fog_action_lasts_from_the_send_until_both_sides_applied_it() -> None:
    host = [{"event": "intent_sent", "index": 3, "at": 10.2, "sent_at": 10.0},
            {"event": "intent", "by_us": True, "index": 3, "at": 10.030, "wire_bytes": 900,
             "intent": {"act": "move"}},
            {"event": "intent", "by_us": False, "index": 4, "at": 11.0, "wire_bytes": 10,
             "intent": None}]
    joiner = [{"event": "intent", "by_us": False, "index": 3, "at": 10.040,
               "wire_bytes": 300, "intent": None},
              {"event": "intent_sent", "index": 4, "at": 10.9},  # no sent_at: not counted
              {"event": "intent", "by_us": True, "index": 4, "at": 10.95, "wire_bytes": 5,
               "intent": {"act": "end"}}]
    [action] = fog_actions(host, joiner)
    assert action["index"] == 3 and round(action["seconds"], 6) == 0.04
    assert (action["hidden"], action["kind"], action["bytes"]) == (True, "move", 1200)
    assert action["paused"] is None  # the peers printed no final event
    figures = fog_figures([action])
    assert (figures["fog_ordinary_unpaused"], figures["fog_ordinary_paused"]) == (None, None)
    assert figures["fog_hidden_move"] == {"median_ms": 40.0, "p95_ms": 40.0, "count": 1}
    assert figures["fog_ordinary"] is None
    assert figures["fog_bytes"] == {"move (hidden)": {"count": 1, "median": 1200,
                                                      "max": 1200}}
    assert figures["fog_times"] == {"move (hidden)": {"median_ms": 40.0, "p95_ms": 40.0,
                                                      "count": 1, "max_ms": 40.0}}


def test_an_action_during_which_a_peer_paused_is_marked() -> None:
    """A pause (a peer's final event: start, ms) that overlaps the action's span, from
    the mover's send until both applied it, marks it; the unpaused figures leave it out.
    """
    def played(index: int, sent_at: float, done: float) -> tuple[list[Any], list[Any]]:
        mover = [{"event": "intent_sent", "index": index, "at": sent_at, "sent_at": sent_at},
                 {"event": "intent", "by_us": True, "index": index, "at": done - 0.001,
                  "wire_bytes": 1, "intent": {"act": "fire"}}]
        other = [{"event": "intent", "by_us": False, "index": index, "at": done,
                  "wire_bytes": 1, "intent": {"act": "fire"}}]
        return mover, other

    host, joiner = [], []
    for index, (sent_at, done) in enumerate([(1.0, 1.010), (2.0, 2.030), (3.0, 3.012)]):
        mover, other = played(index, sent_at, done)
        host += mover
        joiner += other
    host.append({"event": "final", "pauses": [[2.004, 3.5], [2.9995, 1.6]],
                 "full_collections": [[0.2, 40.0], [3.001, 2.5]]})
    joiner.append({"event": "final", "pauses": [[0.5, 2.0]],  # before any action
                   "full_collections": [[2.01, 7.25]]})
    actions = fog_actions(host, joiner)
    assert [a["paused"] for a in actions] == [False, True, True]
    # the collector's full passes inside each action, either peer (the 40 ms one came
    # before the game)
    assert [a["collections"] for a in actions] == [[], [7.25], [2.5]]
    figures = fog_figures(actions)
    assert figures["fog_collections"] == {"count": 2, "max_ms": 7.25}
    assert fog_figures(fog_actions(host, joiner[:-1]))["fog_collections"] is None
    assert figures["fog_ordinary_paused"] == 2
    assert figures["fog_ordinary_unpaused"] == {"median_ms": 10.0, "p95_ms": 10.0,
                                                "count": 1}
    assert figures["fog_ordinary"]["count"] == 3  # the goal's figure keeps them all
    assert figures["fog_times"] == {"fire": {"median_ms": 12.0, "p95_ms": 30.0, "count": 3,
                                             "max_ms": 30.0}}


def test_the_benchmark_measures_every_figure_beside_its_yardstick() -> None:
    out = io.StringIO()
    figures = run(seconds=0.5, out=out, fog_seconds=3.0)  # FOG_SECONDS: 40
    for key in ("loopback_latencies", "veth_latencies"):
        # every single sample, not just the median: a figure that can come out
        # negative is a measurement bug (the receiver applies after the mover sends)
        assert figures[key] and min(figures[key]) > 0, (key, min(figures[key] or [0]))
    if figures["namespaces"] is not None:  # no veth pair here: say why, never skip
        pytest.fail(f"the veth figures need network namespaces: {figures['namespaces']}")
    for key in ("loopback_intent", "veth_intent", "handshake"):
        assert figures[key]["count"] >= 10, key
        assert 0 < figures[key]["median_ms"] <= figures[key]["p95_ms"], key
    for key in ("loopback_echo", "veth_echo", "tcp_connect"):
        assert figures[key]["median_ms"] > 0, key
    assert 0 < figures["discovery_s"] < 10
    for key in ("loopback_intent_pass", "veth_intent_pass", "handshake_pass",
                "discovery_pass"):
        assert isinstance(figures[key], bool), key
    # fog of war (issue 21): every action measured from the mover's send until both
    # applied it, never negative; bytes per action kind from both sides' frames
    actions = figures["fog_actions"]
    assert actions and min(a["seconds"] for a in actions) > 0, actions[:3]
    assert all(a["bytes"] > 0 for a in actions)
    # both peers noted the collector's full passes (net.heap FullCollections)
    assert figures["fog_collections"] is not None
    assert all(ms > 0 for a in actions for ms in a["collections"])
    assert figures["fog_ordinary"]["count"] >= 1
    # the players pick a hidden Move when they can a quarter of the time (--hidden-moves:
    # the choices follow the seeds, so the third action is one), or there would be two a
    # run, too few for the goal's 95th percentile
    assert figures["fog_hidden_move"] is not None
    assert figures["fog_hidden_move"]["count"] >= 1
    assert 0 < figures["fog_ordinary"]["median_ms"] <= figures["fog_ordinary"]["p95_ms"]
    for sizes in figures["fog_bytes"].values():
        assert 0 < sizes["median"] <= sizes["max"]
    assert figures["fog_audit"]["per_1000_turns_s"] > 0
    # beside it its yardstick: the engine's replay of the same actions, in the same run
    audit = figures["fog_audit"]
    assert 0 < audit["replay_seconds"] < audit["seconds"]
    for key in ("fog_hidden_move_pass", "fog_ordinary_pass"):
        assert figures[key] in (True, False, None), key
    assert isinstance(figures["fog_audit_pass"], bool)
    # both peers printed their final event with where they paused: every ordinary action
    # is marked paused or not
    assert all(isinstance(a["paused"], bool) for a in actions), actions[:3]
    assert 0 <= figures["fog_ordinary_paused"] <= figures["fog_ordinary"]["count"]
    text = out.getvalue()
    assert "intent applied, loopback" in text and "intent applied, veth" in text
    assert "tcp echo rtt" in text and "tcp connect" in text
    assert f"{figures['loopback_intent']['p95_ms']:8.3f} ms" in text
    assert "fog: hidden Move, loopback" in text and "fog: audit of 1,000 turns" in text
    assert f"the engine's replay of the same actions {audit['replay_seconds']:.3f} s" in text
    assert "fog: bytes, " in text and "fog: ordinary, no pause" in text
    for kind, spent in figures["fog_times"].items():  # each kind's time, by its count
        assert 0 < spent["median_ms"] <= spent["p95_ms"] <= spent["max_ms"], kind
        assert spent["count"] == figures["fog_bytes"][kind]["count"], kind
        assert f"fog: time, {kind}" in text, kind
    assert text.count("PASS") + text.count("FAIL") + text.count("n/a ") == 7


def test_the_in_process_fog_figures_time_every_action_by_its_kind() -> None:
    """benchmarks.fog_bench: each action of the game is timed once under its kind (the
    same kinds as its bytes), and the game audits clean."""
    figures = measure_fog(turns=3, seed=2)
    timed = figures["ms_per_action"]
    assert set(timed) == set(figures["bytes_per_action"]) and "EndTurn" in timed
    assert sum(f["count"] for f in timed.values()) == figures["actions"]
    assert all(0 < f["median"] <= f["p95"] for f in timed.values())
    # the audit's yardstick replays every action played: some work, less than the audit
    assert 0 < figures["replay_seconds"] < figures["audit_seconds"]
