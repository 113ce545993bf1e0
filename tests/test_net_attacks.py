"""Issue 20: a hostile or broken peer, tried as an attacker on the same network would.

Each test runs one attack against a real ``wec peer`` process (the victim, on loopback,
its own state dir), with the project's own :class:`net.peer.Peer` or session layer as
the attacker in this process, and shows the victim unharmed: its game state (the final
state hash and result of the scripted game, every intent applied once), its saves and
its ability to play (the game goes on, or a legitimate peer still gets through).

Timing: nothing here sleeps and hopes. Every wait is for an event, with a generous
timeout; the clocks that decide time limits are the victim's own (short limits given on
its command line), and the in-process tests of net.game_clock use an injected clock.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import struct
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from wec.benchmarks.netns import NamespaceProcess
from wec.engine.formats import intent_to_dict
from wec.engine.intents import Intent
from wec.engine.match import Match
from wec.engine.pieces import Side
from wec.net.frames import SIZE_CLASSES, max_plaintext
from wec.net.lobby import StartBoard, build_start, stage1_options
from wec.net.peer import Peer, PeerConfig
from wec.net.session import SessionConfig
from wec.storage.scenarios import load_scenario

LOCAL = "127.0.0.1"
HEARTBEAT = "0.25"
FAST = SessionConfig(heartbeat_interval=0.25, heartbeat_timeout=1.25, handshake_timeout=3.0)
KING_HUNT = load_scenario("king_hunt")
START = build_start(StartBoard("king_hunt", KING_HUNT), stage1_options(KING_HUNT.options))
WINNER_REASON = "R12.1: Black lost the King, taken at (8,7) ground by a Tank"


def scripted_game(seed: int = 22) -> list[Intent]:
    """Random legal play from king_hunt: White takes the King on turn 6 (21 intents)."""
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
SIDES = [action.side for action in FINAL.actions]
BLACK = [intent for intent, side in zip(INTENTS, SIDES, strict=True) if side is Side.BLACK]
WHITE = [intent for intent, side in zip(INTENTS, SIDES, strict=True) if side is Side.WHITE]


def after(count: int) -> Match:
    """The scripted game after its first ``count`` intents."""
    match = START
    for intent in INTENTS[:count]:
        match = match.play(intent)
    return match


def kind(name: str, **fields: Any) -> Callable[[dict[str, Any]], bool]:
    return lambda event: event.get("event") == name and all(
        event.get(key) == value for key, value in fields.items())


# ---------------------------------------------------------------- the victim


class Victim:
    """A ``wec peer`` process on loopback: its JSON events, its stdin commands, its
    state dir."""

    def __init__(self, tmp_path: Path, name: str, *arguments: str) -> None:
        self.state_dir = tmp_path / f"victim-{name}"
        command = [sys.executable, "-u", "-m", "wec", "peer", "--name", name,
                   "--state-dir", str(self.state_dir), "--listen", LOCAL, "--port", "0",
                   "--no-discovery", "--heartbeat", HEARTBEAT, "--no-fog", *arguments]
        popen = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True, encoding="utf-8",
                                 errors="replace")
        self.process = NamespaceProcess(popen, f"victim {name}")
        self.port = int(self.process.wait_for_event(kind("started"), 30)["port"])

    def wait_for(self, predicate: Callable[[dict[str, Any]], bool],
                 timeout: float = 20) -> dict[str, Any]:
        return self.process.wait_for_event(predicate, timeout)

    async def event(self, predicate: Callable[[dict[str, Any]], bool],
                    timeout: float = 20) -> dict[str, Any]:
        """The next matching event, waited for on a thread (the attacker's loop runs)."""
        return await asyncio.to_thread(self.process.wait_for_event, predicate, timeout)

    def send(self, line: str) -> None:
        self.process.send_line(line)

    def seen(self, name: str) -> list[dict[str, Any]]:
        """Every event of kind ``name`` read so far (waited for or passed over)."""
        return [event for event in self.process.events if event.get("event") == name]

    def close(self) -> None:
        self.process.close()


@pytest.fixture
def victims(tmp_path: Path) -> Iterator[Callable[..., Victim]]:
    """Start victims with ``victims(name, *arguments)``; all are stopped afterwards."""
    started: list[Victim] = []

    def start(name: str, *arguments: str) -> Victim:
        victim = Victim(tmp_path, name, *arguments)
        started.append(victim)
        return victim

    yield start
    for victim in started:
        victim.close()


def write_script(path: Path, intents: list[Intent]) -> Path:
    path.write_text("".join(json.dumps(intent_to_dict(i)) + "\n" for i in intents),
                    encoding="utf-8")
    return path


def host_arguments(tmp_path: Path, *extra: str) -> tuple[str, ...]:
    """The victim as the host of the scripted game: White, proposes king_hunt."""
    return ("--host", "--auto-confirm", "--colour", "white", "--scenario", "king_hunt",
            "--script", str(write_script(tmp_path / "white.jsonl", WHITE)), *extra)


def assert_whole_game(final: dict[str, Any], side: Side = Side.WHITE) -> None:
    """The victim's final line: the scripted game to its end, no intent lost or
    applied twice."""
    ours, theirs = (len(WHITE), len(BLACK)) if side is Side.WHITE else (len(BLACK),
                                                                         len(WHITE))
    assert final["state_hash"] == FINAL.current_hash
    assert (final["actions"], final["turn"]) == (21, 6)
    assert (final["intents_sent"], final["peer_intents_applied"]) == (ours, theirs)
    assert final["result"] == {"winner": "white", "reason": WINNER_REASON, "how": "rules"}


# ---------------------------------------------------------------- the attacker


class Recorder:
    """Every event of the attacker's Peer (described), with waiting."""

    def __init__(self) -> None:
        from wec.net.peer import PeerEvent

        self.events: list[PeerEvent] = []
        self._changed = asyncio.Event()

    def __call__(self, event: Any) -> None:
        self.events.append(event)
        self._changed.set()

    def of(self, name: str) -> list[dict[str, Any]]:
        from wec.net.peer import describe_event, event_kind

        return [describe_event(e) for e in self.events if event_kind(e) == name]

    async def wait(self, name: str, timeout: float = 20, count: int = 1,
                   where: Callable[[dict[str, Any]], bool] = lambda e: True
                   ) -> dict[str, Any]:
        async with asyncio.timeout(timeout):
            while True:
                found = [e for e in self.of(name) if where(e)]
                if len(found) >= count:
                    return found[count - 1]
                self._changed.clear()
                await self._changed.wait()


async def until(condition: Callable[[], bool], timeout: float = 20) -> None:
    """Wait until ``condition()`` holds (checked as the loop runs; TimeoutError else)."""
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.01)


