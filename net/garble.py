"""Garbled tables: one side evaluates a small function of its own secret bits and the
other side's data, and learns the outputs only (issue 21: the private detection).

The side that knows the function (the *garbler*: the owner of the pieces, for
detection) gives every wire two 16-byte labels, one per value, drawn from its seed and
the run id. The other side (the *evaluator*: the detecting side) gets one label per
input wire, the one of its bit, by oblivious transfer (net.ot ``LabelSender``: the
garbler offers both, the evaluator's choice stays its own), and evaluates:

* a *gate* (``Garbler.gate``): a truth table over up to four wires, one row per
  combination of their values, each row the output wire's label for that combination
  sealed under the input labels (Yao's garbled table, with point-and-permute: a
  label's last bit, its *select* bit, tells the evaluator which row it can open, and
  the select bits are random for the garbler's seed, so the row tells nothing of the
  values);
* an *item* (``Garbler.seal``): bytes sealed under one label of one wire, so that only
  the side holding that label (the wire has that value) can read them; with the other
  label the item reads as noise, and the evaluator cannot tell an item meant for the
  other value from a padding item.

Rows and items are hashing only (SHAKE-256); nothing here is public-key work. The
circuit's *shape* (which gates, in which order, over which wires, how many items of
which size) must be fixed by public facts alone, since the evaluator sees it: the
caller pads. A dishonest garbler can seal anything; the end-of-game audit remakes the
garbler's bytes from its revealed seed and true data (every label and row follows from
the seed and the run id) and compares.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

LABEL_SIZE = 16
CHECK = bytes(8)  # an item opens to these 8 zero bytes first with the right label
MAX_INPUTS = 4
_ROW_BITS = 8 * LABEL_SIZE
# a label in every row of a gate of k inputs (multiplied by the label)
_EVERY_ROW = tuple(sum(1 << _ROW_BITS * r for r in range(1 << k)) for k in range(MAX_INPUTS + 1))
_CHECK_SIZE = len(CHECK)
_CHECK_MASK = (1 << 8 * _CHECK_SIZE) - 1  # an item's check, the low bytes (all zero)


class GarbleError(ValueError):
    """Garbled bytes that are not of the shape agreed."""


def _stream(tag: bytes, key: bytes, size: int) -> bytes:
    return hashlib.shake_256(tag + key).digest(size)


def _xor(a: bytes, b: bytes) -> bytes:
    return (int.from_bytes(a, "little") ^ int.from_bytes(b, "little")).to_bytes(len(a),
                                                                              "little")


def xor(a: bytes, b: bytes) -> bytes:
    """Two byte strings of one length XORed."""
    return _xor(a, b)


def select(label: bytes) -> int:
    """A label's select bit (point-and-permute)."""
    return label[-1] & 1


def _item_pad(run_key: bytes, item: int, label: bytes, size: int) -> bytes:
    return _stream(b"wec-gc item|" + run_key + item.to_bytes(4, "little"), label, size)


_PLACED: dict[tuple[tuple[bool, ...], int], int] = {}  # _placed_ones, made once each


def _placed_ones(table: Sequence[bool], flips: int) -> int:
    """A one at the place of each row whose table entry is true (row x at ``x ^ flips``,
    ``_ROW_BITS`` apart): where a gate's rows hold the output's label for 1. A circuit
    has a few hundred distinct (table, flips), kept."""
    key = (tuple(table), flips)
    made = _PLACED.get(key)
    if made is None:
        if len(_PLACED) > 4096:
            _PLACED.clear()
        made = _PLACED[key] = sum(1 << _ROW_BITS * (x ^ flips)
                                  for x, value in enumerate(table) if value)
    return made


