"""Per-turn commitments to one side's hidden pieces: salted Merkle trees, signed.

Every turn each side commits to its hidden part so that, when the game ends, it cannot
claim its hidden pieces were elsewhere. The commitment covers *every* cell of the board,
300 of them (100 squares x 3 levels; cell numbers as in ``engine.board``: ``square * 3 +
level``), occupied or not, so the shape of the tree never tells how many pieces there
are. Each cell is one leaf::

    leaf(cell) = SHA-256("wec-commit leaf v1" || salt || cell (2 bytes) ||
                         len(contents) (2 bytes) || contents)

``contents`` is the canonical encoding of what the side holds in that cell, hidden pieces
only (empty bytes for an empty cell); the encoding is the caller's (the engine's), it
must be canonical (one byte string per contents) and at most ``MAX_CONTENTS`` bytes.
Internal nodes are ``SHA-256("wec-commit node v1" || left || right)``; the tree has a
fixed depth of 9 (512 leaf slots, the 212 after the last cell hold a constant padding
leaf), so every opening carries exactly 9 sibling hashes. The leaf and node prefixes keep a
leaf from ever being read as a node (second preimages).

Salts: each leaf has a fresh 32-byte salt every turn. It hides the leaf: without it, a
cell's few possible contents could be hashed and compared. Salts are derived, not stored:
``salt = BLAKE2b(key=seed, person="wec-commit salt", turn || cell)`` with one 32-byte
secret *game seed* per side and game. Why one seed per game rather than one per turn:
during the game a salt leaves the machine only inside an :class:`Opening` (one leaf that
the rule reveals anyway), and a salt reveals nothing about the others (BLAKE2b is a
PRF); revealing a *seed*, on the contrary, unlocks every leaf it derives, and with the
few possible contents of a cell that is the whole hidden position. So no seed may be
revealed before the end, per turn or not, and at the end everything is revealed at once
(``audit``): one seed per game is then the simplest record (32 bytes to keep, to save
with the half state and to reveal), and nothing is gained by per-turn seeds.

The seed must be secret, fresh for every game and independent of the identity key
(:func:`new_seed`); it is part of what a side saves to resume.

A :class:`SignedCommitment` is the root with the game id, the turn (or any increasing
counter of commitments), the side, and the committer's Ed25519 signature over a
domain-separated encoding; a third party checks it with the public key alone.

Sizes are constant: a root 32 bytes, a signed commitment ``SIGNED_COMMITMENT_SIZE``
(121) bytes, an opening ``opening_size(max_contents)`` bytes (2 + 32 + 2 + max_contents +
9 x 32; 452 with the default 128).
"""

from __future__ import annotations

import hashlib
import secrets
import struct
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache

from wec.net.errors import ProtocolError, described
from wec.net.identity import SIGNATURE_SIZE, Identity, verify_signature

CELLS = 300  # engine.board.CELLS: 100 squares x 3 levels (tests check they agree)
DEPTH = 9  # 2 ** 9 = 512 >= CELLS
HASH_SIZE = 32
SALT_SIZE = 32
SEED_SIZE = 32
GAME_ID_SIZE = 16
MAX_CONTENTS = 128  # bytes of one cell's canonical contents
MAX_TURN = 2 ** 64 - 1
SIDES = ("white", "black")

_LEAF = b"wec-commit leaf v1"
_NODE = b"wec-commit node v1"
_PAD = b"wec-commit padding leaf v1"
_SALT_PERSON = b"wec-commit salt"  # BLAKE2b personalisation: at most 16 bytes
_SIGNED = b"wec-commit signed root v1"
_U16 = struct.Struct(">H")
_U64 = struct.Struct(">Q")


_CELL_BYTES = tuple(_U16.pack(cell) for cell in range(CELLS))  # each cell as it is hashed


class CommitmentError(ProtocolError):
    """A commitment, opening or signed root from the peer that is malformed."""


def new_seed() -> bytes:
    """A fresh secret game seed (one per side and game)."""
    return secrets.token_bytes(SEED_SIZE)


def salt_for(seed: bytes, turn: int, cell: int) -> bytes:
    """The salt of ``cell``'s leaf in the commitment of ``turn``."""
    h = _salt_hash(seed)
    h.update(_U64.pack(turn) + _U16.pack(cell))
    return h.digest()


def salts_of_turn(seed: bytes, turn: int) -> tuple[bytes, ...]:
    """Every cell's salt for ``turn`` (:func:`salt_for` of each): the keyed hash set up
    once and copied per cell, half the time of keying it 300 times."""
    keyed = _salt_hash(seed)
    prefix = _U64.pack(turn)
    salts = []
    for cell in _CELL_BYTES:
        h = keyed.copy()
        h.update(prefix + cell)
        salts.append(h.digest())
    return tuple(salts)


