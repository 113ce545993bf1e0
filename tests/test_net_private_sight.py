"""The answer to ``detect``, evaluated privately (net.private_sight; issue 21,
docs/network.md "The private detection").

The claim: the asker puts together exactly the rules' answer (engine.detection_parts
``assemble``: the pieces it sees, their hits and action records, the locks released and
acquired, the pieces still in play for its markers, the owner's entries it is shown, in
order) from the owner's garbled slots and places and its own bits, for every value of
those bits; the owner receives nothing that depends on them; and the audit remakes both
sides' messages, so a side that lies through them is named.
"""

from __future__ import annotations

import random
from dataclasses import replace

import msgpack  # type: ignore[import-untyped]
import pytest
from test_detection_parts import _detections

from wec.engine.detection_parts import DetectionParts, Slot, assemble
from wec.engine.events import Moved
from wec.engine.options import Options
from wec.engine.outcome import FIRED, MOVED, PIECES
from wec.engine.pieces import ArticleKind, PieceKind, Side
from wec.engine.position import Lock
from wec.engine.questions import Detection, Shown, Sight
from wec.net import ot
from wec.net import private_sight as ps
from wec.net import sight_places as sp
from wec.net.fog_codec import compact, to_wire

GAME = b"private sight game"
# per position: "seen" (8 rows), the record, "in play" (8 rows) and its item, the lock's
# item, the two judgements (4 rows each); then the entries' places
MATERIAL_SIZE = (ps.SLOTS * (8 * 16 + 8 + ps.RECORD_SIZE + 8 * 16 + 9 + 10 + 2 * 4 * 16)
                 + sp.ENTRY_PLACES * (sp.TAG_SIZE + 8 + 2 + 2 * 16 + 2 * (8 + sp.ENTRY_SIZE)))
OWNER_SEED = bytes(range(32))
ASKER_SEED = bytes(range(100, 132))


def _chosen(sender: bytes, receiver: bytes) -> tuple[bytes, ...]:
    replies = ot.base_replies(receiver, GAME, ot.base_queries(sender, GAME))
    return ot.base_finish(sender, GAME, replies)


@pytest.fixture(scope="module")
def bases() -> tuple[ps.Bases, ps.Bases]:
    """The game's base transfers both ways: the owner's part, the asker's part."""
    owner = ps.Bases(ot.seed_pairs(OWNER_SEED, GAME), ot.choice_bits(OWNER_SEED, GAME),
                     _chosen(OWNER_SEED, ASKER_SEED))
    asker = ps.Bases(ot.seed_pairs(ASKER_SEED, GAME), ot.choice_bits(ASKER_SEED, GAME),
                     _chosen(ASKER_SEED, OWNER_SEED))
    return owner, asker


@pytest.fixture(scope="module")
def corpus() -> list[tuple[DetectionParts, Sight, Detection]]:
    """Detections of random games with many pieces concealed (none acquires a lock:
    acquisitions are rare, ``test_acquisitions_...`` makes its own)."""
    return _detections(2401, 150)


def _run(bases: tuple[ps.Bases, ps.Bases], parts: DetectionParts, sight: Sight,
         run_id: bytes, hidden: bool = False) -> tuple[Detection, dict[str, object]]:
    """One run over both roles, in process, with every message kept (``hidden``: the
    asker's holders at secret squares)."""
    owner_bases, asker_bases = bases
    owner = ps.OwnerRun(OWNER_SEED, run_id, owner_bases, parts.slots, parts.options)
    asker = ps.AskerRun(ASKER_SEED, run_id, asker_bases, sight)
    queries = owner.queries()
    received = asker.reply(*queries, hidden=hidden)
    if hidden:
        parts = replace(parts, acquiring=())  # the owner does not know them
    sent = owner.garble(parts, *received)
    reply, material, clear = sent[:3]
    travelled = ps.clear_from_wire(ps.clear_to_wire(clear))  # as the clear part travels
    assert travelled == clear
    got = asker.finish(reply, material, travelled, parts.options, *sent[3:])
    return got, {"queries": queries, "received": received, "sent": sent, "owner": owner}


