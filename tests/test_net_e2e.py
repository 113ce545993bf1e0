"""LAN play end to end on the real stack (issue 8 item 9).

Two ``wec peer`` processes, each in its own network namespace, joined by a veth pair
(tests/netns.py): discovery, pairing, negotiation and a full open-information game to
the King's capture; the connection cut at every protocol step (inside the handshake,
during pairing, in the lobby, mid-game by taking the link down and by killing a peer
and restarting it on its state dir), each time with the game finished and the final
state hash and intent counts equal to the game played locally (no turn lost or
applied twice); delayed, duplicated and reordered frames; a changed and a wrong key
refused.

The kernel here has no sch_netem (benchmarks/netns.py says why when it is missing), so
frames are delayed, duplicated, reordered and cut by a small TCP proxy that runs in the
joiner's namespace and understands the frame layout (net.frames): its traffic crosses
the veth pair like the peers' own. When netem is available it is switched on as well.
"""

from __future__ import annotations

import asyncio
import json
import random
import struct
import sys
from pathlib import Path
from typing import Any

import pytest

from wec.benchmarks.netns import (
    NamespacePair,
    NamespaceProcess,
    new_fingerprint,
    start_discovery_peer,
)
from wec.engine.formats import intent_to_dict
from wec.engine.intents import Intent
from wec.engine.match import Match
from wec.engine.pieces import Side
from wec.net.lobby import StartBoard, build_start, stage1_options
from wec.storage.scenarios import load_scenario

pytest_plugins = ["netns"]

HOST_PORT = 7400
PROXY_PORT = 7500
HEARTBEAT = "0.25"  # a dead link is noticed after 5 heartbeats (1.25 s)
KING_HUNT = load_scenario("king_hunt")
START = build_start(StartBoard("king_hunt", KING_HUNT), stage1_options(KING_HUNT.options))
SEED = 22  # random legal play from king_hunt: White takes the King on turn 6


def scripted_game(seed: int = SEED) -> Match:
    rng = random.Random(seed)
    match = START
    while match.current.result is None:
        match = match.play(rng.choice(match.legal_intents()))
    return match


FINAL = scripted_game()
WINNER_REASON = "R12.1: Black lost the King, taken at (8,7) ground by a Tank"
BLACK_INTENTS = sum(1 for action in FINAL.actions if action.side is Side.BLACK)  # 12
WHITE_INTENTS = len(FINAL.actions) - BLACK_INTENTS  # 9


def write_script(path: Path, intents: list[Intent]) -> Path:
    path.write_text("".join(json.dumps(intent_to_dict(i)) + "\n" for i in intents),
                    encoding="utf-8")
    return path


@pytest.fixture
def scripts(tmp_path: Path) -> dict[str, Path]:
    """Each side's intents of the scripted game, one file per side."""
    return {side.value: write_script(tmp_path / f"{side.value}.jsonl",
                                     [a.intent for a in FINAL.actions if a.side is side])
            for side in (Side.BLACK, Side.WHITE)}


def peer_arguments(name: str, state_dir: Path, *extra: str) -> list[str]:
    return ["-m", "wec", "peer", "--name", name, "--state-dir", str(state_dir),
            "--heartbeat", HEARTBEAT, "--no-fog", *extra]


def start_host(pair: NamespacePair, tmp_path: Path, scripts: dict[str, Path],
               *extra: str, name: str = "Host", state: str = "host") -> NamespaceProcess:
    """The host in namespace a: White, proposes king_hunt, accepts invitations."""
    return pair.run_python("a", peer_arguments(
        name, tmp_path / state, "--host", "--port", str(HOST_PORT), "--colour", "white",
        "--scenario", "king_hunt", "--script", str(scripts["white"]), *extra))


def start_joiner(pair: NamespacePair, tmp_path: Path, scripts: dict[str, Path],
                 *extra: str, join: str = "Host") -> NamespaceProcess:
    """The joiner in namespace b: Black, finds the host and invites it (once every
    process started so far printed its first line: the host listens)."""
    for process in pair.processes:
        if not process.events:
            process.wait_for_event(lambda event: True, 15)
    return pair.run_python("b", peer_arguments(
        "Joiner", tmp_path / "joiner", "--join", join, "--colour", "black",
        "--port", str(HOST_PORT), "--script", str(scripts["black"]), *extra))


def kind(name: str, **fields: Any):
    return lambda event: event.get("event") == name and all(
        event.get(key) == value for key, value in fields.items())


