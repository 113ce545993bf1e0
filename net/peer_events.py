"""What a running Peer reports (net.peer): one :class:`PeerEvent` subclass per kind of
news for the player (or a test), and :func:`describe_event`, the JSON-ready form the
headless ``wec peer`` prints and the tests compare.

Lobby and game events travel wrapped (:class:`LobbyUpdate`, :class:`GameUpdate`) and
keep their own kind (net.lobby, net.lockstep).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import Enum
from typing import Any, ClassVar

from wec.engine.event_format import event_to_dict
from wec.engine.formats import intent_to_dict
from wec.engine.intents import Intent
from wec.engine.match import Match
from wec.engine.options import Options, options_to_dict
from wec.engine.pieces import Side
from wec.net.desync import DesyncReport
from wec.net.discovery import PeerInfo
from wec.net.lobby import GameSetup
from wec.net.lockstep import GameResult
from wec.net.steps import GameEvent, LobbyEvent


@dataclass(frozen=True)
class PeerEvent:
    """Something for the player (or a test) to see; ``kind`` names it."""

    kind: ClassVar[str] = "event"


@dataclass(frozen=True)
class Started(PeerEvent):
    """We listen on ``port`` (and advertise, when discovery is on)."""

    kind: ClassVar[str] = "started"
    name: str
    fingerprint: str
    port: int


@dataclass(frozen=True)
class PeerSeen(PeerEvent):
    """Discovery sees another game on the network (or sees it changed)."""

    kind: ClassVar[str] = "peer_seen"
    peer: PeerInfo


@dataclass(frozen=True)
class PeerGone(PeerEvent):
    """A game discovery saw left the network."""

    kind: ClassVar[str] = "peer_gone"
    peer: PeerInfo


@dataclass(frozen=True)
class Connected(PeerEvent):
    """A link to ``peer`` is open (``dialled``: we dialled it); pairing follows."""

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
    known_as: str | None = None  # the name this key was pinned under, if it changed


@dataclass(frozen=True)
class Paired(PeerEvent):
    """The link to ``peer`` is paired (``newly``: its key was pinned just now;
    ``known_as``: the name the key was pinned under, when the peer renamed itself)."""

    kind: ClassVar[str] = "paired"
    peer: str
    newly: bool
    known_as: str | None = None


@dataclass(frozen=True)
class PairingFailed(PeerEvent):
    """The pairing with ``peer`` failed (the link is closed)."""

    kind: ClassVar[str] = "pairing_failed"
    peer: str
    reason: str


@dataclass(frozen=True)
class Disconnected(PeerEvent):
    """The link to ``peer`` ended."""

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
    """Both lobbies agreed: the game with ``peer`` starts (``resumed_save``: from a save)."""

    kind: ClassVar[str] = "game_started"
    game_id: str
    peer: str
    our_side: Side
    options: Options
    start_title: str
    state_hash: str
    resumed_save: bool
    move_time: int = 0  # the agreed time limit per move, seconds (0: none)


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
class PeerIdle(PeerEvent):
    """The connected peer owes us something past its limit (``claim``: move_time, its
    turn beyond the agreed time per move; idle, beyond the idle limit; answer, to our
    takeback request; protocol, the next message of a fog-of-war game's exchange) for
    ``seconds``: the win may be claimed (Peer.claim_win)."""

    kind: ClassVar[str] = "peer_idle"
    peer: str
    claim: str
    seconds: float
    limit: float


@dataclass(frozen=True)
class Saved(PeerEvent):
    """The save both players asked for was written to ``path``."""

    kind: ClassVar[str] = "saved"
    file_name: str
    path: str
    digest: str
    asked_by_us: bool


@dataclass(frozen=True)
class DesyncWritten(PeerEvent):
    """The report of a desync was written to ``path``."""

    kind: ClassVar[str] = "desync_report_written"
    path: str


@dataclass(frozen=True)
class AuditWritten(PeerEvent):
    """The report of an inconsistency found by the end-of-game audit of a fog-of-war
    game (issue 21) was written to ``path``."""

    kind: ClassVar[str] = "audit_report_written"
    path: str
    summary: str


@dataclass(frozen=True)
class ErrorEvent(PeerEvent):
    """Something failed that the player should know about; the Peer goes on."""

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
                "start_title": value.start_title, "state_hash": value.state_hash,
                "fog": value.fog}
    if isinstance(value, GameResult):
        return {"winner": value.winner.value if value.winner else None,
                "reason": value.reason, "how": value.how}
    if isinstance(value, DesyncReport):
        return {"turn": value.turn, "our_hash": value.our_hash,
                "their_hash": value.their_hash, "differences": value.differences[:20]}
    if isinstance(value, PeerInfo):
        return dataclasses.asdict(value)
    if isinstance(value, Intent):
        return intent_to_dict(value)
    if type(value).__module__ == "wec.engine.events":  # a resolved event (fog of war)
        try:
            return event_to_dict(value)
        except (TypeError, AttributeError, KeyError, ValueError):
            return repr(value)
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


__all__ = [
    "AuditWritten",
    "Connected",
    "ConnectionRefused",
    "DesyncWritten",
    "Disconnected",
    "ErrorEvent",
    "GameAbandoned",
    "GameRestored",
    "GameStarted",
    "GameUpdate",
    "GraceExpired",
    "LobbyUpdate",
    "Paired",
    "PairingCode",
    "PairingFailed",
    "PeerEvent",
    "PeerGone",
    "PeerIdle",
    "PeerSeen",
    "Reconnecting",
    "Resumed",
    "Saved",
    "Started",
    "describe_event",
    "event_kind",
]