def attacker_config(tmp_path: Path, name: str = "Mallory", **changes: Any) -> PeerConfig:
    values: dict[str, Any] = {"name": name, "state_dir": tmp_path / name, "host": LOCAL,
                              "discovery": False, "auto_confirm": True, "session": FAST,
                              "reconnect_interval": 0.1, "dial_delay": 0.3, "fog": False}
    values.update(changes)
    return PeerConfig(**values)


async def attacker(tmp_path: Path, name: str = "Mallory", **changes: Any
                   ) -> tuple[Peer, Recorder]:
    log = Recorder()
    peer = Peer(attacker_config(tmp_path, name, **changes), on_event=log)
    await peer.start()
    return peer, log


async def join_game(peer: Peer, log: Recorder, victim: Victim, colour: str = "black",
                    port: int | None = None) -> None:
    """Dial the victim (the host), pair, invite, approve its king_hunt proposal, take
    ``colour``: the game starts."""
    await peer.connect(LOCAL, port or victim.port)
    await log.wait("paired")
    peer.invite()
    await log.wait("setup")
    peer.choose_colour(colour)
    await log.wait("proposal")
    peer.approve()
    await log.wait("game_started")


async def play_black(peer: Peer, upto: int = len(INTENTS)) -> None:
    """Play the attacker's (Black's) scripted intents honestly until the game has
    ``upto`` actions (the victim plays White's)."""
    assert peer.game is not None
    lockstep = peer.game.lockstep
    while len(lockstep.match.actions) < upto and lockstep.result is None:
        await until(lambda: lockstep.our_turn or lockstep.result is not None
                    or len(lockstep.match.actions) >= upto, 30)
        if lockstep.our_turn and len(lockstep.match.actions) < upto:
            peer.play(INTENTS[len(lockstep.match.actions)])


async def finish(peer: Peer, victim: Victim) -> dict[str, Any]:
    """The attacker plays on honestly to the end; the victim's final line."""
    try:
        await play_black(peer)
    except TimeoutError:
        game = peer.game
        state = None if game is None else (
            game.connected, len(game.lockstep.match.actions), game.lockstep.result,
            game.lockstep.peer_processed, len(game.lockstep.log),
            game.lockstep.match.current.side_to_act, game.lockstep.desync,
            game.lockstep.our_takeback, game.lockstep._awaiting_hash)
        raise AssertionError(f"the game stalled: attacker {state}; victim's last lines "
                             f"{victim.process.seen[-12:]}") from None
    final = await victim.event(kind("final"), 30)
    assert_whole_game(final)
    return final


async def stop(*peers: Peer) -> None:
    for peer in peers:
        with contextlib.suppress(Exception):
            await peer.stop()


# ---------------------------------------------------------------- hole 12: frame sizes


