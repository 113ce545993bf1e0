"""The asyncio Peer (issue 8 items 4-6) on loopback: two real peers in this process with
real sessions, pairing, lobby and lockstep; dropped connections, a restart from the
journal, saving and resuming a save, the grace period, refused keys, the background
thread facade for the client."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import random
import socket
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from wec.engine.intents import Intent
from wec.engine.match import Match
from wec.engine.pieces import PieceKind, Side
from wec.net.background import BackgroundPeer
from wec.net.lobby import LobbyError, Phase, StartBoard, build_start, stage1_options
from wec.net.lockstep import LockstepError
from wec.net.messages import Chat, GameClosed
from wec.net.peer import (
    Peer,
    PeerConfig,
    PeerEvent,
    describe_event,
    event_kind,
)
from wec.net.session import SessionConfig
from wec.storage.scenarios import load_scenario

KING_HUNT = load_scenario("king_hunt")
START = build_start(StartBoard("king_hunt", KING_HUNT), stage1_options(KING_HUNT.options))
FAST = SessionConfig(heartbeat_interval=0.2, heartbeat_timeout=1.0, handshake_timeout=3.0)


def scripted_game(seed: int = 22) -> list[Intent]:
    rng = random.Random(seed)
    match, intents = START, []
    while match.current.result is None:
        intent = rng.choice(match.legal_intents())
        intents.append(intent)
        match = match.play(intent)
    return intents


INTENTS = scripted_game()
FINAL = START
for _intent in INTENTS:
    FINAL = FINAL.play(_intent)


class Recorder:
    """Every event of one peer, with waiting for the next one that matches."""

    def __init__(self) -> None:
        self.events: list[PeerEvent] = []
        self._changed = asyncio.Event()

    def __call__(self, event: PeerEvent) -> None:
        self.events.append(event)
        self._changed.set()

    def kinds(self) -> list[str]:
        return [event_kind(e) for e in self.events]

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [describe_event(e) for e in self.events if event_kind(e) == kind]

    async def wait(self, kind: str, timeout: float = 10.0, count: int = 1,
                   where: Callable[[dict[str, Any]], bool] = lambda e: True
                   ) -> dict[str, Any]:
        async with asyncio.timeout(timeout):
            while True:
                found = [e for e in self.of(kind) if where(e)]
                if len(found) >= count:
                    return found[count - 1]
                self._changed.clear()
                await self._changed.wait()


def config(tmp_path: Path, name: str, **changes: Any) -> PeerConfig:
    values: dict[str, Any] = {"name": name, "state_dir": tmp_path / name, "host": "127.0.0.1",
                              "discovery": False, "auto_confirm": True, "session": FAST,
                              "reconnect_interval": 0.1, "dial_delay": 0.3, "fog": False}
    values.update(changes)
    return PeerConfig(**values)


async def started(cfg: PeerConfig) -> tuple[Peer, Recorder]:
    recorder = Recorder()
    peer = Peer(cfg, on_event=recorder)
    await peer.start()
    return peer, recorder


def run(coroutine: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(coroutine())


async def set_up_game(alice: Peer, alice_log: Recorder, bob: Peer, bob_log: Recorder,
                      board: bool = True, port: int | None = None) -> None:
    """Alice dials Bob (at ``port``, default his own), both pair, Alice invites, proposes
    king_hunt and ends the setup: Alice plays White, Bob Black."""
    await alice.connect("127.0.0.1", port or bob.port)
    await alice_log.wait("paired")
    await bob_log.wait("paired")
    alice.invite()
    await bob_log.wait("invited")
    bob.accept()
    await alice_log.wait("setup")
    alice.choose_colour("white")
    bob.choose_colour("black")
    await alice_log.wait("colours")
    await bob_log.wait("colours")
    if board:
        alice.propose_start(StartBoard("king_hunt", KING_HUNT))
        await bob_log.wait("proposal")
        bob.approve()
        await alice_log.wait("proposal_answered")
    alice.end_setup()
    await alice_log.wait("game_started")
    await bob_log.wait("game_started")


async def two_peers_in_a_game(tmp_path: Path) -> tuple[Peer, Recorder, Peer, Recorder]:
    """Alice (White) and Bob (Black), started with default configs, paired and in a
    king_hunt game (``set_up_game``)."""
    alice, alice_log = await started(config(tmp_path, "Alice"))
    bob, bob_log = await started(config(tmp_path, "Bob"))
    await set_up_game(alice, alice_log, bob, bob_log)
    return alice, alice_log, bob, bob_log


async def play_script(peers: dict[Side, Peer], logs: dict[Side, Recorder],
                      intents: list[Intent], start: int = 0) -> None:
    """Each side plays its intents when it is its turn; wait for the other to apply."""
    for number in range(start, len(intents)):
        mover = next(side for side, peer in peers.items()
                     if peer.game is not None and peer.game.lockstep.our_turn)
        applied = len([e for e in logs[mover.other].of("intent") if not e["by_us"]])
        peers[mover].play(intents[number])
        await logs[mover.other].wait("intent", count=applied + 1,
                                     where=lambda e: not e["by_us"])


# ---------------------------------------------------------------- pairing, lobby, game


def test_two_peers_pair_negotiate_and_play_a_game_to_its_end(tmp_path: Path) -> None:
    async def scenario() -> None:
        alice, alice_log = await started(config(tmp_path, "Alice"))
        bob, bob_log = await started(config(tmp_path, "Bob"))
        try:
            await set_up_game(alice, alice_log, bob, bob_log)
            codes = alice_log.of("pairing_code"), bob_log.of("pairing_code")
            assert codes[0][0]["code"] == codes[1][0]["code"]  # both screens, same digits
            assert len(codes[0][0]["code"]) == 7 and codes[0][0]["code"][3] == " "
            assert alice_log.of("paired") == [{"event": "paired", "peer": "Bob",
                                               "newly": True, "known_as": None}]
            assert [p.name for p in alice.pins.peers()] == ["Bob"]
            assert [p.name for p in bob.pins.peers()] == ["Alice"]
            notice = alice_log.of("notice")[0]["text"]
            assert notice.startswith("O15 stealth invisibility and O16 submersion")
            started_event = bob_log.of("game_started")[0]
            assert (started_event["our_side"], started_event["start_title"]) == \
                ("black", "king_hunt")
            assert started_event["state_hash"] == START.current_hash
            assert started_event["options"]["stealth_invisibility"] is False
            await play_script({Side.WHITE: alice, Side.BLACK: bob},
                              {Side.WHITE: alice_log, Side.BLACK: bob_log}, INTENTS)
            result = await bob_log.wait("result")
            assert result["result"] == {
                "winner": "white", "how": "rules",
                "reason": "R12.1: Black lost the King, taken at (8,7) ground by a Tank"}
            for peer in (alice, bob):
                assert peer.game is not None
                assert peer.game.lockstep.match == FINAL
            assert len(alice_log.of("turn_agreed")) == 3 and \
                len(bob_log.of("turn_agreed")) == 3
            assert "refused" not in alice_log.kinds() + bob_log.kinds()
        finally:
            await alice.stop()
            await bob.stop()
    run(scenario)


def test_a_pinned_peer_pairs_again_without_a_code_and_a_changed_key_is_refused(
        tmp_path: Path) -> None:
    async def scenario() -> None:
        alice, alice_log = await started(config(tmp_path, "Alice"))
        bob, bob_log = await started(config(tmp_path, "Bob"))
        await alice.connect("127.0.0.1", bob.port)
        await alice_log.wait("paired")
        await bob_log.wait("paired")
        await bob.stop()
        await alice_log.wait("disconnected")
        bob, bob_log = await started(config(tmp_path, "Bob"))
        await alice.connect("127.0.0.1", bob.port)
        assert (await alice_log.wait("paired", count=2))["newly"] is False
        assert len(alice_log.of("pairing_code")) == 1  # only the first time
        await bob.stop()
        # someone else now calls itself Bob: a different key under a pinned name
        impostor, impostor_log = await started(config(tmp_path, "Bob",
                                                      state_dir=tmp_path / "impostor"))
        with pytest.raises(Exception, match="THE IDENTITY KEY OF PEER 'Bob' HAS CHANGED"):
            await alice.connect("127.0.0.1", impostor.port)
        refused = alice_log.of("connection_refused")[-1]
        assert refused["key_changed"] is True
        assert "Someone may be impersonating 'Bob'" in refused["reason"]
        impostor_refused = await impostor_log.wait("connection_refused")
        assert "does not match the key pinned for 'Bob'" in impostor_refused["reason"]
        await impostor.stop()
        await alice.stop()
    run(scenario)


def test_a_pairing_code_not_confirmed_pins_nothing(tmp_path: Path) -> None:
    async def scenario() -> None:
        alice, alice_log = await started(config(tmp_path, "Alice", auto_confirm=False))
        bob, bob_log = await started(config(tmp_path, "Bob", auto_confirm=False))
        await alice.connect("127.0.0.1", bob.port)
        await alice_log.wait("pairing_code")
        await bob_log.wait("pairing_code")
        alice.confirm_pairing("Bob", True)
        bob.confirm_pairing("Alice", False)
        failed = await alice_log.wait("pairing_failed")
        assert failed["reason"] == "the other player did not confirm the pairing code"
        assert (await bob_log.wait("pairing_failed"))["reason"] == \
            "you did not confirm the pairing code"
        assert alice.pins.peers() == [] and bob.pins.peers() == []
        await alice.stop()
        await bob.stop()
    run(scenario)


def test_messages_before_pairing_are_refused(tmp_path: Path) -> None:
    async def scenario() -> None:
        from wec.net.identity import Identity
        from wec.net.messages import Rejection
        from wec.net.session import connect

        bob, _ = await started(config(tmp_path, "Bob", auto_confirm=False))
        session = await connect("127.0.0.1", bob.port, Identity.generate(), "Mallory")
        session.send(Chat("let me in"))
        async with asyncio.timeout(5):
            while True:
                message = await session.receive()
                if isinstance(message, Rejection):
                    break
        assert message == Rejection("chat", "pair first: the pairing is not complete")
        await session.close()
        await bob.stop()
    run(scenario)


def test_lobby_chat_travels_while_negotiating_and_game_chat_in_the_game(
        tmp_path: Path) -> None:
    async def scenario() -> None:
        alice, alice_log = await started(config(tmp_path, "Alice"))
        bob, bob_log = await started(config(tmp_path, "Bob"))
        await alice.connect("127.0.0.1", bob.port)
        await bob_log.wait("paired")
        await alice_log.wait("paired")
        alice.chat("fancy a game of king_hunt?")
        assert (await bob_log.wait("chat")) == {"event": "chat", "peer": "Alice",
                                                "by_us": False,
                                                "text": "fancy a game of king_hunt?"}
        bob.chat("sure", "Alice")
        assert (await alice_log.wait("chat", count=2))["text"] == "sure"
        with pytest.raises(LobbyError, match="a chat line has 1 to 500 printable"):
            bob.chat("x" * 501)
        assert bob.lobby().phase is Phase.IDLE  # nothing else changed
        await alice.stop()
        await bob.stop()
    run(scenario)


def test_takeback_and_chat_travel_between_the_peers(tmp_path: Path) -> None:
    async def scenario() -> None:
        alice, alice_log, bob, bob_log = await two_peers_in_a_game(tmp_path)
        peers = {Side.WHITE: alice, Side.BLACK: bob}
        logs = {Side.WHITE: alice_log, Side.BLACK: bob_log}
        await play_script(peers, logs, INTENTS[:4])  # Black's first turn
        bob.request_takeback()
        request = await alice_log.wait("takeback_request")
        assert (request["by_us"], request["turn"]) == (False, 1)
        alice.answer_takeback(True)
        answer = await bob_log.wait("takeback")
        assert (answer["accepted"], answer["state_hash"]) == (True, START.current_hash)
        assert alice.game is not None and bob.game is not None
        assert alice.game.lockstep.match == bob.game.lockstep.match == START
        alice.chat("no problem")
        assert (await bob_log.wait("chat")) == {"event": "chat", "by_us": False,
                                                "text": "no problem"}
        # a peer cannot simply declare the game closed in its favour in the middle of it
        assert alice.game.link is not None
        alice.game.link.session.send(GameClosed(alice.game.game_id, "white", "I say I won"))
        assert (await alice_log.wait("peer_refused")) == {
            "event": "peer_refused", "tag": "game_closed",
            "reason": "a game is closed only in answer to a resume"}
        assert bob.game.lockstep.result is None
        await play_script(peers, logs, INTENTS)  # the game goes on in lockstep
        assert bob.game.lockstep.match == FINAL
        await alice.stop()
        await bob.stop()
    run(scenario)


# ---------------------------------------------------------------- faults and resume


def test_a_dropped_connection_is_redialled_and_the_game_resumes_without_loss(
        tmp_path: Path) -> None:
    async def scenario() -> None:
        alice, alice_log, bob, bob_log = await two_peers_in_a_game(tmp_path)
        peers = {Side.WHITE: alice, Side.BLACK: bob}
        logs = {Side.WHITE: alice_log, Side.BLACK: bob_log}
        await play_script(peers, logs, INTENTS[:9])  # into Black's second turn
        # the connection breaks; Black plays on: its intents wait in its log
        assert bob.game is not None and bob.game.link is not None
        bob.game.link.session._writer.transport.abort()
        await bob_log.wait("disconnected")
        await alice_log.wait("disconnected")
        for intent in INTENTS[9:12]:  # the rest of Black's turn 3, its end included
            bob.play(intent)
        resumed = await bob_log.wait("resumed")
        await alice_log.wait("resumed")
        assert resumed["resent"] == 4  # three intents and the turn hash, sent again
        await alice_log.wait("turn_agreed", count=2)  # turn 3 checked after the resume
        assert alice_log.of("turn_agreed")[1]["turn"] == 3
        await play_script(peers, logs, INTENTS, start=12)
        for peer in (alice, bob):
            assert peer.game is not None and peer.game.lockstep.match == FINAL
        assert alice.game is not None and bob.game is not None
        assert alice.game.lockstep.peer_intents_applied == bob.game.lockstep.intents_sent
        assert bob.game.lockstep.peer_intents_applied == alice.game.lockstep.intents_sent
        assert "refused" not in alice_log.kinds() + bob_log.kinds()
        await alice.stop()
        await bob.stop()
    run(scenario)


def test_a_restarted_peer_reads_its_journal_and_resumes(tmp_path: Path) -> None:
    async def scenario() -> None:
        alice, alice_log = await started(config(tmp_path, "Alice"))
        bob_config = config(tmp_path, "Bob", port=0)
        bob, bob_log = await started(bob_config)
        peers = {Side.WHITE: alice, Side.BLACK: bob}
        logs = {Side.WHITE: alice_log, Side.BLACK: bob_log}
        await set_up_game(alice, alice_log, bob, bob_log)
        await play_script(peers, logs, INTENTS[:9])
        assert bob.game is not None
        before = bob.game.lockstep.state_hash
        await bob.stop()  # as if the program was closed in the middle of the game
        await alice_log.wait("disconnected")
        bob, bob_log = await started(bob_config)
        restored = bob_log.of("game_restored")[0]
        assert restored["state_hash"] == before
        assert (restored["intents_sent"], restored["peer_intents_applied"]) == (
            sum(1 for a in FINAL.actions[:9] if a.side is Side.BLACK),
            sum(1 for a in FINAL.actions[:9] if a.side is Side.WHITE))
        # Bob listens on a new port: Alice cannot redial it, Bob dials Alice's address
        bob.remember_address("127.0.0.1", alice.port)
        await bob_log.wait("resumed", timeout=15)
        await alice_log.wait("resumed", timeout=15)
        peers[Side.BLACK], logs[Side.BLACK] = bob, bob_log
        await play_script(peers, logs, INTENTS, start=9)
        assert bob.game is not None and bob.game.lockstep.match == FINAL
        await alice.stop()
        await bob.stop()
    run(scenario)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def forwarder(target_port: int) -> asyncio.Server:
    """A TCP forwarder to ``target_port`` on loopback: an address that can vanish."""
    async def pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError, OSError):
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        writer.close()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        target_reader, target_writer = await asyncio.open_connection("127.0.0.1",
                                                                     target_port)
        await asyncio.gather(pump(reader, target_writer), pump(target_reader, writer))

    return await asyncio.start_server(handle, "127.0.0.1", 0)


def test_the_side_that_accepted_redials_a_restarted_dialler_that_knows_no_address(
        tmp_path: Path) -> None:
    """Issue 8 item 6: Alice dialled Bob (through an address that then disappears), is
    killed and restarts knowing no address of Bob's; Bob, who only accepted, dials her
    back at her address and the port her Hello announced, and the game goes on."""
    async def scenario() -> None:
        alice_config = config(tmp_path, "Alice", port=free_port())
        alice, alice_log = await started(alice_config)
        bob, bob_log = await started(config(tmp_path, "Bob"))
        relay = await forwarder(bob.port)
        relay_port = relay.sockets[0].getsockname()[1]
        await set_up_game(alice, alice_log, bob, bob_log, port=relay_port)
        assert bob.game is not None
        assert bob.game.addresses == [("127.0.0.1", alice_config.port)]
        peers = {Side.WHITE: alice, Side.BLACK: bob}
        logs = {Side.WHITE: alice_log, Side.BLACK: bob_log}
        await play_script(peers, logs, INTENTS[:9])
        await alice.stop()  # as if killed: the journal stays
        relay.close()
        await bob_log.wait("disconnected")
        alice, alice_log = await started(alice_config)
        assert alice.game is not None
        assert alice.game.addresses == [("127.0.0.1", relay_port)]  # gone for good
        await alice_log.wait("resumed", timeout=15)
        await bob_log.wait("resumed", timeout=15)
        assert [e["dialled"] for e in bob_log.of("connected")] == [False, True]
        assert [e["dialled"] for e in alice_log.of("connected")] == [False]
        peers[Side.WHITE], logs[Side.WHITE] = alice, alice_log
        await play_script(peers, logs, INTENTS, start=9)
        assert alice.game is not None and alice.game.lockstep.match == FINAL
        assert bob.game.lockstep.match == FINAL
        assert alice.game.lockstep.peer_intents_applied == bob.game.lockstep.intents_sent
        assert bob.game.lockstep.peer_intents_applied == alice.game.lockstep.intents_sent
        assert "refused" not in alice_log.kinds() + bob_log.kinds()
        await alice.stop()
        await bob.stop()
    run(scenario)


def test_both_sides_dialling_at_once_keep_exactly_one_session(tmp_path: Path) -> None:
    """Both sides redial at the same moment (no delay for the larger key): each side
    keeps the link dialled by the smaller key and closes the other, so one session
    survives, the same on both sides, and no intent is lost or applied twice."""
    async def scenario() -> None:
        alice, alice_log = await started(config(tmp_path, "Alice", dial_delay=0.0))
        bob, bob_log = await started(config(tmp_path, "Bob", dial_delay=0.0))
        peers = {Side.WHITE: alice, Side.BLACK: bob}
        logs = {Side.WHITE: alice_log, Side.BLACK: bob_log}
        await set_up_game(alice, alice_log, bob, bob_log)
        await play_script(peers, logs, INTENTS[:9])
        assert bob.game is not None and bob.game.link is not None
        bob.game.link.session._writer.transport.abort()
        await bob_log.wait("disconnected")
        for intent in INTENTS[9:12]:  # Black plays on while the link is down
            bob.play(intent)
        await bob_log.wait("resumed")
        await alice_log.wait("resumed")
        await asyncio.sleep(0.5)  # any duplicate link is closed by now
        alice_link = alice.links[bob.identity.public_key]
        bob_link = bob.links[alice.identity.public_key]
        assert alice_link.session.session_id == bob_link.session.session_id
        assert alice.game is not None and alice.game.link is alice_link
        assert bob.game.link is bob_link
        dialled_again = {name: [e for e in log.of("connected")[1:] if e["dialled"]]
                         for name, log in (("Alice", alice_log), ("Bob", bob_log))}
        assert dialled_again["Alice"] and dialled_again["Bob"]  # both dialled at once
        smaller = alice if alice.identity.public_key < bob.identity.public_key else bob
        survivor = alice_link if smaller is alice else bob_link
        assert survivor.session.initiator  # the smaller key's call stayed
        await play_script(peers, logs, INTENTS, start=12)
        for peer in (alice, bob):
            assert peer.game is not None and peer.game.lockstep.match == FINAL
        assert alice.game.lockstep.peer_intents_applied == bob.game.lockstep.intents_sent
        assert bob.game.lockstep.peer_intents_applied == alice.game.lockstep.intents_sent
        assert "refused" not in alice_log.kinds() + bob_log.kinds()
        await alice.stop()
        await bob.stop()
    run(scenario)


def test_discovery_interfaces_are_ipv4_addresses_checked_before_anything_starts(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert PeerConfig("A", tmp_path).discovery_interfaces() is None  # discovery chooses
    chosen = PeerConfig("A", tmp_path, interfaces=("10.0.0.5", "10.0.0.5"),
                        include_loopback=True)
    assert chosen.discovery_interfaces() == ["10.0.0.5", "127.0.0.1"]
    with pytest.raises(ValueError, match="interface 'wlan0' is not an IPv4 address"):
        PeerConfig("A", tmp_path, interfaces=("wlan0",))
    with pytest.raises(ValueError, match="give at least one IPv4 address, or None"):
        PeerConfig("A", tmp_path, interfaces=())
    from wec.cli import main

    assert main(["peer", "--name", "A", "--state-dir", str(tmp_path / "a"),
                 "--interface", "eth0"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "--interface: interface 'eth0' is not an IPv4 address" in captured.err


def test_peers_with_different_rules_versions_refuse_to_play(tmp_path: Path) -> None:
    """engine.version.RULES_VERSION differs (Bob's engine would resolve the rules
    differently): the setup ends without a game on both machines, and each player reads
    both rules versions."""
    from wec.net.lobby import ENGINE_VERSION

    async def scenario() -> None:
        alice, alice_log = await started(config(tmp_path, "Alice"))
        bob, bob_log = await started(config(tmp_path, "Bob"))
        await alice.connect("127.0.0.1", bob.port)
        await bob_log.wait("paired")
        bob.lobby("Alice").rules_version = 2
        alice.invite()
        await bob_log.wait("invited")
        bob.accept()
        await alice_log.wait("setup")
        alice.choose_colour("white")
        bob.choose_colour("black")
        await alice_log.wait("colours")
        alice.end_setup()
        ours = await alice_log.wait("rules_mismatch")
        theirs = await bob_log.wait("rules_mismatch")
        assert ours["reason"] == (
            f"the two machines play different rules: here rules version 1 (wec "
            f"{ENGINE_VERSION}), there rules version 2 (wec {ENGINE_VERSION}); both players "
            "need a wec with the same rules version")
        assert theirs["reason"].startswith("the two machines play different rules: here "
                                           "rules version 2")
        assert alice.game is None and bob.game is None
        assert "game_started" not in alice_log.kinds() + bob_log.kinds()
        await alice.stop()
        await bob.stop()
    run(scenario)


def test_after_the_grace_period_the_win_can_be_claimed(tmp_path: Path) -> None:
    async def scenario() -> None:
        alice, alice_log = await started(config(tmp_path, "Alice", grace_period=0.5))
        bob_config = config(tmp_path, "Bob")
        bob, bob_log = await started(bob_config)
        await set_up_game(alice, alice_log, bob, bob_log, board=False)
        await bob.stop()
        expired = await alice_log.wait("grace_expired", timeout=5)
        assert expired["peer"] == "Bob" and expired["seconds"] >= 0.5
        alice.claim_win()
        result = (await alice_log.wait("result"))["result"]
        assert result == {"winner": "white", "how": "forfeit",
                          "reason": "Black (Bob) was gone for more than 0.5 s; White "
                                    "claimed the win"}
        bob, bob_log = await started(bob_config)
        await bob.connect("127.0.0.1", alice.port)
        closed = (await bob_log.wait("result"))["result"]
        assert closed == {"winner": "white", "how": "closed", "reason": result["reason"]}
        await alice.stop()
        await bob.stop()
    run(scenario)


# ---------------------------------------------------------------- saving


def test_both_machines_save_and_the_save_is_resumed_over_the_network(
        tmp_path: Path) -> None:
    async def scenario() -> None:
        alice, alice_log, bob, bob_log = await two_peers_in_a_game(tmp_path)
        peers = {Side.WHITE: alice, Side.BLACK: bob}
        logs = {Side.WHITE: alice_log, Side.BLACK: bob_log}
        await play_script(peers, logs, INTENTS[:6])
        alice.save("evening game.wecsave")
        saved_alice = await alice_log.wait("saved")
        saved_bob = await bob_log.wait("saved")
        assert saved_alice["digest"] == saved_bob["digest"]
        assert (saved_alice["asked_by_us"], saved_bob["asked_by_us"]) == (True, False)
        alice_file = tmp_path / "Alice" / "saves" / "evening game.wecsave"
        # Bob names his own file: the peer's name, the game and the turn
        assert bob.game is not None
        turn = bob.game.lockstep.match.current.turn
        bob_name = f"Alice-{bob.game.game_id.hex()[:8]}-turn{turn}.wecsave"
        assert saved_bob["file_name"] == bob_name
        bob_file = tmp_path / "Bob" / "saves" / bob_name
        assert alice_file.read_bytes() == bob_file.read_bytes()
        assert saved_alice["digest"] == hashlib.sha256(alice_file.read_bytes()).hexdigest()
        info = json.loads((tmp_path / "Bob" / "saves" / f"{bob_name}.json").read_text())
        assert (info["peer_name"], info["our_side"]) == ("Alice", "black")
        bob.resign()
        await alice_log.wait("result")
        alice.invite(resume_file="evening game.wecsave")
        invited = await bob_log.wait("invited", count=2)
        assert invited["resume_game"] == saved_alice["digest"]
        bob.accept()
        resumed = await alice_log.wait("game_started", count=2)
        await bob_log.wait("game_started", count=2)
        assert resumed["resumed_save"] is True and resumed["our_side"] == "white"
        after_six = START
        for intent in INTENTS[:6]:
            after_six = after_six.play(intent)
        assert resumed["state_hash"] == after_six.current_hash
        await play_script(peers, logs, INTENTS, start=6)
        assert alice.game is not None and alice.game.lockstep.match == FINAL
        await alice.stop()
        await bob.stop()
    run(scenario)


def test_a_desync_stops_the_game_and_writes_a_report(tmp_path: Path) -> None:
    async def scenario() -> None:
        alice, alice_log = await started(config(tmp_path, "Alice"))
        bob, bob_log = await started(config(tmp_path, "Bob"))
        await set_up_game(alice, alice_log, bob, bob_log)
        assert alice.game is not None and bob.game is not None
        # Alice's copy differs (as a different engine might resolve it): her Queen is
        # stunned
        position = alice.game.lockstep.match.current
        alice.game.lockstep.match = Match.begin(position.evolve(pieces=tuple(
            replace(p, stunned_until=9) if p.kind is PieceKind.QUEEN and p.side is Side.WHITE
            else p for p in position.pieces)))
        for intent in INTENTS[:4]:  # Black's first turn
            bob.play(intent)
        # written when the desync is found, again when the other side's state came
        await alice_log.wait("desync_report_written", count=2)
        await bob_log.wait("desync_report_written", count=2)
        for name, side in (("Alice", "white"), ("Bob", "black")):
            [path] = (tmp_path / name / "desync").glob("*.json")
            report = json.loads(path.read_text())
            assert (report["turn"], report["our_side"]) == (1, side)
            assert report["our_hash"] != report["their_hash"]
            # issue 21: only public states travel and are written, never a piece (a
            # stunned Queen is not public: the reports differ in their hashes only)
            assert report["differences"] == []
            assert report["format"] == "wec-desync/2"
            assert "pieces" not in report["our_public"] | report["their_public"]
        with pytest.raises(LockstepError, match="the game stopped after a desync at turn 1"):
            alice.play(INTENTS[4])
        await alice.stop()
        await bob.stop()
    run(scenario)


# ---------------------------------------------------------------- background facade


def test_the_background_peer_runs_beside_a_frame_loop(tmp_path: Path) -> None:
    alice = BackgroundPeer(config(tmp_path, "Alice"))
    bob = BackgroundPeer(config(tmp_path, "Bob"))
    alice.start(timeout=10)
    bob.start(timeout=10)
    try:
        alice.call(lambda peer: peer.connect("127.0.0.1", bob.port)).result(timeout=10)
        seen: dict[str, list[str]] = {"alice": [], "bob": []}
        for _ in range(500):  # "frames": poll without blocking
            seen["alice"] += [event_kind(e) for e in alice.poll_events()]
            seen["bob"] += [event_kind(e) for e in bob.poll_events()]
            if "paired" in seen["alice"] and "paired" in seen["bob"]:
                break
            time.sleep(0.01)
        assert "paired" in seen["alice"] and "paired" in seen["bob"]
        alice.submit(lambda peer: peer.invite()).result(timeout=5)
        with pytest.raises(Exception, match="cannot accept an invitation now"):
            alice.submit(lambda peer: peer.accept()).result(timeout=5)
    finally:
        alice.stop(timeout=10)
        bob.stop(timeout=10)
    assert not alice.running



# ---------------------------------------------------------------- hostile peers (issue 20)


class FakeClock:
    """The clock of rate and time limits, moved by the test (never slept on)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def journal_lines(peer: Peer) -> list[dict[str, Any]]:
    assert peer.game is not None
    return [json.loads(line) for line in
            peer.game.journal.path.read_text(encoding="utf-8").splitlines()[1:]]


