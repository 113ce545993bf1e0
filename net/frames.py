"""Frames: how bytes travel on the TCP stream.

Handshake frames (before keys exist) are ``length (u32, big-endian) + payload``, at most
:data:`MAX_HANDSHAKE_FRAME` bytes.

Session frames are ``length (u32) + sequence (u64) + ChaCha20-Poly1305 ciphertext``:

- ``length`` counts the ciphertext including its 16-byte tag and is checked against the
  maximum frame size *before* the body is read, so a peer cannot make us buffer more;
- ``sequence`` is the per-direction frame counter (0, 1, 2, ...); the AEAD nonce is
  ``4 zero bytes + sequence`` and the 12 header bytes are the associated data, so both
  the length and the sequence are authenticated;
- every direction has its own key (see net.handshake), so nonces never repeat per key.

Inside a session frame the plaintext is padded (:func:`pad_plaintext`): a 4-byte length,
the message, then zero bytes up to the smallest of a few size classes
(:data:`SIZE_CLASSES`), so a frame's size tells an observer only which class its message
falls in, not the kind of action it carries (every intent, turn hash, resignation, chat
line of a few words and heartbeat is one 256-byte plaintext). The receiver checks the
length and that the padding is zeros and of exactly the class size
(:func:`unpad_plaintext`).

The receiver authenticates first and then compares the sequence with the one it expects:
an authentic old frame is a :class:`ReplayedFrame` (dropped, not fatal), an authentic
future frame is an :class:`OutOfOrderFrame` (a gap, fatal), anything that does not
authenticate is :class:`AuthenticationFailed` (fatal).

:class:`FrameDecoder` is the same logic without I/O (fed bytes, yields plaintexts) for
tests and fuzzing; :func:`read_frame` is the asyncio version the session uses.
"""

from __future__ import annotations

import asyncio
import struct

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

from wec.net.errors import (
    AuthenticationFailed,
    ConnectionLost,
    FrameTooLarge,
    MalformedFrame,
    MalformedMessage,
    OutOfOrderFrame,
    ReplayedFrame,
    TruncatedFrame,
)

KEY_SIZE = 32
TAG_SIZE = 16
MAX_FRAME_SIZE = 64 * 1024  # ciphertext + tag of one session frame
MAX_HANDSHAKE_FRAME = 4096
MAX_SEQUENCE = 2 ** 64 - 1
_LENGTH = struct.Struct(">I")
_HEADER = struct.Struct(">IQ")
HEADER_SIZE = _HEADER.size  # 12
LENGTH_SIZE = _LENGTH.size  # 4


def max_plaintext(max_frame_size: int = MAX_FRAME_SIZE) -> int:
    """The largest message body that fits in one frame."""
    return max_frame_size - TAG_SIZE


# The plaintext sizes of session frames: a message is padded to the smallest class it fits
# (after its 4-byte length), the largest message to the whole frame.
SIZE_CLASSES = (256, 1024, 4096, 16384)
_PAD_LENGTH = struct.Struct(">I")


def padded_size(body_size: int, max_frame_size: int = MAX_FRAME_SIZE) -> int:
    """The plaintext size of a frame carrying a message of ``body_size`` bytes
    (ValueError when it does not fit in one frame)."""
    needed = _PAD_LENGTH.size + body_size
    limit = max_plaintext(max_frame_size)
    if needed > limit:
        raise ValueError(f"a message of {body_size} bytes does not fit in a frame "
                         f"({limit - _PAD_LENGTH.size} at most)")
    for size in SIZE_CLASSES:
        if needed <= size <= limit:
            return size
    return limit


def pad_plaintext(body: bytes, max_frame_size: int = MAX_FRAME_SIZE) -> bytes:
    """``body`` (one encoded message) as the plaintext of a session frame: its length,
    itself, and zeros up to its size class."""
    size = padded_size(len(body), max_frame_size)
    return _PAD_LENGTH.pack(len(body)) + body + bytes(size - _PAD_LENGTH.size - len(body))