class FrameRecorder:
    """An eavesdropper on the path: a TCP relay to the victim that notes the size of
    every session frame in each direction (the frame layout of net.frames)."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.sizes: dict[str, list[int]] = {"to victim": [], "from victim": []}
        self.times: dict[str, list[float]] = {"to victim": [], "from victim": []}
        self.server: asyncio.Server | None = None

    async def start(self) -> int:
        self.server = await asyncio.start_server(self._handle, LOCAL, 0)
        return int(self.server.sockets[0].getsockname()[1])

    async def _pump(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                    direction: str) -> None:
        handshake_frames = 2  # then session frames: length, sequence, ciphertext
        with contextlib.suppress(asyncio.IncompleteReadError, ConnectionError, OSError):
            while True:
                header = await reader.readexactly(4 if handshake_frames else 12)
                body = await reader.readexactly(struct.unpack(">I", header[:4])[0])
                if handshake_frames:
                    handshake_frames -= 1
                else:
                    self.sizes[direction].append(len(header) + len(body))
                    self.times[direction].append(time.monotonic())
                writer.write(header + body)
                await writer.drain()
        writer.close()

    async def _handle(self, reader: asyncio.StreamReader,
                      writer: asyncio.StreamWriter) -> None:
        target_reader, target_writer = await asyncio.open_connection(LOCAL,
                                                                     self.target_port)
        await asyncio.gather(self._pump(reader, target_writer, "to victim"),
                             self._pump(target_reader, writer, "from victim"))

    def close(self) -> None:
        if self.server is not None:
            self.server.close()


def test_hole_12_frame_sizes_do_not_tell_the_kind_of_action(
        tmp_path: Path, victims: Callable[..., Victim]) -> None:
    """An eavesdropper records the frames of a whole game between the victim and a peer:
    every frame has a size class's size, and the victim's intents of every kind (moves,
    fires, the ends of its turns), its turn hashes and its heartbeats all travel in
    frames of one size."""
    victim = victims("Host", *host_arguments(tmp_path))

    async def scenario() -> None:
        eavesdropper = FrameRecorder(victim.port)
        relay_port = await eavesdropper.start()
        peer, log = await attacker(tmp_path, "Joiner")
        try:
            await join_game(peer, log, victim, port=relay_port)
            await finish(peer, victim)
        finally:
            await stop(peer)
            eavesdropper.close()
        classes = {12 + size + 16 for size in (*SIZE_CLASSES, max_plaintext())}
        sent = eavesdropper.sizes["from victim"] + eavesdropper.sizes["to victim"]
        assert sent and set(sent) <= classes
        kinds = {type(intent).__name__ for intent in WHITE}
        assert len(kinds) >= 3, kinds  # e.g. Move, Fire, EndTurn
        # every frame the victim sent once the game started (after the lobby, whose
        # proposal is a whole board): the same size, whatever it carried (the wec peer
        # stamps its events with the machine's monotonic clock, as the relay does)
        started = victim.seen("game_started")[0]["at"]
        game_frames = [size for size, at in zip(eavesdropper.sizes["from victim"],
                                                eavesdropper.times["from victim"],
                                                strict=True) if at > started]
        assert len(game_frames) >= len(WHITE) + 3  # intents and turn hashes at least
        assert set(game_frames) == {12 + SIZE_CLASSES[0] + 16}, game_frames

    asyncio.run(scenario())


# ---------------------------------------------------------------- hole 8: pins and proof


def test_hole_8_an_unsigned_hello_with_a_pinned_name_raises_no_alarm(
        tmp_path: Path, victims: Callable[..., Victim]) -> None:
    """The victim has paired with Joiner. The attacker opens a handshake calling itself
    Joiner with another key but cannot sign for it: the victim refuses the connection as
    unproven (a bad signature), without the loud "identity key changed" warning, and then
    plays the whole game with the real Joiner."""
    import hashlib

    import msgpack

    from wec.net.frames import plain_frame
    from wec.net.handshake import PROTOCOL_VERSION
    from wec.net.identity import Identity

    victim = victims("Host", *host_arguments(tmp_path))

    async def scenario() -> None:
        peer, log = await attacker(tmp_path, "Joiner")
        try:
            await peer.connect(LOCAL, victim.port)
            await log.wait("paired")
            await victim.event(kind("paired", peer="Joiner", newly=True))
            reader, writer = await asyncio.open_connection(LOCAL, victim.port)
            writer.write(plain_frame(msgpack.packb({
                "t": "wec-hello", "v": PROTOCOL_VERSION, "role": "initiator",
                "id": Identity.generate().public_key,
                "eph": Identity.generate().public_key,  # any 32 bytes
                "commit": hashlib.sha256(b"wec-net sas commit v1" + bytes(32)).digest(),
                "name": "Joiner"})))
            for _ in range(2):  # the victim's hello and signature: it did not balk
                length = struct.unpack(">I", await reader.readexactly(4))[0]
                await reader.readexactly(length)
            writer.write(plain_frame(msgpack.packb({"t": "wec-auth", "reveal": bytes(32),
                                                    "sig": bytes(64)})))
            refused = await victim.event(kind("connection_refused"))
            assert refused["key_changed"] is False
            assert "signature does not verify" in refused["reason"]
            writer.close()
            peer.invite()
            await log.wait("setup")
            peer.choose_colour("black")
            await log.wait("proposal")
            peer.approve()
            await log.wait("game_started")
            await finish(peer, victim)
            assert not [e for e in victim.process.events if e.get("key_changed")]
        finally:
            await stop(peer)

    asyncio.run(scenario())


# ---------------------------------------------------------------- hole 11: pins by key


def test_hole_11_a_known_key_under_a_new_name_is_recognised(
        tmp_path: Path, victims: Callable[..., Victim]) -> None:
    """The victim paired with Joiner. The same installation (the same key) comes back
    calling itself Joanna: the victim recognises the key (no new pairing code), says
    the peer was known as Joiner, notes the new name in its pins, and plays."""
    from wec.net.pairing import PeerStore

    victim = victims("Host", *host_arguments(tmp_path))

    async def scenario() -> None:
        peer, log = await attacker(tmp_path, "Joiner")
        await peer.connect(LOCAL, victim.port)
        await log.wait("paired")
        await victim.event(kind("paired", peer="Joiner", newly=True))
        await stop(peer)
        await victim.event(kind("disconnected", peer="Joiner"))
        config = attacker_config(tmp_path, "Joanna", state_dir=tmp_path / "Joiner")
        log = Recorder()
        peer = Peer(config, on_event=log)
        await peer.start()
        try:
            await peer.connect(LOCAL, victim.port)
            paired = await victim.event(kind("paired", peer="Joanna"))
            assert (paired["newly"], paired["known_as"]) == (False, "Joiner")
            assert [e["peer"] for e in victim.seen("pairing_code")] == ["Joiner"]
            [pin] = PeerStore(victim.state_dir).peers()
            assert (pin.name, pin.former_names, pin.public_key) == (
                "Joanna", ("Joiner",), peer.identity.public_key)
            await log.wait("paired")
            peer.invite()
            await log.wait("setup")
            peer.choose_colour("black")
            await log.wait("proposal")
            peer.approve()
            await log.wait("game_started")
            await finish(peer, victim)
        finally:
            await stop(peer)

    asyncio.run(scenario())


# ---------------------------------------------------------------- hole 6: the coin


def test_hole_6_a_copied_coin_commitment_cannot_decide_the_colours(
        tmp_path: Path, victims: Callable[..., Victim]) -> None:
    """Both want White, so a coin decides. The attacker holds back its own commitment,
    waits for the victim's and sends that back as its own (then it would copy the
    reveal too, and the XOR of two equal bits always gave it the colour). The victim
    refuses the copy; the coin is then flipped fairly and the game is played."""
    from wec.net.messages import CoinCommit, CoinReveal, Message

    victim = victims("Host", "--host", "--auto-confirm", "--colour", "white",
                     "--scenario", "king_hunt", "--random", "--seed", "3")

    async def scenario() -> None:
        peer, log = await attacker(tmp_path)
        held: list[Message] = []
        state = peer._state
        honest_send = state.send

        def send(link: Any, message: Message) -> None:
            if isinstance(message, CoinCommit | CoinReveal):
                held.append(message)  # our own coin waits
            else:
                honest_send(link, message)

        state.send = send  # type: ignore[method-assign]
        try:
            await peer.connect(LOCAL, victim.port)
            await log.wait("paired")
            peer.invite()
            await log.wait("setup")
            peer.choose_colour("white")
            lobby = peer.lobby()
            await until(lambda: lobby._coin is not None and lobby._coin.peer_commit
                        is not None)
            assert lobby._coin is not None and lobby._coin.peer_commit is not None
            [link] = peer.links.values()
            link.session.send(lobby._coin.peer_commit)  # the victim's own commitment
            refused = await victim.event(kind("refused", tag="coin_commit"))
            assert refused["reason"] == ("this coin commitment is a copy of ours: each side "
                                         "commits to its own coin")
            for message in held:  # now the honest coin
                link.session.send(message)
            state.send = honest_send  # type: ignore[method-assign]
            decided = await victim.event(kind("colours"))
            ours = await log.wait("colours")
            assert decided["by_coin"] and ours["by_coin"]
            assert {decided["our_side"], ours["our_side"]} == {"white", "black"}
            await log.wait("proposal")
            peer.approve()
            await log.wait("game_started")
            assert peer.game is not None
            lockstep = peer.game.lockstep
            rng = random.Random(5)
            while len(lockstep.match.actions) < 8 and lockstep.result is None:
                await until(lambda: lockstep.our_turn or lockstep.result is not None)
                if lockstep.our_turn:
                    peer.play(rng.choice(lockstep.match.legal_intents()))
            await victim.event(kind("turn_agreed"))
            # nothing of the victim's in flight: resign on our turn
            await until(lambda: lockstep.our_turn or lockstep.result is not None)
            if lockstep.result is None:
                peer.resign()
            final = await victim.event(kind("final"), 30)
            assert final["state_hash"] == lockstep.state_hash
            assert final["result"]["how"] in ("resign", "rules")
            if final["result"]["how"] == "resign":
                assert final["result"]["winner"] == decided["our_side"]
        finally:
            await stop(peer)

    asyncio.run(scenario())


# ---------------------------------------------------------------- hole 10: the O15/O16 lock


def test_hole_10_a_resumed_save_cannot_switch_hidden_pieces_on(
        tmp_path: Path, victims: Callable[..., Victim]) -> None:
    """Both machines hold a save of a game with O15 stealth invisibility on (a hotseat
    game copied into the LAN saves). The attacker invites the victim to resume it (its
    own lobby would refuse, so it sends the invitation itself): the victim declines with
    the stage 1 lock's reason, nothing starts, and a new game is then played."""
    import base64
    import hashlib
    from dataclasses import replace

    from wec.engine.savegame import encode_save
    from wec.net.lobby import STAGE1_REASON
    from wec.net.messages import Invite

    log = Recorder()
    peer = Peer(attacker_config(tmp_path), on_event=log)
    hidden = Match.begin(KING_HUNT.evolve(options=replace(
        stage1_options(KING_HUNT.options), stealth_invisibility=True)))
    data = encode_save(hidden)
    digest = hashlib.sha256(data).digest()
    saves = tmp_path / "victim-Host" / "saves"
    saves.mkdir(parents=True)
    (saves / "hidden.wecsave").write_bytes(data)
    (saves / "hidden.wecsave.json").write_text(json.dumps({
        "format": "wec-peer-save/1", "peer_name": "Mallory",
        "peer_key": base64.b64encode(peer.identity.public_key).decode(),
        "our_side": "white", "sha256": digest.hex()}))
    victim = victims("Host", *host_arguments(tmp_path))

    async def scenario() -> None:
        await peer.start()
        try:
            await peer.connect(LOCAL, victim.port)
            await log.wait("paired")
            [link] = peer.links.values()
            link.session.send(Invite(7, digest))
            declined = await victim.event(kind("declined", by_us=True))
            assert declined["reason"] == STAGE1_REASON
            assert not victim.seen("game_started") and not victim.seen("setup")
            await join_game_invited(peer, log)
            await finish(peer, victim)
        finally:
            await stop(peer)

    asyncio.run(scenario())


