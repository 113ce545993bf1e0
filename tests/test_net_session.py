"""Secure sessions on real loopback TCP (issue 8 items 2, 3 and 9).

Two real sessions handshake and talk; a hostile peer, which completes a genuine
handshake and then writes whatever bytes it likes, checks that every kind of bad input
ends in its exact ProtocolError subclass and leaves the session in the stated state.
"""

from __future__ import annotations

import asyncio
import hashlib
import struct
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, ClassVar

import msgpack
import pytest

from wec import engine
from wec.net.errors import (
    AuthenticationFailed,
    BadSignature,
    ConnectionLost,
    FrameTooLarge,
    HandshakeRefused,
    IdentityMismatch,
    MalformedMessage,
    OutOfOrderFrame,
    PeerKeyChanged,
    PeerTimeout,
    ProtocolError,
    ReplayedFrame,
    SessionClosed,
    TooManyRejections,
    TruncatedFrame,
    UnknownMessageType,
    VersionMismatch,
)
from wec.net.frames import (
    MAX_FRAME_SIZE,
    SIZE_CLASSES,
    FrameOpener,
    FrameSealer,
    pad_plaintext,
    plain_frame,
    read_frame,
    unpad_plaintext,
)
from wec.net.handshake import (
    PROTOCOL_VERSION,
    HandshakeResult,
    initiate_handshake,
    respond_handshake,
)
from wec.net.identity import Identity
from wec.net.messages import (
    Bye,
    Chat,
    CoinCommit,
    CoinReveal,
    Heartbeat,
    Int,
    IntentMessage,
    Invite,
    Message,
    OptionProposal,
    Resign,
    SaveNotice,
    TakebackRequest,
    TurnHash,
    coin_commitment,
    coin_result,
    decode_message,
    encode_message,
    register,
    reveal_matches,
)
from wec.net.pairing import PeerStore, PinStatus
from wec.net.session import (
    SecureSession,
    SessionConfig,
    SessionServer,
    SessionState,
    connect,
    measure_handshake,
    serve,
)

ALICE = Identity.generate()
BOB = Identity.generate()
MALLORY = Identity.generate()
QUIET = SessionConfig(heartbeat_interval=60.0, heartbeat_timeout=120.0)
LOCAL = "127.0.0.1"


def run(test: Callable[[], Awaitable[None]]) -> None:
    """Run one async test with a hard time limit (a hang is a failure, not a stall)."""
    async def guarded() -> None:
        async with asyncio.timeout(20):
            await test()
        await asyncio.sleep(0.02)  # let closed transports finish closing
    asyncio.run(guarded())


async def listen(identity: Identity = ALICE, name: str = "Alice",
                 config: SessionConfig = QUIET, pins: PeerStore | None = None
                 ) -> tuple[SessionServer, asyncio.Queue[SecureSession]]:
    accepted: asyncio.Queue[SecureSession] = asyncio.Queue()

    async def keep(session: SecureSession) -> None:
        await accepted.put(session)

    server = await serve(identity, name, keep, host=LOCAL, config=config, pins=pins)
    return server, accepted


async def stop(server: SessionServer) -> None:
    server.close()
    await server.wait_closed()


@dataclass
class HostilePeer:
    """A real initiator (genuine handshake) that then writes raw bytes of its choosing."""

    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    keys: HandshakeResult
    sealer: FrameSealer
    opener: FrameOpener

    def frame(self, message: Message) -> bytes:
        return self.raw(encode_message(message))

    def raw(self, body: bytes) -> bytes:
        """A frame carrying ``body`` as its message, padded as the session pads."""
        return self.sealer.seal(pad_plaintext(body))

    async def read_message(self) -> Message:
        return decode_message(unpad_plaintext(await read_frame(self.reader, self.opener)))


async def hostile_session(config: SessionConfig = QUIET
                          ) -> tuple[HostilePeer, SecureSession, SessionServer]:
    server, accepted = await listen(config=config)
    reader, writer = await asyncio.open_connection(LOCAL, server.port)
    keys = await initiate_handshake(reader, writer, BOB, "Bob")
    peer = HostilePeer(reader, writer, keys, FrameSealer(keys.send_key),
                       FrameOpener(keys.receive_key))
    return peer, await accepted.get(), server


async def refused(session: SecureSession) -> ProtocolError:
    with pytest.raises(ProtocolError) as caught:
        await session.receive()
    return caught.value


# ---------------------------------------------------------------- the good path


