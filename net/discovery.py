"""LAN discovery with zeroconf (issue 8, item 1): advertise this game, browse for the others.

Each running game advertises one ``_wec._tcp.local.`` service: the TCP port of its session
listener, its IPv4 addresses and a TXT record with the display name, the protocol version and
the identity key fingerprint. It browses the same type and keeps a list of :class:`PeerInfo`.

Why the choices below:

- Interfaces are chosen deliberately (:func:`choose_interface_addresses`): every IPv4
  interface that is up and multicast-capable, one address each, loopback left out unless it is
  the only one or asked for (tests on one machine). The sockets are bound to those interface
  addresses, so sending never needs a route: a network without a default route (a Wi-Fi
  without internet, a test namespace) works. IPv4 only. Interfaces are rescanned
  periodically, so a game started before the Wi-Fi came up still finds its peers.
- A peer that quits cleanly sends goodbye packets and leaves the others' lists at once. A
  peer that crashed or was cut off sends nothing, so liveness follows its SRV record, which
  carries a short TTL (``record_ttl``, 20 s by default; zeroconf would stretch a PTR TTL to
  1125 s): from 75% of the record's life we ask the peer again, and a peer whose record
  expired leaves the list (checked every second: within ``record_ttl`` + 1 s). We keep
  asking for a lost peer (backing off to every 8 s), so it is listed again when the link
  returns: the session layer can then reconnect.
- Everything received is untrusted: :func:`parse_peer_txt` checks the raw TXT bytes (string
  lengths, key syntax, strict UTF-8, display name characters, protocol version digits,
  fingerprint hex) and a bad record is skipped with its reason logged, never raised into
  the game. The list never grows beyond :data:`MAX_PEERS`.

The API is asyncio-first and runs on the caller's event loop (AsyncZeroconf)::

    discovery = Discovery("Alice", fingerprint, PROTOCOL_VERSION, port, on_change=print)
    await discovery.start()
    discovery.peers()          # -> list[PeerInfo]
    await discovery.stop()     # goodbye packets: the others see us leave

``python -m wec.net.discovery --name NAME --fingerprint ABCD-... --port N`` runs one advertiser and
browser and prints one JSON object per line (started, added, updated, removed, rejected,
stopped); it stops cleanly on ``stop`` or end of input. The two-namespace tests and
``benchmarks.netns.measure_discovery`` drive it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ipaddress
import json
import logging
import math
import re
import secrets
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

import ifaddr
from zeroconf import IPVersion, ServiceStateChange, Zeroconf, current_time_millis
from zeroconf._dns import DNSQuestion, DNSRecord  # typed; the package does not re-export them
from zeroconf._protocol.outgoing import DNSOutgoing
from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf

from wec.net.identity import display_name_problem

log = logging.getLogger(__name__)

SERVICE_TYPE = "_wec._tcp.local."
TXT_FORMAT_VERSION = "1"  # the "txtvers" key (RFC 6763 section 6.7)
DEFAULT_RECORD_TTL = 20  # seconds; how long a crashed peer can linger in the list
DEFAULT_RESCAN_INTERVAL = 10.0  # seconds between interface rescans
MAINTENANCE_INTERVAL = 1.0  # seconds between refresh/expiry checks of the peers
LOST_PEER_MAX_INTERVAL = 8.0  # seconds; we keep asking for expired peers at least this often
RESOLVE_TIMEOUT_MS = 1500  # waiting for a peer's SRV/TXT/A records after its PTR arrived
MAX_PEERS = 256  # a flooding network cannot grow the list beyond this
MAX_TXT_BYTES = 1300  # RFC 6763 section 6.2: keep TXT records small
MAX_PROTOCOL_VERSION = 65535
# net.identity.fingerprint: base32 of SHA-256 in dash-separated groups of 4 ("ABCD-EFGH-...")
FINGERPRINT_PATTERN = re.compile(r"[A-Z2-7]{4}(?:-[A-Z2-7]{4}){1,15}")
_PROTOCOL_VERSION_PATTERN = re.compile(r"[0-9]{1,5}")
_MAX_KEY_BYTES = 32  # RFC 6763 asks for 9 at most; we use 7 and tolerate longer ones
_KEY_PATTERN = re.compile(rb"[\x20-\x3c\x3e-\x7e]{1,%d}" % _MAX_KEY_BYTES)  # printable, no '='

_DNS_TYPE_PTR = 12  # RFC 1035 and RFC 2782
_DNS_TYPE_TXT = 16
_DNS_TYPE_SRV = 33
_DNS_CLASS_IN = 1
_DNS_FLAGS_QUERY = 0x0000
_REFRESH_PERCENT = 75  # ask a peer again from this share of its records' life

# /sys/class/net/*/flags bits (linux/if.h)
_IFF_UP = 0x1
_IFF_LOOPBACK = 0x8
_IFF_MULTICAST = 0x1000

ChangeKind = Literal["added", "updated", "removed"]


class TxtRecordError(ValueError):
    """A TXT record from the network that we refuse; the message says why."""


@dataclass(frozen=True)
class PeerInfo:
    """One other game seen on the network (all fields validated)."""

    service_name: str  # the mDNS instance name; unique on the network, the list key
    name: str  # display name chosen by the player
    fingerprint: str  # identity key fingerprint as net.identity writes it; pairing checks it
    protocol_version: int
    addresses: tuple[str, ...]  # IPv4 addresses, in the order the peer gave them
    port: int  # TCP port of the peer's session listener


@dataclass(frozen=True)
class PeerChange:
    """A change of the peers list, given to ``on_change``."""

    kind: ChangeKind
    peer: PeerInfo
    at: float  # time.monotonic() when the change was noticed


@dataclass(frozen=True)
class InterfaceAddress:
    """One IPv4 address of one network interface, with the interface's flags."""

    interface: str
    address: str
    up: bool
    loopback: bool
    multicast: bool


