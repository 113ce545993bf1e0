"""A signed, hash-chained record of a game's messages: evidence a third party can check.

The session keys authenticate messages between the two peers only (either peer could
forge a transcript with them). To let a third party holding nothing but both players'
Ed25519 public keys check who said what and in which order, every game message that a
later proof may need travels with an :class:`Entry` signed by its sender's identity key::

    entry = (game id, sender, seq, SHA-256(message), previous, peer_count, peer_last)

* ``seq`` numbers the sender's own entries from 0 and ``previous`` is the hash of the
  sender's previous entry (zeros for the first): each sender's messages form a chain,
  so a dropped, reordered or inserted entry breaks it;
* ``peer_count`` and ``peer_last`` acknowledge the peer's chain: how many of the peer's
  entries the sender had received when it sent this one, and the hash of the last of
  them. Two chains cross-linked this way fix the order of everything both sides said
  (a message sent "after" another one it had read), without forcing the two sides to
  take turns; both send whenever the lockstep lets them.

The entry hash is SHA-256 over a domain label and the signed bytes (``ENTRY_SIZE``
bytes of fixed layout); the signature is Ed25519 over the same bytes, so the signature
and the hash cover exactly the same thing. An entry on the wire is ``SIGNED_ENTRY_SIZE``
(193) bytes next to its message.

A :class:`EvidenceLog` keeps one side's record as the game goes: :meth:`seal` for each
message it sends (the entry to send along), :meth:`accept` for each message it receives
(refused, with the reason, if the signature or a link is wrong). The
:class:`EvidenceRecord` (the entries with their messages, in the order this side saw
them) is saved with the half state and exported as a msgpack file
(``wec-evidence/1``); :func:`verify_record` checks it with both public keys and reports
the first failure precisely ("entry 17: signature by Black does not verify").
"""

from __future__ import annotations

import hashlib
import struct
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import msgpack  # type: ignore[import-untyped]

from wec.net.errors import ProtocolError
from wec.net.identity import PUBLIC_KEY_SIZE, SIGNATURE_SIZE, Identity, verify_signature

FORMAT = "wec-evidence/1"
GAME_ID_SIZE = 16
HASH_SIZE = 32
SIDES = ("white", "black")
MAX_ENTRIES = 10_000_000
MAX_MESSAGE = 1 << 20
_SIGNED_LABEL = b"wec-evidence entry v1"
_HASH_LABEL = b"wec-evidence entry hash v1"
_LAYOUT = struct.Struct(f">{GAME_ID_SIZE}sBQ{HASH_SIZE}s{HASH_SIZE}sQ{HASH_SIZE}s")
ENTRY_SIZE = _LAYOUT.size  # 129
SIGNED_ENTRY_SIZE = ENTRY_SIZE + SIGNATURE_SIZE  # 193
ZERO_HASH = bytes(HASH_SIZE)


class EvidenceError(ProtocolError):
    """An entry from the peer that does not fit its record: a bad signature, a broken
    link or a mismatched message hash. Fatal: the exchange cannot be proven any more."""


class BadSignature(EvidenceError):
    """An entry accepted for a later signature check whose signature fails."""

    def __init__(self, index: int, reason: str) -> None:
        super().__init__(reason)
        self.index = index


def message_hash(message: bytes) -> bytes:
    return hashlib.sha256(b"wec-evidence message v1" + message).digest()


def _other(side: str) -> str:
    return SIDES[1 - SIDES.index(side)]


