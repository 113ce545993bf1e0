"""What every part of a running Peer shares (net.peer).

A :class:`Link` is one open session with a peer; a :class:`Game` is the game under way
with one peer (or a finished one, kept to answer a late Resume). :class:`PeerState` holds
who we are, the links, the games, where each peer listens and where events go. Each part
of the Peer (net.peer_links, net.redial, net.game_host, net.peer_lobby, ...) works on the
one PeerState, so no part needs another just to read the game or report an event.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from wec.net.errors import NetError, SessionClosed
from wec.net.game_clock import GameClock
from wec.net.game_journal import Journal
from wec.net.identity import Identity, load_or_create_identity
from wec.net.identity import fingerprint as fingerprint_of
from wec.net.limits import RateLimit
from wec.net.lobby import Lobby
from wec.net.lockstep import Lockstep
from wec.net.messages import Message, Rejection
from wec.net.pairing import PeerStore
from wec.net.peer_config import PeerConfig
from wec.net.peer_events import ErrorEvent, PeerEvent, describe_event, event_kind
from wec.net.session import SecureSession

log = logging.getLogger("wec.net.peer")

MAX_GAME_ADDRESSES = 8  # where a game's peer may listen: the newest kept
MAX_ADDRESS_NOTES = 32  # of them noted in a game's journal (each link notes one at most)
MAX_LISTEN_ADDRESSES = 256  # peers whose listening address we remember (the newest)


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
    # We sent Resume on this link and the peer has not yet shown how the game stands on
    # its side (its own Resume, or a GameClosed): only then may it close the game.
    resume_open: bool = False
    peer_resumed: bool = False  # the peer's Resume was taken (one per link)
    closed_sent: bool = False  # we told the peer the game is closed here
    listen_address: tuple[str, int] | None = None  # where the peer listens (its Hello)
    hello_seen: bool = False  # the peer's Hello arrived (one per link)
    refusals: int = 0  # the peer's messages we refused on this link
    chat_limit: RateLimit | None = None  # lobby chat lines (made at the first)

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
    link_lost_at: float | None = None  # when its last link dropped (None: none yet here)
    grace_reported: bool = False
    redials: int = 0  # failed redials since the game started
    settled: bool = False  # over, and the peer confirmed it received all we sent
    addresses: list[tuple[str, int]] = field(default_factory=list)  # newest last
    address_notes: int = 0  # addresses noted in the journal
    chat_limit: RateLimit | None = None  # the peer's game chat lines (made at the first)
    peer_chat: int = 0  # the peer's chat lines accepted in this game
    save_limit: RateLimit | None = None  # the peer's save notices (made at the first)
    clock: GameClock | None = None  # since when each side owes the other (net.game_clock)
    idle_reported: set[tuple[object, ...]] = field(default_factory=set)  # PeerIdle said
    peer_saves: int = 0  # saves written because the peer asked
    # fog of war (issue 21): since when the audit waits for the peer's reveal
    reveal_wait_since: float | None = None

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


class PeerState:
    """Who we are, the open links (one per peer, by its key), the game under way and the
    finished ones, the peers' listening addresses, and the way out for events."""

    def __init__(self, config: PeerConfig,
                 on_event: Callable[[PeerEvent], None] | None) -> None:
        self.config = config
        self.name = config.name
        self.identity: Identity = load_or_create_identity(config.state_dir)
        self.pins = PeerStore(config.state_dir)
        # without a callback, events wait in this queue for the caller to take them
        self.events: asyncio.Queue[PeerEvent] | None = \
            asyncio.Queue() if on_event is None else None
        self._on_event = on_event
        self.links: dict[bytes, Link] = {}
        self.game: Game | None = None
        self.finished_games: dict[bytes, Game] = {}
        self.addresses: dict[str, tuple[str, int]] = {}  # fingerprint -> listening address
        self.dial_now = asyncio.Event()  # set: redial the game's peer now (net.redial)

    def emit(self, event: PeerEvent) -> None:
        """Hand ``event`` to the queue or the callback (refusals and errors are logged
        too); a failing callback is logged, never raised into the network code."""
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

    def send(self, link: Link, message: Message) -> None:
        """Send ``message`` on ``link``; a closed link is left to its reader to report. A
        Rejection counts as one refusal of the peer's input on this link (net.peer
        closes a link past ``PeerConfig.max_refusals``)."""
        if isinstance(message, Rejection):
            link.refusals += 1
        try:
            link.session.send(message)
        except SessionClosed:
            pass  # the reader notices and reports the end of the link
        except (ValueError, NetError) as exc:
            log.error("not sent to %s: %s", link.peer_name, exc)
            self.emit(ErrorEvent(f"a {message.TAG} message could not be sent: {exc}"))

    def remember_listen_address(self, fingerprint: str, address: tuple[str, int]) -> None:
        """Where the peer with ``fingerprint`` listens (discovery, or an address we
        dialled); the newest few hundred are kept."""
        self.addresses.pop(fingerprint, None)
        self.addresses[fingerprint] = address
        while len(self.addresses) > MAX_LISTEN_ADDRESSES:
            self.addresses.pop(next(iter(self.addresses)))

    def forget_listen_address(self, fingerprint: str) -> None:
        """The peer left the network: forget where it listened, unless it is the game's
        peer (its address is still the best one to redial)."""
        game = self.game
        if game is not None and fingerprint == fingerprint_of(game.peer_key):
            return
        self.addresses.pop(fingerprint, None)

    def game_by_id(self, game_id: bytes) -> Game | None:
        """The game under way or a finished one with this id."""
        if self.game is not None and self.game.game_id == game_id:
            return self.game
        return self.finished_games.get(game_id)

    def note_game_address(self, peer_key: bytes, address: tuple[str, int]) -> None:
        """Remember (in the journal too) that the game's peer listens at ``address``.
        Bounded (issue 20: a peer announcing a new port on every link must not grow
        the list or the journal without end): the newest few addresses are kept, and
        only the first few are noted in the journal."""
        game = self.game
        if game is None or game.peer_key != peer_key or address in game.addresses:
            return
        game.addresses.append(address)
        del game.addresses[:-MAX_GAME_ADDRESSES]
        if game.address_notes < MAX_ADDRESS_NOTES:
            game.address_notes += 1
            game.journal.note(address=list(address))


__all__ = ["MAX_ADDRESS_NOTES", "MAX_GAME_ADDRESSES", "MAX_LISTEN_ADDRESSES", "Game", "Link",
           "PeerState"]