def test_game_chat_is_rate_limited_and_refused_lines_are_only_counted(
        tmp_path: Path) -> None:
    """Issue 20 hole 2: Alice floods the game chat. Bob takes a burst of 10 lines, then
    one every 2 s of his clock; the rest are refused (Alice is told), counted but not
    journalled in full, and Bob closes the link after 50 refused messages."""
    async def scenario() -> None:
        clock = FakeClock()
        alice, alice_log = await started(config(tmp_path, "Alice"))
        bob, bob_log = await started(config(tmp_path, "Bob", clock=clock))
        await set_up_game(alice, alice_log, bob, bob_log)
        assert alice.game is not None and bob.game is not None
        for number in range(25):
            alice.chat(f"line {number}")
        await alice_log.wait("peer_refused", count=15)
        assert [e["text"] for e in bob_log.of("chat")] == [f"line {n}" for n in range(10)]
        assert alice_log.of("peer_refused")[0]["reason"] == (
            "too many chat lines: at most 30 a minute (the rest were refused)")
        clock.now += 10.0  # five more lines' worth
        for number in range(25, 32):
            alice.chat(f"line {number}")
        await alice_log.wait("peer_refused", count=17)
        assert len(bob_log.of("chat")) == 15
        bob.game.lockstep.flush_journal()
        lines = journal_lines(bob)
        chat_in = [line for line in lines if line["k"] == "in"]
        assert len(chat_in) == 15  # only the accepted lines, in full
        assert [line["v"] for line in lines if line["k"] == "skip"] == [15, 2]
        assert bob.game.lockstep.peer_processed == 32
        assert bob.links[alice.identity.public_key].refusals == 17
        await alice.stop()
        await bob.stop()
    run(scenario)