def test_two_sessions_handshake_and_exchange_messages() -> None:
    async def body() -> None:
        server, accepted = await listen()
        client = await connect(LOCAL, server.port, BOB, "Bob", config=QUIET)
        host = await accepted.get()
        assert client.sas == host.sas and len(client.sas) == 6 and client.sas.isdigit()
        assert client.session_id == host.session_id and len(client.session_id) == 16
        assert (client.peer_name, client.peer_key) == ("Alice", ALICE.public_key)
        assert (host.peer_name, host.peer_key) == ("Bob", BOB.public_key)
        assert client.peer_fingerprint == ALICE.fingerprint
        assert (client.initiator, host.initiator) == (True, False)
        assert client.pin_status is None and client.state is SessionState.OPEN

        intent = engine.intent_from_dict({"act": "move", "from": [2, 5, "ground"],
                                          "to": [3, 5, "ground"]})
        client.send(IntentMessage(turn=1, index=0, intent=intent))
        client.send(OptionProposal(7, engine.Options(stealth_invisibility=False,
                                                     submersion_invisibility=False)))
        host.send(TurnHash(1, bytes(range(32))))
        assert await host.receive() == IntentMessage(1, 0, intent)
        proposal = await host.receive()
        assert isinstance(proposal, OptionProposal) and proposal.proposal == 7
        assert proposal.options.stealth_invisibility is False
        assert await client.receive() == TurnHash(1, bytes(range(32)))
        assert (client.counters.messages_sent, client.counters.messages_received) == (2, 1)
        assert (host.counters.messages_sent, host.counters.messages_received) == (1, 2)
        assert host.counters.frames_received == 2 and host.counters.rejected == 0

        await client.close("game over")
        with pytest.raises(SessionClosed) as closed:
            await host.receive()
        assert closed.value.by_peer and closed.value.reason == "game over"
        assert closed.value.cause is None
        assert host.state is SessionState.CLOSED and client.state is SessionState.CLOSED
        with pytest.raises(SessionClosed):
            client.send(Chat("too late"))
        await stop(server)
    run(body)


def test_send_refuses_session_messages_and_invalid_values() -> None:
    async def body() -> None:
        server, accepted = await listen()
        client = await connect(LOCAL, server.port, BOB, "Bob", config=QUIET)
        await accepted.get()
        with pytest.raises(ValueError, match="use close"):
            client.send(Bye("no"))
        with pytest.raises(ValueError, match="use close"):
            client.send(Heartbeat(0))
        with pytest.raises(ValueError, match=r"chat.text: expected text of 1..500"):
            client.send(Chat("x" * 501))
        assert client.counters.messages_sent == 0 and client.is_open
        await client.close()
        await stop(server)
    run(body)


def test_measure_handshake_on_loopback() -> None:
    times = measure_handshake(5)
    assert len(times) == 5
    assert all(0 < t < 2.0 for t in times)


# ---------------------------------------------------------------- identities


def test_wrong_identity_key_fails_signature_on_both_sides() -> None:
    """A peer presenting Bob's public key without Bob's private key cannot finish."""
    impostor = Identity(private_key=MALLORY.private_key, public_key=BOB.public_key)

    async def body() -> None:
        server, accepted = await listen()
        with pytest.raises(ConnectionLost):  # the responder hangs up on the bad signature
            client = await connect(LOCAL, server.port, impostor, "Bob", config=QUIET)
            await client.receive()
        await asyncio.sleep(0.05)
        address, error = server.failures[-1]
        assert isinstance(error, BadSignature) and address is not None
        assert error.reason == ("the initiator's signature does not verify with the key it "
                                f"presented ({BOB.fingerprint})")
        assert accepted.empty()
        await stop(server)

        fake_server, _ = await listen(identity=impostor)
        with pytest.raises(BadSignature) as caught:
            await connect(LOCAL, fake_server.port, ALICE, "Alice", config=QUIET)
        assert caught.value.fatal
        assert caught.value.reason == ("the responder's signature does not verify with the "
                                       f"key it presented ({BOB.fingerprint})")
        await stop(fake_server)
    run(body)


def test_expected_key_refuses_any_other_peer() -> None:
    async def body() -> None:
        server, accepted = await listen()
        with pytest.raises(IdentityMismatch) as caught:
            await connect(LOCAL, server.port, BOB, "Bob", expected_key=MALLORY.public_key)
        assert caught.value.reason == (f"expected the peer with key {MALLORY.fingerprint}, "
                                       f"reached 'Alice' with key {ALICE.fingerprint}")
        await asyncio.sleep(0.05)
        error = server.failures[-1][1]
        assert isinstance(error, HandshakeRefused)
        assert error.reason == ("the peer refused the connection: you are not the peer we "
                                "meant to reach")
        assert accepted.empty()
        await stop(server)
    run(body)