def _salt_hash(seed: bytes) -> hashlib.blake2b:
    """The salts' BLAKE2b, keyed with ``seed``, no data yet."""
    if len(seed) != SEED_SIZE:
        raise ValueError(f"a commitment seed has {SEED_SIZE} bytes (got {len(seed)})")
    return hashlib.blake2b(key=seed, digest_size=SALT_SIZE, person=_SALT_PERSON)


def leaf_hash(salt: bytes, cell: int, contents: bytes) -> bytes:
    """The leaf of one cell (see the module docstring)."""
    return hashlib.sha256(_LEAF + salt + _U16.pack(cell) + _U16.pack(len(contents))
                          + contents).digest()


def _node(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(_NODE + left + right).digest()


@cache
def _padding() -> tuple[bytes, ...]:
    """The hash of an all-padding subtree at each height 0..DEPTH."""
    level = [hashlib.sha256(_PAD).digest()]
    for _ in range(DEPTH):
        level.append(_node(level[-1], level[-1]))
    return tuple(level)


def _check_contents(cell: int, contents: bytes, max_contents: int) -> None:
    if not 0 <= cell < CELLS:
        raise ValueError(f"cell {cell} is not on the board (0..{CELLS - 1})")
    if len(contents) > max_contents:
        raise ValueError(f"cell {cell}: contents of {len(contents)} bytes (at most "
                         f"{max_contents})")


def _cells(turn: int, contents: Mapping[int, bytes], max_contents: int) -> tuple[bytes, ...]:
    """Every cell's contents (empty where left out), checked, for the commitment of
    ``turn``."""
    if not 0 <= turn <= MAX_TURN:
        raise ValueError(f"turn {turn} out of range")
    for cell, data in contents.items():
        _check_contents(cell, data, max_contents)
    return tuple(contents.get(cell, b"") for cell in range(CELLS))


def _levels(leaves: Sequence[bytes]) -> list[list[bytes]]:
    """Every level of the tree, leaves first; padding subtrees are not expanded."""
    pad = _padding()
    levels = [list(leaves)]
    for height in range(DEPTH):
        below = levels[-1]
        if len(below) % 2:
            below = [*below, pad[height]]
        levels.append([_node(below[k], below[k + 1]) for k in range(0, len(below), 2)])
    return levels


def merkle_root(leaves: Sequence[bytes]) -> bytes:
    """The root over the leaves of cells 0..len-1 (the rest of the 512 slots padding)."""
    if not 0 < len(leaves) <= 2 ** DEPTH:
        raise ValueError(f"a tree has 1..{2 ** DEPTH} leaves (got {len(leaves)})")
    return _levels(leaves)[-1][0]


def opening_size(max_contents: int = MAX_CONTENTS) -> int:
    """Bytes of an :class:`Opening` on the wire (constant for given ``max_contents``)."""
    return 2 + SALT_SIZE + 2 + max_contents + DEPTH * HASH_SIZE


@dataclass(frozen=True)
class Opening:
    """One leaf opened: the cell, its contents, its salt and the 9 sibling hashes from
    the leaf up to the root."""

    cell: int
    contents: bytes
    salt: bytes
    path: tuple[bytes, ...]

    def root(self) -> bytes:
        """The root this opening leads to (compare with a signed one)."""
        node = leaf_hash(self.salt, self.cell, self.contents)
        index = self.cell
        for sibling in self.path:
            node = _node(sibling, node) if index & 1 else _node(node, sibling)
            index >>= 1
        return node

    def verify(self, root: bytes) -> bool:
        """True when this opening is part of the tree whose root is ``root``."""
        return (0 <= self.cell < CELLS and len(self.salt) == SALT_SIZE
                and len(self.path) == DEPTH and all(len(h) == HASH_SIZE for h in self.path)
                and secrets.compare_digest(self.root(), root))

    def to_bytes(self, max_contents: int = MAX_CONTENTS) -> bytes:
        """Fixed size, ``opening_size(max_contents)``: the contents are zero-padded."""
        _check_contents(self.cell, self.contents, max_contents)
        if len(self.salt) != SALT_SIZE or len(self.path) != DEPTH \
                or any(len(h) != HASH_SIZE for h in self.path):
            raise ValueError("an opening has a 32-byte salt and 9 hashes of 32 bytes")
        return (_U16.pack(self.cell) + self.salt + _U16.pack(len(self.contents))
                + self.contents + bytes(max_contents - len(self.contents))
                + b"".join(self.path))

    @classmethod
    def from_bytes(cls, data: bytes, max_contents: int = MAX_CONTENTS) -> Opening:
        """Decode an opening from the peer; CommitmentError names what is wrong."""
        if type(data) is not bytes or len(data) != opening_size(max_contents):
            raise CommitmentError(f"an opening has {opening_size(max_contents)} bytes (got "
                                  f"{described(data)})")
        (cell,) = _U16.unpack_from(data, 0)
        salt = data[2:2 + SALT_SIZE]
        (length,) = _U16.unpack_from(data, 2 + SALT_SIZE)
        start = 4 + SALT_SIZE
        if cell >= CELLS:
            raise CommitmentError(f"an opening names cell {cell} (0..{CELLS - 1})")
        if length > max_contents:
            raise CommitmentError(f"an opening's contents claim {length} bytes (at most "
                                  f"{max_contents})")
        if any(data[start + length:start + max_contents]):
            raise CommitmentError("an opening's padding is not zeros")
        contents = data[start:start + length]
        at = start + max_contents
        path = tuple(data[at + k * HASH_SIZE:at + (k + 1) * HASH_SIZE] for k in range(DEPTH))
        return cls(cell, contents, salt, path)


@dataclass(frozen=True)
class Commitment:
    """One side's commitment for one turn: every leaf, kept by the committer to open
    leaves later. Only :attr:`root` (in a :class:`SignedCommitment`) leaves the machine."""

    turn: int
    contents: tuple[bytes, ...]  # per cell, CELLS entries
    salts: tuple[bytes, ...]
    levels: tuple[tuple[bytes, ...], ...]

    @classmethod
    def build(cls, seed: bytes, turn: int, contents: Mapping[int, bytes],
              max_contents: int = MAX_CONTENTS, *, ahead: Commitment | None = None
              ) -> Commitment:
        """Commit to ``contents`` (cell -> canonical contents bytes; cells left out are
        empty) with the salts of ``seed`` for ``turn``.

        ``ahead``: a commitment of the same seed and turn made earlier (while waiting,
        on the contents as they stood then). Its salts, the leaves of the cells whose
        contents did not change and the nodes above only those are reused, so that a
        commitment made when the turn ends costs a few hashes per changed cell instead
        of some 900 (about half a millisecond). The result is the same as without it; an
        ``ahead`` of another turn or seed is ignored."""
        cells = _cells(turn, contents, max_contents)
        if ahead is not None and ahead.turn == turn \
                and secrets.compare_digest(ahead.salts[0], salt_for(seed, turn, 0)):
            return ahead if ahead.contents == cells else ahead._changed(cells)
        *_, made = cls.build_steps(seed, turn, contents, max_contents)
        assert made is not None
        return made

    @classmethod
    def build_steps(cls, seed: bytes, turn: int, contents: Mapping[int, bytes],
                    max_contents: int = MAX_CONTENTS) -> Iterator[Commitment | None]:
        """:meth:`build` without ``ahead``, in three steps (the salts, the leaves, the
        tree): None after each of the first two, then the commitment. Idle work makes
        one a slice (0.3-0.5 ms each), so that a peer's message coming meanwhile waits
        behind one of them rather than the whole (1.2-1.6 ms, until session 36)."""
        cells = _cells(turn, contents, max_contents)
        salts = salts_of_turn(seed, turn)
        yield None
        leaves = [leaf_hash(salts[c], c, cells[c]) for c in range(CELLS)]
        yield None
        yield cls(turn, cells, salts, tuple(tuple(level) for level in _levels(leaves)))

    def _changed(self, cells: tuple[bytes, ...]) -> Commitment:
        """This commitment with the contents ``cells``: the changed leaves and their
        paths up to the root hashed again."""
        pad = _padding()
        levels = [list(level) for level in self.levels]
        changed = {c for c in range(CELLS) if cells[c] != self.contents[c]}
        for c in changed:
            levels[0][c] = leaf_hash(self.salts[c], c, cells[c])
        for height in range(DEPTH):
            below, above = levels[height], levels[height + 1]
            changed = {index >> 1 for index in changed}
            for parent in changed:
                left = 2 * parent
                above[parent] = _node(below[left],
                                      below[left + 1] if left + 1 < len(below) else pad[height])
        return Commitment(self.turn, cells, self.salts, tuple(tuple(level) for level in levels))

    @property
    def root(self) -> bytes:
        return self.levels[-1][0]

    def open(self, cell: int) -> Opening:
        """The opening of ``cell``'s leaf (its contents, salt and path)."""
        if not 0 <= cell < CELLS:
            raise ValueError(f"cell {cell} is not on the board (0..{CELLS - 1})")
        pad = _padding()
        path = []
        index = cell
        for height in range(DEPTH):
            level = self.levels[height]
            sibling = index ^ 1
            path.append(level[sibling] if sibling < len(level) else pad[height])
            index >>= 1
        return Opening(cell, self.contents[cell], self.salts[cell], tuple(path))


def commitment_root(seed: bytes, turn: int, contents: Mapping[int, bytes],
                    max_contents: int = MAX_CONTENTS) -> bytes:
    """The root :meth:`Commitment.build` gives: what the audit recomputes from the
    revealed seed and the replayed hidden position."""
    return Commitment.build(seed, turn, contents, max_contents).root


# ---------------------------------------------------------------- signed roots

SIGNED_COMMITMENT_SIZE = GAME_ID_SIZE + 8 + 1 + HASH_SIZE + SIGNATURE_SIZE


@dataclass(frozen=True)
class SignedCommitment:
    """A root as its committer signed it: game id, turn, side, root and signature."""

    game_id: bytes
    turn: int
    side: str  # "white" or "black"
    root: bytes
    signature: bytes

    @staticmethod
    def signed_bytes(game_id: bytes, turn: int, side: str, root: bytes) -> bytes:
        """What the signature covers: a domain label, then the fixed-size fields."""
        if len(game_id) != GAME_ID_SIZE or len(root) != HASH_SIZE:
            raise ValueError("a game id has 16 bytes and a root 32")
        if side not in SIDES or not 0 <= turn <= MAX_TURN:
            raise ValueError(f"side {side!r}, turn {turn}: side is white or black")
        return _SIGNED + game_id + _U64.pack(turn) + bytes([SIDES.index(side)]) + root

    @classmethod
    def sign(cls, identity: Identity, game_id: bytes, turn: int, side: str,
             root: bytes) -> SignedCommitment:
        signature = identity.sign(cls.signed_bytes(game_id, turn, side, root))
        return cls(game_id, turn, side, root, signature)

    def verify(self, public_key: bytes) -> bool:
        """True when ``public_key`` signed exactly this record."""
        try:
            data = self.signed_bytes(self.game_id, self.turn, self.side, self.root)
        except ValueError:
            return False
        return verify_signature(public_key, self.signature, data)

    def to_bytes(self) -> bytes:
        """``SIGNED_COMMITMENT_SIZE`` bytes."""
        if len(self.signature) != SIGNATURE_SIZE:
            raise ValueError("an Ed25519 signature has 64 bytes")
        return self.signed_bytes(self.game_id, self.turn, self.side,
                                 self.root)[len(_SIGNED):] + self.signature

    @classmethod
    def from_bytes(cls, data: bytes) -> SignedCommitment:
        if type(data) is not bytes or len(data) != SIGNED_COMMITMENT_SIZE:
            raise CommitmentError(f"a signed commitment has {SIGNED_COMMITMENT_SIZE} bytes "
                                  f"(got {described(data)})")
        game_id = data[:GAME_ID_SIZE]
        (turn,) = _U64.unpack_from(data, GAME_ID_SIZE)
        side_byte = data[GAME_ID_SIZE + 8]
        if side_byte >= len(SIDES):
            raise CommitmentError(f"a signed commitment names side {side_byte} (0 or 1)")
        at = GAME_ID_SIZE + 9
        return cls(game_id, turn, SIDES[side_byte], data[at:at + HASH_SIZE],
                   data[at + HASH_SIZE:])


def check_opening(signed: SignedCommitment, opening: Opening, public_key: bytes,
                  cell: int | None = None) -> str | None:
    """Why ``opening`` does not prove ``cell``'s contents under ``signed`` (None when it
    does): the signature, the cell asked for, the Merkle path."""
    if not signed.verify(public_key):
        return f"the {signed.side} commitment of turn {signed.turn} is not signed by its key"
    if cell is not None and opening.cell != cell:
        return f"the opening is of cell {opening.cell}, not of cell {cell}"
    if not opening.verify(signed.root):
        return (f"the opening of cell {opening.cell} does not match the {signed.side} "
                f"commitment of turn {signed.turn}")
    return None


def audit_commitments(seed: bytes, game_id: bytes, side: str, public_key: bytes,
                      signed: Sequence[SignedCommitment],
                      positions: Sequence[Mapping[int, bytes]],
                      max_contents: int = MAX_CONTENTS) -> str | None:
    """The end-of-game check of one side's commitments: ``signed[k]`` must be signed by
    ``public_key`` for this game and side and be the root of ``positions[k]`` (the hidden
    contents the replay derives for that commitment's turn) with ``seed``'s salts. Returns
    the first failure as one line, or None when every commitment checks."""
    if len(signed) != len(positions):
        return f"{len(signed)} commitments for {len(positions)} replayed turns"
    for record, contents in zip(signed, positions, strict=True):
        where = f"turn {record.turn}: the {side} commitment"
        if record.game_id != game_id or record.side != side:
            return f"{where} is for another game or side"
        if not record.verify(public_key):
            return f"{where}: the signature by {side.capitalize()} does not verify"
        if commitment_root(seed, record.turn, contents, max_contents) != record.root:
            return f"{where} does not match the replayed hidden pieces and revealed seed"
    return None
