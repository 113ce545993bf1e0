"""The owner's entries of a private detection, by tagged places (issue 21,
docs/network.md "The private detection"; net.private_sight garbles the rest).

The owner's entries of the step (engine.questions entries: its events and public
consequences) go two ways. A *free* entry (its showing does not hang on the asker's
bits: public, or about pieces outside the slots) goes in the clear if the asker is
shown it. An entry about a slot goes in one of ``ENTRY_PLACES`` places, padded, each a
4-byte tag and an item sealed under the label of its *home* slot's judgement (the
asker's engine.censor judgement of the piece: seen at the step's start and now, or
after it only for a Fire, R9.8), tagged by that label and the place's number, so that
the asker finds the places it can open by the labels it holds and learns nothing of the
others (which slot, or whether padding). Inside, a second slot (a *partner*: the other
piece of an Exchange, a Move's passenger) picks one of two variants by its judgement;
an entry about one slot names a random partner and has two equal variants, so an
entry's partner never shows where the asker does not see it. An entry that shows
whatever its slot's judgement (a visible mover's passenger) is tagged by a public label
instead, and an entry shown only when both its pieces (in play) are seen is keyed by
both their labels (``pair_label``), so that a hidden partner never reads as a variant of
nothing. Every variant carries the entry's place among those shown (engine.
detection_parts ``Place``): the asker orders what it is shown by the places alone, and
no sequence number counts what it is not shown.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import msgpack  # type: ignore[import-untyped]

from wec.engine.detection_parts import (
    DetectionParts,
    Forced,
    Place,
    Slot,
    free_judge,
    places,
    shown_as,
)
from wec.engine.outcome import FIRED
from wec.engine.questions import Dropping, Entry, JudgePoint, Loss, Shown
from wec.net.fog_codec import WireError, from_compact, from_wire, to_compact, to_wire
from wec.net.garble import CHECK, LABEL_SIZE, Evaluator, Garbler, select, xor


class PrivateSightError(ValueError):
    """Bytes of the private detection that are not what the protocol agreed."""


ENTRY_PLACES = 8  # places for entries about slots (random games: at most 5 a detection)
ENTRY_SIZE = 320  # an entry's variant: its place and the entry, padded
TAG_SIZE = 4
JUDGED, JUDGED_AFTER = 0, 1  # a slot's two judgement wires (engine.censor)
_VARIANT = len(CHECK) + ENTRY_SIZE
_OUTER = 2 + 2 * LABEL_SIZE + 2 * _VARIANT
PLACES_STREAM = 4 * ENTRY_PLACES + ENTRY_PLACES * (1 + 2 * LABEL_SIZE)  # order, keys


@dataclass(frozen=True, slots=True)
class PlaceSpec:
    """One entry about slots: its home (position and judgement wire; None: public), its
    partner (position and wire) and its two variants (by the partner's judgement); with
    ``pair`` (a position) the place opens only to both homes' "judged" labels together
    (an entry shown only when both its pieces, in play, are seen: were it opened by one
    home, a hidden partner would show as a variant of nothing)."""

    home: tuple[int, int] | None
    partner: tuple[int, int] | None
    variants: tuple[bytes, bytes]
    pair: int | None = None  # a second home: the entry opens only with both judged


def _wire_place(place: Place, entry: Entry | None) -> bytes:
    """A variant's bytes: the entry with its place (its key's sequence number blanked:
    the place orders it), or nothing; padded to ``ENTRY_SIZE``."""
    if entry is None:
        return bytes(ENTRY_SIZE)
    blank = replace(entry, key=(*entry.key[:3], 0))
    data: bytes = msgpack.packb([list(place.group), place.anchor, place.free,
                                 to_wire(place.block), place.local, to_compact(blank)])
    if len(data) > ENTRY_SIZE - 2:
        raise PrivateSightError(f"an entry over {ENTRY_SIZE - 2} bytes")
    return len(data).to_bytes(2, "little") + data + bytes(ENTRY_SIZE - 2 - len(data))


def _tuples(value: Any) -> Any:
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value


def _read_place(data: bytes) -> tuple[Place, Entry] | None:
    size = int.from_bytes(data[:2], "little")
    if size == 0:
        return None
    try:
        group, anchor, free, block, local, entry = msgpack.unpackb(data[2:2 + size])
        place = Place((group[0], group[1], group[2]), anchor, bool(free),
                      _tuples(from_wire(block)), local)
        shown = from_compact(entry)
    except (ValueError, TypeError, IndexError, KeyError, WireError,
            msgpack.UnpackException) as error:
        raise PrivateSightError(f"a garbled entry that does not decode ({error})") from None
    if not isinstance(shown, (Shown, Dropping, Loss, JudgePoint)):
        raise PrivateSightError("a garbled entry that is not an entry")
    if not checked_place(place, shown):
        raise PrivateSightError("a garbled entry whose place does not order it")
    return place, shown


def checked_place(place: Place, entry: Any) -> bool:
    """Whether an entry read from the owner is an entry with a place as the engine makes
    them (integers, a block key of integers, strings and booleans), so that places sort
    and nothing else is taken."""
    return (isinstance(entry, (Shown, Dropping, Loss, JudgePoint))
            and all(type(v) is int for v in (*place.group, place.anchor, place.local))
            and type(place.block) is tuple and _comparable(place.block))


def _comparable(block: tuple[Any, ...]) -> bool:
    """A block key as the engine makes them (engine.formats ``piece_order_key`` and an
    identifier): integers, strings, booleans and tuples of them, so that places sort."""
    return all(type(v) in (int, str, bool) or (type(v) is tuple and _comparable(v))
               for v in block)


def entry_specs(parts: DetectionParts, placed: Sequence[Slot | None]
                ) -> tuple[list[tuple[Place, Entry]], list[PlaceSpec]]:
    """The free entries the asker is shown (with their places) and the places of the
    entries about slots."""
    at_of = {s.pid: at for at, s in enumerate(placed) if s is not None}
    base = free_judge(parts)
    free_shown = [None if _slot_pids(e, at_of) else shown_as(e, base) for e in parts.entries]
    where = places(parts.entries, at_of, [e is not None for e in free_shown],
                   parts.orders or {})
    clear = [(place, e) for place, e in zip(where, free_shown, strict=True) if e is not None]
    specs = []
    for entry, place in zip(parts.entries, where, strict=True):
        pids = _slot_pids(entry, at_of)
        if pids:
            specs.append(_spec(entry, place, pids, at_of, base, placed))
    return clear, specs


def _slot_pids(entry: Entry, at_of: dict[int, int]) -> tuple[int, ...]:
    if not isinstance(entry, Shown) or entry.subject is None:
        return ()
    return tuple(dict.fromkeys(pid for pid in entry.subject[1] if pid in at_of))


def _spec(entry: Entry, place: Place, pids: tuple[int, ...], at_of: dict[int, int],
          base: Any, placed: Sequence[Slot | None]) -> PlaceSpec:
    """An entry's place spec from its variants over its slots' judgements."""
    assert isinstance(entry, Shown) and entry.subject is not None
    mode, first_pid = entry.subject[0], entry.subject[1][0]

    def wire_of(pid: int) -> int:  # R9.8: a Fire is judged after it, its firer only
        return JUDGED_AFTER if mode == FIRED and pid == first_pid else JUDGED

    if len(pids) > 2:
        raise PrivateSightError(f"an entry about {len(pids)} pieces that can hide")

    def variant(values: dict[int, bool]) -> bytes | None:
        shown = shown_as(entry, Forced(base, values))
        return None if shown is None else _wire_place(place, shown)

    if len(pids) == 1:
        (pid,) = pids
        off, on = variant({pid: False}), variant({pid: True})
        if off is None:  # shown only if the slot is: its home
            assert on is not None
            return PlaceSpec((at_of[pid], wire_of(pid)), None, (on, on))
        return PlaceSpec(None, (at_of[pid], wire_of(pid)), (off, on if on is not None else off))
    first, second = pids
    table = {(a, b): variant({first: a, second: b}) for a in (False, True)
             for b in (False, True)}
    for home, partner, flip in ((first, second, False), (second, first, True)):
        if all(v is None for (a, b), v in table.items() if (b if flip else a) is False):
            def get(h: bool, p: bool, flip: bool = flip) -> bytes:
                found = table[(p, h) if flip else (h, p)]
                return found if found is not None else _wire_place(place, None)
            both = get(True, True)
            if (table[(True, False) if not flip else (False, True)] is None
                    and wire_of(home) == wire_of(partner) == JUDGED
                    and all(placed[at_of[pid]].piece is not None  # type: ignore[union-attr]
                            for pid in pids)):
                # shown only with both: a place of the pair (both in play: each judged
                # means seen now, so the asker tries the pairs of the pieces it sees)
                return PlaceSpec((at_of[home], JUDGED), None, (both, both), at_of[partner])
            return PlaceSpec((at_of[home], wire_of(home)), (at_of[partner], wire_of(partner)),
                              (get(True, False), both))
    raise PrivateSightError("an entry shown whatever the judgement of either of its "
                            "two pieces that can hide")


def pair_label(run_key: bytes, low: bytes, high: bytes) -> bytes:
    """The label of a place of a pair: from both homes' "judged" labels for 1 (the
    lower position's first), which only an asker judging both pieces holds."""
    return hashlib.shake_256(b"wec-sight pair|" + run_key + low + high).digest(LABEL_SIZE)


