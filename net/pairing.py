"""Pairing: the short authentication string and the pinned-peers store.

The first time two installations meet, the handshake gives both sides the same 6-digit
*short authentication string* (SAS), computed from both identity keys and the handshake
transcript. Both screens show it; both players check that the digits match and confirm.
Someone relaying the connection in the middle runs two separate handshakes, so the two
screens show different digits (the handshake's commit-and-reveal stops the relay from
searching for a colliding pair). After confirmation each side *pins* the peer's key under
the peer's display name. From then on the name must come with the same key: a changed key
is refused with :class:`PeerKeyChanged`, which names both fingerprints.

The store is a JSON file ``<state dir>/pinned_peers.json`` written atomically (temporary
file, fsync, rename), owner-only. A malformed store is an error, never silently reset:
forgetting pins would quietly let an impostor pair again.

Lobby flow (per connection): ``status = store.check(session.peer_name,
session.peer_key)``; PINNED -> go on; NEW -> show ``session.sas`` to the player, exchange
``PairingResult`` messages, and only when both confirmed call ``store.pin(...)``.
"""

from __future__ import annotations

import base64
import binascii
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
STORE_FORMAT = "wec-pinned-peers/1"
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
    NEW = "new"  # this name was never paired: compare the SAS, then pin


@dataclass(frozen=True)
class PinnedPeer:
    """One pinned peer: display name, raw Ed25519 public key and when it was pinned."""

    name: str
    public_key: bytes
    pinned_at: str

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.public_key)


class PeerStore:
    """The pinned peers of one installation (re-read on every call, so several windows
    or processes sharing a state dir see each other's pins)."""

    def __init__(self, state_dir: Path | None = None) -> None:
        folder = state_dir if state_dir is not None else default_state_dir()
        self.path = folder / STORE_FILE_NAME

    # ------------------------------------------------------------ queries

    def peers(self) -> list[PinnedPeer]:
        """Every pinned peer, sorted by name."""
        return sorted(self._load().values(), key=lambda peer: peer.name)

    def get(self, name: str) -> PinnedPeer | None:
        return self._load().get(name)

    def name_for_key(self, public_key: bytes) -> str | None:
        """The name a key is pinned under (for reconnecting by key), or None."""
        for peer in self.peers():
            if peer.public_key == public_key:
                return peer.name
        return None

    def check(self, name: str, public_key: bytes) -> PinStatus:
        """PINNED when ``name`` is pinned to ``public_key``, NEW when ``name`` is unknown.

        Raises PeerKeyChanged (and logs it at error level) when ``name`` is pinned to a
        different key.
        """
        known = self.get(name)
        if known is None:
            return PinStatus.NEW
        if known.public_key != public_key:
            error = PeerKeyChanged(name, known.fingerprint, fingerprint(public_key))
            log.error("%s", error)
            raise error
        return PinStatus.PINNED

    # ------------------------------------------------------------ changes

    def pin(self, name: str, public_key: bytes) -> PinnedPeer:
        """Pin ``public_key`` under ``name`` after both players confirmed the SAS.
        Pinning the same key again is harmless; a different key raises PeerKeyChanged."""
        problem = display_name_problem(name)
        if problem is not None:
            raise ValueError(problem)
        if len(public_key) != PUBLIC_KEY_SIZE:
            raise ValueError(f"an identity key has {PUBLIC_KEY_SIZE} bytes")
        peers = self._load()
        if self.check(name, public_key) is PinStatus.PINNED:
            return peers[name]
        pinned = PinnedPeer(name, public_key,
                            datetime.now(UTC).isoformat(timespec="seconds"))
        peers[name] = pinned
        self._save(peers)
        log.info("pinned peer %r with key %s", name, pinned.fingerprint)
        return pinned

    def forget(self, name: str) -> bool:
        """Remove the pin for ``name`` (the player's explicit decision, e.g. after the
        peer reinstalled); True when there was one."""
        peers = self._load()
        if name not in peers:
            return False
        del peers[name]
        self._save(peers)
        log.warning("forgot the pinned key of peer %r", name)
        return True

    # ------------------------------------------------------------ file

    def _load(self) -> dict[str, PinnedPeer]:
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
                                f"({exc}); fix or remove it (removing forgets every "
                                "pairing)") from None
        return _peers_from_json(data, self.path)

    def _save(self, peers: dict[str, PinnedPeer]) -> None:
        data = {"format": STORE_FORMAT, "peers": [
            {"name": peer.name, "public_key": base64.b64encode(peer.public_key).decode(),
             "fingerprint": peer.fingerprint, "pinned_at": peer.pinned_at}
            for peer in sorted(peers.values(), key=lambda p: p.name)]}
        text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
        write_atomically(self.path, text.encode("utf-8"), mode=PRIVATE_MODE, make_folder=True)


def _peers_from_json(data: Any, path: Path) -> dict[str, PinnedPeer]:
    def bad(why: str) -> PinStoreError:
        return PinStoreError(f"the pinned peers file {path} is malformed: {why}")

    if not isinstance(data, dict) or data.get("format") != STORE_FORMAT:
        raise bad(f"expected an object with \"format\": \"{STORE_FORMAT}\"")
    items = data.get("peers")
    if not isinstance(items, list):
        raise bad("\"peers\" must be a list")
    peers: dict[str, PinnedPeer] = {}
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise bad(f"peers[{index}] must be an object")
        name, encoded, pinned_at = item.get("name"), item.get("public_key"), \
            item.get("pinned_at")
        problem = display_name_problem(name)
        if problem is not None or not isinstance(name, str):
            raise bad(f"peers[{index}].name: {problem}")
        if name in peers:
            raise bad(f"peers[{index}]: the name {name!r} is pinned twice")
        try:
            key = base64.b64decode(str(encoded), validate=True)
        except (binascii.Error, ValueError):
            key = b""
        if len(key) != PUBLIC_KEY_SIZE:
            raise bad(f"peers[{index}].public_key must be {PUBLIC_KEY_SIZE} bytes in base64")
        if not isinstance(pinned_at, str):
            raise bad(f"peers[{index}].pinned_at must be a date text")
        peers[name] = PinnedPeer(name, key, pinned_at)
    return peers


