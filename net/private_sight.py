"""What the detecting side sees of the other side's pieces, evaluated privately (R9.3-R9.7,
R9.4(c), R9.10; issue 21, docs/network.md "The private detection").

The owner of the pieces answers ``detect`` (engine.half_referee) from its parts
(engine.detection_parts: everything but the asker's bits) and the asker's five bits about
each *slot* (a piece of the owner's that can hide now or could at the step's start): its
stealth reach and submersion reach at the slot's square, a lock of its on the piece,
whether it saw the piece at the step's start, a marker of its for it. Answered by the
owner, those bits tell the owner which of its pieces the enemy sees, which the rules do
not show it. Here the owner learns nothing of them, and the asker learns what the rules
show it and nothing else:

1. *Masked inputs* (the owner receives, by oblivious transfer, ``net.ot``): the owner
   asks the asker's reach at each slot's square (``ReachReceiver.query_slots``) and the
   asker's three identifier bits at each slot's identifier (``PID_LABELS``, one
   1-out-of-128 transfer per slot); the asker's tables come XORed with a 5-bit mask per
   slot drawn from its seed (``asker_masks``). The owner learns each slot's bits XOR the
   mask: nothing.
2. *Input labels* (the asker receives, ``INPUT_LABELS``): each input wire stands for the
   asker's true bit; the asker takes a label by a 1-out-of-2 transfer with its mask bit
   as the choice, and the owner's table of the transfer swaps the wire's two labels
   where the masked bit it read is 1, so the mask bit picks the label of mask XOR
   masked: the true bit. The asker's query follows from its masks alone, and the
   circuit from the owner's parts alone: both are made before the question (since
   session 25; until then the owner folded the masked bits into the gates' tables).
3. *The garbled slots* (``net.garble``, the owner garbles): per slot, the gate "seen"
   over (stealth reach, submersion reach, locked) with the slot's R9.7 table, the
   piece's record sealed under it, the gate "in play for the asker" over (seen, saw,
   marked) with the identifier sealed under it (R9.10: a marker's piece still in play,
   or a piece seen at the start and hidden now), and the lock's hold sealed under
   "locked" (R9.4(c)).
4. *Acquisitions* (R9.4(b), before "seen": a piece acquired is locked): per acquiring
   holder, each slot's "candidate" (stealthy, in play, not locked, not seen by reach)
   and the least of the candidates' ranks in the holder's order, carried through the
   positions in position order by comparison gates (the ranks are the owner's
   constants, folded into the tables), then each position's "target" with the
   identifier sealed under it. In an Exchange the owner does not see, the holders'
   squares are the asker's secret: two passes whose keys put the asker's distance from
   each holder (masked input wires, the reach transfer's wide table) above the owner's
   constant tie ranks (``SightGarbler(..., hidden=True)``).
5. *The owner's entries* of the step: two more gates per position (the asker's
   judgement of the piece, engine.censor), then the entries by tagged places
   (net.sight_places).

The slots sit at ``SLOTS`` positions in an order drawn from the owner's seed; the
others are padding, garbled alike with tables that are false everywhere, so the asker
does not learn how many pieces can hide. Every byte follows from the two seeds, the run
id and the true inputs, so the end-of-game audit remakes both sides' messages
(``audit_owner``, ``audit_asker``). What hangs neither on the asker's sight nor on the
step's entries is made ahead (``OwnerRun.ahead``, ``AskerRun.ahead``).
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

import msgpack  # type: ignore[import-untyped]

from wec.engine.board import SQUARES, Level, distance
from wec.engine.detection_parts import (
    LOCKED,
    MARKED,
    SAW,
    STEALTH_REACH,
    SUB_REACH,
    DetectionParts,
    Place,
    Slot,
    in_order,
)
from wec.engine.intents import Exchange, Intent
from wec.engine.knowledge import actions_seen, enemy_actions
from wec.engine.options import Options
from wec.engine.pieces import ArticleKind, Hand, PieceKind, Side
from wec.engine.position import ActionCounts, Piece, Projectile, Reveal, Transit
from wec.engine.questions import Detection, Entry, Sight
from wec.engine.visibility import lock_order
from wec.net.fog_codec import WireError, from_compact, from_wire, to_compact, to_wire
from wec.net.garble import Evaluator, GarbleError, Garbler
from wec.net.ot import (
    ENTRIES,
    LabelFormat,
    LabelReceiver,
    LabelSender,
    ReachReceiver,
    ReachSender,
)
from wec.net.sight_places import (
    PLACES_STREAM,
    PrivateSightError,
    checked_place,
    entry_specs,
    garble_places,
    read_places,
)

SLOTS = 48  # positions of a run: the slots, padded (random games had at most 17)
INPUTS = 5  # input wires per position: the bits of engine.detection_parts
PID_BITS = 7
NO_PID = (1 << PID_BITS) - 1  # a padding position's identifier: no piece's
REACH_BITS = STEALTH_REACH | SUB_REACH
PID_SHIFT = 2  # the identifier bits (locked, saw, marked) are bits 2..4 of the five
RECORD_SIZE = 160  # a seen piece's record (piece, hits, action records), padded
# the asker's identifier bits at each slot's identifier, masked (one byte an entry)
PID_LABELS = LabelFormat(transfers=SLOTS, bits=PID_BITS, size=1, aes=True)
# the input wires' labels, one 1-out-of-2 transfer each
INPUT_LABELS = LabelFormat(transfers=SLOTS * INPUTS, bits=1, size=16, aes=True)
# An Exchange the owner does not see acquires at secret squares (R9.4(b), R4.9: at most
# two instances, a swap of two Anti-Stealth): the asker's distance from each holder to
# each position's square (engine.board ``distance``: 0..9; ``NO_HOLDER`` for a holder it
# does not have) comes masked in the reach transfer's wide table (net.ot
# ``ReachSender.reply_wide``), four more input wires a holder and position
HIDDEN_HOLDERS = 2
DIST_BITS = 4
NO_HOLDER = (1 << DIST_BITS) - 1
WIDE_INPUTS = INPUTS + HIDDEN_HOLDERS * DIST_BITS
# the distance wires' labels: a second input transfer (the first, ``INPUT_LABELS``, is
# the same as in any run, made ahead)
DIST_LABELS = LabelFormat(transfers=SLOTS * HIDDEN_HOLDERS * DIST_BITS, bits=1, size=16,
                          aes=True)

_SIDES, _KINDS = list(Side), list(PieceKind)
_HANDS, _ARTICLES = list(Hand), list(ArticleKind)


def _stream(tag: bytes, seed: bytes, run_id: bytes, size: int) -> bytes:
    return hashlib.shake_256(tag + hashlib.sha256(seed).digest() + run_id).digest(size)


def sub_run(run_id: bytes, part: bytes) -> bytes:
    """The run id of one transfer or circuit of a detection's run."""
    return run_id + b"|" + part


def asker_masks(seed: bytes, run_id: bytes, hidden: bool = False) -> tuple[int, ...]:
    """The asker's 5-bit mask of each position (its choices in the input transfers);
    ``hidden`` (holders at secret squares): 13 bits, the holders' distances' masks in
    bits 5-12."""
    data = _stream(b"wec-sight masks|", seed, run_id, SLOTS)
    masks = tuple(b & 31 for b in data)
    if not hidden:
        return masks
    wide = _stream(b"wec-sight distance masks|", seed, run_id, SLOTS)
    return tuple(m | d << INPUTS for m, d in zip(masks, wide, strict=True))


# ---------------------------------------------------------------- the owner's positions