def test_changed_key_for_pinned_name_is_refused_on_both_sides(tmp_path: Path) -> None:
    async def body() -> None:
        alice_pins = PeerStore(tmp_path / "alice")
        alice_pins.pin("Bob", BOB.public_key)
        server, accepted = await listen(pins=alice_pins)
        # Mallory claims to be Bob: Alice (responder) refuses once Mallory's signature
        # proved the key, and tells the initiator why in the first session frame.
        mallory = await connect(LOCAL, server.port, MALLORY, "Bob", config=QUIET)
        with pytest.raises(SessionClosed) as caught:
            await mallory.receive()
        assert caught.value.by_peer and caught.value.reason == (
            "the key you presented does not match the key pinned for 'Bob'")
        await asyncio.sleep(0.05)
        error = server.failures[-1][1]
        assert isinstance(error, PeerKeyChanged)
        assert (error.pinned_fingerprint, error.presented_fingerprint) == (
            BOB.fingerprint, MALLORY.fingerprint)
        assert accepted.empty()
        await stop(server)

        # Mallory answers as "Alice" where Bob pinned Alice: Bob (initiator) refuses.
        bob_pins = PeerStore(tmp_path / "bob")
        bob_pins.pin("Alice", ALICE.public_key)
        fake, fake_accepted = await listen(identity=MALLORY, name="Alice")
        with pytest.raises(PeerKeyChanged) as changed:
            await connect(LOCAL, fake.port, BOB, "Bob", pins=bob_pins)
        assert str(changed.value).startswith("WARNING: THE IDENTITY KEY OF PEER 'Alice' HAS "
                                             "CHANGED")
        assert ALICE.fingerprint in str(changed.value)
        assert MALLORY.fingerprint in str(changed.value)
        await asyncio.sleep(0.05)
        assert isinstance(fake.failures[-1][1], HandshakeRefused)
        assert fake_accepted.empty()
        await stop(fake)
    run(body)


def test_an_unsigned_hello_naming_a_pinned_peer_raises_no_key_alarm(tmp_path: Path) -> None:
    """Issue 20 hole 8: the responder checks its pins only after the initiator's signature
    proved the key; a raw hello with a pinned name and another key, whose signature is
    missing or wrong, fails as what it is (no proof), never as a changed key."""
    async def body() -> None:
        alice_pins = PeerStore(tmp_path / "alice")
        alice_pins.pin("Bob", BOB.public_key)
        server, accepted = await listen(pins=alice_pins)
        reader, writer = await asyncio.open_connection(LOCAL, server.port)
        writer.write(plain_frame(msgpack.packb({
            "t": "wec-hello", "v": PROTOCOL_VERSION, "role": "initiator",
            "id": MALLORY.public_key, "eph": bytes(range(1, 33)),
            "commit": hashlib.sha256(b"wec-net sas commit v1" + bytes(32)).digest(),
            "name": "Bob"})))
        for _ in range(2):  # the responder's hello and signature: it went on
            length = struct.unpack(">I", await reader.readexactly(4))[0]
            await reader.readexactly(length)
        writer.write(plain_frame(msgpack.packb({"t": "wec-auth", "reveal": bytes(32),
                                                "sig": bytes(64)})))
        await writer.drain()
        async with asyncio.timeout(5):
            while not server.failures:
                await asyncio.sleep(0.01)
        error = server.failures[-1][1]
        assert type(error) is BadSignature, error
        assert not any(isinstance(e, PeerKeyChanged) for _, e in server.failures)
        assert accepted.empty()
        writer.close()
        await stop(server)
    run(body)


def test_pin_status_new_until_pinned_then_pinned(tmp_path: Path) -> None:
    async def body() -> None:
        pins = PeerStore(tmp_path)
        server, accepted = await listen()
        first = await connect(LOCAL, server.port, BOB, "Bob", pins=pins, config=QUIET)
        assert first.pin_status is PinStatus.NEW
        pins.pin(first.peer_name, first.peer_key)
        await first.close()
        second = await connect(LOCAL, server.port, BOB, "Bob", pins=pins, config=QUIET)
        assert second.pin_status is PinStatus.PINNED
        assert second.session_id != first.session_id  # fresh keys every session
        await second.close()
        host_sessions = [await accepted.get(), await accepted.get()]
        assert [session.pin_status for session in host_sessions] == [None, None]  # no pins
        assert [session.peer_name for session in host_sessions] == ["Bob", "Bob"]
        await stop(server)
    run(body)


def test_man_in_the_middle_shows_different_codes() -> None:
    """Mallory relays Bob <-> Alice with her own key: both sessions work, but the two
    screens show different 6-digit codes, so the players refuse to pair."""
    async def body() -> None:
        alice_server, alice_accepted = await listen()
        relayed: asyncio.Queue[tuple[SecureSession, SecureSession]] = asyncio.Queue()

        async def relay(from_bob: SecureSession) -> None:
            to_alice = await connect(LOCAL, alice_server.port, MALLORY, "Bob", config=QUIET)
            await relayed.put((from_bob, to_alice))

        mallory = await serve(MALLORY, "Alice", relay, host=LOCAL, config=QUIET)
        bob = await connect(LOCAL, mallory.port, BOB, "Bob", config=QUIET)
        mallory_bob, mallory_alice = await relayed.get()
        alice = await alice_accepted.get()
        assert bob.peer_name == "Alice" and alice.peer_name == "Bob"
        assert bob.peer_fingerprint == MALLORY.fingerprint != ALICE.fingerprint
        assert alice.peer_fingerprint == MALLORY.fingerprint != BOB.fingerprint
        assert bob.sas == mallory_bob.sas and alice.sas == mallory_alice.sas
        assert bob.sas != alice.sas
        bob.send(Chat("secret plan"))
        assert await mallory_bob.receive() == Chat("secret plan")  # why the SAS matters
        for session in (bob, alice, mallory_bob, mallory_alice):
            await session.close()
        await stop(mallory)
        await stop(alice_server)
    run(body)


