"""The owner's answer to ``detect`` split at what only the asker knows (engine.
detection_parts; issue 21, docs/network.md "Gap left").

The half referee answers ``detect`` by ``assemble`` on its ``detection_parts`` (so every
half-state test, every LAN test and the leakage tests go through the split). These
tests pin the split's claim, the one a private evaluation of the answer stands on: the
owner computes the parts without the asker's sight, and the answer depends on that
sight only through the asker's five bits about each slot (its reach at the slot's
square, a lock on it, whether it saw it at the step's start, a marker for it) and
through what the asker knows of the pieces it sees whatever they have.
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest
from halves import collect, resolve_both

from wec.engine.detection_parts import (
    LOCKED,
    MARKED,
    SAW,
    STEALTH_REACH,
    SUB_REACH,
    DetectionParts,
    assemble,
)
from wec.engine.half_referee import OwnerConversation
from wec.engine.knowledge import project
from wec.engine.options import Options
from wec.engine.pieces import Side
from wec.engine.position import Lock
from wec.engine.questions import Detection, Sight
from wec.engine.visibility import seen_whatever


def _detections(seed: int, count: int, options: Options | None = None,
                conceal: float = 0.5) -> list[tuple[DetectionParts, Sight, Detection]]:
    """The (parts, sight, answer) of every detection in ``count`` actions of random
    games, each resolved on both half states."""
    found: list[tuple[DetectionParts, Sight, Detection]] = []
    original = OwnerConversation.detect

    def recording(self: OwnerConversation, sight: Sight) -> Detection:
        parts = self.detection_parts(tuple(sq for _, _, sq in sight.acquiring))
        answer = assemble(parts, sight)
        found.append((parts, sight, answer))
        return answer

    OwnerConversation.detect = recording  # type: ignore[method-assign]
    try:
        for before, intent, _ in collect(seed, count, options, conceal_share=conceal):
            resolve_both({s: project(before, s) for s in Side}, intent)
    finally:
        OwnerConversation.detect = original  # type: ignore[method-assign]
    return found


DETECTIONS = _detections(2301, 400)


def test_the_random_games_detect_through_slots_of_every_kind() -> None:
    """The cases below are worth something: slots seen and unseen, reach that decides,
    locks, pieces seen at the step's start and lost from sight, markers, acquisitions."""
    tally: dict[str, int] = {}
    for parts, sight, answer in DETECTIONS:
        seen = {p.pid for p in answer.seen}
        for s in parts.slots:
            tally["slot seen" if s.pid in seen else "slot unseen"] = \
                tally.get("slot seen" if s.pid in seen else "slot unseen", 0) + 1
            if s.piece is not None and len(set(s.seen[:4])) > 1:
                tally["reach decides"] = tally.get("reach decides", 0) + 1
        tally["locks"] = tally.get("locks", 0) + len(sight.locks)
        tally["markers"] = tally.get("markers", 0) + len(sight.asked)
        tally["acquiring"] = tally.get("acquiring", 0) + len(parts.acquiring)
        tally["in play told"] = tally.get("in play told", 0) + len(answer.in_play)
    for key in ("slot seen", "slot unseen", "reach decides", "locks", "markers",
                "acquiring", "in play told"):
        assert tally.get(key, 0) > 0, (key, tally)


def test_every_piece_outside_the_slots_is_seen_whatever_the_asker_has() -> None:
    """A piece of the owner's in play that is no slot is seen by the asker with no
    detector, no lock and no sight of it before (engine.visibility ``seen_whatever``),
    and it is in the answer's ``seen``."""
    for parts, _, answer in DETECTIONS:
        slots = {s.pid for s in parts.slots}
        seen = {p.pid for p in answer.seen}
        for p in parts.own:
            if p.pid not in slots:
                assert seen_whatever(p, parts.options), p
                assert p.pid in seen


def _flip_outside_slots(sight: Sight, parts: DetectionParts, rng: random.Random) -> Sight:
    """``sight`` with everything changed that the split says does not matter: the reach at
    every square holding no slot, and locks on pieces that are not the owner's."""
    slot_squares = 0
    for s in parts.slots:
        slot_squares |= 1 << s.sq
    noise = rng.getrandbits(100)
    owner_pids = {p.pid for p in parts.own} | {s.pid for s in parts.slots}
    stranger = max(owner_pids | {lk.target for lk in sight.locks} | {0}) + 1000
    return replace(sight,
                   stealth_reach=sight.stealth_reach ^ (noise & ~slot_squares),
                   sub_reach=sight.sub_reach ^ (rng.getrandbits(100) & ~slot_squares),
                   locks=(*sight.locks, Lock(0, 0, stranger)))


