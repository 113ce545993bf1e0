"""Secure sessions: an authenticated, encrypted message channel between two peers.

A :class:`SecureSession` is what the lobby and lockstep layers talk through. It is made
by :func:`connect` (the side that dials) or handed to the ``on_session`` callback of
:func:`serve` (the side that listens), after the handshake in net.handshake succeeded.

Using it (one consumer task per session)::

    session = await connect(host, port, identity, "Alice", pins=PeerStore(state_dir))
    session.send(Hello(PROTOCOL_VERSION, ENGINE_VERSION, "Alice"))
    while True:
        try:
            message = await session.receive()
        except SessionClosed as closed:      # orderly or after a fatal error (see .cause)
            break
        except ProtocolError as refused:     # one message refused; session.is_open says
            show(refused.reason)             # whether the session goes on
            continue
        handle(message)

Inside, a reader task authenticates every frame, validates every message and queues only
valid application messages; heartbeats (every ``heartbeat_interval``) and byes are
handled here and never reach the caller. A fatal ProtocolError (any authentication
failure, a sequence gap, a broken or truncated stream, an oversized frame, silence longer
than ``heartbeat_timeout``, too many refused messages) is raised once by ``receive`` and
closes the session; after that ``receive`` and ``send`` raise SessionClosed. A non-fatal
one (an invalid or unknown message, a replayed frame) is raised once and the session
goes on.

Reconnect and resume (later work) build on ``session_id`` (both sides derive the same 16
bytes; use the first session's id as the link id in a ``Resume`` message),
``counters.messages_received`` (what we got) and ``peer_received`` (what the peer
reported receiving in its latest heartbeat). Both count messages the session accepted and
queued, not what the application processed: the lockstep layer keeps its own count of
applied intents and sends it in ``Resume`` after a reconnect.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Protocol

from wec.net.errors import (
    ConnectionLost,
    HandshakeTimeout,
    MessageError,
    MessageTooLarge,
    NetError,
    PeerTimeout,
    ProtocolError,
    SessionClosed,
    TooManyRejections,
    UnexpectedMessage,
)
from wec.net.frames import (
    HEADER_SIZE,
    MAX_FRAME_SIZE,
    TAG_SIZE,
    FrameOpener,
    FrameSealer,
    max_plaintext,
    pad_plaintext,
    read_frame,
    unpad_plaintext,
)
from wec.net.handshake import HandshakeResult, initiate_handshake, respond_handshake
from wec.net.identity import Identity, fingerprint
from wec.net.messages import Bye, Heartbeat, Message, decode_message, encode_message
from wec.net.pairing import PeerStore, PinStatus

log = logging.getLogger("wec.net.session")

# Test hook (issue 21, "nothing leaks"): when the environment names a file in
# WEC_TEST_TAP, every decrypted message this process receives is appended to it (a
# 4-byte big-endian length, then the message bytes), so a test can read everything a
# real ``wec peer`` process was told. Never set outside tests.
TAP_VARIABLE = "WEC_TEST_TAP"
Tap = Callable[[bytes], None]
_tap: Tap | None = None


def set_tap(tap: Tap | None) -> None:
    """Capture every decrypted message received, in process (tests)."""
    global _tap
    _tap = tap


def _tap_to_file(data: bytes) -> None:
    path = os.environ.get(TAP_VARIABLE)
    if path:
        with open(path, "ab") as out:
            out.write(len(data).to_bytes(4, "big") + data)


def read_tap(path: str | os.PathLike[str]) -> list[bytes]:
    """The messages a tap file holds, in order."""
    with open(path, "rb") as source:
        data = source.read()
    found, at = [], 0
    while at + 4 <= len(data):
        size = int.from_bytes(data[at:at + 4], "big")
        found.append(data[at + 4:at + 4 + size])
        at += 4 + size
    return found


@dataclass(frozen=True)
class SessionConfig:
    """Timing and size limits of a session (seconds, bytes)."""

    heartbeat_interval: float = 2.0
    heartbeat_timeout: float = 10.0
    handshake_timeout: float = 10.0
    max_frame_size: int = MAX_FRAME_SIZE
    max_rejections: int = 16  # refused messages before the session is closed
    receive_buffer: int = 256  # queued messages before reading from the socket pauses
    close_timeout: float = 1.0


DEFAULT_CONFIG = SessionConfig()


class SessionState(Enum):
    OPEN = "open"
    CLOSED = "closed"


@dataclass
class SessionCounters:
    """Traffic and refusals of one session (application messages exclude heartbeats and
    byes)."""

    frames_sent: int = 0
    frames_received: int = 0
    bytes_sent: int = 0
    bytes_received: int = 0
    messages_sent: int = 0
    messages_received: int = 0
    heartbeats_sent: int = 0
    heartbeats_received: int = 0
    rejected: int = 0
    rejections: list[str] = field(default_factory=list)  # the last 20 reasons


class SecureSession:
    """An open, authenticated session with one peer (see the module docstring)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                 handshake: HandshakeResult, config: SessionConfig = DEFAULT_CONFIG,
                 pin_status: PinStatus | None = None) -> None:
        self.config = config
        self.handshake = handshake
        self.pin_status = pin_status
        self.counters = SessionCounters()
        self.state = SessionState.OPEN
        self.close_reason: str | None = None
        self.close_error: ProtocolError | None = None
        self.closed_by_peer = False
        self.peer_received = 0
        self._reader = reader
        self._writer = writer
        self._sealer = FrameSealer(handshake.send_key, config.max_frame_size)
        self._opener = FrameOpener(handshake.receive_key, config.max_frame_size)
        self._inbox: deque[Message | ProtocolError] = deque()
        self._arrived = asyncio.Event()
        self._room = asyncio.Event()
        self._closed = asyncio.Event()
        self._loop = asyncio.get_running_loop()
        self._last_heard = self._loop.time()
        self._paused = False
        self._tasks = [self._loop.create_task(self._read_loop(), name="wec-session-reader"),
                       self._loop.create_task(self._heartbeat_loop(),
                                              name="wec-session-heartbeat")]

    # ------------------------------------------------------------ who and what

    @property
    def peer_name(self) -> str:
        """The display name the peer presented (pin it only after SAS confirmation)."""
        return self.handshake.peer_name

    @property
    def peer_key(self) -> bytes:
        return self.handshake.peer_key

    @property
    def peer_fingerprint(self) -> str:
        return fingerprint(self.handshake.peer_key)

    @property
    def sas(self) -> str:
        """The 6-digit short authentication string both screens show at first pairing."""
        return self.handshake.sas

    @property
    def session_id(self) -> bytes:
        """16 bytes both sides derived from the handshake (a resume link id)."""
        return self.handshake.session_id

    @property
    def initiator(self) -> bool:
        return self.handshake.initiator

    @property
    def is_open(self) -> bool:
        return self.state is SessionState.OPEN

    @property
    def remote_address(self) -> tuple[str, int] | None:
        peer = self._writer.get_extra_info("peername")
        return (str(peer[0]), int(peer[1])) if isinstance(peer, tuple) else None

    def __repr__(self) -> str:
        return (f"SecureSession(peer={self.peer_name!r}, fingerprint={self.peer_fingerprint!r}, "
                f"state={self.state.value})")

    # ------------------------------------------------------------ sending

    def send(self, message: Message) -> None:
        """Queue one application message for the peer (never blocks; see ``drain``).
        Raises SessionClosed when the session is closed, MessageTooLarge or ValueError for
        a message the peer would refuse."""
        if isinstance(message, Heartbeat | Bye):
            raise ValueError("heartbeats and byes are sent by the session itself; use "
                             "close(reason)")
        if not self.is_open:
            raise self._closed_error()
        self._write(message)
        self.counters.messages_sent += 1

    async def drain(self) -> None:
        """Wait until the socket accepted what was sent (flow control for bulk sends)."""
        with contextlib.suppress(ConnectionError, OSError):
            await self._writer.drain()

    def _write(self, message: Message) -> None:
        body = encode_message(message)
        try:
            plaintext = pad_plaintext(body, self.config.max_frame_size)
        except ValueError:
            raise MessageTooLarge(f"a {message.TAG} message of {len(body)} bytes does not "
                                  f"fit in a frame ({max_plaintext(self.config.max_frame_size)})"
                                  ) from None
        frame = self._sealer.seal(plaintext)
        self._writer.write(frame)
        self.counters.frames_sent += 1
        self.counters.bytes_sent += len(frame)

    # ------------------------------------------------------------ receiving

    async def receive(self) -> Message:
        """The next valid application message from the peer.

        Raises a ProtocolError subclass once per refused input (``.fatal`` tells whether
        the session closed), then SessionClosed once the session is closed and every
        message that arrived before has been delivered.
        """
        while True:
            if self._inbox:
                item = self._inbox.popleft()
                if len(self._inbox) < self.config.receive_buffer:
                    self._room.set()
                if isinstance(item, ProtocolError):
                    raise item
                return item
            if not self.is_open:
                raise self._closed_error()
            self._arrived.clear()
            await self._arrived.wait()

    def _closed_error(self) -> SessionClosed:
        return SessionClosed(self.close_reason or "closed", self.close_error,
                             by_peer=self.closed_by_peer)

    async def _read_loop(self) -> None:
        try:
            while self.is_open:
                if len(self._inbox) >= self.config.receive_buffer:
                    await self._wait_for_room()
                try:
                    plaintext = await read_frame(self._reader, self._opener)
                except ProtocolError as error:
                    if error.fatal:
                        self._fail(error)
                        return
                    self._reject(error)
                    continue
                self._last_heard = self._loop.time()
                self.counters.frames_received += 1
                self.counters.bytes_received += HEADER_SIZE + len(plaintext) + TAG_SIZE
                try:
                    body = unpad_plaintext(plaintext, self.config.max_frame_size)
                    if _tap is not None:
                        _tap(body)
                    elif TAP_VARIABLE in os.environ:
                        _tap_to_file(body)
                    self._dispatch(decode_message(body))
                except MessageError as error:
                    self._reject(error)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a bug here must close the session, not hang it
            log.exception("session reader failed")
            self._fail(ProtocolError(f"internal error while reading: {exc!r}"))

    async def _wait_for_room(self) -> None:
        self._room.clear()
        self._paused = True
        try:
            await self._room.wait()
        finally:
            self._paused = False
            self._last_heard = self._loop.time()  # our pause is not the peer's silence

    def _dispatch(self, message: Message) -> None:
        if isinstance(message, Heartbeat):
            self.counters.heartbeats_received += 1
            if message.received > self.counters.messages_sent:
                raise UnexpectedMessage(f"heartbeat claims {message.received} messages "
                                        f"received, only {self.counters.messages_sent} sent")
            self.peer_received = message.received
        elif isinstance(message, Bye):
            log.debug("peer %r closed the session: %s", self.peer_name, message.reason)
            self._finish(message.reason or "the peer left", error=None, by_peer=True)
        else:
            self.counters.messages_received += 1
            self._inbox.append(message)
            self._arrived.set()

    def _reject(self, error: ProtocolError) -> None:
        self.counters.rejected += 1
        self.counters.rejections = [*self.counters.rejections[-19:], error.reason]
        log.warning("refused input from %r: %s: %s", self.peer_name, type(error).__name__,
                    error.reason)
        self._inbox.append(error)
        self._arrived.set()
        if self.counters.rejected > self.config.max_rejections:
            self._fail(TooManyRejections(f"the peer sent {self.counters.rejected} refused "
                                         "messages; closing the session"))

    # ------------------------------------------------------------ heartbeats

    async def _heartbeat_loop(self) -> None:
        try:
            await self._beat()
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a bug here must close the session, not stop heartbeats
            log.exception("session heartbeat failed")
            self._fail(ProtocolError(f"internal error while sending heartbeats: {exc!r}"))

    async def _beat(self) -> None:
        """Send a heartbeat every interval; fail the session after ``heartbeat_timeout``
        without a frame from the peer (unless we paused reading ourselves)."""
        interval = self.config.heartbeat_interval
        timeout = self.config.heartbeat_timeout
        next_beat = self._loop.time() + interval
        while self.is_open:
            now = self._loop.time()
            if not self._paused and now - self._last_heard > timeout:
                self._fail(PeerTimeout(f"nothing heard from the peer for {timeout:g} s "
                                       "(heartbeat timeout)"))
                return
            if now >= next_beat:
                self._write(Heartbeat(self.counters.messages_received))
                self.counters.heartbeats_sent += 1
                next_beat = now + interval
            deadline = min(next_beat, self._last_heard + timeout + 0.001)
            await asyncio.sleep(max(0.005, deadline - self._loop.time()))

    # ------------------------------------------------------------ closing

    async def close(self, reason: str = "closed") -> None:
        """Say goodbye with ``reason`` (shown to the peer) and close. Idempotent."""
        self._finish(reason, error=None, by_peer=False, say_bye=True)
        await self.wait_closed()

    async def wait_closed(self) -> None:
        """Wait until the session is closed and its connection torn down."""
        await self._closed.wait()
        with contextlib.suppress(ConnectionError, OSError, TimeoutError):
            async with asyncio.timeout(self.config.close_timeout):
                await self._writer.wait_closed()

    def _fail(self, error: ProtocolError) -> None:
        """A fatal error: report it once through receive() and close."""
        if not self.is_open:
            return
        log.error("closing the session with %r: %s: %s", self.peer_name,
                  type(error).__name__, error.reason)
        self._inbox.append(error)
        self._finish(error.reason, error=error, by_peer=False,
                     say_bye=not isinstance(error, ConnectionLost))

    def _finish(self, reason: str, error: ProtocolError | None, by_peer: bool,
                say_bye: bool = False) -> None:
        if not self.is_open:
            return
        if say_bye:
            with contextlib.suppress(ValueError, RuntimeError, ConnectionError, OSError):
                self._write(Bye(_short_reason(reason)))
        self.state = SessionState.CLOSED
        self.close_reason = reason
        self.close_error = error
        self.closed_by_peer = by_peer
        self._writer.close()
        current = asyncio.current_task()
        for task in self._tasks:
            if task is not current:
                task.cancel()
        self._arrived.set()
        self._closed.set()