# ---------------------------------------------------------------- hostile frames


def test_tampered_ciphertext_closes_the_session() -> None:
    async def body() -> None:
        peer, host, server = await hostile_session()
        good = peer.frame(Chat("one"))
        bad = bytearray(peer.frame(Chat("two")))
        bad[-1] ^= 0x01
        peer.writer.write(good + bytes(bad))
        assert await host.receive() == Chat("one")
        error = await refused(host)
        assert type(error) is AuthenticationFailed and error.fatal
        assert error.reason == "frame 1 failed authentication (forged, tampered or corrupted)"
        assert host.state is SessionState.CLOSED and host.close_error is error
        with pytest.raises(SessionClosed) as closed:
            await host.receive()
        assert closed.value.cause is error and not closed.value.by_peer
        # the hostile peer is told why, in an authentic goodbye
        assert await peer.read_message() == Bye(error.reason)
        peer.writer.close()
        await stop(server)
    run(body)


def test_tampered_sequence_in_header_fails_authentication() -> None:
    async def body() -> None:
        peer, host, server = await hostile_session()
        frame = bytearray(peer.frame(Chat("one")))
        frame[4:12] = struct.pack(">Q", 5)  # the header is associated data
        peer.writer.write(bytes(frame))
        error = await refused(host)
        assert type(error) is AuthenticationFailed
        assert error.reason == "frame 5 failed authentication (forged, tampered or corrupted)"
        assert not host.is_open
        peer.writer.close()
        await stop(server)
    run(body)


def test_replayed_frame_is_dropped_and_the_session_goes_on() -> None:
    async def body() -> None:
        peer, host, server = await hostile_session()
        first = peer.frame(Chat("one"))
        peer.writer.write(first + first + peer.frame(Chat("two")))
        assert await host.receive() == Chat("one")
        error = await refused(host)
        assert type(error) is ReplayedFrame and not error.fatal
        assert error.reason == "frame 0 was already received (expected 1): replay dropped"
        assert await host.receive() == Chat("two")
        assert host.is_open
        assert (host.counters.messages_received, host.counters.rejected) == (2, 1)
        await host.close()
        peer.writer.close()
        await stop(server)
    run(body)


def test_out_of_order_frame_closes_the_session() -> None:
    async def body() -> None:
        peer, host, server = await hostile_session()
        zero, one, two = (peer.frame(Chat(text)) for text in ("zero", "one", "two"))
        peer.writer.write(zero + two + one)
        assert await host.receive() == Chat("zero")
        error = await refused(host)
        assert type(error) is OutOfOrderFrame and error.fatal
        assert error.reason == ("frame 2 arrived while 1 was expected: frames were lost or "
                                "reordered")
        assert host.state is SessionState.CLOSED
        assert host.counters.messages_received == 1  # "one" never reached the game
        assert await peer.read_message() == Bye(error.reason)
        peer.writer.close()
        await stop(server)
    run(body)


def test_oversized_frame_is_refused_before_its_body_is_read() -> None:
    async def body() -> None:
        peer, host, server = await hostile_session()
        # Only the header: waiting for 1 MiB of body would hang until the time limit.
        peer.writer.write(struct.pack(">IQ", MAX_FRAME_SIZE + 1, 0))
        error = await refused(host)
        assert type(error) is FrameTooLarge and error.fatal
        assert error.reason == "frame of 65537 bytes announced; the maximum is 65536"
        assert host.state is SessionState.CLOSED
        peer.writer.close()
        await stop(server)
    run(body)


def test_frame_of_exactly_the_maximum_size_passes_the_frame_layer() -> None:
    async def body() -> None:
        peer, host, server = await hostile_session()
        body_bytes = b"\xc1" * (MAX_FRAME_SIZE - 16 - 4)  # 0xc1 is never valid msgpack
        peer.writer.write(peer.raw(body_bytes) + peer.frame(Chat("after")))
        error = await refused(host)
        assert type(error) is MalformedMessage and not error.fatal
        assert error.reason.startswith("not a valid msgpack message")
        assert await host.receive() == Chat("after")
        assert host.is_open and host.counters.rejected == 1
        await host.close()
        peer.writer.close()
        await stop(server)
    run(body)