# --------------------------------------------------------------------------- TXT records


def build_txt_properties(name: str, protocol_version: int, fingerprint: str) -> dict[str, str]:
    """The TXT properties we advertise; raises ValueError for values peers would refuse."""
    properties = {
        "txtvers": TXT_FORMAT_VERSION,
        "name": name,
        "proto": str(protocol_version),
        "fp": fingerprint,
    }
    validate_peer_fields({key: value.encode() for key, value in properties.items()})
    items = [f"{key}={value}".encode() for key, value in properties.items()]
    if sum(1 + len(item) for item in items) > MAX_TXT_BYTES or max(map(len, items)) > 255:
        raise ValueError(f"TXT record too long for name {name[:20]!r}")
    return properties


def split_txt_strings(raw: bytes) -> list[bytes]:
    """The character-strings of a raw TXT record (each prefixed by its length byte)."""
    if len(raw) > MAX_TXT_BYTES:
        raise TxtRecordError(f"TXT record of {len(raw)} bytes exceeds {MAX_TXT_BYTES}")
    strings = []
    position = 0
    while position < len(raw):
        length = raw[position]
        end = position + 1 + length
        if end > len(raw):
            raise TxtRecordError(
                f"TXT string at byte {position} claims {length} bytes, "
                f"only {len(raw) - position - 1} left"
            )
        if length:
            strings.append(raw[position + 1 : end])
        position = end
    return strings


def parse_txt_pairs(raw: bytes) -> dict[str, bytes | None]:
    """Key/value pairs of a raw TXT record; keys lowercased, values left as bytes.

    RFC 6763 section 6.4: keys are printable ASCII without '=', compared case-insensitively;
    a repeated key is ignored after its first occurrence; ``key`` without '=' is a boolean
    attribute (value None). Values may be binary: only the ones we use are decoded (by
    :func:`validate_peer_fields`), so keys added by later versions do not break us.
    """
    pairs: dict[str, bytes | None] = {}
    for item in split_txt_strings(raw):
        key_bytes, separator, value = item.partition(b"=")
        if not _KEY_PATTERN.fullmatch(key_bytes):
            raise TxtRecordError(
                f"TXT key {key_bytes[:20]!r} is not 1-{_MAX_KEY_BYTES} printable ASCII bytes"
            )
        key = key_bytes.decode("ascii").lower()
        if key not in pairs:
            pairs[key] = value if separator else None
    return pairs