@dataclass(frozen=True)
class Entry:
    """One signed entry (see the module docstring)."""

    game_id: bytes
    sender: str
    seq: int
    message_hash: bytes
    previous: bytes
    peer_count: int
    peer_last: bytes
    signature: bytes = b""

    def signed_bytes(self) -> bytes:
        if self.sender not in SIDES:
            raise ValueError(f"sender {self.sender!r}: white or black")
        return _LAYOUT.pack(self.game_id, SIDES.index(self.sender), self.seq,
                            self.message_hash, self.previous, self.peer_count,
                            self.peer_last)

    def digest(self) -> bytes:
        """The entry's hash: what the next entry's ``previous`` (or the peer's
        ``peer_last``) holds."""
        return hashlib.sha256(_HASH_LABEL + self.signed_bytes()).digest()

    def verify(self, public_key: bytes) -> bool:
        try:
            data = self.signed_bytes()
        except (ValueError, struct.error):
            return False
        return verify_signature(public_key, self.signature, data)

    def to_bytes(self) -> bytes:
        """``SIGNED_ENTRY_SIZE`` bytes."""
        if len(self.signature) != SIGNATURE_SIZE:
            raise ValueError("an entry is signed before it is sent")
        return _LAYOUT.pack(self.game_id, SIDES.index(self.sender), self.seq,
                            self.message_hash, self.previous, self.peer_count,
                            self.peer_last) + self.signature

    @classmethod
    def from_bytes(cls, data: bytes) -> Entry:
        if type(data) is not bytes or len(data) != SIGNED_ENTRY_SIZE:
            raise EvidenceError(f"an evidence entry has {SIGNED_ENTRY_SIZE} bytes")
        game_id, sender, seq, digest, previous, peer_count, peer_last = \
            _LAYOUT.unpack_from(data)
        if sender >= len(SIDES):
            raise EvidenceError(f"an evidence entry names sender {sender} (0 or 1)")
        return cls(game_id, SIDES[sender], seq, digest, previous, peer_count, peer_last,
                   data[ENTRY_SIZE:])


@dataclass
class _Chain:
    """What the record holds of one sender's chain so far."""

    count: int = 0
    last: bytes = ZERO_HASH
    digests: list[bytes] = field(default_factory=list)


def _link_problem(entry: Entry, chains: Mapping[str, _Chain], game_id: bytes,
                  public_key: bytes, message: bytes | None, *,
                  signature: bool = True) -> str | None:
    """Why ``entry`` cannot come next in a record whose chains are ``chains`` (None when
    it can). ``message``, when given, must be the one the entry hashes; the signature is
    checked unless ``signature`` is False (then checked later: EvidenceLog)."""
    name = entry.sender.capitalize() if entry.sender in SIDES else repr(entry.sender)
    if entry.sender not in SIDES:
        return f"sender {name} is neither White nor Black"
    if entry.game_id != game_id:
        return f"entry by {name} is for another game"
    if signature and not entry.verify(public_key):
        return f"signature by {name} does not verify"
    own, peer = chains[entry.sender], chains[_other(entry.sender)]
    if entry.seq != own.count:
        what = "dropped or reordered" if entry.seq > own.count else "repeated or reordered"
        return (f"{name}'s entry number {entry.seq} where number {own.count} was due "
                f"({what})")
    if entry.previous != own.last:
        return f"{name}'s entry {entry.seq} does not link to {name}'s previous entry"
    if entry.peer_count > peer.count:
        return (f"{name}'s entry {entry.seq} acknowledges {entry.peer_count} entries of "
                f"{_other(entry.sender).capitalize()}, of which only {peer.count} came "
                "before it")
    expected = peer.digests[entry.peer_count - 1] if entry.peer_count else ZERO_HASH
    if entry.peer_last != expected:
        return (f"{name}'s entry {entry.seq} acknowledges another "
                f"{_other(entry.sender).capitalize()} entry {entry.peer_count - 1} than the "
                "recorded one")
    if message is not None and message_hash(message) != entry.message_hash:
        return f"{name}'s message {entry.seq} is not the one its entry signs"
    return None


def _append(entry: Entry, chains: Mapping[str, _Chain]) -> None:
    chain = chains[entry.sender]
    digest = entry.digest()
    chain.count += 1
    chain.last = digest
    chain.digests.append(digest)