async def join_game_invited(peer: Peer, log: Recorder, colour: str = "black") -> None:
    """On a paired link: invite the victim (the host) to a new game and set it up."""
    peer.invite()
    await log.wait("setup")
    peer.choose_colour(colour)
    await log.wait("proposal")
    peer.approve()
    await log.wait("game_started")


# ---------------------------------------------------------------- hole 2: floods


def only_the_victim_redials(peer: Peer) -> None:
    """The attacker does not dial the victim again after a drop (the victim dials it, at
    the port its Hello announced): one new link each time, no dialling race to settle."""
    peer._redial.stop()


def sent_around_the_lockstep(peer: Peer) -> None:
    """The attacker sent game messages straight on its session, around its own Lockstep:
    so that it can resume honestly after the victim counted them, its log is padded to
    the count the victim's Resume gives (nothing of the flood is sent again)."""
    from wec.net.messages import Chat

    assert peer.game is not None
    lockstep = peer.game.lockstep
    honest = lockstep.resend_from

    def resend_from(count: int) -> list[Any]:
        while len(lockstep.log) < count:
            lockstep.log.append(Chat("(sent around the lockstep)"))
        return honest(count)

    lockstep.resend_from = resend_from  # type: ignore[method-assign]


def black_turn_start(after_actions: int) -> int:
    """The first action index from ``after_actions`` on that starts a Black turn."""
    return next(index for index in range(after_actions, len(SIDES))
                if SIDES[index] is Side.BLACK and SIDES[index - 1] is Side.WHITE)