def positions(slots: Sequence[Slot], seed: bytes, run_id: bytes) -> tuple[Slot | None, ...]:
    """The slots at their positions (None: padding), in an order drawn from the owner's
    seed, so that a position tells nothing of the piece."""
    if len(slots) > SLOTS:
        raise PrivateSightError(f"more than {SLOTS} pieces that can hide")
    if any(s.pid >= NO_PID for s in slots):
        raise PrivateSightError(f"an identifier past {NO_PID - 1}")
    order = list(range(SLOTS))
    data = _stream(b"wec-sight order|", seed, run_id, 4 * SLOTS)
    for i in range(SLOTS - 1, 0, -1):  # Fisher-Yates from the seed's stream
        j = int.from_bytes(data[4 * i:4 * i + 4], "little") % (i + 1)
        order[i], order[j] = order[j], order[i]
    placed: list[Slot | None] = [None] * SLOTS
    for slot, at in zip(slots, order, strict=False):
        placed[at] = slot
    return tuple(placed)


def owner_squares(placed: Sequence[Slot | None]) -> list[int]:
    """The square each position asks the reach at (padding: square 0)."""
    return [s.sq if s is not None else 0 for s in placed]


def owner_pids(placed: Sequence[Slot | None]) -> list[int]:
    """The identifier each position asks the asker's bits of (padding: ``NO_PID``)."""
    return [s.pid if s is not None else NO_PID for s in placed]


# ---------------------------------------------------------------- the asker's tables


def reach_table(sight: Sight) -> dict[int, int]:
    """The asker's reach at every square (stealth reach | submersion reach << 1), the
    table of the owner's reach transfer (each position's copy comes masked)."""
    return {sq: (sight.stealth_reach >> sq & 1) | (sight.sub_reach >> sq & 1) << 1
            for sq in range(ENTRIES)}


def reach_masks(masks: Sequence[int]) -> list[int]:
    return [m & REACH_BITS for m in masks]


def distance_table(sight: Sight) -> list[int]:
    """The asker's distance from each of its acquiring holders to every square (holder
    ``h`` in bits ``4 h`` up; ``NO_HOLDER`` for a holder it does not have), the wide
    table of the reach transfer where its holders' squares are secret (R9.4(b))."""
    holders = [sq for _, _, sq in sight.acquiring]
    if len(holders) > HIDDEN_HOLDERS:
        raise PrivateSightError(f"more than {HIDDEN_HOLDERS} acquisitions in one Exchange "
                                "(R4.9)")
    table = []
    for sq in range(ENTRIES):
        entry = 0
        for h in range(HIDDEN_HOLDERS):
            d = distance(holders[h], sq) if h < len(holders) and sq < SQUARES else NO_HOLDER
            entry |= d << (DIST_BITS * h)
        table.append(entry)
    return table


_XOR = tuple(bytes(x ^ k for x in range(256)) for k in range(8))


def pid_tables(sight: Sight, masks: Sequence[int]) -> list[bytes]:
    """The asker's identifier bits (locked, saw, marked) for every identifier, one table
    per position XOR that position's mask: the owner's identifier transfer. ``locked``
    is any lock of the asker's on the piece; whether it holds is the owner's part."""
    targets = {lk.target for lk in sight.locks}
    seen, asked = set(sight.seen), set(sight.asked)
    plain = [(LOCKED if pid in targets else 0) | (SAW if pid in seen else 0)
             | (MARKED if pid in asked else 0) for pid in range(1 << PID_BITS)]
    plain[NO_PID] = 0
    shifted = bytes(v >> PID_SHIFT for v in plain)
    return [shifted.translate(_XOR[m >> PID_SHIFT]) for m in masks]


# ---------------------------------------------------------------- records


def encode_record(piece: Piece, hits: Sequence[tuple[int, ArticleKind, int]],
                  acted: ActionCounts | None) -> bytes:
    """A seen piece's record, padded to ``RECORD_SIZE``: the piece, its hits this turn
    (R6.4.2) and, when its side acts, how often it is in each action record (R4.5)."""
    p = piece
    fields = [p.pid, _SIDES.index(p.side), _KINDS.index(p.kind), p.sq, int(p.level),
              _HANDS.index(p.hand) if p.hand is not None else -1,
              [_ARTICLES.index(a) for a in p.articles], p.moved, p.hidden, p.stunned_until,
              list(p.ready),
              None if p.transit is None else [_ARTICLES.index(p.transit.article),
                                              p.transit.dest, p.transit.path],
              None if p.revealed is None else [p.revealed.kind, p.revealed.cell]]
    acts = None if acted is None else [acted.actors.count(p.pid), acted.firers.count(p.pid),
                                       acted.mover == p.pid, acted.transited.count(p.pid)]
    data: bytes = msgpack.packb([fields, [[_ARTICLES.index(k), n] for _, k, n in hits],
                                 acts])
    if len(data) > RECORD_SIZE - 1:
        raise PrivateSightError(f"a piece's record over {RECORD_SIZE - 1} bytes")
    return bytes([len(data)]) + data + bytes(RECORD_SIZE - 1 - len(data))


@dataclass(frozen=True, slots=True)
class Record:
    """A seen piece as its record tells it."""

    piece: Piece
    hits: tuple[tuple[int, ArticleKind, int], ...]
    acts: tuple[int, int, bool, int] | None


def decode_record(data: bytes) -> Record:
    try:
        fields, hits, acts = msgpack.unpackb(data[1:1 + data[0]])
        (pid, side, kind, sq, level, hand, articles, moved, hidden, stunned, ready, transit,
         revealed) = fields
        piece = Piece(pid, _SIDES[side], _KINDS[kind], sq, Level(level),
                      _HANDS[hand] if hand >= 0 else None,
                      tuple(_ARTICLES[a] for a in articles), moved, hidden, stunned,
                      tuple(ready),
                      None if transit is None else Transit(_ARTICLES[transit[0]], transit[1],
                                                           transit[2]),
                      None if revealed is None else Reveal(revealed[0], revealed[1]))
        return Record(piece, tuple((pid, _ARTICLES[k], n) for k, n in hits),
                      None if acts is None else (acts[0], acts[1], bool(acts[2]), acts[3]))
    except (ValueError, TypeError, IndexError, msgpack.UnpackException) as error:
        raise PrivateSightError(f"a garbled record that does not decode ({error})") from None


# ---------------------------------------------------------------- the garbled slots


RANK_BITS = 6  # a slot's place in a holder's order of lock candidates (R9.4(b))
NO_RANK = (1 << RANK_BITS) - 1  # "no candidate yet"


_FALSE = {k: (False,) * (1 << k) for k in range(1, 5)}  # a padding gate's table
_STEP = 8  # positions garbled a step of the idle work (SightGarbler.steps)
_WIRES = 80  # input wires' labels made a step of the idle work (RunPads: 0.3 ms)
# slices of a garbling's steps (RunPads.parts), with room to spare (a slice after the
# last does nothing)
_GARBLING_STEPS = len(range(0, SLOTS, _STEP)) + len(range(0, SLOTS, 2 * _STEP)) + 8
# slices of the input wires' labels, made apart from the garbling's setup (OwnerRun)
_LABEL_STEPS = len(range(0, SLOTS * INPUTS, _WIRES))
# slices of the garbling made ahead (OwnerRun.parts): the labels, the setup, the steps
_AHEAD_STEPS = _LABEL_STEPS + 1 + _GARBLING_STEPS
_OVER = object()


def _table(flips: Sequence[int], rule: Callable[..., bool]) -> list[bool]:
    """A gate's truth table over wires whose true values are their values XOR ``flips``
    (a masked input's flip is its masked bit; a wire the owner made has flip 0)."""
    k = len(flips)
    return [rule(*((y >> i & 1) ^ flips[i] for i in range(k))) for y in range(1 << k)]


_RULE_TABLES: dict[tuple[object, ...], list[bool]] = {}


def _rule_table(key: tuple[object, ...], inputs: int, rule: Callable[..., bool]
                ) -> list[bool]:
    """``_table`` of ``rule`` over ``inputs`` wires the owner made (no flips), kept by
    ``key``: what the rule's table hangs on (its kind and constants). The acquisitions'
    gates take a few dozen distinct tables; made by calling the rule per row, they were
    a third of the hidden-holders circuit's garbling with its pads made (its 3,198
    gates: a hidden Exchange's, on the path)."""
    made = _RULE_TABLES.get(key)
    if made is None:
        made = _RULE_TABLES[key] = _table([0] * inputs, rule)
    return made