def test_a_second_hello_is_refused_and_game_addresses_stay_bounded(tmp_path: Path) -> None:
    """Issue 20 (found in the split): each Hello with a new port added an address to
    redial and a note to the journal. Now one Hello per link is taken, and however many
    links announce new ports, the game keeps the newest 8 and notes at most 32."""
    from wec.net.messages import Hello
    from wec.net.peer_state import MAX_ADDRESS_NOTES, MAX_GAME_ADDRESSES

    async def scenario() -> None:
        alice, alice_log, bob, bob_log = await two_peers_in_a_game(tmp_path)
        assert bob.game is not None
        alice_address = ("127.0.0.1", alice.port)
        assert bob.game.addresses == [alice_address]  # from the Hello of her link
        link = alice.links[bob.identity.public_key]
        for port in range(40000, 40060):
            link.session.send(Hello(2, "0.1+x", "Alice", port))
        dropped = await bob_log.wait("disconnected")
        assert dropped["reason"] == "too many refused messages (51)"
        assert (await alice_log.wait("peer_refused")) == {
            "event": "peer_refused", "tag": "hello", "reason": "the hello was already received"}
        assert bob.game.addresses == [alice_address]
        for port in range(41000, 41100):  # a hundred links, each with a new port
            bob._state.note_game_address(alice.identity.public_key, ("127.0.0.1", port))
        assert len(bob.game.addresses) == MAX_GAME_ADDRESSES
        assert bob.game.addresses[-1] == ("127.0.0.1", 41099)
        noted = [line for line in journal_lines(bob)
                 if line["k"] == "note" and "address" in line["v"]]
        assert len(noted) == MAX_ADDRESS_NOTES
        await alice.stop()
        await bob.stop()
    run(scenario)


