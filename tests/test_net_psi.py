"""net.psi: X25519 private set intersection (issue 21 building block).

Correctness against the plain computation, constant sizes and counts whatever the
inputs, what the owner sees does not depend on the path, the asker cannot open entries
after the first hit, tampering and misuse are refused, and the audit recomputes runs."""

from __future__ import annotations

import dataclasses
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wec.engine.board import CELLS as ENGINE_CELLS
from wec.net.psi import (
    _SEARCHED,
    CELLS,
    ELEMENT_SIZE,
    KEY_SIZE,
    MONTGOMERY_A,
    ORDER,
    FirstHit,
    FirstHitAsker,
    FirstHitOwner,
    FirstHitQuery,
    FirstHitReply,
    FirstHitShape,
    LabelAsker,
    LabelOwner,
    LabelQuery,
    LabelReply,
    LabelShape,
    P,
    PsiError,
    Scalar,
    _candidate,
    _entry_pad,
    _prf,
    _xor,
    audit_first_hit,
    audit_labelled,
    cell_element,
    check_element,
    check_first_hit_answer,
    check_first_hit_query,
    check_labelled_answer,
    check_labelled_query,
    digit_element,
    first_hit_plain,
    fixed_element,
    hash_to_element,
    labelled_plain,
    pad_label,
    run_secret,
    unpad_label,
)

SHAPE = FirstHitShape()
SMALL = FirstHitShape(max_cells=4, max_items=8, label_size=16)
LABELS = LabelShape(max_queries=24, max_items=12, label_size=20)

# Points of small order on Curve25519 (canonical u-coordinates), and non-canonical ones.
SMALL_ORDER = [
    0, 1, P - 1,
    int.from_bytes(bytes.fromhex(
        "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800"), "little"),
    int.from_bytes(bytes.fromhex(
        "5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157"), "little"),
]
NON_CANONICAL = [P, P + 1, 2 ** 255 - 1, 2 ** 256 - 1]


def secret(n: int) -> bytes:
    return bytes([n]) * 32


def first_hit_run(shape: FirstHitShape, cells: list[int], items: dict[int, bytes],
                  asker: int = 1, owner: int = 2
                  ) -> tuple[FirstHit | None, FirstHitQuery, FirstHitReply]:
    a = FirstHitAsker(shape, secret(asker))
    o = FirstHitOwner(shape, secret(owner))
    query = FirstHitQuery.from_bytes(a.query(cells).to_bytes(shape), shape)
    reply = FirstHitReply.from_bytes(o.reply(query, items).to_bytes(shape), shape)
    return a.finish(reply), query, reply