def parse_peer_txt(raw: bytes) -> tuple[str, int, str]:
    """(display name, protocol version, fingerprint) from a peer's raw TXT record."""
    return validate_peer_fields(parse_txt_pairs(raw))


def validate_peer_fields(pairs: dict[str, bytes | None]) -> tuple[str, int, str]:
    """Check the TXT fields we need; raises TxtRecordError naming the first bad one."""
    txt_version = pairs.get("txtvers")
    if txt_version != TXT_FORMAT_VERSION.encode():
        shown = None if txt_version is None else txt_version.decode("utf-8", "replace")
        raise TxtRecordError(f"TXT txtvers is {shown!r}, we read {TXT_FORMAT_VERSION!r}")
    return (
        validate_display_name(_required_text(pairs, "name")),
        validate_protocol_version(_required_text(pairs, "proto")),
        validate_fingerprint(_required_text(pairs, "fp")),
    )


def _required_text(pairs: dict[str, bytes | None], key: str) -> str:
    value = pairs.get(key)
    if value is None:
        state = "has no value" if key in pairs else "is missing"
        raise TxtRecordError(f"TXT key {key!r} {state}")
    try:
        return value.decode("utf-8", errors="strict")
    except UnicodeDecodeError as error:
        raise TxtRecordError(f"TXT value of {key!r} is not UTF-8 ({error.reason})") from None


def validate_display_name(name: str) -> str:
    """A display name shown on screen, by the same rule as our own (net.identity: 1 to 64
    printable characters, no outer spaces)."""
    problem = display_name_problem(name)
    if problem is not None:
        raise TxtRecordError(problem)
    return name


def validate_protocol_version(text: str) -> int:
    """A protocol version: 1-5 ASCII digits, 1..65535."""
    if not _PROTOCOL_VERSION_PATTERN.fullmatch(text):
        raise TxtRecordError(f"protocol version {text[:20]!r} is not 1-5 ASCII digits")
    version = int(text)
    if not 1 <= version <= MAX_PROTOCOL_VERSION:
        raise TxtRecordError(f"protocol version {version} outside 1..{MAX_PROTOCOL_VERSION}")
    return version


def validate_fingerprint(text: str) -> str:
    """A key fingerprint as net.identity writes it: groups of 4 base32 characters."""
    if not FINGERPRINT_PATTERN.fullmatch(text):
        raise TxtRecordError(
            f"fingerprint {text[:24]!r} is not 2-16 dash-separated groups of 4 base32 characters"
        )
    return text


def validate_addresses(addresses: Sequence[str]) -> tuple[str, ...]:
    """The usable unicast IPv4 addresses among a peer's advertised ones."""
    usable = []
    for text in addresses:
        try:
            address = ipaddress.IPv4Address(text)
        except ValueError:
            continue
        if address.is_unspecified or address.is_multicast or address == _BROADCAST:
            continue
        if text not in usable:
            usable.append(text)
    return tuple(usable)


_BROADCAST = ipaddress.IPv4Address("255.255.255.255")


# --------------------------------------------------------------------------- interfaces


def list_ipv4_interfaces() -> list[InterfaceAddress]:
    """Every IPv4 address of every interface, with up/loopback/multicast flags.

    Flags come from /sys/class/net (Linux). Elsewhere an interface counts as up and
    multicast-capable and loopback means an address in 127.0.0.0/8.
    """
    found = []
    for adapter in ifaddr.get_adapters():
        flags = _interface_flags(adapter.name)
        for ip in adapter.ips:
            if not isinstance(ip.ip, str):
                continue  # IPv6: ifaddr gives (address, flowinfo, scope) tuples
            is_loopback_address = ipaddress.IPv4Address(ip.ip).is_loopback
            found.append(
                InterfaceAddress(
                    interface=adapter.name,
                    address=ip.ip,
                    up=True if flags is None else bool(flags & _IFF_UP),
                    loopback=is_loopback_address if flags is None else bool(flags & _IFF_LOOPBACK),
                    multicast=True if flags is None else bool(flags & _IFF_MULTICAST),
                )
            )
    return found