def test_lobby_chat_is_rate_limited_too(tmp_path: Path) -> None:
    async def scenario() -> None:
        clock = FakeClock()
        alice, alice_log = await started(config(tmp_path, "Alice"))
        bob, bob_log = await started(config(tmp_path, "Bob", clock=clock))
        await alice.connect("127.0.0.1", bob.port)
        await alice_log.wait("paired")
        await bob_log.wait("paired")
        for number in range(15):
            alice.chat(f"hello {number}")
        refused = await alice_log.wait("peer_refused", count=5)
        assert refused["reason"] == ("too many chat lines: at most 30 a minute (the rest "
                                     "were refused)")
        assert [e["text"] for e in bob_log.of("chat")] == [f"hello {n}" for n in range(10)]
        clock.now += 2.0
        alice.chat("one more")
        assert (await bob_log.wait("chat", count=11))["text"] == "one more"
        await alice.stop()
        await bob.stop()
    run(scenario)


def test_a_connected_peer_that_does_not_move_can_be_claimed_against(
        tmp_path: Path) -> None:
    """Issue 20 hole 3, on injected clocks: Bob (Black, to act) stays connected and never
    moves. After the idle limit on Alice's clock she is told (peer_idle) and may claim;
    Bob's machine takes the claim only if its own clock agrees."""
    async def scenario() -> None:
        clocks = {"Alice": FakeClock(), "Bob": FakeClock()}
        alice, alice_log = await started(config(tmp_path, "Alice", clock=clocks["Alice"]))
        bob, bob_log = await started(config(tmp_path, "Bob", clock=clocks["Bob"]))
        await set_up_game(alice, alice_log, bob, bob_log)
        assert alice.game is not None and bob.game is not None
        clocks["Alice"].now += 899.0
        with pytest.raises(LockstepError, match="Bob has had 899 s to act; a win can be "
                                                "claimed after 900 s"):
            alice.claim_win()
        clocks["Alice"].now += 2.0
        idle = await alice_log.wait("peer_idle")
        assert (idle["peer"], idle["claim"], idle["limit"]) == ("Bob", "idle", 900.0)
        alice.claim_win()
        assert alice.game.lockstep.result is not None
        # Bob's own clock says he has had his turn for no time at all: he refuses
        refused = await bob_log.wait("refused")
        assert refused["tag"] == "time_claim"
        assert refused["reason"] == ("not so on this machine: turn 1 has been owed for 0 s, "
                                     "the limit is 900 s")
        assert bob.game.lockstep.result is None
        await alice.stop()
        await bob.stop()

        # again, with both clocks agreeing: the claim ends the game on both machines
        clocks = {"Alice": FakeClock(), "Bob": FakeClock()}
        alice, alice_log = await started(config(tmp_path / "2", "Alice",
                                                clock=clocks["Alice"]))
        bob, bob_log = await started(config(tmp_path / "2", "Bob", clock=clocks["Bob"]))
        await set_up_game(alice, alice_log, bob, bob_log)
        for clock in clocks.values():
            clock.now += 901.0
        await alice_log.wait("peer_idle")
        alice.claim_win()
        result = (await bob_log.wait("result"))["result"]
        assert result == {"winner": "white", "how": "time", "reason":
                          "Black did not finish turn 1 in 901 s; White claimed the win"}
        await alice.stop()
        await bob.stop()
    run(scenario)