def _short_reason(reason: str) -> str:
    text = "".join(ch if ch.isprintable() else " " for ch in reason)
    return text[:200]


# ---------------------------------------------------------------- opening sessions


async def _open_session(reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                        identity: Identity, name: str, *, initiator: bool,
                        expected_key: bytes | None, pins: PeerStore | None,
                        config: SessionConfig) -> SecureSession:
    statuses: list[PinStatus] = []

    def check_pin(peer_name: str, peer_key: bytes) -> None:
        if pins is not None:
            statuses.append(pins.check(peer_name, peer_key))

    try:
        async with asyncio.timeout(config.handshake_timeout):
            if initiator:
                result = await initiate_handshake(reader, writer, identity, name,
                                                  expected_key=expected_key,
                                                  peer_check=check_pin)
            else:
                result = await respond_handshake(reader, writer, identity, name,
                                                 peer_check=check_pin)
    except TimeoutError:
        writer.close()
        raise HandshakeTimeout(f"the handshake did not finish within "
                               f"{config.handshake_timeout:g} s") from None
    except BaseException:
        writer.close()
        raise
    return SecureSession(reader, writer, result, config, statuses[0] if statuses else None)


async def connect(host: str, port: int, identity: Identity, name: str, *,
                  expected_key: bytes | None = None, pins: PeerStore | None = None,
                  config: SessionConfig = DEFAULT_CONFIG) -> SecureSession:
    """Dial a peer and run the handshake as initiator.

    ``expected_key`` (e.g. from the discovery fingerprint or a pin) refuses anyone else
    with IdentityMismatch; ``pins`` refuses a changed key for a pinned name with
    PeerKeyChanged and sets ``session.pin_status`` (NEW means: compare the SAS).
    Raises ConnectionLost when the peer cannot be reached, a HandshakeError subclass
    when the handshake fails.
    """
    try:
        async with asyncio.timeout(config.handshake_timeout):
            reader, writer = await asyncio.open_connection(host, port)
    except (OSError, TimeoutError) as exc:
        raise ConnectionLost(f"cannot connect to {host} port {port}: "
                             f"{exc or type(exc).__name__}") from None
    return await _open_session(reader, writer, identity, name, initiator=True,
                               expected_key=expected_key, pins=pins, config=config)