def test_the_private_answer_is_the_rules_answer(bases, corpus) -> None:
    hidden = seen_slots = slot_entries = 0
    for i, (parts, sight, expected) in enumerate(corpus):
        got, messages = _run(bases, parts, sight, b"run %d" % i)
        assert got == expected, i
        slotted = {s.pid for s in parts.slots if s.piece is not None}
        shown = {p.pid for p in expected.seen}
        hidden += len(slotted - shown)
        seen_slots += len(slotted & shown)
        slot_entries += len(got.entries) - len(messages["sent"][2].entries)
    # the corpus holds both outcomes many times over, and entries shown from places
    assert len(corpus) > 200 and hidden > 300 and seen_slots > 100 and slot_entries > 30


def _with_bits(parts: DetectionParts, sight: Sight, rng: random.Random) -> Sight:
    """``sight`` with random bits about every slot: reach at its square, a lock on it,
    seen at the step's start, a marker for it."""
    stealth, sub = sight.stealth_reach, sight.sub_reach
    locks, seen, asked = list(sight.locks), set(sight.seen), set(sight.asked)
    for slot in parts.slots:
        bits = rng.randrange(32)
        stealth = stealth & ~(1 << slot.sq) | (bits & 1) << slot.sq
        sub = sub & ~(1 << slot.sq) | (bits >> 1 & 1) << slot.sq
        locks = [lk for lk in locks if lk.target != slot.pid]
        if bits & 4:
            locks.append(Lock(holder=1000 + slot.pid, instance=0, target=slot.pid))
        for flag, kept in ((8, seen), (16, asked)):
            if bits & flag:
                kept.add(slot.pid)
            else:
                kept.discard(slot.pid)
    return replace(sight, locks=tuple(locks), stealth_reach=stealth, sub_reach=sub,
                   seen=tuple(sorted(seen)), asked=tuple(sorted(asked)))


def test_every_value_of_the_askers_bits_gives_the_rules_answer(bases, corpus) -> None:
    rng = random.Random(7)
    with_slots = [d for d in corpus if d[0].slots]
    cases = 0
    for i, (parts, sight, _) in enumerate(with_slots[:120]):
        for k in range(2):
            other = _with_bits(parts, sight, rng)
            got, _ = _run(bases, parts, other, b"bits %d %d" % (i, k))
            assert got == assemble(parts, other), (i, k)
            cases += 1
    assert cases == 240


def test_acquisitions_find_the_rules_target_without_showing_the_order(bases, corpus) -> None:
    """R9.4(b): holders acquiring at random squares, with random bits about every slot:
    the targets, the pieces then seen and everything else are the rules' answer."""
    rng = random.Random(11)
    stealthy = [d for d in corpus if any(s.stealthy and s.piece for s in d[0].slots)]
    targets = cases = 0
    for i, (parts, sight, _) in enumerate(stealthy[:24]):
        squares = tuple(rng.randrange(100) for _ in range(1 + i % 2))
        other = replace(_with_bits(parts, sight, rng) if i % 3 else sight,
                        acquiring=tuple((900 + j, 0, sq) for j, sq in enumerate(squares)))
        acquiring = replace(parts, acquiring=squares)
        expected = assemble(acquiring, other)
        got, _ = _run(bases, acquiring, other, b"acquiring %d" % i)
        assert got == expected, i
        targets += sum(1 for t in expected.acquired if t is not None)
        cases += 1
    assert cases == 24 and targets >= 20