def test_an_unanswered_takeback_request_is_declined_by_itself(tmp_path: Path) -> None:
    """Issue 20 hole 3: Alice's player never answers Bob's takeback request; after the
    request timeout on her clock her machine declines it, and Bob plays on."""
    async def scenario() -> None:
        clock = FakeClock()
        alice, alice_log = await started(config(tmp_path, "Alice", clock=clock))
        bob, bob_log = await started(config(tmp_path, "Bob"))
        await set_up_game(alice, alice_log, bob, bob_log)
        await play_script({Side.WHITE: alice, Side.BLACK: bob},
                          {Side.WHITE: alice_log, Side.BLACK: bob_log}, INTENTS[:4])
        bob.request_takeback()
        await alice_log.wait("takeback_request")
        clock.now += 121.0
        answer = await bob_log.wait("takeback")
        assert (answer["by_us"], answer["accepted"]) == (False, False)
        assert bob.game is not None and bob.game.lockstep.our_takeback is None
        await alice.stop()
        await bob.stop()
    run(scenario)


def test_a_time_limit_per_move_is_agreed_in_the_lobby_and_claimed(tmp_path: Path) -> None:
    """Issue 20 hole 3: the time limit per move is an option of the lobby (off by
    default): proposed, approved, in the rules hash and the game; past it, the win may be
    claimed on time."""
    async def scenario() -> None:
        clocks = {"Alice": FakeClock(), "Bob": FakeClock()}
        alice, alice_log = await started(config(tmp_path, "Alice", clock=clocks["Alice"]))
        bob, bob_log = await started(config(tmp_path, "Bob", clock=clocks["Bob"]))
        await alice.connect("127.0.0.1", bob.port)
        await alice_log.wait("paired")
        await bob_log.wait("paired")
        alice.invite()
        await bob_log.wait("invited")
        bob.accept()
        await alice_log.wait("setup")
        alice.choose_colour("white")
        bob.choose_colour("black")
        await alice_log.wait("colours")
        alice.propose_move_time(60)
        proposal = await bob_log.wait("proposal")
        assert proposal["move_time"] == 60
        bob.approve()
        assert (await alice_log.wait("rules", where=lambda e: e["move_time"] == 60))
        alice.end_setup()
        started_game = await bob_log.wait("game_started")
        assert started_game["move_time"] == 60
        await alice_log.wait("game_started")
        for clock in clocks.values():
            clock.now += 61.0
        idle = await alice_log.wait("peer_idle")
        assert (idle["claim"], idle["limit"]) == ("move_time", 60)
        alice.claim_win()
        result = (await bob_log.wait("result"))["result"]
        assert result["how"] == "time" and result["winner"] == "white"
        assert "within the 60 s time limit" in result["reason"]
        await alice.stop()
        await bob.stop()
    run(scenario)