def test_hole_2_floods_of_refused_messages_and_chat_are_cut_short(
        tmp_path: Path, victims: Callable[..., Victim]) -> None:
    """Mid-game the attacker sends 5,000 chat lines of 500 characters, then (on the next
    link) 3,000 intents the victim must refuse. The victim takes the first few chat lines,
    refuses the rest, and closes each link after 50 refused messages; its journal keeps
    the accepted lines and one count of the refused ones, so it stays small; the game
    then goes on to its end."""
    from wec.net.messages import Chat, IntentMessage

    victim = victims("Host", *host_arguments(tmp_path))
    hold = black_turn_start(8)

    async def flood(peer: Peer, messages: list[Any]) -> dict[str, Any]:
        [link] = peer.links.values()
        with contextlib.suppress(Exception):  # the victim closes the link meanwhile
            for message in messages:
                link.session.send(message)
        return await victim.event(kind("disconnected", peer="Mallory"), 30)

    async def scenario() -> None:
        peer, log = await attacker(tmp_path)
        try:
            await join_game(peer, log, victim)
            only_the_victim_redials(peer)
            await play_black(peer, upto=hold)
            await until(lambda: peer.game is not None and peer.game.lockstep.our_turn)
            sent_around_the_lockstep(peer)
            cut = await flood(peer, [Chat(f"{n:04d}" + "x" * 496) for n in range(5000)])
            assert cut["reason"] == "too many refused messages (51)"
            chat = victim.seen("chat")
            assert 10 <= len(chat) <= 12  # the burst (and what the clock let through)
            await victim.event(kind("resumed"))
            await log.wait("resumed")  # its log padded to the victim's count
            assert peer.game is not None
            index = peer.game.lockstep.intents_sent
            cut = await flood(peer, [IntentMessage(99, index + 7, INTENTS[hold])] * 3000)
            assert cut["reason"] == "too many refused messages (51)"
            refused = victim.seen("refused")
            assert len(refused) <= 102  # never the thousands sent
            await victim.event(kind("resumed"))
            await log.wait("resumed", count=2)
            await finish(peer, victim)
        finally:
            await stop(peer)
        [journal] = (victim.state_dir / "games").glob("*.jsonl")
        lines = journal.read_text().splitlines()
        assert journal.stat().st_size < 48_000, journal.stat().st_size
        assert sum('"k": "skip"' in line for line in lines) >= 1
        assert len(lines) < 100

    asyncio.run(scenario())


# ---------------------------------------------------------------- hole 4: saves


