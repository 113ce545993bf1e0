"""What a Peer does with discovery (net.discovery; net.peer).

It advertises our game and browses for the others (PeerSeen, PeerGone), remembers where
each peer listens (so net.redial knows where to dial the game's peer again) and wakes
the redialling at once when the game's peer is seen again. Off with
``PeerConfig(discovery=False)``: then peers are dialled by address only.
"""

from __future__ import annotations

from wec.net.discovery import Discovery, PeerChange, PeerInfo
from wec.net.handshake import PROTOCOL_VERSION
from wec.net.identity import fingerprint
from wec.net.peer_events import PeerGone, PeerSeen
from wec.net.peer_state import PeerState


class PeerFinder:
    """Advertising, browsing and finding peers by name."""

    def __init__(self, state: PeerState) -> None:
        self._state = state
        self.discovery: Discovery | None = None

    async def start(self, port: int) -> None:
        """Advertise our game listening on ``port`` and browse (when discovery is on)."""
        state, config = self._state, self._state.config
        if not config.discovery:
            return
        self.discovery = Discovery(state.name, state.identity.fingerprint, PROTOCOL_VERSION,
                                   port, on_change=self._on_change,
                                   include_loopback=config.include_loopback,
                                   record_ttl=config.record_ttl,
                                   interface_addresses=config.discovery_interfaces())
        await self.discovery.start()

    async def stop(self) -> None:
        if self.discovery is not None:
            await self.discovery.stop()

    def peers(self) -> list[PeerInfo]:
        """The other games seen on the network."""
        return self.discovery.peers() if self.discovery is not None else []

    async def find(self, name: str, timeout: float) -> PeerInfo:
        """The peer named ``name`` on the network (TimeoutError after ``timeout`` s)."""
        if self.discovery is None:
            raise TimeoutError("discovery is off; give an address")
        return await self.discovery.wait_for_peer(lambda p: p.name == name, timeout)

    def _on_change(self, change: PeerChange) -> None:
        state = self._state
        peer = change.peer
        if change.kind == "removed":
            state.emit(PeerGone(peer))
            return
        state.addresses[peer.fingerprint] = (peer.addresses[0], peer.port)
        state.emit(PeerSeen(peer))
        game = state.game
        if game is not None and fingerprint(game.peer_key) == peer.fingerprint:
            state.dial_now.set()


__all__ = ["PeerFinder"]