@functools.cache
def _in_play_table(present: bool) -> list[bool]:
    """R9.10's gate over (seen now, seen at the step's start, marked): a marker's piece
    still in play, or one seen at the start and hidden now (``present``: the slot's
    piece is in play)."""
    return _table([0, 0, 0], lambda v, a, m: present and bool(m or (a and not v)))


@functools.cache
def _judged_table(crossed: bool, entered: bool, now: bool, after_only: bool) -> list[bool]:
    """The judgement gate over (seen now, seen at the step's start) of a slot whose
    piece ``crossed`` to the asker, ``entered`` play in the step, is in play ``now``;
    ``after_only``: for a Fire, seen after it only (R9.8; ``SightGarbler._judgements``)."""
    def judged(v: int, a: int) -> bool:
        if crossed:
            return True
        if entered and not now:
            return False
        if after_only and now:
            return bool(v)
        return (entered or bool(a)) and (not now or bool(v))

    return _table([0, 0], judged)


def lock_ranks(parts: DetectionParts, holder_sq: int | None) -> dict[int, int]:
    """Each of the owner's stealthy slots in play, by identifier: its place in R9.4(b)'s
    order for a holder at ``holder_sq`` (nearest first; ties as engine.visibility
    ``lock_order``, then identifier, as ``lock_target`` takes the first in slot order).
    ``holder_sq`` None (a holder at a secret square): the place among equal distances
    alone, which the asker's distance bits complete."""
    able = [s for s in parts.slots if s.piece is not None and s.stealthy]
    if holder_sq is None:
        able.sort(key=lambda s: (lock_order(0, s.piece)[1:], s.pid))  # type: ignore[arg-type]
    else:
        able.sort(key=lambda s: (lock_order(holder_sq, s.piece), s.pid))  # type: ignore[arg-type]
    return {s.pid: rank for rank, s in enumerate(able)}


# A bit of a lock candidate's key in a holder's order (``SightGarbler._acquisition``):
# the owner's constant (False, bit) or an input wire of the asker's (True, wire)
KeyBit = tuple[bool, int]


class SightGarbler:
    """The owner's side of one run: the circuit of every position, from its ``parts``
    and its positions (the asker's bits do not go in: it can be garbled before they
    come, as soon as the parts are known).

    Each input wire stands for the asker's *true* bit. The asker gets a label by
    ``INPUT_LABELS`` with its *mask* bit as its choice; the owner's table of the
    transfer (``_input_tables``) swaps each wire's two labels where the masked bit it
    read is 1, so that the mask bit picks the label of mask XOR masked: the true bit.
    ``material``: the garbled gates and items, in the order :func:`evaluate` reads
    them: the R9.4(b) acquisitions (one pass per acquiring holder), then per position
    "seen", its record, "in play" and its identifier, the lock's hold."""

    def __init__(self, seed: bytes, run_id: bytes, parts: DetectionParts,
                 placed: Sequence[Slot | None],
                 pads: dict[tuple[object, ...], object] | None = None,
                 build: bool = True, hidden: bool = False) -> None:
        """``build`` False: nothing garbled yet; :meth:`steps` does it a few positions
        a step (idle work that lets the peer's next message in between). ``hidden``:
        the asker's acquiring holders stand at secret squares (its Exchange the owner
        does not see): ``HIDDEN_HOLDERS`` passes on its distance bits, whatever it
        acquires (``parts.acquiring`` is empty: the owner does not know them)."""
        if len(placed) != SLOTS:
            raise ValueError(f"{SLOTS} positions")
        if hidden and parts.acquiring:
            raise ValueError("holders at secret squares are not the owner's to know")
        self._seed, self._run_id = seed, run_id
        self.hidden = hidden
        self._width = WIDE_INPUTS if hidden else INPUTS
        self._g = _garbler(seed, run_id, pads, self._width)
        self.parts, self.placed = parts, placed
        self.built = False
        if build:
            for _ in self.steps():
                pass

    def steps(self) -> Iterator[None]:
        """The garbling, yielding every ``_STEP`` positions (0.2-0.5 ms a step)."""
        g, parts, placed = self._g, self.parts, self.placed
        seed, run_id = self._seed, self._run_id
        lock_on = parts.options.stealth_lock_on
        self._holds = [s is not None and s.piece is not None and lock_on and s.stealthy
                       for s in placed]
        w = self._width
        acquired: list[int | None] = [None] * SLOTS  # a wire: acquired by some holder
        for holder_sq in parts.acquiring:
            ranks = lock_ranks(parts, holder_sq)
            acquired = self._acquisition(ranks, [_const_key(ranks, slot) for slot in placed],
                                         acquired)
            yield
        if self.hidden:
            ties = lock_ranks(parts, None)
            for holder in range(HIDDEN_HOLDERS):
                first = INPUTS + DIST_BITS * holder
                keys = [_const_key(ties, slot) + [
                    (True, w * at + first + b) for b in range(DIST_BITS)]
                    for at, slot in enumerate(placed)]
                acquired = self._acquisition(ties, keys, acquired)
                yield
        hits: dict[int, list[tuple[int, ArticleKind, int]]] = {}
        for h in parts.hits:
            hits.setdefault(h[0], []).append(h)
        seen_wires: list[int] = []
        for at, slot in enumerate(placed):
            if at and at % _STEP == 0:
                yield
            sr, ur, lk, saw, mk = range(w * at, w * at + INPUTS)
            present = slot is not None and slot.piece is not None
            seen_at = slot.seen if slot is not None and present else (False,) * 8
            holds = self._holds[at]
            acq = acquired[at]
            # R9.7 with the locks that hold and the ones acquired (R9.4(b, c))
            if slot is None:  # padding: false whatever the bits (the rows alike)
                seen = g.gate([sr, ur, lk] if acq is None else [sr, ur, lk, acq],
                              _FALSE[3 if acq is None else 4])
            elif acq is None:  # the slot's own table: its index is the inputs' values
                seen = g.gate([sr, ur, lk], seen_at)
            else:
                seen = g.gate([sr, ur, lk, acq], _rule_table(
                    ("seen acquired", seen_at, holds), 4,
                    lambda s, b, k, a, t=seen_at, h=holds: t[s | b << 1 | (k & h | a) << 2]))
            seen_wires.append(seen)
            if slot is not None and slot.piece is not None:
                g.seal(seen, 1, encode_record(slot.piece, hits.get(slot.pid, ()),
                                              parts.acted))
            else:
                g.material.append(g.noise(RECORD_SIZE))
            # R9.10: a marker's piece still in play, or one seen at the start now hidden
            in_play = g.gate([seen, saw, mk], _FALSE[3] if slot is None
                             else _in_play_table(present))
            if slot is not None:
                g.seal(in_play, 1, bytes([slot.pid]))
                g.seal(lk, 1, bytes([slot.pid, holds]))
            else:
                g.material.append(g.noise(1))
                g.material.append(g.noise(2))
        self.clear_entries, specs = entry_specs(parts, placed)
        judged = []
        for at, (slot, seen) in enumerate(zip(placed, seen_wires, strict=True)):
            if at % (2 * _STEP) == 0:
                yield
            judged.append(self._judgements(slot, seen, w * at + 3))
        yield
        garble_places(g, _stream(b"wec-sight places|", seed, run_id, PLACES_STREAM), specs,
                      judged)
        self.built = True

    def _judgements(self, slot: Slot | None, seen: int, saw: int) -> tuple[int, int]:
        """The asker's judgement of the slot's piece (engine.censor, engine.
        detection_parts ``_Judge``): seen at the step's start (or it entered play in the
        step) and seen now (or gone); and for a Fire, seen after it only (R9.8)."""
        parts, g = self.parts, self._g
        if slot is None:
            return (g.gate([seen, saw], _FALSE[2]), g.gate([seen, saw], _FALSE[2]))
        crossed, entered = slot.pid in parts.crossed, slot.pid in parts.entered
        now = slot.piece is not None
        return (g.gate([seen, saw], _judged_table(crossed, entered, now, False)),
                g.gate([seen, saw], _judged_table(crossed, entered, now, True)))

    def _acquisition(self, ranks: dict[int, int], keys: Sequence[Sequence[KeyBit]],
                     acquired: list[int | None]) -> list[int | None]:
        """One holder's acquisition (R9.4(b)): the candidates (stealthy, in play, not
        locked by a lock that holds or an earlier acquisition, not seen by reach), the
        least key among them carried through the positions *in position order* (in
        the holder's order the chain would show where hidden candidates rank among the
        pieces the asker sees), then each position's "this is the target" and, sealed
        under it, the identifier. ``keys``: each position's key in the holder's order,
        lowest bit first: its rank (the owner's constants), or for a holder at a secret
        square its rank among equal distances below the asker's distance bits (wires;
        the distance ``NO_HOLDER`` everywhere: no holder, no target). Returns the new
        "acquired" wires."""
        g = self._g
        w = self._width
        best: list[int] | None = None  # the least key so far, bit by bit (None: none yet)
        candidate: list[int] = []
        for at, slot in enumerate(self.placed):
            sr, ur, lk = range(w * at, w * at + 3)
            able = slot is not None and slot.pid in ranks and self._holds[at]
            seen_at = slot.seen if able and slot is not None else (True,) * 8
            flips, wires = [0, 0, 0], [sr, ur, lk]
            if acquired[at] is not None:
                flips.append(0)
                wires.append(acquired[at])  # type: ignore[arg-type]
            cand = g.gate(wires, _rule_table(
                ("candidate", len(flips), able, seen_at), len(flips),
                lambda s, b, k, a=0, t=seen_at, ok=able: ok and not k and not a
                and not t[s | b << 1]))
            candidate.append(cand)
            key = keys[at]
            if best is None:  # the first position: the least so far is "none" (all ones)
                best = [g.gate([cand, c], _rule_table(("first", True), 2,
                                                      lambda k, d: bool(d) if k else True))
                        if wire else g.gate([cand], [True, bool(c)]) for wire, c in key]
                continue
            best = self._take_less(best, key, cand)
        assert best is not None
        top = len(best) - 1
        valid = None  # a holder at a secret square: whether it has one (distance not all ones)
        if self.hidden:
            valid = g.gate(best[-DIST_BITS:], _rule_table(
                ("valid", DIST_BITS), DIST_BITS, lambda *d: not all(d)))
        out: list[int | None] = []
        for at, slot in enumerate(self.placed):
            key = keys[at]
            wire, c = key[0]
            first = [best[0], c] if wire else [best[0]]
            if valid is not None:  # "same" also takes "the holder is there"
                first.append(valid)
            same = g.gate(first, _rule_table(
                ("same first", wire, None if wire else c, valid is not None), len(first),
                lambda b, *r, c=c, w=wire: (b == (r[0] if w else c))
                and (valid is None or bool(r[-1]))))
            for i in range(1, top):
                wire, c = key[i]
                same = g.gate([best[i], same, c] if wire else [best[i], same], _rule_table(
                    ("same", wire, None if wire else c), 3 if wire else 2,
                    lambda b, e, *r, c=c, w=wire: bool(e) and b == (r[0] if w else c)))
            wire, c = key[top]
            target = g.gate(
                [best[top], same, candidate[at], c] if wire else [best[top], same, candidate[at]],
                _rule_table(("target", wire, None if wire else c), 4 if wire else 3,
                            lambda b, e, k, *r, c=c, w=wire: bool(e and k)
                            and b == (r[0] if w else c)))
            if slot is not None:
                g.seal(target, 1, bytes([slot.pid]))
            else:
                g.material.append(g.noise(1))
            before = acquired[at]
            out.append(target if before is None else g.gate(
                [before, target], [False, True, True, True]))
        return out

    def _take_less(self, best: list[int], key: Sequence[KeyBit], cand: int) -> list[int]:
        """The least key so far after a position: its ``key`` where it is a candidate
        and less than ``best`` (compared from the lowest bit up; the last gate also
        takes the candidate), else ``best``."""
        g = self._g
        top = len(best) - 1
        wire, c = key[0]
        less = g.gate([best[0], c], _rule_table(("less first", True), 2,
                                                lambda b, d: not d and bool(b))) if wire \
            else g.gate([best[0]], _rule_table(("less first", False, c), 1,
                                               lambda b, c=c: not c and bool(b)))
        for i in range(1, top):
            wire, c = key[i]
            less = g.gate([best[i], less, c], _rule_table(
                ("less", True), 3, lambda b, lt, d: d < b or (d == b and bool(lt)))) if wire \
                else g.gate([best[i], less], _rule_table(
                    ("less", False, c), 2, lambda b, lt, c=c: c < b or (c == b and bool(lt))))
        wire, c = key[top]
        take = g.gate([best[top], less, cand, c], _rule_table(
            ("take", True), 4,
            lambda b, lt, k, d: bool(k) and (d < b or (d == b and bool(lt))))) \
            if wire else g.gate([best[top], less, cand], _rule_table(
                ("take", False, c), 3,
                lambda b, lt, k, c=c: bool(k) and (c < b or (c == b and bool(lt)))))
        return [g.gate([take, b, c], _rule_table(("keep", True), 3,
                                                 lambda t, v, d: bool(d if t else v)))
                if wire else g.gate([take, b], _rule_table(
                    ("keep", False, c), 2, lambda t, v, c=c: bool(c if t else v)))
                for b, (wire, c) in zip(best, key, strict=True)]

    @property
    def material(self) -> bytes:
        return b"".join(self._g.material)

    @property
    def garbler(self) -> Garbler:
        return self._g