def assert_whole_game(final: dict[str, Any], side: Side) -> None:
    """The final line of a peer: the locally played game, no intent lost or repeated."""
    ours, theirs = ((BLACK_INTENTS, WHITE_INTENTS) if side is Side.BLACK
                    else (WHITE_INTENTS, BLACK_INTENTS))
    assert final["state_hash"] == FINAL.current_hash
    assert (final["actions"], final["turn"]) == (21, 6)
    assert (final["intents_sent"], final["peer_intents_applied"]) == (ours, theirs)
    assert final["result"] == {"winner": "white", "reason": WINNER_REASON, "how": "rules"}


def finish(host: NamespaceProcess, joiner: NamespaceProcess, timeout: float = 30) -> None:
    """Both peers end the game and exit; both final lines show the whole game."""
    assert_whole_game(joiner.wait_for_event(kind("final"), timeout), Side.BLACK)
    assert_whole_game(host.wait_for_event(kind("final"), timeout), Side.WHITE)
    assert joiner.wait(10) == 0 and host.wait(10) == 0


# ---------------------------------------------------------------- the frame proxy


def run_proxy(listen_port: int, target_host: str, target_port: int, cut_after: int,
              fault_seed: int) -> None:
    """A TCP proxy that forwards whole frames (net.frames layout: two handshake frames
    per direction, then session frames). ``cut_after`` > 0: the first connection is
    cut after that many frames (both directions counted). ``fault_seed`` >= 0: session
    frames are delayed (0-15 ms), duplicated (10%, and always the 5th) and reordered
    (3%, and always the 40th: mid-game). Standard input:
    ``cut`` closes every connection. Prints one JSON line per event."""
    asyncio.run(_proxy(listen_port, target_host, target_port, cut_after, fault_seed))


def _say(**event: Any) -> None:
    print(json.dumps(event), flush=True)


async def _proxy(listen_port: int, target_host: str, target_port: int, cut_after: int,
                 fault_seed: int) -> None:
    rng = random.Random(fault_seed)
    connections: list[tuple[asyncio.StreamWriter, asyncio.StreamWriter]] = []
    counter = {"connections": 0, "session_frames": 0}

    async def pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                   number: int, frames: dict[str, int], both: list[asyncio.StreamWriter]
                   ) -> None:
        handshake_left = 2
        held: bytes | None = None
        try:
            while True:
                header = await reader.readexactly(4 if handshake_left else 12)
                length = struct.unpack(">I", header[:4])[0]
                frame = header + await reader.readexactly(length)
                session = not handshake_left
                handshake_left = max(0, handshake_left - 1)
                if number == 1 and cut_after and frames["count"] >= cut_after:
                    _say(event="cut", frames=frames["count"], connection=number)
                    for end in both:
                        end.transport.abort()
                    return
                frames["count"] += 1
                if fault_seed >= 0:
                    await asyncio.sleep(rng.random() * 0.015)
                    if session:
                        counter["session_frames"] += 1
                    nth = counter["session_frames"] if session else 0
                    if session and held is None and (nth == 40 or rng.random() < 0.03):
                        held = frame  # sent after the next frame: reordered
                        _say(event="reorder", connection=number)
                        continue
                    if session and (nth == 5 or rng.random() < 0.10):
                        writer.write(frame)  # the same frame twice: a duplicate
                        _say(event="duplicate", connection=number)
                writer.write(frame)
                if held is not None:
                    writer.write(held)
                    held = None
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, OSError):
            pass
        finally:
            writer.close()

    async def handle(client_reader: asyncio.StreamReader,
                     client_writer: asyncio.StreamWriter) -> None:
        try:
            server_reader, server_writer = await asyncio.open_connection(target_host,
                                                                         target_port)
        except OSError:
            client_writer.close()
            return
        counter["connections"] += 1  # connections that reached the host
        number = counter["connections"]
        _say(event="connection", connection=number)
        both = [client_writer, server_writer]
        connections.append((client_writer, server_writer))
        frames = {"count": 0}
        await asyncio.gather(pump(client_reader, server_writer, number, frames, both),
                             pump(server_reader, client_writer, number, frames, both))

    server = await asyncio.start_server(handle, "127.0.0.1", listen_port)
    _say(event="listening", port=listen_port)
    loop = asyncio.get_running_loop()
    async with server:
        while True:
            line = await loop.run_in_executor(None, sys.stdin.readline)
            if not line:
                return
            if line.strip() == "cut":
                for pair_of_ends in connections:
                    for end in pair_of_ends:
                        end.transport.abort()
                connections.clear()
                _say(event="cut", frames=-1, connection=counter["connections"])


