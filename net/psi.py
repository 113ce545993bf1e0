"""Private set intersection over X25519 for the questions whose cells must stay secret.

Two protocols, both one round trip (a query, a reply), both built only on the
``cryptography`` package's X25519 plus hashing:

* **first hit** (a hidden mover's path, a stunner line from an unseen piece): the asker
  has an ordered list of cells (its path, padded to ``FirstHitShape.max_cells``), the
  owner the cells holding its unseen pieces, each with a label (what the rule shows of
  them). The asker learns the index of the first cell of its list that the owner holds
  and that cell's label, or that there is none; it cannot learn whether any *later* cell
  is held, even if it deviates from the protocol. The owner learns nothing.
* **labelled** (detection, R9.3-R9.6): the owner's items are (cell, label) pairs, the
  asker holds a set of cells (the reach of its detectors, padded to
  ``LabelShape.max_queries``); the asker learns the labels of the owner's items in its
  set and nothing else; the owner learns nothing.

The group
---------
X25519 (RFC 7748) computes ``x(k * P)`` from a scalar ``k`` and the u-coordinate of a
point ``P``. ``X25519PrivateKey.from_private_bytes(k).exchange(X25519PublicKey.
from_public_bytes(u))`` is that scalar multiplication, with ``k`` *clamped*: its low
three bits cleared and bit 254 set, so every scalar is a multiple of the cofactor 8.

* **Hash to the group.** A cell (or a digit, below) becomes a u-coordinate by hashing
  (SHA-512 reduced mod p = 2^255 - 19), retried with a counter until
  ``u^3 + 486662 u^2 + u`` is a square mod p, i.e. until ``u`` is on Curve25519 itself
  and not on its quadratic twist. Nobody knows the discrete logarithm of these points.
  The points are fixed (300 cells, 7 digits, the owner's dummies), so this slow Python
  test runs once per point and is cached.
* **Commutativity.** For points on the curve ``P = Q + T`` (``Q`` in the subgroup of
  prime order ``l = 2^252 + 2774...``, ``T`` of order dividing 8) and clamped ``a``,
  ``b``: ``X25519(a, X25519(b, u)) = x(a*b*Q) = X25519(b, X25519(a, u))``, because scalar
  multiplication commutes, the x-coordinate of ``k*P`` depends only on that of ``P``
  (``x(-P) = x(P)``), and the cofactor in the clamped scalar kills ``T``.
* **Un-blinding.** The labelled protocol and the digit transfers below are oblivious
  PRFs ``F_b(x) = x(b * H(x))``: the asker sends ``x(a * H(x))``, the owner raises it
  to ``b``, the asker raises the result to ``a^-1 mod l``. A clamped scalar is
  ``2^254 + 8m`` with ``m < 2^251``, which covers about half of the residues mod ``l``;
  :class:`Scalar` draws ``a`` until ``a^-1`` also has such a representative (half the
  draws), so un-blinding is one more X25519 call. This only works on the curve (the twist
  has another order), which is why honest points are always on the curve.
* **Twist security and small order.** A dishonest peer may send any 32 bytes: a point of
  the twist, or of small order. X25519 is twist-secure: the twist's order is 4 times a
  253-bit prime, so raising a twist point to our scalar teaches the sender only the
  scalar modulo 4 (zero: clamping), never enough to solve a discrete logarithm; and the
  curve's own small subgroup (order 8) meets only multiples of 8. So points are not
  tested for curve membership (a Legendre symbol costs 10 X25519 calls in Python), but
  a result of all zeros (a point of small order) is refused (:class:`PsiError`), and so
  is any element that is not exactly 32 bytes holding a canonical u < p.

First hit: an oblivious chain
-----------------------------
Plain Diffie-Hellman PSI would show the asker *every* hit on its path. Sequential rounds
(one cell per round, dummies after the first hit, padded to ``max_cells`` rounds) hide
later hits from an honest asker only: a modified program can keep asking real cells, and
is caught only at the audit, after it has used what it learned. The construction here
makes it impossible in one round trip. For each path position ``i`` the owner keeps a
*chain key* ``K_i`` (``K_0`` = zeros) and writes a table row over the whole universe of
cells: the entry of cell ``u`` is ``K_{i+1}`` if ``u`` is free and ``G_u`` (a key to the
label of ``u``) if it holds one of its pieces, encrypted under a key derived from ``K_i``
and from the owner's pseudorandom values ``F_{i,j}(digit_j(u))`` of the base-7 digits of
``u`` (3 digits: 343 > 300), one OPRF key per (position, digit). The asker obtains, by
un-blinding, exactly one digit value per (position, digit): those of its own cell. So at
each position it can open one entry; a free cell gives it the next chain key, a held cell
the label key and no chain key, which ends the chain. Misbehaving, it can choose which
cells to ask, but still learns only the first hit among them (and the audit compares its
cells with the path it reveals). Dummy positions after the real path use a digit code
that names no cell. The asker checks every entry it opens (a hit matches a label tag, a
miss a per-position check value) and refuses a reply that fits neither.

Costs per first-hit question with the defaults (10 cells, 300-cell universe, 56 items,
64-byte labels): the asker 60 X25519 calls, the owner 240 (210 of them for the digit
values, which like the 3,000 BLAKE2b entry pads depend only on its secret, neither on
the query nor on its pieces, so :meth:`FirstHitOwner.prepare` makes them ahead); query
960 bytes, reply 53,600 bytes (``FirstHitShape.reply_size``).

What each side learns
---------------------
Owner: ``max_cells * 3`` uniformly random group elements (the query), the same number
and size whatever the path, its length and whether there is a hit; the owner has no
output. Asker: the first hit and its label or "none"; the reply's other content is
pseudorandom to it. Sizes and counts depend only on the shape. The work of each side is
the same whatever the inputs (the asker un-blinds every element, the owner computes every
entry and every label slot, dummies included), so timing does not tell either.

Randomness and the audit
------------------------
Every run is a deterministic function of the inputs and one 32-byte secret per side
(:func:`run_secret` derives it from a per-game seed and a run id unique to the question),
so at the end of the game, once both sides reveal their seeds, each side checks the
other's messages (``check_*_query``: the owner recomputes the asker's query;
``check_*_answer``: the asker compares what it got with the plain answer on the
revealed pieces) and a third party can check a whole run (:func:`audit_first_hit`,
:func:`audit_labelled`). A run id must never be used twice for
different inputs (the owner could then compare blinded elements across runs).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import struct
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache, cached_property, partial

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from wec.net.errors import ProtocolError, described

P = 2 ** 255 - 19
ORDER = 2 ** 252 + 27742317777372353535851937790883648493  # l, the prime subgroup's order
MONTGOMERY_A = 486662
ELEMENT_SIZE = 32
SECRET_SIZE = 32
KEY_SIZE = 16  # chain keys, label keys, tags, check values
TAG_SIZE = 16
# FirstHitOwner.prepare: per path position, its digit values, then its pads in chunks
PAD_CHUNKS = 3
SLICE_CALLS = 6  # X25519 calls per part of the work made ahead (a third of a millisecond)
LABEL_LENGTH_SIZE = 2
CELLS = 300  # engine.board.CELLS (tests check they agree)

_H2C = b"wec-psi hash-to-curve v1"
_INV8 = pow(8, -1, ORDER)
_CLAMP_HIGH = 2 ** 254
_U16 = struct.Struct(">H")
_U32 = struct.Struct(">I")


class PsiError(ProtocolError):
    """A PSI message from the peer that is refused: a wrong size, an element that is not a
    canonical 32-byte u-coordinate or is of small order, or a reply that does not decode."""


# ---------------------------------------------------------------- the group


def _is_square(v: int) -> bool:
    return pow(v, (P - 1) // 2, P) == 1


def _candidate(domain: bytes, data: bytes, counter: int) -> int:
    """The search's candidate u-coordinate number ``counter`` for ``data``."""
    digest = hashlib.sha512(_H2C + bytes([len(domain)]) + domain + data
                            + bytes([counter])).digest()
    return int.from_bytes(digest, "little") % P