def _const_key(ranks: dict[int, int], slot: Slot | None) -> list[KeyBit]:
    """A position's rank in a holder's order as constant key bits (``NO_RANK``: not a
    candidate)."""
    rank = ranks.get(slot.pid, NO_RANK) if slot is not None else NO_RANK
    return [(False, rank >> i & 1) for i in range(RANK_BITS)]


def _circuit(seed: bytes, run_id: bytes,
             pads: dict[tuple[object, ...], object] | None = None) -> Garbler:
    """The run's circuit garbler, no wire made yet (its labels hang on the seed and the
    run alone: ``RunPads`` makes them ahead with one of its own)."""
    return Garbler(seed, sub_run(run_id, b"circuit"), pads)


def _garbler(seed: bytes, run_id: bytes,
             pads: dict[tuple[object, ...], object] | None = None,
             width: int = INPUTS) -> Garbler:
    """The run's garbler with its input wires made (``width`` per position, in order)."""
    g = _circuit(seed, run_id, pads)
    for _ in range(SLOTS * width):
        g.wire()
    return g


def _input_tables(g: Garbler, masked: Sequence[int], width: int = INPUTS
                  ) -> tuple[list[bytes], list[bytes]]:
    """The tables of the input labels' transfer and of the distance wires' (holders at
    secret squares; else empty): each input wire's two labels, swapped where the
    masked bit the owner read is 1 (the asker's mask bit picks one: the label of its
    true bit); each table's entries joined (the transfer checks a table's length
    alone)."""
    tables: tuple[list[bytes], list[bytes]] = ([], [])
    for at, u in enumerate(masked):
        for i in range(width):
            zero, one = g.labels(width * at + i)
            tables[i >= INPUTS].append(one + zero if u >> i & 1 else zero + one)
    return tables


@dataclass(frozen=True, slots=True)
class SlotsSeen:
    """What the asker learnt of the slots: the records of those it sees, the identifiers
    still in play for it (R9.10), its locks' targets among the slots with whether the
    lock holds (R9.4(c)), and each acquiring holder's target (R9.4(b))."""

    records: tuple[Record, ...]
    in_play: tuple[int, ...]
    holds: dict[int, bool]
    acquired: tuple[int | None, ...] = ()
    entries: tuple[tuple[Place, Entry], ...] = ()


