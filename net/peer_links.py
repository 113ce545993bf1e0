"""The links of a Peer (net.peer): its sessions with other peers, one per peer.

A link comes from listening (a peer dialled us) or from dialling (:meth:`Links.dial`, or
net.redial after a drop). Each session is admitted (:meth:`Links.admit`); two links to
one peer: the newer replaces the older, except when both are young (both sides dialled
at once), where the one dialled by the side with the smaller identity key stays and the
other is closed cleanly. Both sides compare the same two keys, so exactly one session
survives on both.

Before any handshake, an incoming connection passes the :class:`ConnectionGate` (so many
handshakes at once and per minute from one address); a new link from a peer not
connected yet must find room (so many links waiting to pair from one address and in all,
so many links in all), and a link not paired within ``pairing_timeout`` is closed.

Each link then has a reader task (:meth:`Links.run`): it says Hello and our pairing
state, and hands every message to the Peer's dispatch; a refused input or a failing
handler is reported and the link goes on. When the link ends it is reported once
(Disconnected), and if it was the game's link the grace period starts.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable

from wec.net.errors import (
    ConnectionLost,
    HandshakeError,
    PeerKeyChanged,
    ProtocolError,
    SessionClosed,
)
from wec.net.game_host import GameHost
from wec.net.handshake import PROTOCOL_VERSION
from wec.net.limits import RateLimit
from wec.net.lobby import ENGINE_VERSION, LobbyError
from wec.net.lockstep import LockstepError
from wec.net.messages import Hello, Message, PairingState
from wec.net.peer_config import PeerConfig
from wec.net.peer_events import Connected, ConnectionRefused, Disconnected, ErrorEvent
from wec.net.peer_state import Link, PeerState
from wec.net.session import SecureSession, SessionServer, connect, serve

log = logging.getLogger("wec.net.peer")

YOUNG_LINK = 2.0  # seconds: two links this young are a dialling race, not a reconnection
MAX_TRACKED_ADDRESSES = 1024  # addresses the connection gate remembers


class ConnectionGate:
    """Per-address limits on incoming connections before any handshake work (issue 20
    hole 7: hundreds of connections were accepted, and idle ones exhausted the file
    descriptors): so many handshakes at once from one address and in all, and so many
    per minute from one address (a token bucket). A legitimate peer from another address
    still gets through while one address floods."""

    def __init__(self, config: PeerConfig) -> None:
        self._config = config
        self._active: dict[str, int] = {}
        self._limits: dict[str, RateLimit] = {}
        self.refused = 0  # connections closed at once

    def enter(self, address: tuple[str, int] | None) -> str | None:
        config = self._config
        host = address[0] if address is not None else "?"
        if sum(self._active.values()) >= config.handshakes_at_once:
            return self._refuse("too many handshakes at once")
        if self._active.get(host, 0) >= config.handshakes_per_address:
            return self._refuse(f"too many handshakes at once from {host}")
        limit = self._limits.get(host)
        if limit is None:
            if len(self._limits) >= MAX_TRACKED_ADDRESSES:
                self._limits.pop(next(iter(self._limits)))  # the oldest
            limit = self._limits[host] = RateLimit(
                config.handshake_burst, config.handshakes_per_minute / 60, config.clock)
        if not limit.allow():
            return self._refuse(f"too many connections from {host}")
        self._active[host] = self._active.get(host, 0) + 1
        return None

    def leave(self, address: tuple[str, int] | None) -> None:
        host = address[0] if address is not None else "?"
        count = self._active.get(host, 0) - 1
        if count > 0:
            self._active[host] = count
        else:
            self._active.pop(host, None)

    def _refuse(self, reason: str) -> str:
        self.refused += 1
        return reason

Dispatch = Callable[[Link, Message], None]


class Links:
    """Listening, dialling, admitting sessions, reading each link, losing links."""

    def __init__(self, state: PeerState, games: GameHost, dispatch: Dispatch) -> None:
        self._state = state
        self._games = games
        self._dispatch = dispatch  # where each message read from a link goes
        self._server: SessionServer | None = None
        self.gate = ConnectionGate(state.config)

    # ------------------------------------------------------------ listening

    @property
    def port(self) -> int:
        """The port we listen on (RuntimeError before :meth:`listen`)."""
        if self._server is None:
            raise RuntimeError("the peer is not started")
        return self._server.port

    async def listen(self) -> None:
        """Accept sessions from other peers (the handshake checks their pins)."""
        state, config = self._state, self._state.config
        self._server = await serve(state.identity, state.name, self._accept,
                                   host=config.host, port=config.port,
                                   pins=state.pins, config=config.session,
                                   on_failure=self._on_refused_connection, gate=self.gate)

    async def _accept(self, session: SecureSession) -> None:
        self.admit(session, dialled=False)

    def _on_refused_connection(self, error: Exception, address: tuple[str, int] | None
                               ) -> None:
        self._state.emit(ConnectionRefused(f"from {address}: {error}",
                                           key_changed=isinstance(error, PeerKeyChanged)))

    async def close_links(self, reason: str) -> None:
        """Say goodbye on every link and stop its reader."""
        for link in list(self._state.links.values()):
            with contextlib.suppress(Exception):
                await link.session.close(reason)
            if link.task is not None:
                link.task.cancel()

    async def stop_listening(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await self._server.wait_closed()

    # ------------------------------------------------------------ dialling

    async def dial(self, host: str, port: int, expected_fingerprint: str | None = None
                   ) -> Link:
        """Dial ``host``:``port``; the link then pairs, resumes or enters the lobby on its
        own. Raises NetError (a refused key, an unreachable peer, a failed handshake)."""
        state = self._state
        try:
            session = await connect(host, port, state.identity, state.name, pins=state.pins,
                                    config=state.config.session)
        except PeerKeyChanged as exc:
            state.emit(ConnectionRefused(str(exc), key_changed=True))
            raise
        if expected_fingerprint is not None and session.peer_fingerprint != \
                expected_fingerprint:
            await session.close("you are not the peer we meant to reach")
            reason = (f"{host} port {port} presented the key {session.peer_fingerprint}, "
                      f"not the advertised {expected_fingerprint}")
            state.emit(ConnectionRefused(reason))
            raise HandshakeError(reason)
        state.remember_listen_address(session.peer_fingerprint, (host, port))
        return self.admit(session, dialled=True)

    # ------------------------------------------------------------ the link a command means

    def named(self, peer: str | None) -> Link:
        """The link to ``peer`` (by name), or the only link when ``peer`` is None."""
        links = list(self._state.links.values())
        if peer is not None:
            links = [link for link in links if link.peer_name == peer]
        if len(links) != 1:
            raise LobbyError(f"no connected peer named {peer!r}" if peer is not None
                             else "connect to one peer first" if not links
                             else "several peers are connected: name one")
        return links[0]

    def paired(self, peer: str | None) -> Link:
        """Like :meth:`named`, for commands that need the pairing complete."""
        link = self.named(peer)
        if not link.paired:
            raise LobbyError(f"{link.peer_name} is not paired yet: compare the code first")
        return link

    # ------------------------------------------------------------ one link per peer

    def admit(self, session: SecureSession, dialled: bool) -> Link:
        """A new session: keep it (replacing an older link to the same peer) or close it
        when it lost a dialling race."""
        state = self._state
        now = time.monotonic()
        link = Link(session, now)
        older = state.links.get(session.peer_key)
        refusal = None if dialled or older is not None else self._crowded(session)
        if refusal is not None:
            log.info("closed a new link from %s: %s", session.remote_address, refusal)
            asyncio.get_running_loop().create_task(session.close(refusal))
            return link
        if older is not None:
            if now - older.opened_at < YOUNG_LINK and not self._keeps_new(older, link):
                asyncio.get_running_loop().create_task(
                    session.close("a connection between us already exists"))
                return older
            self.drop(older, "replaced by a newer connection")
        state.links[session.peer_key] = link
        state.emit(Connected(session.peer_name, session.peer_fingerprint, dialled))
        link.task = asyncio.get_running_loop().create_task(self.run(link),
                                                            name="wec-peer-link")
        return link

    def _crowded(self, session: SecureSession) -> str | None:
        """Why one more link from a peer we do not know yet is too many (issue 20 hole
        7), or None."""
        config = self._state.config
        links = list(self._state.links.values())
        if len(links) >= config.max_links:
            return "too many connections: try again later"
        waiting = [link for link in links if not link.paired]
        if len(waiting) >= config.max_unpaired:
            return "too many connections are waiting to pair: try again later"
        remote = session.remote_address
        host = remote[0] if remote is not None else None
        from_there = [link for link in waiting if (link.session.remote_address or ("",))[0]
                      == host]
        if len(from_there) >= config.max_unpaired_per_address:
            return "too many connections from your address are waiting to pair"
        return None

    def drop_unpaired(self) -> None:
        """Close the links that waited for their pairing longer than the pairing timeout
        (called every round of the watch, net.redial)."""
        limit = self._state.config.pairing_timeout
        now = time.monotonic()
        for link in list(self._state.links.values()):
            if not link.paired and now - link.opened_at > limit:
                self.drop(link, f"not paired within {limit:g} s")

    def _keeps_new(self, older: Link, newer: Link) -> bool:
        """Both links are young (both sides dialled at once): keep the one dialled by the
        side with the smaller identity key. Both sides compare the same two keys, so both
        keep the same link and close the other."""
        our_key = self._state.identity.public_key

        def dialler(link: Link) -> bytes:
            return our_key if link.session.initiator else link.peer_key
        return dialler(newer) < dialler(older)

    def drop(self, link: Link, reason: str) -> None:
        """Close ``link`` (the session says ``reason`` to the peer) and report it lost."""
        if self._state.links.get(link.peer_key) is link:
            del self._state.links[link.peer_key]
        if link.task is not None and link.task is not asyncio.current_task():
            link.task.cancel()
        asyncio.get_running_loop().create_task(link.session.close(reason))
        self.lost(link, reason)

    def lost(self, link: Link, reason: str) -> None:
        """Report the end of ``link`` once; the game's link gone starts the grace period."""
        if link.lost:
            return
        link.lost = True
        game = self._state.game
        if game is not None and game.link is link:
            game.link = None
            game.link_lost_at = time.monotonic()
            self._games.begin_away()
        self._state.emit(Disconnected(link.peer_name, reason))

    # ------------------------------------------------------------ reading a link

    async def run(self, link: Link) -> None:
        """The reader of one link, from our Hello to its end."""
        state = self._state
        session = link.session
        status = session.pin_status
        port = self._server.port if self._server is not None else None
        state.send(link, Hello(PROTOCOL_VERSION, ENGINE_VERSION, state.name, port))
        state.send(link, PairingState(status is not None and status.pinned))
        reason = "closed"
        try:
            while not link.lost:  # a link dropped by us reads nothing more
                try:
                    message = await session.receive()
                except SessionClosed as closed:
                    reason = closed.reason
                    break
                except ConnectionLost as broken:
                    # the stream broke (the peer's process stopped, the network went):
                    # a lost link, reported as such below, not input we refused
                    reason = broken.reason
                    break
                except ProtocolError as refused:
                    state.emit(ErrorEvent(f"{link.peer_name}: refused input: "
                                          f"{refused.reason}"))
                    continue
                if not link.lost:
                    self._handle(link, message)
        except asyncio.CancelledError:
            raise
        finally:
            if state.links.get(link.peer_key) is link:
                del state.links[link.peer_key]
                self.lost(link, reason)
            elif state.game is not None and state.game.link is link:
                self.lost(link, reason)  # replaced, but still the game's link

    def _handle(self, link: Link, message: Message) -> None:
        """Dispatch one message; a refusal or a bug is reported, never fatal to the
        link or the Peer."""
        try:
            self._dispatch(link, message)
        except (LobbyError, LockstepError) as exc:
            self._state.emit(ErrorEvent(exc.reason))
        except Exception as exc:  # a bug must not take the peer down
            log.exception("handling %s from %s failed", message.TAG, link.peer_name)
            self._state.emit(ErrorEvent(f"internal error on a {message.TAG} message: "
                                        f"{exc!r}"))

    def learn_address(self, link: Link, port: int | None) -> None:
        """A peer that dialled us announced its listening port: with the connection's
        address that is where we dial it again after a drop (issue 8 item 6: the side
        that accepted the connection reconnects too). Links we dialled are skipped: we
        know that address already, and the connection's may be a proxy's."""
        remote = link.session.remote_address
        if port is None or remote is None or link.session.initiator:
            return
        link.listen_address = (remote[0], port)
        self._state.note_game_address(link.peer_key, link.listen_address)


__all__ = ["YOUNG_LINK", "Links"]