class Garbler:
    """The garbling side of one run (``run_id``: unique per game, action and question):
    wires, gates and items, their bytes in the order made (``material``)."""

    def __init__(self, seed: bytes, run_id: bytes,
                 pads: dict[tuple[object, ...], object] | None = None) -> None:
        """``pads``: what another garbler of the same seed and run made ahead (labels,
        rows' and items' pads: none of it hangs on the tables or payloads), taken
        instead of hashed again; the bytes are the same either way."""
        self.run_key = hashlib.sha256(b"wec-gc run|" + run_id).digest()
        self._seed = hashlib.sha256(b"wec-gc seed|" + seed + self.run_key).digest()
        self.wires = 0
        self.gates = 0
        self.items = 0
        self.material: list[bytes] = []
        self._labels: list[tuple[bytes, bytes]] = []
        self.pads: dict[tuple[object, ...], object] = {} if pads is None else pads

    def wire(self) -> int:
        """A new wire."""
        wire = self.wires
        self.wires += 1
        made = self.pads.get(("w", wire))
        if made is None:
            made = self.pads[("w", wire)] = self._wire_labels(wire)
        self._labels.append(made)  # type: ignore[arg-type]
        return wire

    def wire_pads(self, wires: range) -> None:
        """The labels of ``wires`` made into ``pads`` ahead, as :meth:`wire` makes them,
        without making the wires (idle work in slices: 240 wires are 0.9 ms)."""
        pads = self.pads
        for wire in wires:
            if ("w", wire) not in pads:
                pads[("w", wire)] = self._wire_labels(wire)

    def _wire_labels(self, wire: int) -> tuple[bytes, bytes]:
        """Wire ``wire``'s two labels; their last bits differ (the point-and-permute
        bit)."""
        data = _stream(b"wec-gc wire|", self._seed + wire.to_bytes(4, "little"),
                       2 * LABEL_SIZE + 1)
        zero, one, flip = (data[:LABEL_SIZE], data[LABEL_SIZE:2 * LABEL_SIZE], data[-1] & 1)
        return (zero[:-1] + bytes([zero[-1] & 0xFE | flip]),
                one[:-1] + bytes([one[-1] & 0xFE | flip ^ 1]))

    def labels(self, wire: int) -> tuple[bytes, bytes]:
        """The wire's labels for 0 and 1 (their select bits differ)."""
        return self._labels[wire]

    def label(self, wire: int, value: bool | int) -> bytes:
        return self.labels(wire)[1 if value else 0]

    def gate(self, inputs: Sequence[int], table: Sequence[bool]) -> int:
        """A new wire whose value is ``table`` at the inputs' values (index: input k's
        value at bit k), and the gate's rows into the material."""
        out = self.wire()
        k = len(inputs)
        if not 0 < k <= MAX_INPUTS or len(table) != 1 << k:
            raise ValueError(f"a gate over 1..{MAX_INPUTS} wires has 2**inputs rows")
        # the select bits of each input's label for 0 (its label for 1 has the other)
        gate = self.gates
        self.gates += 1
        labels = self._labels
        flips = 0
        for i, wire in enumerate(inputs):
            flips |= (labels[wire][0][-1] & 1) << i
        pads = self.pads.get(("r", gate, LABEL_SIZE, *inputs))
        if pads is None:
            pads = self._row_pads(gate, inputs, flips)
        # row x (at place x ^ flips) is the output's label for table[x] under its pad:
        # every row's label for 0, and for 1 where the table says so, in one integer
        zero_label, one_label = labels[out]
        zero = int.from_bytes(zero_label, "little")
        one = int.from_bytes(one_label, "little")
        rows = pads ^ zero * _EVERY_ROW[k] ^ (zero ^ one) * _placed_ones(table, flips)  # type: ignore[operator]
        self.material.append(rows.to_bytes(LABEL_SIZE << k, "little"))
        return out

    def _row_pads(self, gate: int, inputs: Sequence[int], flips: int) -> int:
        """Gate ``gate``'s rows' pads, hashed now (and kept in the pad cache), each at
        the place its row takes (row x at ``x ^ flips``), in one integer."""
        prefix = b"wec-gc row|" + self.run_key + gate.to_bytes(4, "little")
        # the rows' inputs, by combination x (input i's label for bit i of x)
        combos = [prefix]
        for zero, one in (self._labels[w] for w in inputs):
            combos = [c + zero for c in combos] + [c + one for c in combos]
        shake, from_bytes = hashlib.shake_256, int.from_bytes
        made = 0
        for x, c in enumerate(combos):
            made |= from_bytes(shake(c).digest(LABEL_SIZE), "little") << _ROW_BITS * (x ^ flips)
        self.pads[("r", gate, LABEL_SIZE, *inputs)] = made
        return made

    def seal(self, wire: int, value: bool | int, payload: bytes) -> None:
        """``payload`` sealed under the wire's label for ``value`` (an item)."""
        self.material.append(self.sealed(self.label(wire, value), payload))

    def sealed(self, key: bytes, payload: bytes) -> bytes:
        """``payload`` sealed under the label ``key`` (an item, not yet placed)."""
        item = self.items
        self.items += 1
        data = CHECK + payload
        pad = self.pads.get(("i", item, len(data), key))
        if pad is None:
            pad = self.pads[("i", item, len(data), key)] = _item_pad(self.run_key, item, key,
                                                                     len(data))
        return _xor(data, pad)  # type: ignore[arg-type]

    def noise(self, size: int) -> bytes:
        """An item of ``size`` bytes of payload that no label opens (padding)."""
        item = self.items
        self.items += 1
        made = self.pads.get(("n", item, size))
        if made is None:
            made = self.pads[("n", item, size)] = _stream(
                b"wec-gc noise|" + self.run_key + item.to_bytes(4, "little"), self._seed,
                len(CHECK) + size)
        return made  # type: ignore[return-value]


