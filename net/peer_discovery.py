"""What a Peer does with discovery (net.discovery; net.peer).

It advertises our game and browses for the others (PeerSeen, PeerGone), remembers where
each peer listens (so net.redial knows where to dial the game's peer again) and wakes
the redialling at once when the game's peer is seen again. Off with
``PeerConfig(discovery=False)``: then peers are dialled by address only.
"""

from __future__ import annotations

from wec.net.discovery import Discovery, PeerChange, PeerInfo
from wec.net.errors import PinStoreError
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
        return (await self.find_all(name, timeout))[0]

    async def find_all(self, name: str, timeout: float) -> list[PeerInfo]:
        """Every game named ``name`` on the network, the pinned key first (issue 20 hole
        9: anyone can advertise a name, so the first match may be a decoy); waits until
        at least one is listed (TimeoutError after ``timeout`` s)."""
        if self.discovery is None:
            raise TimeoutError("discovery is off; give an address")
        await self.discovery.wait_for_peer(lambda p: p.name == name, timeout)
        return self.rank(name, [p for p in self.discovery.peers() if p.name == name])

    def rank(self, name: str, found: list[PeerInfo]) -> list[PeerInfo]:
        """``found`` with the entry whose key is pinned under ``name`` first, then other
        pinned keys, then the rest (in the order seen)."""
        pins = self._state.pins
        try:
            pinned = pins.get(name)
            known = {peer.fingerprint for peer in pins.peers()}
        except PinStoreError:
            pinned, known = None, set()

        def order(peer: PeerInfo) -> int:
            if pinned is not None and peer.fingerprint == pinned.fingerprint:
                return 0
            return 1 if peer.fingerprint in known else 2
        return sorted(found, key=order)

    def _on_change(self, change: PeerChange) -> None:
        state = self._state
        peer = change.peer
        if change.kind == "removed":
            state.forget_listen_address(peer.fingerprint)
            state.emit(PeerGone(peer))
            return
        state.remember_listen_address(peer.fingerprint, (peer.addresses[0], peer.port))
        state.emit(PeerSeen(peer))
        game = state.game
        if game is not None and fingerprint(game.peer_key) == peer.fingerprint:
            state.dial_now.set()


__all__ = ["PeerFinder"]