def test_hole_4_the_peer_cannot_name_or_flood_our_saves(
        tmp_path: Path, victims: Callable[..., Victim]) -> None:
    """The victim holds a save of its own. The attacker asks to save under that save's
    name (and its info file's), then asks for 300 saves: the named requests are not
    even messages any more, the victim names the few saves it writes itself (never over
    a file), refuses the rest and closes the link; its own save is untouched and the
    game goes on to its end."""
    import msgpack

    from wec.net.frames import pad_plaintext
    from wec.net.messages import SaveNotice

    saves = tmp_path / "victim-Host" / "saves"
    saves.mkdir(parents=True)
    (saves / "evening.wecsave").write_bytes(b"the victim's own save")
    (saves / "evening.wecsave.json").write_text('{"the victim\'s": "own info"}')
    victim = victims("Host", *host_arguments(tmp_path))
    hold = black_turn_start(8)

    async def scenario() -> None:
        peer, log = await attacker(tmp_path)
        try:
            await join_game(peer, log, victim)
            only_the_victim_redials(peer)
            await play_black(peer, upto=hold)
            await until(lambda: peer.game is not None and peer.game.lockstep.our_turn)
            sent_around_the_lockstep(peer)
            [link] = peer.links.values()
            session = link.session
            for name in ("evening.wecsave", "evening.wecsave.json", "../../escape"):
                raw = msgpack.packb({"t": "save", "file_name": name})
                session._writer.write(session._sealer.seal(pad_plaintext(raw)))
            with contextlib.suppress(Exception):  # the victim closes the link meanwhile
                for _ in range(300):
                    session.send(SaveNotice(hold))
            cut = await victim.event(kind("disconnected", peer="Mallory"), 30)
            assert cut["reason"] == "too many refused messages (51)"
            saved = victim.seen("saved")
            assert 3 <= len(saved) <= 4  # the burst, and what the clock let through
            assert all(not e["asked_by_us"] for e in saved)
            assert len({e["file_name"] for e in saved}) == len(saved)
            errors = [e["text"] for e in victim.seen("error")]
            assert sum("save: unknown field 'file_name'" in text for text in errors) == 3
            await victim.event(kind("resumed"))
            await log.wait("resumed")  # its log padded to the victim's count
            await finish(peer, victim)
        finally:
            await stop(peer)
        assert (saves / "evening.wecsave").read_bytes() == b"the victim's own save"
        assert (saves / "evening.wecsave.json").read_text() == '{"the victim\'s": "own info"}'
        written = sorted(path.name for path in saves.iterdir())
        assert len(written) <= 2 + 2 * 4, written
        assert not (tmp_path / "escape").exists()

    asyncio.run(scenario())


# ---------------------------------------------------------------- hole 5: desync details


def test_hole_5_an_unprompted_desync_report_does_not_stop_the_game(
        tmp_path: Path, victims: Callable[..., Victim]) -> None:
    """Mid-game the attacker sends desync reports the victim never prompted: about a
    turn whose hash it did not send, and about its last turn with its own hash (no
    mismatch). The victim refuses both, sends no state of its own, writes no report, and
    the game goes on to its end."""
    from wec.net.lobby import encode_position
    from wec.net.messages import DesyncDetail

    victim = victims("Host", *host_arguments(tmp_path))
    hold = black_turn_start(8)

    async def scenario() -> None:
        peer, log = await attacker(tmp_path)
        try:
            await join_game(peer, log, victim)
            await play_black(peer, upto=hold)
            await until(lambda: peer.game is not None and peer.game.lockstep.our_turn)
            assert peer.game is not None
            lockstep = peer.game.lockstep
            white_turn = after(hold).current.turn - 1  # White hashed it last
            assert SIDES[hold - 1] is Side.WHITE
            their_hash = bytes.fromhex(after(hold).current_hash)
            position = encode_position(after(hold).current)
            sent_around_the_lockstep(peer)
            [link] = peer.links.values()
            link.session.send(DesyncDetail(white_turn - 2, bytes(32), position))
            link.session.send(DesyncDetail(white_turn, their_hash, position))
            first = await victim.event(kind("refused", tag="desync"))
            second = await victim.event(kind("refused", tag="desync"))
            assert "whose hash we did not send last" in first["reason"]
            assert "is the same as the peer's: there is no desync" in second["reason"]
            lockstep.log += [DesyncDetail(0, bytes(32), b"")] * 2  # counted there
            await finish(peer, victim)
            assert not victim.seen("desync") and not victim.seen("desync_report_written")
            assert not (victim.state_dir / "desync").exists()
            assert not [e for e in log.of("desync") + log.of("desync_report")]
        finally:
            await stop(peer)

    asyncio.run(scenario())


# ---------------------------------------------------------------- hole 3: a silent peer


def white_turn_start(after_actions: int) -> int:
    """The first action index from ``after_actions`` on that starts a White turn."""
    return next(index for index in range(after_actions, len(SIDES))
                if SIDES[index] is Side.WHITE and SIDES[index - 1] is Side.BLACK)


def test_hole_3_a_peer_that_never_moves_is_claimed_against(
        tmp_path: Path, victims: Callable[..., Victim]) -> None:
    """The attacker joins, stays connected and never plays its first turn. The victim
    (idle limit 3 s on its own clock, claiming when it may) is told the peer is not
    moving and wins on time: the game no longer stalls for ever."""
    victim = victims("Host", *host_arguments(tmp_path, "--idle-limit", "3", "--claim-win"))

    async def scenario() -> None:
        peer, log = await attacker(tmp_path)
        try:
            await join_game(peer, log, victim)
            idle = await victim.event(kind("peer_idle"), 30)
            assert (idle["peer"], idle["claim"], idle["limit"]) == ("Mallory", "idle", 3.0)
            assert idle["seconds"] >= 3.0
            final = await victim.event(kind("final"), 30)
            assert final["result"]["how"] == "time" and final["result"]["winner"] == "white"
            assert final["result"]["reason"].startswith("Black did not finish turn 1 in ")
            assert final["actions"] == 0
        finally:
            await stop(peer)

    asyncio.run(scenario())