class Evaluator:
    """The evaluating side of one run: it holds one label per wire, and reads the
    material in the order the garbler made it."""

    def __init__(self, run_id: bytes, material: bytes) -> None:
        self.run_key = hashlib.sha256(b"wec-gc run|" + run_id).digest()
        self._row_prefix = b"wec-gc row|" + self.run_key
        self._item_prefix = b"wec-gc item|" + self.run_key
        self._data = material
        self._at = 0
        self.gates = 0
        self.items = 0

    def _take(self, size: int) -> bytes:
        if self._at + size > len(self._data):
            raise GarbleError("garbled material shorter than its shape")
        chunk = self._data[self._at:self._at + size]
        self._at += size
        return chunk

    def done(self) -> None:
        """Every byte read (GarbleError if the material is longer than its shape)."""
        if self._at != len(self._data):
            raise GarbleError("garbled material longer than its shape")

    def take(self, size: int) -> bytes:
        """The next ``size`` bytes as they are (what the caller lays out itself)."""
        return self._take(size)

    def gate(self, labels: Sequence[bytes]) -> bytes:
        """The output label of the next gate (over wires whose labels we hold)."""
        return self.row(labels, LABEL_SIZE)

    def row(self, labels: Sequence[bytes], size: int) -> bytes:
        """The content of the next gate's row that our ``labels`` open."""
        start = self._at
        self._at = end = start + (size << len(labels))
        if end > len(self._data):
            raise GarbleError("garbled material shorter than its shape")
        gate = self.gates
        self.gates += 1
        # the select bits (point-and-permute): input i's label's last bit at bit i
        # (unrolled: the evaluation's 250 gates a detection are on its path)
        at = labels[0][-1] & 1
        if len(labels) > 1:
            at |= (labels[1][-1] & 1) << 1
            if len(labels) > 2:
                at |= (labels[2][-1] & 1) << 2
                if len(labels) > 3:
                    at |= (labels[3][-1] & 1) << 3
        at = start + at * size
        key = hashlib.shake_256(self._row_prefix + gate.to_bytes(4, "little")
                                + b"".join(labels)).digest(size)
        return (int.from_bytes(self._data[at:at + size], "little")
                ^ int.from_bytes(key, "little")).to_bytes(size, "little")

    def open(self, label: bytes, size: int) -> bytes | None:
        """The next item's payload (``size`` bytes) if ``label`` opens it, else None
        (:meth:`take_item` and :meth:`open_item` in one, the check and the payload
        unsealed as one integer: some 150 items a detection, on its path)."""
        item = self.items
        self.items += 1
        start = self._at
        self._at = end = start + _CHECK_SIZE + size
        if end > len(self._data):
            raise GarbleError("garbled material shorter than its shape")
        pad = hashlib.shake_256(self._item_prefix + item.to_bytes(4, "little")
                                + label).digest(_CHECK_SIZE + size)
        plain = int.from_bytes(self._data[start:end], "little") ^ int.from_bytes(pad, "little")
        if plain & _CHECK_MASK:
            return None  # another label's item, or padding: its check reads as noise
        return (plain >> 8 * _CHECK_SIZE).to_bytes(size, "little")

    def take_item(self, size: int) -> tuple[int, bytes]:
        """The next item, to open later (its number and bytes)."""
        item = self.items
        self.items += 1
        return item, self._take(len(CHECK) + size)

    def open_item(self, taken: tuple[int, bytes], label: bytes) -> bytes | None:
        """A taken item's payload if ``label`` opens it, else None."""
        item, data = taken
        pad = hashlib.shake_256(self._item_prefix + item.to_bytes(4, "little")
                                + label).digest(len(data))
        check = len(CHECK)
        if _xor(data[:check], pad[:check]) != CHECK:
            return None  # another label's item, or padding: its check reads as noise
        return _xor(data[check:], pad[check:])