def test_acquisitions_at_secret_squares_find_the_rules_target(bases, corpus) -> None:
    """R9.4(b) in an Exchange the owner does not see: none, one or two holders at random
    squares the owner never learns (their distances to its slots come masked, four input
    wires a holder and position): the targets, the pieces then seen and everything else
    are the rules' answer, and the messages are the same sizes whatever the holders."""
    rng = random.Random(13)
    stealthy = [d for d in corpus if any(s.stealthy and s.piece for s in d[0].slots)]
    targets = cases = 0
    sizes = set()
    for i, (parts, sight, _) in enumerate(stealthy[:30]):
        squares = tuple(rng.randrange(100) for _ in range(i % 3))
        other = replace(_with_bits(parts, sight, rng) if i % 4 else sight,
                        acquiring=tuple((900 + j, 0, sq) for j, sq in enumerate(squares)))
        expected = assemble(replace(parts, acquiring=squares), other)
        got, messages = _run(bases, parts, other, b"secret holders %d" % i, hidden=True)
        assert got == expected, i
        targets += sum(1 for t in expected.acquired if t is not None)
        sent = messages["sent"]
        sizes.add((tuple(map(len, messages["received"])),  # type: ignore[call-overload]
                   (len(sent[0]), len(sent[1]), len(sent[3]))))  # type: ignore[index]
        cases += 1
    assert cases == 30 and targets >= 12 and len(sizes) == 1, (targets, sizes)
    (received, sent), = sizes
    assert received == (ot.REPLY_SIZE, ps.PID_LABELS.reply_size, ps.INPUT_LABELS.query_size,
                        ot.WIDE_REPLY_SIZE, ps.DIST_LABELS.query_size)
    assert sent[0] == ps.INPUT_LABELS.reply_size


def test_the_acquisitions_tables_kept_by_what_they_hang_on_are_their_rules(
        corpus, monkeypatch) -> None:
    """The acquisitions' gate tables are kept by what each hangs on (``_rule_table``:
    the gate's kind, its constant key bit, whether the slot can be taken, what it shows):
    garbled again with every table made afresh from its rule, each run's material is the
    same bytes, for holders at squares the owner knows and at secret squares, whatever
    the runs garbled before them."""
    rng = random.Random(17)
    stealthy = [d for d in corpus if any(s.stealthy and s.piece for s in d[0].slots)]
    runs = []
    for i, (parts, _, _) in enumerate(stealthy[:16]):
        squares = tuple(rng.randrange(100) for _ in range(1 + i % 2))
        hidden = i % 2 == 1
        run_id = b"kept tables %d" % i
        if i % 4 >= 2:  # what the slots show and whether they hide, at random (the
            # corpus's stealthy pieces show one way alone): the tables hang on both
            shows = [tuple(rng.random() < 0.5 for _ in range(8)) for _ in range(3)]
            parts = replace(parts, slots=tuple(
                replace(slot, seen=rng.choice(shows), stealthy=rng.random() < 0.7)
                for slot in parts.slots))
        runs.append((replace(parts, acquiring=() if hidden else squares), hidden, run_id,
                     ps.positions(parts.slots, OWNER_SEED, run_id)))

    def materials() -> list[bytes]:
        return [ps.SightGarbler(OWNER_SEED, run_id, parts, placed, hidden=hidden).material
                for parts, hidden, run_id, placed in runs]

    monkeypatch.setattr(ps, "_RULE_TABLES", {})  # only these runs' tables kept
    kept = materials()
    assert len(ps._RULE_TABLES) > 20  # the runs took many distinct tables
    monkeypatch.setattr(ps, "_rule_table",
                        lambda key, inputs, rule: ps._table([0] * inputs, rule))
    assert materials() == kept


def test_the_owner_receives_nothing_that_depends_on_the_askers_bits(bases, corpus) -> None:
    """The input query is the same bytes whatever the asker sees, and the bits the owner
    reads off the masked transfers are the asker's true bits XOR its masks (a one-time
    pad from the asker's seed): the owner learns nothing of them."""
    parts, sight, _ = next(d for d in corpus if len(d[0].slots) >= 3)
    other = _with_bits(parts, sight, random.Random(3))
    run_id = b"owner's view"
    _, first = _run(bases, parts, sight, run_id)
    _, second = _run(bases, parts, other, run_id)
    assert first["received"][2] == second["received"][2]  # the input query
    masks = ps.asker_masks(ASKER_SEED, run_id)
    owner_bases, _ = bases
    for view, asked in ((first, sight), (second, other)):
        run = ps.OwnerRun(OWNER_SEED, run_id, owner_bases, parts.slots, parts.options)
        run.queries()
        read = run.masked(*view["received"][:2])
        table = ps.reach_table(asked)
        targets = {lk.target for lk in asked.locks}
        for at, slot in enumerate(run.placed):
            true = table[0]  # padding asks the reach at square 0, no identifier
            if slot is not None:
                true = (table[slot.sq] | (4 if slot.pid in targets else 0)
                        | (8 if slot.pid in asked.seen else 0)
                        | (16 if slot.pid in asked.asked else 0))
            assert read[at] == true ^ masks[at]