def test_a_peer_that_reconnects_but_never_resumes_is_away(tmp_path: Path) -> None:
    """Issue 20 hole 1: after a drop Bob reconnects and pairs, but never resumes the
    game (nor declares it closed in time): Alice's grace period runs on, and she may
    claim the win."""
    from wec.net.messages import Message, Resume

    async def scenario() -> None:
        alice, alice_log = await started(config(tmp_path, "Alice", grace_period=0.5))
        bob, bob_log = await started(config(tmp_path, "Bob"))
        await set_up_game(alice, alice_log, bob, bob_log, board=False)
        state = bob._state
        honest_send = state.send

        def send(link: Any, message: Message) -> None:
            if not isinstance(message, Resume):
                honest_send(link, message)

        state.send = send  # type: ignore[method-assign]
        assert bob.game is not None and bob.game.link is not None
        bob.game.link.session._writer.transport.abort()
        await alice_log.wait("disconnected")
        await alice_log.wait("paired", count=2)  # connected again, and nothing more
        expired = await alice_log.wait("grace_expired", timeout=10)
        assert expired["peer"] == "Bob"
        alice.claim_win()
        result = (await alice_log.wait("result"))["result"]
        assert (result["winner"], result["how"]) == ("white", "forfeit")
        await alice.stop()
        await bob.stop()
    run(scenario)