def _interface_flags(interface: str) -> int | None:
    path = Path("/sys/class/net") / interface / "flags"
    try:
        return int(path.read_text(encoding="ascii").strip(), 16)
    except (OSError, ValueError):
        return None


def choose_interface_addresses(
    interfaces: Sequence[InterfaceAddress], include_loopback: bool = False
) -> list[str]:
    """The IPv4 addresses to run mDNS on, one per interface, in interface order.

    Up and multicast-capable non-loopback interfaces; loopback added when asked for, and
    used alone when nothing else is there (play on one machine without a network).
    """
    chosen: dict[str, str] = {}
    loopback: dict[str, str] = {}
    for entry in interfaces:
        if not entry.up:
            continue
        if entry.loopback:
            loopback.setdefault(entry.interface, entry.address)
        elif entry.multicast:
            chosen.setdefault(entry.interface, entry.address)
    if include_loopback or not chosen:
        for interface, address in loopback.items():
            chosen.setdefault(interface, address)
    return list(chosen.values())


def instance_label(display_name: str, fingerprint: str) -> str:
    """Our mDNS instance label: the display name (cleaned) and a fingerprint prefix."""
    cleaned = "".join(c if c.isprintable() and c != "." else " " for c in display_name).strip()
    suffix = f"-{fingerprint.replace('-', '')[:8]}"
    encoded = cleaned.encode()[: 63 - len(suffix)].decode("utf-8", errors="ignore").strip()
    return f"{encoded or 'wec'}{suffix}"


# --------------------------------------------------------------------------- discovery