def test_the_material_is_one_size_and_padding_opens_nothing(bases, corpus) -> None:
    sizes = set()
    for i, (parts, sight, expected) in enumerate(corpus[:60]):
        got, messages = _run(bases, parts, sight, b"size %d" % i)
        sizes.add(tuple(len(m) for m in (*messages["queries"], *messages["received"],
                                          *messages["sent"][:2])))
        # every record opened is a piece the rules show, no padding position opened one
        assert len(got.seen) == len(expected.seen)
    assert sizes == {(ot.QUERY_SIZE, ps.PID_LABELS.query_size, ot.REPLY_SIZE,
                      ps.PID_LABELS.reply_size, ps.INPUT_LABELS.query_size,
                      ps.INPUT_LABELS.reply_size, MATERIAL_SIZE)}


def _lying_owner_parts(parts: DetectionParts) -> DetectionParts:
    """The owner's parts with every slot it has unseen whatever the asker has."""
    slots = tuple(Slot(s.pid, s.sq, s.piece, (False,) * 8, s.stealthy) for s in parts.slots)
    return replace(parts, slots=slots)


def test_the_audit_remakes_both_sides_messages_and_names_a_liar(bases, corpus) -> None:
    owner_bases, asker_bases = bases
    parts, sight, expected = next(d for d in corpus
                                  if any(s.pid in {p.pid for p in d[2].seen}
                                         for s in d[0].slots))
    run_id = b"audited"
    _, honest = _run(bases, parts, sight, run_id)
    assert ps.audit_asker(ASKER_SEED, run_id, asker_bases, sight, honest["queries"],
                          honest["received"])
    assert ps.audit_owner(OWNER_SEED, run_id, owner_bases, parts, honest["queries"],
                          honest["received"], honest["sent"])
    # an owner that hides a piece the asker sees: the asker does not see it, the audit
    # on the owner's true parts names the lie
    liar_parts = _lying_owner_parts(parts)
    lied, lie = _run(bases, liar_parts, sight, run_id)
    assert len(lied.seen) < len(expected.seen)
    assert not ps.audit_owner(OWNER_SEED, run_id, owner_bases, parts, lie["queries"],
                              lie["received"], lie["sent"])
    # an asker that claims a lock on every piece and reach everywhere sees more than the
    # rules show it; the audit on its true sight names the lie
    greedy = replace(sight, stealth_reach=(1 << 100) - 1, sub_reach=(1 << 100) - 1,
                     locks=tuple(Lock(2000 + s.pid, 0, s.pid) for s in parts.slots))
    more, greed = _run(bases, parts, greedy, run_id)
    assert len(more.seen) > len(expected.seen) or not parts.options.stealth_lock_on
    assert not ps.audit_asker(ASKER_SEED, run_id, asker_bases, sight, greed["queries"],
                              greed["received"])


def test_a_record_holds_the_piece_its_hits_and_its_action_records(corpus) -> None:
    for parts, _, _ in corpus[:80]:
        for slot in parts.slots:
            if slot.piece is None:
                continue
            hits = tuple(h for h in parts.hits if h[0] == slot.pid)
            data = ps.encode_record(slot.piece, hits, parts.acted)
            assert len(data) == ps.RECORD_SIZE
            record = ps.decode_record(data)
            assert (record.piece, record.hits) == (slot.piece, hits)
    with pytest.raises(ps.PrivateSightError, match="does not decode"):
        ps.decode_record(bytes([40]) + bytes(ps.RECORD_SIZE - 1))