def hash_to_element(domain: bytes, data: bytes) -> bytes:
    """A point of Curve25519 (not of its twist) with unknown discrete logarithm, as a
    32-byte little-endian u-coordinate: the first candidate on the curve. Slow (Python
    modular exponentiation): the fixed points go by :data:`_SEARCHED`."""
    for counter in range(256):
        u = _candidate(domain, data, counter)
        if u and _is_square((u * u * u + MONTGOMERY_A * u * u + u) % P):
            return u.to_bytes(ELEMENT_SIZE, "little")
    raise AssertionError("no curve point in 256 tries")  # probability 2^-256


# The counter at which :func:`hash_to_element`'s search finds each fixed point (the
# first whose candidate lies on the curve), by domain and index: the 300 cells, the
# digits of radix 7, the owner's 56 dummies (tests/test_net_psi.py checks every one
# against the search). With it a fixed point is one SHA-512 instead of a search of
# about two modular exponentiations on average (0.2-1 ms in Python): until session 36 a
# process's first game hashed them in 363 slices of idle work, ahead of every run its
# first actions could make ahead.
_SEARCHED: dict[bytes, bytes] = {
    b"cell": bytes.fromhex(
        "02010200000000010000010001000000010102020100000100020101000402000101000103060103"
        "01000200020001000005020001080000000000010002010100000000000001000100090000000002"
        "00010100000200000201000000030201010000000102000302010103010200020100010001000205"
        "01000100010101030100000100020005030000010002000001000001010000030000010000010001"
        "02010401000201000002010100010002010003030200000101000100020003000103000202020001"
        "00000100050001000200000501020000000000040003010000020000000100000000000000000304"
        "01020003020400020004000500000000000000000301020001000201010001000004010000010400"
        "0001000005000201000101000201000102000001"),
    b"digit": bytes.fromhex("00010201000801"),
    b"owner dummy": bytes.fromhex(
        "01020100010100000100000100000003010200020100000100030100000002010100010000000100"
        "05000101040407000000000100010100"),
}


def fixed_element(domain: bytes, index: int) -> bytes:
    """``hash_to_element(domain, index)`` of a fixed point, from the counter its search
    stops at (:data:`_SEARCHED`); searched for an index past the table."""
    data = _U16.pack(index)
    searched = _SEARCHED[domain]
    if index < len(searched):
        return _candidate(domain, data, searched[index]).to_bytes(ELEMENT_SIZE, "little")
    return hash_to_element(domain, data)


@cache
def cell_element(cell: int) -> bytes:
    """The group element standing for ``cell`` (0..CELLS-1, or any 16-bit number)."""
    return fixed_element(b"cell", cell)


@cache
def digit_element(digit: int) -> bytes:
    """The group element of a base-``radix`` digit in the first-hit protocol."""
    return fixed_element(b"digit", digit)


@cache
def owner_dummy_element(index: int) -> bytes:
    """The element of the owner's ``index``-th dummy item (never a cell's)."""
    return fixed_element(b"owner dummy", index)


def warm_up(radix: int = 7, dummies: int = 56) -> None:
    """Every fixed point into its cache (300 cells, the digits, the owner's dummies):
    one SHA-512 each (:data:`_SEARCHED`), about a millisecond in all."""
    for cell in range(CELLS):
        cell_element(cell)
    for digit in range(radix):
        digit_element(digit)
    for index in range(dummies):
        owner_dummy_element(index)


def check_element(element: bytes, what: str = "an element") -> None:
    """Refuse anything but 32 bytes holding a canonical u-coordinate (u < p)."""
    if type(element) is not bytes or len(element) != ELEMENT_SIZE:
        raise PsiError(f"{what} has {ELEMENT_SIZE} bytes")
    if int.from_bytes(element, "little") >= P:
        raise PsiError(f"{what} is not a canonical u-coordinate (u >= 2^255 - 19)")