def test_the_answer_does_not_change_with_the_asker_outside_its_bits() -> None:
    """Reach elsewhere than at the slots' squares, and a lock on a piece that is not the
    owner's, change nothing of the answer but the released lock itself."""
    rng = random.Random(5)
    for parts, sight, answer in DETECTIONS:
        other = assemble(parts, _flip_outside_slots(sight, parts, rng))
        n = len(sight.locks)
        assert other.released == (*answer.released, n)
        assert replace(other, released=answer.released) == answer


@pytest.mark.parametrize("bit", [STEALTH_REACH, SUB_REACH, LOCKED, SAW, MARKED])
def test_each_bit_about_a_slot_changes_only_that_slots_part(bit: int) -> None:
    """Flipping one of the asker's bits about one slot changes the answer only where it
    concerns that slot's piece (a reach bit: the pieces of that square): whether it is
    seen (and with it its hits and the actions it made), whether it is told in play,
    and the events about it; every other piece seen stays as it was."""
    rng = random.Random(bit)
    changed = 0
    for parts, sight, answer in DETECTIONS:
        live = [s for s in parts.slots if s.piece is not None]
        if not live or parts.acquiring:
            continue
        slot = rng.choice(live)
        other = assemble(parts, _with_bit(sight, slot, bit))
        if other != answer:
            changed += 1
        concerned = {s.pid for s in live if s.sq == slot.sq} \
            if bit in (STEALTH_REACH, SUB_REACH) else {slot.pid}
        before = {p.pid: p for p in answer.seen if p.pid not in concerned}
        after = {p.pid: p for p in other.seen if p.pid not in concerned}
        assert before == after
        assert {h for h in answer.hits if h[0] not in concerned} == \
            {h for h in other.hits if h[0] not in concerned}
        assert set(answer.in_play) - concerned == set(other.in_play) - concerned
    assert changed > 0


def _with_bit(sight: Sight, slot: Any, bit: int) -> Sight:
    """``sight`` with its ``bit`` about ``slot`` flipped."""
    pid, sq = slot.pid, slot.sq
    if bit == STEALTH_REACH:
        return replace(sight, stealth_reach=sight.stealth_reach ^ 1 << sq)
    if bit == SUB_REACH:
        return replace(sight, sub_reach=sight.sub_reach ^ 1 << sq)
    if bit == LOCKED:
        locks = tuple(lk for lk in sight.locks if lk.target != pid)
        if len(locks) == len(sight.locks):
            locks = (*locks, Lock(0, 0, pid))
        return replace(sight, locks=locks)
    if bit == SAW:
        seen = tuple(p for p in sight.seen if p != pid)
        return replace(sight, seen=seen if len(seen) < len(sight.seen) else (*seen, pid))
    asked = tuple(p for p in sight.asked if p != pid)
    return replace(sight, asked=asked if len(asked) < len(sight.asked) else (*asked, pid))


def test_the_events_shown_are_numbered_among_themselves_so_no_gap_counts_the_hidden() -> None:
    """An entry's key is (operation, slot, rank, number within them). Until session 23
    the owner sent the numbers its log gave, so the asker saw gaps where events about
    pieces it does not see were left out, and could count them. The numbers shown now
    run 1, 2, ... within each (operation, slot, rank), in the log's order, and the
    censored answer's events are otherwise the same."""
    from wec.engine.questions import Shown
    compacted = 0
    for parts, _, answer in DETECTIONS:
        groups: dict[tuple[int, int, int], list[int]] = {}
        for e in answer.entries:
            groups.setdefault(e.key[:3], []).append(e.key[3])
        for seqs in groups.values():
            assert sorted(seqs) == list(range(1, len(seqs) + 1)), seqs
        logged = [e for e in parts.entries if isinstance(e, Shown)]
        shown = [e for e in answer.entries if isinstance(e, Shown)]
        kept = {e.key[:3] for e in shown}
        if any(e.key[:3] in kept for e in logged) and len(shown) < len(logged):
            compacted += 1
    assert compacted > 0  # the corpus has events left out between events shown