def unpad_plaintext(plaintext: bytes, max_frame_size: int = MAX_FRAME_SIZE) -> bytes:
    """The message inside a session frame's plaintext; MalformedMessage when the length,
    the padding or the size class is not what :func:`pad_plaintext` writes (not fatal:
    the frame authenticated, only its content is refused)."""
    if len(plaintext) < _PAD_LENGTH.size:
        raise MalformedMessage(f"a frame of {len(plaintext)} bytes has no message length")
    (length,) = _PAD_LENGTH.unpack_from(plaintext)
    end = _PAD_LENGTH.size + length
    if end > len(plaintext):
        raise MalformedMessage(f"the message length {length} exceeds the frame "
                               f"({len(plaintext)} bytes)")
    if len(plaintext) != padded_size(length, max_frame_size):
        raise MalformedMessage(f"a message of {length} bytes in a frame of "
                               f"{len(plaintext)} bytes: not its size class")
    if plaintext.count(0, end) != len(plaintext) - end:
        raise MalformedMessage("the padding after the message is not zeros")
    return plaintext[_PAD_LENGTH.size:end]


def _nonce(sequence: int) -> bytes:
    return b"\x00\x00\x00\x00" + sequence.to_bytes(8, "big")


class FrameSealer:
    """Encrypts outgoing session frames for one direction."""

    def __init__(self, key: bytes, max_frame_size: int = MAX_FRAME_SIZE) -> None:
        if len(key) != KEY_SIZE:
            raise ValueError(f"a frame key has {KEY_SIZE} bytes")
        self._aead = ChaCha20Poly1305(key)
        self.max_frame_size = max_frame_size
        self.next_sequence = 0

    def seal(self, plaintext: bytes) -> bytes:
        """One complete frame (header + ciphertext) carrying ``plaintext``."""
        length = len(plaintext) + TAG_SIZE
        if length > self.max_frame_size:
            raise ValueError(f"a frame body holds at most {max_plaintext(self.max_frame_size)} "
                             f"bytes (got {len(plaintext)})")
        if self.next_sequence > MAX_SEQUENCE:
            raise OverflowError("frame sequence exhausted; open a new session")
        header = _HEADER.pack(length, self.next_sequence)
        ciphertext = self._aead.encrypt(_nonce(self.next_sequence), plaintext, header)
        self.next_sequence += 1
        return header + ciphertext


class FrameOpener:
    """Authenticates and decrypts incoming session frames for one direction."""

    def __init__(self, key: bytes, max_frame_size: int = MAX_FRAME_SIZE) -> None:
        if len(key) != KEY_SIZE:
            raise ValueError(f"a frame key has {KEY_SIZE} bytes")
        self._aead = ChaCha20Poly1305(key)
        self.max_frame_size = max_frame_size
        self.expected_sequence = 0

    def body_length(self, header: bytes) -> int:
        """The ciphertext length announced by a 12-byte header, refused when it is too
        large or too small to be a frame (checked before the body is read)."""
        length, _ = _HEADER.unpack(header)
        if length > self.max_frame_size:
            raise FrameTooLarge(f"frame of {length} bytes announced; the maximum is "
                                f"{self.max_frame_size}")
        if length < TAG_SIZE:
            raise MalformedFrame(f"frame of {length} bytes announced; a frame has at least "
                                 f"{TAG_SIZE} (its authentication tag)")
        return int(length)

    def open(self, header: bytes, ciphertext: bytes) -> bytes:
        """The plaintext of an authentic, in-order frame; raises AuthenticationFailed,
        ReplayedFrame (old sequence) or OutOfOrderFrame (a gap)."""
        length, sequence = _HEADER.unpack(header)
        if length != len(ciphertext):
            raise MalformedFrame(f"frame header announces {length} bytes, body has "
                                 f"{len(ciphertext)}")
        try:
            plaintext = self._aead.decrypt(_nonce(sequence), ciphertext, header)
        except InvalidTag:
            raise AuthenticationFailed(f"frame {sequence} failed authentication (forged, "
                                       "tampered or corrupted)") from None
        if sequence < self.expected_sequence:
            raise ReplayedFrame(f"frame {sequence} was already received (expected "
                                f"{self.expected_sequence}): replay dropped")
        if sequence > self.expected_sequence:
            raise OutOfOrderFrame(f"frame {sequence} arrived while {self.expected_sequence} "
                                  "was expected: frames were lost or reordered")
        self.expected_sequence += 1
        return plaintext