class Discovery:
    """Advertise this game and keep the list of the other games on the local network.

    ``on_change`` gets a :class:`PeerChange` for every peer added, updated or removed, and
    ``on_rejected`` gets (service name, reason) for every record skipped as malformed; both
    run on the event loop and must not block. ``record_ttl`` bounds how long a crashed peer
    stays listed; ``rescan_interval`` (None: never) is how often interfaces are rescanned.
    ``interface_addresses`` overrides the interface choice.
    """

    def __init__(
        self,
        name: str,
        fingerprint: str,
        protocol_version: int,
        port: int,
        *,
        on_change: Callable[[PeerChange], None] | None = None,
        on_rejected: Callable[[str, str], None] | None = None,
        include_loopback: bool = False,
        record_ttl: int = DEFAULT_RECORD_TTL,
        rescan_interval: float | None = DEFAULT_RESCAN_INTERVAL,
        interface_addresses: Sequence[str] | None = None,
    ) -> None:
        if not 1 <= port <= 65535:
            raise ValueError(f"port {port} outside 1..65535")
        if record_ttl < 2:
            raise ValueError(f"record_ttl {record_ttl} s is below 2 s")
        self._properties = build_txt_properties(name, protocol_version, fingerprint)
        self._label = instance_label(name, fingerprint)
        compact = fingerprint.replace("-", "").lower()
        self._host = f"wec-{compact[:12]}-{secrets.token_hex(3)}.local."  # one per run
        self._port = port
        self._on_change = on_change
        self._on_rejected = on_rejected
        self._include_loopback = include_loopback
        self._record_ttl = record_ttl
        self._rescan_interval = rescan_interval
        self._fixed_addresses = list(interface_addresses) if interface_addresses else None
        self._zeroconf: AsyncZeroconf | None = None
        self._browser: AsyncServiceBrowser | None = None
        self._own_info: AsyncServiceInfo | None = None
        self._addresses: list[str] = []
        self._peers: dict[str, PeerInfo] = {}
        self._rejected: dict[str, str] = {}
        self._resolving: dict[str, asyncio.Task[None]] = {}
        self._asked_at: dict[str, float] = {}  # when we last queried a peer's records (ms)
        self._lost: dict[str, tuple[float, float]] = {}  # expired peers: (next query, interval)
        self._background: list[asyncio.Task[None]] = []
        self._started = False
        self._stopped = False

    # ----------------------------------------------------------------- public API

    @property
    def service_name(self) -> str | None:
        """Our advertised instance name (after any rename on conflict), None before start."""
        return self._own_info.name if self._own_info else None

    @property
    def interface_addresses(self) -> list[str]:
        """The IPv4 interface addresses mDNS runs on (empty: no usable network yet)."""
        return list(self._addresses)

    def peers(self) -> list[PeerInfo]:
        """The other games seen, sorted by display name then instance name."""
        return sorted(self._peers.values(), key=lambda peer: (peer.name, peer.service_name))

    def rejected(self) -> dict[str, str]:
        """Instance names whose records were skipped, with the latest reason."""
        return dict(self._rejected)

    async def start(self) -> None:
        """Choose interfaces, browse and advertise; never fails for lack of a network."""
        if self._started:
            raise RuntimeError("Discovery.start() called twice")
        self._started = True
        addresses = self._choose_addresses()
        if addresses:
            await self._start_zeroconf(addresses)
        else:
            log.warning("discovery: no usable IPv4 interface yet; will keep looking")
        if self._rescan_interval is not None:
            self._background.append(asyncio.create_task(self._rescan_loop()))
        self._background.append(asyncio.create_task(self._maintenance_loop()))

    async def stop(self) -> None:
        """Withdraw our advertisement (goodbye packets) and stop browsing."""
        if self._stopped or not self._started:
            self._stopped = True
            return
        self._stopped = True
        for task in [*self._background, *self._resolving.values()]:
            task.cancel()
        for task in [*self._background, *self._resolving.values()]:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._resolving.clear()
        zeroconf, self._zeroconf = self._zeroconf, None
        if zeroconf is None:
            return
        if self._browser is not None:
            await self._browser.async_cancel()
            self._browser = None
        if self._own_info is not None:
            try:
                await await_(await zeroconf.async_unregister_service(self._own_info))
            except Exception as error:  # stopping must not fail
                log.warning("discovery: goodbye not sent: %s", error)
        await zeroconf.async_close()

    async def wait_for_peer(
        self, predicate: Callable[[PeerInfo], bool], timeout: float
    ) -> PeerInfo:
        """The first listed peer matching ``predicate``; TimeoutError after ``timeout`` s."""
        deadline = time.monotonic() + timeout
        while True:
            for peer in self.peers():
                if predicate(peer):
                    return peer
            if time.monotonic() >= deadline:
                raise TimeoutError(f"no matching peer within {timeout} s")
            await asyncio.sleep(0.01)

    async def refresh_interfaces(self) -> None:
        """Rescan the interfaces; follow a change (new Wi-Fi, lost cable) without restarting."""
        addresses = self._choose_addresses()
        if addresses == self._addresses or not addresses:
            return
        log.info("discovery: interfaces changed from %s to %s", self._addresses, addresses)
        if self._zeroconf is None:
            await self._start_zeroconf(addresses)
            return
        self._addresses = addresses
        await self._zeroconf.async_update_interfaces(interfaces=list(addresses))
        if self._own_info is not None:
            self._own_info.addresses = [ipaddress.IPv4Address(a).packed for a in addresses]
            await await_(await self._zeroconf.async_update_service(self._own_info))
        if self._browser is not None:
            await self._browser.async_cancel()
        self._start_browser(self._zeroconf)

    # ----------------------------------------------------------------- internals

    def _choose_addresses(self) -> list[str]:
        if self._fixed_addresses is not None:
            return list(self._fixed_addresses)
        return choose_interface_addresses(list_ipv4_interfaces(), self._include_loopback)

    async def _start_zeroconf(self, addresses: list[str]) -> None:
        """Open the mDNS sockets on ``addresses``, browse, advertise. An OSError (an interface
        vanished meanwhile) is logged and leaves discovery idle until the next rescan."""
        try:
            zeroconf = AsyncZeroconf(interfaces=list(addresses), ip_version=IPVersion.V4Only)
        except OSError as error:
            log.warning("discovery: cannot use interfaces %s: %s", addresses, error)
            return
        self._addresses = addresses
        self._zeroconf = zeroconf
        self._start_browser(zeroconf)
        info = AsyncServiceInfo(
            SERVICE_TYPE,
            f"{self._label}.{SERVICE_TYPE}",
            port=self._port,
            properties=self._properties,
            server=self._host,
            host_ttl=self._record_ttl,
            other_ttl=self._record_ttl,
            parsed_addresses=list(addresses),
        )
        self._own_info = info
        await zeroconf.async_register_service(info, allow_name_change=True)
        log.info("discovery: advertising %s on %s port %d", info.name, addresses, self._port)

    def _start_browser(self, zeroconf: AsyncZeroconf) -> None:
        """Browse (again): a new browser sends its start-up queries on every interface."""
        self._browser = AsyncServiceBrowser(
            zeroconf.zeroconf, SERVICE_TYPE, handlers=[self._on_service_state_change]
        )

    def _on_service_state_change(
        self,
        zeroconf: Zeroconf,
        service_type: str,
        name: str,
        state_change: ServiceStateChange,
    ) -> None:
        """zeroconf's browser callback (event loop): resolve or drop the named service."""
        if self._is_own(name) or self._stopped:
            return
        pending = self._resolving.pop(name, None)
        if pending is not None:
            pending.cancel()
        if state_change is ServiceStateChange.Removed:
            self._drop(name)
            return
        self._start_resolving(zeroconf, name)

    def _start_resolving(self, zeroconf: Zeroconf, name: str) -> None:
        task = asyncio.get_running_loop().create_task(self._resolve(zeroconf, name))
        self._resolving[name] = task
        task.add_done_callback(lambda done: self._forget_task(name, done))

    def _forget_task(self, name: str, task: asyncio.Task[None]) -> None:
        if self._resolving.get(name) is task:
            del self._resolving[name]

    def _is_own(self, name: str) -> bool:
        own = self.service_name
        return own is not None and own.lower() == name.lower()

    async def _resolve(self, zeroconf: Zeroconf, name: str) -> None:
        """Read a service's records and list it, or skip it with the reason."""
        try:
            info = AsyncServiceInfo(SERVICE_TYPE, name)
            answered = await info.async_request(zeroconf, RESOLVE_TIMEOUT_MS)
            peer = peer_from_service_info(name, info) if answered else None
        except TxtRecordError as error:
            self._drop(name)
            self._reject(name, str(error))
            return
        except Exception as error:  # whatever the network sends, discovery goes on
            self._reject(name, f"unreadable records ({type(error).__name__}: {error})")
            return
        if peer is None:
            self._reject(name, f"no SRV/TXT/address answer within {RESOLVE_TIMEOUT_MS} ms")
            return
        if self._is_own(name):
            return
        self._rejected.pop(name, None)
        previous = self._peers.get(name)
        if previous == peer:
            return
        if previous is None and len(self._peers) >= MAX_PEERS:
            self._reject(name, f"peers list full ({MAX_PEERS})")
            return
        self._peers[name] = peer
        self._notify("added" if previous is None else "updated", peer)

    def _reject(self, name: str, reason: str) -> None:
        if self._rejected.get(name) == reason:
            return  # logged already; a repeating bad record must not flood the log
        self._rejected[name] = reason
        log.warning("discovery: skipped %r: %s", name, reason)
        if self._on_rejected is not None:
            try:
                self._on_rejected(name, reason)
            except Exception:
                log.exception("discovery: on_rejected callback failed")

    def _drop(self, name: str) -> None:
        self._asked_at.pop(name, None)
        peer = self._peers.pop(name, None)
        if peer is not None:
            self._notify("removed", peer)

    def _notify(self, kind: ChangeKind, peer: PeerInfo) -> None:
        log.info("discovery: %s %s (%s) at %s", kind, peer.name, peer.service_name,
                 peer.addresses)
        if self._on_change is None:
            return
        try:
            self._on_change(PeerChange(kind, peer, time.monotonic()))
        except Exception:
            log.exception("discovery: on_change callback failed")

    async def _rescan_loop(self) -> None:
        assert self._rescan_interval is not None
        while True:
            await asyncio.sleep(self._rescan_interval)
            try:
                await self.refresh_interfaces()
            except Exception:
                log.exception("discovery: interface rescan failed")

    async def _maintenance_loop(self) -> None:
        """Every second (more often for short TTLs): renew, expire and re-list peers from
        their SRV records.

        zeroconf raises every received PTR TTL to at least 1125 s (its guard against query
        storms), so a crashed peer would stay listed for 19 minutes if we went by the PTR.
        The SRV record keeps the TTL the peer gave (``record_ttl``), so liveness follows it:
        from 75% of its life we ask the peer again (RFC 6762 section 5.2), and a peer whose
        SRV expired is dropped. A peer whose records come back (it restarted, the link
        returned) is listed again, even when zeroconf sends no new event for it.
        """
        pause = MAINTENANCE_INTERVAL
        while True:
            await asyncio.sleep(pause)
            if self._zeroconf is not None:
                shortest_ttl = self._maintain_peers(self._zeroconf.zeroconf)
                pause = min(MAINTENANCE_INTERVAL, max(0.1, shortest_ttl * 0.05))

    def _maintain_peers(self, zeroconf: Zeroconf) -> float:
        """One pass; returns the shortest SRV TTL (s) of the listed peers, which sets how
        often passes run (5% of it, 0.1 s to 1 s): a short TTL is still renewed in time."""
        now = current_time_millis()
        shortest_ttl = math.inf
        for name in list(self._peers):
            service = live_record(zeroconf, name, _DNS_TYPE_SRV, now)
            if service is None:
                self._drop(name)
                continue
            shortest_ttl = min(shortest_ttl, float(service.ttl))
            if now >= service.get_expiration_time(_REFRESH_PERCENT):
                self._ask_again(zeroconf, name, service.ttl, now)
        for name in list(self._rejected):
            if live_record(zeroconf, name, _DNS_TYPE_SRV, now) is None:
                del self._rejected[name]  # gone: judge it afresh if it comes back
        names = live_service_names(zeroconf, now)
        self._lost = {name: due for name, due in self._lost.items() if name in names}
        for name in names:
            if name in self._peers or name in self._rejected or name in self._resolving:
                continue
            if self._is_own(name):
                continue
            if live_record(zeroconf, name, _DNS_TYPE_SRV, now) is not None:
                self._lost.pop(name, None)
                self._start_resolving(zeroconf, name)
            else:
                self._ask_lost_peer(zeroconf, name, now)
        return shortest_ttl

    def _ask_lost_peer(self, zeroconf: Zeroconf, name: str, now: float) -> None:
        """Ask again, backing off to every LOST_PEER_MAX_INTERVAL s, for a peer whose records
        expired (crashed, or cut off): when the link returns it answers and is listed."""
        due_at, interval = self._lost.get(name, (now, 1000.0))
        if now < due_at:
            return
        send_query(zeroconf, name)
        interval = min(interval * 2, LOST_PEER_MAX_INTERVAL * 1000)
        self._lost[name] = (now + interval, interval)

    def _ask_again(self, zeroconf: Zeroconf, name: str, ttl: float, now: float) -> None:
        """Query a peer's SRV and TXT records so its answer renews them: at 75%, 85% and 95%
        of their life while no answer comes."""
        if now - self._asked_at.get(name, 0.0) < ttl * 100:  # 10% of the TTL, in ms
            return
        self._asked_at[name] = now
        send_query(zeroconf, name)