def test_entries_of_every_shape_show_as_the_rules_show_them(bases, corpus) -> None:
    """Entries the random games rarely make, built on their detections: a visible
    mover's Move with a passenger that can hide (shown whatever, the passenger by its
    judgement: a public place), a piece that entered play in the step (R10: judged on
    the step's end alone), and an entry about two pieces that can hide (shown when both
    are: a partner that picks the variant)."""
    rng = random.Random(17)
    cases = shapes = 0
    for i, (parts, sight, _) in enumerate(corpus):
        present = [s for s in parts.slots if s.piece is not None]
        slotted = {s.pid for s in parts.slots}
        outside = [p for p in parts.own if p.pid not in slotted]
        if len(present) < 2 or not outside:
            continue
        first, second = present[0], present[1]
        mover = outside[0]
        rank = 0 if parts.side is Side.BLACK else 1
        moved = Moved(mover.side, mover.kind, mover.hand, mover.sq, mover.sq, mover.sq,
                      first.piece.kind)
        hit = Moved(second.piece.side, second.piece.kind, second.piece.hand, 0, 1, 1)
        entries = (Shown((7, 3, rank, 1), moved, (MOVED, (mover.pid, first.pid))),
                   Shown((7, 3, rank, 2), hit, (PIECES, (second.pid,))),
                   Shown((7, 4, rank, 1), hit, (PIECES, (first.pid, second.pid))),
                   Shown((7, 4, rank, 2), hit, (FIRED, (second.pid,))))
        built = replace(parts, entries=entries, entered=frozenset({second.pid}))
        for k in range(3):
            other = _with_bits(built, sight, rng)
            got, _ = _run(bases, built, other, b"shapes %d %d" % (i, k))
            expected = assemble(built, other)
            assert got == expected, (i, k)
            shapes += len(expected.entries)
            cases += 1
        if cases >= 30:
            break
    assert cases == 30 and shapes > 45


def test_what_is_made_ahead_changes_no_byte(bases, corpus) -> None:
    """Both sides make what hangs neither on the asker's sight nor on the step's entries
    before the question (the owner's labels and pads, the transfers' keys, the asker's
    input query): every message is the same bytes as made on arrival, so the audit's
    remaking holds whichever way a side went. The owner's garbling made ahead goes six
    ways: dry (the step's parts unknown), whole from the parts peeked, half of its
    slices done (the question came meanwhile: the rest is made on arrival), from parts
    peeked that the question's then differ from, none but the run's pads made before
    its slots were known (``RunPads``, between actions), and dry with half of its
    slices done."""
    owner_bases, asker_bases = bases
    checked = 0
    for i, (parts, sight, expected) in enumerate(corpus[:40]):
        run_id = b"ahead %d" % i
        way = i % 6
        pads = None
        if way == 4:
            pads = ps.RunPads(OWNER_SEED, run_id, parts.options)
            for make in pads.parts():
                make()
            assert pads.made and not pads.parts()
        owner = ps.OwnerRun(OWNER_SEED, run_id, owner_bases, parts.slots, parts.options,
                            pads=pads)
        asker = ps.AskerRun(ASKER_SEED, run_id, asker_bases, sight)
        queries = owner.queries()
        if way in (1, 2, 3):
            # way 3: as if every slot's piece entered play in the step (other gates)
            peeked = parts if way < 3 else replace(
                parts, entered=frozenset(slot.pid for slot in parts.slots))
            owner.peek = lambda peeked=peeked: peeked
        if way in (2, 5):
            slices = owner.parts()
            # its transfers, its labels, its setup and three steps of its garbling
            for make in slices[:len(slices) - ps._AHEAD_STEPS + ps._LABEL_STEPS + 4]:
                make()
            assert not owner.made
        elif way < 4:
            owner.ahead()
            assert owner.made
        asker.ahead(*queries)
        received = asker.reply(*queries)
        owner.take_input_query(received[2])
        sent = owner.garble(parts, *received)
        got, plain = _run(bases, parts, sight, run_id)
        assert (queries, received, sent) == (plain["queries"], plain["received"],
                                             plain["sent"])
        assert asker.finish(*sent, parts.options) == got == expected
        checked += len(parts.slots)
    assert checked > 50