SessionHandler = Callable[[SecureSession], Awaitable[None]]


class ConnectionGate(Protocol):
    """Decides, before any handshake work, whether a connection may have a handshake
    (net.peer_links keeps per-address limits)."""

    def enter(self, address: tuple[str, int] | None) -> str | None:
        """None to go on with the handshake, or why not (the connection is closed)."""

    def leave(self, address: tuple[str, int] | None) -> None:
        """The handshake of a connection let in by ``enter`` ended (either way)."""
FailureHandler = Callable[[Exception, "tuple[str, int] | None"], None]


class SessionServer:
    """A listening socket that turns every incoming connection into a SecureSession."""

    def __init__(self, server: asyncio.Server) -> None:
        self._server = server
        self.failures: deque[tuple[tuple[str, int] | None, Exception]] = deque(maxlen=50)

    @property
    def port(self) -> int:
        """The port listened on (useful with port=0)."""
        return int(self._server.sockets[0].getsockname()[1])

    @property
    def addresses(self) -> list[tuple[str, int]]:
        return [(str(s.getsockname()[0]), int(s.getsockname()[1]))
                for s in self._server.sockets]

    def close(self) -> None:
        """Stop accepting connections (open sessions stay open)."""
        self._server.close()

    async def wait_closed(self) -> None:
        await self._server.wait_closed()

    async def __aenter__(self) -> SessionServer:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()
        await self.wait_closed()