def test_frames_are_padded_to_size_classes_whatever_the_action() -> None:
    """Issue 20 hole 12: every kind of game action sent in a session travels in a frame of
    one size (the 256-byte class); longer messages go to the next classes."""
    from wec.engine.setup import standard_position
    from wec.storage.scenarios import load_scenario

    async def body() -> None:
        server, accepted = await listen()
        client = await connect(LOCAL, server.port, BOB, "Bob", config=QUIET)
        host = await accepted.get()
        sizes: dict[str, set[int]] = {}

        def sent(what: str, message: Message) -> None:
            before = client.counters.bytes_sent
            client.send(message)
            sizes.setdefault(what, set()).add(client.counters.bytes_sent - before)

        intents = []
        for position in (standard_position(), load_scenario("king_hunt")):
            intents += engine.legal_intents(position)
        intents += [engine.intent_from_dict(data) for data in (
            {"act": "end"}, {"act": "pickup", "from": [1, 1, "ground"], "article": "bike"},
            {"act": "exchange", "from": [1, 1, "ground"], "to": [1, 2, "ground"],
             "give": "bike", "take": "scuba_suit"},
            {"act": "reinforce", "at": [1, 1], "kind": "tank", "hand": "left"},
            {"act": "drop", "from": [2, 2, "air"], "article": "jump_pack"})]
        for index, intent in enumerate(intents):
            sent(f"intent {type(intent).__name__}", IntentMessage(7, index, intent))
        sent("turn hash", TurnHash(7, bytes(range(32))))
        sent("resign", Resign())
        sent("takeback", TakebackRequest(3))
        sent("save", SaveNotice(40))
        sent("short chat", Chat("gg"))
        frame_256 = 12 + 256 + 16  # header, padded plaintext, tag
        assert {what for what in sizes if what.startswith("intent")} >= {
            "intent Move", "intent Fire", "intent Doze", "intent EndTurn", "intent PickUp",
            "intent Exchange", "intent Reinforce", "intent Drop"}
        assert {size for group in sizes.values() for size in group} == {frame_256}
        for length, size in ((300, 1024), (500, 1024)):
            before = client.counters.bytes_sent
            client.send(Chat("x" * length))
            assert client.counters.bytes_sent - before == 12 + size + 16
        for _ in range(len(intents) + 5):
            await host.receive()  # and every one arrives intact
        assert await host.receive() == Chat("x" * 300)
        await client.close()
        await stop(server)
    run(body)


def test_padding_is_checked_by_the_receiver() -> None:
    body = encode_message(Chat("gg"))
    padded = pad_plaintext(body)
    assert len(padded) == SIZE_CLASSES[0] and unpad_plaintext(padded) == body
    assert len(pad_plaintext(b"x" * 253)) == 1024  # 4 + 253 > 256
    for bad, reason in ((padded[:-1], "not its size class"),
                        (padded[:-1] + b"\x01", "the padding after the message is not zeros"),
                        (b"\x00\x00\x01\x00" + padded[4:], "exceeds the frame"),
                        (b"\x00\x01", "has no message length")):
        with pytest.raises(MalformedMessage, match=reason):
            unpad_plaintext(bad)

    async def run_session() -> None:
        peer, host, server = await hostile_session()
        peer.writer.write(peer.sealer.seal(body) + peer.frame(Chat("after")))  # unpadded
        error = await refused(host)
        assert type(error) is MalformedMessage and not error.fatal
        assert await host.receive() == Chat("after")
        await host.close()
        peer.writer.close()
        await stop(server)
    run(run_session)


def test_malformed_and_unknown_messages_are_refused_one_by_one() -> None:
    async def body() -> None:
        peer, host, server = await hostile_session()
        bad_field = msgpack.packb({"t": "chat", "text": 5})
        unknown = msgpack.packb({"t": "teleport", "to": [1, 1]})
        illegal_intent = msgpack.packb({"t": "intent", "turn": 1, "index": 0,
                                        "intent": {"act": "move", "from": [0, 5, "ground"],
                                                   "to": [3, 5, "ground"]}})
        peer.writer.write(peer.raw(bad_field) + peer.raw(unknown)
                          + peer.raw(illegal_intent) + peer.frame(Chat("fine")))
        errors = [await refused(host) for _ in range(3)]
        assert [type(e) for e in errors] == [MalformedMessage, UnknownMessageType,
                                            MalformedMessage]
        assert errors[0].reason == "chat.text: expected text of 1..500 characters (got 5)"
        assert errors[1].reason == "unknown message type 'teleport'"
        assert errors[2].reason == ("intent.intent: intent.from: expected [row, col, level] "
                                    "with row and col 1..10 and level air, ground or sub "
                                    "(got [0, 5, 'ground'])")
        assert await host.receive() == Chat("fine")
        assert host.is_open
        assert host.counters.rejected == 3 and host.counters.messages_received == 1
        assert host.counters.rejections[-1] == errors[2].reason
        await host.close()
        peer.writer.close()
        await stop(server)
    run(body)


def test_a_flood_of_refused_messages_closes_the_session() -> None:
    async def body() -> None:
        peer, host, server = await hostile_session(SessionConfig(
            heartbeat_interval=60.0, heartbeat_timeout=120.0, max_rejections=3))
        peer.writer.write(b"".join(peer.raw(b"\xc1") for _ in range(5)))
        errors = [await refused(host) for _ in range(5)]
        assert [type(e) for e in errors] == [MalformedMessage] * 4 + [TooManyRejections]
        assert errors[-1].reason == "the peer sent 4 refused messages; closing the session"
        assert host.state is SessionState.CLOSED and host.close_error is errors[-1]
        with pytest.raises(SessionClosed):
            await host.receive()
        peer.writer.close()
        await stop(server)
    run(body)