def test_no_slice_of_the_owners_garbling_ahead_makes_more_than_a_step_of_labels(
        bases, corpus) -> None:
    """The owner's garbling made ahead in slices (``OwnerRun.parts``) makes the input
    wires' labels ``_WIRES`` a slice before its setup, where no ``RunPads`` made them:
    until session 36 the setup made all 240 in one slice of 1-1.8 ms, which a peer's
    message coming meanwhile waited behind. Its bytes stay the ones made at once."""
    owner_bases, asker_bases = bases
    parts, sight, expected = corpus[0]
    run_id = b"labels in slices"
    owner = ps.OwnerRun(OWNER_SEED, run_id, owner_bases, parts.slots, parts.options)
    owner.peek = lambda: parts
    queries = owner.queries()  # (the transfers' keys in the first slices hang on them)
    labels_made: list[int] = []
    for make in owner.parts():
        before = sum(1 for key in owner._pads if key[0] == "w")
        make()
        labels_made.append(sum(1 for key in owner._pads if key[0] == "w") - before)
    assert owner.made
    assert max(labels_made) == ps._WIRES
    assert labels_made.count(ps._WIRES) == ps.SLOTS * ps.INPUTS // ps._WIRES == 3
    asker = ps.AskerRun(ASKER_SEED, run_id, asker_bases, sight)
    received = asker.reply(*queries)
    owner.take_input_query(received[2])
    sent = owner.garble(parts, *received)
    _, plain = _run(bases, parts, sight, run_id)
    assert (queries, received, sent) == (plain["queries"], plain["received"], plain["sent"])
    assert asker.finish(*sent, parts.options) == expected


def test_the_largest_record_the_rules_allow_fits_its_padding() -> None:
    """R2.6: at most 3 articles (with an XXX box); every instance cooling down (R6.3),
    hit by every weapon kind this turn, in transit, revealed, in every action record:
    the record still fits ``RECORD_SIZE`` (a game never meets a record too large)."""
    from wec.engine.board import Level
    from wec.engine.pieces import ArticleKind, Hand, PieceKind
    from wec.engine.position import ActionCounts, Piece, Reveal, Transit

    articles = (ArticleKind.XXX, ArticleKind.JUMP_PACK, ArticleKind.TORPEDO_LAUNCHER)
    piece = Piece(126, Side.WHITE, PieceKind.STEALTH_PAWN, 99, Level.SUB, Hand.RIGHT,
                  articles, True, True, 10 ** 6, (10 ** 6,) * 8,
                  Transit(ArticleKind.JUMP_PACK, 99, "beeline"), Reveal("capture", 299))
    hits = tuple((126, kind, 99) for kind in ArticleKind)
    acted = ActionCounts(9, 9, 9, 9, 9, 9, (126,) * 9, (126,) * 9, 126, (126,) * 9)
    record = ps.decode_record(ps.encode_record(piece, hits, acted))
    assert (record.piece, record.hits, record.acts) == (piece, hits, (9, 9, True, 9))


def test_the_largest_entry_fits_a_place() -> None:
    """R8.8.2: a Doze moves at most ``MAX_DOZED`` pieces; its ``Dozed`` event, every
    piece of the longest kind name at the highest square, still fits a place's variant
    (events travel in the compact form, net.fog_codec ``compact``)."""
    from wec.engine.detection_parts import Place
    from wec.engine.dozing import MAX_DOZED
    from wec.engine.events import Dozed
    from wec.engine.pieces import PieceKind

    longest = max(PieceKind, key=lambda kind: len(kind.value))
    event = Dozed(Side.WHITE, (-1, -1), ((Side.WHITE, longest, 99, 98),) * MAX_DOZED)
    entry = Shown((99, 299, 1, 0), event, None)
    place = Place((99, 299, 1), 99, False, (99, 2, "white", longest.value, "right",
                                            ("anti_stealth",) * 3, True, 12), 9)
    read = sp._read_place(sp._wire_place(place, entry))
    assert read == (place, entry)


