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

Saving: :meth:`Peer.save` saves the game on both machines (net.lockstep); each writes
``<state dir>/saves/<name>.wecsave`` from its own match under a name it chooses itself
(never over another file), with ``<name>.wecsave.json`` beside it naming the peer and
our side. :meth:`Peer.invite` with ``resume_file`` resumes such a
save over the network: both machines must hold a save with the same SHA-256.

Every event is a :class:`PeerEvent` passed to ``on_event`` (on the loop; it must not
block), or, without that callback, put in :attr:`Peer.events` (an asyncio.Queue);
:func:`describe_event` turns one into a JSON-ready dict.

The parts, one concern each, all working on one :class:`~net.peer_state.PeerState`:

- net.peer_config: :class:`PeerConfig`; net.peer_events: the events, :func:`describe_event`
- net.peer_links: listening, dialling, one link per peer, each link's reader
- net.redial: redialling the game's peer, the grace period's end
- net.peer_discovery: advertising, browsing, finding a peer by name
- net.pairing_exchange: the pairing code and pinning
- net.peer_lobby: the lobby of each link and the player's lobby commands
- net.game_host: starting the game, the player's game commands, the Lockstep's steps
- net.game_resume: Resume and GameClosed on a new link
- net.game_files and net.game_journal: journals, saves, desync reports

:class:`Peer` composes them, routes each message read from a link to the part it
concerns, and keeps the API its callers use; the names above stay importable from here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from wec.engine.intents import Intent
from wec.engine.options import Options
from wec.engine.pieces import Government
from wec.net.discovery import Discovery, PeerInfo
from wec.net.errors import NetError
from wec.net.game_files import GameFiles
from wec.net.game_host import GameHost
from wec.net.game_journal import Journal
from wec.net.game_resume import GameResume
from wec.net.lobby import LOBBY_MESSAGES, Lobby, StartBoard
from wec.net.lockstep import LOCKSTEP_MESSAGES
from wec.net.messages import (
    GameClosed,
    Hello,
    Message,
    PairingResult,
    PairingState,
    Rejection,
    Resume,
)
from wec.net.pairing_exchange import PairingExchange
from wec.net.peer_config import PeerConfig, interface_address_problem
from wec.net.peer_discovery import PeerFinder
from wec.net.peer_events import (
    Connected,
    ConnectionRefused,
    DesyncWritten,
    Disconnected,
    ErrorEvent,
    GameAbandoned,
    GameRestored,
    GameStarted,
    GameUpdate,
    GraceExpired,
    LobbyUpdate,
    Paired,
    PairingCode,
    PairingFailed,
    PeerEvent,
    PeerGone,
    PeerIdle,
    PeerSeen,
    Reconnecting,
    Resumed,
    Saved,
    Started,
    describe_event,
    event_kind,
)
from wec.net.peer_links import Links
from wec.net.peer_lobby import LobbyHost
from wec.net.peer_state import Game, Link, PeerState
from wec.net.redial import Redialler
from wec.net.session import SecureSession