async def serve(identity: Identity, name: str, on_session: SessionHandler, *,
                host: str | Sequence[str] | None = "0.0.0.0", port: int = 0,
                pins: PeerStore | None = None, config: SessionConfig = DEFAULT_CONFIG,
                on_failure: FailureHandler | None = None,
                gate: ConnectionGate | None = None) -> SessionServer:
    """Listen on ``host`` and ``port`` (0: any free port).

    The default host ``0.0.0.0`` is every IPv4 interface (discovery advertises IPv4
    addresses). With ``host=None`` asyncio binds IPv4 and IPv6 separately, and with
    ``port=0`` they get different ports: ``server.port`` is then only the first one.

    Each connection runs the handshake as responder; on success ``on_session(session)``
    is awaited in its own task and owns the session (returning does not close it). A
    failed handshake is logged, kept in ``server.failures`` and passed to ``on_failure``.
    A ``gate`` is asked before the handshake whether a connection from that address may
    have one (a reason to refuse closes it at once) and told when the handshake ended.
    """
    holder: list[SessionServer] = []

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peername")
        address = (str(peer[0]), int(peer[1])) if isinstance(peer, tuple) else None
        if gate is not None:
            refusal = gate.enter(address)
            if refusal is not None:  # before any work: no handshake, no event
                log.info("closed a connection from %s at once: %s", address, refusal)
                writer.close()
                return
        try:
            session = await _open_session(reader, writer, identity, name, initiator=False,
                                          expected_key=None, pins=pins, config=config)
        except NetError as exc:
            log.warning("refused a connection from %s: %s: %s", address, type(exc).__name__,
                        exc)
            holder[0].failures.append((address, exc))
            if on_failure is not None:
                on_failure(exc, address)
            return
        except asyncio.CancelledError:
            # the program ends (its event loop cancels what still runs): a handshake
            # under way ends with it. This task is the server's own, nobody awaits it,
            # and Python 3.11 logs a cancelled one as "Exception in callback"
            log.info("a handshake with %s ended with the program", address)
            return
        finally:
            if gate is not None:
                gate.leave(address)
        try:
            await on_session(session)
        except Exception:
            log.exception("the session handler for %r failed", session.peer_name)
            await session.close("internal error on the peer")

    server = await asyncio.start_server(handle, host, port)
    holder.append(SessionServer(server))
    return holder[0]


# ---------------------------------------------------------------- measurement


async def measure_handshake_async(count: int, host: str = "127.0.0.1") -> list[float]:
    """Seconds from dialling until both sides hold an open session, ``count`` times, on
    ``host`` (loopback by default), with throwaway in-memory identities."""
    accepted: asyncio.Queue[SecureSession] = asyncio.Queue()

    async def keep(session: SecureSession) -> None:
        await accepted.put(session)

    server_identity, client_identity = Identity.generate(), Identity.generate()
    times: list[float] = []
    async with await serve(server_identity, "bench-server", keep, host=host) as server:
        for _ in range(count):
            start = time.perf_counter()
            client = await connect(host, server.port, client_identity, "bench-client")
            responder = await accepted.get()
            times.append(time.perf_counter() - start)
            await client.close("measured")
            await responder.wait_closed()
    return times


def measure_handshake(count: int) -> list[float]:
    """Synchronous wrapper of :func:`measure_handshake_async` on loopback (for
    ``wec bench net``)."""
    return asyncio.run(measure_handshake_async(count))
