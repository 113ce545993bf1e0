"""The network layer's error types: every refusal names its reason.

Everything a peer sends is untrusted. Whatever is wrong with it ends as exactly one
:class:`ProtocolError` subclass carrying a human-readable ``reason`` (logged and shown
to the player) and a ``fatal`` flag: fatal errors close the session, because after them
the byte stream or the cryptographic state cannot be trusted any more; non-fatal ones
reject a single message and the session goes on.

Local problems (an unsafe key file, a changed peer key, a closed session) are
:class:`NetError` subclasses outside the ProtocolError tree.
"""

from __future__ import annotations


def with_article(word: str) -> str:
    """``word`` after its indefinite article, as a refusal names a thing ("an answer",
    "a done", "an ActAnswer")."""
    return f"{'an' if word[:1].lower() in ('a', 'e', 'i', 'o', 'u') else 'a'} {word}"


def described(data: object) -> str:
    """What a peer sent where bytes of a given size were due, for a refusal that names
    it ("12 bytes", "an int"): the size of bytes, else the type (whose length, if any,
    tells nothing the refusal needs)."""
    if type(data) is bytes:
        return f"{len(data)} bytes"
    return with_article(type(data).__name__)


class NetError(Exception):
    """Base of every error the net package raises on purpose."""


# ---------------------------------------------------------------- local problems


class IdentityError(NetError):
    """The identity key file cannot be used safely (permissions, owner, contents)."""


class PinStoreError(NetError):
    """The pinned-peers file is unreadable or malformed; never silently reset (that would
    forget every pinned key)."""


class PeerKeyChanged(NetError):
    """A known peer name presented a different identity key than the pinned one.

    This is what an impostor looks like, so the connection is refused. The message
    carries both fingerprints so the players can compare them out of band.
    """

    def __init__(self, name: str, pinned_fingerprint: str, presented_fingerprint: str) -> None:
        super().__init__(
            f"WARNING: THE IDENTITY KEY OF PEER {name!r} HAS CHANGED. Pinned fingerprint "
            f"{pinned_fingerprint}, presented fingerprint {presented_fingerprint}. Someone may "
            f"be impersonating {name!r}; the connection is refused. If {name!r} really "
            "reinstalled wec, remove the pin for that name and pair again.")
        self.name = name
        self.pinned_fingerprint = pinned_fingerprint
        self.presented_fingerprint = presented_fingerprint


class MessageTooLarge(NetError):
    """A message we were asked to send does not fit in one frame (a bug on our side)."""


class SessionClosed(NetError):
    """The session is closed; ``reason`` says why and ``cause`` is the fatal error that
    closed it, if any."""

    def __init__(self, reason: str, cause: ProtocolError | None = None,
                 by_peer: bool = False) -> None:
        who = "the peer closed the session" if by_peer else "session closed"
        super().__init__(f"{who}: {reason}")
        self.reason = reason
        self.cause = cause
        self.by_peer = by_peer


# ---------------------------------------------------------------- untrusted input


class ProtocolError(NetError):
    """Input from the peer that is refused. ``fatal`` errors close the session."""

    fatal: bool = True

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class HandshakeError(ProtocolError):
    """The handshake failed: unexpected, malformed or badly signed handshake message."""


class HandshakeTimeout(HandshakeError):
    """The peer did not complete the handshake in time."""


class BadSignature(HandshakeError):
    """A handshake signature does not verify with the presented identity key."""


class IdentityMismatch(HandshakeError):
    """The peer's identity key is not the one we expected (from discovery or a pin)."""


class HandshakeRefused(HandshakeError):
    """The peer refused the handshake and said why (its reason is untrusted text)."""


class VersionMismatch(HandshakeError):
    """The peer speaks a protocol version we do not."""

    def __init__(self, ours: int, theirs: object) -> None:
        super().__init__(f"protocol version mismatch: we speak version {ours}, the peer "
                         f"speaks {theirs!r}; both players need the same wec release")
        self.ours = ours
        self.theirs = theirs


class FrameError(ProtocolError):
    """The frame layer could not parse or authenticate the byte stream (always fatal)."""


class MalformedFrame(FrameError):
    """A frame header that cannot be valid (e.g. shorter than its own overhead)."""


class FrameTooLarge(FrameError):
    """A frame header announcing more than the maximum frame size; refused before the
    body is read."""


class TruncatedFrame(FrameError):
    """The stream ended in the middle of a frame."""


class ConnectionLost(FrameError):
    """The stream ended (or broke) between frames without a goodbye."""


class AuthenticationFailed(FrameError):
    """A frame failed ChaCha20-Poly1305 authentication: forged, tampered or corrupted."""


class SequenceError(FrameError):
    """An authentic frame whose sequence number is not the next expected one."""


class ReplayedFrame(SequenceError):
    """An authentic frame with an old sequence number: a replay. Dropped; the session goes
    on because nothing in it can change what was already received."""

    fatal = False


class OutOfOrderFrame(SequenceError):
    """An authentic frame from the future: frames were lost or reordered (a sequence gap).
    Fatal: something between the peers is tampering with the stream."""


class MessageError(ProtocolError):
    """An authentic frame whose body is not a valid message. Only that message is refused."""

    fatal = False


class MalformedMessage(MessageError):
    """Not decodable msgpack, a wrong field, type or range."""


class UnknownMessageType(MessageError):
    """A message type tag this version does not know."""


class UnexpectedMessage(MessageError):
    """A valid message that is not allowed at this point of the protocol."""


class PeerTimeout(ProtocolError):
    """Nothing arrived from the peer within the heartbeat timeout."""


class TooManyRejections(ProtocolError):
    """The peer kept sending refused input; the session is closed to stop the flood."""