@dataclass(frozen=True)
class EvidenceRecord:
    """One side's record: the game, both public keys (for reference: a verifier uses the
    keys it trusts) and every (entry, message) in the order this side saw them."""

    game_id: bytes
    keys: Mapping[str, bytes]
    entries: tuple[tuple[Entry, bytes], ...]

    def to_bytes(self) -> bytes:
        packed: bytes = msgpack.packb({
            "format": FORMAT, "game": self.game_id,
            "keys": [self.keys[side] for side in SIDES],
            "entries": [[e.to_bytes(), m] for e, m in self.entries]}, use_bin_type=True)
        return packed

    @classmethod
    def from_bytes(cls, data: bytes) -> EvidenceRecord:
        """Read a record; EvidenceError names what is malformed."""
        try:
            raw = msgpack.unpackb(data, raw=False, strict_map_key=True,
                                  max_bin_len=MAX_MESSAGE, max_array_len=MAX_ENTRIES)
        except (ValueError, msgpack.UnpackException) as exc:
            raise EvidenceError(f"not an evidence record ({exc})") from None
        if not isinstance(raw, dict) or raw.get("format") != FORMAT:
            raise EvidenceError(f"not a {FORMAT} record")
        game, keys, entries = raw.get("game"), raw.get("keys"), raw.get("entries")
        if not isinstance(game, bytes) or len(game) != GAME_ID_SIZE:
            raise EvidenceError("the record's game id is not 16 bytes")
        if not isinstance(keys, list) or len(keys) != 2 \
                or any(not isinstance(k, bytes) or len(k) != PUBLIC_KEY_SIZE for k in keys):
            raise EvidenceError("the record's keys are not two 32-byte public keys")
        if not isinstance(entries, list):
            raise EvidenceError("the record's entries are not a list")
        pairs = []
        for index, item in enumerate(entries):
            if not isinstance(item, list) or len(item) != 2 \
                    or not all(isinstance(x, bytes) for x in item):
                raise EvidenceError(f"entry {index}: not an (entry, message) pair")
            try:
                pairs.append((Entry.from_bytes(item[0]), item[1]))
            except EvidenceError as exc:
                raise EvidenceError(f"entry {index}: {exc.reason}") from None
        return cls(game, dict(zip(SIDES, keys, strict=True)), tuple(pairs))

    def save(self, path: Path) -> None:
        path.write_bytes(self.to_bytes())

    @classmethod
    def load(cls, path: Path) -> EvidenceRecord:
        return cls.from_bytes(path.read_bytes())


@dataclass(frozen=True)
class Verdict:
    """The result of :func:`verify_record`: ``failure`` is None when every entry checks;
    otherwise ``index`` is the first bad entry (in record order) and ``failure`` says
    why, as ``"entry 17: signature by Black does not verify"``."""

    entries: int
    index: int | None = None
    failure: str | None = None

    @property
    def ok(self) -> bool:
        return self.failure is None


def verify_record(record: EvidenceRecord, white_key: bytes, black_key: bytes) -> Verdict:
    """Check every entry of ``record`` against the two public keys a third party trusts:
    signatures, each sender's chain (numbers, links), the acknowledgements of the other
    chain, and each message's hash. Stops at the first failure."""
    keys = {"white": white_key, "black": black_key}
    chains = {side: _Chain() for side in SIDES}
    for index, (entry, message) in enumerate(record.entries):
        problem = _link_problem(entry, chains, record.game_id,
                                keys.get(entry.sender, b""), message)
        if problem is not None:
            return Verdict(len(record.entries), index, f"entry {index}: {problem}")
        _append(entry, chains)
    return Verdict(len(record.entries))


