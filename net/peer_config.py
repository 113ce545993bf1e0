"""How a LAN-play Peer runs (net.peer): its :class:`PeerConfig`, checked when it is made,
so a wrong interface address is refused before anything starts."""

from __future__ import annotations

import ipaddress
import time
from dataclasses import dataclass, field
from pathlib import Path

from wec.net.limits import Clock
from wec.net.session import SessionConfig

LOOPBACK_ADDRESS = "127.0.0.1"


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
    # What a peer may ask of us (issue 20 hole 2): refused messages on one link before
    # it is closed; chat lines at once and per minute (lobby: per link; game: per game)
    # and in all in one game (each is journalled).
    max_refusals: int = 50
    chat_burst: int = 10
    chat_per_minute: float = 30.0
    max_game_chat: int = 2000
    # Saves the peer may have us write (issue 20 hole 4): at once, per minute, per game.
    save_burst: int = 3
    saves_per_minute: float = 2.0
    max_peer_saves: int = 20
    # Connections (issue 20 hole 7): handshakes at once from one address and in all,
    # handshakes from one address at once and per minute, links that wait to be paired
    # from one address and in all, links in all, and how long a link may wait for its
    # pairing before it is closed.
    handshakes_per_address: int = 4
    handshakes_at_once: int = 32
    handshake_burst: int = 10
    handshakes_per_minute: float = 30.0
    max_unpaired_per_address: int = 3
    max_unpaired: int = 16
    max_links: int = 32
    pairing_timeout: float = 300.0
    # Fog of war (issue 21): LAN games keep O15 and O16 on (the R13 defaults) and each
    # machine holds only its half; False plays open-information games only (stage 1);
    # None: on when the fog protocol (net.fog_game) is installed
    fog: bool | None = None
    # The process is this peer's own (the client, ``wec peer``): at a game's start the
    # garbage is collected once and what lives is frozen (gc.freeze), so that the
    # collector's full passes (20-30 ms, every 15 s or so of play, in the middle of an
    # action) no longer walk it. Off for a peer that shares its process with other work
    # (tests): there one full collection of a large heap blocks the event loop, 0.6 s and
    # more measured in a pytest worker, longer than a test's heartbeat timeout.
    freeze_heap: bool = False
    # Time limits of a game (issue 20 hole 3), in seconds: a connected peer that does not
    # finish its turn within ``idle_limit`` can be claimed against, even without a time
    # limit per move; a takeback request we leave unanswered is declined by itself after
    # ``request_timeout`` (one of ours unanswered for twice that can be claimed against).
    idle_limit: float = 900.0
    request_timeout: float = 120.0
    # The clock of rate limits and time limits (tests pass their own).
    clock: Clock = time.monotonic

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


def interface_address_problem(text: str) -> str | None:
    """Why ``text`` cannot name a discovery interface (None when it can)."""
    try:
        ipaddress.IPv4Address(text)
    except ValueError:
        return (f"interface {text!r} is not an IPv4 address (give the interface's own "
                "address, e.g. 192.168.1.20 or 127.0.0.1)")
    return None


__all__ = ["LOOPBACK_ADDRESS", "PeerConfig", "interface_address_problem"]