def start_proxy(pair: NamespacePair, cut_after: int = 0, fault_seed: int = -1
                ) -> NamespaceProcess:
    """The proxy in the joiner's namespace, forwarding to the host across the veth."""
    code = ("import sys; sys.path.insert(0, 'tests'); from test_net_e2e import run_proxy; "
            f"run_proxy({PROXY_PORT}, {pair.a.address!r}, {HOST_PORT}, {cut_after}, "
            f"{fault_seed})")
    proxy = pair.run_python("b", ["-c", code])
    proxy.wait_for_event(kind("listening"), 10)
    return proxy


def via_proxy() -> tuple[str, ...]:
    return ("--no-discovery", "--address", f"127.0.0.1:{PROXY_PORT}")


# ---------------------------------------------------------------- a whole game


def test_discovery_pairing_negotiation_and_a_whole_game(
        netns_pair: NamespacePair, tmp_path: Path, scripts: dict[str, Path]) -> None:
    host = start_host(netns_pair, tmp_path, scripts, "--auto-confirm")
    # the joiner names its discovery interface (wec peer --interface), the host lets
    # discovery choose: both find each other on the veth
    joiner = start_joiner(netns_pair, tmp_path, scripts, "--auto-confirm",
                          "--interface", netns_pair.b.address)
    started = joiner.wait_for_event(kind("started"), 10)
    seen = joiner.wait_for_event(kind("peer_seen"), 10)
    assert seen["peer"]["name"] == "Host" and seen["peer"]["addresses"] == ["10.213.0.1"]
    assert seen["at"] - started["at"] < 2.0  # discovery within 2 s (issue 8 item 1)
    code_host = host.wait_for_event(kind("pairing_code"), 10)
    code_joiner = joiner.wait_for_event(kind("pairing_code"), 10)
    assert code_host["code"] == code_joiner["code"]
    assert code_joiner["fingerprint"] == seen["peer"]["fingerprint"]  # the advertised key
    joiner.wait_for_event(kind("paired", peer="Host", newly=True), 10)
    proposal = joiner.wait_for_event(kind("proposal"), 10)
    assert proposal["title"] == "king_hunt"
    assert proposal["options"]["stealth_invisibility"] is False
    assert proposal["options"]["reinforcements"] == "none"
    colours = joiner.wait_for_event(kind("colours"), 10)
    assert (colours["our_side"], colours["by_coin"]) == ("black", False)
    started_game = joiner.wait_for_event(kind("game_started"), 10)
    assert (started_game["our_side"], started_game["start_title"]) == ("black", "king_hunt")
    assert started_game["state_hash"] == START.current_hash
    finish(host, joiner)
    agreed = [e["turn"] for e in joiner.events if e["event"] == "turn_agreed"]
    assert agreed == [2, 4, 6]  # every White turn checked by Black
    assert [e["turn"] for e in host.events if e["event"] == "turn_agreed"] == [1, 3, 5]


# ---------------------------------------------------------------- cuts at every step


@pytest.mark.parametrize(("cut_after", "step"), [
    (1, "handshake: after the initiator's hello"),
    (3, "handshake: before the initiator's signature"),
    (6, "pairing: during the hello and pairing state exchange"),
    (12, "lobby: during the invitation and setup"),
])
def test_a_connection_cut_inside_a_protocol_step_recovers(
        netns_pair: NamespacePair, tmp_path: Path, scripts: dict[str, Path],
        cut_after: int, step: str) -> None:
    proxy = start_proxy(netns_pair, cut_after=cut_after)
    host = start_host(netns_pair, tmp_path, scripts, "--auto-confirm", "--no-discovery")
    joiner = start_joiner(netns_pair, tmp_path, scripts, "--auto-confirm", *via_proxy())
    cut = proxy.wait_for_event(kind("cut"), 15)
    assert cut["frames"] == cut_after, step
    proxy.wait_for_event(kind("connection", connection=2), 15)  # the joiner came back
    finish(host, joiner)
    assert sum(1 for e in joiner.events if e["event"] == "paired") >= 1


