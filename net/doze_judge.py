"""A Doze judged by both sides without either telling its pieces (R8.8.4, R8.8.5).

Whether a Doze is foiled depends on both sides' Ground pieces at the squares it reads:
the acting side's (some of them may be hidden from the enemy: stealthy pieces, R9.2)
and the other side's (some hidden from the actor). Until 2026-11-26 the acting side
sent its per-square summary to the other side, which judged; that told the other side
how many of the actor's pieces stood there, hidden ones included.

Now the acting side learns the verdict alone, by oblivious transfers (net.ot) of a
table the other side builds (a labelled PSI run, net.psi, until ``wec-fog/6``; in games
with stealth only until ``wec-fog/10``):

* ``engine.sides.doze_foiled`` is an OR of conditions: the dozed pieces on the selected
  squares are too many (R8.8.2), the other side holds selected squares while O24 is off,
  a destination is off the board, or one destination breaks R1.6 (each destination has
  one origin: a shift is a translation). Each condition reads the actor's summary at
  one or two squares (a *slot*), or the actor's count on the selected squares.
* For every slot the owner lists every value the actor's part could take (a square's
  pieces of one side: none, 1, 1 that can coexist, 2, 2 with one that can coexist) and
  labels each with a *share* when the condition holds and with noise when it does not.
  The shares of all slots XOR to zero; noise is random.
* The actor queries the one element per slot its true summary gives and XORs the labels:
  zero means not foiled. A foiled Doze gives random bytes, so the actor does not learn
  which condition failed; the owner learns nothing (oblivious transfer). The actor then
  tells the verdict (public: the Doze moves or it does not, DozeFoiled) and the
  end-of-game audit checks its query against its revealed summary and the verdict
  against the truth.

Sizes are fixed: 10 elements, 242 labelled items (``UNIVERSE``), whatever the Doze.

**A hidden Dozer's Doze** (``wec-fog/8``): when the other side sees none of the pieces a
Doze moves (the Dozer, its coincident and every dozed piece are the actor's own and
unseen), the rules show it nothing (R9.1), so the Doze travels as a hidden Move
(net.fog_codec ``public_form``) and its squares never leave. Its verdict then needs
less: the actor judged its own pieces when it found the Doze legal on its half state
(R8.8.4: capacity, coexistence, the board's edge, the dozed count), and the other side
cannot stand at Ground where the actor's pieces do (R1.6: one side per level), so the
Doze is foiled exactly when the other side has a Ground piece at a destination that no
moving square vacates (:func:`hidden_destinations`, at most 5: the Dozer's square and at
most 4 selected squares, each holding a dozed piece, R8.8.2). The other side's table,
five 1-out-of-128 transfers keyed by square (net.ot ``HIDDEN_DOZE_LABELS``), labels each
square with the transfer's 8-byte share when it holds no Ground piece of the owner's and
with noise when it does; squares 100 up (no square: a transfer the Doze does not need)
carry the share. The actor reads the entry of each destination and XORs: zero exactly when the
Doze is made, and a foiled Doze does not tell which square foiled it.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Collection, Sequence

from wec.engine.intents import Doze
from wec.engine.options import Options
from wec.engine.questions import DozeQuestion
from wec.engine.sides import Summary, doze_foiled, doze_overfull, doze_shifts, shift_blocked
from wec.net.ot import HIDDEN_DOZE_LABELS, LABEL_ENTRIES, LABEL_SIZE, LABEL_TRANSFERS
from wec.net.psi import _xor  # equal-length XOR, as the first-hit tables use it

SLOTS = 9  # moving squares: the Dozer's and at most its 8 neighbours (R8.8.2)
CODES = 5  # one side's Ground pieces at a square: none, 1, 1 coexisting, 2, 2 coexisting
PAIRS = CODES * CODES  # a slot's value: the origin's code, then the destination's
MOST_DOZED = 2 * (SLOTS - 1)  # the actor's pieces on the selected squares, at most
SUM_BASE = SLOTS * PAIRS  # the element of "the actor has a dozed" is SUM_BASE + a
UNIVERSE = SUM_BASE + MOST_DOZED + 1  # every value of every slot and of the count: 242
SHARE_SIZE = 16  # bytes of a share
ENTRY_SIZE = LABEL_SIZE  # 8 bytes: a share's head travels as one label transfer's entry

HIDDEN_SLOTS = HIDDEN_DOZE_LABELS.transfers  # destinations: the Dozer's and 4 selected
HIDDEN_SHARE_SIZE = HIDDEN_DOZE_LABELS.size  # 8 bytes

_U32 = struct.Struct(">I")


class DozeJudgeError(ValueError):
    """A Doze that the private judgement cannot take (more moving squares than its
    fixed size holds), or a summary no position can have."""


def _code(count: int, coexists: bool) -> int:
    if not 0 <= count <= 2:
        raise DozeJudgeError(f"{count} pieces at one Ground level (R1.6 allows 2)")
    return 0 if count == 0 else 2 * count - 1 + int(coexists)


def _decode(code: int) -> tuple[int, bool]:
    return (0, False) if code == 0 else ((code + 1) // 2, code % 2 == 0)


def _by_square(summary: Summary) -> dict[int, tuple[int, bool]]:
    return {sq: (n, x) for sq, n, x in summary}


def _shifts(question: DozeQuestion) -> tuple[tuple[int, int | None, bool], ...]:
    shifts = doze_shifts(Doze(question.sq, question.squares, question.dir))
    if len(shifts) > SLOTS:
        raise DozeJudgeError(f"a Doze moves at most {SLOTS} squares (R8.8.2)")
    return shifts


def asker_cells(question: DozeQuestion, own: Summary, truth: Doze | None = None
                ) -> tuple[int, ...]:
    """The acting side's elements: one per moving square (its pieces at the origin and,
    when the destination stays put, at the destination), then its dozed count.
    ``truth``: the Doze itself when ``question`` is its public form (``wec-fog/8``: the
    selected squares holding only our unseen pieces left out): a destination one of
    those vacates holds none of ours, and the dozed count is over every square."""
    mine = _by_square(own)
    moving = set() if truth is None else {truth.sq, *truth.squares}
    cells = []
    for slot, (origin, dest, dest_moves) in enumerate(_shifts(question)):
        at_dest = (0, False) if dest is None or dest_moves or dest in moving \
            else mine.get(dest, (0, False))
        cells.append(slot * PAIRS + _code(*mine.get(origin, (0, False))) * CODES
                     + _code(*at_dest))
    selected = question.squares if truth is None else truth.squares
    dozed = sum(mine.get(sq, (0, False))[0] for sq in selected)
    if dozed > MOST_DOZED:
        raise DozeJudgeError(f"{dozed} dozed pieces of one side")
    cells.append(SUM_BASE + dozed)
    return tuple(cells)


def owner_items(question: DozeQuestion, own: Summary, options: Options,
                secret: bytes, tie: bytes | None = None) -> dict[int, bytes]:
    """The other side's table: every value the actor's part may take, labelled with its
    slot's share where that part of R8.8.4 holds, with noise where it does not (and
    everywhere when its own pieces alone foil the Doze: O24 off and one of them on a
    selected square). Deterministic from ``secret`` (the run's, revealed at the end).
    ``tie`` (``HIDDEN_SHARE_SIZE`` bytes): the shares' XOR begins with it (and ends with
    noise) instead of being zero, so that the verdict also needs the hidden squares'
    transfer (:func:`tie_of`, :func:`verdict_with_hidden`)."""
    actor, owner = question.dozer_side, question.dozer_side.other
    theirs = _by_square(own)
    shifts = _shifts(question)
    foiled_by_owner = not options.enemy_dozing and any(sq in theirs for sq in question.squares)
    shares = [_prf(secret, b"share", slot) for slot in range(len(shifts))]
    last = bytes(SHARE_SIZE)
    for share in shares:
        last = _xor(last, share)
    if tie is not None:  # the XOR: the tie, then noise (so no half tells a verdict)
        last = _xor(last, tie + _prf(secret, b"tie pad", 0, SHARE_SIZE - len(tie)))
    shares.append(last)  # the dozed count's share: all of them XOR to zero (or the tie)
    items: dict[int, bytes] = {}
    for slot, (origin, dest, dest_moves) in enumerate(shifts):
        at_origin = (owner, *theirs.get(origin, (0, False)))
        staying_owner = None if dest is None or dest_moves else \
            (owner, *theirs.get(dest, (0, False)))
        for origin_code in range(CODES):
            for dest_code in range(CODES if staying_owner is not None else 1):
                element = slot * PAIRS + origin_code * CODES + dest_code
                arriving = ((actor, *_decode(origin_code)), at_origin)
                staying = () if staying_owner is None else \
                    ((actor, *_decode(dest_code)), staying_owner)
                holds = dest is not None and not shift_blocked(arriving, staying)
                items[element] = shares[slot] if holds and not foiled_by_owner \
                    else _prf(secret, b"noise", element)
    owner_dozed = sum(theirs.get(sq, (0, False))[0] for sq in question.squares)
    for dozed in range(MOST_DOZED + 1):
        element = SUM_BASE + dozed
        items[element] = shares[-1] if not doze_overfull(dozed + owner_dozed) \
            else _prf(secret, b"noise", element)
    # every other value (a slot past the Doze's shifts, a destination code where none is
    # read) labelled with noise too: every entry of a transfer's table is a label
    for element in range(UNIVERSE):
        if element not in items:
            items[element] = _prf(secret, b"noise", element)
    return items


# ---------------------------------------------------------------- by oblivious transfer
#
# On the game's base transfers (net.ot: every fog game since ``wec-fog/10``), the table travels as
# LABEL_TRANSFERS 1-out-of-32 transfers (``wec-fog/6``): transfer m < 9 is slot m (its 25
# values; a Doze with fewer moving squares leaves the rest as dummies, all noise, that
# the verdict skips: how many squares move is public, the Doze is), the last one the
# dozed count (17 values). Entries past a slot's values are noise.


def asker_values(question: DozeQuestion, own: Summary, truth: Doze | None = None
                 ) -> tuple[int, ...]:
    """The acting side's choice in each transfer (its element within the slot; 0 in a
    dummy); ``truth`` as for :func:`asker_cells`."""
    cells = asker_cells(question, own, truth)
    slots = len(cells) - 1
    values = [cells[m] - m * PAIRS for m in range(slots)]
    values += [0] * (LABEL_TRANSFERS - 1 - slots)
    return (*values, cells[-1] - SUM_BASE)


def owner_tables(question: DozeQuestion, own: Summary, options: Options, secret: bytes,
                 tie: bytes | None = None) -> list[list[bytes]]:
    """The other side's table (:func:`owner_items`) as one list of entries per transfer,
    noise where no value is."""
    items = owner_items(question, own, options, secret, tie)
    slots = len(_shifts(question))

    def noise(m: int, v: int) -> bytes:
        return _prf(secret, b"pad", m * LABEL_ENTRIES + v, ENTRY_SIZE)

    # each entry the head of its item: the heads of the shares XOR as the shares do
    tables = [[items[m * PAIRS + v][:ENTRY_SIZE] if m < slots and v < PAIRS else noise(m, v)
               for v in range(LABEL_ENTRIES)] for m in range(LABEL_TRANSFERS - 1)]
    tables.append([items[SUM_BASE + v][:ENTRY_SIZE] if v <= MOST_DOZED
                   else noise(LABEL_TRANSFERS - 1, v) for v in range(LABEL_ENTRIES)])
    return tables


def tie_of(secret: bytes) -> bytes:
    """The tie of a Doze's two tables (:func:`owner_items`, :func:`hidden_tables`), from
    the visible table's secret."""
    return _prf(secret, b"tie", 0, HIDDEN_SHARE_SIZE)


