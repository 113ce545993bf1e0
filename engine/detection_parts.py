"""The owner's answer to ``detect``, split at what only the asker knows (R9.3-R9.7, R9.4,
R9.10; issue 21).

The owner of the pieces answers ``detect`` (engine.half_referee): what the asker sees of
them now, with the owner's part of the step's events. Most of that answer follows from
the owner's own pieces. Five things per piece follow from what the asker keeps to
itself: whether its stealth detectors reach the piece's square (O18), whether its
submersion detectors do (O16), whether one of its Anti-Stealth instances has locked the
piece (R9.4), whether it saw the piece at the step's start, and whether one of its
markers stands for it (R9.10). Those are the asker's *bits* about a piece.

They matter only for the owner's pieces the asker might not see: those that can hide
now, or could at the step's start (engine.visibility ``seen_whatever`` false). Every
other piece of the owner's the asker sees now and saw then, whatever it has. Each piece
that can hide is a ``Slot``: the rules' outcome for each value of the bits that decide it
(whether it is seen, R9.7; whether a lock on it holds, R9.4(c)). ``DetectionParts`` is
the slots with everything else the answer needs, all of it known to the owner alone;
``assemble`` puts the answer together from the parts and the asker's bits.

The half referee answers ``detect`` by ``assemble`` on its own parts (``asker_bits``
reads the bits off the asker's ``Sight``), so every test of detection tests this split.
Over the LAN the bits are to stay on the asker's machine (docs/network.md, "Gap left"):
the parts are what the owner computes without them, and ``assemble`` is what a private
evaluation of the answer has to reproduce.
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from wec.engine.censor import censored
from wec.engine.knowledge import actions_seen, enemy_actions
from wec.engine.options import Options
from wec.engine.pieces import ArticleKind, Side
from wec.engine.position import ActionCounts, Piece, Projectile
from wec.engine.questions import Detection, Entry, Key, Shown, Sight
from wec.engine.visibility import acquisitions, seen_by

# the asker's bits about one piece (``asker_bits``)
STEALTH_REACH = 1  # an Anti-Stealth detector of its reaches the piece's square (O18)
SUB_REACH = 2  # a Torpedo Launcher of its reaches the piece's square (O16)
LOCKED = 4  # one of its Anti-Stealth instances holds a lock on the piece (R9.4)
SAW = 8  # it saw the piece at the step's start
MARKED = 16  # one of its markers stands for the piece (R9.10)
BITS = 5


@dataclass(frozen=True, slots=True)
class Slot:
    """One piece of the owner's whose part of the answer depends on the asker's bits.

    ``sq``: the square whose reach decides (the piece's now, or where it was at the
    step's start when it left play); ``piece``: the piece now, None once it left play or
    went over to the asker; ``seen``: R9.7 for each value of (stealth reach, submersion
    reach, locked), indexed by those three bits; ``stealthy``: the piece is stealthy now
    (R9.2: a lock on it holds, R9.4(c), and an acquisition may choose it, R9.4(b))."""

    pid: int
    sq: int
    piece: Piece | None
    seen: tuple[bool, ...]
    stealthy: bool

    def sees(self, bits: int) -> bool:
        """Whether the asker with these bits sees the piece now (False once it left
        play)."""
        return self.piece is not None and self.seen[bits & 7]


@dataclass(frozen=True, slots=True)
class DetectionParts:
    """Everything the owner's answer needs but the asker's bits.

    ``own``: the owner's pieces in play now, in identifier order; ``slots``: those of its
    pieces that can hide now or could at the step's start, by identifier (the rest of
    ``own`` the asker sees now and saw then); ``acquiring``: the squares of the asker's
    acquiring holders, in order (R9.4(a)); ``entries``: the owner's part of the step,
    uncensored; ``entered``: its pieces that entered play in the step (R10);
    ``crossed``: those that went over to the asker or came from it (R6.7.2); ``hits``:
    the owner's hits this turn (R6.4.2), of its pieces in play; ``acted``: its action
    counts when it is the side to act, else None; ``projectiles``: after its transport
    phase, when it ran one; ``orders``: the canonical order key of each piece entry's
    first piece when it was logged (engine.sides ``EntryLog``), which orders the pieces'
    blocks (``places``)."""

    side: Side
    own: tuple[Piece, ...]
    slots: tuple[Slot, ...]
    acquiring: tuple[int, ...]
    entries: tuple[Entry, ...]
    entered: frozenset[int]
    crossed: frozenset[int]
    hits: tuple[tuple[int, ArticleKind, int], ...]
    acted: ActionCounts | None
    projectiles: tuple[Projectile, ...] | None
    options: Options
    orders: Mapping[Key, tuple[Any, ...]] | None = None  # piece entries' block keys


def slot_of(pid: int, sq: int, now: Piece | None, options: Options) -> Slot:
    """The slot of piece ``pid`` as it stands now (``now``; None: it left play, ``sq``
    its square at the step's start): its seen table over (stealth reach, submersion
    reach, locked)."""
    if now is None:
        return Slot(pid, sq, None, (False,) * 8, False)
    at = now.sq
    table = tuple(seen_by(now, options, {pid} if bits & LOCKED else set(),
                          (bits & STEALTH_REACH) << at, (bits & SUB_REACH) >> 1 << at)
                  for bits in range(8))
    return Slot(pid, at, now, table, now.is_stealthy(options))


def asker_bits(sight: Sight, slot: Slot, locked: Container[int]) -> int:
    """The asker's bits about ``slot``'s piece, read off its ``sight`` (``locked``: the
    targets of its locks that hold)."""
    sq, pid = slot.sq, slot.pid
    return ((sight.stealth_reach >> sq & 1) | (sight.sub_reach >> sq & 1) << 1
            | (LOCKED if pid in locked else 0) | (SAW if pid in sight.seen else 0)
            | (MARKED if pid in sight.asked else 0))


def assemble(parts: DetectionParts, sight: Sight) -> Detection:
    """The answer to ``detect`` from the owner's ``parts`` and the asker's ``sight``
    (its locks' targets, reach, pieces seen at the step's start and markers: its bits
    about each slot, ``asker_bits``; nothing else of the sight is read)."""
    slots = {s.pid: s for s in parts.slots}
    by_pid = {p.pid: p for p in parts.own}
    # R9.4(c): a lock ends when its target is no longer the owner's stealthy piece in
    # play (a piece the asker sees whatever it has: the asker tells from the piece)
    lock_on = parts.options.stealth_lock_on
    released = tuple(i for i, lk in enumerate(sight.locks)
                     if not lock_on or not _holds(lk.target, slots, by_pid, parts.options))
    locked = {lk.target for i, lk in enumerate(sight.locks) if i not in released}
    bits = {pid: asker_bits(sight, s, locked) for pid, s in slots.items()}
    acquired = acquisitions(  # R9.4(b): range detection applied first
        parts.acquiring,
        lambda taken: [s.piece for pid, s in slots.items() if s.piece is not None
                       and s.stealthy and pid not in taken and not s.sees(bits[pid] & ~LOCKED)],
        locked, lock_on)
    for pid in acquired:
        if pid is not None:
            bits[pid] |= LOCKED
    hidden = {pid for pid, s in slots.items() if s.piece is not None and not s.sees(bits[pid])}
    visible = _Visible(by_pid, hidden)
    seen = tuple(p for p in parts.own if p.pid not in hidden) if hidden else parts.own
    in_play = tuple(sorted({*[pid for pid in sight.asked if pid in by_pid],
                            *[pid for pid in hidden if bits[pid] & SAW]})
                    ) if sight.asked or hidden else ()
    entries: tuple[Entry, ...] = ()
    if parts.entries:
        unseen = {pid for pid, b in bits.items() if not b & SAW}
        judge = _Judge(parts.side.other, unseen, visible, by_pid, parts.entered,
                       parts.crossed)
        shown = [_shown(e, judge) for e in parts.entries]
        where = places(parts.entries, slots, [e is not None for e in shown],
                       parts.orders or {})
        entries = in_order((place, e) for place, e in zip(where, shown, strict=True)
                           if e is not None)
    hits = tuple(h for h in parts.hits if h[0] in visible) if hidden else parts.hits
    acted = (enemy_actions(actions_seen(parts.acted, visible)) if parts.acted is not None
             else None)
    return Detection(seen, hits, acted, released, tuple(acquired), in_play, entries,
                     parts.projectiles)


def _holds(target: int, slots: dict[int, Slot], by_pid: dict[int, Piece],
           options: Options) -> bool:
    """R9.4(c): whether a lock on ``target`` holds (its target still the owner's stealthy
    piece in play)."""
    slot = slots.get(target)
    if slot is not None:
        return slot.piece is not None and slot.stealthy
    piece = by_pid.get(target)
    return piece is not None and piece.is_stealthy(options)


@dataclass(frozen=True, slots=True)
class Place:
    """Where the asker puts one of the owner's entries among those it is shown, known
    without the ones it is not: its ``group`` (operation, slot, rank: the entry key's
    first three), its ``anchor`` (how many *free* entries the asker is shown before it
    in the group: entries whose showing does not hang on the asker's bits), whether it
    is ``free``, and for an entry about a slot its ``block`` (the run of the group's
    entries about one piece between two free ones shown: the piece's canonical order
    key when the run's first entry was logged, which the engine's per-cell order
    follows, engine.effects ``Working.at``; the asker sees the piece) and its ``local``
    place in the block. The sequence numbers of the keys would count the entries not
    shown between them; these count none."""

    group: tuple[int, int, int]
    anchor: int
    free: bool
    block: tuple[Any, ...] = ()
    local: int = 0

    def sort_key(self) -> tuple[Any, ...]:
        return (*self.group, self.anchor, self.free, self.block, self.local)


def places(entries: Sequence[Entry], slotted: Container[int], shown: Sequence[bool],
           orders: Mapping[Key, tuple[Any, ...]]) -> list[Place]:
    """The place of each of the owner's ``entries`` (``slotted``: the slots' pieces;
    ``shown``: whether the asker is shown each entry, read for the free ones only)."""
    out: list[Place] = []
    anchors: dict[tuple[int, int, int], int] = {}
    runs: dict[tuple[int, int, int], tuple[int, int, tuple[Any, ...], int]] = {}
    for entry, is_shown in zip(entries, shown, strict=True):
        group = (entry.key[0], entry.key[1], entry.key[2])
        anchor = anchors.get(group, 0)
        pid = _slot_subject(entry, slotted)
        if pid is None:
            out.append(Place(group, anchor, True))
            if is_shown:
                anchors[group] = anchor + 1
            continue
        run = runs.get(group)
        if run is None or run[0] != pid or run[1] != anchor:
            run = (pid, anchor, orders.get(entry.key, (pid,)), 0)
        else:
            run = (pid, anchor, run[2], run[3] + 1)
        runs[group] = run
        out.append(Place(group, anchor, False, run[2], run[3]))
    return out


def in_order(shown: Iterable[tuple[Place, Entry]]) -> tuple[Entry, ...]:
    """The entries the asker is shown, in whatever order they came and whatever their
    keys' sequence numbers, put in the order of the owner's log by their places alone
    and numbered among themselves."""
    return _numbered([e for _, e in sorted(shown, key=lambda pair: pair[0].sort_key())])


def _slot_subject(entry: Entry, slotted: Container[int]) -> int | None:
    """The first piece of a piece entry about a slot (its showing hangs on the asker's
    bits), else None (a free entry)."""
    if not isinstance(entry, Shown) or entry.subject is None:
        return None
    pids = entry.subject[1]
    if not pids or not any(pid in slotted for pid in pids):
        return None
    return pids[0]


def _numbered(entries: Sequence[Entry]) -> tuple[Entry, ...]:
    """The entries the asker may see, in the owner's order, their keys' sequence numbers
    counted among them alone: a key is (operation, slot, rank, number within them), so
    the owner's numbers would tell, by their gaps, how many events about unseen pieces
    the owner had there. The asker orders them with its own by key, and its own have the
    other rank: nothing changes for it but the gaps."""
    counts: dict[tuple[int, ...], int] = {}
    out = []
    for e in entries:
        where = e.key[:3]
        n = counts[where] = counts.get(where, 0) + 1
        out.append(e if e.key[3] == n else replace(e, key=(*where, n)))
    return tuple(out)


class _Visible:
    """The owner's pieces the asker sees: in play and not hidden (a set, read lazily)."""

    __slots__ = ("hidden", "pieces")

    def __init__(self, pieces: dict[int, Piece], hidden: set[int]) -> None:
        self.pieces, self.hidden = pieces, hidden

    def __contains__(self, pid: object) -> bool:
        return pid in self.pieces and pid not in self.hidden