def public_label(run_key: bytes, place: int) -> bytes:
    """The label of a place whose entry shows whatever its slot's judgement (every
    side can make it: the place opens for the asker)."""
    return _hash(b"public", run_key, place, b"", LABEL_SIZE)


def _hash(tag: bytes, run_key: bytes, place: int, key: bytes, size: int) -> bytes:
    return hashlib.shake_256(b"wec-sight " + tag + b"|" + run_key + place.to_bytes(2, "little")
                             + key).digest(size)


def _tags(run_key: bytes, label: bytes) -> bytes:
    """A label's tag at every place (one hash for all: the asker tags each label it
    holds once)."""
    return hashlib.shake_256(b"wec-sight tags|" + run_key + label).digest(
        TAG_SIZE * ENTRY_PLACES)


def _sealed(tag: bytes, run_key: bytes, place: int, key: bytes, payload: bytes) -> bytes:
    data = CHECK + payload
    return xor(data, _hash(tag, run_key, place, key, len(data)))


def _opened(tag: bytes, run_key: bytes, place: int, key: bytes, data: bytes) -> bytes | None:
    plain = xor(data, _hash(tag, run_key, place, key, len(data)))
    return plain[len(CHECK):] if plain[:len(CHECK)] == CHECK else None


def read_places(ev: Evaluator, judged: Sequence[tuple[bytes, bytes]],
                seen_at: Sequence[int] = ()) -> list[tuple[Place, Entry]]:
    """The asker's side of the places: every entry it is shown, with its place
    (``judged``: the labels it holds of each position's two judgements; ``seen_at``: the
    positions whose piece it sees, whose pairs may open a place of a pair)."""
    run_key = ev.run_key
    found: list[tuple[Place, Entry]] = []
    held = [label for pair in judged for label in pair]
    ordered = sorted(seen_at)
    held += [pair_label(run_key, judged[a][JUDGED], judged[b][JUDGED])
             for i, a in enumerate(ordered) for b in ordered[i + 1:]]
    tags = {label: _tags(run_key, label) for label in held}
    for k in range(ENTRY_PLACES):
        tag = ev.take(TAG_SIZE)
        outer_data = ev.take(_OUTER + len(CHECK))
        public = public_label(run_key, k)
        for home in (public, *held):
            mine = tags[home] if home is not public else _tags(run_key, public)
            if mine[TAG_SIZE * k:TAG_SIZE * (k + 1)] != tag:
                continue
            outer = _opened(b"place", run_key, k, home, outer_data)
            if outer is None:
                continue
            q, m = outer[0], outer[1]
            if q >= len(judged) or m > JUDGED_AFTER:
                raise PrivateSightError("a place names no slot's judgement")
            label = judged[q][m]
            at = 2 + select(label) * LABEL_SIZE
            key = xor(outer[at:at + LABEL_SIZE], _hash(b"share", run_key, k, label,
                                                          LABEL_SIZE))
            base = 2 + 2 * LABEL_SIZE
            for c in (0, 1):
                variant = _opened(b"content", run_key, k, key,
                                  outer[base + c * _VARIANT:base + (c + 1) * _VARIANT])
                if variant is not None:
                    read = _read_place(variant)
                    if read is not None:
                        found.append(read)
                    break
            else:
                raise PrivateSightError("a place whose variants its key does not open")
            break
    return found