def test_a_garbled_entry_that_does_not_decode_is_refused_with_the_reason() -> None:
    """A variant that opens but holds no entry (a lying or broken owner) is refused with
    a reason, not taken."""
    data = b"\x05\x00" + b"\x95\x01\x02\x03\x04\x05" + bytes(sp.ENTRY_SIZE - 8)
    with pytest.raises(ps.PrivateSightError, match="does not decode"):
        sp._read_place(data)
    unknown = msgpack.packb([[1, 2, 3], 0, False, [], 0, {"k": [10 ** 6]}])
    with pytest.raises(ps.PrivateSightError, match="does not decode"):
        sp._read_place(len(unknown).to_bytes(2, "little") + unknown
                       + bytes(sp.ENTRY_SIZE - 2 - len(unknown)))


def test_a_place_that_would_not_sort_is_refused() -> None:
    """A lying owner's place whose fields are not what the engine makes (a block key
    that is a number, an anchor that is text) is refused, not sorted into a crash."""
    entry = Shown((1, 2, 1, 0), Moved(Side.WHITE, PieceKind.TANK, None, 1, 2, 2), None)
    for group, anchor, block in (([1, 2, 1], 0, 5), ([1, 2, 1], "x", []),
                                 ([1, 2, 1], 0, [[None]]), ([1, "2", 1], 0, [])):
        data = msgpack.packb([group, anchor, False, block, 0, compact(to_wire(entry))])
        with pytest.raises(ps.PrivateSightError, match=r"does not order it|does not decode"):
            sp._read_place(len(data).to_bytes(2, "little") + data
                           + bytes(sp.ENTRY_SIZE - 2 - len(data)))


def test_an_answer_that_shows_one_piece_twice_is_refused(bases, corpus) -> None:
    """A lying owner that sends a slot's piece in the clear part as well: the asker
    refuses the answer rather than hold two pieces of one identifier."""
    parts, sight, expected = next(d for d in corpus if any(
        s.pid in {p.pid for p in d[2].seen} for s in d[0].slots))
    owner_bases, asker_bases = bases
    run_id = b"twice"
    owner = ps.OwnerRun(OWNER_SEED, run_id, owner_bases, parts.slots, parts.options)
    asker = ps.AskerRun(ASKER_SEED, run_id, asker_bases, sight)
    reply, material, clear = owner.garble(parts, *asker.reply(*owner.queries()))
    slotted = {s.pid for s in parts.slots}
    copied = next(p for p in expected.seen if p.pid in slotted)
    lying = replace(clear, pieces=(*clear.pieces, copied))
    with pytest.raises(ps.PrivateSightError, match="one piece twice"):
        asker.finish(reply, material, lying, parts.options)


def test_an_answer_naming_in_play_a_piece_the_asker_never_knew_is_refused() -> None:
    """R9.10: "in play" answers for the pieces the asker saw or marks; a lying owner's
    identifier outside them is refused (it would name a piece the asker knows nothing
    of)."""
    sight = Sight((), (), 0, 0, (4,), (7,))
    clear = ps.Clear((), (), None)
    for told, fine in (((4, 7), True), ((4, 9), False)):
        slots = ps.SlotsSeen((), told, {})
        if fine:
            assert ps.answer(clear, slots, sight, Options()).in_play == told
        else:
            with pytest.raises(ps.PrivateSightError, match="neither saw nor marks"):
                ps.answer(clear, slots, sight, Options())


def test_a_clear_part_that_does_not_decode_or_holds_other_things_is_refused() -> None:
    """The clear part read from the peer: malformed bytes, or well-formed values of the
    wrong kinds (a number for a piece, a hit without its weapon, an entry that is not
    one), are refused with a reason and nothing of them is taken."""
    good = ps.Clear((), ((3, ArticleKind.FLAME, 1),), None)
    assert ps.clear_from_wire(ps.clear_to_wire(good)) == good
    pieces, hits, acted, entries, projectiles = msgpack.unpackb(ps.clear_to_wire(good))
    for bad in (b"\x93\x01", msgpack.packb([[5], hits, acted, entries, projectiles]),
                msgpack.packb([pieces, [[3, 1]], acted, entries, projectiles]),
                msgpack.packb([pieces, hits, acted, [[[1, 2, 3], 0, [], 0, 7]],
                               projectiles])):
        with pytest.raises(ps.PrivateSightError, match="clear part"):
            ps.clear_from_wire(bad)