def _xor_all(labels: Sequence[bytes], size: int) -> bytes:
    total = bytes(size)
    for label in labels:
        total = _xor(total, label)
    return total


def verdict_with_hidden(question: DozeQuestion, labels: Sequence[bytes],
                        hidden: Sequence[bytes]) -> bool:
    """Whether a Doze judged by both tables is foiled: the XOR of the hidden squares'
    entries must be the head of the XOR of the visible ones (the tie); a foiled Doze
    tells neither which table nor which square."""
    if len(labels) != LABEL_TRANSFERS or any(len(label) != ENTRY_SIZE for label in labels) \
            or len(hidden) != HIDDEN_SLOTS or any(len(h) != HIDDEN_SHARE_SIZE for h in hidden):
        raise DozeJudgeError("the Doze labels are not one share per transfer")
    slots = len(_shifts(question))
    head = _xor_all((*labels[:slots], labels[-1]), ENTRY_SIZE)[:HIDDEN_SHARE_SIZE]
    return head != _xor_all(hidden, HIDDEN_SHARE_SIZE)


def foiled_in_clear(question: DozeQuestion, actor: Summary, owner: Summary,
                    options: Options) -> bool:
    """The verdict the private run must give, judged in the clear (audit, tests)."""
    return doze_foiled(Doze(question.sq, question.squares, question.dir),
                       question.dozer_side, options,
                       {question.dozer_side: _by_square(actor),
                        question.dozer_side.other: _by_square(owner)})