def evaluate(run_id: bytes, material: bytes, labels: Sequence[bytes], holders: int = 0,
             hidden: bool = False) -> SlotsSeen:
    """The asker's evaluation of the owner's ``material`` with its input ``labels`` (the
    ``INPUT_LABELS`` transfer's entries, in order), ``holders`` its instances acquiring
    a lock (R9.4(b)), in :class:`SightGarbler`'s order. ``hidden``: its holders stand at
    secret squares (each position's labels are its ``INPUTS`` wires' then its distance
    wires', ``DIST_LABELS``; ``HIDDEN_HOLDERS`` passes, the targets of the first
    ``holders`` kept)."""
    width = WIDE_INPUTS if hidden else INPUTS
    if len(labels) != SLOTS * width:
        raise ValueError(f"{SLOTS * width} input labels")
    ev = Evaluator(sub_run(run_id, b"circuit"), material)
    records: list[Record] = []
    in_play: list[int] = []
    holds: dict[int, bool] = {}
    acquired_to: list[int | None] = []
    try:
        acquired: list[bytes | None] = [None] * SLOTS
        for _ in range(0 if hidden else holders):
            target, acquired = _acquisition(ev, labels, acquired, width)
            acquired_to.append(target)
        for h in range(HIDDEN_HOLDERS if hidden else 0):
            distances = [labels[width * at + INPUTS + DIST_BITS * h:
                                width * at + INPUTS + DIST_BITS * (h + 1)] for at in range(SLOTS)]
            target, acquired = _acquisition(ev, labels, acquired, width, distances)
            if h >= holders and target is not None:
                raise PrivateSightError("a target for a holder the asker does not have (R9.4(b))")
            acquired_to.append(target)
        acquired_to = acquired_to[:holders]
        seen_labels: list[bytes] = []
        seen_at: list[int] = []
        for at in range(SLOTS):
            sr, ur, lk, saw, mk = labels[width * at:width * at + INPUTS]
            acq = acquired[at]
            seen = ev.gate([sr, ur, lk] if acq is None else [sr, ur, lk, acq])
            seen_labels.append(seen)
            record = ev.open(seen, RECORD_SIZE)
            if record is not None:
                records.append(decode_record(record))
                seen_at.append(at)
            pid = ev.open(ev.gate([seen, saw, mk]), 1)
            if pid is not None:
                in_play.append(pid[0])
            lock = ev.open(lk, 2)
            if lock is not None:
                holds[lock[0]] = bool(lock[1])
        judged = [(ev.gate([v, a]), ev.gate([v, a])) for v, a in zip(
            seen_labels, [labels[width * at + 3] for at in range(SLOTS)], strict=True)]
        entries = read_places(ev, judged, seen_at)
        ev.done()
    except GarbleError as error:
        raise PrivateSightError(str(error)) from None
    return SlotsSeen(tuple(records), tuple(in_play), holds, tuple(acquired_to),
                     tuple(entries))


def _acquisition(ev: Evaluator, labels: Sequence[bytes], acquired: list[bytes | None],
                 width: int = INPUTS, distances: Sequence[Sequence[bytes]] | None = None
                 ) -> tuple[int | None, list[bytes | None]]:
    """One holder's pass (``SightGarbler._acquisition``): its target and the new
    "acquired" labels. ``distances``: the labels of each position's distance bits (a
    holder at a secret square), the key's top bits."""
    best: list[bytes] | None = None
    candidate: list[bytes] = []
    bits = RANK_BITS + (DIST_BITS if distances is not None else 0)
    top = bits - 1

    def key(at: int, i: int) -> list[bytes]:  # the wire of key bit i, if it is one
        return [distances[at][i - RANK_BITS]] if distances is not None and i >= RANK_BITS \
            else []

    for at in range(SLOTS):
        wires = list(labels[width * at:width * at + 3])
        if acquired[at] is not None:
            wires.append(acquired[at])  # type: ignore[arg-type]
        cand = ev.gate(wires)
        candidate.append(cand)
        if best is None:
            best = [ev.gate([cand, *key(at, i)]) for i in range(bits)]
            continue
        less = ev.gate([best[0], *key(at, 0)])
        for i in range(1, top):
            less = ev.gate([best[i], less, *key(at, i)])
        take = ev.gate([best[top], less, cand, *key(at, top)])
        best = [ev.gate([take, b, *key(at, i)]) for i, b in enumerate(best)]
    assert best is not None
    valid = [ev.gate(best[-DIST_BITS:])] if distances is not None else []
    target: int | None = None
    out: list[bytes | None] = []
    for at in range(SLOTS):
        same = ev.gate([best[0], *key(at, 0), *valid])
        for i in range(1, top):
            same = ev.gate([best[i], same, *key(at, i)])
        hit = ev.gate([best[top], same, candidate[at], *key(at, top)])
        pid = ev.open(hit, 1)
        if pid is not None:
            if target is not None:
                raise PrivateSightError("two targets for one acquisition")
            target = pid[0]
        before = acquired[at]
        out.append(hit if before is None else ev.gate([before, hit]))
    return target, out


# ---------------------------------------------------------------- the answer


@dataclass(frozen=True, slots=True)
class Clear:
    """The part of the answer the owner sends as it is: its pieces the asker sees
    whatever it has (not slots), their hits, and its action records naming them."""

    pieces: tuple[Piece, ...]
    hits: tuple[tuple[int, ArticleKind, int], ...]
    acted: ActionCounts | None
    entries: tuple[tuple[Place, Entry], ...] = ()
    projectiles: tuple[Projectile, ...] | None = None


def clear_to_wire(clear: Clear) -> bytes:
    """The clear part's bytes (net.fog_codec's compact form; the places as
    net.sight_places writes them)."""
    data: bytes = msgpack.packb([
        to_compact(clear.pieces), to_compact(clear.hits), to_compact(clear.acted),
        [[list(place.group), place.anchor, to_wire(place.block), place.local,
          to_compact(entry)] for place, entry in clear.entries],
        to_compact(clear.projectiles)])
    return data


def clear_from_wire(data: bytes) -> Clear:
    """``clear_to_wire``'s bytes read back; PrivateSightError for anything else (the
    asker takes nothing of a malformed clear part)."""
    try:
        pieces, hits, acted, entries, projectiles = msgpack.unpackb(data)
        clear = Clear(from_compact(pieces), from_compact(hits), from_compact(acted),
                      tuple((Place((g[0], g[1], g[2]), anchor, True, from_wire(block), local),
                             from_compact(entry))
                            for g, anchor, block, local, entry in entries),
                      from_compact(projectiles))
    except (ValueError, TypeError, IndexError, KeyError, WireError,
            msgpack.UnpackException) as error:
        raise PrivateSightError(f"a clear part that does not decode ({error})") from None
    if (not all(isinstance(p, Piece) for p in clear.pieces)
            or not all(type(h) is tuple and len(h) == 3 and type(h[0]) is int
                       and isinstance(h[1], ArticleKind) and type(h[2]) is int
                       for h in clear.hits)
            or not (clear.acted is None or isinstance(clear.acted, ActionCounts))
            or not (clear.projectiles is None
                    or all(isinstance(q, Projectile) for q in clear.projectiles))
            or not all(checked_place(place, entry) for place, entry in clear.entries)):
        raise PrivateSightError("a clear part that holds what the answer does not")
    return clear


def clear_part(parts: DetectionParts, entries: Sequence[tuple[Place, Entry]] = ()) -> Clear:
    """The clear part, with the free ``entries`` the asker is shown (their keys'
    sequence numbers blanked: their places order them)."""
    slotted = {s.pid for s in parts.slots}
    pieces = tuple(p for p in parts.own if p.pid not in slotted)
    shown = {p.pid for p in pieces}
    return Clear(pieces, tuple(h for h in parts.hits if h[0] in shown),
                 None if parts.acted is None else actions_seen(parts.acted, shown),
                 tuple((place, replace(e, key=(*e.key[:3], 0))) for place, e in entries),
                 parts.projectiles)


