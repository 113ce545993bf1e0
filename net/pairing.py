"""Pairing: the short authentication string and the pinned-peers store.

The first time two installations meet, the handshake gives both sides the same 6-digit
*short authentication string* (SAS), computed from both identity keys and the handshake
transcript. Both screens show it; both players check that the digits match and confirm.
Someone relaying the connection in the middle runs two separate handshakes, so the two
screens show different digits (the handshake's commit-and-reveal stops the relay from
searching for a colliding pair). After confirmation each side *pins* the peer's key.

Pins are kept by key (format ``wec-pinned-peers/2``, issue 20 hole 11): the key is the
peer; its display name is what it was last paired under. A pinned key under a new name
is recognised (no new code; RENAMED, and the new name is shown as a rename), while a
pinned *name* presented with another key is refused with :class:`PeerKeyChanged`, which
names both fingerprints: that is what an impostor looks like. A version 1 file (pins by
name) is converted on first use, a copy of it kept as ``pinned_peers.json.v1``.

The store is a JSON file ``<state dir>/pinned_peers.json`` written atomically (temporary
file, fsync, rename), owner-only. A malformed store is an error naming the problem and
the repair, never silently reset: forgetting pins would quietly let an impostor pair
again.

Lobby flow (per connection): ``status = store.check(session.peer_name,
session.peer_key)``; PINNED or RENAMED -> go on; NEW -> show ``session.sas`` to the
player, exchange ``PairingResult`` messages, and only when both confirmed call
``store.pin(...)``.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import hashlib
import json
import logging
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import Enum
from pathlib import Path
from typing import Any

from wec.net.errors import PeerKeyChanged, PinStoreError
from wec.net.identity import PUBLIC_KEY_SIZE, default_state_dir, display_name_problem, fingerprint
from wec.storage.files import PRIVATE_MODE, write_atomically

log = logging.getLogger("wec.net.pairing")

STORE_FILE_NAME = "pinned_peers.json"
STORE_FORMAT = "wec-pinned-peers/2"  # pins by key (issue 20 hole 11)
OLD_STORE_FORMAT = "wec-pinned-peers/1"  # pins by name: read, converted on first use
REPAIR = ("fix the file or remove it (removing forgets every pairing: each peer then "
          "shows a pairing code again)")
SAS_DIGITS = 6
_SAS_LABEL = b"wec-net sas v1"


def short_authentication_string(transcript_hash: bytes, initiator_key: bytes,
                                responder_key: bytes) -> str:
    """The 6 decimal digits both players compare: SHA-256 over a label, the final
    handshake transcript hash and both identity public keys, reduced mod 10**6."""
    digest = hashlib.sha256(_SAS_LABEL + transcript_hash + initiator_key + responder_key)
    number = int.from_bytes(digest.digest()[:8], "big") % 10 ** SAS_DIGITS
    return f"{number:0{SAS_DIGITS}d}"


def format_sas(sas: str) -> str:
    """The SAS as shown on screen: ``123 456``."""
    return f"{sas[:3]} {sas[3:]}"


class PinStatus(Enum):
    """What the store knows about a (name, key) pair."""

    PINNED = "pinned"  # this name is pinned to exactly this key
    RENAMED = "renamed"  # this key is pinned, under another name (the peer renamed itself)
    NEW = "new"  # neither the key nor the name was ever paired: compare the SAS, then pin

    @property
    def pinned(self) -> bool:
        """The key is known (under this name or another): no code to compare."""
        return self is not PinStatus.NEW


@dataclass(frozen=True)
class PinnedPeer:
    """One pinned peer: its raw Ed25519 public key (what identifies it), the display name
    it was last paired under, when it was first pinned and the names it had before."""

    name: str
    public_key: bytes
    pinned_at: str
    former_names: tuple[str, ...] = ()

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.public_key)


class PeerStore:
    """The pinned peers of one installation, keyed by their identity key (re-read on
    every call, so several windows or processes sharing a state dir see each other's
    pins)."""

    def __init__(self, state_dir: Path | None = None) -> None:
        folder = state_dir if state_dir is not None else default_state_dir()
        self.path = folder / STORE_FILE_NAME

    # ------------------------------------------------------------ queries

    def peers(self) -> list[PinnedPeer]:
        """Every pinned peer, sorted by name."""
        return sorted(self._load().values(), key=lambda peer: peer.name)

    def get(self, name: str) -> PinnedPeer | None:
        """The peer pinned under the display name ``name`` (its latest name)."""
        return next((peer for peer in self._load().values() if peer.name == name), None)

    def by_key(self, public_key: bytes) -> PinnedPeer | None:
        """The pin of this identity key, whatever name it was paired under."""
        return self._load().get(public_key)

    def name_for_key(self, public_key: bytes) -> str | None:
        """The name a key is pinned under (for reconnecting by key), or None."""
        known = self.by_key(public_key)
        return known.name if known is not None else None

    def check(self, name: str, public_key: bytes) -> PinStatus:
        """PINNED when ``public_key`` is pinned under ``name``; RENAMED when it is pinned
        under another name (the same peer calls itself something else now; it is
        recognised, and the new name is shown as such); NEW when neither the key nor the
        name is known.

        Raises PeerKeyChanged (and logs it at error level) when ``name`` is pinned to a
        different key: someone else presents a known peer's name.
        """
        peers = self._load()
        holder = next((peer for peer in peers.values() if peer.name == name), None)
        if holder is not None and holder.public_key != public_key:
            error = PeerKeyChanged(name, holder.fingerprint, fingerprint(public_key))
            log.error("%s", error)
            raise error
        known = peers.get(public_key)
        if known is None:
            return PinStatus.NEW
        return PinStatus.PINNED if known.name == name else PinStatus.RENAMED

    # ------------------------------------------------------------ changes

    def pin(self, name: str, public_key: bytes) -> PinnedPeer:
        """Pin ``public_key`` under ``name`` after both players confirmed the SAS (or
        recognised the key: a known key under a new name is renamed, its old name kept
        among its former names). A different key under a pinned name raises
        PeerKeyChanged."""
        problem = display_name_problem(name)
        if problem is not None:
            raise ValueError(problem)
        if len(public_key) != PUBLIC_KEY_SIZE:
            raise ValueError(f"an identity key has {PUBLIC_KEY_SIZE} bytes")
        peers = self._load()
        status = self.check(name, public_key)
        if status is PinStatus.PINNED:
            return peers[public_key]
        if status is PinStatus.RENAMED:
            old = peers[public_key]
            pinned = PinnedPeer(name, public_key, old.pinned_at,
                                tuple(dict.fromkeys((*old.former_names, old.name))))
            log.info("peer %r (key %s) now calls itself %r", old.name, old.fingerprint, name)
        else:
            pinned = PinnedPeer(name, public_key,
                                datetime.now(UTC).isoformat(timespec="seconds"))
            log.info("pinned peer %r with key %s", name, pinned.fingerprint)
        peers[public_key] = pinned
        self._save(peers)
        return pinned

    def forget(self, name: str) -> bool:
        """Remove the pin of the peer named ``name`` (the player's explicit decision, e.g.
        after the peer reinstalled); True when there was one."""
        peers = self._load()
        known = next((peer for peer in peers.values() if peer.name == name), None)
        if known is None:
            return False
        del peers[known.public_key]
        self._save(peers)
        log.warning("forgot the pinned key of peer %r", name)
        return True

    # ------------------------------------------------------------ file

    def _load(self) -> dict[bytes, PinnedPeer]:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        except (OSError, UnicodeDecodeError) as exc:
            raise PinStoreError(f"cannot read the pinned peers file {self.path}: {exc}") \
                from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise PinStoreError(f"the pinned peers file {self.path} is not valid JSON "
                                f"({exc}); {REPAIR}") from None
        peers = _peers_from_json(data, self.path)
        if data.get("format") == OLD_STORE_FORMAT:
            self._migrate(text, peers)
        return peers

    def _migrate(self, text: str, peers: dict[bytes, PinnedPeer]) -> None:
        """A version 1 file (pins by name): keep a copy beside it, then write version 2
        (pins by key)."""
        backup = self.path.with_name(STORE_FILE_NAME + ".v1")
        with contextlib.suppress(FileExistsError):
            write_atomically(backup, text.encode("utf-8"), mode=PRIVATE_MODE, replace=False)
        self._save(peers)
        log.info("the pinned peers file %s was converted to %s (the old one is kept as "
                 "%s)", self.path, STORE_FORMAT, backup.name)

    def _save(self, peers: dict[bytes, PinnedPeer]) -> None:
        data = {"format": STORE_FORMAT, "peers": [
            {"public_key": base64.b64encode(peer.public_key).decode(),
             "fingerprint": peer.fingerprint, "name": peer.name,
             "former_names": list(peer.former_names), "pinned_at": peer.pinned_at}
            for peer in sorted(peers.values(), key=lambda p: (p.name, p.public_key))]}
        text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
        write_atomically(self.path, text.encode("utf-8"), mode=PRIVATE_MODE, make_folder=True)


def _peers_from_json(data: Any, path: Path) -> dict[bytes, PinnedPeer]:
    """The pins of a version 2 file (by key) or a version 1 file (by name, read as
    pins by key); PinStoreError says what is wrong and how to repair it."""
    def bad(why: str) -> PinStoreError:
        return PinStoreError(f"the pinned peers file {path} is malformed: {why}; {REPAIR}")

    if not isinstance(data, dict):
        raise bad(f"expected an object with \"format\": \"{STORE_FORMAT}\"")
    version = data.get("format")
    if version not in (STORE_FORMAT, OLD_STORE_FORMAT):
        if isinstance(version, str) and version.startswith("wec-pinned-peers/"):
            raise PinStoreError(f"the pinned peers file {path} has the format {version!r}, "
                                f"written by a newer wec; this one reads {OLD_STORE_FORMAT} "
                                f"and {STORE_FORMAT}: use the newer wec, or {REPAIR}")
        raise bad(f"expected an object with \"format\": \"{STORE_FORMAT}\"")
    items = data.get("peers")
    if not isinstance(items, list):
        raise bad("\"peers\" must be a list")
    peers: dict[bytes, PinnedPeer] = {}
    names: set[str] = set()
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise bad(f"peers[{index}] must be an object")
        name, encoded, pinned_at = item.get("name"), item.get("public_key"), \
            item.get("pinned_at")
        problem = display_name_problem(name)
        if problem is not None or not isinstance(name, str):
            raise bad(f"peers[{index}].name: {problem}")
        if name in names:
            raise bad(f"peers[{index}]: the name {name!r} is pinned twice")
        names.add(name)
        try:
            key = base64.b64decode(str(encoded), validate=True)
        except (binascii.Error, ValueError):
            key = b""
        if len(key) != PUBLIC_KEY_SIZE:
            raise bad(f"peers[{index}].public_key must be {PUBLIC_KEY_SIZE} bytes in base64")
        if not isinstance(pinned_at, str):
            raise bad(f"peers[{index}].pinned_at must be a date text")
        former = item.get("former_names", [])
        if not isinstance(former, list) or any(display_name_problem(n) for n in former):
            raise bad(f"peers[{index}].former_names must be a list of display names")
        if key in peers:
            if version == STORE_FORMAT:
                raise bad(f"peers[{index}]: the key {fingerprint(key)} is pinned twice")
            # version 1 pinned by name: one key under two names is one peer
            first = peers[key]
            peers[key] = PinnedPeer(first.name, key, first.pinned_at,
                                    (*first.former_names, name))
            continue
        peers[key] = PinnedPeer(name, key, pinned_at, tuple(former))
    return peers