def test_the_connection_gate_limits_each_address_on_its_clock(tmp_path: Path) -> None:
    """Issue 20 hole 7: handshakes at once from one address and in all, and per minute
    from one address (a burst, then the rate); other addresses are not affected."""
    from wec.net.peer_links import ConnectionGate

    clock = FakeClock()
    gate = ConnectionGate(config(tmp_path, "Alice", clock=clock, handshake_burst=5,
                                 handshakes_per_minute=6, handshakes_per_address=3,
                                 handshakes_at_once=4))
    flood = ("10.0.0.9", 1)
    assert [gate.enter(flood) for _ in range(4)] == [None, None, None,
                                                     "too many handshakes at once from "
                                                     "10.0.0.9"]
    assert gate.enter(("10.0.0.7", 1)) is None  # another address gets through
    assert gate.enter(("10.0.0.8", 1)) == "too many handshakes at once"
    for _ in range(3):
        gate.leave(flood)
    gate.leave(("10.0.0.7", 1))
    assert [gate.enter(flood) for _ in range(3)] == [None, None, "too many connections "
                                                                 "from 10.0.0.9"]
    gate.leave(flood)
    gate.leave(flood)
    clock.now += 10.0  # one more per 10 s
    assert gate.enter(flood) is None and gate.enter(flood) is not None
    assert gate.refused == 4


