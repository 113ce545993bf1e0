"""The authenticated key exchange that opens every session.

Four plaintext handshake frames (msgpack maps), initiator I, responder R::

    m1  I -> R  hello  {v, role: initiator, id: I's Ed25519 key, eph: X25519, commit, name}
    m2  R -> I  hello  {v, role: responder, id: R's Ed25519 key, eph: X25519, name}
    m3  R -> I  auth   {sig: R signs "responder" + T2}
    m4  I -> R  auth   {reveal, sig: I signs "initiator" + T3}

``T2`` is SHA-256 over a label and the length-prefixed raw bytes of m1 and m2; ``T3``
extends it with ``reveal``, a 32-byte nonce whose hash ``commit`` was in m1. Both
signatures cover both identity keys, both ephemeral keys, both names and the version, so
nothing can be swapped in between. Session keys come from HKDF-SHA256 over the X25519
shared secret with ``T3`` as salt: one ChaCha20-Poly1305 key per direction and a 16-byte
session id (usable as a resume link).

The 6-digit short authentication string is derived from ``T3`` and both identity keys.
The commit-and-reveal matters: a relay in the middle must fix everything it sends before
it learns the random ``reveal``, so it cannot search for two handshakes with equal digits;
it has a one-in-a-million chance.

The version is checked first thing: a responder that does not speak the initiator's
version answers ``refuse`` with its own version and both sides raise VersionMismatch.

Pins (``peer_check``) are checked only once the peer's signature proved it holds the key
it presented: by the initiator after m3 (a refusal is a ``refuse`` frame), by the
responder after m4 (the initiator is done by then, so the refusal is the first session
frame: a goodbye naming the reason).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import msgpack  # type: ignore[import-untyped]
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from wec.net.errors import (
    BadSignature,
    ConnectionLost,
    HandshakeError,
    HandshakeRefused,
    IdentityMismatch,
    MessageError,
    PeerKeyChanged,
    VersionMismatch,
)
from wec.net.frames import (
    KEY_SIZE,
    MAX_HANDSHAKE_FRAME,
    FrameSealer,
    pad_plaintext,
    plain_frame,
    read_plain_frame,
)
from wec.net.identity import (
    PUBLIC_KEY_SIZE,
    SIGNATURE_SIZE,
    Identity,
    fingerprint,
    verify_signature,
)
from wec.net.messages import (
    MAX_TEXT,
    Blob,
    Bye,
    DisplayName,
    Int,
    Spec,
    Text,
    encode_message,
    unpack_untrusted,
)
from wec.net.pairing import short_authentication_string

# 2: padded session frames, pins checked after the initiator's signature, the coin
# commitment bound to its author, saves named locally, time claims (issue 20)
PROTOCOL_VERSION = 2
HELLO = "wec-hello"
AUTH = "wec-auth"
REFUSE = "wec-refuse"
NONCE_SIZE = 32
SESSION_ID_SIZE = 16
_TRANSCRIPT_LABEL = b"wec-net handshake v1"
_COMMIT_LABEL = b"wec-net sas commit v1"
_SIGN_RESPONDER = b"wec-net responder signature v1"
_SIGN_INITIATOR = b"wec-net initiator signature v1"
_KEY_INFO = b"wec-net v1 session keys"

# Called with the peer's (name, identity key) once its signature verified; raise
# (e.g. PeerKeyChanged) to refuse the peer. PeerStore.check fits.
PeerCheck = Callable[[str, bytes], object]

_KEY = Blob(PUBLIC_KEY_SIZE, PUBLIC_KEY_SIZE)
_HELLO_FIELDS: dict[str, Spec] = {
    "role": Text(9, choices=("initiator", "responder")), "id": _KEY, "eph": _KEY,
    "name": DisplayName()}
_COMMIT_FIELD: dict[str, Spec] = {"commit": Blob(32, 32)}
_SIG_FIELD: dict[str, Spec] = {"sig": Blob(SIGNATURE_SIZE, SIGNATURE_SIZE)}
_REVEAL_FIELD: dict[str, Spec] = {"reveal": Blob(NONCE_SIZE, NONCE_SIZE)}
_REFUSE_FIELDS: dict[str, Spec] = {"v": Int(0, 2 ** 32), "reason": Text(MAX_TEXT)}


@dataclass(frozen=True)
class HandshakeResult:
    """What a completed handshake established (keys stay inside the session)."""

    initiator: bool
    protocol_version: int
    peer_key: bytes
    peer_name: str
    send_key: bytes
    receive_key: bytes
    session_id: bytes
    transcript_hash: bytes
    sas: str

    @property
    def peer_fingerprint(self) -> str:
        return fingerprint(self.peer_key)

    def __repr__(self) -> str:  # never print key material
        return (f"HandshakeResult(initiator={self.initiator}, peer={self.peer_name!r}, "
                f"fingerprint={self.peer_fingerprint!r}, sas={self.sas!r})")


class _Transcript:
    """Running SHA-256 over length-prefixed handshake items."""

    def __init__(self) -> None:
        self._hash = hashlib.sha256(_TRANSCRIPT_LABEL)

    def add(self, item: bytes) -> None:
        self._hash.update(len(item).to_bytes(4, "big") + item)

    def digest(self) -> bytes:
        return self._hash.copy().digest()


def _commitment(reveal: bytes) -> bytes:
    return hashlib.sha256(_COMMIT_LABEL + reveal).digest()


def _pack(data: dict[str, Any]) -> bytes:
    return msgpack.packb(data, use_bin_type=True)  # type: ignore[no-any-return]


def _public_bytes(key: X25519PrivateKey) -> bytes:
    return key.public_key().public_bytes(serialization.Encoding.Raw,
                                         serialization.PublicFormat.Raw)


def _derive(private: X25519PrivateKey, peer_public: bytes, transcript_hash: bytes) -> bytes:
    try:
        shared = private.exchange(X25519PublicKey.from_public_bytes(peer_public))
    except ValueError:
        raise HandshakeError("the peer's ephemeral key is invalid (low order point)") from None
    return HKDF(algorithm=hashes.SHA256(), length=2 * KEY_SIZE + SESSION_ID_SIZE,
                salt=transcript_hash, info=_KEY_INFO).derive(shared)


# ---------------------------------------------------------------- reading handshake frames


async def _receive(reader: asyncio.StreamReader) -> tuple[bytes, dict[str, Any]]:
    """One handshake frame: its raw bytes (for the transcript) and its map."""
    try:
        raw = await read_plain_frame(reader, MAX_HANDSHAKE_FRAME)
    except ConnectionLost:
        raise ConnectionLost("the peer closed the connection during the handshake") from None
    try:
        data = unpack_untrusted(raw, MAX_HANDSHAKE_FRAME)
    except MessageError as exc:
        raise HandshakeError(f"handshake message: {exc.reason}") from None
    if not isinstance(data, dict) or not isinstance(data.get("t"), str):
        raise HandshakeError("handshake message: expected a map with a type tag")
    return raw, data


def _fields(data: dict[str, Any], specs: dict[str, Spec], what: str) -> dict[str, Any]:
    """Exactly ``t`` (and ``v``) plus ``specs``, each valid; HandshakeError otherwise."""
    allowed = {"t", "v", *specs}
    extra = sorted(str(key)[:32] for key in data if key not in allowed)
    if extra:
        raise HandshakeError(f"{what}: unknown fields {extra}")
    out: dict[str, Any] = {}
    for name, spec in specs.items():
        if name not in data:
            raise HandshakeError(f"{what}.{name}: required field is missing")
        try:
            out[name] = spec.load(data[name], f"{what}.{name}")
        except MessageError as exc:
            raise HandshakeError(exc.reason) from None
    return out


def _expect(data: dict[str, Any], tag: str, what: str) -> None:
    if data["t"] == REFUSE:
        refusal = _fields(data, _REFUSE_FIELDS, "refuse")
        if refusal["reason"] == "version":
            raise VersionMismatch(PROTOCOL_VERSION, refusal["v"])
        raise HandshakeRefused(f"the peer refused the connection: {refusal['reason']}")
    if data["t"] != tag:
        raise HandshakeError(f"expected the {what} message, got {str(data['t'])[:32]!r}")


def _check_version(data: dict[str, Any]) -> None:
    version = data.get("v")
    if version != PROTOCOL_VERSION or type(version) is not int:
        raise VersionMismatch(PROTOCOL_VERSION, version if type(version) is int
                              else repr(version)[:20])


async def _send(writer: asyncio.StreamWriter, *payloads: bytes) -> None:
    writer.write(b"".join(plain_frame(p, MAX_HANDSHAKE_FRAME) for p in payloads))
    try:
        await writer.drain()
    except (ConnectionError, OSError) as exc:
        raise ConnectionLost(f"the connection broke during the handshake ({exc})") from None


async def _refuse(writer: asyncio.StreamWriter, reason: str) -> None:
    """Best effort: tell the peer why we stop (it may already be gone)."""
    with contextlib.suppress(ConnectionLost):
        await _send(writer, _pack({"t": REFUSE, "v": PROTOCOL_VERSION,
                                   "reason": reason[:MAX_TEXT]}))


def _check_peer_key(peer_key: bytes, identity: Identity) -> None:
    if peer_key == identity.public_key:
        raise IdentityMismatch("the peer presents our own identity key (a reflected or "
                               "looped-back connection)")


async def _run_peer_check(writer: asyncio.StreamWriter, peer_check: PeerCheck | None,
                          name: str, key: bytes) -> None:
    if peer_check is None:
        return
    try:
        peer_check(name, key)
    except PeerKeyChanged as exc:
        await _refuse(writer, f"the key you presented does not match the key pinned for "
                              f"{exc.name!r}")
        raise


# ---------------------------------------------------------------- the two roles


async def initiate_handshake(reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                             identity: Identity, name: str, *,
                             expected_key: bytes | None = None,
                             peer_check: PeerCheck | None = None) -> HandshakeResult:
    """Run the initiator's side (the one that connected). ``expected_key`` refuses any
    other peer identity (IdentityMismatch); ``peer_check`` may refuse by raising."""
    ephemeral = X25519PrivateKey.generate()
    reveal = secrets.token_bytes(NONCE_SIZE)
    transcript = _Transcript()
    m1 = _pack({"t": HELLO, "v": PROTOCOL_VERSION, "role": "initiator",
                "id": identity.public_key, "eph": _public_bytes(ephemeral),
                "commit": _commitment(reveal), "name": name})
    transcript.add(m1)
    await _send(writer, m1)

    m2, hello_data = await _receive(reader)
    _expect(hello_data, HELLO, "hello")
    _check_version(hello_data)
    hello = _fields(hello_data, _HELLO_FIELDS, "hello")
    if hello["role"] != "responder":
        raise HandshakeError("hello.role: the peer also claims to be the initiator")
    transcript.add(m2)
    _, auth_data = await _receive(reader)
    _expect(auth_data, AUTH, "auth")
    auth = _fields(auth_data, _SIG_FIELD, "auth")
    if not verify_signature(hello["id"], auth["sig"], _SIGN_RESPONDER + transcript.digest()):
        raise BadSignature(f"the responder's signature does not verify with the key it "
                           f"presented ({fingerprint(hello['id'])})")
    _check_peer_key(hello["id"], identity)
    if expected_key is not None and hello["id"] != expected_key:
        await _refuse(writer, "you are not the peer we meant to reach")
        raise IdentityMismatch(f"expected the peer with key {fingerprint(expected_key)}, "
                               f"reached {hello['name']!r} with key {fingerprint(hello['id'])}")
    await _run_peer_check(writer, peer_check, hello["name"], hello["id"])

    transcript.add(reveal)
    final = transcript.digest()
    m4 = _pack({"t": AUTH, "reveal": reveal,
                "sig": identity.sign(_SIGN_INITIATOR + final)})
    await _send(writer, m4)
    keys = _derive(ephemeral, hello["eph"], final)
    return HandshakeResult(
        initiator=True, protocol_version=PROTOCOL_VERSION, peer_key=hello["id"],
        peer_name=hello["name"], send_key=keys[:KEY_SIZE],
        receive_key=keys[KEY_SIZE:2 * KEY_SIZE], session_id=keys[2 * KEY_SIZE:],
        transcript_hash=final,
        sas=short_authentication_string(final, identity.public_key, hello["id"]))


async def respond_handshake(reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                            identity: Identity, name: str, *,
                            peer_check: PeerCheck | None = None) -> HandshakeResult:
    """Run the responder's side (the one that accepted the connection)."""
    m1, hello_data = await _receive(reader)
    _expect(hello_data, HELLO, "hello")
    try:
        _check_version(hello_data)
    except VersionMismatch:
        await _refuse(writer, "version")
        raise
    hello = _fields(hello_data, {**_HELLO_FIELDS, **_COMMIT_FIELD}, "hello")
    if hello["role"] != "initiator":
        raise HandshakeError("hello.role: the peer also claims to be the responder")
    _check_peer_key(hello["id"], identity)

    ephemeral = X25519PrivateKey.generate()
    transcript = _Transcript()
    transcript.add(m1)
    m2 = _pack({"t": HELLO, "v": PROTOCOL_VERSION, "role": "responder",
                "id": identity.public_key, "eph": _public_bytes(ephemeral), "name": name})
    transcript.add(m2)
    m3 = _pack({"t": AUTH, "sig": identity.sign(_SIGN_RESPONDER + transcript.digest())})
    await _send(writer, m2, m3)

    _, auth_data = await _receive(reader)
    _expect(auth_data, AUTH, "auth")
    auth = _fields(auth_data, {**_REVEAL_FIELD, **_SIG_FIELD}, "auth")
    if _commitment(auth["reveal"]) != hello["commit"]:
        raise HandshakeError("auth.reveal does not open the commitment sent in hello")
    transcript.add(auth["reveal"])
    final = transcript.digest()
    if not verify_signature(hello["id"], auth["sig"], _SIGN_INITIATOR + final):
        raise BadSignature(f"the initiator's signature does not verify with the key it "
                           f"presented ({fingerprint(hello['id'])})")
    keys = _derive(ephemeral, hello["eph"], final)
    result = HandshakeResult(
        initiator=False, protocol_version=PROTOCOL_VERSION, peer_key=hello["id"],
        peer_name=hello["name"], send_key=keys[KEY_SIZE:2 * KEY_SIZE],
        receive_key=keys[:KEY_SIZE], session_id=keys[2 * KEY_SIZE:],
        transcript_hash=final,
        sas=short_authentication_string(final, hello["id"], identity.public_key))
    # The pins are checked only now that the signature proved the initiator holds the
    # key it presented (issue 20 hole 8: an unsigned hello naming a pinned peer must not
    # raise the loud "key changed" warning). The initiator has finished its side, so a
    # refusal travels as the first session frame: a goodbye with the reason.
    if peer_check is not None:
        try:
            peer_check(hello["name"], hello["id"])
        except PeerKeyChanged as exc:
            await _refuse_in_session(writer, result, f"the key you presented does not "
                                                     f"match the key pinned for {exc.name!r}")
            raise
    return result


async def _refuse_in_session(writer: asyncio.StreamWriter, result: HandshakeResult,
                             reason: str) -> None:
    """Best effort: a session frame saying goodbye with ``reason`` (the initiator's
    session reads it as the peer closing the session)."""
    frame = FrameSealer(result.send_key).seal(
        pad_plaintext(encode_message(Bye(reason[:MAX_TEXT]))))
    writer.write(frame)
    with contextlib.suppress(ConnectionError, OSError):
        await writer.drain()