def test_a_heartbeat_claiming_unsent_messages_is_refused() -> None:
    async def body() -> None:
        peer, host, server = await hostile_session()
        peer.writer.write(peer.frame(Heartbeat(3)) + peer.frame(Heartbeat(0)))
        error = await refused(host)
        assert error.reason == "heartbeat claims 3 messages received, only 0 sent"
        assert host.is_open
        await asyncio.sleep(0.05)
        assert host.counters.heartbeats_received == 2 and host.peer_received == 0
        await host.close()
        peer.writer.close()
        await stop(server)
    run(body)


def test_stream_truncated_inside_a_frame() -> None:
    async def body() -> None:
        peer, host, server = await hostile_session()
        frame = peer.frame(Chat("cut short"))
        peer.writer.write(frame[:20])
        peer.writer.close()
        error = await refused(host)
        assert type(error) is TruncatedFrame and error.fatal
        assert error.reason == f"the stream ended inside a frame (8 of {len(frame) - 12} " \
                               "bytes arrived)"
        assert host.state is SessionState.CLOSED
        peer.writer.close()
        await stop(server)
    run(body)


def test_stream_ending_between_frames_is_a_lost_connection() -> None:
    async def body() -> None:
        peer, host, server = await hostile_session()
        peer.writer.write(peer.frame(Chat("last words")))
        peer.writer.close()
        assert await host.receive() == Chat("last words")
        error = await refused(host)
        assert type(error) is ConnectionLost
        assert error.reason == "the connection was closed by the peer"
        with pytest.raises(SessionClosed) as closed:
            await host.receive()
        assert closed.value.reason == "the connection was closed by the peer"
        peer.writer.close()
        await stop(server)
    run(body)


# ---------------------------------------------------------------- versions and handshakes


def _hello(version: Any, identity: Identity, role: str) -> bytes:
    return plain_frame(msgpack.packb({
        "t": "wec-hello", "v": version, "role": role, "id": identity.public_key,
        "eph": bytes(32), "commit": bytes(32), "name": "Old"}))


def test_wrong_version_refused_by_the_responder() -> None:
    async def body() -> None:
        server, accepted = await listen()
        reader, writer = await asyncio.open_connection(LOCAL, server.port)
        writer.write(_hello(3, BOB, "initiator"))
        length = struct.unpack(">I", await reader.readexactly(4))[0]
        answer = msgpack.unpackb(await reader.readexactly(length))
        assert answer == {"t": "wec-refuse", "v": 2, "reason": "version"}
        await asyncio.sleep(0.05)
        error = server.failures[-1][1]
        assert type(error) is VersionMismatch and (error.ours, error.theirs) == (2, 3)
        assert error.reason == ("protocol version mismatch: we speak version 2, the peer "
                                "speaks 3; both players need the same wec release")
        assert accepted.empty()
        writer.close()
        await stop(server)
    run(body)


def test_wrong_version_refused_by_the_initiator() -> None:
    async def body() -> None:
        async def old_responder(reader: asyncio.StreamReader,
                                writer: asyncio.StreamWriter) -> None:
            await reader.readexactly(struct.unpack(">I", await reader.readexactly(4))[0])
            writer.write(_hello(1, ALICE, "responder"))  # the version before frame padding
            writer.close()

        old = await asyncio.start_server(old_responder, LOCAL, 0)
        port = old.sockets[0].getsockname()[1]
        with pytest.raises(VersionMismatch) as caught:
            await connect(LOCAL, port, BOB, "Bob")
        assert (caught.value.ours, caught.value.theirs) == (2, 1)
        old.close()
        await old.wait_closed()

        async def newer_responder(reader: asyncio.StreamReader,
                                  writer: asyncio.StreamWriter) -> None:
            await reader.readexactly(struct.unpack(">I", await reader.readexactly(4))[0])
            writer.write(plain_frame(msgpack.packb({"t": "wec-refuse", "v": 7,
                                                    "reason": "version"})))
            writer.close()

        newer = await asyncio.start_server(newer_responder, LOCAL, 0)
        with pytest.raises(VersionMismatch) as refused_by_newer:
            await connect(LOCAL, newer.sockets[0].getsockname()[1], BOB, "Bob")
        assert (refused_by_newer.value.ours, refused_by_newer.value.theirs) == (2, 7)
        newer.close()
        await newer.wait_closed()
    run(body)