def test_games_found_by_name_put_the_pinned_key_first(tmp_path: Path) -> None:
    """Issue 20 hole 9: several games may advertise one name; the one whose key is
    pinned under that name is tried first, then other pinned keys, then the rest."""
    from wec.net.discovery import PeerInfo
    from wec.net.identity import fingerprint
    from wec.net.peer_discovery import PeerFinder
    from wec.net.peer_state import PeerState

    state = PeerState(config(tmp_path, "Alice"), None)
    keys = [bytes([n]) * 32 for n in range(1, 4)]
    state.pins.pin("Host", keys[2])
    state.pins.pin("Carol", keys[1])

    def info(key: bytes) -> PeerInfo:
        return PeerInfo(f"Host-{fingerprint(key)[:4]}", "Host", fingerprint(key), 2,
                        ("10.0.0.1",), 7400)

    found = [info(key) for key in keys]
    ranked = PeerFinder(state).rank("Host", found)
    assert [p.fingerprint for p in ranked] == [fingerprint(keys[2]), fingerprint(keys[1]),
                                               fingerprint(keys[0])]


def test_finished_games_and_listening_addresses_stay_bounded(tmp_path: Path) -> None:
    """Issue 20 (found in the split): finished games were kept for the life of the
    process, and the listening addresses learned from discovery were never forgotten."""
    from wec.net.discovery import PeerChange, PeerInfo
    from wec.net.game_files import KEPT_FINISHED_GAMES
    from wec.net.lockstep import GameResult, Lockstep
    from wec.net.peer import Game, Journal
    from wec.net.peer_state import MAX_LISTEN_ADDRESSES

    async def scenario() -> None:
        peer, _ = await started(config(tmp_path, "Alice"))
        for number in range(12):
            lockstep = Lockstep(bytes([number]) * 32, START, Side.WHITE)
            lockstep.result = GameResult(Side.WHITE, "over", "resign")
            peer.game = Game(bytes([number]) * 32, bytes(32), "Bob", lockstep,
                             Journal(tmp_path / f"{number}.jsonl"), "king_hunt")
            peer._games.archive_finished()
        assert list(peer.finished_games) == [bytes([n]) * 32 for n in
                                             range(12 - KEPT_FINISHED_GAMES, 12)]
        finder = peer._finder
        for number in range(MAX_LISTEN_ADDRESSES + 40):
            info = PeerInfo(f"P{number}", f"P{number}", f"FP{number:02d}-AAAA", 2,
                            ("10.0.0.1",), 7000 + number)
            finder._on_change(PeerChange("added", info, 0.0))
        assert len(peer._state.addresses) == MAX_LISTEN_ADDRESSES
        finder._on_change(PeerChange("removed", info, 0.0))
        assert info.fingerprint not in peer._state.addresses
        await peer.stop()
    run(scenario)


def test_a_save_that_cannot_be_written_is_reported_and_the_game_goes_on(
        tmp_path: Path) -> None:
    """Issue 20 (found in the split): a save that failed raised out of the step, after
    the step's messages went out and before its other events were reported. Now the
    failure is an error event and the game goes on."""
    async def scenario() -> None:
        alice, alice_log, bob, bob_log = await two_peers_in_a_game(tmp_path)
        (tmp_path / "Bob" / "saves").write_text("a file where the folder should be")
        await play_script({Side.WHITE: alice, Side.BLACK: bob},
                          {Side.WHITE: alice_log, Side.BLACK: bob_log}, INTENTS[:2])
        alice.save()
        await alice_log.wait("saved")
        error = await bob_log.wait("error")
        assert error["text"].startswith("the save Alice-") and "was not written" in \
            error["text"]
        assert bob_log.of("save")  # the step's event was reported all the same
        await play_script({Side.WHITE: alice, Side.BLACK: bob},
                          {Side.WHITE: alice_log, Side.BLACK: bob_log}, INTENTS, start=2)
        assert bob.game is not None and bob.game.lockstep.match == FINAL
        await alice.stop()
        await bob.stop()
    run(scenario)