def test_a_cut_while_the_pairing_code_is_shown_pairs_again(
        netns_pair: NamespacePair, tmp_path: Path, scripts: dict[str, Path]) -> None:
    proxy = start_proxy(netns_pair)
    host = start_host(netns_pair, tmp_path, scripts, "--no-discovery")
    joiner = start_joiner(netns_pair, tmp_path, scripts, *via_proxy())
    first = joiner.wait_for_event(kind("pairing_code"), 15)
    host.wait_for_event(kind("pairing_code"), 15)
    proxy.send_line("cut")
    joiner.wait_for_event(kind("disconnected"), 10)
    second = joiner.wait_for_event(kind("pairing_code"), 15)
    again = host.wait_for_event(kind("pairing_code"), 15)
    assert second["code"] == again["code"] != first["code"]  # a new handshake, new digits
    for peer in (host, joiner):
        peer.send_line("confirm")
    finish(host, joiner)


def test_a_cut_in_the_lobby_sets_the_game_up_again(
        netns_pair: NamespacePair, tmp_path: Path, scripts: dict[str, Path]) -> None:
    host = start_host(netns_pair, tmp_path, scripts, "--auto-confirm", "--hold-setup",
                      "--heartbeat", "0.2")
    joiner = start_joiner(netns_pair, tmp_path, scripts, "--auto-confirm",
                          "--heartbeat", "0.2")
    host.wait_for_event(kind("setup_ready"), 15)  # king_hunt approved, colours decided
    netns_pair.cut_link()
    host.wait_for_event(kind("disconnected"), 10)
    joiner.wait_for_event(kind("disconnected"), 10)
    netns_pair.restore_link()
    host.wait_for_event(kind("setup_ready"), 30)  # a new lobby, the same negotiation
    host.send_line("end_setup")
    finish(host, joiner)


def test_the_link_down_mid_game_loses_no_turn(
        netns_pair: NamespacePair, tmp_path: Path, scripts: dict[str, Path]) -> None:
    host = start_host(netns_pair, tmp_path, scripts, "--auto-confirm", "--hold-at", "20")
    joiner = start_joiner(netns_pair, tmp_path, scripts, "--auto-confirm", "--hold-at", "9")
    joiner.wait_for_event(kind("holding", actions=9), 20)
    netns_pair.cut_link()
    joiner.wait_for_event(kind("disconnected"), 10)
    host.wait_for_event(kind("disconnected"), 10)
    joiner.send_line("go")  # Black finishes turn 3 offline: it waits in Black's log
    joiner.wait_for_event(kind("turn_end", turn=3, by_us=True), 10)
    netns_pair.restore_link()
    resumed = joiner.wait_for_event(kind("resumed"), 30)
    assert resumed["resent"] == 4  # three intents and the hash of turn 3
    host.wait_for_event(kind("turn_agreed", turn=3), 10)
    # again, with the winning intent played while the link is down: the winner does not
    # leave before the loser has it
    host.wait_for_event(kind("holding", actions=20), 20)
    netns_pair.cut_link()
    host.wait_for_event(kind("disconnected"), 10)
    host.send_line("go")
    host.wait_for_event(kind("result"), 10)
    netns_pair.restore_link()
    finish(host, joiner)


def test_a_killed_peer_restarted_on_its_state_dir_resumes(
        netns_pair: NamespacePair, tmp_path: Path, scripts: dict[str, Path]) -> None:
    host = start_host(netns_pair, tmp_path, scripts, "--auto-confirm")
    joiner = start_joiner(netns_pair, tmp_path, scripts, "--auto-confirm", "--hold-at", "9")
    joiner.wait_for_event(kind("holding", actions=9), 20)
    joiner.kill()  # SIGKILL: no goodbye, no cleanup
    host.wait_for_event(kind("disconnected"), 10)
    joiner = start_joiner(netns_pair, tmp_path, scripts, "--auto-confirm")
    restored = joiner.wait_for_event(kind("game_restored"), 15)
    after_nine = START
    for action in FINAL.actions[:9]:
        after_nine = after_nine.play(action.intent)
    assert restored["state_hash"] == after_nine.current_hash
    assert (restored["intents_sent"], restored["peer_intents_applied"]) == (5, 4)
    joiner.wait_for_event(kind("resumed"), 20)
    finish(host, joiner)