def test_handshake_timeout_and_garbage_are_recorded_by_the_server() -> None:
    async def body() -> None:
        server, accepted = await listen(config=SessionConfig(handshake_timeout=0.2))
        silent_reader, silent_writer = await asyncio.open_connection(LOCAL, server.port)
        _, garbage_writer = await asyncio.open_connection(LOCAL, server.port)
        garbage_writer.write(plain_frame(b"\x93\x01\x02\x03"))
        _, huge_writer = await asyncio.open_connection(LOCAL, server.port)
        huge_writer.write(struct.pack(">I", 1 << 30))
        await asyncio.sleep(0.5)
        kinds = sorted(type(error).__name__ for _, error in server.failures)
        assert kinds == ["FrameTooLarge", "HandshakeError", "HandshakeTimeout"]
        reasons = {type(e).__name__: e.reason for _, e in server.failures
                   if isinstance(e, ProtocolError)}
        assert reasons["HandshakeError"] == "handshake message: expected a map with a type tag"
        assert reasons["FrameTooLarge"] == ("handshake frame of 1073741824 bytes announced; "
                                            "the maximum is 4096")
        assert reasons["HandshakeTimeout"] == "the handshake did not finish within 0.2 s"
        assert await silent_reader.read() == b""  # the server hung up
        assert accepted.empty()
        for writer in (silent_writer, garbage_writer, huge_writer):
            writer.close()
        await stop(server)
    run(body)


def test_responder_handshake_refuses_a_reflected_hello() -> None:
    async def body() -> None:
        server, _ = await listen()
        reader, writer = await asyncio.open_connection(LOCAL, server.port)
        with pytest.raises(ConnectionLost):
            await initiate_handshake(reader, writer, ALICE, "Alice")  # Alice calls herself
        await asyncio.sleep(0.05)
        error = server.failures[-1][1]
        assert type(error) is IdentityMismatch
        assert error.reason == ("the peer presents our own identity key (a reflected or "
                                "looped-back connection)")
        writer.close()
        await stop(server)
    run(body)