class Peer:
    """One running game on the network (see the module docstring): composes the parts
    and passes each command to the one that owns it."""

    def __init__(self, config: PeerConfig,
                 on_event: Callable[[PeerEvent], None] | None = None) -> None:
        state = PeerState(config, on_event)
        self._state = state
        self.config = config
        self.name = config.name
        self.state_dir = config.state_dir
        self.identity = state.identity
        self.pins = state.pins
        self.events = state.events  # without on_event, events wait here for the caller
        self._files = GameFiles(state)
        self._games = GameHost(state, self._files)
        self._links = Links(state, self._games, self._dispatch)
        self._lobbies = LobbyHost(state, self._links, self._games, self._files)
        self._pairing = PairingExchange(state, self._links, self._lobbies)
        self._resume = GameResume(state, self._links, self._games, self._lobbies)
        self._redial = Redialler(state, self._links, self._games)
        self._finder = PeerFinder(state)

    # ------------------------------------------------------------ what it holds

    @property
    def links(self) -> dict[bytes, Link]:
        """The open links, by the peer's identity key."""
        return self._state.links

    @property
    def loop_pauses(self) -> list[tuple[float, float]]:
        """Where the game's work paused (net.game_host ``LoopPauses``): (start by
        ``time.monotonic()``, ms lost)."""
        return list(self._games.pauses.found)

    @property
    def full_collections(self) -> list[tuple[float, float]]:
        """The collector's full passes while the Peer ran (net.heap
        ``FullCollections``; none noted unless it owns its process, ``freeze_heap``):
        (start by ``time.monotonic()``, ms)."""
        found = self._games.collections
        return [] if found is None else list(found.found)

    @property
    def game(self) -> Game | None:
        """The game under way (or just finished), if any."""
        return self._state.game

    @game.setter
    def game(self, game: Game | None) -> None:
        self._state.game = game

    @property
    def finished_games(self) -> dict[bytes, Game]:
        """Finished games, by id (they answer a late Resume)."""
        return self._state.finished_games

    @property
    def discovery(self) -> Discovery | None:
        return self._finder.discovery

    @property
    def fingerprint(self) -> str:
        return self.identity.fingerprint

    @property
    def port(self) -> int:
        return self._links.port

    # ------------------------------------------------------------ start and stop

    async def start(self) -> None:
        """Listen, advertise, browse, and read back an unfinished game from its journal."""
        self._files.restore_games()
        self._games.forget_old_games()
        await self._links.listen()
        await self._finder.start(self.port)
        self._redial.start()
        self._state.emit(Started(self.name, self.fingerprint, self.port))
        game = self.game
        if game is not None:
            lockstep = game.lockstep
            self._state.emit(GameRestored(game.game_id.hex(), game.peer_name,
                                          lockstep.our_side, lockstep.state_hash,
                                          lockstep.intents_sent,
                                          lockstep.peer_intents_applied))
            self._games.begin_away()

    async def stop(self, reason: str = "the player left") -> None:
        """Say goodbye on every link, stop discovery and listening (the game stays in its
        journal, so a later start resumes it)."""
        self._redial.stop()
        await self._links.close_links(reason)
        await self._finder.stop()
        await self._links.stop_listening()
        self._games.close()

    # ------------------------------------------------------------ finding and dialling

    def peers(self) -> list[PeerInfo]:
        """The other games seen on the network."""
        return self._finder.peers()

    async def find(self, name: str, timeout: float) -> PeerInfo:
        """The peer named ``name`` on the network (TimeoutError after ``timeout`` s)."""
        return await self._finder.find(name, timeout)

    async def connect(self, host: str, port: int, expected_fingerprint: str | None = None
                      ) -> Link:
        """Dial ``host``:``port``; the link then pairs, resumes or enters the lobby on its
        own. Raises NetError (a refused key, an unreachable peer, a failed handshake)."""
        return await self._links.dial(host, port, expected_fingerprint)

    async def connect_to(self, name: str, timeout: float = 10.0) -> Link:
        """Find ``name`` by discovery and dial it (checking the advertised fingerprint).
        Every game advertised under that name is tried, the pinned key first, each at
        each of its addresses, until one answers with its advertised key (issue 20 hole
        9: a decoy with the same name no longer blocks the join); the last failure is
        raised when none does."""
        failure: Exception | None = None
        for peer in await self._finder.find_all(name, timeout):
            for address in peer.addresses:
                try:
                    return await self.connect(address, peer.port, peer.fingerprint)
                except (NetError, OSError) as exc:
                    failure = exc
        raise failure or NetError(f"{name} is advertised without an address")

    def _admit(self, session: SecureSession, dialled: bool) -> Link:
        """A new session (net.peer_links; the fuzz test hands one in directly)."""
        return self._links.admit(session, dialled)

    # ------------------------------------------------------------ messages from a link

    def _dispatch(self, link: Link, message: Message) -> None:
        """Route one message read from ``link`` to the part it concerns; a link whose
        peer had more than ``PeerConfig.max_refusals`` of its messages refused is closed
        (issue 20 hole 2: refusals cost us work, and the peer could send them forever)."""
        try:
            self._route(link, message)
        finally:
            if link.refusals > self.config.max_refusals and not link.lost:
                self._links.drop(link, f"too many refused messages ({link.refusals})")

    def _route(self, link: Link, message: Message) -> None:
        """Before the pairing is complete only Hello and the pairing messages are
        taken; one Hello per link."""
        if isinstance(message, Hello):
            if link.hello_seen:
                self._state.send(link, Rejection(message.TAG, "the hello was already "
                                                              "received"))
                return
            link.hello_seen = True
            # Another release is fine: what must match (the rules version) is checked
            # by the lobby's rules hash, which names both versions when they differ.
            link.peer_engine = message.engine_version
            self._links.learn_address(link, message.port)
            return
        if isinstance(message, PairingState | PairingResult):
            self._pairing.receive(link, message)
            return
        if not link.paired:
            self._state.send(link, Rejection(message.TAG[:32], "pair first: the pairing "
                                                               "is not complete"))
            return
        game = self.game
        if isinstance(message, Resume):
            self._resume.on_resume(link, message)
        elif isinstance(message, GameClosed):
            self._resume.on_game_closed(link, message)
        elif game is not None and game.link is link and (
                isinstance(message, (*LOCKSTEP_MESSAGES, Rejection))):
            self._games.receive(message)
        elif isinstance(message, LOBBY_MESSAGES):
            self._lobbies.receive(link, message)
        else:
            self._state.send(link, Rejection(message.TAG[:32],
                                             "no game is under way between us"))

    # ------------------------------------------------------------ pairing and lobby

    def confirm_pairing(self, peer: str | None = None, accept: bool = True) -> None:
        """The player compared the code: both screens show the same (``accept``) or not."""
        self._pairing.confirm(peer, accept)

    def lobby(self, peer: str | None = None) -> Lobby:
        """The lobby with ``peer`` (read its phase, options, colours)."""
        return self._lobbies.lobby(peer)

    def invite(self, peer: str | None = None, resume_file: str | None = None) -> None:
        """Invite ``peer`` to a new game, or to resume our save ``resume_file``."""
        self._lobbies.invite(peer, resume_file)

    def accept(self, peer: str | None = None) -> None:
        self._lobbies.accept(peer)

    def decline(self, peer: str | None = None, reason: str = "") -> None:
        self._lobbies.decline(peer, reason)

    def choose_colour(self, colour: str, peer: str | None = None) -> None:
        self._lobbies.choose_colour(colour, peer)

    def propose_options(self, options: Options, peer: str | None = None,
                        move_time: int | None = None) -> None:
        """Propose options (and the time limit per move, seconds; None: as agreed)."""
        self._lobbies.propose_options(options, peer, move_time)

    def propose_move_time(self, seconds: int, peer: str | None = None) -> None:
        """Propose a time limit per move (0: none); the other player approves it."""
        self._lobbies.propose_move_time(seconds, peer)

    def propose_start(self, board: StartBoard, peer: str | None = None) -> None:
        self._lobbies.propose_start(board, peer)

    def approve(self, peer: str | None = None) -> None:
        self._lobbies.approve(peer)

    def reject(self, peer: str | None = None, reason: str = "") -> None:
        self._lobbies.reject(peer, reason)

    def choose_government(self, government: Government, peer: str | None = None) -> None:
        self._lobbies.choose_government(government, peer)

    def set_view_setting(self, name: str, value: object, peer: str | None = None) -> None:
        """R14.5: a display-only setting; allowed at any time, also during a game."""
        self._lobbies.set_view_setting(name, value, peer)

    def end_setup(self, peer: str | None = None) -> None:
        self._lobbies.end_setup(peer)

    def chat(self, text: str, peer: str | None = None) -> None:
        """Say one line: in the game with its peer (journalled and resent after a drop,
        like every game message), otherwise in the lobby with ``peer``."""
        game = self.game
        if game is not None and (peer is None or peer == game.peer_name):
            self._games.chat(text)
        else:
            self._lobbies.chat(text, peer)

    # ------------------------------------------------------------ the game

    def play(self, intent: Intent) -> None:
        """Play one of our intents (IllegalIntent names the rule; nothing is sent)."""
        self._games.play(intent)

    def resign(self) -> None:
        self._games.resign()

    def request_takeback(self, turn: int | None = None) -> None:
        self._games.request_takeback(turn)

    def answer_takeback(self, accept: bool) -> None:
        self._games.answer_takeback(accept)

    def cancel_takeback(self) -> None:
        """Withdraw our takeback request (the peer then declines it)."""
        self._games.cancel_takeback()

    def save(self, file_name: str | None = None) -> None:
        """Save the game on both machines: each writes its own file from its own data
        and names it itself (ours: ``file_name``, a bare name, or the game's own)."""
        self._games.save(file_name)

    def claim_win(self) -> None:
        """End the game as won by us: after the grace period when the peer is away, or
        when the connected peer owes us its move or an answer past its limit."""
        self._games.claim_win()

    def keep_waiting(self) -> None:
        """After the grace period: wait another grace period before asking again."""
        self._games.keep_waiting()

    def saved_games(self, peer_key: bytes | None = None) -> Iterator[tuple[Path, dict[str, Any]]]:
        """Our saves (and their info), optionally only those played against ``peer_key``."""
        return self._files.saved_games(peer_key)

    def game_delivered(self) -> bool:
        """True when the peer has received everything we sent in the game (its
        heartbeats say so on a resumed link): a program may end without leaving the
        peer short of our last intents."""
        return self._games.delivered()

    def remember_address(self, host: str, port: int) -> None:
        """Note where the game's peer listens (``wec peer --address``), for redialling."""
        self._games.remember_address(host, port)


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
    "PeerIdle",
    "PeerSeen",
    "Reconnecting",
    "Resumed",
    "Saved",
    "Started",
    "describe_event",
    "event_kind",
    "interface_address_problem",
]
