"""Fuzzing every decoder and every message handler that reads peer input (issue 8 item 9,
last part): at least 100,000 generated inputs for the decoders and another 100,000 for
the handlers, seeded, so every run is the same.

Decoders (117,000 inputs): seeded random generation plus mutations of valid frames,
messages and handshakes:

- frames: 45,000 byte streams through both the asyncio reader the session uses
  (``read_frame``) and the sans-IO ``FrameDecoder``; they must agree, and whatever they
  deliver must be exactly the original plaintexts in order (nothing forged, replayed or
  reordered gets through);
- messages: 70,000 inputs to ``decode_message`` (random bytes, structured maps of every
  registered type with wrong/missing/extra fields and nested mutations, byte mutations of
  valid encodings); anything accepted must round-trip through the encoder;
- handshakes: 2,000 mutated handshake streams against each side over socket pairs.

Handlers (100,000 inputs, driven directly, no sockets but the Peer's own session end):
45,000 messages to the Lobby in every phase and sub-state (idle, inviting, invited,
resume, setup, coin flip, proposals pending, withdrawn, hashing, started), 45,000 to the
Lockstep in every state of a game (either side to act, mid-turn, awaiting a turn hash,
takeback asked either way or cancelled, save sent, resigned either way, over by the rules,
desynced, competitive) and 10,000 to the Peer's dispatch before, during and after
pairing, in the lobby, in a game and after it. Refusals must be exact (see the section
below).

The only exceptions allowed are the defined ProtocolError types (NetError for the
handshake, where a pinned-key refusal is also possible). Failures are collected and
shown with the input that caused them.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import functools
import hashlib
import logging
import random
import socket
import string
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgpack
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from wec import engine
from wec.engine.options import options_to_dict
from wec.engine.pieces import Government, Side
from wec.net import messages
from wec.net.errors import (
    ConnectionLost,
    MalformedMessage,
    MessageError,
    NetError,
    ProtocolError,
    ReplayedFrame,
)
from wec.net.frames import (
    FrameDecoder,
    FrameOpener,
    FrameSealer,
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
from wec.net.lobby import (
    LOBBY_MESSAGES,
    Lobby,
    Phase,
    RulesChanged,
    RulesMismatch,
    SavedGame,
    StartBoard,
    build_start,
    stage1_options,
)
from wec.net.lobby import PeerRefused as LobbyPeerRefused
from wec.net.lobby import Refused as LobbyRefused
from wec.net.lockstep import LOCKSTEP_MESSAGES, Lockstep
from wec.net.lockstep import PeerRefused as GamePeerRefused
from wec.net.lockstep import Refused as GameRefused
from wec.net.pairing import PinStatus
from wec.net.peer import Peer, PeerConfig
from wec.net.session import SecureSession, SessionConfig
from wec.storage.scenarios import load_scenario

FRAME_RANDOM = 15_000
FRAME_MUTATED = 30_000
MESSAGE_RANDOM_BYTES = 10_000
MESSAGE_STRUCTURED = 40_000
MESSAGE_BYTE_MUTATIONS = 20_000
HANDSHAKE_PER_SIDE = 1_000
TOTAL = (FRAME_RANDOM + FRAME_MUTATED + MESSAGE_RANDOM_BYTES + MESSAGE_STRUCTURED
         + MESSAGE_BYTE_MUTATIONS + 2 * HANDSHAKE_PER_SIDE)
KEY = bytes(range(1, 33))
INT_EDGES = [0, 1, -1, 2, 255, 256, 65535, 65536, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, 2 ** 32,
             2 ** 63 - 1, -(2 ** 63), 2 ** 64 - 1]
LONG_TEXT = "x" * 600


def test_enough_inputs_are_generated() -> None:
    assert TOTAL == 117_000 >= 100_000


# ---------------------------------------------------------------- generators


def _intent_pool() -> list[dict[str, Any]]:
    position = engine.standard_position()
    pool = [engine.intent_to_dict(i) for i in engine.legal_intents(position)]
    pool += [{"act": "end"}, {"act": "pickup", "from": [1, 1, "ground"], "article": "bike"},
             {"act": "exchange", "from": [1, 1, "ground"], "to": [1, 2, "ground"],
              "give": "bike", "take": "scuba_suit"},
             {"act": "reinforce", "at": [1, 1], "kind": "tank", "hand": "left"},
             {"act": "drop", "from": [2, 2, "air"], "article": "jump_pack"}]
    for data in pool:
        engine.intent_from_dict(data)  # the pool is valid
    return pool


INTENTS = _intent_pool()
OPTION_SETS = [options_to_dict(engine.Options()),
               options_to_dict(engine.Options(stealth_invisibility=False,
                                              submersion_invisibility=False, tank_range=8))]


def random_value(rng: random.Random, depth: int = 0) -> Any:
    """Any msgpack-encodable value, biased towards edge cases."""
    kind = rng.randrange(11 if depth < 3 else 8)
    if kind == 0:
        return rng.choice(INT_EDGES)
    if kind == 1:
        return rng.randint(-1000, 1000)
    if kind == 2:
        return rng.choice([True, False, None])
    if kind == 3:
        return rng.choice([0.0, 1.5, -2.0, float("nan"), float("inf")])
    if kind == 4:
        return "".join(rng.choice(string.printable + "é名\x00\x7f") for _ in
                       range(rng.randrange(12)))
    if kind == 5:
        return rng.choice(["", LONG_TEXT, "white", "end", "move", "air", "ground", "..",
                           "../x", "chat", "a\nb"])
    if kind == 6:
        return rng.randbytes(rng.choice([0, 1, 16, 31, 32, 33, 64, rng.randrange(80)]))
    if kind == 7:
        return rng.choice(["hello", "t", "intent", "turn", 3, [1, 1, "ground"], [0, 0]])
    if kind == 8:
        return [random_value(rng, depth + 1) for _ in range(rng.randrange(5))]
    if kind == 9:
        return {rng.choice(["t", "act", "from", "to", "x", "text", "kind"]):
                random_value(rng, depth + 1) for _ in range(rng.randrange(4))}
    return [rng.randint(-2, 12), rng.randint(-2, 12),
            rng.choice(["air", "ground", "sub", "space", 5])]


def valid_field(rng: random.Random, spec: messages.Spec) -> Any:
    """A wire value the spec accepts."""
    if isinstance(spec, messages.Int):
        return rng.choice([spec.low, spec.high, rng.randint(spec.low, min(spec.high,
                                                                          spec.low + 1000))])
    if isinstance(spec, messages.Flag):
        return rng.random() < 0.5
    if isinstance(spec, messages.Text):
        if spec.choices:
            return rng.choice(spec.choices)
        length = rng.randint(spec.min_length, min(spec.max_length, spec.min_length + 30))
        return "".join(rng.choice(string.ascii_letters + " é") for _ in range(length))
    if isinstance(spec, messages.Blob):
        return rng.randbytes(rng.randint(spec.min_size, spec.max_size))
    if isinstance(spec, messages.DisplayName):
        return f"Player {rng.randrange(100)}"
    if isinstance(spec, messages.FileName):
        return f"game-{rng.randrange(1000)}.wecsave"
    if isinstance(spec, messages.IntentSpec):
        return rng.choice(INTENTS)
    if isinstance(spec, messages.OptionsSpec):
        return rng.choice(OPTION_SETS)
    raise AssertionError(f"no generator for {spec!r}")


TAGS = sorted(messages.message_types())
FIELD_SPECS = {tag: messages.field_specs(tag) for tag in TAGS}


def valid_wire(rng: random.Random, tag: str | None = None) -> dict[str, Any]:
    """A valid message map of a random (or the given) registered type."""
    tag = tag or rng.choice(TAGS)
    out: dict[str, Any] = {"t": tag}
    for name, spec in FIELD_SPECS[tag]:
        if spec.optional and rng.random() < 0.3:
            continue
        out[name] = valid_field(rng, spec)
    return out


def mutate_value(rng: random.Random, value: Any, depth: int = 0) -> Any:
    """``value`` with one nested part replaced, removed or added."""
    if isinstance(value, dict) and value and depth < 4 and rng.random() < 0.7:
        copy = dict(value)
        key = rng.choice(sorted(copy, key=str))
        action = rng.randrange(3)
        if action == 0:
            del copy[key]
        elif action == 1:
            copy[key] = mutate_value(rng, copy[key], depth + 1)
        else:
            copy[rng.choice(["extra", "format", "act", "hand", key + "_"])] = \
                random_value(rng)
        return copy
    if isinstance(value, list) and value and depth < 4 and rng.random() < 0.7:
        copy = list(value)
        index = rng.randrange(len(copy))
        action = rng.randrange(3)
        if action == 0:
            del copy[index]
        elif action == 1:
            copy[index] = mutate_value(rng, copy[index], depth + 1)
        else:
            copy.insert(index, random_value(rng))
        return copy
    return random_value(rng)


def mutate_bytes(rng: random.Random, data: bytes) -> bytes:
    """One to three byte-level edits."""
    buffer = bytearray(data)
    for _ in range(rng.randint(1, 3)):
        action = rng.randrange(6)
        position = rng.randrange(len(buffer) + 1)
        if action == 0 and buffer:
            buffer[min(position, len(buffer) - 1)] ^= 1 << rng.randrange(8)
        elif action == 1 and buffer:
            buffer[min(position, len(buffer) - 1)] = rng.randrange(256)
        elif action == 2:
            del buffer[position:]
        elif action == 3:
            buffer[position:position] = rng.randbytes(rng.randint(1, 8))
        elif action == 4:
            del buffer[position:position + rng.randint(1, 8)]
        else:
            buffer[position:position] = rng.choice(
                [b"\xc1", b"\xdf\xff\xff\xff\xff", b"\xdd\x7f\xff\xff\xff", b"\xc7\x01\x05",
                 b"\xd9\xff", b"\xcf" + b"\xff" * 8, b"\x91" * 200])
    return bytes(buffer)


# ---------------------------------------------------------------- messages


class Failures:
    """Collects unexpected outcomes with the input that caused them."""

    def __init__(self) -> None:
        self.items: list[str] = []

    def add(self, what: str, data: Any, error: BaseException) -> None:
        if len(self.items) < 10:
            self.items.append(f"{what}: {type(error).__name__}: {error} on {data!r:.300}")


def check_message_bytes(data: bytes, failures: Failures) -> bool:
    """decode_message refuses with a MessageError or accepts a message that round-trips.
    True when accepted."""
    try:
        message = messages.decode_message(data)
    except MessageError:
        return False
    except Exception as exc:
        failures.add("decode_message", data, exc)
        return False
    try:
        again = messages.decode_message(messages.encode_message(message))
    except Exception as exc:
        failures.add("re-encoding an accepted message", data, exc)
        return True
    if again != message:
        failures.add("round trip", data, AssertionError(f"{again!r} != {message!r}"))
    return True


def pack(value: Any) -> bytes:
    return msgpack.packb(value, use_bin_type=True)  # type: ignore[no-any-return]


def test_engine_reader_surprises_are_refused_like_any_bad_message() -> None:
    """Found by this fuzzing: engine.intent_from_dict raises TypeError (not FormatError)
    for an unhashable "act". The message layer must refuse it all the same."""
    data = pack({"t": "intent", "turn": 1, "index": 0, "intent": {"act": [8, 3, 5]}})
    with pytest.raises(MalformedMessage) as caught:
        messages.decode_message(data)
    assert caught.value.reason.startswith("intent.intent: ")
    assert not caught.value.fatal


def test_random_bytes_never_crash_the_message_decoder() -> None:
    rng = random.Random(20240601)
    failures = Failures()
    for _ in range(MESSAGE_RANDOM_BYTES):
        random_bytes = rng.random() < 0.5
        data = rng.randbytes(rng.randrange(64)) if random_bytes else pack(random_value(rng))
        check_message_bytes(data, failures)
    assert failures.items == []


def test_structured_mutations_of_every_message_type() -> None:
    rng = random.Random(20240602)
    failures = Failures()
    tags = TAGS
    accepted_valid = 0
    for index in range(MESSAGE_STRUCTURED):
        wire = valid_wire(rng, tags[index % len(tags)])
        if index % 10 == 0:  # every tenth input is the unmutated, valid message
            accepted_valid += check_message_bytes(pack(wire), failures)
            continue
        action = rng.randrange(6)
        if action == 0:
            mutated: Any = mutate_value(rng, wire)
        elif action == 1:
            field = rng.choice(sorted(wire))
            mutated = {**wire, field: random_value(rng)}
        elif action == 2:
            mutated = {**wire, "t": rng.choice([*tags, "", "Hello", "x" * 40, 5, None])}
        elif action == 3:
            mutated = {k: v for k, v in wire.items() if k != rng.choice(sorted(wire))}
        elif action == 4:
            mutated = {**wire, rng.choice(["extra", "T", "turn", "text"]): random_value(rng)}
        else:
            mutated = rng.choice([[wire], list(wire.items()), wire["t"], None])
        check_message_bytes(pack(mutated), failures)
    assert failures.items == []
    assert accepted_valid == MESSAGE_STRUCTURED // 10  # valid messages all accepted


def test_byte_mutations_of_valid_messages() -> None:
    rng = random.Random(20240603)
    failures = Failures()
    for _ in range(MESSAGE_BYTE_MUTATIONS):
        check_message_bytes(mutate_bytes(rng, pack(valid_wire(rng))), failures)
    assert failures.items == []


# ---------------------------------------------------------------- frames

Outcome = tuple[list[bytes], str | None]


def decode_with_decoder(stream: bytes, chunk_sizes: list[int]) -> Outcome:
    decoder = FrameDecoder(KEY)
    outputs: list[bytes] = []
    position = 0
    for size in [*chunk_sizes, len(stream)]:
        decoder.feed(stream[position:position + size])
        position += size
        while True:
            try:
                plaintext = decoder.next()
            except ReplayedFrame:
                continue
            except ProtocolError as error:
                return outputs, type(error).__name__
            if plaintext is None:
                break
            outputs.append(plaintext)
    try:
        decoder.finish()
    except ProtocolError as error:
        return outputs, type(error).__name__
    return outputs, None


async def decode_with_stream_reader(stream: bytes) -> Outcome:
    reader = asyncio.StreamReader()
    reader.feed_data(stream)
    reader.feed_eof()
    opener = FrameOpener(KEY)
    outputs: list[bytes] = []
    while True:
        try:
            outputs.append(await read_frame(reader, opener))
        except ReplayedFrame:
            continue
        except ConnectionLost:
            return outputs, None
        except ProtocolError as error:
            return outputs, type(error).__name__


def frame_stream(rng: random.Random) -> tuple[list[bytes], list[bytes]]:
    """Plaintexts (valid messages or random bytes) and their sealed frames."""
    sealer = FrameSealer(KEY)
    plaintexts = [pack(valid_wire(rng)) if rng.random() < 0.8 else rng.randbytes(
        rng.randrange(40)) for _ in range(rng.randint(1, 4))]
    return plaintexts, [sealer.seal(p) for p in plaintexts]


def mutate_frames(rng: random.Random, frames: list[bytes]) -> bytes:
    """Frame-aware attacks (replay, reorder, drop, header rewrites) or byte edits."""
    frames = list(frames)
    action = rng.randrange(8)
    if action == 0:  # replay an earlier frame later
        index = rng.randrange(len(frames))
        frames.insert(rng.randint(index + 1, len(frames)), frames[index])
    elif action == 1 and len(frames) > 1:  # reorder
        i, j = rng.sample(range(len(frames)), 2)
        frames[i], frames[j] = frames[j], frames[i]
    elif action == 2 and len(frames) > 1:  # drop one: a gap
        del frames[rng.randrange(len(frames))]
    elif action == 3:  # rewrite a header length
        index = rng.randrange(len(frames))
        length = rng.choice([0, 15, 16, 17, 65536, 65537, 2 ** 32 - 1, rng.randrange(200)])
        frames[index] = length.to_bytes(4, "big") + frames[index][4:]
    elif action == 4:  # rewrite a header sequence number
        index = rng.randrange(len(frames))
        sequence = rng.choice([0, 1, index + 1, 2 ** 64 - 1, rng.randrange(10)])
        frames[index] = frames[index][:4] + sequence.to_bytes(8, "big") + frames[index][12:]
    elif action == 5:  # garbage between frames
        frames.insert(rng.randrange(len(frames) + 1), rng.randbytes(rng.randint(1, 30)))
    else:
        return mutate_bytes(rng, b"".join(frames))
    return b"".join(frames)


def random_stream(rng: random.Random) -> bytes:
    if rng.random() < 0.5:
        return rng.randbytes(rng.randrange(120))
    length = rng.choice([0, 1, 16, 17, 40, 65536, 65537, rng.randrange(100)])
    header = length.to_bytes(4, "big") + rng.randrange(4).to_bytes(8, "big")
    return header + rng.randbytes(rng.randrange(min(length, 100) + 5))


def test_frame_decoders_agree_and_deliver_only_authentic_in_order_frames() -> None:
    rng = random.Random(20240604)
    failures = Failures()
    delivered = 0

    async def run_all() -> None:
        nonlocal delivered
        for index in range(FRAME_RANDOM + FRAME_MUTATED):
            if index < FRAME_RANDOM:
                originals: list[bytes] = []
                stream = random_stream(rng)
            else:
                originals, frames = frame_stream(rng)
                stream = mutate_frames(rng, frames)
            chunks = [rng.randint(1, 40) for _ in range(rng.randrange(4))]
            try:
                by_decoder = decode_with_decoder(stream, chunks)
                by_reader = await decode_with_stream_reader(stream)
            except Exception as exc:
                failures.add("frame decoding", stream, exc)
                continue
            if by_decoder != by_reader:
                failures.add("decoders disagree", stream,
                             AssertionError(f"{by_decoder} != {by_reader}"))
            outputs = by_reader[0]
            if outputs != originals[:len(outputs)]:
                failures.add("forged output", stream, AssertionError(f"{outputs!r}"))
            delivered += len(outputs)
            for plaintext in outputs:
                check_message_bytes(plaintext, failures)

    asyncio.run(run_all())
    assert failures.items == []
    assert delivered > FRAME_MUTATED // 2  # the unharmed frames before an attack get through


# ---------------------------------------------------------------- handshakes

ALICE = Identity.generate()
BOB = Identity.generate()


def _raw_public(key: X25519PrivateKey) -> bytes:
    return key.public_key().public_bytes(serialization.Encoding.Raw,
                                         serialization.PublicFormat.Raw)


def initiator_stream(rng: random.Random) -> bytes:
    reveal = rng.randbytes(32)
    hello = {"t": "wec-hello", "v": PROTOCOL_VERSION, "role": "initiator",
             "id": BOB.public_key,
             "eph": _raw_public(X25519PrivateKey.generate()),
             "commit": hashlib.sha256(b"wec-net sas commit v1" + reveal).digest(),
             "name": "Bob"}
    auth = {"t": "wec-auth", "reveal": reveal, "sig": rng.randbytes(64)}
    return mutated_handshake(rng, hello, auth)


def responder_stream(rng: random.Random) -> bytes:
    hello = {"t": "wec-hello", "v": PROTOCOL_VERSION, "role": "responder",
             "id": ALICE.public_key,
             "eph": _raw_public(X25519PrivateKey.generate()), "name": "Alice"}
    auth = {"t": "wec-auth", "sig": rng.randbytes(64)}
    return mutated_handshake(rng, hello, auth)


def mutated_handshake(rng: random.Random, hello: dict[str, Any], auth: dict[str, Any]) -> bytes:
    maps = [hello, auth]
    index = rng.randrange(2)
    if rng.random() < 0.6:
        maps[index] = mutate_value(rng, maps[index])
        stream = b"".join(plain_frame(pack(m)) for m in maps)
    else:
        stream = mutate_bytes(rng, b"".join(plain_frame(pack(m)) for m in maps))
    return stream


async def run_handshake_side(stream: bytes,
                             side: Callable[[asyncio.StreamReader, asyncio.StreamWriter],
                                            Any]) -> BaseException | None:
    """Feed ``stream`` (then end of stream) to one real handshake side over a socket
    pair; return what it raised (None when it completed)."""
    mine, theirs = socket.socketpair()
    reader, writer = await asyncio.open_connection(sock=mine)
    _, other_writer = await asyncio.open_connection(sock=theirs)
    other_writer.write(stream)
    other_writer.write_eof()
    try:
        async with asyncio.timeout(5):
            await side(reader, writer)
    except BaseException as exc:  # classified by the caller
        return exc
    finally:
        writer.close()
        other_writer.close()
    return None


def test_mutated_handshakes_end_in_net_errors_on_both_sides() -> None:
    rng = random.Random(20240605)
    failures = Failures()

    async def responder(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> Any:
        return await respond_handshake(reader, writer, ALICE, "Alice")

    async def initiator(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> Any:
        return await initiate_handshake(reader, writer, BOB, "Bob")

    async def run_all() -> None:
        for _ in range(HANDSHAKE_PER_SIDE):
            for make, side in ((initiator_stream, responder), (responder_stream, initiator)):
                stream = make(rng)
                outcome = await run_handshake_side(stream, side)
                if outcome is None:
                    failures.add("a forged handshake completed", stream,
                                 AssertionError("completed"))
                elif not isinstance(outcome, NetError):
                    failures.add("handshake", stream, outcome)
        await asyncio.sleep(0.01)

    asyncio.run(run_all())
    assert failures.items == []


# ---------------------------------------------------------------- message handlers
#
# Every handler of peer messages, driven directly (no sockets): the Lobby and the
# Lockstep state machines in each state they can be in, and the Peer's dispatch (pairing,
# resume, routing to lobby or game) before and after pairing. Each input is a message as
# the session delivers it (through the real decoder): a random message of any type, a
# message an honest peer sent in a real negotiation or game (replayed out of place), or
# such a message with its numbers moved. Outcomes are checked exactly: a refusal is the
# documented Rejection with the same reason in a Refused event and changes nothing (the
# lockstep only counts and journals the input, so a restart replays it to the same
# state); an accepted input keeps every invariant.

HANDLER_LOBBY = 45_000
HANDLER_LOCKSTEP = 45_000
HANDLER_PEER = 10_000
HANDLER_TOTAL = HANDLER_LOBBY + HANDLER_LOCKSTEP + HANDLER_PEER


def test_every_message_handler_gets_enough_inputs() -> None:
    assert HANDLER_TOTAL == 100_000


_MUTABLE: dict[type, bool] = {}


def _mutable(value: Any) -> bool:
    """True for the containers and plain dataclasses a handler may change in place."""
    kind = type(value)
    if kind not in _MUTABLE:
        params = getattr(kind, "__dataclass_params__", None)
        _MUTABLE[kind] = issubclass(kind, list | dict | set) or (
            params is not None and not params.frozen)
    return _MUTABLE[kind]


def clone(machine: Any) -> Any:
    """A copy of a Lobby or Lockstep that shares nothing mutable with the original
    (matches, options and messages are immutable)."""
    twin = copy.copy(machine)
    for name, value in vars(machine).items():
        if _mutable(value):
            setattr(twin, name, copy.copy(value))
    return twin


def snapshot(machine: Any) -> dict[str, Any]:
    return {name: copy.copy(value) if _mutable(value) else value
            for name, value in vars(machine).items() if name != "_record"}


def through_the_wire(message: messages.Message) -> messages.Message:
    """The message as the receiver gets it (encoded and decoded by the real codec)."""
    return messages.decode_message(messages.encode_message(message))


def random_message(rng: random.Random) -> messages.Message:
    """A valid message of any registered type with random field values."""
    return messages.decode_message(pack(valid_wire(rng)))


def moved(rng: random.Random, message: messages.Message) -> messages.Message:
    """``message`` with one whole-number field moved by -1..+2 (kept in its range)."""
    numbers = [(name, spec) for name, spec in FIELD_SPECS[message.TAG]
               if isinstance(spec, messages.Int)]
    if not numbers:
        return message
    name, spec = rng.choice(numbers)
    value = min(spec.high, max(spec.low, getattr(message, name) + rng.choice([-1, 1, 2])))
    return dataclasses.replace(message, **{name: value})  # type: ignore[type-var]


def refusal_step(tag: str, reason: str, step: Any, refused_type: type) -> None:
    """The documented refusal: one Rejection for the peer and one Refused event."""
    assert step.send == [messages.Rejection(tag[:32], reason[:200])], (tag, reason, step)
    assert step.events == [refused_type(tag, reason)], (tag, reason, step)


# ------------------------------------------------ the lobby

@functools.cache
def _lobby_states() -> tuple[list[tuple[str, Lobby]], list[messages.Message]]:
    """Lobbies in every phase and sub-state (reached by honest play through the real
    codec) and every message the honest peers sent on the way."""
    from test_net_lobby import in_setup, lobbies, with_colours

    saved_start = build_start(StartBoard(), stage1_options(engine.Options()))
    digest = hashlib.sha256(b"a saved game").digest()

    def find_save(wanted: bytes) -> SavedGame | None:
        return SavedGame(saved_start, Side.BLACK) if wanted == digest else None

    states: list[tuple[str, Lobby]] = []
    sent: list[messages.Message] = []

    def keep(name: str, lobby: Lobby) -> None:
        states.append((name, clone(lobby)))

    a, b, wire = lobbies(find_save=find_save)
    keep("idle initiator", a)
    keep("idle", b)
    wire.local("a", a.invite())
    keep("inviting", a)
    wire.flush()
    keep("invited", b)
    wire.local("b", b.decline("busy"))
    wire.flush()
    keep("idle after a decline", a)
    sent += wire.sent["a"] + wire.sent["b"]

    a, b, wire = lobbies(find_save=find_save)
    wire.local("a", a.invite(digest))
    keep("inviting to resume", a)
    wire.flush()
    keep("invited to resume", b)
    wire.local("b", b.accept())
    keep("hashing a resume", b)
    wire.flush()
    keep("resume started", a)
    sent += wire.sent["a"] + wire.sent["b"]

    a, b, wire = in_setup()
    keep("setup", a)
    keep("setup non-initiator", b)
    wire.local("a", a.choose_colour("white"))
    keep("setup, our colour chosen", a)
    wire.local("b", b.choose_colour("white"))  # the same: a coin flip
    keep("coin, our commitment sent", b)
    wire.deliver_one("a")
    keep("coin, reveal sent", a)
    wire.flush()
    keep("colours by coin", a)
    sent += wire.sent["a"] + wire.sent["b"]

    a, b, wire = with_colours()
    keep("colours decided", a)
    wire.local("a", a.propose_options(stage1_options(engine.Options(tank_range=8))))
    keep("our proposal pending", a)
    wire.flush()
    keep("peer proposal pending", b)
    wire.local("b", b.approve())
    wire.flush()
    wire.local("b", b.propose_start(StartBoard("king_hunt", KING_HUNT)))
    wire.local("a", a.choose_government(Government.THEOCRACY))
    wire.flush()
    wire.local("a", a.reject("no"))
    wire.flush()
    wire.local("a", a.propose_options(stage1_options(engine.Options(tank_range=6))))
    wire.local("b", b.propose_options(stage1_options(engine.Options(tank_range=7))))
    wire.deliver_one("b")
    keep("our proposal withdrawn", b)
    wire.flush()
    wire.local("b", b.reject("no thanks"))
    wire.flush()
    wire.local("a", a.end_setup())
    keep("hashing", a)
    wire.deliver_one("b")
    keep("started by the peer's end of setup", b)
    wire.flush()
    keep("started", a)
    sent += wire.sent["a"] + wire.sent["b"]
    assert a.phase is b.phase is Phase.STARTED
    return states, sent


KING_HUNT = load_scenario("king_hunt")

# refusals decided by the phase alone: tag -> (the phase it needs, what the reason calls it)
LOBBY_GATES = {
    "accept": (Phase.INVITING, "an acceptance"),
    "decline": (Phase.INVITING, "a refusal"),
    "colour": (Phase.SETUP, "a colour choice"),
    "coin_commit": (Phase.SETUP, "a coin commitment"),
    "coin_reveal": (Phase.SETUP, "a coin reveal"),
    "propose": (Phase.SETUP, "a proposal"),
    "propose_start": (Phase.SETUP, "a proposal"),
    "government": (Phase.SETUP, "a government choice"),
    "rules_hash": (Phase.HASHING, "a rules hash"),
}


def expected_lobby_refusal(lobby: Lobby, message: messages.Message) -> str | None:
    """The reason the lobby must refuse ``message`` with, when its phase alone decides
    (None: the handler decides)."""
    tag = message.TAG
    if not isinstance(message, LOBBY_MESSAGES):
        return "not a lobby message"
    phase = lobby.phase
    if tag in LOBBY_GATES:
        needed, what = LOBBY_GATES[tag]
        return None if phase is needed else f"{what} is not expected while the lobby is " \
                                             f"{phase.value}"
    if tag == "invite" and phase not in (Phase.IDLE, Phase.INVITING):
        return f"an invitation is not expected while the lobby is {phase.value}"
    if tag in ("approve", "reject") and phase is not Phase.SETUP:
        return f"an answer to a proposal is not expected while the lobby is {phase.value}"
    if tag == "setup_done" and phase is not Phase.SETUP and not (
            phase is Phase.HASHING and lobby._setup_done_sent):
        return f"the end of the setup is not expected while the lobby is {phase.value}"
    return None


def check_lobby_input(lobby: Lobby, message: messages.Message) -> bool:
    """Feed one message; assert the exact outcome. True when it changed the lobby."""
    before = snapshot(lobby)
    expected = expected_lobby_refusal(lobby, message)
    step = lobby.receive(message)  # never raises
    if isinstance(message, messages.Rejection):
        assert step.send == [] and step.events == [
            LobbyPeerRefused(message.refused, message.reason)]
        assert snapshot(lobby) == before
        return False
    refusals = [e for e in step.events if isinstance(e, LobbyRefused)]
    if expected is not None:
        refusal_step(message.TAG, expected, step, LobbyRefused)
    if refusals and isinstance(message, messages.CoinReveal) \
            and before["phase"] is Phase.SETUP and lobby.phase is Phase.IDLE:
        # the documented cheat: a reveal that does not open its commitment stops the setup
        assert [type(e) for e in step.events] == [LobbyRefused, RulesMismatch]
        return True
    if refusals:
        assert len(refusals) == 1 and refusals[0].reason, step
        refusal_step(message.TAG, refusals[0].reason, step, LobbyRefused)
        assert snapshot(lobby) == before, (message, refusals)
        return False
    assert not any(isinstance(m, messages.Rejection) for m in step.send)
    # accepted: the invariants of every lobby
    assert not lobby.options.stealth_invisibility and not lobby.options.submersion_invisibility
    if lobby.phase is Phase.STARTED:
        assert lobby.setup is not None
    if lobby.options != before["options"] or lobby.move_time != before["move_time"]:
        assert RulesChanged(lobby.options, lobby.start.title, lobby.move_time) in step.events
    if before["our_side"] is not None and lobby.phase is not Phase.IDLE:
        assert lobby.our_side is before["our_side"]  # colours are decided once
    return snapshot(lobby) != before


def lobby_input(rng: random.Random, honest: list[messages.Message]) -> messages.Message:
    roll = rng.random()
    if roll < 0.4:
        return rng.choice(honest)
    if roll < 0.65:
        return through_the_wire(moved(rng, rng.choice(honest)))
    return random_message(rng)


def test_the_lobby_in_every_state_refuses_exactly_and_keeps_its_invariants() -> None:
    rng = random.Random(20240606)
    states, honest = _lobby_states()
    honest = [through_the_wire(m) for m in honest]
    inputs = changed = 0
    seen_phases: set[Phase] = set()
    while inputs < HANDLER_LOBBY:
        for _name, state in states:
            lobby = clone(state)
            for _ in range(rng.randint(1, 8)):
                seen_phases.add(lobby.phase)
                changed += check_lobby_input(lobby, lobby_input(rng, honest))
                inputs += 1
    assert seen_phases == set(Phase)
    assert HANDLER_LOBBY // 40 < changed < HANDLER_LOBBY // 2


# ------------------------------------------------ lockstep


LockstepState = tuple[str, Lockstep, list[Any], Any]


@functools.cache
def _lockstep_states() -> tuple[list[LockstepState], list[messages.Message]]:
    """Lockstep objects in every state of a game (with their journals) and every message
    the honest peers sent on the way."""
    from test_net_lockstep import INTENTS, START, Table, first_turn

    states: list[LockstepState] = []
    sent: list[messages.Message] = []

    def keep(name: str, table: Table, side: Side, start: Any = START) -> None:
        states.append((name, clone(table.sides[side]), list(table.journal[side]), start))

    def collect(table: Table) -> None:
        for side in (Side.BLACK, Side.WHITE):
            sent.extend(table.sides[side].log)

    table = Table(record=True)
    keep("start, peer to act", table, Side.WHITE)
    keep("start, our turn", table, Side.BLACK)
    turn = first_turn()
    table.local(Side.BLACK, table.black.play(turn[0]))
    table.local(Side.BLACK, table.black.play(turn[1]))
    table.flush()
    keep("mid-turn", table, Side.WHITE)
    for intent in turn[2:]:
        table.local(Side.BLACK, table.black.play(intent))
    table.deliver(Side.WHITE, len(turn) - 2)
    keep("awaiting the turn hash", table, Side.WHITE)
    table.flush()
    keep("turn agreed, our turn", table, Side.WHITE)
    keep("turn agreed, peer to act", table, Side.BLACK)
    table.local(Side.BLACK, table.black.request_takeback())
    keep("our takeback asked", table, Side.BLACK)
    table.flush()
    keep("peer takeback asked", table, Side.WHITE)
    table.local(Side.WHITE, table.white.answer_takeback(False))
    table.flush()
    table.local(Side.BLACK, table.black.request_takeback())
    table.local(Side.BLACK, table.black.cancel_takeback())
    keep("our takeback cancelled", table, Side.BLACK)
    table.deliver(Side.WHITE, 1)
    keep("peer takeback asked, its cancel on the way", table, Side.WHITE)
    table.flush()
    table.local(Side.WHITE, table.white.save())
    keep("our save sent", table, Side.WHITE)
    table.flush()
    table.local(Side.BLACK, table.black.chat("gg"))
    table.flush()
    table.play(INTENTS[len(turn):12])
    keep("later, peer to act", table, Side.BLACK)
    keep("later, our turn", table, Side.WHITE)
    collect(table)

    resigned = Table(record=True)
    resigned.play(INTENTS[:3])
    resigned.local(Side.WHITE, resigned.white.resign())
    keep("we resigned", resigned, Side.WHITE)
    resigned.flush()
    keep("the peer resigned", resigned, Side.BLACK)
    collect(resigned)

    finished = Table(record=True)
    finished.play(INTENTS)
    keep("over by the rules", finished, Side.BLACK)
    keep("over by the rules, winner", finished, Side.WHITE)
    collect(finished)

    desynced = Table(record=True)
    for intent in turn:
        desynced.local(Side.BLACK, desynced.black.play(intent))
    desynced.queues[Side.WHITE][-1] = messages.TurnHash(1, bytes(32))  # a wrong hash
    desynced.deliver(Side.WHITE)
    keep("desynced, details sent", desynced, Side.WHITE)
    desynced.flush()
    keep("desynced, report complete", desynced, Side.BLACK)
    collect(desynced)

    competitive = Table(START.go_competitive(), record=True)
    competitive.play(turn)
    keep("competitive", competitive, Side.WHITE, START.go_competitive())
    collect(competitive)
    assert START.current.side_to_act is Side.BLACK
    return states, sent


_LEGAL: dict[str, list[engine.Intent]] = {}


def legal_intents(match: Any) -> list[engine.Intent]:
    key = match.current_hash
    if key not in _LEGAL:
        _LEGAL[key] = match.legal_intents()
    return _LEGAL[key]


def expected_lockstep_refusal(lockstep: Lockstep, message: messages.Message) -> str | None:
    """The reason the lockstep must refuse ``message`` with, when it can be told from the
    state (None: accepted, or refused by the engine's rules)."""
    awaiting = lockstep._awaiting_hash
    if awaiting is not None and not isinstance(message, messages.TurnHash):
        return f"the hash of turn {awaiting[0]} must come first"
    stopped = (f"the game stopped after a desync at turn {lockstep.desync.turn}"
               if lockstep.desync is not None else None)
    over = f"the game is over ({lockstep.result.reason})" if lockstep.result else None
    if isinstance(message, messages.FogWire | messages.FogPart | messages.FogReveal):
        return "this game has no fog of war"  # an open-information game (issue 21)
    if isinstance(message, messages.TurnHash):
        if awaiting is None:
            return f"a hash of turn {message.turn} that was not expected"
        if message.turn != awaiting[0]:
            return (f"the hash of turn {message.turn} came where the hash of turn "
                    f"{awaiting[0]} was expected")
        return None
    if isinstance(message, messages.IntentMessage):
        expected = lockstep.peer_intents_applied
        current = lockstep.match.current
        return (stopped or over
                or (f"intent #{message.index} was already applied (a duplicate)"
                    if message.index < expected else None)
                or (f"intent #{message.index} arrived while #{expected} was expected "
                    "(a gap)" if message.index > expected else None)
                or (f"R4.1: out of turn: it is {current.side_to_act.title}'s turn "
                    f"(turn {current.turn})" if current.side_to_act is not lockstep.peer_side
                    else None)
                or (f"R4.1: out of turn: an intent for turn {message.turn} during turn "
                    f"{current.turn}" if message.turn != current.turn else None))
    if isinstance(message, messages.Resign):
        both = (lockstep.result is not None and lockstep._resigned
                and lockstep.result.how == "resign")
        return None if both else stopped or over
    if isinstance(message, messages.TakebackRequest):
        return (stopped or over or ("a takeback request is already waiting for an answer"
                                    if lockstep.peer_takeback is not None else None)
                or lockstep._takeback_problem(message.turn))
    if isinstance(message, messages.TakebackAnswer):
        if stopped or over:
            return stopped or over
        if lockstep.our_takeback != message.turn:
            return (f"an answer to a takeback of turn {message.turn}, which we did not "
                    "ask for")
        return None
    if isinstance(message, messages.TakebackCancel):
        if stopped or over:
            return stopped or over
        if message.turn in (lockstep.peer_takeback, lockstep._answered_takeback):
            return None
        return f"no takeback request of turn {message.turn} waits for our answer"
    if isinstance(message, messages.TimeClaim):
        if stopped or over:
            return stopped or over
        current = lockstep.match.current
        if message.kind in ("move_time", "idle"):
            if current.side_to_act is not lockstep.our_side or message.turn != current.turn:
                return (f"a time claim about turn {message.turn}, but it is "
                        f"{current.side_to_act.title}'s turn {current.turn}")
            if message.kind == "move_time" and not lockstep.move_time:
                return "this game has no time limit per move"
            return None
        if message.kind == "protocol":  # an open game has no exchange to stall
            return ("its machine owes no answer in the game's exchange"
                    if lockstep.exchange_waiting is None else None)
        if lockstep.peer_takeback is None:
            return "no takeback request of the peer waits for our answer"
        return None
    if isinstance(message, messages.SaveNotice) and \
            message.actions > len(lockstep.match.actions):
        return (f"a save after {message.actions} actions, but the game has "
                f"{len(lockstep.match.actions)}")
    if isinstance(message, messages.DesyncDetail):
        report = lockstep.desync
        if report is not None:
            if report.complete:
                return "the desync details were already received"
            if message.turn != report.turn:
                return (f"desync details of turn {message.turn}, but the desync is at "
                        f"turn {report.turn}")
            return None
        if lockstep._hash_sent != message.turn:
            return (f"desync details of turn {message.turn}, whose hash we did not send "
                    "last: there is no mismatch to report")
        ours = lockstep.match.hash_at(lockstep._turn_ends.get(message.turn,
                                                              len(lockstep.match.actions)))
        if message.digest.hex() == ours:
            return (f"our hash of turn {message.turn} is the same as the peer's: there is "
                    "no desync")
    return None


LOCKSTEP_STATE = ("match", "log", "intents_sent", "peer_intents_applied", "our_takeback",
                  "takeback_cancelled", "takebacks", "_answered_takeback",
                  "peer_takeback", "desync", "result", "_awaiting_hash", "_hash_sent",
                  "_turn_ends", "_resigned")


def lockstep_view(lockstep: Lockstep) -> dict[str, Any]:
    values = {name: getattr(lockstep, name) for name in LOCKSTEP_STATE}
    return {name: copy.copy(value) if _mutable(value) else value
            for name, value in values.items()}


def check_lockstep_input(lockstep: Lockstep, journal: list[Any],
                         message: messages.Message) -> bool:
    """Feed one message; assert the exact outcome. True when it changed the game."""
    before = lockstep_view(lockstep)
    processed, journalled = lockstep.peer_processed, len(journal)
    skipped = lockstep._skipped
    turn = lockstep.match.current.turn
    is_game_message = isinstance(message, LOCKSTEP_MESSAGES)
    expected = (expected_lockstep_refusal(lockstep, message) if is_game_message
                else None if isinstance(message, messages.Rejection) else
                "not a game message")
    legal = (isinstance(message, messages.IntentMessage) and expected is None
             and message.intent in legal_intents(lockstep.match))
    step = lockstep.receive(message)  # never raises
    if not is_game_message:  # neither counted nor journalled
        assert (lockstep.peer_processed, len(journal)) == (processed, journalled)
        assert lockstep_view(lockstep) == before
        if isinstance(message, messages.Rejection):
            assert step.send == [] and step.events == [
                GamePeerRefused(message.refused, message.reason)]
        else:
            refusal_step(message.TAG, expected or "", step, GameRefused)
        return False
    # every game message is counted and journalled before it takes effect (a restart
    # replays it, refused or not, to the same state): an accepted one in full, after the
    # count of the refused ones before it; a refused one only adds to that count
    assert lockstep.peer_processed == processed + 1
    refusals = [e for e in step.events if isinstance(e, GameRefused)]
    if refusals:
        assert journal[journalled:] == [] and lockstep._skipped == skipped + 1
    else:
        assert journal[journalled:] == [*([("skip", skipped)] if skipped else []),
                                        ("in", message)]
        assert lockstep._skipped == 0
    if expected is not None:
        refusal_step(message.TAG, expected, step, GameRefused)
    if refusals:
        refusal_step(message.TAG, refusals[0].reason, step, GameRefused)
        if expected is None:  # only the engine refuses a well-placed intent
            assert isinstance(message, messages.IntentMessage) and not legal
            assert refusals[0].reason.startswith(("illegal intent: R",
                                                  "the engine refused the intent")), refusals
        assert lockstep_view(lockstep) == before, message
        return False
    assert not legal or lockstep.peer_intents_applied == before["peer_intents_applied"] + 1
    assert not any(isinstance(m, messages.Rejection) for m in step.send)
    actions = len(lockstep.match.actions) - len(before["match"].actions)
    if isinstance(message, messages.TakebackAnswer):
        assert lockstep.match.current.turn <= turn  # only an accepted takeback goes back
    else:
        assert actions in (0, 1) and lockstep.match.current.turn in (turn, turn + 1)
    if before["result"] is not None and not isinstance(message, messages.Resign):
        assert lockstep.result == before["result"]  # a result never changes afterwards
    return lockstep_view(lockstep) != before


def lockstep_input(rng: random.Random, lockstep: Lockstep,
                   honest: list[messages.Message]) -> messages.Message:
    roll = rng.random()
    if roll < 0.3:
        return rng.choice(honest)
    if roll < 0.5:
        return through_the_wire(moved(rng, rng.choice(honest)))
    if roll < 0.62:  # the intent the peer could send next, legal or not
        current = lockstep.match.current
        pool = legal_intents(lockstep.match) if rng.random() < 0.8 else []
        pool = pool or [engine.intent_from_dict(rng.choice(INTENTS))]
        index = lockstep.peer_intents_applied + rng.choice([0, 0, 0, -1, 1])
        return messages.IntentMessage(current.turn + rng.choice([0, 0, 0, 1, -1]),
                                      max(0, index), rng.choice(pool))
    if roll < 0.7 and lockstep._awaiting_hash is not None:
        turn, ours = lockstep._awaiting_hash
        digest = bytes.fromhex(ours) if rng.random() < 0.7 else rng.randbytes(32)
        return messages.TurnHash(turn, digest)
    return random_message(rng)


def test_lockstep_in_every_state_refuses_exactly_and_journals_every_input() -> None:
    from test_net_lockstep import GAME

    rng = random.Random(20240607)
    states, honest = _lockstep_states()
    honest = [through_the_wire(m) for m in honest]
    inputs = changed = walks = 0
    while inputs < HANDLER_LOCKSTEP:
        for _name, state, base_journal, start in states:
            lockstep = clone(state)
            journal = list(base_journal)
            lockstep._record = lambda kind, item, journal=journal: journal.append((kind, item))
            for _ in range(rng.randint(1, 10)):
                message = lockstep_input(rng, lockstep, honest)
                changed += check_lockstep_input(lockstep, journal, message)
                inputs += 1
            walks += 1
            if walks % 97 == 0:  # the journal replays into the same state
                lockstep.flush_journal()
                again = Lockstep.restore(GAME, start, lockstep.our_side, journal)
                assert lockstep_view(again) == lockstep_view(lockstep)
                assert again.peer_processed == lockstep.peer_processed
    assert HANDLER_LOCKSTEP // 50 < changed < HANDLER_LOCKSTEP // 2


# ------------------------------------------------ the peer's dispatch

MALLORY = Identity.generate()
QUIET = SessionConfig(heartbeat_interval=3600.0, heartbeat_timeout=7200.0,
                      handshake_timeout=5.0)
PAIR_FIRST = "pair first: the pairing is not complete"


class LinkUnderTest:
    """A real SecureSession (as if Mallory had dialled the peer) over a socket pair whose
    other end is read raw: the peer's answers are opened with a FrameDecoder."""

    def __init__(self, peer: Peer, session: SecureSession, theirs: socket.socket,
                 send_key: bytes) -> None:
        self.peer = peer
        self.theirs = theirs
        self.decoder = FrameDecoder(send_key)
        self.link = peer._admit(session, dialled=False)
        if self.link.task is not None:
            self.link.task.cancel()  # the test feeds the dispatch itself
        self.replies()  # nothing yet: Hello and PairingState go out from the link task

    @classmethod
    async def open(cls, peer: Peer, pinned: bool) -> LinkUnderTest:
        ours, theirs = socket.socketpair()
        theirs.setblocking(False)
        reader, writer = await asyncio.open_connection(sock=ours)
        send_key = rng_bytes(32)
        result = HandshakeResult(False, 1, MALLORY.public_key, "Mallory", send_key,
                                 rng_bytes(32), rng_bytes(16), bytes(32), "123456")
        session = SecureSession(reader, writer, result, QUIET,
                                PinStatus.PINNED if pinned else PinStatus.NEW)
        return cls(peer, session, theirs, send_key)

    def replies(self) -> list[messages.Message]:
        """Every message the peer sent on this link since the last call."""
        while True:
            try:
                data = self.theirs.recv(1 << 16)
            except BlockingIOError:
                break
            if not data:
                break
            self.decoder.feed(data)
        out = []
        while (plaintext := self.decoder.next()) is not None:
            message = messages.decode_message(unpad_plaintext(plaintext))
            if not isinstance(message, messages.Heartbeat | messages.Bye):
                out.append(message)
        return out

    def feed(self, message: messages.Message) -> list[messages.Message]:
        self.peer._dispatch(self.link, message)
        return self.replies()

    async def close(self) -> None:
        await self.link.session.close("the walk is over")
        self.theirs.close()


KEY_SOURCE = random.Random(20240608)


def rng_bytes(size: int) -> bytes:
    return KEY_SOURCE.randbytes(size)


async def negotiate_game(peer: Peer, under_test: LinkUnderTest) -> None:
    """Mallory plays the honest peer with a real Lobby until the game starts."""
    mallory = Lobby(MALLORY.public_key, peer.identity.public_key, initiator=True, fog=False)

    def pump(step: Any) -> None:
        pending = list(step.send)
        while pending:
            answers = under_test.feed(pending.pop(0))
            for answer in answers:
                pending += mallory.receive(answer).send

    pump(mallory.invite())
    peer.accept()
    for answer in under_test.replies():
        pump(mallory.receive(answer))
    peer.choose_colour("white")
    for answer in under_test.replies():
        pump(mallory.receive(answer))
    pump(mallory.choose_colour("black"))
    pump(mallory.end_setup())
    assert peer.game is not None and peer.game.link is under_test.link


PEER_STATES = ("unpaired", "code shown", "we confirmed", "paired, idle", "paired, setup",
               "in game", "game over")


async def peer_state(peer: Peer, name: str) -> LinkUnderTest:
    """A fresh link to Mallory in the named state of pairing, lobby and game."""
    peer.links.clear()
    peer.game = None
    peer.finished_games.clear()
    under_test = await LinkUnderTest.open(peer, pinned=name not in (
        "unpaired", "code shown", "we confirmed"))
    if name == "unpaired":
        return under_test
    if name in ("code shown", "we confirmed"):
        under_test.feed(messages.PairingState(False))
        if name == "we confirmed":
            peer.confirm_pairing("Mallory", True)
            under_test.replies()
        return under_test
    under_test.feed(messages.PairingState(True))
    assert under_test.link.paired
    if name == "paired, setup":
        under_test.feed(messages.Invite(0))
        peer.accept()
        under_test.replies()
    elif name in ("in game", "game over"):
        await negotiate_game(peer, under_test)
        if name == "game over":
            peer.resign()
            under_test.replies()
    return under_test


def expected_peer_replies(peer: Peer, link: Any, message: messages.Message
                          ) -> list[messages.Message] | None:
    """What the peer must answer (None: an accepted message that changes the link or the
    game; checked by the caller)."""
    if isinstance(message, messages.Hello):
        return [messages.Rejection("hello", "the hello was already received")] \
            if link.hello_seen else []
    if isinstance(message, messages.PairingState):
        if link.peer_pinned is not None:
            return [messages.Rejection("pairing_state", "the pairing state was already sent")]
        return None
    if isinstance(message, messages.PairingResult):
        if link.peer_pinned is None or link.paired or link.peer_confirmed:
            return [messages.Rejection("pairing", "no pairing confirmation was expected")]
        return None
    if not link.paired:
        return [messages.Rejection(message.TAG, PAIR_FIRST)]
    game = peer.game
    if isinstance(message, messages.Resume):
        if link.peer_resumed:  # one per link (issue 20)
            return [messages.Rejection("resume", "the game was already resumed on this "
                                                 "link")]
        if game is None or message.link != game.game_id:
            return [] if link.closed_sent else [messages.GameClosed(
                message.link, "none", "this machine has no such game (it may have been "
                "set up again)")]
        return None
    if isinstance(message, messages.GameClosed):
        if game is None or message.link != game.game_id:
            return []
        return [messages.Rejection("game_closed", "a game is closed only in answer to a "
                                                  "resume")]
    if game is not None and game.link is link and isinstance(
            message, (*LOCKSTEP_MESSAGES, messages.Rejection)):
        return clone(game.lockstep).receive(message).send  # the lockstep decides
    if isinstance(message, LOBBY_MESSAGES):
        lobby = link.lobby
        if lobby is None or (lobby.phase is Phase.STARTED and (game is None or game.finished)):
            lobby = Lobby(peer.identity.public_key, link.peer_key, initiator=False,
                          fog=False)  # anew
        return clone(lobby).receive(message).send  # the lobby decides
    return [messages.Rejection(message.TAG[:32], "no game is under way between us")]


def peer_input(rng: random.Random, peer: Peer, honest: list[messages.Message]
               ) -> messages.Message:
    roll = rng.random()
    game = peer.game
    if roll < 0.1:
        return rng.choice([messages.PairingState(rng.random() < 0.5),
                           messages.PairingResult(rng.random() < 0.9),
                           messages.Hello(1, "0.1+x", "Mallory")])
    if roll < 0.18 and game is not None:
        return rng.choice([messages.Resume(game.game_id, rng.randrange(3)),
                           messages.GameClosed(game.game_id, "black", "I won")])
    if roll < 0.5:
        return rng.choice(honest)
    if roll < 0.6:
        return through_the_wire(moved(rng, rng.choice(honest)))
    return random_message(rng)


def test_the_peer_dispatch_before_and_after_pairing_answers_exactly(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.CRITICAL, logger="wec.net")  # thousands of refusals
    rng = random.Random(20240609)
    _, lobby_honest = _lobby_states()
    _, game_honest = _lockstep_states()
    honest = [through_the_wire(m) for m in lobby_honest + game_honest]

    async def run_all() -> tuple[int, dict[str, int]]:
        events: list[Any] = []
        # chat and saves without rate limits (real time; the replies are checked exactly)
        peer = Peer(PeerConfig("Fuzzed", tmp_path / "peer", discovery=False, session=QUIET,
                               chat_burst=10 ** 9, max_game_chat=10 ** 9,
                               save_burst=10 ** 9, max_peer_saves=10 ** 9, fog=False),
                    on_event=events.append)
        inputs = 0
        walked = dict.fromkeys(PEER_STATES, 0)
        while inputs < HANDLER_PEER:
            for name in PEER_STATES:
                under_test = await peer_state(peer, name)
                link = under_test.link
                in_game = name in ("in game", "game over")  # longer walks: dearer states
                for _ in range(rng.randint(40, 120) if in_game else rng.randint(1, 40)):
                    message = peer_input(rng, peer, honest)
                    expected = expected_peer_replies(peer, link, message)
                    game_before = peer.game
                    replies = under_test.feed(message)  # never raises
                    inputs += 1
                    walked[name] += 1
                    if expected is not None:
                        assert replies == expected, (name, message, replies)
                    assert link.paired or not peer.links.get(MALLORY.public_key) \
                        or peer.game is None or peer.game is game_before
                    if not link.paired:  # nothing but pairing happens before it
                        assert peer.game is None and link.lobby is None
                    if link.lost or peer.links.get(MALLORY.public_key) is not link:
                        break  # the link was closed: a fresh walk
                await under_test.close()
        await asyncio.sleep(0)
        return inputs, walked

    inputs, walked = asyncio.run(run_all())
    assert inputs >= HANDLER_PEER
    assert min(walked.values()) > HANDLER_PEER // 20  # every state got its share