def _shown(entry: Entry, judge: _Judge) -> Entry | None:
    """``entry`` as the asker may see it (engine.censor), or None. Its subject (the
    pieces it is about, which the censoring reads) does not go with it: the asker orders
    the owner's entries by key and never censors them again, and a Move's subject names
    its passenger, a Doze's every piece dozed, seen or not (until session 23 they went
    to the asker, identifiers of pieces it does not see)."""
    if not isinstance(entry, Shown) or entry.subject is None:
        return entry
    event = censored(entry.event, entry.subject, judge)  # type: ignore[arg-type]
    if event is None:
        return None
    return Shown(entry.key, event, None)


def free_judge(parts: DetectionParts) -> _Judge:
    """The asker's judgement (engine.censor) of the owner's pieces outside the slots:
    they are in play and seen, or gone, whatever the asker has (the entries about them
    alone are shown or not without the asker's bits)."""
    by_pid = {p.pid: p for p in parts.own}
    return _Judge(parts.side.other, set(), _Visible(by_pid, set()), by_pid, parts.entered,
                  parts.crossed)


class Forced:
    """A judgement with the outcome about some pieces forced (``forced``: identifier ->
    outcome, for either kind of look): an entry's variants over the asker's judgement of
    the slots it is about, the rest judged by ``base``."""

    def __init__(self, base: _Judge, forced: dict[int, bool]) -> None:
        self.side, self.base, self.forced = base.side, base, forced

    def __call__(self, pid: int, after_only: bool = False) -> bool:
        if pid in self.forced:
            return self.forced[pid]
        return self.base(pid, after_only)