def _multiply(key: X25519PrivateKey, element: bytes, what: str) -> bytes:
    check_element(element, what)
    try:
        return key.exchange(X25519PublicKey.from_public_bytes(element))
    except ValueError:  # OpenSSL refuses the all-zero output of a small-order point
        raise PsiError(f"{what} is a point of small order") from None


def _clamp(raw: bytes) -> int:
    k = int.from_bytes(raw, "little")
    return (k & ~7 & (2 ** 255 - 1)) | _CLAMP_HIGH


class Scalar:
    """A clamped X25519 scalar; when ``invertible``, also a clamped scalar equal to its
    inverse modulo ``ORDER``, so that blinding can be undone with one more X25519 call
    (the inverse's key object is made on first use: an audit that only recomputes
    blinded elements never pays for it)."""

    __slots__ = ("_inverse_key", "_key", "inverse", "value")

    def __init__(self, value: bytes, inverse: bytes | None) -> None:
        self.value = value
        self.inverse = inverse
        self._key = X25519PrivateKey.from_private_bytes(value)
        self._inverse_key: X25519PrivateKey | None = None

    def __repr__(self) -> str:  # never print key material
        return "Scalar(...)"

    @classmethod
    def derive(cls, secret: bytes, label: bytes, index: int,
               invertible: bool = True) -> Scalar:
        """The scalar number ``index`` of ``label`` under ``secret`` (deterministic)."""
        for counter in range(256):
            raw = hashlib.blake2b(label + _U32.pack(index) + bytes([counter]), key=secret,
                                  digest_size=32, person=b"wec-psi scalar").digest()
            k = _clamp(raw)
            if not invertible:
                return cls(k.to_bytes(32, "little"), None)
            m = (pow(k % ORDER, -1, ORDER) - _CLAMP_HIGH) * _INV8 % ORDER
            if m < 2 ** 251:
                return cls(k.to_bytes(32, "little"), (_CLAMP_HIGH + 8 * m).to_bytes(32, "little"))
        raise AssertionError("no invertible scalar in 256 tries")  # probability 2^-256

    def apply(self, element: bytes, what: str = "an element") -> bytes:
        """``x(self * P)``; PsiError for a malformed or small-order element."""
        return _multiply(self._key, element, what)

    def inverse_key(self) -> X25519PrivateKey:
        """The key object of the inverse (made once)."""
        if self.inverse is None:
            raise ValueError("this scalar was derived without its inverse")
        if self._inverse_key is None:
            self._inverse_key = X25519PrivateKey.from_private_bytes(self.inverse)
        return self._inverse_key

    def unapply(self, element: bytes, what: str = "an element") -> bytes:
        """``x(self^-1 * P)`` (for P in the prime-order subgroup)."""
        return _multiply(self.inverse_key(), element, what)


def random_secret() -> bytes:
    return secrets.token_bytes(SECRET_SIZE)


def run_secret(game_seed: bytes, run_id: bytes) -> bytes:
    """One side's secret for one PSI run: HKDF-SHA256 of its per-game seed with the run id
    (for example game id, turn, question number and role). Revealing the seed at the end
    lets the other side recompute the run (:func:`audit_first_hit`)."""
    if len(game_seed) != SECRET_SIZE:
        raise ValueError(f"a PSI game seed has {SECRET_SIZE} bytes")
    return HKDF(hashes.SHA256(), SECRET_SIZE, salt=None,
                info=b"wec-psi run v1" + run_id).derive(game_seed)


def _prf(key: bytes, person: bytes, data: bytes, size: int = KEY_SIZE) -> bytes:
    return hashlib.blake2b(data, key=key, digest_size=size, person=person).digest()