def test_hole_3_a_time_limit_per_move_agreed_in_the_lobby(
        tmp_path: Path, victims: Callable[..., Victim]) -> None:
    """The victim (the host) proposes a time limit of 2 s per move, the attacker agrees,
    plays a turn and then lets its next turn run out: the victim wins on time."""
    victim = victims("Host", *host_arguments(tmp_path, "--move-time", "2", "--claim-win"))
    hold = black_turn_start(4)

    async def scenario() -> None:
        peer, log = await attacker(tmp_path)
        try:
            await peer.connect(LOCAL, victim.port)
            await log.wait("paired")
            peer.invite()
            await log.wait("setup")
            peer.choose_colour("black")
            await log.wait("proposal")  # king_hunt
            peer.approve()
            limit = await log.wait("proposal", count=2)
            assert limit["move_time"] == 2
            peer.approve()
            started = await log.wait("game_started")
            assert started["move_time"] == 2
            await play_black(peer, upto=hold)  # quick enough: each intent at once
            idle = await victim.event(kind("peer_idle"), 30)
            assert idle["claim"] == "move_time"
            final = await victim.event(kind("final"), 30)
            assert final["result"]["how"] == "time"
            assert "within the 2 s time limit" in final["result"]["reason"]
            assert final["actions"] <= hold
        finally:
            await stop(peer)

    asyncio.run(scenario())


def test_hole_3_an_unanswered_takeback_request_stalls_nothing(
        tmp_path: Path, victims: Callable[..., Victim]) -> None:
    """The victim asks for a takeback; the attacker never answers. Resigning works at
    once in one game; in another, the victim claims the win once the answer is owed for
    twice the request timeout (an honest machine declines by itself after one)."""
    async def run_one(name: str, resign: bool) -> dict[str, Any]:
        hold = white_turn_start(5)
        victim = victims(name, *host_arguments(tmp_path, "--hold-at", str(hold),
                                               "--request-timeout", "1", "--claim-win"))
        peer, log = await attacker(tmp_path / name)
        try:
            await join_game(peer, log, victim)
            await play_black(peer, upto=hold)
            await victim.event(kind("holding"))
            victim.send("takeback")
            await log.wait("takeback_request")  # ...and never answered
            if resign:
                victim.send("resign")
            else:
                idle = await victim.event(kind("peer_idle"), 30)
                assert (idle["claim"], idle["limit"]) == ("answer", 2.0)
            return await victim.event(kind("final"), 30)
        finally:
            await stop(peer)

    async def scenario() -> None:
        final = await run_one("Resigner", resign=True)
        assert final["result"] == {"winner": "black", "reason": "White resigned",
                                   "how": "resign"}
        final = await run_one("Claimer", resign=False)
        assert final["result"]["how"] == "time" and final["result"]["winner"] == "white"
        assert final["result"]["reason"].startswith("Black left a takeback request "
                                                    "unanswered for ")

    asyncio.run(scenario())


def test_hole_3_a_false_time_claim_is_refused(
        tmp_path: Path, victims: Callable[..., Victim]) -> None:
    """While the victim thinks about its turn, the attacker claims the win on time: the
    victim's own clock disagrees, so it refuses the claim and the game goes on to its
    end."""
    from wec.net.messages import TimeClaim

    hold = white_turn_start(5)
    victim = victims("Host", *host_arguments(tmp_path, "--hold-at", str(hold)))

    async def scenario() -> None:
        peer, log = await attacker(tmp_path)
        try:
            await join_game(peer, log, victim)
            await play_black(peer, upto=hold)
            await victim.event(kind("holding"))
            assert peer.game is not None
            sent_around_the_lockstep(peer)
            [link] = peer.links.values()
            turn = after(hold).current.turn
            link.session.send(TimeClaim("idle", turn, 100_000))
            refused = await victim.event(kind("refused", tag="time_claim"))
            assert refused["reason"].startswith(f"not so on this machine: turn {turn} has "
                                                "been owed for ")
            peer.game.lockstep.log.append(TimeClaim("idle", turn, 0))  # counted there
            victim.send("go")
            await finish(peer, victim)
        finally:
            await stop(peer)

    asyncio.run(scenario())


# ---------------------------------------------------------------- hole 1: a win declared