def test_direct_respond_handshake_over_raw_streams() -> None:
    """The two handshake halves agree when driven directly (no server helper)."""
    async def body() -> None:
        results: asyncio.Queue[HandshakeResult] = asyncio.Queue()

        async def responder(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await results.put(await respond_handshake(reader, writer, ALICE, "Alice"))
            writer.close()

        raw = await asyncio.start_server(responder, LOCAL, 0)
        reader, writer = await asyncio.open_connection(LOCAL, raw.sockets[0].getsockname()[1])
        mine = await initiate_handshake(reader, writer, BOB, "Bob")
        theirs = await results.get()
        assert (mine.send_key, mine.receive_key) == (theirs.receive_key, theirs.send_key)
        assert mine.send_key != mine.receive_key
        assert mine.transcript_hash == theirs.transcript_hash and mine.sas == theirs.sas
        assert mine.send_key.hex() not in repr(mine)  # no key material in logs
        writer.close()
        raw.close()
        await raw.wait_closed()
    run(body)


# ---------------------------------------------------------------- heartbeats


def test_silent_peer_times_out() -> None:
    async def body() -> None:
        config = SessionConfig(heartbeat_interval=0.05, heartbeat_timeout=0.3)
        peer, host, server = await hostile_session(config)
        started = asyncio.get_running_loop().time()
        error = await refused(host)  # the hostile peer never sends a heartbeat
        waited = asyncio.get_running_loop().time() - started
        assert type(error) is PeerTimeout and error.fatal
        assert error.reason == "nothing heard from the peer for 0.3 s (heartbeat timeout)"
        assert 0.25 <= waited < 2.0
        assert host.state is SessionState.CLOSED and host.close_error is error
        assert host.counters.heartbeats_sent >= 2  # it kept beating while waiting
        peer.writer.close()
        await stop(server)
    run(body)


def test_heartbeats_keep_an_idle_session_open_and_report_progress() -> None:
    async def body() -> None:
        config = SessionConfig(heartbeat_interval=0.05, heartbeat_timeout=0.3)
        server, accepted = await listen(config=config)
        client = await connect(LOCAL, server.port, BOB, "Bob", config=config)
        host = await accepted.get()
        client.send(Chat("one"))
        client.send(Chat("two"))
        assert await host.receive() == Chat("one")
        await asyncio.sleep(0.8)  # well past the timeout, with no application traffic
        assert client.is_open and host.is_open
        assert client.counters.heartbeats_received >= 8
        assert host.counters.heartbeats_received >= 8
        assert client.peer_received == 2  # delivered to host's queue, even if unread
        assert host.peer_received == 0
        await client.close("done")
        await host.wait_closed()
        await stop(server)
    run(body)


def test_a_slow_reader_pauses_the_socket_without_timing_out() -> None:
    """Messages wait (at most receive_buffer of them queued) while the game is busy; the
    pause is not mistaken for a silent peer."""
    async def body() -> None:
        config = SessionConfig(heartbeat_interval=0.05, heartbeat_timeout=0.3,
                               receive_buffer=4)
        server, accepted = await listen(config=config)
        client = await connect(LOCAL, server.port, BOB, "Bob", config=config)
        host = await accepted.get()
        for number in range(10):
            client.send(Chat(f"message {number}"))
        await asyncio.sleep(0.7)  # the host reads nothing for more than twice the timeout
        assert host.is_open and client.is_open
        assert host.counters.messages_received == 4  # reading paused at the limit
        received = [await host.receive() for _ in range(10)]
        assert received == [Chat(f"message {number}") for number in range(10)]
        await client.close("done")
        await host.wait_closed()
        await stop(server)
    run(body)


# ---------------------------------------------------------------- the message layer


@register
@dataclass(frozen=True)
class ProbeMessage(Message):
    """How a later stage (hidden information) adds a message type in its own module."""

    TAG: ClassVar[str] = "x_probe"
    cells: Annotated[int, Int(0, 99)]


def test_messages_encode_to_exact_bytes_and_back() -> None:
    assert encode_message(Chat("gg")) == b"\x82\xa1t\xa4chat\xa4text\xa2gg"
    assert decode_message(b"\x82\xa1t\xa4chat\xa4text\xa2gg") == Chat("gg")
    assert encode_message(ProbeMessage(7)) == b"\x82\xa1t\xa7x_probe\xa5cells\x07"
    assert decode_message(encode_message(ProbeMessage(7))) == ProbeMessage(7)
    assert decode_message(encode_message(Invite(3))) == Invite(3, None)
    assert msgpack.unpackb(encode_message(Invite(3))) == {"t": "invite", "invitation": 3}


def test_message_registration_is_strict() -> None:
    with pytest.raises(ValueError, match="already registered"):
        @register
        @dataclass(frozen=True)
        class SecondChat(Message):
            TAG: ClassVar[str] = "chat"
            text: Annotated[str, Int(0, 1)]

    with pytest.raises(TypeError, match="annotate with exactly one Spec"):
        @register
        @dataclass(frozen=True)
        class Unchecked(Message):
            TAG: ClassVar[str] = "x_unchecked"
            value: int


def test_save_notice_carries_no_file_name() -> None:
    """Issue 20 hole 4: the peer does not name our files; a save notice says only how
    many actions to save."""
    assert decode_message(encode_message(SaveNotice(12))) == SaveNotice(12)
    with pytest.raises(MalformedMessage, match=r"save: unknown field 'file_name'"):
        decode_message(msgpack.packb({"t": "save", "actions": 3,
                                      "file_name": "../game.wecsave"}))
    with pytest.raises(MalformedMessage, match=r"save.actions: expected a whole number"):
        decode_message(msgpack.packb({"t": "save", "actions": -1}))


def test_coin_flip_commitment_and_result() -> None:
    nonce = bytes(range(32))
    commitment = coin_commitment(nonce, 1, ALICE.public_key)
    assert commitment == hashlib.sha256(b"wec-net coin v2\x00\x20" + ALICE.public_key
                                        + nonce + b"\x01").digest()
    mine = CoinReveal(nonce, 1)
    assert reveal_matches(CoinCommit(commitment), mine, ALICE.public_key)
    assert not reveal_matches(CoinCommit(commitment), CoinReveal(nonce, 0),
                              ALICE.public_key)  # a cheat
    assert not reveal_matches(CoinCommit(commitment), mine, BOB.public_key)  # a copy
    assert coin_result(mine, CoinReveal(bytes(32), 1)) == 0
    assert coin_result(mine, CoinReveal(bytes(32), 0)) == 1
    with pytest.raises(ValueError):
        coin_commitment(b"short", 1, ALICE.public_key)


def test_a_program_that_ends_during_a_handshake_logs_no_error(
        caplog: pytest.LogCaptureFixture) -> None:
    """A connection that has begun its handshake (its hello sent, the responder waiting
    for the next frame) when the program's event loop ends: the handshake ends with it,
    without the "Exception in callback ... CancelledError" error Python 3.11 logged for
    the cancelled server task (seen at every ``wec peer`` exit while the other side
    was redialling)."""
    async def scenario() -> None:
        server, _accepted = await listen()
        from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

        from wec.net import handshake

        reader, writer = await asyncio.open_connection(LOCAL, server.port)
        hello = handshake._pack({
            "t": handshake.HELLO, "v": handshake.PROTOCOL_VERSION, "role": "initiator",
            "id": BOB.public_key,
            "eph": handshake._public_bytes(X25519PrivateKey.generate()),
            "commit": handshake._commitment(bytes(handshake.NONCE_SIZE)), "name": "Bob"})
        writer.write(struct.pack(">I", len(hello)) + hello)
        await writer.drain()
        for _ in range(2):  # the responder's hello and signature: it waits for ours
            (length,) = struct.unpack(">I", await reader.readexactly(4))
            await reader.readexactly(length)
        # the loop ends here: asyncio.run cancels the tasks still running

    with caplog.at_level("ERROR", logger="asyncio"):
        asyncio.run(scenario())
    assert [r.getMessage() for r in caplog.records if r.name == "asyncio"] == []