def on_curve(u: bytes) -> bool:
    x = int.from_bytes(u, "little")
    return pow((x ** 3 + MONTGOMERY_A * x * x + x) % P, (P - 1) // 2, P) == 1


# ---------------------------------------------------------------- the group


def test_cells_match_the_engine() -> None:
    assert CELLS == ENGINE_CELLS


def test_hashed_points_are_on_the_curve_and_distinct() -> None:
    points = [cell_element(c) for c in range(CELLS)] + [digit_element(d) for d in range(7)]
    assert len(set(points)) == len(points)
    assert all(len(p) == ELEMENT_SIZE and on_curve(p) for p in points)
    assert hash_to_element(b"cell", b"\x00\x05") == cell_element(5)


def test_every_fixed_point_is_the_one_its_search_finds() -> None:
    """The fixed points go by the counter their hash-to-curve search stops at (net.psi
    ``_SEARCHED``): each is the search's own result (the first candidate on the curve,
    none before it), for every cell, digit and dummy in the table and past it."""
    searched = 0
    for domain, count in ((b"cell", CELLS), (b"digit", 7), (b"owner dummy", 56)):
        assert len(_SEARCHED[domain]) == count
        for index in range(count + 2):
            data = index.to_bytes(2, "big")
            assert fixed_element(domain, index) == hash_to_element(domain, data)
            searched += 1
    assert searched == 369
    # a wrong counter gives a candidate off the curve or another point: never the same
    cell = next(c for c in range(CELLS) if _SEARCHED[b"cell"][c] > 0)
    assert not on_curve(_candidate(b"cell", cell.to_bytes(2, "big"), 0).to_bytes(
        ELEMENT_SIZE, "little"))


def test_blinding_commutes_and_unblinds() -> None:
    a = Scalar.derive(secret(1), b"a", 0)
    b = Scalar.derive(secret(2), b"b", 0, invertible=False)
    assert b.inverse is None
    for cell in (0, 7, 299):
        point = cell_element(cell)
        assert a.apply(b.apply(point)) == b.apply(a.apply(point))
        assert a.unapply(b.apply(a.apply(point))) == b.apply(point)  # the OPRF value
        assert a.unapply(a.apply(point)) != point  # the cofactor is cleared, not undone
    assert a.inverse is not None
    value, inverse = (int.from_bytes(x, "little") for x in (a.value, a.inverse))
    assert value * inverse % ORDER == 1
    for k in (value, inverse):  # both clamped
        assert k % 8 == 0 and 2 ** 254 <= k < 2 ** 255
    with pytest.raises(ValueError, match="without its inverse"):
        b.unapply(cell_element(0))


@pytest.mark.parametrize("u", SMALL_ORDER)
def test_points_of_small_order_are_refused(u: int) -> None:
    element = u.to_bytes(32, "little")
    for scalar in (Scalar.derive(secret(3), b"x", 0), Scalar.derive(secret(4), b"y", 1)):
        with pytest.raises(PsiError, match="small order"):
            scalar.apply(element)
        with pytest.raises(PsiError, match="small order"):
            scalar.unapply(element)


@pytest.mark.parametrize("u", NON_CANONICAL)
def test_non_canonical_elements_are_refused(u: int) -> None:
    element = u.to_bytes(32, "little")
    with pytest.raises(PsiError, match="canonical"):
        check_element(element)
    with pytest.raises(PsiError, match="canonical"):
        Scalar.derive(secret(3), b"x", 0).apply(element)


def test_wrong_element_sizes_are_refused() -> None:
    for bad in (b"", bytes(31), bytes(33)):
        with pytest.raises(PsiError, match="32 bytes"):
            check_element(bad)


def test_twist_points_are_multiplied_not_refused() -> None:
    """X25519 is twist-secure: a twist point from a dishonest peer is harmless, so it is
    not tested (no Legendre symbol per element); the result stays on the twist."""
    u = next(x for x in range(2, 100) if not on_curve(x.to_bytes(32, "little")))
    result = Scalar.derive(secret(5), b"z", 0).apply(u.to_bytes(32, "little"))
    assert len(result) == 32 and not on_curve(result)


def test_run_secrets_are_distinct_per_run() -> None:
    seed = secret(9)
    assert run_secret(seed, b"turn 1 q 0") != run_secret(seed, b"turn 1 q 1")
    assert run_secret(seed, b"x") == run_secret(seed, b"x")
    with pytest.raises(ValueError):
        run_secret(b"short", b"x")


def test_label_padding() -> None:
    assert unpad_label(pad_label(b"abc", 16)) == b"abc"
    assert len(pad_label(b"", 16)) == 16
    with pytest.raises(ValueError):
        pad_label(bytes(15), 16)
    with pytest.raises(PsiError):
        unpad_label(b"\x00\x01a\x01")


# ---------------------------------------------------------------- first hit


def test_first_hit_shape_sizes() -> None:
    assert SHAPE.digits == 3 and SHAPE.radix ** SHAPE.digits > SHAPE.universe
    assert SHAPE.query_size == 960
    assert SHAPE.reply_size == 960 + 10 * 300 * 16 + 10 * 16 + 56 * 80 == 53_600


paths = st.lists(st.integers(0, CELLS - 1), min_size=1, max_size=SMALL.max_cells)
owner_items = st.dictionaries(st.integers(0, CELLS - 1), st.binary(max_size=14), max_size=8)


@settings(max_examples=25, deadline=None)
@given(cells=paths, items=owner_items)
def test_first_hit_matches_the_plain_first_hit(cells: list[int], items: dict[int, bytes]) -> None:
    result, query, reply = first_hit_run(SMALL, cells, items)
    assert result == first_hit_plain(cells, items)
    assert len(query.to_bytes(SMALL)) == SMALL.query_size
    assert len(reply.to_bytes(SMALL)) == SMALL.reply_size


@pytest.mark.parametrize("cells, items", [
    ([3], {}), ([3], {3: b"x"}), (list(range(10)), {9: b"last"}),
    (list(range(10)), {}), ([299, 0, 150], {0: b"a", 150: b"b"}),
    ([5, 5, 6], {6: b"c"}),
])
def test_first_hit_default_shape(cells: list[int], items: dict[int, bytes]) -> None:
    result, _, _ = first_hit_run(SHAPE, cells, items)
    assert result == first_hit_plain(cells, items)


def test_first_hit_sizes_and_counts_do_not_depend_on_inputs() -> None:
    cases = [([1], {}), ([1, 2, 3, 4], {2: b"x" * 14}), ([0, 299], {299: b""}),
             ([7, 8, 9, 10], {c: b"y" for c in range(8)})]
    sizes = set()
    for n, (cells, items) in enumerate(cases):
        _, query, reply = first_hit_run(SMALL, cells, items, asker=n + 1, owner=n + 20)
        sizes.add((len(query.blinded), len(query.to_bytes(SMALL)), len(reply.rows),
                   len(reply.labels), len(reply.to_bytes(SMALL))))
    assert sizes == {(12, 384, 4, 8, SMALL.reply_size)}


def test_what_the_owner_sees_does_not_depend_on_the_path() -> None:
    """The owner's view is the query: the same count of distinct valid elements for any
    path, its length or a repeated cell; its reply, apart from raising each element to
    its keys, is byte-identical for two paths."""
    items = {4: b"hidden"}
    views = []
    for cells in ([4], [1, 2, 3, 4], [5, 5, 5, 5], [299, 298]):
        asker = FirstHitAsker(SMALL, secret(1))
        query = asker.query(cells)
        assert len(set(query.blinded)) == SMALL.slots  # no element repeats, even for [5]*4
        for element in query.blinded:
            check_element(element)
            assert on_curve(element)
        owner = FirstHitOwner(SMALL, secret(2))
        reply = owner.reply(query, items)
        assert reply.evaluated == tuple(k.apply(e) for k, e in zip(owner._keys, query.blinded,
                                                                   strict=True))
        views.append(dataclasses.replace(reply, evaluated=()))
    assert all(view == views[0] for view in views)


def test_the_asker_cannot_open_entries_after_the_first_hit() -> None:
    """Even with every value an asker can get (the un-blinded digit values of all its
    positions and the key the hit gives it), no later entry opens: it needs the next
    chain key, which only a miss gives."""
    items = {10: b"first", 11: b"second", 12: b"third"}
    asker = FirstHitAsker(SMALL, secret(1))
    query = asker.query([10, 11, 12])
    reply = FirstHitOwner(SMALL, secret(2)).reply(query, items)
    assert asker.finish(reply) == FirstHit(0, 10, b"first")
    values = [asker._scalars[k].unapply(e) for k, e in enumerate(reply.evaluated)]
    tags = dict(reply.labels)
    hit_key = _xor(reply.rows[0][10 * KEY_SIZE:11 * KEY_SIZE],
                   _entry_pad(bytes(KEY_SIZE), 0, 10, values[0:3]))
    for position, cell in ((1, 11), (2, 12)):
        digit_values = values[position * 3:(position + 1) * 3]
        entry = reply.rows[position][cell * KEY_SIZE:(cell + 1) * KEY_SIZE]
        for guess in (bytes(KEY_SIZE), hit_key, reply.checks[0], reply.checks[position - 1]):
            opened = _xor(entry, _entry_pad(guess, position, cell, digit_values))
            assert _prf(opened, b"wec-psi-fh-tag", b"") not in tags
            assert _prf(opened, b"wec-psi-fh-check", b"") not in reply.checks


def test_one_entry_per_position_for_any_digit_choice() -> None:
    """The digit values the asker holds for a position open the entry of the cell they
    spell, and no other: another cell's entry needs at least one value it lacks."""
    items = {c: b"z" for c in (0, 2, 8, 49, 50, 51, 298)}
    asker = FirstHitAsker(SMALL, secret(1))
    query = asker.query([1])  # digits (1, 0, 0)
    reply = FirstHitOwner(SMALL, secret(2)).reply(query, items)
    values = [asker._scalars[k].unapply(e) for k, e in enumerate(reply.evaluated[:3])]
    checks, tags = set(reply.checks), dict(reply.labels)
    opened_any = []
    for cell in range(SMALL.universe):
        opened = _xor(reply.rows[0][cell * KEY_SIZE:(cell + 1) * KEY_SIZE],
                      _entry_pad(bytes(KEY_SIZE), 0, cell, values))
        if _prf(opened, b"wec-psi-fh-check", b"") in checks \
                or _prf(opened, b"wec-psi-fh-tag", b"") in tags:
            opened_any.append(cell)
    assert opened_any == [1]


def test_a_tampered_reply_is_refused() -> None:
    items = {9: b"x"}
    asker = FirstHitAsker(SMALL, secret(1))
    query = asker.query([3, 9])
    reply = FirstHitOwner(SMALL, secret(2)).reply(query, items)
    rows = list(reply.rows)
    rows[0] = rows[0][:3 * KEY_SIZE] + bytes(KEY_SIZE) + rows[0][4 * KEY_SIZE:]
    fresh = FirstHitAsker(SMALL, secret(1))
    assert fresh.query([3, 9]) == query
    with pytest.raises(PsiError, match="position 0"):
        fresh.finish(dataclasses.replace(reply, rows=tuple(rows)))
    again = FirstHitAsker(SMALL, secret(1))
    again.query([3, 9])
    evaluated = list(reply.evaluated)
    evaluated[0] = cell_element(0)  # a wrong evaluation
    with pytest.raises(PsiError, match="position 0"):
        again.finish(dataclasses.replace(reply, evaluated=tuple(evaluated)))
    bad = FirstHitAsker(SMALL, secret(1))
    bad.query([3, 9])
    small = list(reply.evaluated)
    small[5] = bytes(32)
    with pytest.raises(PsiError, match="small order"):
        bad.finish(dataclasses.replace(reply, evaluated=tuple(small)))


def test_first_hit_misuse_is_refused() -> None:
    asker = FirstHitAsker(SMALL, secret(1))
    with pytest.raises(ValueError, match=r"1\.\.4 cells"):
        asker.query([])
    with pytest.raises(ValueError, match=r"1\.\.4 cells"):
        asker.query([1, 2, 3, 4, 5])
    with pytest.raises(ValueError, match="outside"):
        asker.query([300])
    query = asker.query([1])
    with pytest.raises(ValueError, match="one query per run"):
        asker.query([1])
    with pytest.raises(ValueError, match="after query"):
        FirstHitAsker(SMALL).finish(FirstHitOwner(SMALL).reply(query, {}))
    owner = FirstHitOwner(SMALL, secret(2))
    with pytest.raises(ValueError, match="at most 14"):
        owner.reply(query, {1: bytes(15)})
    with pytest.raises(ValueError, match="9 items"):
        owner.reply(query, {c: b"" for c in range(9)})
    with pytest.raises(PsiError, match="12 elements"):
        owner.reply(FirstHitQuery(query.blinded[:-1]), {})
    with pytest.raises(PsiError, match="small order"):
        owner.reply(FirstHitQuery((bytes(32), *query.blinded[1:])), {})
    owner.reply(query, {})
    with pytest.raises(ValueError, match="one reply per run"):
        owner.reply(query, {})
    data = query.to_bytes(SMALL)
    with pytest.raises(PsiError, match="384 bytes"):
        FirstHitQuery.from_bytes(data + b"\x00", SMALL)
    with pytest.raises(PsiError, match="canonical"):
        FirstHitQuery.from_bytes(b"\xff" * 32 + data[32:], SMALL)
    with pytest.raises(PsiError, match="bytes"):
        FirstHitReply.from_bytes(bytes(10), SMALL)


@pytest.mark.parametrize("thorough", [False, True])
def test_first_hit_audit(thorough: bool) -> None:
    items = {6: b"sub"}
    cells = [4, 5, 6]
    a, o = FirstHitAsker(SMALL, secret(1)), FirstHitOwner(SMALL, secret(2))
    query = a.query(cells)
    reply = o.reply(query, items)

    def audit(cells: list[int], items: dict[int, bytes], owner_secret: bytes = secret(2),
              reply: FirstHitReply = reply) -> str:
        return audit_first_hit(SMALL, cells, secret(1), items, owner_secret, query, reply,
                               thorough=thorough) or "clean"

    assert audit(cells, items) == "clean"
    # the asker revealed another path than the one it asked about
    assert audit([4, 5, 7], items) == \
        "the first-hit query does not match the asker's revealed path"
    # the owner answered as if its sub were elsewhere (a denied hit)
    lie = FirstHitOwner(SMALL, secret(2)).reply(query, {7: b"sub"})
    assert a.finish(lie) is None
    assert audit(cells, items, reply=lie) == (
        "the first-hit reply gave no hit where the owner's revealed pieces give a hit at "
        "position 2 (cell 6)")
    # a hit claimed on a free cell, and a changed label
    for claimed in ({5: b"sub"}, {6: b"tank"}):
        assert "the first-hit reply gave" in audit(
            cells, items, reply=FirstHitOwner(SMALL, secret(2)).reply(query, claimed))
    # the owner's revealed secret is not the one it used: only the thorough audit sees it
    # when the answer itself was right (nothing the asker read was wrong)
    other = audit(cells, items, owner_secret=secret(3))
    assert other == ("the first-hit reply does not match the owner's revealed pieces and "
                     "secret" if thorough else "clean")
    garbled = dataclasses.replace(reply, checks=(bytes(16),) * SMALL.max_cells)
    assert audit(cells, items, reply=garbled) == \
        "the first-hit reply does not decode at position 0"


# ---------------------------------------------------------------- labelled


query_sets = st.sets(st.integers(0, CELLS - 1), max_size=LABELS.max_queries)
label_items = st.dictionaries(st.integers(0, CELLS - 1), st.binary(max_size=18),
                              max_size=LABELS.max_items)


@settings(max_examples=25, deadline=None)
@given(cells=query_sets, items=label_items)
def test_labelled_matches_the_plain_intersection(cells: set[int],
                                                 items: dict[int, bytes]) -> None:
    ordered = sorted(cells)
    asker, owner = LabelAsker(LABELS, secret(1)), LabelOwner(LABELS, secret(2))
    query = LabelQuery.from_bytes(asker.query(ordered).to_bytes(LABELS), LABELS)
    reply = LabelReply.from_bytes(owner.reply(query, items).to_bytes(LABELS), LABELS)
    assert asker.finish(reply) == labelled_plain(ordered, items)
    assert len(query.to_bytes(LABELS)) == LABELS.query_size == 24 * 32
    assert len(reply.to_bytes(LABELS)) == LABELS.reply_size == 24 * 32 + 12 * 36


def test_labelled_default_shape_realistic_size() -> None:
    shape = LabelShape()
    items = {c: b"stealth pawn %d" % c for c in range(0, 200, 10)}  # 20 hidden pieces
    cells = list(range(50, 150))  # 100 detector cells
    asker = LabelAsker(shape, secret(1))
    reply = LabelOwner(shape, secret(2)).reply(asker.query(cells), items)
    assert asker.finish(reply) == labelled_plain(cells, items)
    assert shape.query_size == 3200 and shape.reply_size == 3200 + 56 * 80


def test_labelled_owner_view_and_sizes_do_not_depend_on_the_cells() -> None:
    items = {3: b"a", 4: b"b"}
    views = []
    for cells in ([], [3], list(range(24)), [299, 3, 150]):
        asker = LabelAsker(LABELS, secret(1))
        query = asker.query(cells)
        assert len(query.blinded) == LABELS.max_queries
        assert len(set(query.blinded)) == LABELS.max_queries
        for element in query.blinded:
            check_element(element)
            assert on_curve(element)
        reply = LabelOwner(LABELS, secret(2)).reply(query, items)
        views.append(reply.labels)  # what the owner sends besides the evaluations
    assert all(view == views[0] for view in views)


def test_labelled_reply_slots_hide_the_item_count() -> None:
    sizes = set()
    for items in ({}, {1: b"x"}, {c: b"y" * 18 for c in range(12)}):
        asker = LabelAsker(LABELS, secret(1))
        reply = LabelOwner(LABELS, secret(2)).reply(asker.query([1, 2]), items)
        assert len({tag for tag, _ in reply.labels}) == LABELS.max_items
        assert list(reply.labels) == sorted(reply.labels)
        sizes.add(len(reply.to_bytes(LABELS)))
    assert sizes == {LABELS.reply_size}


def test_labelled_misuse_and_audit() -> None:
    asker = LabelAsker(LABELS, secret(1))
    with pytest.raises(ValueError, match="distinct"):
        asker.query([1, 1])
    with pytest.raises(ValueError, match="distinct"):
        asker.query(list(range(25)))
    query = asker.query([1, 2])
    owner = LabelOwner(LABELS, secret(2))
    with pytest.raises(PsiError, match="24 elements"):
        owner.reply(LabelQuery(query.blinded[:3]), {})
    with pytest.raises(PsiError, match="small order"):
        owner.reply(LabelQuery((*query.blinded[:-1], bytes(32))), {})
    with pytest.raises(PsiError, match="bytes"):
        LabelReply.from_bytes(b"", LABELS)
    items = {2: b"detected"}
    reply = owner.reply(query, items)
    assert asker.finish(reply) == {2: b"detected"}
    for thorough in (False, True):
        assert audit_labelled(LABELS, [1, 2], secret(1), items, secret(2), query, reply,
                              thorough) is None
        assert "detector cells" in (audit_labelled(LABELS, [1, 3], secret(1), items,
                                                   secret(2), query, reply, thorough) or "")
        hidden = LabelOwner(LABELS, secret(2)).reply(query, {})  # hides the detected piece
        assert audit_labelled(LABELS, [1, 2], secret(1), items, secret(2), query, hidden,
                              thorough) == "the detection reply hid the pieces at cells [2]"
        changed = LabelOwner(LABELS, secret(2)).reply(query, {2: b"something else"})
        assert "other pieces" in (audit_labelled(LABELS, [1, 2], secret(1), items, secret(2),
                                                 query, changed, thorough) or "")
    assert "secret" in (audit_labelled(LABELS, [1, 2], secret(1), items, secret(7), query,
                                       reply, thorough=True) or "")


# ---------------------------------------------------------------- the benchmark


def test_crypto_bench_runs_and_reports() -> None:
    """``wec bench crypto`` (benchmarks/psi_bench.py) runs, gets every PSI result right
    and reports its figures (speed itself is not asserted here)."""
    import io

    from wec.benchmarks.psi_bench import run
    from wec.cli import BENCH_SUITES

    assert BENCH_SUITES["crypto"][0] == "wec.benchmarks.psi_bench"
    out = io.StringIO()
    figures = run(0.05, out, audit_turns=10)
    assert figures["psi_correct"] and figures["audit_clean"] and figures["ot_correct"]
    assert figures["doze_correct"] and figures["doze_ot_reply"]["count"] >= 5
    assert figures["sight_correct"] and figures["sight_garble"]["count"] >= 5
    assert figures["sight_slots_seen"] > 0
    for key in ("x25519_exchange_us", "ed25519_sign_us", "blinding_us", "commit_300_ms",
                "audit_s", "audit_first_hit_ms", "seal_us", "accept_us"):
        assert figures[key] > 0, key
    for key in ("first_hit_warm", "first_hit_loopback_warm", "labelled_loopback"):
        assert figures[key]["count"] >= 5 and figures[key]["p95_ms"] > 0, key
    assert figures["first_hit_sizes"] == {"query": 960, "reply": 53_600, "messages": 2}
    text = out.getvalue()
    assert "first hit, 10 cells x 300-cell universe" in text
    assert "reach by oblivious transfer (net.ot), 20 squares asked of 100: query 5376 B, " \
        "reply 1536 B\n" in text
    assert "by oblivious transfer (queries 896 + 640 B, replies 2560 + 5120 B)\n" in text
    assert text.count("PASS") + text.count("FAIL") == 1


def test_each_side_checks_the_other_at_the_audit() -> None:
    """At the end each side checks only the other's messages: the owner recomputes the
    asker's query from the revealed path; the asker compares the result it kept with the
    plain answer on the revealed pieces (no cryptography)."""
    items = {6: b"sub"}
    asker = FirstHitAsker(SMALL, secret(1))
    query = asker.query([4, 5, 6])
    got = asker.finish(FirstHitOwner(SMALL, secret(2)).reply(query, items))
    assert check_first_hit_query(SMALL, [4, 5, 6], secret(1), query) is None
    assert check_first_hit_query(SMALL, [4, 6], secret(1), query) is not None
    assert check_first_hit_answer([4, 5, 6], items, got) is None
    assert check_first_hit_answer([4, 5, 6], {5: b"sub"}, got) == (
        "the first-hit reply gave a hit at position 2 (cell 6) where the owner's revealed "
        "pieces give a hit at position 1 (cell 5)")
    detector = LabelAsker(LABELS, secret(1))
    l_query = detector.query([1, 2, 3])
    found = detector.finish(LabelOwner(LABELS, secret(2)).reply(l_query, {2: b"x"}))
    assert check_labelled_query(LABELS, [1, 2, 3], secret(1), l_query) is None
    assert check_labelled_query(LABELS, [1, 2], secret(1), l_query) is not None
    assert check_labelled_answer([1, 2, 3], {2: b"x"}, found) is None
    assert check_labelled_answer([1, 2, 3], {2: b"x", 3: b"y"}, found) == \
        "the detection reply hid the pieces at cells [3]"


def test_a_labelled_owner_prepared_ahead_replies_byte_for_byte_the_same() -> None:
    items = {3: b"\x01", 17: b"\x02", 40: b"\x03"}
    query = LabelAsker(LABELS, secret(1)).query([3, 5, 40])
    plain = LabelOwner(LABELS, secret(2)).reply(query, items)
    for cells in (range(LABELS.universe), [3, 40], [17, 99]):
        owner = LabelOwner(LABELS, secret(2))
        owner.prepare(cells)
        assert owner.reply(query, items) == plain
    with pytest.raises(ValueError):
        LabelOwner(LABELS, secret(2)).prepare([LABELS.universe])


@pytest.mark.parametrize("length", [1, 19, 32, 33, 144, 255])
def test_the_label_hkdf_gives_cryptographys_bytes(length: int) -> None:
    """net.psi derives labels by its own HKDF-SHA256 (faster for short outputs): the same
    bytes as cryptography's, so records and audits made before it still check."""
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    from wec.net.psi import hkdf_sha256

    rng = random.Random(length)
    for _ in range(20):
        ikm, info = rng.randbytes(32), rng.randbytes(rng.randrange(24))
        assert hkdf_sha256(ikm, length, info) == HKDF(hashes.SHA256(), length, salt=None,
                                                      info=info).derive(ikm)