def answer(clear: Clear, slots: SlotsSeen, sight: Sight, options: Options) -> Detection:
    """The asker's answer to its ``detect`` from the owner's clear part, what it learnt
    of the slots and its own sight."""
    records = sorted(slots.records, key=lambda r: r.piece.pid)
    seen = tuple(sorted((*clear.pieces, *(r.piece for r in records)), key=lambda p: p.pid))
    if len({p.pid for p in seen}) != len(seen):
        raise PrivateSightError("an answer that shows one piece twice")
    if not set(slots.in_play) <= {*sight.asked, *sight.seen}:
        raise PrivateSightError("an answer that names in play a piece the asker neither "
                                "saw nor marks (R9.10)")
    hits = tuple(sorted((*clear.hits, *(h for r in records for h in r.hits)),
                        key=lambda h: (h[0], h[1].value)))
    acted = None if clear.acted is None else _acted(clear.acted, records)
    clear_by_pid = {p.pid: p for p in clear.pieces}
    released = tuple(i for i, lk in enumerate(sight.locks)
                     if not options.stealth_lock_on
                     or not _holds(lk.target, clear_by_pid, slots, options))
    in_play = tuple(sorted({*slots.in_play,
                            *(pid for pid in sight.asked if pid in clear_by_pid)}))
    return Detection(seen, hits, acted, released, slots.acquired, in_play,
                     in_order((*clear.entries, *slots.entries)), clear.projectiles)


def _holds(target: int, clear: dict[int, Piece], slots: SlotsSeen, options: Options
           ) -> bool:
    """R9.4(c): a lock on ``target`` holds while it is the owner's stealthy piece in play:
    a slot's hold comes sealed under the lock; of a piece seen whatever it has the asker
    tells from the piece; any other left play or went over."""
    if target in slots.holds:
        return slots.holds[target]
    piece = clear.get(target)
    return piece is not None and piece.is_stealthy(options)


def _acted(clear: ActionCounts, records: Sequence[Record]) -> ActionCounts:
    """The action records the asker sees: the clear part's with the seen slots' counts
    (in identifier order, engine.knowledge.enemy_actions)."""
    actors, firers, transited = list(clear.actors), list(clear.firers), list(clear.transited)
    mover = clear.mover
    for r in records:
        if r.acts is None:
            continue
        n_actors, n_firers, is_mover, n_transited = r.acts
        pid = r.piece.pid
        actors += [pid] * n_actors
        firers += [pid] * n_firers
        transited += [pid] * n_transited
        if is_mover:
            mover = pid
    return enemy_actions(ActionCounts(clear.move, clear.fire, clear.pickup, clear.drop,
                                      clear.exchange, clear.reinforce, tuple(actors),
                                      tuple(firers), mover, tuple(transited)))


# ---------------------------------------------------------------- one run, both roles


@dataclass(frozen=True, slots=True)
class Bases:
    """One side's part of the game's base transfers (net.ot): its ``pairs`` as a
    receiver, and as a sender its choice bits ``s`` and the ``chosen`` seeds of the
    other side's pairs."""

    pairs: tuple[tuple[bytes, bytes], ...]
    s: int
    chosen: tuple[bytes, ...]


class RunPads:
    """What the owner's garbling of one run needs that hangs on neither the slots nor
    the step (every wire's labels, every gate's rows' pads, the padding items), made
    before the run's slots are known: between actions, for the detections the next
    action may ask, so that one whose run was not garbled ahead (a detect that comes
    before any idle time, as in an End of turn's chain of questions) garbles on warm
    pads (about a third of the cold garbling's time); the items of the positions that
    hold slots are made then. The bytes are the same with or without."""

    def __init__(self, seed: bytes, run_id: bytes, options: Options) -> None:
        self.pads: dict[tuple[object, ...], object] = {}
        self._seed, self._run_id, self._options = seed, run_id, options
        # the input wires' labels first, a slice each third (the garbler's own making
        # of them, 0.9 ms, was one slice that a message coming meanwhile waited behind)
        self._labels = _circuit(seed, run_id, self.pads)
        self._garbler: SightGarbler | None = None
        self._steps: Iterator[None] = iter(())

    def parts(self) -> list[Callable[[], object]]:
        """The input wires' labels, then the garbling, a step a slice (nothing once it
        is made)."""
        if self.made:
            return []
        wires = SLOTS * INPUTS
        labels = [functools.partial(self._labels.wire_pads,
                                    range(first, min(first + _WIRES, wires)))
                  for first in range(0, wires, _WIRES)]
        return [*labels, *[self._step] * _GARBLING_STEPS]

    def _step(self) -> None:
        if self._garbler is None:  # on the labels made: a few dictionary lookups
            empty = DetectionParts(Side.WHITE, (), (), (), (), frozenset(), frozenset(), (),
                                   None, None, self._options)
            self._garbler = SightGarbler(self._seed, self._run_id, empty, (None,) * SLOTS,
                                         self.pads, build=False)
            self._steps = self._garbler.steps()
        next(self._steps, None)

    @property
    def made(self) -> bool:
        return self._garbler is not None and self._garbler.built