# ---------------------------------------------------------------- a hidden Dozer's Doze

NO_SQUARE = 100  # the value of a transfer the Doze does not need (every entry 100 up)


def hidden_destinations(intent: Doze, public: Doze | None = None) -> tuple[int, ...]:
    """The squares a Doze moves pieces onto that no moving square vacates, in the order
    of ``doze_shifts``: where the other side's Ground pieces foil it (R8.8.4-5). With
    ``public`` (the Doze's public form), only those of the squares the form leaves out."""
    shifts = [shift for shift in doze_shifts(intent)
              if public is None or (shift[0] != public.sq and shift[0] not in public.squares)]
    if len(shifts) > HIDDEN_SLOTS:
        raise DozeJudgeError(f"a Doze by a hidden Dozer moves at most {HIDDEN_SLOTS} squares "
                             "(R8.8.2: at most 4 dozed pieces)")
    if any(dest is None for _, dest, _ in shifts):
        raise DozeJudgeError("a Doze off the board (R8.8.4)")
    return tuple(dest for _, dest, moves in shifts if dest is not None and not moves)


def hidden_values(intent: Doze, public: Doze | None = None) -> tuple[int, ...]:
    """The acting side's choice in each transfer: a destination square, then
    ``NO_SQUARE`` for the transfers the Doze does not need (every Doze asks five)."""
    squares = hidden_destinations(intent, public)
    return (*squares, *(NO_SQUARE,) * (HIDDEN_SLOTS - len(squares)))