def test_hole_1_a_win_cannot_be_declared_after_a_reconnection(
        tmp_path: Path, victims: Callable[..., Victim]) -> None:
    """The attacker cuts its own connection three times mid-game. After the first
    resumption it declares itself the winner (GameClosed); after the second it answers
    the victim's Resume with that declaration instead of its own Resume (a forfeit after
    an absence of a second); after the third it sends Resume ten times (each used to
    resend the whole log). The victim refuses each, keeps its game, and plays it to its
    end."""
    from wec.net.messages import GameClosed, Message, Resume

    victim = victims("Host", *host_arguments(tmp_path))
    hold = black_turn_start(8)

    async def cut(peer: Peer, number: int) -> None:
        [link] = peer.links.values()
        link.session._writer.transport.abort()  # type: ignore[attr-defined]
        await victim.event(kind("disconnected", peer="Mallory"))
        await victim.event(kind("connected", peer="Mallory"))

    async def scenario() -> None:
        peer, log = await attacker(tmp_path)
        try:
            await join_game(peer, log, victim)
            only_the_victim_redials(peer)
            await play_black(peer, upto=hold)
            await until(lambda: peer.game is not None and peer.game.lockstep.our_turn)
            assert peer.game is not None
            game_id = peer.game.game_id

            await cut(peer, 1)
            await victim.event(kind("resumed"))
            [link] = peer.links.values()
            link.session.send(GameClosed(game_id, "black", "Black wins, says Black"))
            refused = await log.wait("peer_refused", where=lambda e: e["tag"] ==
                                     "game_closed")
            assert refused["reason"] == "a game is closed only in answer to a resume"

            held: list[Message] = []
            state = peer._state
            honest_send = state.send

            def send(link: Any, message: Message) -> None:
                if isinstance(message, Resume):
                    held.append(message)  # answer with a "forfeit" instead
                    link.session.send(GameClosed(game_id, "black", "White was gone; Black "
                                                                   "claimed the win"))
                else:
                    honest_send(link, message)

            state.send = send  # type: ignore[method-assign]
            await cut(peer, 2)
            error = await victim.event(lambda e: e.get("event") == "error"
                                       and "says the game is closed" in e["text"], 20)
            assert "but this machine was away for" in error["text"]
            assert "the game is kept" in error["text"]
            state.send = honest_send  # type: ignore[method-assign]
            [link] = peer.links.values()
            for message in held[-1:]:
                link.session.send(message)
            await victim.event(kind("resumed"))

            await cut(peer, 3)
            await victim.event(kind("resumed"))
            [link] = peer.links.values()
            for _ in range(9):
                link.session.send(Resume(game_id, 0))
            again = await log.wait("peer_refused", count=9,
                                   where=lambda e: e["tag"] == "resume")
            assert again["reason"] == "the game was already resumed on this link"
            await finish(peer, victim)
            assert len(victim.seen("resumed")) == 3  # one per link: no resend for the 9
            assert not [e for e in victim.seen("result") if e["result"]["how"] != "rules"]
        finally:
            await stop(peer)

    asyncio.run(scenario())


# ---------------------------------------------------------------- hole 7: connections


def test_hole_7_a_connection_flood_leaves_room_for_a_real_peer(
        tmp_path: Path, victims: Callable[..., Victim]) -> None:
    """From one address the attacker opens 60 connections that never start a handshake;
    from another, 40 authenticated sessions (a new key each) that never finish pairing.
    The victim closes what exceeds its limits at once (handshakes at once and per minute
    from one address, links waiting to pair from one address), drops the waiting ones
    after its pairing timeout, and meanwhile a real peer from a third address pairs and
    plays the whole game."""
    from wec.net.identity import Identity
    from wec.net.messages import Hello, PairingState
    from wec.net.session import SessionConfig, _open_session

    victim = victims("Host", *host_arguments(tmp_path, "--pairing-timeout", "4"))

    async def raw(source: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        return await asyncio.open_connection(LOCAL, victim.port, local_addr=(source, 0))

    async def closed_at_once(reader: asyncio.StreamReader) -> bool:
        try:
            async with asyncio.timeout(1.0):
                return await reader.read(1) == b""
        except (TimeoutError, ConnectionError):
            return False

    async def stranger(number: int) -> Any:
        reader, writer = await raw("127.0.0.3")
        try:
            session = await _open_session(
                reader, writer, Identity.generate(), f"Stranger {number}", initiator=True,
                expected_key=None, pins=None, config=SessionConfig(heartbeat_interval=0.25,
                                                                   heartbeat_timeout=30,
                                                                   handshake_timeout=3))
        except Exception:
            return None  # closed at once by the victim
        session.send(Hello(2, "0.1+x", f"Stranger {number}", None))
        session.send(PairingState(False))
        return session

    async def scenario() -> None:
        idle = [await raw("127.0.0.2") for _ in range(60)]
        shut = await asyncio.gather(*(closed_at_once(reader) for reader, _ in idle))
        assert sum(shut) >= 50  # at most 4 at once from one address, 10 in a burst
        sessions = [await stranger(number) for number in range(40)]
        await asyncio.sleep(0)  # let the victim's answers in
        alive = []
        for session in sessions:
            if session is None:
                continue
            with contextlib.suppress(Exception):
                async with asyncio.timeout(2.0):
                    while True:
                        message = await session.receive()
                        if isinstance(message, PairingState):
                            break
                alive.append(session)
        assert len(alive) <= 3  # links waiting to pair, from one address
        codes = [e for e in victim.process.events if e.get("event") == "pairing_code"]
        assert len(codes) <= 3
        peer, log = await attacker(tmp_path, "Joiner")  # a real peer, from 127.0.0.1
        try:
            await join_game(peer, log, victim)
            assert alive  # the first strangers got links (and pairing codes)
            for _ in alive:  # their links wait no longer than the pairing timeout
                await victim.event(kind("disconnected", reason="not paired within 4 s"))
            await finish(peer, victim)
        finally:
            await stop(peer)
            for _, writer in idle:
                writer.close()
            for session in alive:
                with contextlib.suppress(Exception):
                    await session.close()

    asyncio.run(scenario())