class OwnerRun:
    """The owner's side of one run: ``queries`` about its ``slots`` (known before the
    question: engine.half_referee ``detection_slots``; their squares and identifiers,
    by transfer), then ``garble`` with the detection's parts once the asker's masked
    tables and input query arrive. ``transfers``: the run's reach and identifier
    transfers made ahead, if any (:class:`OwnerTransfers`)."""

    def __init__(self, seed: bytes, run_id: bytes, bases: Bases, slots: Sequence[Slot],
                 options: Options, transfers: OwnerTransfers | None = None,
                 pads: RunPads | None = None) -> None:
        """``transfers``: the run's two query transfers made ahead (between actions or
        in idle time: :class:`OwnerTransfers`), if any; ``pads``: its labels and pads
        made ahead without its slots (:class:`RunPads`), if any."""
        self.seed, self.run_id, self.bases = seed, run_id, bases
        self.slots, self.options = tuple(slots), options
        self.placed = positions(self.slots, seed, run_id)
        made = transfers if transfers is not None else OwnerTransfers(bases, run_id)
        self._reach, self._pids = made.reach, made.pids
        self._pads: dict[tuple[object, ...], object] = {} if pads is None else pads.pads
        self._input_senders: dict[bool, LabelSender] = {}  # by ``distances``, when needed
        # the step's parts, when the owner can tell them before the question comes
        # (engine.half_referee ``detection_parts(..., take=False)``): ``ahead`` then
        # garbles the material itself (kept with its parts, used if they are the same)
        self.peek: Callable[[], DetectionParts | None] | None = None
        self._ahead: SightGarbler | None = None  # garbled from the parts peeked
        self._steps: Iterator[None] | None = None  # its garbling, a step a slice
        self._steps_over = False
        # the input wires whose labels the garbling made ahead so far: in steps of their
        # own (the garbler's setup made all 240 at once, a slice of 1-1.8 ms, until
        # session 36)
        self._labels_made = 0

    def _inputs(self, distances: bool = False) -> LabelSender:
        """The input labels' transfer, or the distance wires' (it needs the base
        transfers' seeds, which the queries do not: they can go out before the base
        transfers are done)."""
        sender = self._input_senders.get(distances)
        if sender is None:
            b = self.bases
            if not b.chosen:
                raise PrivateSightError("an input transfer before the base transfers")
            sender = self._input_senders[distances] = LabelSender(
                b.s, b.chosen, *_input_run(self.run_id, distances))
        return sender

    def take_input_query(self, input_query: bytes) -> None:
        """The asker's input query, when it comes ahead of the question (it hangs on
        the asker's masks alone): the transfer's keys are made at once."""
        self._inputs().prepare(input_query)

    def parts(self) -> list[Callable[[], object]]:
        """``ahead`` in slices (after ``queries``): the transfers' keys, then the
        garbling ``_STEP`` positions a slice (0.2-0.5 ms), so that the peer's next
        message is read between them rather than after 4-7 ms of it; last, the input
        labels' transfer's columns (its keys wait for the asker's input query)."""
        return [*self._reach.parts(), self._pids.prepare,
                *[self._ahead_step] * _AHEAD_STEPS, self._input_columns]

    def _input_columns(self) -> None:
        """The input labels' transfer's columns, which hang on the run alone (the keys
        wait for the asker's input query)."""
        if self.bases.chosen:
            self._inputs().columns()

    @property
    def made(self) -> bool:
        """Whether everything ``ahead`` makes is made."""
        return self._reach.made and self._steps_over

    def ahead(self) -> None:
        """What the garbling needs that hangs neither on the asker's bits nor on the
        step's entries and acquisitions (the wires' labels, the rows' and items' pads),
        made before the question arrives: in idle time, as the reach runs are; when the
        step's parts are known (``peek``: nothing of the owner's changes before the
        question), the whole material but for the input labels' swaps. The reply's
        bytes are the same made ahead or not."""
        if self._reach.squares is not None:  # after the queries: their keys
            for part in self._reach.parts():
                part()
            self._pids.prepare()
        self._input_columns()
        while not self._steps_over:
            self._ahead_step()

    def _ahead_step(self) -> None:
        """The next step of the garbling made ahead (nothing once it is over)."""
        if self._steps_over:
            return
        wires = SLOTS * INPUTS
        if self._labels_made < wires:  # the input wires' labels first, _WIRES a step
            first = self._labels_made
            self._labels_made = min(first + _WIRES, wires)
            _circuit(self.seed, self.run_id, self._pads).wire_pads(
                range(first, self._labels_made))  # (nothing where RunPads made them)
            return
        if self._steps is None:
            parts = self.peek() if self.peek is not None else None
            if parts is not None and parts.slots == self.slots:
                self._ahead = garbling = SightGarbler(self.seed, self.run_id, parts,
                                                      self.placed, self._pads, build=False)
            else:  # the pads only: a dry garbling with the same shape
                dry = DetectionParts(Side.WHITE, (), self.slots, (), (), frozenset(),
                                     frozenset(), (), None, None, self.options)
                garbling = SightGarbler(self.seed, self.run_id, dry, self.placed,
                                        self._pads, build=False)
            self._steps = garbling.steps()
            return  # the parts peeked and the garbler set up are a slice of their own
        if next(self._steps, _OVER) is _OVER:
            self._steps_over = True

    def _garbled(self, parts: DetectionParts, hidden: bool) -> SightGarbler | None:
        """The material garbled ahead for ``parts``, finished now if it was not (never
        for holders at secret squares: garbled ahead without them)."""
        ahead = self._ahead
        if ahead is None or ahead.parts != parts or hidden:
            return None  # (a dry garbling's pads serve all the same, as far as made)
        if self._steps is not None:
            for _ in self._steps:
                pass
            self._steps_over = True
        return ahead if ahead.built else None

    def queries(self) -> tuple[bytes, bytes]:
        """The reach query (``net.ot.QUERY_SIZE``) and the identifier query."""
        return (self._reach.query_slots(owner_squares(self.placed)),
                self._pids.query(owner_pids(self.placed)))

    def masked(self, reach_reply: bytes, pid_reply: bytes, wide_reply: bytes | None = None
               ) -> list[int]:
        """What the owner reads of the asker's bits: each position's five bits XOR the
        asker's mask (reach in bits 0-1, the identifier bits in 2-4); with
        ``wide_reply`` (holders at secret squares) its distance bits in 5-12."""
        reach = self._reach.finish_slots(reach_reply)
        pid_bits = [e[0] for e in self._pids.finish(pid_reply)]
        if any(b >> (INPUTS - PID_SHIFT) for b in pid_bits):
            raise PrivateSightError("an identifier entry past its three bits")
        masked = [r | b << PID_SHIFT for r, b in zip(reach, pid_bits, strict=True)]
        if wide_reply is None:
            return masked
        wide = self._reach.finish_wide(wide_reply)
        return [m | d << INPUTS for m, d in zip(masked, wide, strict=True)]

    def garble(self, parts: DetectionParts, reach_reply: bytes, pid_reply: bytes,
               input_query: bytes, wide_reply: bytes | None = None,
               distance_query: bytes | None = None) -> tuple[Any, ...]:
        """The input labels' reply, the garbled material and the clear part, for the
        detection's ``parts`` (their slots the run's); ``wide_reply`` and
        ``distance_query``: the asker's holders stand at secret squares (its masked
        distances and its query for their labels, whose reply comes fourth)."""
        return self.garble_masked(parts, self.masked(reach_reply, pid_reply, wide_reply),
                                  input_query, distance_query)

    def garble_masked(self, parts: DetectionParts, masked: Sequence[int], input_query: bytes,
                      distance_query: bytes | None = None) -> tuple[Any, ...]:
        """``garble`` from what the owner read already (``masked``)."""
        if parts.slots != self.slots:
            raise PrivateSightError("the detection's slots are not the ones asked about")
        hidden = distance_query is not None
        garbler = self._garbled(parts, hidden) or SightGarbler(
            self.seed, self.run_id, parts, self.placed, self._pads, hidden=hidden)
        tables = _input_tables(garbler.garbler, masked, WIDE_INPUTS if hidden else INPUTS)
        sent = (self._inputs().reply(input_query, tables[0]), garbler.material,
                clear_part(parts, garbler.clear_entries))
        if distance_query is None:
            return sent
        return (*sent, self._inputs(True).reply(distance_query, tables[1]))


def _input_run(run_id: bytes, distances: bool) -> tuple[bytes, LabelFormat]:
    """The run id and format of the input labels' transfer, or of the distance wires'."""
    return ((sub_run(run_id, b"distances"), DIST_LABELS) if distances
            else (sub_run(run_id, b"inputs"), INPUT_LABELS))


def reach_receiver(bases: Bases, run_id: bytes) -> ReachReceiver:
    """The owner's reach transfer of run ``run_id`` (made ahead by the fog game)."""
    return ReachReceiver(bases.pairs, sub_run(run_id, b"reach"))


class OwnerTransfers:
    """The owner's two query transfers of a run: the reach's (``reach_receiver``) and
    the identifiers' (``PID_LABELS``). Neither hangs on the slots until the query, so the
    fog game makes their columns and keys ahead (:meth:`parts`), and the queries its
    answers send ahead are then a few XORs (0.5-0.9 ms on the path each before)."""

    def __init__(self, bases: Bases, run_id: bytes) -> None:
        self.reach = reach_receiver(bases, run_id)
        self.pids = LabelReceiver(bases.pairs, sub_run(run_id, b"pids"), PID_LABELS)

    def parts(self) -> list[Callable[[], object]]:
        """The work made ahead, in parts of about half a millisecond."""
        return [*self.reach.parts(), self.pids.columns]

    @property
    def made(self) -> bool:
        return self.reach.made and self.pids.columns_made


def reach_sender(bases: Bases, run_id: bytes) -> ReachSender:
    """The asker's reach transfer of run ``run_id`` (made ahead by the fog game)."""
    return ReachSender(bases.s, bases.chosen, sub_run(run_id, b"reach"))