def test_a_killed_dialler_restarted_without_an_address_is_dialled_back(
        netns_pair: NamespacePair, tmp_path: Path, scripts: dict[str, Path]) -> None:
    """Issue 8 item 6, the side that accepted reconnects: the joiner dialled the host
    through the proxy, is killed, and the proxy (the only address of the host it ever
    knew) goes too. Restarted with no address, no --join and no discovery, the joiner
    cannot reach the host; the host dials it back at its address and the port its Hello
    announced, and the game ends with no turn lost or applied twice."""
    proxy = start_proxy(netns_pair)
    host = start_host(netns_pair, tmp_path, scripts, "--auto-confirm", "--no-discovery")
    joiner = start_joiner(netns_pair, tmp_path, scripts, "--auto-confirm", *via_proxy(),
                          "--hold-at", "9")
    joiner.wait_for_event(kind("holding", actions=9), 20)
    joiner.kill()  # SIGKILL: no goodbye
    proxy.kill()
    host.wait_for_event(kind("disconnected"), 10)
    joiner = netns_pair.run_python("b", peer_arguments(
        "Joiner", tmp_path / "joiner", "--auto-confirm", "--no-discovery", "--colour",
        "black", "--port", str(HOST_PORT), "--script", str(scripts["black"])))
    restored = joiner.wait_for_event(kind("game_restored"), 15)
    assert (restored["intents_sent"], restored["peer_intents_applied"]) == (5, 4)
    dialled = host.wait_for_event(kind("connected", dialled=True), 20)
    assert dialled["peer"] == "Joiner"
    joiner.wait_for_event(kind("resumed"), 20)
    host.wait_for_event(kind("resumed"), 20)
    finish(host, joiner)
    assert [e["dialled"] for e in joiner.events if e["event"] == "connected"] == [False]


def test_both_machines_save_and_the_save_is_resumed_over_the_network(
        netns_pair: NamespacePair, tmp_path: Path, scripts: dict[str, Path]) -> None:
    host = start_host(netns_pair, tmp_path, scripts, "--auto-confirm")
    joiner = start_joiner(netns_pair, tmp_path, scripts, "--auto-confirm", "--hold-at", "9")
    joiner.wait_for_event(kind("holding", actions=9), 20)
    # the save holds what the asker has applied when it asks: wait for Black's ninth
    # action to reach the host
    black_in_nine = sum(1 for action in FINAL.actions[:9] if action.side is Side.BLACK)
    host.wait_for_event(kind("intent", by_us=False, index=black_in_nine - 1), 10)
    host.send_line("save evening.wecsave")
    saved_host = host.wait_for_event(kind("saved"), 10)
    saved_joiner = joiner.wait_for_event(kind("saved"), 10)
    assert saved_host["digest"] == saved_joiner["digest"]  # each wrote its own, the same
    assert (saved_host["asked_by_us"], saved_joiner["asked_by_us"]) == (True, False)
    joiner.send_line("resign")  # this evening's game ends here
    for process in (host, joiner):
        assert process.wait_for_event(kind("result"), 10)["result"]["how"] == "resign"
        assert process.wait(10) == 0
    # later: the same two players resume that save over the network
    host = start_host(netns_pair, tmp_path, scripts, "--auto-confirm")
    joiner = start_joiner(netns_pair, tmp_path, scripts, "--auto-confirm",
                          "--resume-save", saved_joiner["file_name"])
    invited = host.wait_for_event(kind("invited"), 20)
    assert invited["resume_game"] == saved_host["digest"]
    started = joiner.wait_for_event(kind("game_started"), 20)
    after_nine = START
    for action in FINAL.actions[:9]:
        after_nine = after_nine.play(action.intent)
    assert (started["resumed_save"], started["our_side"]) == (True, "black")
    assert started["state_hash"] == after_nine.current_hash
    for process in (joiner, host):
        final = process.wait_for_event(kind("final"), 30)
        assert final["state_hash"] == FINAL.current_hash and final["actions"] == 21
        assert final["result"]["winner"] == "white"
        assert process.wait(10) == 0


# ---------------------------------------------------------------- faulty frames