def send_query(zeroconf: Zeroconf, name: str) -> None:
    """Multicast a question for a service's SRV and TXT records (no known answers)."""
    query = DNSOutgoing(_DNS_FLAGS_QUERY, multicast=True)
    for record_type in (_DNS_TYPE_SRV, _DNS_TYPE_TXT):
        query.add_question(DNSQuestion(name, record_type, _DNS_CLASS_IN))
    zeroconf.async_send(query)


def live_record(zeroconf: Zeroconf, name: str, record_type: int, now: float) -> DNSRecord | None:
    """The cached record of this name and type that lives longest, or None if none lives."""
    records = [
        record
        for record in zeroconf.cache.get_all_by_details(name, record_type, _DNS_CLASS_IN)
        if not record.is_expired(now)
    ]
    return max(records, key=lambda record: record.get_expiration_time(100), default=None)


def live_service_names(zeroconf: Zeroconf, now: float) -> list[str]:
    """Instance names with an unexpired ``_wec._tcp`` PTR record in zeroconf's cache."""
    records = zeroconf.cache.get_all_by_details(SERVICE_TYPE, _DNS_TYPE_PTR, _DNS_CLASS_IN)
    aliases = (getattr(record, "alias", None) for record in records if not record.is_expired(now))
    return sorted({alias for alias in aliases if isinstance(alias, str)})


