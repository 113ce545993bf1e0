"""The LAN-play runtime: one asyncio :class:`Peer` per running game (issue 8 items 2-6).

A Peer combines everything below it: this installation's identity (net.identity), the
pinned peers (net.pairing), discovery (net.discovery), secure sessions (net.session,
listening and dialling), the lobby (net.lobby) and lockstep play (net.lockstep). It
runs on the caller's asyncio loop; the Panda3D client drives it through
net.background, the headless ``wec peer`` command directly.

Per connection (a *link*):

1. The handshake (pins are checked in it: a changed key for a known name is refused).
2. Hello and PairingState. When either side has not pinned the other yet, both show the
   6-digit code (:class:`PairingCode`) and both players confirm
   (:meth:`Peer.confirm_pairing`); then the key is pinned. A refusal closes the link.
3. If a game with this peer is under way: both send Resume (the game id and how many of
   the other's lockstep messages they processed) and resend the rest of their log; new
   game messages wait until the peer's Resume arrived, so everything arrives in order.
   Otherwise the lobby runs (:meth:`Peer.invite`, ``accept``, ``choose_colour``, ...).
4. When the rules hashes match, the game starts: a :class:`~net.lockstep.Lockstep` and a
   journal file ``<state dir>/games/<game id>.jsonl`` that records every input before it
   takes effect, so a killed process restarted with the same state dir resumes the game.

Faults: when the link drops, the game is kept, and *both* sides dial the other again,
whichever dialled first: at its last known address (from discovery, the address we
dialled, ``PeerConfig.addresses``, or, for a connection we accepted, the peer's address
with the listening port its Hello announced; all noted in the game's journal, so a
restarted process knows them too) every ``reconnect_interval``, at once when discovery
sees it again; the side with the smaller key dials first, the other after
``dial_delay``. Two links to one peer: the newer replaces the older, except when both
are young (both sides dialled at once), where the one dialled by the side with the
smaller identity key stays and the other is closed cleanly; both sides pick the same, so
exactly one session survives, and the Resume exchange on it resends exactly what the
other side has not processed (nothing lost, nothing applied twice). After
``grace_period`` seconds without the peer (:class:`GraceExpired`), the player may
:meth:`Peer.claim_win` or :meth:`Peer.keep_waiting`.

Saving: :meth:`Peer.save` asks both machines to save (net.lockstep); each writes
``<state dir>/saves/<file name>`` from its own match, with ``<file name>.json`` beside it
naming the peer and our side. :meth:`Peer.invite` with ``resume_file`` resumes such a
save over the network: both machines must hold a save with the same SHA-256.

Every event is a :class:`PeerEvent` passed to ``on_event`` (on the loop; it must not
block), or, without that callback, put in :attr:`Peer.events` (an asyncio.Queue);
:func:`describe_event` turns one into a JSON-ready dict.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import dataclasses
import hashlib
import ipaddress
import json
import logging
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any, ClassVar

from wec.engine.errors import SaveError, WecError
from wec.engine.formats import intent_to_dict
from wec.engine.intents import Intent
from wec.engine.match import Match
from wec.engine.options import Options, options_to_dict
from wec.engine.pieces import Government, Side
from wec.engine.savegame import decode_save, encode_save
from wec.net.desync import DesyncReport, write_report
from wec.net.discovery import Discovery, PeerChange, PeerInfo
from wec.net.errors import (
    HandshakeError,
    NetError,
    PeerKeyChanged,
    ProtocolError,
    SessionClosed,
)
from wec.net.handshake import PROTOCOL_VERSION
from wec.net.identity import Identity, fingerprint, load_or_create_identity
from wec.net.lobby import (
    ENGINE_VERSION,
    LOBBY_MESSAGES,
    GameSetup,
    Lobby,
    LobbyError,
    LobbyEvent,
    Phase,
    RulesAgreed,
    SavedGame,
    StartBoard,
)
from wec.net.lobby import Step as LobbyStep
from wec.net.lockstep import (
    LOCKSTEP_MESSAGES,
    Desynced,
    DesyncReportReady,
    GameEvent,
    GameOver,
    GameResult,
    Lockstep,
    LockstepError,
    SaveNow,
)
from wec.net.lockstep import Step as GameStep
from wec.net.messages import (
    GameClosed,
    Hello,
    Message,
    PairingResult,
    PairingState,
    Rejection,
    Resume,
    decode_message,
    encode_message,
)
from wec.net.pairing import PeerStore, PinStatus, format_sas
from wec.net.session import SecureSession, SessionConfig, SessionServer, connect, serve

log = logging.getLogger("wec.net.peer")

JOURNAL_FORMAT = "wec-peer-game/1"
SAVE_INFO_FORMAT = "wec-peer-save/1"
YOUNG_LINK = 2.0  # seconds: two links this young are a dialling race, not a reconnection
KEPT_FINISHED_GAMES = 5  # finished games read back at start (to answer a late Resume)


@dataclass(frozen=True)
class PeerConfig:
    """How a Peer runs. ``state_dir`` holds the identity, pins, games, saves and desync
    reports; ``auto_confirm`` confirms pairing codes without asking (tests, demos)."""

    name: str
    state_dir: Path
    host: str = "0.0.0.0"
    port: int = 0
    discovery: bool = True
    include_loopback: bool = False
    # The IPv4 addresses of the interfaces discovery runs on (e.g. ("127.0.0.1",) for two
    # games on one machine, or one Wi-Fi of several); None: every up, multicast-capable
    # IPv4 interface (net.discovery.choose_interface_addresses). ``include_loopback`` adds
    # 127.0.0.1 to either.
    interfaces: tuple[str, ...] | None = None
    auto_confirm: bool = False
    grace_period: float = 120.0
    reconnect_interval: float = 0.5
    dial_delay: float = 2.0
    redial_timeout: float = 3.0  # one redial attempt, connection and handshake
    session: SessionConfig = field(default_factory=SessionConfig)
    record_ttl: int = 20
    addresses: tuple[tuple[str, int], ...] = ()  # where to redial a game peer (--address)

    def __post_init__(self) -> None:
        if self.interfaces is not None:
            if not self.interfaces:
                raise ValueError("interfaces: give at least one IPv4 address, or None to "
                                 "let discovery choose")
            for address in self.interfaces:
                problem = interface_address_problem(address)
                if problem:
                    raise ValueError(problem)

    def discovery_interfaces(self) -> list[str] | None:
        """The interface addresses discovery must use (None: its own choice)."""
        if self.interfaces is None:
            return None
        chosen = list(dict.fromkeys(self.interfaces))
        if self.include_loopback and LOOPBACK_ADDRESS not in chosen:
            chosen.append(LOOPBACK_ADDRESS)
        return chosen


LOOPBACK_ADDRESS = "127.0.0.1"


def interface_address_problem(text: str) -> str | None:
    """Why ``text`` cannot name a discovery interface (None when it can)."""
    try:
        ipaddress.IPv4Address(text)
    except ValueError:
        return (f"interface {text!r} is not an IPv4 address (give the interface's own "
                "address, e.g. 192.168.1.20 or 127.0.0.1)")
    return None


# ---------------------------------------------------------------- events


@dataclass(frozen=True)
class PeerEvent:
    """Something for the player (or a test) to see; ``kind`` names it."""

    kind: ClassVar[str] = "event"


@dataclass(frozen=True)
class Started(PeerEvent):
    kind: ClassVar[str] = "started"
    name: str
    fingerprint: str
    port: int


@dataclass(frozen=True)
class PeerSeen(PeerEvent):
    kind: ClassVar[str] = "peer_seen"
    peer: PeerInfo


@dataclass(frozen=True)
class PeerGone(PeerEvent):
    kind: ClassVar[str] = "peer_gone"
    peer: PeerInfo


@dataclass(frozen=True)
class Connected(PeerEvent):
    kind: ClassVar[str] = "connected"
    peer: str
    fingerprint: str
    dialled: bool


@dataclass(frozen=True)
class ConnectionRefused(PeerEvent):
    """A connection failed or was refused; ``key_changed`` for the loud warning of a
    changed key (net.errors.PeerKeyChanged)."""

    kind: ClassVar[str] = "connection_refused"
    reason: str
    key_changed: bool = False


@dataclass(frozen=True)
class PairingCode(PeerEvent):
    """First meeting: show ``code`` and ask the player whether the other screen shows the
    same (then :meth:`Peer.confirm_pairing`)."""

    kind: ClassVar[str] = "pairing_code"
    peer: str
    code: str
    fingerprint: str


@dataclass(frozen=True)
class Paired(PeerEvent):
    kind: ClassVar[str] = "paired"
    peer: str
    newly: bool


@dataclass(frozen=True)
class PairingFailed(PeerEvent):
    kind: ClassVar[str] = "pairing_failed"
    peer: str
    reason: str


@dataclass(frozen=True)
class Disconnected(PeerEvent):
    kind: ClassVar[str] = "disconnected"
    peer: str
    reason: str


@dataclass(frozen=True)
class LobbyUpdate(PeerEvent):
    """A lobby event with the peer it concerns (its kind is the lobby event's)."""

    kind: ClassVar[str] = "lobby"
    peer: str
    event: LobbyEvent


@dataclass(frozen=True)
class GameStarted(PeerEvent):
    kind: ClassVar[str] = "game_started"
    game_id: str
    peer: str
    our_side: Side
    options: Options
    start_title: str
    state_hash: str
    resumed_save: bool


@dataclass(frozen=True)
class GameUpdate(PeerEvent):
    """A lockstep event of the game (its kind is the game event's). ``sent_at`` is the
    monotonic clock read just before the step's messages were written to the peer (None
    when the step sent nothing): a receiver's clock reading taken after it applied them
    is always later, so a latency measured between the two can never come out negative."""

    kind: ClassVar[str] = "game"
    event: GameEvent
    sent_at: float | None = None


@dataclass(frozen=True)
class Reconnecting(PeerEvent):
    """Redialling the game's peer failed (reported at the 1st, 2nd, 5th and every 20th
    failure)."""

    kind: ClassVar[str] = "reconnecting"
    peer: str
    address: str
    attempt: int
    reason: str


@dataclass(frozen=True)
class Resumed(PeerEvent):
    """The game link is back: ``resent`` of our messages went again, the peer had
    processed ``peer_processed`` of them."""

    kind: ClassVar[str] = "resumed"
    game_id: str
    resent: int
    peer_processed: int
    state_hash: str


@dataclass(frozen=True)
class GameRestored(PeerEvent):
    """A game under way was read back from its journal at start (after a crash)."""

    kind: ClassVar[str] = "game_restored"
    game_id: str
    peer: str
    our_side: Side
    state_hash: str
    intents_sent: int
    peer_intents_applied: int


@dataclass(frozen=True)
class GameAbandoned(PeerEvent):
    """The game never started on the other machine (the link broke at its start) and
    nothing was played: it is forgotten and the lobby opens again."""

    kind: ClassVar[str] = "game_abandoned"
    game_id: str
    reason: str


@dataclass(frozen=True)
class GraceExpired(PeerEvent):
    """The peer has been away for ``seconds``: claim the win or keep waiting."""

    kind: ClassVar[str] = "grace_expired"
    peer: str
    seconds: float


@dataclass(frozen=True)
class Saved(PeerEvent):
    kind: ClassVar[str] = "saved"
    file_name: str
    path: str
    digest: str
    asked_by_us: bool


@dataclass(frozen=True)
class DesyncWritten(PeerEvent):
    kind: ClassVar[str] = "desync_report_written"
    path: str


@dataclass(frozen=True)
class ErrorEvent(PeerEvent):
    kind: ClassVar[str] = "error"
    text: str


def event_kind(event: PeerEvent) -> str:
    """The name of an event as the headless peer prints it (lobby and game events carry
    their own)."""
    if isinstance(event, LobbyUpdate):
        return event.event.kind
    if isinstance(event, GameUpdate):
        return event.event.kind
    return event.kind


def describe_event(event: PeerEvent) -> dict[str, Any]:
    """A JSON-ready dict of an event: ``{"event": kind, ...fields}``."""
    inner: Any = event
    data: dict[str, Any] = {}
    if isinstance(event, LobbyUpdate):
        data["peer"] = event.peer
        inner = event.event
    elif isinstance(event, GameUpdate):
        inner = event.event
        if event.sent_at is not None:
            data["sent_at"] = round(event.sent_at, 6)
    for item in dataclasses.fields(inner):
        data[item.name] = _plain(getattr(inner, item.name))
    return {"event": event_kind(event), **data}


def _plain(value: Any) -> Any:
    """JSON-ready form of an event field."""
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, Options):
        return options_to_dict(value)
    if isinstance(value, Match):
        return {"actions": len(value.actions), "state_hash": value.current_hash}
    if isinstance(value, GameSetup):
        return {"our_side": value.our_side.value, "rules_hash": value.rules_hash.hex(),
                "start_title": value.start_title, "state_hash": value.match.current_hash}
    if isinstance(value, GameResult):
        return {"winner": value.winner.value if value.winner else None,
                "reason": value.reason, "how": value.how}
    if isinstance(value, DesyncReport):
        return {"turn": value.turn, "our_hash": value.our_hash,
                "their_hash": value.their_hash, "differences": value.differences[:20]}
    if isinstance(value, PeerInfo):
        return dataclasses.asdict(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        try:
            return intent_to_dict(value)  # type: ignore[arg-type]
        except (TypeError, AttributeError, KeyError, ValueError):
            return repr(value)
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return repr(value)


# ---------------------------------------------------------------- journal


class Journal:
    """The append-only record of one game: a header line, then one line per input of the
    Lockstep (written and flushed before the input takes effect)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file: Any = None  # opened at the first record (kept open from then on)

    @classmethod
    def create(cls, path: Path, header: dict[str, Any]) -> Journal:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "w", encoding="utf-8") as out:
            out.write(json.dumps({"format": JOURNAL_FORMAT, **header}, sort_keys=True) + "\n")
            out.flush()
            os.fsync(out.fileno())
        return cls(path)

    def record(self, kind: str, item: Any) -> None:
        if isinstance(item, Message):
            line = {"k": kind, "m": base64.b64encode(encode_message(item)).decode("ascii")}
        else:
            line = {"k": kind, "v": item}
        if self._file is None:
            self._file = open(self.path, "a", encoding="utf-8")  # noqa: SIM115
        self._file.write(json.dumps(line, sort_keys=True) + "\n")
        self._file.flush()

    def note(self, **fields: Any) -> None:
        """A line the Lockstep does not replay (e.g. the peer's address)."""
        self.record("note", fields)

    def close(self) -> None:
        if self._file is not None:
            with contextlib.suppress(OSError):
                self._file.close()
            self._file = None

    @staticmethod
    def read(path: Path) -> tuple[dict[str, Any], list[tuple[str, Any]], list[dict[str, Any]]]:
        """(header, lockstep records, notes) of a journal file; a torn last line (a crash
        while writing) is ignored; anything else malformed raises ValueError."""
        lines = path.read_text(encoding="utf-8").splitlines()
        if not lines:
            raise ValueError(f"{path}: empty journal")
        header = json.loads(lines[0])
        if not isinstance(header, dict) or header.get("format") != JOURNAL_FORMAT:
            raise ValueError(f"{path}: not a {JOURNAL_FORMAT} journal")
        records: list[tuple[str, Any]] = []
        notes: list[dict[str, Any]] = []
        for number, text in enumerate(lines[1:], start=2):
            try:
                line = json.loads(text)
            except json.JSONDecodeError:
                if number == len(lines):
                    break  # the process died while writing this line
                raise ValueError(f"{path}:{number}: unreadable line") from None
            kind = line.get("k")
            if kind == "note":
                notes.append(line.get("v", {}))
            elif "m" in line:
                records.append((kind, decode_message(base64.b64decode(line["m"]))))
            else:
                records.append((kind, line.get("v")))
        return header, records, notes


def _journal_says_finished(path: Path) -> bool:
    """True when the journal notes its game's end (read without replaying it)."""
    try:
        with open(path, encoding="utf-8") as lines:
            return any('"finished": true' in line for line in lines)
    except OSError:
        return False


# ---------------------------------------------------------------- links and games


@dataclass(eq=False)
class Link:
    """One open session with a peer and what we know about it."""

    session: SecureSession
    opened_at: float
    peer_pinned: bool | None = None
    we_confirmed: bool = False
    peer_confirmed: bool = False
    paired: bool = False
    lobby: Lobby | None = None
    resumed: bool = False  # the peer's Resume arrived (game messages may flow)
    peer_engine: str | None = None
    task: asyncio.Task[None] | None = None
    lost: bool = False  # reported as disconnected
    resume_sent: bool = False  # we asked to resume a game on this link
    listen_address: tuple[str, int] | None = None  # where the peer listens (its Hello)

    @property
    def peer_name(self) -> str:
        return self.session.peer_name

    @property
    def peer_key(self) -> bytes:
        return self.session.peer_key


@dataclass(eq=False)
class Game:
    """The game under way (or just finished) with one peer."""

    game_id: bytes
    peer_key: bytes
    peer_name: str
    lockstep: Lockstep
    journal: Journal
    start_title: str
    link: Link | None = None
    away_since: float | None = None
    grace_reported: bool = False
    redials: int = 0  # failed redials since the game started
    settled: bool = False  # over, and the peer confirmed it received all we sent
    addresses: list[tuple[str, int]] = field(default_factory=list)

    @property
    def finished(self) -> bool:
        return self.lockstep.result is not None or self.lockstep.stopped

    @property
    def stopped_for_good(self) -> bool:
        """Over, and the peer is known to hold all we sent: no need to reconnect."""
        return self.finished and self.settled

    @property
    def connected(self) -> bool:
        return self.link is not None and self.link.resumed


# ---------------------------------------------------------------- the peer


class Peer:
    """One running game on the network (see the module docstring)."""

    def __init__(self, config: PeerConfig,
                 on_event: Callable[[PeerEvent], None] | None = None) -> None:
        self.config = config
        self.name = config.name
        self.state_dir = config.state_dir
        self.identity: Identity = load_or_create_identity(config.state_dir)
        self.pins = PeerStore(config.state_dir)
        # without a callback, events wait in this queue for the caller to take them
        self.events: asyncio.Queue[PeerEvent] | None = \
            asyncio.Queue() if on_event is None else None
        self._on_event = on_event
        self.links: dict[bytes, Link] = {}
        self.game: Game | None = None
        self.finished_games: dict[bytes, Game] = {}
        self.discovery: Discovery | None = None
        self._server: SessionServer | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._addresses: dict[str, tuple[str, int]] = {}  # fingerprint -> listening address
        self._dial_now = asyncio.Event()

    # ------------------------------------------------------------ start and stop

    @property
    def fingerprint(self) -> str:
        return self.identity.fingerprint

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("the peer is not started")
        return self._server.port

    async def start(self) -> None:
        """Listen, advertise, browse, and read back an unfinished game from its journal."""
        self._restore_games()
        self._server = await serve(self.identity, self.name, self._accept,
                                   host=self.config.host, port=self.config.port,
                                   pins=self.pins, config=self.config.session,
                                   on_failure=self._on_refused_connection)
        if self.config.discovery:
            self.discovery = Discovery(self.name, self.fingerprint, PROTOCOL_VERSION,
                                       self.port, on_change=self._on_discovery,
                                       include_loopback=self.config.include_loopback,
                                       record_ttl=self.config.record_ttl,
                                       interface_addresses=self.config.discovery_interfaces())
            await self.discovery.start()
        self._tasks.append(asyncio.create_task(self._watch_game(), name="wec-peer-watch"))
        self._emit(Started(self.name, self.fingerprint, self.port))
        if self.game is not None:
            lockstep = self.game.lockstep
            self._emit(GameRestored(self.game.game_id.hex(), self.game.peer_name,
                                    lockstep.our_side, lockstep.state_hash,
                                    lockstep.intents_sent, lockstep.peer_intents_applied))
            self._begin_away()

    async def stop(self, reason: str = "the player left") -> None:
        """Say goodbye on every link, stop discovery and listening (the game stays in its
        journal, so a later start resumes it)."""
        for task in self._tasks:
            task.cancel()
        for link in list(self.links.values()):
            with contextlib.suppress(Exception):
                await link.session.close(reason)
            if link.task is not None:
                link.task.cancel()
        if self.discovery is not None:
            await self.discovery.stop()
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await self._server.wait_closed()
        for game in [self.game, *self.finished_games.values()]:
            if game is not None:
                game.journal.close()

    # ------------------------------------------------------------ events

    def _emit(self, event: PeerEvent) -> None:
        if event_kind(event) in ("refused", "error", "connection_refused") \
                and log.isEnabledFor(logging.WARNING):
            log.warning("%s", describe_event(event))
        if self.events is not None:
            self.events.put_nowait(event)
        if self._on_event is not None:
            try:
                self._on_event(event)
            except Exception:
                log.exception("the on_event callback failed")

    def _emit_lobby(self, link: Link, step: LobbyStep) -> None:
        for message in step.send:
            self._send(link, message)
        for event in step.events:
            self._emit(LobbyUpdate(link.peer_name, event))
            if isinstance(event, RulesAgreed):
                self._start_game(link, event.setup)

    def _emit_game(self, step: GameStep) -> None:
        game = self.game
        sent_at: float | None = None
        if game is not None and step.send and game.connected and game.link is not None:
            sent_at = time.monotonic()  # before the write: see GameUpdate.sent_at
            for message in step.send:
                self._send(game.link, message)
        for event in step.events:
            self._emit(GameUpdate(event, sent_at))
            if isinstance(event, GameOver) and game is not None:
                game.journal.note(finished=True)  # restarts skip old finished games
            if isinstance(event, SaveNow):
                self._write_save(event)
            elif isinstance(event, DesyncReportReady | Desynced):
                self._write_desync(event.report)

    def _send(self, link: Link, message: Message) -> None:
        try:
            link.session.send(message)
        except SessionClosed:
            pass  # the reader notices and reports the end of the link
        except (ValueError, NetError) as exc:
            log.error("not sent to %s: %s", link.peer_name, exc)
            self._emit(ErrorEvent(f"a {message.TAG} message could not be sent: {exc}"))

    # ------------------------------------------------------------ discovery and dialling

    def peers(self) -> list[PeerInfo]:
        """The other games seen on the network."""
        return self.discovery.peers() if self.discovery is not None else []

    def _on_discovery(self, change: PeerChange) -> None:
        peer = change.peer
        if change.kind == "removed":
            self._emit(PeerGone(peer))
            return
        self._addresses[peer.fingerprint] = (peer.addresses[0], peer.port)
        self._emit(PeerSeen(peer))
        game = self.game
        if game is not None and fingerprint(game.peer_key) == peer.fingerprint:
            self._dial_now.set()

    async def find(self, name: str, timeout: float) -> PeerInfo:
        """The peer named ``name`` on the network (TimeoutError after ``timeout`` s)."""
        if self.discovery is None:
            raise TimeoutError("discovery is off; give an address")
        return await self.discovery.wait_for_peer(lambda p: p.name == name, timeout)

    async def connect(self, host: str, port: int, expected_fingerprint: str | None = None
                      ) -> Link:
        """Dial ``host``:``port``; the link then pairs, resumes or enters the lobby on its
        own. Raises NetError (a refused key, an unreachable peer, a failed handshake)."""
        try:
            session = await connect(host, port, self.identity, self.name, pins=self.pins,
                                    config=self.config.session)
        except PeerKeyChanged as exc:
            self._emit(ConnectionRefused(str(exc), key_changed=True))
            raise
        if expected_fingerprint is not None and session.peer_fingerprint != \
                expected_fingerprint:
            await session.close("you are not the peer we meant to reach")
            reason = (f"{host} port {port} presented the key {session.peer_fingerprint}, "
                      f"not the advertised {expected_fingerprint}")
            self._emit(ConnectionRefused(reason))
            raise HandshakeError(reason)
        self._addresses[session.peer_fingerprint] = (host, port)
        return self._admit(session, dialled=True)

    async def connect_to(self, name: str, timeout: float = 10.0) -> Link:
        """Find ``name`` by discovery and dial it (checking the advertised fingerprint)."""
        peer = await self.find(name, timeout)
        return await self.connect(peer.addresses[0], peer.port, peer.fingerprint)

    async def _accept(self, session: SecureSession) -> None:
        self._admit(session, dialled=False)

    def _on_refused_connection(self, error: Exception, address: tuple[str, int] | None
                               ) -> None:
        self._emit(ConnectionRefused(f"from {address}: {error}",
                                     key_changed=isinstance(error, PeerKeyChanged)))

    def _admit(self, session: SecureSession, dialled: bool) -> Link:
        """A new session: keep it (replacing an older link to the same peer) or close it
        when it lost a dialling race."""
        now = time.monotonic()
        link = Link(session, now)
        older = self.links.get(session.peer_key)
        if older is not None:
            if now - older.opened_at < YOUNG_LINK and not self._keeps_new(older, link):
                asyncio.get_running_loop().create_task(
                    session.close("a connection between us already exists"))
                return older
            self._drop_link(older, "replaced by a newer connection")
        self.links[session.peer_key] = link
        self._emit(Connected(session.peer_name, session.peer_fingerprint, dialled))
        link.task = asyncio.get_running_loop().create_task(self._run_link(link),
                                                            name="wec-peer-link")
        return link

    def _keeps_new(self, older: Link, newer: Link) -> bool:
        """Both links are young (both sides dialled at once): keep the one dialled by the
        side with the smaller identity key. Both sides compare the same two keys, so both
        keep the same link and close the other."""
        def dialler(link: Link) -> bytes:
            return self.identity.public_key if link.session.initiator else link.peer_key
        return dialler(newer) < dialler(older)

    def _drop_link(self, link: Link, reason: str) -> None:
        if self.links.get(link.peer_key) is link:
            del self.links[link.peer_key]
        if link.task is not None and link.task is not asyncio.current_task():
            link.task.cancel()
        asyncio.get_running_loop().create_task(link.session.close(reason))
        self._link_lost(link, reason)

    def _link_lost(self, link: Link, reason: str) -> None:
        if link.lost:
            return
        link.lost = True
        game = self.game
        if game is not None and game.link is link:
            game.link = None
            self._begin_away()
        self._emit(Disconnected(link.peer_name, reason))

    def _begin_away(self) -> None:
        game = self.game
        if game is not None and game.away_since is None and not game.finished:
            game.away_since = time.monotonic()
            game.grace_reported = False
            self._dial_now.set()

    async def _watch_game(self) -> None:
        """Redial a lost game peer and report the end of the grace period (a failure in
        one round is reported and the watch goes on)."""
        last_attempt = 0.0
        while True:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.config.reconnect_interval):
                    await self._dial_now.wait()
            self._dial_now.clear()
            try:
                last_attempt = await self._watch_round(last_attempt)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.exception("watching the game link failed")
                self._emit(ErrorEvent(f"reconnecting failed: {exc!r}"))

    async def _watch_round(self, last_attempt: float) -> float:
        game = self.game
        self.game_delivered()  # notes when a finished game is settled
        if game is None or game.stopped_for_good:
            return last_attempt
        link = game.link
        if link is not None and (not link.session.is_open
                                 or self.links.get(link.peer_key) is not link):
            self._link_lost(link, link.session.close_reason or "the connection was lost")
        if game.link is not None:
            return last_attempt
        now = time.monotonic()
        if game.away_since is None:
            game.away_since = now
        away = now - game.away_since
        if away >= self.config.grace_period and not game.grace_reported \
                and not game.finished:
            game.grace_reported = True
            self._emit(GraceExpired(game.peer_name, round(away, 1)))
        first = self.identity.public_key < game.peer_key
        if not first and away < self.config.dial_delay:
            return last_attempt
        if now - last_attempt < self.config.reconnect_interval * 0.9:
            return last_attempt
        await self._redial(game)
        return now

    async def _redial(self, game: Game) -> None:
        candidates = []
        advertised = self._addresses.get(fingerprint(game.peer_key))
        if advertised is not None:
            candidates.append(advertised)
        candidates += [a for a in [*game.addresses, *self.config.addresses]
                       if a not in candidates]
        for host, port in candidates:
            if game.link is not None or game.peer_key in self.links:
                return
            try:
                async with asyncio.timeout(self.config.redial_timeout):
                    session = await connect(host, port, self.identity, self.name,
                                            expected_key=game.peer_key, pins=self.pins,
                                            config=self.config.session)
            except PeerKeyChanged as exc:
                self._emit(ConnectionRefused(str(exc), key_changed=True))
                continue
            except (NetError, OSError, TimeoutError) as exc:
                game.redials += 1
                if game.redials in (1, 2, 5) or game.redials % 20 == 0:
                    self._emit(Reconnecting(game.peer_name, f"{host}:{port}", game.redials,
                                            str(exc) or type(exc).__name__))
                continue
            # The peer may have dialled us meanwhile: _admit keeps exactly one of the
            # two links, the same one on both sides.
            self._admit(session, dialled=True)
            return

    # ------------------------------------------------------------ one link

    async def _run_link(self, link: Link) -> None:
        session = link.session
        status = session.pin_status
        port = self._server.port if self._server is not None else None
        self._send(link, Hello(PROTOCOL_VERSION, ENGINE_VERSION, self.name, port))
        self._send(link, PairingState(status is PinStatus.PINNED))
        reason = "closed"
        try:
            while True:
                try:
                    message = await session.receive()
                except SessionClosed as closed:
                    reason = closed.reason
                    break
                except ProtocolError as refused:
                    self._emit(ErrorEvent(f"{link.peer_name}: refused input: "
                                          f"{refused.reason}"))
                    continue
                try:
                    self._dispatch(link, message)
                except (LobbyError, LockstepError) as exc:
                    self._emit(ErrorEvent(exc.reason))
                except Exception as exc:  # a bug must not take the peer down
                    log.exception("handling %s from %s failed", message.TAG, link.peer_name)
                    self._emit(ErrorEvent(f"internal error on a {message.TAG} message: "
                                          f"{exc!r}"))
        except asyncio.CancelledError:
            raise
        finally:
            if self.links.get(link.peer_key) is link:
                del self.links[link.peer_key]
                self._link_lost(link, reason)
            elif self.game is not None and self.game.link is link:
                self._link_lost(link, reason)  # replaced, but still the game's link

    def _dispatch(self, link: Link, message: Message) -> None:
        if isinstance(message, Hello):
            # Another release is fine: what must match (the rules version) is checked
            # by the lobby's rules hash, which names both versions when they differ.
            link.peer_engine = message.engine_version
            self._learn_address(link, message.port)
            return
        if isinstance(message, PairingState | PairingResult):
            self._on_pairing_message(link, message)
            return
        if not link.paired:
            self._send(link, Rejection(message.TAG[:32], "pair first: the pairing is not "
                                                         "complete"))
            return
        if isinstance(message, Resume):
            self._on_resume(link, message)
        elif isinstance(message, GameClosed):
            self._on_game_closed(link, message)
        elif self.game is not None and self.game.link is link and (
                isinstance(message, (*LOCKSTEP_MESSAGES, Rejection))):
            self._emit_game(self.game.lockstep.receive(message))
        elif isinstance(message, LOBBY_MESSAGES):
            lobby = self._lobby_for(link)
            self._emit_lobby(link, lobby.receive(message))
        else:
            self._send(link, Rejection(message.TAG[:32], "no game is under way between us"))

    def _learn_address(self, link: Link, port: int | None) -> None:
        """A peer that dialled us announced its listening port: with the connection's
        address that is where we dial it again after a drop (issue 8 item 6: the side
        that accepted the connection reconnects too). Links we dialled are skipped: we
        know that address already, and the connection's may be a proxy's."""
        remote = link.session.remote_address
        if port is None or remote is None or link.session.initiator:
            return
        link.listen_address = (remote[0], port)
        self._note_game_address(link.peer_key, link.listen_address)

    def _note_game_address(self, peer_key: bytes, address: tuple[str, int]) -> None:
        game = self.game
        if game is not None and game.peer_key == peer_key and address not in game.addresses:
            game.addresses.append(address)
            game.journal.note(address=list(address))

    # ------------------------------------------------------------ pairing

    def _on_pairing_message(self, link: Link, message: PairingState | PairingResult) -> None:
        if isinstance(message, PairingState):
            if link.peer_pinned is not None:
                self._send(link, Rejection(message.TAG, "the pairing state was already sent"))
                return
            link.peer_pinned = message.pinned
            we_pinned = link.session.pin_status is PinStatus.PINNED
            if we_pinned and message.pinned:
                self._paired(link, newly=False)
                return
            self._emit(PairingCode(link.peer_name, format_sas(link.session.sas),
                                   link.session.peer_fingerprint))
            if self.config.auto_confirm:
                self.confirm_pairing(link.peer_name, True)
            return
        if link.peer_pinned is None or link.paired or link.peer_confirmed:
            self._send(link, Rejection(message.TAG, "no pairing confirmation was expected"))
            return
        if not message.confirmed:
            reason = "the other player did not confirm the pairing code"
            self._emit(PairingFailed(link.peer_name, reason))
            self._drop_link(link, reason)
            return
        link.peer_confirmed = True
        self._check_paired(link)

    def confirm_pairing(self, peer: str | None = None, accept: bool = True) -> None:
        """The player compared the code: both screens show the same (``accept``) or not."""
        link = self._link(peer)
        if link.paired or link.we_confirmed or link.peer_pinned is None:
            raise LobbyError("there is no pairing code to confirm")
        self._send(link, PairingResult(accept))
        if not accept:
            reason = "you did not confirm the pairing code"
            self._emit(PairingFailed(link.peer_name, reason))
            self._drop_link(link, reason)
            return
        link.we_confirmed = True
        self._check_paired(link)

    def _check_paired(self, link: Link) -> None:
        if not (link.we_confirmed and link.peer_confirmed):
            return
        try:
            self.pins.pin(link.peer_name, link.peer_key)
        except (PeerKeyChanged, ValueError) as exc:
            self._emit(PairingFailed(link.peer_name, str(exc)))
            self._drop_link(link, "the key could not be pinned")
            return
        self._paired(link, newly=True)

    def _paired(self, link: Link, newly: bool) -> None:
        link.paired = True
        self._emit(Paired(link.peer_name, newly))
        game = self.game
        if game is not None and game.peer_key == link.peer_key:
            if game.link is not None and game.link is not link:
                self._drop_link(game.link, "replaced by a newer connection")
            game.link = link
            link.resumed = False
            link.resume_sent = True
            self._send(link, Resume(game.game_id, game.lockstep.peer_processed))
            return
        link.lobby = None
        self._emit_lobby(link, self._lobby_for(link).opening_notice())

    # ------------------------------------------------------------ resume

    def _on_resume(self, link: Link, message: Resume) -> None:
        game = self._game_by_id(message.link)
        if game is None or game.peer_key != link.peer_key:
            self._send(link, GameClosed(message.link, "none",
                                        "this machine has no such game (it may have been "
                                        "set up again)"))
            return
        lockstep = game.lockstep
        if lockstep.result is not None and lockstep.result.how == "forfeit":
            winner = lockstep.result.winner
            self._send(link, GameClosed(game.game_id, winner.value if winner else "none",
                                        lockstep.result.reason[:200]))
            return
        if game is not self.game:  # a finished game: just show the peer how it ended
            for old in lockstep.resend_from(min(message.received, len(lockstep.log))):
                self._send(link, old)
            return
        try:
            resend = lockstep.resend_from(message.received)
        except LockstepError as exc:
            self._emit(ErrorEvent(f"cannot resume: {exc.reason}"))
            self._drop_link(link, exc.reason)
            return
        game.link = link
        link.resumed = True
        game.away_since = None
        for old in resend:
            self._send(link, old)
        self._emit(Resumed(game.game_id.hex(), len(resend), message.received,
                           lockstep.state_hash))

    def _on_game_closed(self, link: Link, message: GameClosed) -> None:
        game = self._game_by_id(message.link)
        if game is None or game.peer_key != link.peer_key:
            return
        if not link.resume_sent:
            # only an answer to our Resume on this link (a game the peer closed while we
            # were away) may close a game; in the middle of play it is refused
            self._send(link, Rejection(message.TAG, "a game is closed only in answer to "
                                                    "a resume"))
            return
        lockstep = game.lockstep
        if (game is self.game and message.winner == "none" and lockstep.result is None
                and not lockstep.log and lockstep.peer_processed == 0):
            # The link broke while the game was starting: the peer never started it and
            # nothing was played. Forget it and set the game up again.
            game.journal.close()
            with contextlib.suppress(OSError):
                game.journal.path.replace(game.journal.path.with_suffix(".abandoned"))
            self.game = None
            link.lobby = None
            self._emit(GameAbandoned(game.game_id.hex(), message.reason))
            self._emit_lobby(link, self._lobby_for(link).opening_notice())
            return
        self._emit_game(lockstep.close_by_peer(message))
        if game is self.game:
            game.link = link
            link.resumed = True
            game.away_since = None

    def _game_by_id(self, game_id: bytes) -> Game | None:
        if self.game is not None and self.game.game_id == game_id:
            return self.game
        return self.finished_games.get(game_id)

    # ------------------------------------------------------------ lobby commands

    def _link(self, peer: str | None) -> Link:
        """The link to ``peer`` (by name), or the only link when ``peer`` is None."""
        links = list(self.links.values())
        if peer is not None:
            links = [link for link in links if link.peer_name == peer]
        if len(links) != 1:
            raise LobbyError(f"no connected peer named {peer!r}" if peer is not None
                             else "connect to one peer first" if not links
                             else "several peers are connected: name one")
        return links[0]

    def _paired_link(self, peer: str | None) -> Link:
        link = self._link(peer)
        if not link.paired:
            raise LobbyError(f"{link.peer_name} is not paired yet: compare the code first")
        return link

    def _lobby_for(self, link: Link) -> Lobby:
        lobby = link.lobby
        if lobby is None or (lobby.phase is Phase.STARTED and (
                self.game is None or self.game.finished or self.game.link is not link)):
            self._archive_finished_game()
            peer_key = link.peer_key

            def find_save(digest: bytes) -> SavedGame | None:
                return self._find_save(digest, peer_key)

            lobby = Lobby(self.identity.public_key, link.peer_key,
                          initiator=link.session.initiator, find_save=find_save)
            link.lobby = lobby
        return lobby

    def lobby(self, peer: str | None = None) -> Lobby:
        """The lobby with ``peer`` (read its phase, options, colours)."""
        return self._lobby_for(self._paired_link(peer))

    def _lobby_command(self, peer: str | None,
                       command: Callable[[Lobby], LobbyStep]) -> None:
        link = self._paired_link(peer)
        if self.game is not None and not self.game.finished:
            raise LobbyError("a game is under way")
        self._emit_lobby(link, command(self._lobby_for(link)))

    def invite(self, peer: str | None = None, resume_file: str | None = None) -> None:
        """Invite ``peer`` to a new game, or to resume our save ``resume_file``."""
        digest = None
        if resume_file is not None:
            digest = hashlib.sha256(self._save_path(resume_file).read_bytes()).digest()
        self._lobby_command(peer, lambda lobby: lobby.invite(digest))

    def accept(self, peer: str | None = None) -> None:
        self._lobby_command(peer, Lobby.accept)

    def decline(self, peer: str | None = None, reason: str = "") -> None:
        self._lobby_command(peer, lambda lobby: lobby.decline(reason))

    def choose_colour(self, colour: str, peer: str | None = None) -> None:
        self._lobby_command(peer, lambda lobby: lobby.choose_colour(colour))

    def propose_options(self, options: Options, peer: str | None = None) -> None:
        self._lobby_command(peer, lambda lobby: lobby.propose_options(options))

    def propose_start(self, board: StartBoard, peer: str | None = None) -> None:
        self._lobby_command(peer, lambda lobby: lobby.propose_start(board))

    def approve(self, peer: str | None = None) -> None:
        self._lobby_command(peer, Lobby.approve)

    def reject(self, peer: str | None = None, reason: str = "") -> None:
        self._lobby_command(peer, lambda lobby: lobby.reject(reason))

    def choose_government(self, government: Government, peer: str | None = None) -> None:
        self._lobby_command(peer, lambda lobby: lobby.choose_government(government))

    def set_view_setting(self, name: str, value: object, peer: str | None = None) -> None:
        """R14.5: a display-only setting; allowed at any time, also during a game."""
        link = self._paired_link(peer)
        lobby = link.lobby if link.lobby is not None else self._lobby_for(link)
        self._emit_lobby(link, lobby.set_view_setting(name, value))

    def end_setup(self, peer: str | None = None) -> None:
        self._lobby_command(peer, Lobby.end_setup)

    # ------------------------------------------------------------ the game

    def _start_game(self, link: Link, setup: GameSetup) -> None:
        game_id = hashlib.sha256(setup.rules_hash + link.session.session_id).digest()
        self._archive_finished_game()
        header = {"game": game_id.hex(), "peer_name": link.peer_name,
                  "peer_key": base64.b64encode(link.peer_key).decode("ascii"),
                  "our_side": setup.our_side.value, "start_title": setup.start_title,
                  "rules_hash": setup.rules_hash.hex(),
                  "start": base64.b64encode(encode_save(setup.match)).decode("ascii")}
        journal = Journal.create(self._games_dir() / f"{game_id.hex()}.jsonl", header)
        lockstep = Lockstep(game_id, setup.match, setup.our_side, record=journal.record)
        game = Game(game_id, link.peer_key, link.peer_name, lockstep, journal,
                    setup.start_title, link=link)
        link.resumed = True
        self.game = game
        for address in (self._addresses.get(link.session.peer_fingerprint),
                        link.listen_address):
            if address is not None:
                self._note_game_address(link.peer_key, address)
        self._emit(GameStarted(game_id.hex(), link.peer_name, setup.our_side, setup.options,
                               setup.start_title, setup.match.current_hash,
                               setup.resume_game is not None))

    def _archive_finished_game(self) -> None:
        game = self.game
        if game is not None and game.finished:
            self.finished_games[game.game_id] = game
            self.game = None

    def _game(self) -> Game:
        if self.game is None:
            raise LockstepError("no game is under way")
        return self.game

    def _game_command(self, command: Callable[[Lockstep], GameStep]) -> None:
        game = self._game()
        self._emit_game(command(game.lockstep))

    def play(self, intent: Intent) -> None:
        """Play one of our intents (IllegalIntent names the rule; nothing is sent)."""
        self._game_command(lambda lockstep: lockstep.play(intent))

    def resign(self) -> None:
        self._game_command(Lockstep.resign)

    def request_takeback(self, turn: int | None = None) -> None:
        self._game_command(lambda lockstep: lockstep.request_takeback(turn))

    def answer_takeback(self, accept: bool) -> None:
        self._game_command(lambda lockstep: lockstep.answer_takeback(accept))

    def chat(self, text: str, peer: str | None = None) -> None:
        """Say one line: in the game with its peer (journalled and resent after a drop,
        like every game message), otherwise in the lobby with ``peer``."""
        game = self.game
        if game is not None and (peer is None or peer == game.peer_name):
            self._game_command(lambda lockstep: lockstep.chat(text))
            return
        link = self._paired_link(peer)
        self._emit_lobby(link, self._lobby_for(link).chat(text))

    def save(self, file_name: str) -> None:
        """Ask both machines to save the game as ``file_name`` (each writes its own)."""
        self._game_command(lambda lockstep: lockstep.save(file_name))

    def claim_win(self) -> None:
        """After the grace period: end the game as won by us."""
        game = self._game()
        if game.connected:
            raise LockstepError(f"{game.peer_name} is connected: there is nothing to claim")
        away = time.monotonic() - (game.away_since or time.monotonic())
        if away < self.config.grace_period:
            raise LockstepError(f"{game.peer_name} has been away for {away:.0f} s; a win "
                                f"can be claimed after {self.config.grace_period:g} s")
        reason = (f"{game.lockstep.peer_side.title} ({game.peer_name}) was gone for more "
                  f"than {self.config.grace_period:g} s; {game.lockstep.our_side.title} "
                  "claimed the win")
        self._emit_game(game.lockstep.claim_win(reason))

    def keep_waiting(self) -> None:
        """After the grace period: wait another grace period before asking again."""
        game = self._game()
        game.away_since = time.monotonic()
        game.grace_reported = False

    # ------------------------------------------------------------ files

    def _games_dir(self) -> Path:
        return self.state_dir / "games"

    def _saves_dir(self) -> Path:
        return self.state_dir / "saves"

    def _save_path(self, file_name: str) -> Path:
        if "/" in file_name or "\\" in file_name or file_name.startswith("."):
            raise LobbyError(f"{file_name!r} is not a bare file name")
        return self._saves_dir() / file_name

    def _write_save(self, event: SaveNow) -> None:
        game = self.game
        if game is None:
            return
        path = self._save_path(event.file_name)
        data = encode_save(event.match)
        from wec.storage.saves import write_save  # the atomic writer of the game's saves

        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_save(path, event.match)
            info = {"format": SAVE_INFO_FORMAT, "peer_name": game.peer_name,
                    "peer_key": base64.b64encode(game.peer_key).decode("ascii"),
                    "our_side": game.lockstep.our_side.value,
                    "sha256": hashlib.sha256(data).hexdigest()}
            path.with_name(path.name + ".json").write_text(json.dumps(info, indent=1) + "\n",
                                                            encoding="utf-8")
        except (OSError, SaveError) as exc:
            self._emit(ErrorEvent(f"the save {event.file_name!r} was not written: {exc}"))
            return
        self._emit(Saved(event.file_name, str(path), hashlib.sha256(data).hexdigest(),
                         event.asked_by_us))

    def saved_games(self, peer_key: bytes | None = None) -> Iterator[tuple[Path, dict[str, Any]]]:
        """Our saves (and their info), optionally only those played against ``peer_key``."""
        folder = self._saves_dir()
        if not folder.is_dir():
            return
        for info_path in sorted(folder.glob("*.json")):
            try:
                info = json.loads(info_path.read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError):
                continue
            if not isinstance(info, dict) or info.get("format") != SAVE_INFO_FORMAT:
                continue
            if peer_key is not None and info.get("peer_key") != \
                    base64.b64encode(peer_key).decode("ascii"):
                continue
            yield info_path.with_name(info_path.name[:-len(".json")]), info

    def _find_save(self, digest: bytes, peer_key: bytes) -> SavedGame | None:
        for path, info in self.saved_games(peer_key):
            if info.get("sha256") != digest.hex():
                continue
            try:
                data = path.read_bytes()
                if hashlib.sha256(data).digest() != digest:
                    continue
                return SavedGame(decode_save(data), Side(info["our_side"]))
            except (OSError, WecError, ValueError, KeyError) as exc:
                self._emit(ErrorEvent(f"the save {path.name} cannot be resumed: {exc}"))
        return None

    def _write_desync(self, report: DesyncReport) -> None:
        try:
            path = write_report(self.state_dir / "desync", report)
        except OSError as exc:
            self._emit(ErrorEvent(f"the desync report was not written: {exc}"))
            return
        self._emit(DesyncWritten(str(path)))

    def _restore_games(self) -> None:
        """Read back the games in the journal folder: the newest unfinished one becomes
        the game under way, finished ones answer a late Resume."""
        folder = self._games_dir()
        if not folder.is_dir():
            return
        journals = sorted(folder.glob("*.jsonl"), key=lambda p: p.stat().st_mtime)
        recent = set(journals[-KEPT_FINISHED_GAMES:])
        for path in journals:
            try:
                if path not in recent and _journal_says_finished(path):
                    continue  # long over: not read again
                game = self._restore_game(path)
            except (OSError, ValueError, KeyError, WecError, NetError) as exc:
                log.error("journal %s cannot be read: %s", path, exc)
                self._emit(ErrorEvent(f"the game journal {path.name} cannot be read: {exc}"))
                continue
            if game.finished:
                self.finished_games[game.game_id] = game
            else:
                if self.game is not None:
                    self.finished_games[self.game.game_id] = self.game
                self.game = game

    def _restore_game(self, path: Path) -> Game:
        header, records, notes = Journal.read(path)
        game_id = bytes.fromhex(header["game"])
        match = decode_save(base64.b64decode(header["start"]))
        journal = Journal(path)
        lockstep = Lockstep.restore(game_id, match, Side(header["our_side"]), records,
                                    record=journal.record)
        game = Game(game_id, base64.b64decode(header["peer_key"]), header["peer_name"],
                    lockstep, journal, header.get("start_title", ""))
        for note in notes:
            address = note.get("address")
            if isinstance(address, list) and len(address) == 2:
                game.addresses.append((str(address[0]), int(address[1])))
        return game

    def game_delivered(self) -> bool:
        """True when the peer has received everything we sent in the game (its
        heartbeats say so on a resumed link): a program may end without leaving the
        peer short of our last intents."""
        game = self.game
        if game is None:
            return True
        link = game.link
        if link is None or not link.resumed or not link.session.is_open:
            return False
        session = link.session
        delivered = session.peer_received >= session.counters.messages_sent
        if delivered and game.finished:
            game.settled = True
        return delivered

    def remember_address(self, host: str, port: int) -> None:
        """Note where the game's peer listens (``wec peer --address``), for redialling."""
        game = self.game
        if game is not None and (host, port) not in game.addresses:
            game.addresses.append((host, port))
            game.journal.note(address=[host, port])


__all__ = [
    "Connected",
    "ConnectionRefused",
    "DesyncWritten",
    "Disconnected",
    "ErrorEvent",
    "Game",
    "GameAbandoned",
    "GameRestored",
    "GameStarted",
    "GameUpdate",
    "GraceExpired",
    "Journal",
    "Link",
    "LobbyUpdate",
    "Paired",
    "PairingCode",
    "PairingFailed",
    "Peer",
    "PeerConfig",
    "PeerEvent",
    "PeerGone",
    "PeerSeen",
    "Reconnecting",
    "Resumed",
    "Saved",
    "Started",
    "describe_event",
    "event_kind",
]