def test_delayed_duplicated_and_reordered_frames_never_change_the_game(
        netns_pair: NamespacePair, tmp_path: Path, scripts: dict[str, Path]) -> None:
    if netns_pair.netem_unavailable_reason() is None:  # the kernel can do it too
        netns_pair.set_netem("both", delay_ms=5, jitter_ms=3, duplicate_percent=3,
                             reorder_percent=5)
    proxy = start_proxy(netns_pair, fault_seed=7)
    host = start_host(netns_pair, tmp_path, scripts, "--auto-confirm", "--no-discovery",
                      "--log-level", "INFO")
    joiner = start_joiner(netns_pair, tmp_path, scripts, "--auto-confirm", *via_proxy(),
                          "--log-level", "INFO")
    finish(host, joiner, timeout=40)
    while proxy.read_event(0.5) is not None:  # every fault the proxy reported
        pass
    faults = [e["event"] for e in proxy.events]
    assert faults.count("duplicate") >= 1 and faults.count("reorder") >= 1
    errors = [e["text"] for e in host.events + joiner.events if e["event"] == "error"]
    assert any("already received" in text and "replay dropped" in text for text in errors)
    # a reordered frame is a gap: the session closes and the game resumes on a new one
    resumed = [e for e in host.events + joiner.events if e["event"] == "resumed"]
    assert len(resumed) >= 1
    assert not [e for e in host.events + joiner.events if e["event"] == "refused"]


# ---------------------------------------------------------------- keys


def test_a_changed_key_under_a_pinned_name_is_refused_on_both_sides(
        netns_pair: NamespacePair, tmp_path: Path, scripts: dict[str, Path]) -> None:
    host = start_host(netns_pair, tmp_path, scripts, "--auto-confirm", "--hold-setup")
    joiner = start_joiner(netns_pair, tmp_path, scripts, "--auto-confirm")
    joiner.wait_for_event(kind("paired", newly=True), 15)
    host.send_line("quit")
    host.wait(10)
    joiner.wait_for_event(kind("disconnected"), 10)
    # another installation (a new key) now calls itself Host
    impostor = start_host(netns_pair, tmp_path, scripts, "--auto-confirm", state="impostor")
    refused = joiner.wait_for_event(kind("connection_refused", key_changed=True), 20)
    assert "THE IDENTITY KEY OF PEER 'Host' HAS CHANGED" in refused["reason"]
    impostor_refused = impostor.wait_for_event(kind("connection_refused"), 10)
    assert "does not match the key pinned for 'Host'" in impostor_refused["reason"]
    assert not [e for e in joiner.events if e["event"] == "paired" and not e["newly"]]
    joiner.send_line("quit")
    impostor.send_line("quit")


def test_a_peer_whose_key_is_not_the_advertised_one_is_refused(
        netns_pair: NamespacePair, tmp_path: Path, scripts: dict[str, Path]) -> None:
    start_host(netns_pair, tmp_path, scripts, "--auto-confirm", "--no-discovery")
    # a rogue advertisement: the name Decoy, someone else's fingerprint, the host's port
    decoy_fingerprint = new_fingerprint()
    decoy, _ = start_discovery_peer(netns_pair, "a", "Decoy", decoy_fingerprint,
                                    port=HOST_PORT)
    joiner = start_joiner(netns_pair, tmp_path, scripts, "--auto-confirm", join="Decoy")
    failed = joiner.wait_for_event(kind("connection_refused"), 20)
    assert f"not the advertised {decoy_fingerprint}" in failed["reason"]
    assert not [e for e in joiner.events if e["event"] == "paired"]
    joiner.send_line("quit")
    decoy.send_line("stop")


def test_a_decoy_advertising_the_same_name_does_not_block_the_join(
        netns_pair: NamespacePair, tmp_path: Path, scripts: dict[str, Path]) -> None:
    """Issue 20 hole 9: a second advertiser calls itself Host (another key, the real
    host's port), advertised before the real host. The joiner tries every game of that
    name (the pinned key first), refuses the decoy's key, reaches the real host and
    plays the whole game."""
    # listed first: peers are sorted by name, then by an instance name that ends with
    # the fingerprint's first characters ("2" sorts before every letter)
    decoy_fingerprint = "2222-2222-2222-2222-2222"
    decoy, _ = start_discovery_peer(netns_pair, "a", "Host", decoy_fingerprint,
                                    port=HOST_PORT)
    host = start_host(netns_pair, tmp_path, scripts, "--auto-confirm")
    assert not host.wait_for_event(kind("started"), 15)["fingerprint"].startswith("2222")
    joiner = start_joiner(netns_pair, tmp_path, scripts, "--auto-confirm")
    paired = joiner.wait_for_event(kind("paired", peer="Host"), 30)
    assert paired["newly"] is True
    code = joiner.wait_for_event(kind("pairing_code"), 10)
    assert code["fingerprint"] != decoy_fingerprint
    finish(host, joiner)
    decoy.send_line("stop")