def shown_as(entry: Entry, judge: _Judge | Forced) -> Entry | None:
    """``entry`` as the asker with this judgement sees it (engine.censor), or None."""
    return _shown(entry, judge)  # type: ignore[arg-type]


class _Judge:
    """engine.censor's judgement for the asker (``side``), about the owner's pieces:
    ``unseen`` those it did not see at the start of the step (of the slots: every other
    piece of the owner's then it saw), ``visible`` and ``in_play`` at its end;
    ``entered`` this step (R10), ``crossed`` between the two sides (R6.7.2: the asker's
    own before or after)."""

    def __init__(self, side: Side, unseen: set[int], visible: _Visible,
                 in_play: dict[int, Piece], entered: Container[int],
                 crossed: Container[int]) -> None:
        self.side = side
        self.unseen, self.visible, self.in_play = unseen, visible, in_play
        self.entered, self.crossed = entered, crossed

    def __call__(self, pid: int, after_only: bool = False) -> bool:
        if pid in self.crossed:
            return True
        now = pid in self.in_play
        if pid in self.entered and not now:
            return False  # neither in play before nor after
        if after_only and now:
            return pid in self.visible
        then_ok = pid in self.entered or pid not in self.unseen
        return then_ok and (not now or pid in self.visible)


def slots_for(start_unsure: Sequence[Piece], unsure_now: Sequence[Piece],
              now: dict[int, Piece], options: Options) -> tuple[Slot, ...]:
    """The slots, by identifier: the owner's pieces that can hide now (``unsure_now``)
    or could at the step's start (``start_unsure``, as they stood then); ``now`` the
    owner's pieces in play now."""
    found: dict[int, Slot] = {p.pid: slot_of(p.pid, p.sq, p, options) for p in unsure_now}
    for p in start_unsure:
        if p.pid not in found:
            found[p.pid] = slot_of(p.pid, p.sq, now.get(p.pid), options)
    return tuple(found[pid] for pid in sorted(found))