def _stream(key: bytes, person: bytes, data: bytes, size: int) -> bytes:
    blocks = [_prf(key, person, data + _U32.pack(n), 64) for n in range(-(-size // 64))]
    return b"".join(blocks)[:size]


def _xor(a: bytes, b: bytes) -> bytes:
    return (int.from_bytes(a, "big") ^ int.from_bytes(b, "big")).to_bytes(len(a), "big")


def pad_label(label: bytes, label_size: int) -> bytes:
    """``label`` as ``label_size`` bytes: a 2-byte length, the label, zeros."""
    if len(label) > label_size - LABEL_LENGTH_SIZE:
        raise ValueError(f"a label has at most {label_size - LABEL_LENGTH_SIZE} bytes (got "
                         f"{len(label)})")
    return _U16.pack(len(label)) + label + bytes(label_size - LABEL_LENGTH_SIZE - len(label))


def unpad_label(padded: bytes) -> bytes:
    (length,) = _U16.unpack_from(padded)
    if length > len(padded) - LABEL_LENGTH_SIZE \
            or any(padded[LABEL_LENGTH_SIZE + length:]):
        raise PsiError("a decrypted label is not padded as labels are")
    return padded[LABEL_LENGTH_SIZE:LABEL_LENGTH_SIZE + length]


def _elements(data: bytes, at: int, count: int) -> tuple[bytes, ...]:
    return tuple(data[at + k * ELEMENT_SIZE:at + (k + 1) * ELEMENT_SIZE] for k in range(count))


def _check_size(data: bytes, size: int, what: str) -> None:
    if type(data) is not bytes or len(data) != size:
        raise PsiError(f"{what} has {size} bytes (got {described(data)})")


def _check_items(items: Mapping[int, bytes], universe: int, max_items: int,
                 label_size: int) -> None:
    if len(items) > max_items:
        raise ValueError(f"{len(items)} items for at most {max_items}")
    for cell, label in items.items():
        if not 0 <= cell < universe:
            raise ValueError(f"cell {cell} outside 0..{universe - 1}")
        if len(label) > label_size - LABEL_LENGTH_SIZE:
            raise ValueError(f"cell {cell}: a label of {len(label)} bytes (at most "
                             f"{label_size - LABEL_LENGTH_SIZE})")


# ---------------------------------------------------------------- first hit


@dataclass(frozen=True)
class FirstHitShape:
    """The fixed sizes of a first-hit run; both sides must use the same shape."""

    max_cells: int = 10  # path length, padded (the longest Move path is 7 cells)
    universe: int = CELLS
    max_items: int = 56  # cells holding the owner's pieces, padded (2 x 28 pieces)
    label_size: int = 64  # bytes of one padded label (2 of them its length)
    radix: int = 7

    def __post_init__(self) -> None:
        if self.max_cells < 1 or self.max_items < 1 or self.universe < 1:
            raise ValueError("a first-hit shape needs at least one cell and one item")
        if not 2 <= self.radix <= 256 or self.label_size < LABEL_LENGTH_SIZE:
            raise ValueError("radix 2..256, label size at least 2")
        if self.max_cells > 255 or self.universe > 65535:
            raise ValueError("at most 255 path cells and 65,535 cells in the universe")

    @cached_property
    def digits(self) -> int:
        """Digits per cell: the fewest with radix ** digits > universe (so that the
        all-highest code names no cell: the dummy positions use it)."""
        count = 1
        while self.radix ** count <= self.universe:
            count += 1
        return count

    @property
    def slots(self) -> int:
        return self.max_cells * self.digits

    @property
    def query_size(self) -> int:
        return self.slots * ELEMENT_SIZE

    @property
    def reply_size(self) -> int:
        return (self.slots * ELEMENT_SIZE + self.max_cells * self.universe * KEY_SIZE
                + self.max_cells * KEY_SIZE + self.max_items * (TAG_SIZE + self.label_size))

    def digits_of(self, cell: int) -> tuple[int, ...]:
        return tuple((cell // self.radix ** j) % self.radix for j in range(self.digits))


@dataclass(frozen=True)
class FirstHitQuery:
    """Asker -> owner: ``shape.slots`` blinded digit elements (position-major)."""

    blinded: tuple[bytes, ...]

    def to_bytes(self, shape: FirstHitShape) -> bytes:
        if len(self.blinded) != shape.slots:
            raise ValueError(f"a first-hit query has {shape.slots} elements")
        return b"".join(self.blinded)

    @classmethod
    def from_bytes(cls, data: bytes, shape: FirstHitShape) -> FirstHitQuery:
        _check_size(data, shape.query_size, "a first-hit query")
        blinded = _elements(data, 0, shape.slots)
        for k, element in enumerate(blinded):
            check_element(element, f"query element {k}")
        return cls(blinded)


@dataclass(frozen=True)
class FirstHitReply:
    """Owner -> asker: the evaluated elements, one table row per position
    (``universe`` entries of 16 bytes), one check value per position, and the label
    slots as (tag, encrypted label) sorted by tag."""

    evaluated: tuple[bytes, ...]
    rows: tuple[bytes, ...]
    checks: tuple[bytes, ...]
    labels: tuple[tuple[bytes, bytes], ...]

    def to_bytes(self, shape: FirstHitShape) -> bytes:
        if (len(self.evaluated), len(self.rows), len(self.checks), len(self.labels)) != (
                shape.slots, shape.max_cells, shape.max_cells, shape.max_items):
            raise ValueError("a first-hit reply does not have its shape's counts")
        return (b"".join(self.evaluated) + b"".join(self.rows) + b"".join(self.checks)
                + b"".join(tag + sealed for tag, sealed in self.labels))

    @classmethod
    def from_bytes(cls, data: bytes, shape: FirstHitShape) -> FirstHitReply:
        _check_size(data, shape.reply_size, "a first-hit reply")
        evaluated = _elements(data, 0, shape.slots)
        for k, element in enumerate(evaluated):
            check_element(element, f"reply element {k}")
        at = shape.query_size
        row = shape.universe * KEY_SIZE
        rows = tuple(data[at + i * row:at + (i + 1) * row] for i in range(shape.max_cells))
        at += shape.max_cells * row
        checks = tuple(data[at + i * KEY_SIZE:at + (i + 1) * KEY_SIZE]
                       for i in range(shape.max_cells))
        at += shape.max_cells * KEY_SIZE
        slot = TAG_SIZE + shape.label_size
        labels = tuple((data[at + k * slot:at + k * slot + TAG_SIZE],
                        data[at + k * slot + TAG_SIZE:at + (k + 1) * slot])
                       for k in range(shape.max_items))
        return cls(evaluated, rows, checks, labels)


@dataclass(frozen=True)
class FirstHit:
    """The asker's result: ``cells[index]`` (``cell``) holds the owner's pieces
    described by ``label``."""

    index: int
    cell: int
    label: bytes


class FirstHitAsker:
    """The mover's side of one run: ``query(cells)``, send it, then ``finish(reply)``.
    ``prepare()`` (the scalars) may run before the path is known."""

    def __init__(self, shape: FirstHitShape, secret: bytes | None = None) -> None:
        self.shape = shape
        self.secret = secret if secret is not None else random_secret()
        self.cells: tuple[int, ...] | None = None
        self._scalars: list[Scalar] = []
        self._made: dict[int, Scalar] = {}  # scalars made so far, by number

    def prepare(self) -> None:
        """The scalars and their inverses' keys (independent of the path)."""
        for part in self.parts():
            part()

    def parts(self) -> list[Callable[[], None]]:
        """:meth:`prepare` in parts of a few tenths of a millisecond (two scalars and
        their inverses' keys a part)."""
        numbers = range(self.shape.slots)
        return [partial(self._prepare_scalars, numbers[k:k + 2])
                for k in range(0, len(numbers), 2)]

    def _prepare_scalars(self, numbers: Sequence[int]) -> None:
        for k in numbers:
            self._scalar(k).inverse_key()

    def _scalar(self, k: int) -> Scalar:
        scalar = self._made.get(k)
        if scalar is None:
            scalar = self._made[k] = Scalar.derive(self.secret, b"first-hit blind", k)
        return scalar

    def _derive(self) -> list[Scalar]:
        if not self._scalars:
            self._scalars = [self._scalar(k) for k in range(self.shape.slots)]
        return self._scalars

    def query(self, cells: Sequence[int]) -> FirstHitQuery:
        """The query for the ordered ``cells`` (1..max_cells of them); once per run."""
        shape = self.shape
        if self.cells is not None:
            raise ValueError("one query per run (a new run needs a new secret)")
        if not 0 < len(cells) <= shape.max_cells:
            raise ValueError(f"a first-hit path has 1..{shape.max_cells} cells "
                             f"(got {len(cells)})")
        for cell in cells:
            if not 0 <= cell < shape.universe:
                raise ValueError(f"cell {cell} outside 0..{shape.universe - 1}")
        self._derive()
        self.cells = tuple(cells)
        dummy = (shape.radix - 1,) * shape.digits  # > universe - 1: names no cell
        codes = [shape.digits_of(c) for c in self.cells] \
            + [dummy] * (shape.max_cells - len(self.cells))
        return FirstHitQuery(tuple(
            self._scalars[i * shape.digits + j].apply(digit_element(codes[i][j]))
            for i in range(shape.max_cells) for j in range(shape.digits)))

    def finish(self, reply: FirstHitReply) -> FirstHit | None:
        """The first hit on the path, or None. PsiError when the reply does not decode
        (an entry that is neither a label key nor the next chain key)."""
        shape = self.shape
        if self.cells is None:
            raise ValueError("finish() comes after query()")
        if len(reply.evaluated) != shape.slots or len(reply.rows) != shape.max_cells \
                or len(reply.checks) != shape.max_cells or len(reply.labels) != shape.max_items:
            raise PsiError("a first-hit reply does not have its shape's counts")
        # every element is un-blinded, used or not: the work does not depend on the hit
        values = [self._scalars[k].unapply(element, f"reply element {k}")
                  for k, element in enumerate(reply.evaluated)]
        tags = dict(reply.labels)
        chain = bytes(KEY_SIZE)
        for i, cell in enumerate(self.cells):
            digit_values = values[i * shape.digits:(i + 1) * shape.digits]
            entry = reply.rows[i][cell * KEY_SIZE:(cell + 1) * KEY_SIZE]
            opened = _xor(entry, _entry_pad(chain, i, cell, digit_values))
            sealed = tags.get(_prf(opened, b"wec-psi-fh-tag", b""))
            if sealed is not None:
                return FirstHit(i, cell, unpad_label(_xor(sealed, _stream(
                    opened, b"wec-psi-fh-label", b"", shape.label_size))))
            if _prf(opened, b"wec-psi-fh-check", b"") != reply.checks[i]:
                raise PsiError(f"the first-hit reply does not decode at position {i}")
            chain = opened
        return None


def _entry_hash(chain: bytes, position: int) -> hashlib.blake2b:
    return hashlib.blake2b(bytes([position]), key=chain, digest_size=KEY_SIZE,
                           person=b"wec-psi-fh-entry")


def _entry_pad(chain: bytes, position: int, cell: int, digit_values: Sequence[bytes]) -> bytes:
    """The one-time pad of one table entry: BLAKE2b keyed with the chain key over the
    position, the cell and the owner's values of the cell's digits at this position."""
    h = _entry_hash(chain, position)
    h.update(_U16.pack(cell) + b"".join(digit_values))
    return h.digest()


@cache
def _codes(shape: FirstHitShape) -> tuple[tuple[int, ...], ...]:
    """Every cell's digits (the first-hit table's rows are built over all of them)."""
    return tuple(shape.digits_of(u) for u in range(shape.universe))


class FirstHitOwner:
    """The side whose unseen pieces are asked about, for one run. ``prepare()`` does the
    expensive part, which depends neither on the query nor on the pieces (the digit
    values and every entry's pad): run it ahead, e.g. while the mover blinds.
    ``reply(query, items)`` then costs ``slots`` X25519 calls and some hashing.
    ``items`` maps each cell holding the owner's pieces (for this question) to its label
    (at most ``label_size - 2`` bytes). The owner has no output."""

    def __init__(self, shape: FirstHitShape, secret: bytes | None = None) -> None:
        self.shape = shape
        self.secret = secret if secret is not None else random_secret()
        self._keys: list[Scalar] = []
        self._chains: list[bytes] = []
        self._pads: list[bytes] = []
        self._made = 0  # parts of prepare() done
        self._digit_values: list[list[bytes]] = []  # the row under way
        self._row: list[bytes] = []
        self._replied = False

    def prepare(self, parts: int | None = None) -> None:
        """The keys and the pads, made in ``digits + PAD_CHUNKS`` parts per path position
        (one digit's ``radix`` X25519 calls a part, then its pads in ``PAD_CHUNKS``
        chunks of the universe): up to part ``parts`` (all by default), so that the work
        can be made in slices of a few tenths of a millisecond (net.fog_game
        ``FogGame.preparing``: a peer's message that comes during a slice waits for its
        end)."""
        shape, secret = self.shape, self.secret
        wanted = self.parts if parts is None else min(parts, self.parts)
        if not self._chains:
            self._chains = [bytes(KEY_SIZE)] + [
                _prf(secret, b"wec-psi-fh-chain", _U32.pack(i))
                for i in range(1, shape.max_cells + 1)]
        while self._made < wanted:
            self._make_part(*divmod(self._made, shape.digits + PAD_CHUNKS))
            self._made += 1

    @property
    def parts(self) -> int:
        return self.shape.max_cells * (self.shape.digits + PAD_CHUNKS)

    @property
    def parts_made(self) -> int:
        """How many parts of ``prepare`` are done (``parts``: all of them)."""
        return self._made

    def _make_part(self, i: int, part: int) -> None:
        shape = self.shape
        if part < shape.digits:  # the position's keys, then one digit's values a part
            if part == 0:
                self._keys += [Scalar.derive(self.secret, b"first-hit key", k,
                                             invertible=False)
                               for k in range(i * shape.digits, (i + 1) * shape.digits)]
                self._digit_values = []
                self._row = []
            key = self._keys[i * shape.digits + part]
            self._digit_values.append([key.apply(digit_element(d)) for d in range(shape.radix)])
            return
        part -= shape.digits - 1  # the pads' chunk, 1..PAD_CHUNKS
        per_digit = self._digit_values
        base = _entry_hash(self._chains[i], i)
        codes = _codes(shape)
        chunk = -(-shape.universe // PAD_CHUNKS)
        for u in range((part - 1) * chunk, min(shape.universe, part * chunk)):
            h = base.copy()
            h.update(_U16.pack(u) + b"".join([per_digit[j][d] for j, d in enumerate(codes[u])]))
            self._row.append(h.digest())
        if part == PAD_CHUNKS:
            self._pads.append(b"".join(self._row))

    def reply(self, query: FirstHitQuery, items: Mapping[int, bytes]) -> FirstHitReply:
        """The reply to ``query``; once per run."""
        shape = self.shape
        _check_items(items, shape.universe, shape.max_items, shape.label_size)
        if self._replied:
            raise ValueError("one reply per run (a new run needs a new secret)")
        if len(query.blinded) != shape.slots:
            raise PsiError(f"a first-hit query has {shape.slots} elements "
                           f"(got {len(query.blinded)})")
        self.prepare()
        evaluated = tuple(self._keys[k].apply(element, f"query element {k}")
                          for k, element in enumerate(query.blinded))
        self._replied = True
        label_keys = {u: _prf(self.secret, b"wec-psi-fh-hit", _U16.pack(u)) for u in items}
        rows = tuple(_xor(self._pads[i], b"".join(
            label_keys[u] if u in items else self._chains[i + 1]
            for u in range(shape.universe))) for i in range(shape.max_cells))
        checks = tuple(_prf(self._chains[i + 1], b"wec-psi-fh-check", b"")
                       for i in range(shape.max_cells))
        slots = [(label_keys[u], items[u]) for u in items]
        slots += [(_prf(self.secret, b"wec-psi-fh-dummy", _U32.pack(k)), b"")
                  for k in range(shape.max_items - len(items))]
        labels = tuple(sorted(
            (_prf(key, b"wec-psi-fh-tag", b""),
             _xor(pad_label(label, shape.label_size),
                  _stream(key, b"wec-psi-fh-label", b"", shape.label_size)))
            for key, label in slots))
        return FirstHitReply(evaluated, rows, checks, labels)


def first_hit_plain(cells: Sequence[int], items: Mapping[int, bytes]) -> FirstHit | None:
    """What a first-hit run must give, computed in the clear (tests, audit)."""
    for index, cell in enumerate(cells):
        if cell in items:
            return FirstHit(index, cell, items[cell])
    return None


def check_first_hit_query(shape: FirstHitShape, cells: Sequence[int], asker_secret: bytes,
                          query: FirstHitQuery) -> str | None:
    """The owner's end-of-game check of the asker: its query must be the one its
    revealed path and secret give (it asked about no other cells). 30 X25519 calls."""
    if FirstHitAsker(shape, asker_secret).query(cells) != query:
        return "the first-hit query does not match the asker's revealed path"
    return None


def check_first_hit_answer(cells: Sequence[int], items: Mapping[int, bytes],
                           got: FirstHit | None) -> str | None:
    """The asker's end-of-game check of the owner: what it got during the game must be
    the first hit of its path on the owner's revealed pieces. No cryptography: the
    asker kept its result."""
    expected = first_hit_plain(cells, items)
    if got != expected:
        return (f"the first-hit reply gave {_describe_hit(got)} where the owner's revealed "
                f"pieces give {_describe_hit(expected)}")
    return None


def audit_first_hit(shape: FirstHitShape, cells: Sequence[int], asker_secret: bytes,
                    items: Mapping[int, bytes], owner_secret: bytes,
                    query: FirstHitQuery, reply: FirstHitReply,
                    thorough: bool = False) -> str | None:
    """A third party's check of one first-hit run from the signed messages and both
    revealed secrets; the first mismatch as one line, or None. The query is recomputed
    from the asker's revealed path (:func:`check_first_hit_query`); the reply is decoded
    with the asker's secret, and what the asker got must be the first hit of that path
    on the owner's revealed pieces (:func:`check_first_hit_answer`; the rest of the reply
    cannot be read by the asker, so it cannot have told it anything). ``thorough`` also
    recomputes the owner's whole reply and compares it byte for byte (about 5 times the
    work: 240 X25519 calls and 3,000 hashes)."""
    asker = FirstHitAsker(shape, asker_secret)
    if asker.query(cells) != query:
        return "the first-hit query does not match the asker's revealed path"
    try:
        got = asker.finish(reply)
    except PsiError as exc:
        return exc.reason
    problem = check_first_hit_answer(cells, items, got)
    if problem is not None:
        return problem
    if thorough and FirstHitOwner(shape, owner_secret).reply(query, items) != reply:
        return "the first-hit reply does not match the owner's revealed pieces and secret"
    return None


def _describe_hit(hit: FirstHit | None) -> str:
    return "no hit" if hit is None else f"a hit at position {hit.index} (cell {hit.cell})"


# ---------------------------------------------------------------- labelled


@dataclass(frozen=True)
class LabelShape:
    """The fixed sizes of a labelled run (detection); both sides use the same shape."""

    max_queries: int = 100  # the asker's cells, padded
    max_items: int = 56  # the owner's (cell, label) items, padded
    label_size: int = 64
    universe: int = CELLS

    def __post_init__(self) -> None:
        if self.max_queries < 1 or self.max_items < 1 \
                or self.label_size < LABEL_LENGTH_SIZE:
            raise ValueError("a labelled shape needs a query, an item and 2-byte labels")

    @property
    def query_size(self) -> int:
        return self.max_queries * ELEMENT_SIZE

    @property
    def reply_size(self) -> int:
        return self.max_queries * ELEMENT_SIZE + self.max_items * (TAG_SIZE + self.label_size)


@dataclass(frozen=True)
class LabelQuery:
    """Asker -> owner: ``max_queries`` blinded cell elements."""

    blinded: tuple[bytes, ...]

    def to_bytes(self, shape: LabelShape) -> bytes:
        if len(self.blinded) != shape.max_queries:
            raise ValueError(f"a labelled query has {shape.max_queries} elements")
        return b"".join(self.blinded)

    @classmethod
    def from_bytes(cls, data: bytes, shape: LabelShape) -> LabelQuery:
        _check_size(data, shape.query_size, "a labelled query")
        blinded = _elements(data, 0, shape.max_queries)
        for k, element in enumerate(blinded):
            check_element(element, f"query element {k}")
        return cls(blinded)


@dataclass(frozen=True)
class LabelReply:
    """Owner -> asker: the evaluated elements and ``max_items`` (tag, encrypted label)
    slots sorted by tag."""

    evaluated: tuple[bytes, ...]
    labels: tuple[tuple[bytes, bytes], ...]

    def to_bytes(self, shape: LabelShape) -> bytes:
        if len(self.evaluated) != shape.max_queries or len(self.labels) != shape.max_items:
            raise ValueError("a labelled reply does not have its shape's counts")
        return b"".join(self.evaluated) + b"".join(t + s for t, s in self.labels)

    @classmethod
    def from_bytes(cls, data: bytes, shape: LabelShape) -> LabelReply:
        _check_size(data, shape.reply_size, "a labelled reply")
        evaluated = _elements(data, 0, shape.max_queries)
        for k, element in enumerate(evaluated):
            check_element(element, f"reply element {k}")
        at = shape.query_size
        slot = TAG_SIZE + shape.label_size
        labels = tuple((data[at + k * slot:at + k * slot + TAG_SIZE],
                        data[at + k * slot + TAG_SIZE:at + (k + 1) * slot])
                       for k in range(shape.max_items))
        return cls(evaluated, labels)


_NO_SALT = bytes(32)
_LABEL_INFO = b"wec-psi label v1"


def hkdf_sha256(ikm: bytes, length: int, info: bytes) -> bytes:
    """HKDF-SHA256 (RFC 5869) without a salt: the same bytes as ``cryptography``'s
    ``HKDF(hashes.SHA256(), length, salt=None, info=info).derive(ikm)`` (tested), by
    ``hmac.digest``, several times faster for the short outputs the PSI labels derive
    thousands of times per game."""
    prk = hmac.digest(_NO_SALT, ikm, "sha256")
    out, block = b"", b""
    counter = 1
    while len(out) < length:
        block = hmac.digest(prk, block + info + bytes([counter]), "sha256")
        out += block
        counter += 1
    return out[:length]


def _label_derive(value: bytes, label_size: int) -> bytes:
    """HKDF-SHA256 of an item's PRF value: 16 bytes of tag, then a one-time pad as long
    as the padded label."""
    return hkdf_sha256(value, TAG_SIZE + label_size, _LABEL_INFO)


def _label_slot(value: bytes, label: bytes, label_size: int,
                derived: bytes | None = None) -> tuple[bytes, bytes]:
    if derived is None:
        derived = _label_derive(value, label_size)
    return derived[:TAG_SIZE], _xor(pad_label(label, label_size), derived[TAG_SIZE:])


class LabelAsker:
    """The detecting side of one run: ``query(cells)`` with the (distinct) cells its
    detectors reach, then ``finish(reply)``."""

    def __init__(self, shape: LabelShape, secret: bytes | None = None) -> None:
        self.shape = shape
        self.secret = secret if secret is not None else random_secret()
        self.cells: tuple[int, ...] | None = None
        self._scalar: Scalar | None = None
        self._blinded: dict[int, bytes] = {}
        self._dummies: list[bytes] = []

    def prepare(self, cells: Sequence[int] = (), dummies: int | None = None) -> None:
        """The scalar, its inverse's key, the first ``dummies`` dummy elements (all by
        default) and the blinded element of each of ``cells``: none of it depends on
        which cells are asked, so it is made ahead (every cell of a small universe: the
        query is then a selection, and only the un-blinding is left when the reply
        comes). It may be made in slices (net.fog_game ``FogGame.preparing``)."""
        scalar = self._derive()
        scalar.inverse_key()
        for cell in cells:
            if cell not in self._blinded:
                if not 0 <= cell < self.shape.universe:
                    raise ValueError(f"cell {cell} outside 0..{self.shape.universe - 1}")
                self._blinded[cell] = scalar.apply(cell_element(cell))
        wanted = self.shape.max_queries if dummies is None else min(dummies,
                                                                    self.shape.max_queries)
        self._dummies += [self._dummy(k) for k in range(len(self._dummies), wanted)]

    def _dummy(self, k: int) -> bytes:
        """Dummy ``k``: a random element of the prime-order subgroup, as a blinded cell is."""
        return (X25519PrivateKey.from_private_bytes(
            _prf(self.secret, b"wec-psi-dummy", _U32.pack(k), 32)).public_key()
            .public_bytes_raw())

    def _derive(self) -> Scalar:
        if self._scalar is None:
            self._scalar = Scalar.derive(self.secret, b"labelled blind", 0)
        return self._scalar

    def query(self, cells: Sequence[int]) -> LabelQuery:
        shape = self.shape
        if self.cells is not None:
            raise ValueError("one query per run (a new run needs a new secret)")
        if len(cells) > shape.max_queries or len(set(cells)) != len(cells):
            raise ValueError(f"at most {shape.max_queries} distinct cells")
        for cell in cells:
            if not 0 <= cell < shape.universe:
                raise ValueError(f"cell {cell} outside 0..{shape.universe - 1}")
        scalar = self._derive()
        self.cells = tuple(cells)
        blinded = self._blinded
        real = [blinded[c] if c in blinded else scalar.apply(cell_element(c))
                for c in self.cells]
        count = shape.max_queries - len(self.cells)
        dummies = self._dummies[:count] + [self._dummy(k)
                                           for k in range(len(self._dummies), count)]
        return LabelQuery(tuple(real + dummies))

    def finish(self, reply: LabelReply) -> dict[int, bytes]:
        """The labels of the owner's items in ``cells``, by cell."""
        shape = self.shape
        if self.cells is None or self._scalar is None:
            raise ValueError("finish() comes after query()")
        if len(reply.evaluated) != shape.max_queries or len(reply.labels) != shape.max_items:
            raise PsiError("a labelled reply does not have its shape's counts")
        scalar = self._scalar
        values = [scalar.unapply(e, f"reply element {k}") for k, e in enumerate(reply.evaluated)]
        tags = dict(reply.labels)
        found = {}
        for cell, value in zip(self.cells, values, strict=False):
            derived = _label_derive(value, shape.label_size)
            sealed = tags.get(derived[:TAG_SIZE])
            if sealed is not None:
                found[cell] = unpad_label(_xor(sealed, derived[TAG_SIZE:]))
        return found


class LabelOwner:
    """The side whose unseen pieces may be detected, for one run: ``reply(query,
    items)`` with ``items`` mapping cells to labels. The owner has no output."""

    def __init__(self, shape: LabelShape, secret: bytes | None = None) -> None:
        self.shape = shape
        self.secret = secret if secret is not None else random_secret()
        self._key: Scalar | None = None
        self._derived: dict[int, bytes] = {}
        self._replied = False

    def prepare(self, cells: Sequence[int] = ()) -> None:
        """The key and, for each of ``cells``, its item's PRF value and the tag and pad
        derived from it (one X25519 call and one HKDF each), so that a reply with items
        at those cells costs only the query's elements. None of it depends on the query
        or on the labels: run it ahead, while the asker blinds (e.g. every cell of the
        universe when every cell is an item, as the detectors' reach is)."""
        if self._key is None:
            self._key = Scalar.derive(self.secret, b"labelled key", 0, invertible=False)
        for cell in cells:
            if cell not in self._derived:
                if not 0 <= cell < self.shape.universe:
                    raise ValueError(f"cell {cell} outside 0..{self.shape.universe - 1}")
                self._derived[cell] = _label_derive(self._key.apply(cell_element(cell)),
                                                    self.shape.label_size)

    def parts(self, cells_per_part: int = SLICE_CALLS) -> list[Callable[[], None]]:
        """:meth:`prepare` of every cell of the universe, in parts of ``cells_per_part``
        X25519 calls: for a table whose items are the whole universe (the Doze
        judgement's)."""
        cells = range(self.shape.universe)
        return [partial(self.prepare, cells[k:k + cells_per_part])
                for k in range(0, len(cells), cells_per_part)]

    def reply(self, query: LabelQuery, items: Mapping[int, bytes]) -> LabelReply:
        shape = self.shape
        _check_items(items, shape.universe, shape.max_items, shape.label_size)
        if self._replied:
            raise ValueError("one reply per run (a new run needs a new secret)")
        if len(query.blinded) != shape.max_queries:
            raise PsiError(f"a labelled query has {shape.max_queries} elements "
                           f"(got {len(query.blinded)})")
        self.prepare()
        key = self._key
        assert key is not None
        evaluated = tuple(key.apply(e, f"query element {k}")
                          for k, e in enumerate(query.blinded))
        self._replied = True
        # dummies cost what real items cost, so the reply's timing does not count items
        derived = self._derived  # made ahead by prepare(cells), or now
        slots = [_label_slot(b"", label, shape.label_size, derived[cell]) if cell in derived
                 else _label_slot(key.apply(cell_element(cell)), label, shape.label_size)
                 for cell, label in items.items()]
        slots += [_label_slot(key.apply(owner_dummy_element(k)), b"", shape.label_size)
                  for k in range(shape.max_items - len(items))]
        return LabelReply(evaluated, tuple(sorted(slots)))


def labelled_plain(cells: Sequence[int], items: Mapping[int, bytes]) -> dict[int, bytes]:
    """What a labelled run must give, computed in the clear (tests, audit)."""
    return {cell: items[cell] for cell in cells if cell in items}


def check_labelled_query(shape: LabelShape, cells: Sequence[int], asker_secret: bytes,
                         query: LabelQuery) -> str | None:
    """The owner's end-of-game check of the detecting side: its query must be the one its
    revealed detector cells and secret give. ``max_queries`` X25519 calls."""
    if LabelAsker(shape, asker_secret).query(cells) != query:
        return "the detection query does not match the asker's revealed detector cells"
    return None


def check_labelled_answer(cells: Sequence[int], items: Mapping[int, bytes],
                          got: Mapping[int, bytes]) -> str | None:
    """The detecting side's end-of-game check of the owner: the labels it got must be
    those of the owner's revealed pieces in its cells. No cryptography."""
    expected = labelled_plain(cells, items)
    if dict(got) != expected:
        missing = sorted(set(expected) - set(got))
        return (f"the detection reply hid the pieces at cells {missing}" if missing else
                "the detection reply gave other pieces than the owner's revealed ones")
    return None


def audit_labelled(shape: LabelShape, cells: Sequence[int], asker_secret: bytes,
                   items: Mapping[int, bytes], owner_secret: bytes,
                   query: LabelQuery, reply: LabelReply,
                   thorough: bool = False) -> str | None:
    """A third party's check of one labelled run (as :func:`audit_first_hit`)."""
    asker = LabelAsker(shape, asker_secret)
    if asker.query(cells) != query:
        return "the detection query does not match the asker's revealed detector cells"
    try:
        got = asker.finish(reply)
    except PsiError as exc:
        return f"the detection reply is refused: {exc.reason}"
    problem = check_labelled_answer(cells, items, got)
    if problem is not None:
        return problem
    if thorough and LabelOwner(shape, owner_secret).reply(query, items) != reply:
        return "the detection reply does not match the owner's revealed pieces and secret"
    return None