def garble_places(g: Garbler, stream: bytes, specs: Sequence[PlaceSpec],
              judged: Sequence[tuple[int, int]]) -> None:
    """The entries' places into ``g``'s material (``judged``: each position's two
    judgement wires; ``stream``: ``PLACES_STREAM`` bytes drawn from the owner's seed and
    the run), in an order drawn from the stream (a place's number tells nothing of the
    entry's), padding where no entry is placed."""
    if len(specs) > ENTRY_PLACES:
        raise PrivateSightError(f"more than {ENTRY_PLACES} entries about pieces that "
                                "can hide in one step")
    order = list(range(ENTRY_PLACES))
    for i in range(ENTRY_PLACES - 1, 0, -1):
        j = int.from_bytes(stream[4 * i:4 * i + 4], "little") % (i + 1)
        order[i], order[j] = order[j], order[i]
    at_place: list[PlaceSpec | None] = [None] * ENTRY_PLACES
    for real, k in zip(specs, order, strict=False):
        at_place[k] = real
    base = 4 * ENTRY_PLACES
    key = g.run_key
    for k, spec in enumerate(at_place):
        chunk = stream[base + k * (1 + 2 * LABEL_SIZE):base + (k + 1) * (1 + 2 * LABEL_SIZE)]
        if spec is None:
            g.material.append(g.noise(TAG_SIZE + _OUTER))
            continue
        keys = (chunk[1:1 + LABEL_SIZE], chunk[1 + LABEL_SIZE:])
        home = (public_label(key, k) if spec.home is None
                else g.label(judged[spec.home[0]][spec.home[1]], 1))
        if spec.pair is not None:
            assert spec.home is not None
            low, high = sorted((spec.home[0], spec.pair))
            home = pair_label(key, g.label(judged[low][JUDGED], 1),
                              g.label(judged[high][JUDGED], 1))
        q, m = spec.partner if spec.partner is not None else (chunk[0] % len(judged), JUDGED)
        shares = [b""] * 2
        contents = [b""] * 2
        for b in (0, 1):
            label = g.label(judged[q][m], b)
            shares[select(label)] = xor(keys[b], _hash(b"share", key, k, label,
                                                        LABEL_SIZE))
            contents[select(label)] = _sealed(b"content", key, k, keys[b],
                                              spec.variants[b])
        outer = bytes([q, m]) + b"".join(shares) + b"".join(contents)
        g.material.append(_tags(key, home)[TAG_SIZE * k:TAG_SIZE * (k + 1)]
                          + _sealed(b"place", key, k, home, outer))