NO_DOZE = (NO_SQUARE,) * HIDDEN_SLOTS  # a hidden Move's transfer, asked for nothing


def hidden_tables(ground: Collection[int], secret: bytes, tie: bytes | None = None
                  ) -> list[list[bytes]]:
    """The other side's table: per transfer, each square's entry is the transfer's share
    where ``ground`` (the squares holding its Ground pieces) has none and noise where it
    has one; entries 100 up carry the share. The shares XOR to zero, or to ``tie`` for a
    Doze whose other squares are judged by :func:`owner_items` (its public form).
    Deterministic from ``secret`` (the run's, revealed at the end)."""
    size = HIDDEN_SHARE_SIZE
    shares = [_prf(secret, b"hshare", m, size) for m in range(HIDDEN_SLOTS - 1)]
    last = bytes(size) if tie is None else tie
    for share in shares:
        last = _xor(last, share)
    shares.append(last)
    entries = HIDDEN_DOZE_LABELS.entries
    tables = []
    for m, share in enumerate(shares):
        noise = hashlib.shake_256(secret + b"wec-doze hidden noise" + bytes([m])).digest(
            entries * size)
        tables.append([noise[size * sq:size * (sq + 1)] if sq in ground else share
                       for sq in range(entries)])
    return tables


def hidden_verdict(labels: Sequence[bytes]) -> bool:
    """Whether the hidden Dozer's Doze is foiled, from the entry of each transfer."""
    if len(labels) != HIDDEN_SLOTS or any(len(label) != HIDDEN_SHARE_SIZE
                                          for label in labels):
        raise DozeJudgeError("the Doze labels are not one share per transfer")
    total = bytes(HIDDEN_SHARE_SIZE)
    for label in labels:
        total = _xor(total, label)
    return total != bytes(HIDDEN_SHARE_SIZE)


def _prf(secret: bytes, what: bytes, n: int, size: int = SHARE_SIZE) -> bytes:
    return hashlib.blake2b(_U32.pack(n), key=secret, digest_size=size,
                           person=b"wec-doze " + what).digest()


__all__ = ["HIDDEN_SLOTS", "NO_DOZE", "NO_SQUARE", "UNIVERSE", "DozeJudgeError",
           "asker_cells", "asker_values", "foiled_in_clear", "hidden_destinations",
           "hidden_tables", "hidden_values", "hidden_verdict", "owner_items", "owner_tables",
           "tie_of", "verdict_with_hidden"]