class EvidenceLog:
    """One side's live record: seal what it sends, accept what it receives."""

    def __init__(self, game_id: bytes, side: str, identity: Identity,
                 peer_key: bytes) -> None:
        if len(game_id) != GAME_ID_SIZE or side not in SIDES:
            raise ValueError("a 16-byte game id and a side, white or black")
        self.game_id = game_id
        self.side = side
        self.identity = identity
        self.keys = {side: identity.public_key, _other(side): peer_key}
        self._chains = {s: _Chain() for s in SIDES}
        self._entries: list[tuple[Entry, bytes]] = []
        self._unchecked: deque[int] = deque()  # entries whose signature is checked later

    def __len__(self) -> int:
        """How many entries the record holds."""
        return len(self._entries)

    def seal(self, message: bytes) -> Entry:
        """The signed entry for ``message`` (about to be sent), recorded."""
        own, peer = self._chains[self.side], self._chains[_other(self.side)]
        entry = Entry(self.game_id, self.side, own.count, message_hash(message), own.last,
                      peer.count, peer.last)
        entry = replace(entry, signature=self.identity.sign(entry.signed_bytes()))
        _append(entry, self._chains)
        self._entries.append((entry, message))
        return entry

    def accept(self, entry: Entry, message: bytes, *, signature_later: bool = False
               ) -> None:
        """Record the peer's ``message`` with its ``entry``; EvidenceError (and nothing
        recorded) when the entry is not the peer's next one or does not sign it.

        With ``signature_later`` everything but the signature is checked now, and the
        signature by :meth:`check_signatures`, which the caller must run before it relies
        on the record as proof (a save, an audit, a verdict): the Ed25519 check is the
        costliest part of taking a message, and the session's authenticated encryption
        already tells that the message is the peer's; the signature is what makes the
        record a proof for a third party."""
        peer = _other(self.side)
        if entry.sender != peer:
            raise EvidenceError(f"an entry from the peer names sender {entry.sender}")
        problem = _link_problem(entry, self._chains, self.game_id, self.keys[peer], message,
                                signature=not signature_later)
        if problem is not None:
            raise EvidenceError(problem)
        _append(entry, self._chains)
        if signature_later:
            self._unchecked.append(len(self._entries))
        self._entries.append((entry, message))

    @property
    def unchecked(self) -> int:
        """How many accepted entries still wait for their signature check."""
        return len(self._unchecked)

    def check_signatures(self, limit: int | None = None) -> None:
        """Check the signatures accepted for later, oldest first (at most ``limit``);
        EvidenceError naming the first that does not verify (it stays unchecked, so a
        later call names it again)."""
        done = 0
        while self._unchecked and (limit is None or done < limit):
            index = self._unchecked[0]
            entry = self._entries[index][0]
            if not entry.verify(self.keys[entry.sender]):
                raise BadSignature(index, f"entry {index}: signature by "
                                          f"{entry.sender.capitalize()} does not verify")
            self._unchecked.popleft()
            done += 1

    def drop_from(self, index: int) -> None:
        """Forget entry ``index`` and every later one (what follows a message whose
        signature fails is no proof: our own later entries acknowledge it), so that the
        record kept verifies and proves everything before."""
        kept = self._entries[:index]
        self._chains = {s: _Chain() for s in SIDES}
        for entry, _ in kept:
            _append(entry, self._chains)
        self._entries = kept
        self._unchecked = deque(i for i in self._unchecked if i < index)

    def record(self) -> EvidenceRecord:
        return EvidenceRecord(self.game_id, dict(self.keys), tuple(self._entries))

    @classmethod
    def resume(cls, record: EvidenceRecord, side: str, identity: Identity) -> EvidenceLog:
        """Continue a saved record (after a restart); ValueError if it does not verify
        or is not this identity's."""
        if record.keys.get(side) != identity.public_key:
            raise ValueError(f"the record's {side} key is not this identity's")
        verdict = verify_record(record, record.keys["white"], record.keys["black"])
        if not verdict.ok:
            raise ValueError(f"the saved record does not verify: {verdict.failure}")
        log = cls(record.game_id, side, identity, record.keys[_other(side)])
        for entry, message in record.entries:
            _append(entry, log._chains)
            log._entries.append((entry, message))
        return log


def describe(record: EvidenceRecord) -> list[dict[str, Any]]:
    """The entries in readable form (for a report): index, sender, seq, message hash."""
    return [{"index": k, "sender": e.sender, "seq": e.seq, "message": e.message_hash.hex(),
             "peer_count": e.peer_count} for k, (e, _) in enumerate(record.entries)]