class AskerRun:
    """The asker's side of one run: ``reply`` to the owner's queries with its masked
    tables and its input query, then ``finish`` with the owner's reply and material."""

    def __init__(self, seed: bytes, run_id: bytes, bases: Bases, sight: Sight | None,
                 reach: ReachSender | None = None) -> None:
        """``sight`` may come later (set ``sight`` before ``reply``): the run's parts
        that do not hang on it are made ahead (``parts``)."""
        self.run_id, self.bases, self.sight = run_id, bases, sight
        self._seed = seed
        self.masks = asker_masks(seed, run_id)
        self.hidden = False  # set by ``reply``: holders at secret squares
        self._wide_inputs: LabelReceiver | None = None
        self._inputs = LabelReceiver(bases.pairs, sub_run(run_id, b"inputs"), INPUT_LABELS)
        b = bases
        self._reach = reach if reach is not None else reach_sender(bases, run_id)
        self._pids = LabelSender(b.s, b.chosen, sub_run(run_id, b"pids"), PID_LABELS)
        self._input_query: bytes | None = None

    def parts(self) -> list[Callable[[], object]]:
        """What the run needs before the owner's queries come, in slices: the reach
        transfer's columns and keys, the input query and its keys (its masks' only),
        and the identifier transfer's columns (its keys wait for the owner's query)."""
        return [*self._reach.parts(), self._input_query_ahead, self._inputs_ahead,
                self._pids.columns]

    @property
    def made(self) -> bool:
        """Whether everything ``parts`` makes is made."""
        return self._reach._w is not None and self._inputs.keys_made \
            and self._pids.columns_made

    def _input_query_ahead(self) -> None:
        """The input query (its masks' only), a slice apart from its keys."""
        if self._input_query is None:
            self._input_query = self._inputs.query(_mask_bits(self.masks, INPUTS))

    def _inputs_ahead(self) -> None:
        """The input query and its keys (made once)."""
        self._input_query_ahead()
        self._inputs.prepare()

    def ahead(self, reach_query: bytes, pid_query: bytes) -> None:
        """What the reply needs that does not hang on the asker's sight, made when the
        owner's queries arrive (they travel ahead of the question): the transfers'
        keys and the input query (its masks' only)."""
        for part in self._reach.parts():
            part()
        self._pids.prepare(pid_query)
        self._inputs_ahead()

    def reply(self, reach_query: bytes, pid_query: bytes, hidden: bool = False
              ) -> tuple[bytes, ...]:
        """The masked reach reply, the masked identifier reply and the input query;
        ``hidden`` (its acquiring holders at secret squares, its Exchange the owner does
        not see): also the masked distances (the reach transfer's wide table), and the
        query for the distance wires' labels (``DIST_LABELS``)."""
        self.ahead(reach_query, pid_query)
        assert self._input_query is not None and self.sight is not None
        reach = self._reach.reply(reach_query, reach_table(self.sight),
                                  reach_masks(self.masks))
        pids = self._pids.reply(pid_query, pid_tables(self.sight, self.masks))
        if not hidden:
            return reach, pids, self._input_query
        self.hidden = True
        wide_masks = [m >> INPUTS for m in asker_masks(self._seed, self.run_id, True)]
        wide = self._reach.reply_wide(distance_table(self.sight), wide_masks)
        return reach, pids, self._input_query, wide, self._distance_inputs().query(
            _mask_bits(wide_masks, WIDE_INPUTS - INPUTS))

    def _distance_inputs(self) -> LabelReceiver:
        if self._wide_inputs is None:
            self._wide_inputs = LabelReceiver(self.bases.pairs, *_input_run(self.run_id, True))
        return self._wide_inputs

    def finish(self, input_reply: bytes, material: bytes, clear: Clear, options: Options,
               distance_reply: bytes | None = None) -> Detection:
        """The answer from the owner's reply, material and clear part (with
        ``distance_reply`` after a ``hidden`` reply)."""
        assert self.sight is not None
        labels = self._inputs.finish(input_reply)
        if self.hidden:
            if distance_reply is None:
                raise PrivateSightError("an answer without the distance labels' reply")
            distances = self._distance_inputs().finish(distance_reply)
            span = WIDE_INPUTS - INPUTS
            labels = [label for at in range(SLOTS) for label in (
                *labels[INPUTS * at:INPUTS * (at + 1)], *distances[span * at:span * (at + 1)])]
        seen = evaluate(self.run_id, material, labels, len(self.sight.acquiring), self.hidden)
        return answer(clear, seen, self.sight, options)


def holders_hidden(form: Intent, hidden: bool, actor: Side, asker: Side) -> bool:
    """Whether ``asker``'s acquiring holders stand at squares the other side must not
    learn in an action (its public form ``form``, ``hidden`` when the other side does
    not see its actor): an Exchange of ``asker``'s the other side does not see (R4.9:
    such an Exchange travels as nothing, net.fog_codec ``public_form``). A Pick-up's
    ground square, a reinforcement's and a converted piece's are the other side's to
    know (R9.4(a)). Public facts, so both sides and the audit agree."""
    return hidden and actor is asker and isinstance(form, Exchange)


def question_sight(sight: Sight, hidden: bool = False) -> Sight:
    """What travels of the asker's ``sight`` in its detect question: its acquiring
    holders' squares alone (public: a Pick-up's ground, a reinforcement's square,
    R9.4(a)); everything else the run keeps on its machine. ``hidden`` (its Exchange
    the owner does not see, R4.9): not even those (they go as distances, masked)."""
    return Sight((), () if hidden else tuple((0, 0, sq) for _, _, sq in sight.acquiring),
                 0, 0, (), ())


# ---------------------------------------------------------------- the audit


def audit_asker(seed: bytes, run_id: bytes, bases: Bases, sight: Sight, queries: Sequence[bytes],
                sent: Sequence[bytes], hidden: bool = False) -> bool:
    """Whether the asker's messages of a run (masked reach reply, masked identifier
    reply, input query; ``hidden``: and its masked distances) are what its revealed
    seed and true ``sight`` give for the owner's ``queries``: an asker that claimed bits
    it does not have (a lock on every piece, reach everywhere, a holder elsewhere) to
    open what the rules do not show it fails here."""
    reach_query, pid_query = queries
    return tuple(AskerRun(seed, run_id, bases, sight).reply(reach_query, pid_query, hidden)) \
        == tuple(sent)


def audit_owner(seed: bytes, run_id: bytes, bases: Bases, parts: DetectionParts,
                queries: Sequence[bytes], received: Sequence[bytes], sent: Sequence[object]
                ) -> bool:
    """Whether the owner's messages of a run (its queries; its input reply, material and
    clear part for the asker's ``received`` messages) are what its revealed seed and
    true ``parts`` give: an owner that sealed a record under the wrong label, or hid a
    seen piece, fails here."""
    run = OwnerRun(seed, run_id, bases, parts.slots, parts.options)
    if tuple(run.queries()) != tuple(queries):
        return False
    return tuple(run.garble(parts, *received)) == tuple(sent)


def _mask_bits(masks: Sequence[int], width: int) -> list[int]:
    """The input transfer's choices: each position's mask, bit by bit."""
    return [m >> i & 1 for m in masks for i in range(width)]


def asker_bits(sight: Sight, placed: Sequence[Slot | None], hidden: bool = False
               ) -> list[int]:
    """The asker's five bits at each position (reach in bits 0-1, the identifier bits in
    2-4; ``hidden``: its holders' distances in 5-12), as its true ``sight`` gives them."""
    reach = reach_table(sight)
    pids = pid_tables(sight, [0] * SLOTS)[0]
    wide = distance_table(sight) if hidden else [0] * ENTRIES
    return [reach[sq] | pids[pid] << PID_SHIFT | wide[sq] << INPUTS
            for sq, pid in zip(owner_squares(placed), owner_pids(placed), strict=True)]


def claimed_bits(masked: Sequence[int], seed: bytes, run_id: bytes, hidden: bool = False
                 ) -> list[int]:
    """The bits an asker claimed at each position: what the owner read (``masked``)
    XOR the masks its revealed ``seed`` draws. The audit compares them with
    ``asker_bits`` of its true sight (a cheap check of ``audit_asker``'s tables, with
    ``input_query`` for its input query)."""
    return [m ^ k for m, k in zip(masked, asker_masks(seed, run_id, hidden), strict=True)]


def input_query(seed: bytes, run_id: bytes, pairs: Sequence[tuple[bytes, bytes]],
                distances: bool = False) -> bytes:
    """The input query an honest asker sends: its masks' bits, by its seed's pairs
    (``distances``: its distance wires' query)."""
    masks = asker_masks(seed, run_id, distances)
    if distances:
        return LabelReceiver(pairs, *_input_run(run_id, True)).query(
            _mask_bits([m >> INPUTS for m in masks], WIDE_INPUTS - INPUTS))
    return LabelReceiver(pairs, *_input_run(run_id, False)).query(_mask_bits(masks, INPUTS))
