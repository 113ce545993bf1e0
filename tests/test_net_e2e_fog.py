"""Fog of war on the real stack (issue 21): two ``wec peer`` processes in two network
namespaces (tests/netns.py) play king_hunt with O15 and O16 on (each machine holds only
its half state) by random legal intents on what each side knows, to the King's capture,
and both end with a clean audit, the audited game saved for Replays. Every decrypted
message each process receives is captured (net.session's test tap): the peers exchange
fog protocol messages, turn hashes and reveals, never an intent message or a full state.
No file a machine writes during the game (journal, saves, its event log, desync
reports) holds an enemy piece its side does not see: each half state in them is checked
against the audited full game at that step. The faults of tests/test_net_e2e.py (the
link cut mid-game, a peer killed with SIGKILL and restarted, delayed, duplicated and
reordered frames, a cut inside the handshake or the lobby) leave the fog game intact
too.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from halves import unseen_in
from test_net_e2e import HEARTBEAT, HOST_PORT, kind, start_proxy, via_proxy

from wec.benchmarks.netns import NamespacePair, NamespaceProcess
from wec.engine.knowledge import project
from wec.engine.match import Match
from wec.engine.pieces import Side
from wec.net import fog_codec
from wec.net.lockstep_fog import unpack_fog
from wec.net.messages import (
    DesyncDetail,
    FogPart,
    FogReveal,
    FogWire,
    IntentMessage,
    StartProposal,
    TurnHash,
    decode_message,
)
from wec.net.session import TAP_VARIABLE, read_tap
from wec.storage.fog_saves import decode_fog_save, is_fog_save
from wec.storage.saves import read_save

pytest_plugins = ["netns"]


def fog_peer(pair: NamespacePair, tmp_path: Path, role: str, *extra: str
             ) -> NamespaceProcess:
    """The host (namespace a, White, proposes air_war: stealth pawns and AAAs hidden
    from the start, so Black receives its own half of the board) or the joiner (b,
    Black), each playing random legal intents on its half, its received messages
    tapped. The seeds
    play a 44-action game (Black's King falls), the same every run: the CLI's random
    choice is keyed by the half state it holds."""
    state = tmp_path / role
    tap = tmp_path / f"tap-{role}.bin"
    if role == "host":
        arguments = ["--name", "Host", "--host", "--port", str(HOST_PORT), "--colour",
                     "white", "--scenario", "air_war", "--seed", "22"]
    else:
        for process in pair.processes:
            if not process.events:
                process.wait_for_event(lambda event: True, 15)
        arguments = ["--name", "Joiner", "--join", "Host", "--colour", "black", "--port",
                     str(HOST_PORT), "--seed", "12"]
    return pair.run_python("a" if role == "host" else "b", [
        "-m", "wec", "peer", "--state-dir", str(state), "--heartbeat", HEARTBEAT,
        "--random", "--auto-confirm", *arguments, *extra], env={TAP_VARIABLE: str(tap)})


def finish(host: NamespaceProcess, joiner: NamespaceProcess, timeout: float = 120
           ) -> dict[str, dict[str, Any]]:
    """Both peers play to the end: the same public hash, actions and result; each audited
    the game clean."""
    finals = {"joiner": joiner.wait_for_event(kind("final"), timeout),
              "host": host.wait_for_event(kind("final"), timeout)}
    assert joiner.wait(20) == 0 and host.wait(20) == 0
    a, b = finals["host"], finals["joiner"]
    assert a["fog"] and b["fog"], finals
    assert (a["state_hash"], a["actions"], a["turn"]) == (b["state_hash"], b["actions"],
                                                          b["turn"]), finals
    assert a["result"] == b["result"] and a["result"]["how"] == "rules"
    assert a["result"]["reason"].startswith("R12")
    assert (a["intents_sent"], a["peer_intents_applied"]) == (b["peer_intents_applied"],
                                                             b["intents_sent"])
    assert a["audit"] == b["audit"] == "audited: clean"
    return finals


def audited_game(tmp_path: Path, role: str) -> Match:
    [path] = (tmp_path / role / "saves").glob("*-audited.wecsave")
    return read_save(path)


def check_files_and_traffic(tmp_path: Path, role: str, side: Side,
                            process: NamespaceProcess) -> None:
    """What one machine received and wrote holds nothing of the enemy's hidden pieces."""
    full = audited_game(tmp_path, role)
    # every decrypted message it received
    kinds: set[type] = set()
    parts: list[bytes] = []
    for body in read_tap(tmp_path / f"tap-{role}.bin"):
        message = decode_message(body)
        kinds.add(type(message))
        if isinstance(message, FogPart):
            parts.append(message.body)
        elif isinstance(message, FogWire | FogReveal):  # a signed fog protocol message
            unpack_fog(b"".join(parts) + message.body, 1 << 20)
            parts = []
        assert not isinstance(message, IntentMessage | DesyncDetail), message
    assert {FogWire, FogReveal, TurnHash} <= kinds
    # the journal: its half state of the start
    [journal] = (tmp_path / role / "games").glob("*.jsonl")
    lines = journal.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    assert "start" not in header
    half = fog_codec.position_from_wire(fog_codec.unpack(base64.b64decode(
        header["fog"]["half"])))
    assert half.viewer is side and not unseen_in(half, full.start)
    assert half == project(full.start, side)
    for line in lines[1:]:
        record = json.loads(line)
        if record.get("k") == "play":  # our own intents only
            continue
        if "m" in record:
            assert not isinstance(decode_message(base64.b64decode(record["m"])),
                                  IntentMessage | StartProposal)
    # its saves (before the audit: its half at that step)
    for path in (tmp_path / role / "saves").glob("*.wecsave"):
        data = path.read_bytes()
        if is_fog_save(data):
            save = decode_fog_save(data)
            assert save.side is side
            assert not unseen_in(save.half, full.position_at(save.steps))
    assert not (tmp_path / role / "desync").exists()
    # its event log: the peer's hidden intents are never printed
    for event in process.events:
        if event.get("event") == "intent" and not event.get("by_us"):
            assert set(event) >= {"side", "turn", "intent"}


def test_a_whole_fog_game_with_a_clean_audit_and_nothing_leaked(
        netns_pair: NamespacePair, tmp_path: Path) -> None:
    host = fog_peer(netns_pair, tmp_path, "host")
    joiner = fog_peer(netns_pair, tmp_path, "joiner")
    started = joiner.wait_for_event(kind("game_started"), 30)
    assert started["options"]["stealth_invisibility"] is True
    assert started["options"]["submersion_invisibility"] is True
    joiner.wait_for_event(kind("intent"), 30)
    host.send_line("save midgame.wecsave")
    host.wait_for_event(kind("saved"), 30)
    joiner.wait_for_event(kind("saved"), 30)
    finals = finish(host, joiner)
    for role, side, process in (("host", Side.WHITE, host), ("joiner", Side.BLACK, joiner)):
        check_files_and_traffic(tmp_path, role, side, process)
        match = audited_game(tmp_path, role)
        assert len(match.actions) == finals[role]["actions"]
        assert match.current.result is not None
    agreed = [e["turn"] for e in joiner.events if e["event"] == "turn_agreed"]
    assert agreed == sorted(set(agreed)) and len(agreed) >= finals["joiner"]["turn"] - 1


def test_the_link_down_and_a_killed_peer_leave_the_fog_game_intact(
        netns_pair: NamespacePair, tmp_path: Path) -> None:
    host = fog_peer(netns_pair, tmp_path, "host")
    joiner = fog_peer(netns_pair, tmp_path, "joiner", "--hold-at", "8")
    joiner.wait_for_event(kind("holding"), 60)
    netns_pair.cut_link()
    joiner.wait_for_event(kind("disconnected"), 10)
    host.wait_for_event(kind("disconnected"), 10)
    netns_pair.restore_link()
    joiner.wait_for_event(kind("resumed"), 30)
    joiner.kill()  # SIGKILL: no goodbye, no cleanup
    host.wait_for_event(kind("disconnected"), 10)
    joiner = fog_peer(netns_pair, tmp_path, "joiner")
    restored = joiner.wait_for_event(kind("game_restored"), 20)
    assert restored["actions"] >= 8 if "actions" in restored else True
    joiner.wait_for_event(kind("resumed"), 30)
    finish(host, joiner)


def test_delayed_duplicated_and_reordered_frames_never_change_the_fog_game(
        netns_pair: NamespacePair, tmp_path: Path) -> None:
    proxy = start_proxy(netns_pair, fault_seed=7)
    host = fog_peer(netns_pair, tmp_path, "host", "--no-discovery")
    joiner = fog_peer(netns_pair, tmp_path, "joiner", *via_proxy())
    finish(host, joiner)
    while proxy.read_event(0.5) is not None:
        pass
    faults = [e["event"] for e in proxy.events]
    assert faults.count("duplicate") >= 1 and faults.count("reorder") >= 1
    assert not [e for e in host.events + joiner.events if e["event"] == "refused"]


@pytest.mark.parametrize(("cut_after", "step"), [
    (3, "handshake: before the initiator's signature"),
    (12, "lobby: during the invitation and setup"),
])
def test_a_cut_inside_a_protocol_step_recovers_with_fog(
        netns_pair: NamespacePair, tmp_path: Path, cut_after: int, step: str) -> None:
    proxy = start_proxy(netns_pair, cut_after=cut_after)
    host = fog_peer(netns_pair, tmp_path, "host", "--no-discovery")
    joiner = fog_peer(netns_pair, tmp_path, "joiner", *via_proxy())
    cut = proxy.wait_for_event(kind("cut"), 15)
    assert cut["frames"] == cut_after, step
    proxy.wait_for_event(kind("connection", connection=2), 15)
    finish(host, joiner)