def peer_from_service_info(name: str, info: AsyncServiceInfo) -> PeerInfo:
    """A validated :class:`PeerInfo` from a resolved service; TxtRecordError if unusable."""
    display_name, protocol_version, fingerprint = parse_peer_txt(bytes(info.text or b""))
    port = info.port
    if port is None or not 1 <= port <= 65535:
        raise TxtRecordError(f"SRV port {port} outside 1..65535")
    addresses = validate_addresses(info.parsed_addresses(IPVersion.V4Only))
    if not addresses:
        raise TxtRecordError("no usable IPv4 address")
    return PeerInfo(name, display_name, fingerprint, protocol_version, addresses, port)


async def await_(awaitable: Any) -> None:
    """Await what zeroconf's async_* calls return (an awaitable for the broadcasts)."""
    await awaitable


# --------------------------------------------------------------------------- command line


def _print_event(event: dict[str, Any]) -> None:
    print(json.dumps(event, sort_keys=True), flush=True)


async def run_cli(arguments: argparse.Namespace) -> None:
    """Advertise and browse, print events as JSON lines, stop on 'stop' or end of input."""
    def on_change(change: PeerChange) -> None:
        _print_event({"event": change.kind, "at": change.at, "peer": asdict(change.peer)})

    def on_rejected(name: str, reason: str) -> None:
        _print_event({"event": "rejected", "at": time.monotonic(), "service_name": name,
                      "reason": reason})

    discovery = Discovery(
        arguments.name, arguments.fingerprint, arguments.protocol_version, arguments.port,
        on_change=on_change, on_rejected=on_rejected,
        include_loopback=arguments.include_loopback, record_ttl=arguments.ttl,
    )
    start_called_at = time.monotonic()
    await discovery.start()
    _print_event({"event": "started", "start_called_at": start_called_at,
                  "at": time.monotonic(), "service_name": discovery.service_name,
                  "interfaces": discovery.interface_addresses})
    loop = asyncio.get_running_loop()
    while True:
        line = await loop.run_in_executor(None, sys.stdin.readline)
        if not line or line.strip() == "stop":
            break
    await discovery.stop()
    _print_event({"event": "stopped", "at": time.monotonic()})


def main(argv: Sequence[str] | None = None) -> None:
    """``python -m wec.net.discovery``: one advertiser and browser on this machine."""
    parser = argparse.ArgumentParser(prog="python -m wec.net.discovery", description=__doc__
                                     and __doc__.splitlines()[0])
    parser.add_argument("--name", required=True)
    parser.add_argument("--fingerprint", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--protocol-version", type=int, default=1)
    parser.add_argument("--ttl", type=int, default=DEFAULT_RECORD_TTL)
    parser.add_argument("--include-loopback", action="store_true")
    parser.add_argument("--log-level", default="WARNING")
    arguments = parser.parse_args(argv)
    logging.basicConfig(level=arguments.log_level, stream=sys.stderr,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    asyncio.run(run_cli(arguments))


if __name__ == "__main__":
    main()