class FrameDecoder:
    """Incremental, I/O-free session frame decoder: ``feed`` bytes, then call ``next``
    until it returns None. A fatal error poisons the decoder (it raises again)."""

    def __init__(self, key: bytes, max_frame_size: int = MAX_FRAME_SIZE) -> None:
        self.opener = FrameOpener(key, max_frame_size)
        self._buffer = bytearray()
        self._failure: Exception | None = None

    def feed(self, data: bytes) -> None:
        self._buffer += data

    def next(self) -> bytes | None:
        """The next plaintext, or None when more bytes are needed."""
        if self._failure is not None:
            raise self._failure
        if len(self._buffer) < HEADER_SIZE:
            return None
        header = bytes(self._buffer[:HEADER_SIZE])
        try:
            length = self.opener.body_length(header)
        except (FrameTooLarge, MalformedFrame) as exc:
            self._failure = exc
            raise
        if len(self._buffer) < HEADER_SIZE + length:
            return None
        body = bytes(self._buffer[HEADER_SIZE:HEADER_SIZE + length])
        del self._buffer[:HEADER_SIZE + length]
        try:
            return self.opener.open(header, body)
        except ReplayedFrame:
            raise
        except (AuthenticationFailed, OutOfOrderFrame, MalformedFrame) as exc:
            self._failure = exc
            raise

    def finish(self) -> None:
        """The stream ended: TruncatedFrame when bytes of an incomplete frame remain."""
        if self._buffer:
            raise TruncatedFrame(f"the stream ended inside a frame ({len(self._buffer)} "
                                 "bytes of it arrived)")


# ---------------------------------------------------------------- asyncio streams


async def _read_exactly(reader: asyncio.StreamReader, size: int, started: bool) -> bytes:
    """``size`` bytes; ConnectionLost at a clean frame boundary, TruncatedFrame inside."""
    try:
        return await reader.readexactly(size)
    except asyncio.IncompleteReadError as exc:
        if not started and not exc.partial:
            raise ConnectionLost("the connection was closed by the peer") from None
        raise TruncatedFrame(f"the stream ended inside a frame ({len(exc.partial)} of "
                             f"{size} bytes arrived)") from None
    except (ConnectionError, OSError) as exc:
        raise ConnectionLost(f"the connection broke ({type(exc).__name__}: {exc})") from None


async def read_frame(reader: asyncio.StreamReader, opener: FrameOpener) -> bytes:
    """Read, authenticate and decrypt the next session frame."""
    header = await _read_exactly(reader, HEADER_SIZE, started=False)
    length = opener.body_length(header)
    body = await _read_exactly(reader, length, started=True)
    return opener.open(header, body)


def plain_frame(payload: bytes, max_size: int = MAX_HANDSHAKE_FRAME) -> bytes:
    """A handshake frame (length + payload, unencrypted)."""
    if not 1 <= len(payload) <= max_size:
        raise ValueError(f"a handshake frame holds 1..{max_size} bytes (got {len(payload)})")
    return _LENGTH.pack(len(payload)) + payload


async def read_plain_frame(reader: asyncio.StreamReader,
                           max_size: int = MAX_HANDSHAKE_FRAME) -> bytes:
    """Read one handshake frame; the length is checked before the payload is read."""
    (length,) = _LENGTH.unpack(await _read_exactly(reader, LENGTH_SIZE, started=False))
    if length > max_size:
        raise FrameTooLarge(f"handshake frame of {length} bytes announced; the maximum is "
                            f"{max_size}")
    if length == 0:
        raise MalformedFrame("empty handshake frame")
    return await _read_exactly(reader, int(length), started=True)