def test_an_entry_of_two_hidden_pieces_seen_by_one_opens_nothing(bases, corpus,
                                                                 monkeypatch) -> None:
    """An entry shown only when both its pieces are seen (an Exchange between two pieces
    that can hide), with one seen and the other not: the asker opens no place at all,
    as for padding (a place opened by the seen one alone would read "nothing" and tell
    that the piece it sees took part in something with a piece it does not)."""
    opened: list[object] = []
    real_read = sp._read_place

    def counting(data: bytes) -> object:
        read = real_read(data)
        opened.append(read)
        return read

    monkeypatch.setattr(sp, "_read_place", counting)
    cases = 0
    for i, (parts, sight, _) in enumerate(corpus):
        present = [s for s in parts.slots if s.piece is not None]
        pairs = [(a, b) for a in present for b in present
                 if a.sq != b.sq and any(a.seen) and not b.seen[0]]
        if not pairs:
            continue
        first, second = pairs[0]
        bits = next(x for x in range(8) if first.seen[x])
        rank = 0 if parts.side is Side.BLACK else 1
        event = Moved(first.piece.side, first.piece.kind, first.piece.hand, 0, 1, 1)
        built = replace(parts, entries=(
            Shown((7, 4, rank, 1), event, (PIECES, (first.pid, second.pid))),))
        other = replace(sight,
                        stealth_reach=(bits & 1) << first.sq, sub_reach=(bits >> 1 & 1) << first.sq,
                        locks=(Lock(900, 0, first.pid),) if bits & 4 else (),
                        seen=(first.pid, second.pid), asked=())
        expected = assemble(built, other)
        assert first.pid in {p.pid for p in expected.seen}
        assert second.pid not in {p.pid for p in expected.seen}
        opened.clear()
        got, _ = _run(bases, built, other, b"pair %d" % i)
        assert got == expected and not any(e.event == event for e in got.entries)
        assert opened == []  # no place opened, not even to nothing
        cases += 1
        if cases == 10:
            break
    assert cases == 10


def test_a_run_answers_once_and_a_copied_or_cut_material_is_named(bases, corpus) -> None:
    """The hostile peer's copies. A question asked again in one run gets no second
    reply from either side (two garblings of one run under one set of labels would let
    the asker combine them; two masked replies would read the bits under two masks).
    An owner that sends another run's material (same size, valid to the eye) shows the
    asker nothing of the slots, and the audit, which remakes the material from the
    owner's seed, names it; a material cut short is refused at once."""
    owner_bases, asker_bases = bases
    parts, sight, expected = next(d for d in corpus if any(
        s.pid in {p.pid for p in d[2].seen} for s in d[0].slots))
    owner = ps.OwnerRun(OWNER_SEED, b"once", owner_bases, parts.slots, parts.options)
    asker = ps.AskerRun(ASKER_SEED, b"once", asker_bases, sight)
    queries = owner.queries()
    with pytest.raises(ValueError, match="one query per run"):
        owner.queries()
    received = asker.reply(*queries)
    with pytest.raises(ValueError, match="one reply per run"):
        asker.reply(*queries)
    sent = owner.garble(parts, *received)
    with pytest.raises(ValueError, match="one reply per run"):
        owner.garble(parts, *received)
    _, other = _run(bases, parts, sight, b"another run")
    copied = (sent[0], other["sent"][1], sent[2])
    fooled = asker.finish(*copied, parts.options)
    slotted = {s.pid for s in parts.slots}
    assert {p.pid for p in fooled.seen} & slotted == set()
    assert {p.pid for p in expected.seen} & slotted != set()
    assert not ps.audit_owner(OWNER_SEED, b"once", owner_bases, parts, queries, received,
                              copied)
    assert ps.audit_owner(OWNER_SEED, b"once", owner_bases, parts, queries, received, sent)
    cut = ps.AskerRun(ASKER_SEED, b"once", asker_bases, sight)
    cut.reply(*queries)
    with pytest.raises(ps.PrivateSightError, match="shorter than its shape"):
        cut.finish(sent[0], sent[1][:-1], sent[2], parts.options)