def test_the_answer_names_no_piece_the_asker_neither_sees_nor_asked_about() -> None:
    """Every identifier in the answer is of a piece the asker sees now, or one its own
    sight names (seen at the step's start, a marker, a lock). Until session 23 a shown
    Move's subject named its hidden passenger, and a Doze's every piece it dozed."""
    from wec.engine.questions import Shown
    for _, sight, answer in DETECTIONS:
        known = {p.pid for p in answer.seen} | set(sight.seen) | set(sight.asked) | {
            lk.target for lk in sight.locks}
        named = set(answer.in_play) | {h[0] for h in answer.hits} | {
            pid for pid in answer.acquired if pid is not None}
        if answer.acted is not None:
            a = answer.acted
            named |= {*a.actors, *a.firers, *a.transited} | ({a.mover} - {None})
        for e in answer.entries:
            if isinstance(e, Shown):
                assert e.subject is None
        assert named <= known, named - known


def test_two_pieces_hit_in_one_cell_show_in_the_engines_order_by_their_places() -> None:
    """R6.5.1, R14.3: a Flame hits Black's AAA and Stealth Pawn sharing one cell, both
    stealthy and both locked by White (R9.4): White is shown both pieces' Hit and
    Destroyed, a block per piece with no free entry between them, and the places alone
    (the block's canonical order key, engine.detection_parts ``Place``) put them in the
    full state's order."""
    from rules_helpers import WHITE_TURN, black, make, white

    from wec.engine import board
    from wec.engine.board import Level
    from wec.engine.censor import events_for
    from wec.engine.game import apply
    from wec.engine.intents import Fire
    from wec.engine.pieces import ArticleKind
    from wec.engine.visibility import settle

    # identifiers by place in the list: White's Stealth Pawns 1 and 2 lock Black's 4, 5
    p = settle(make([white("flame_pawn", 5, 4), white("stealth_pawn", 2, 2),
                     white("stealth_pawn", 2, 6), white("king", 1, 5),
                     black("aaa", 6, 4), black("stealth_pawn", 6, 4),
                     black("king", 10, 6)], turn=WHITE_TURN)
               .evolve(locks=(Lock(1, 0, 4), Lock(2, 0, 5))))
    assert not any(q.hidden for q in p.pieces if q.pid in (4, 5))
    fire = Fire(board.cell_at(5, 4, Level.GROUND), ArticleKind.FLAME, dir=(1, 0))
    full = apply(p, fire)
    split = resolve_both({s: project(p, s) for s in Side}, fire)
    names = [type(e).__name__ for e in events_for(Side.WHITE, full)]
    assert names == ["Fired", "Hit", "Destroyed", "Hit", "Destroyed"]
    assert split[Side.WHITE].events == events_for(Side.WHITE, full)


def test_the_slots_known_ahead_are_the_detections_own() -> None:
    """``detection_slots`` (what the LAN's private detection asks the asker's bits about
    before the question comes) and ``detection_parts(..., take=False)`` (what it garbles
    then) change nothing and give the slots and parts the detection then has, reveals
    that ended (D-36) included, on every detection of random games."""
    compared: list[int] = []
    original = OwnerConversation.detect

    def checking(self: OwnerConversation, sight: Sight) -> Detection:
        acquiring = tuple(sq for _, _, sq in sight.acquiring)
        ahead = self.detection_slots()
        peeked = self.detection_parts(acquiring, take=False)
        assert self.detection_slots() == ahead  # nothing taken
        assert self.detection_parts(acquiring, take=False) == peeked
        parts = self.detection_parts(acquiring)
        assert parts.slots == ahead and parts == peeked
        compared.append(len(ahead))
        return assemble(parts, sight)

    OwnerConversation.detect = checking  # type: ignore[method-assign]
    try:
        for before, intent, _ in collect(2302, 300, conceal_share=0.5):
            resolve_both({s: project(before, s) for s in Side}, intent)
    finally:
        OwnerConversation.detect = original  # type: ignore[method-assign]
    assert len(compared) > 300 and sum(compared) > 1000, (len(compared), sum(compared))
