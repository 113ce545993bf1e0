"""The detection's reach by oblivious transfer (net.ot): once per game the base
transfers (one-element labelled PSI runs over X25519), then per run an IKNP extension
made of hashing only. The receiver gets exactly the entries of the squares it asked;
what the sender receives does not depend on them; everything is remade from the seeds
(restores, the audit); malformed peer bytes are refused with a reason."""

from __future__ import annotations

import random
import secrets

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wec.net import ot
from wec.net import private_sight as ps
from wec.net.psi import LabelAsker, LabelReply

GAME = bytes(range(16))
SENDER_SEED, RECEIVER_SEED = bytes([1] * 32), bytes([2] * 32)


@pytest.fixture(scope="module")
def base() -> tuple[tuple[tuple[bytes, bytes], ...], int, tuple[bytes, ...]]:
    """The base transfers between the two seeds: the receiver's pairs, the sender's
    choice bits and the seeds it chose."""
    replies = ot.base_replies(RECEIVER_SEED, GAME, ot.base_queries(SENDER_SEED, GAME))
    chosen = ot.base_finish(SENDER_SEED, GAME, replies)
    return ot.seed_pairs(RECEIVER_SEED, GAME), ot.choice_bits(SENDER_SEED, GAME), chosen


def test_the_base_transfers_give_the_sender_one_seed_of_each_pair(base) -> None:
    pairs, s, chosen = base
    assert len(chosen) == ot.KAPPA == len(pairs)
    assert all(chosen[i] == pairs[i][s >> i & 1] for i in range(ot.KAPPA))
    assert 0 < bin(s).count("1") < ot.KAPPA  # both kinds of choice occur


def run(base, squares: list[int], table: dict[int, int], run_id: bytes = b"run 1"
        ) -> tuple[bytes, bytes, dict[int, int]]:
    pairs, s, chosen = base
    receiver = ot.ReachReceiver(pairs, run_id)
    query = receiver.query(squares)
    reply = ot.ReachSender(s, chosen, run_id).reply(query, table)
    return query, reply, receiver.finish(reply)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 99), unique=True, max_size=ot.SLOTS),
       st.lists(st.integers(0, 3), min_size=100, max_size=100), st.binary(max_size=12))
def test_the_receiver_gets_the_entries_of_its_squares(base, squares, entries, run_id) -> None:
    table = dict(enumerate(entries))
    query, reply, found = run(base, squares, table, b"run " + run_id)
    assert found == {sq: table[sq] for sq in squares}
    assert (len(query), len(reply)) == (ot.QUERY_SIZE, ot.REPLY_SIZE)


def test_a_slot_opened_at_another_square_gives_noise_not_the_table(base) -> None:
    """The receiver's keys open only its own squares: read at any other square with
    the same keys, a slot gives the table's entry no more often than chance."""
    rng = random.Random(5)
    right = total = 0
    for trial in range(40):
        table = {sq: rng.randrange(4) for sq in range(100)}
        squares = rng.sample(range(100), 10)
        pairs, s, chosen = base
        receiver = ot.ReachReceiver(pairs, b"noise %d" % trial)
        query = receiver.query(squares)
        reply = ot.ReachSender(s, chosen, b"noise %d" % trial).reply(query, table)
        shift = rng.randrange(1, 100)  # every slot read at another square, all distinct
        receiver.squares = tuple((sq + shift) % 100 for sq in squares)
        for sq, entry in receiver.finish(reply).items():
            right += entry == table[sq]
            total += 1
    assert total == 400 and right < 0.4 * total  # chance: a quarter


def test_what_the_sender_receives_does_not_show_the_squares(base) -> None:
    """Two receivers asking different squares send queries of one size whose bytes look
    alike (each byte value about equally often), and the same squares under another
    run id give another query: the columns are masked by the PRG."""
    pairs, _, _ = base
    first = ot.ReachReceiver(pairs, b"a").query([0, 1, 2])
    second = ot.ReachReceiver(pairs, b"a").query(list(range(50, 98)))
    again = ot.ReachReceiver(pairs, b"b").query([0, 1, 2])
    assert len(first) == len(second) == len(again) == ot.QUERY_SIZE
    assert first != again
    for query in (first, second):
        assert 0.4 < sum(bin(byte).count("1") for byte in query) / (8 * len(query)) < 0.6


def test_a_run_is_remade_from_the_seeds(base) -> None:
    """The audit remakes an honest receiver's query from its revealed seed and true
    squares (hashing only); made ahead or not, the bytes are the same."""
    pairs, _, _ = base
    ahead = ot.ReachReceiver(pairs, b"r")
    for part in ahead.parts():
        part()
    assert ahead.query([7, 3, 90]) == ot.receiver_query(
        ot.seed_pairs(RECEIVER_SEED, GAME), b"r", [7, 3, 90])
    assert ot.receiver_query(pairs, b"r", [3, 7, 90]) != ot.receiver_query(pairs, b"r",
                                                                          [7, 3, 90])


def test_malformed_peer_bytes_are_refused_with_a_reason(base) -> None:
    pairs, s, chosen = base
    with pytest.raises(ot.OtError, match="a reach query has 5376 bytes"):
        ot.ReachSender(s, chosen, b"x").reply(b"\0" * 10, {})
    receiver = ot.ReachReceiver(pairs, b"x")
    receiver.query([1])
    with pytest.raises(ot.OtError, match="a reach reply has 1536 bytes"):
        receiver.finish(b"\0" * 3)
    with pytest.raises(ot.OtError, match="a base transfer has 128 queries"):
        ot.base_replies(RECEIVER_SEED, GAME, [b"\0" * 32])
    queries = ot.base_queries(SENDER_SEED, GAME)
    with pytest.raises(ot.OtError, match="base query 3"):
        ot.base_replies(RECEIVER_SEED, GAME, [*queries[:3], b"\xff" * 32, *queries[4:]])
    replies = ot.base_replies(RECEIVER_SEED, GAME, queries)
    with pytest.raises(ot.OtError, match="base reply 0"):
        ot.base_finish(SENDER_SEED, GAME, [secrets.token_bytes(len(replies[0])), *replies[1:]])


def test_a_sender_that_asks_both_seeds_of_a_pair_cannot() -> None:
    """Each base transfer is its own one-element run: a query of two elements (both
    bits of pair 0) is refused, and a query of the other bit gets that seed alone."""
    queries = ot.base_queries(SENDER_SEED, GAME)
    s = ot.choice_bits(SENDER_SEED, GAME)
    with pytest.raises(ot.OtError, match="base query 0"):
        ot.base_replies(RECEIVER_SEED, GAME, [queries[0] * 2, *queries[1:]])
    other = LabelAsker(ot.BASE_SHAPE, bytes(32))
    queries[0] = other.query((1 - (s & 1),)).to_bytes(ot.BASE_SHAPE)
    reply = ot.base_replies(RECEIVER_SEED, GAME, queries)[0]
    found = other.finish(LabelReply.from_bytes(reply, ot.BASE_SHAPE))
    pairs = ot.seed_pairs(RECEIVER_SEED, GAME)
    assert found == {1 - (s & 1): pairs[0][1 - (s & 1)]}


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, (1 << ot.OTS) - 1), min_size=ot.KAPPA, max_size=ot.KAPPA))
def test_the_transposition_gives_each_rows_bits(columns: list[int]) -> None:
    """Row ``j`` holds bit ``j`` of every column, column ``i`` at bit ``i``."""
    data = ot._rows_of(ot._joined_columns(columns, 3), ot.OTS)
    rows = [int.from_bytes(data[16 * r:16 * (r + 1)], "little") for r in range(ot.OTS)]
    assert len(data) == 16 * ot.OTS
    for j in (0, 1, 127, 128, 255, 256, ot.OTS - 1):
        assert rows[j] == sum((columns[i] >> j & 1) << i for i in range(ot.KAPPA))


# ---------------------------------------------------------------- presence (R1.6)


def presence(base, cell: int, held: set[int], run_id: bytes = b"presence 1") -> bool:
    pairs, s, chosen = base
    receiver = ot.PresenceReceiver(pairs, run_id)
    query = receiver.query(cell)
    assert len(query) == ot.PRESENCE_QUERY_SIZE == 256
    reply = ot.PresenceSender(s, chosen, run_id).reply(query, held)
    assert len(reply) == ot.PRESENCE_REPLY_SIZE == 64
    return receiver.finish(reply)


def test_a_presence_transfer_tells_the_bit_of_the_cell_asked_for_every_cell(base) -> None:
    held = set(random.Random(4).sample(range(300), 56))
    assert [presence(base, cell, held, b"run %d" % cell) for cell in range(300)] \
        == [cell in held for cell in range(300)]
    assert not any(presence(base, cell, set()) for cell in (0, 150, 299))
    assert all(presence(base, cell, set(range(300))) for cell in (0, 150, 299))


@given(st.integers(0, 299), st.sets(st.integers(0, 299), max_size=56),
       st.binary(min_size=1, max_size=24))
@settings(max_examples=60, deadline=None)
def test_presence_transfers_are_right_for_any_table_and_run(base, cell: int,
                                                            held: set[int],
                                                            run_id: bytes) -> None:
    assert presence(base, cell, held, run_id) is (cell in held)


def test_the_audit_remakes_an_honest_presence_query_and_refuses_a_probe(base) -> None:
    pairs, _, _ = base
    query = ot.PresenceReceiver(pairs, b"presence 7").query(123)
    assert ot.presence_query(pairs, b"presence 7", 123) == query
    assert ot.presence_query(pairs, b"presence 7", 126) != query  # another cell
    assert ot.presence_query(pairs, b"presence 8", 123) != query  # another run


def test_a_presence_transfer_refuses_what_does_not_fit(base) -> None:
    pairs, s, chosen = base
    receiver = ot.PresenceReceiver(pairs, b"r")
    with pytest.raises(ValueError, match="finish"):
        receiver.finish(bytes(64))
    with pytest.raises(ValueError, match="outside"):
        receiver.query(512)
    query = receiver.query(5)
    with pytest.raises(ValueError, match="one query"):
        receiver.query(6)
    with pytest.raises(ot.OtError, match="64 bytes"):
        receiver.finish(bytes(63))
    sender = ot.PresenceSender(s, chosen, b"r")
    with pytest.raises(ot.OtError, match="256 bytes"):
        sender.reply(query[:-1], {5})
    assert sender.reply(query, {5})
    with pytest.raises(ValueError, match="one reply"):
        sender.reply(query, {5})


# ---------------------------------------------------------------- label tables (a Doze)


def labels(base, values: list[int], tables: list[list[bytes]], run_id: bytes = b"doze 1"
           ) -> tuple[bytes, bytes, list[bytes]]:
    pairs, s, chosen = base
    receiver = ot.LabelReceiver(pairs, run_id)
    query = receiver.query(values)
    reply = ot.LabelSender(s, chosen, run_id).reply(query, tables)
    return query, reply, receiver.finish(reply)


def _tables(rng: random.Random) -> list[list[bytes]]:
    return [[rng.randbytes(ot.LABEL_SIZE) for _ in range(ot.LABEL_ENTRIES)]
            for _ in range(ot.LABEL_TRANSFERS)]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, ot.LABEL_ENTRIES - 1), min_size=ot.LABEL_TRANSFERS,
                max_size=ot.LABEL_TRANSFERS), st.integers(0, 2**32), st.binary(max_size=12))
def test_a_label_transfer_gives_the_entry_of_each_value_asked(base, values, seed,
                                                              run_id) -> None:
    tables = _tables(random.Random(seed))
    query, reply, found = labels(base, values, tables, b"doze " + run_id)
    assert found == [tables[m][v] for m, v in enumerate(values)]
    assert (len(query), len(reply)) == (ot.LABEL_QUERY_SIZE, ot.LABEL_REPLY_SIZE) \
        == (896, 2560)


@pytest.mark.parametrize("rows,bits", [
    (lambda c: ot._narrow_rows(c, ot.DOZE_LABELS.ots),
     ot.LABEL_TRANSFERS * ot.LABEL_BITS),  # 50 bits, 7-byte columns
    (ot._presence_rows, ot.PRESENCE_BITS)])  # 9 bits, 2-byte columns
def test_the_narrow_transfers_rows_are_the_columns_transposed(rows, bits: int) -> None:
    """Row j holds bit j of every column (column i at bit i), as a bit-by-bit reading
    gives it, for the label (a Doze) and the presence transfers."""
    rng = random.Random(3)
    columns = [rng.getrandbits(8 * ((bits + 7) // 8)) for _ in range(ot.KAPPA)]
    assert rows(columns) == [sum((c >> j & 1) << i for i, c in enumerate(columns))
                             for j in range(bits)]


def test_a_hidden_doze_label_transfer_gives_the_entry_of_each_square_and_no_other(
        base) -> None:
    """The hidden Dozer's format (net.doze_judge ``hidden_tables``): five 1-out-of-128
    transfers; the receiver reads the entry of each value it asked, and with its own keys
    any other value of a transfer reads as noise."""
    pairs, s, chosen = base
    form = ot.HIDDEN_DOZE_LABELS
    rng = random.Random(12)
    tables = [[rng.randbytes(form.size) for _ in range(form.entries)]
              for _ in range(form.transfers)]
    values = [99, 0, 45, 100, 127]
    receiver = ot.LabelReceiver(pairs, b"hidden doze 1", form)
    query = receiver.query(values)
    reply = ot.LabelSender(s, chosen, b"hidden doze 1", form).reply(query, tables)
    assert (len(query), len(reply)) == (form.query_size, form.reply_size) == (640, 5120)
    assert receiver.finish(reply) == [tables[m][v] for m, v in enumerate(values)]
    assert query == ot.label_query(pairs, b"hidden doze 1", values, form)
    for other in (1, 37, 64):
        receiver.values = tuple((v + other) % form.entries for v in values)
        got = receiver.finish(reply)
        assert all(got[m] != tables[m][receiver.values[m]] for m in range(form.transfers))
    with pytest.raises(ValueError, match=r"5 values in 0\.\.127"):
        ot.LabelReceiver(pairs, b"x", form).query([128, 0, 0, 0, 0])
    with pytest.raises(ot.OtError, match="640 bytes"):
        ot.LabelSender(s, chosen, b"x", form).reply(query[:-1], tables)


def _hashed(run_key: bytes, row: int, tweak: int) -> int:
    """The fixed-key AES hash of one block: pi(pi(x) ^ i) ^ pi(x)."""
    p = int.from_bytes(ot._pi(run_key, row.to_bytes(16, "little")), "little")
    return int.from_bytes(ot._pi(run_key, (p ^ tweak).to_bytes(16, "little")), "little") ^ p


@pytest.mark.parametrize("form", [ps.INPUT_LABELS, ps.PID_LABELS],
                         ids=["input labels", "identifiers"])
def test_an_aes_label_run_seals_each_entry_under_the_keys_its_bits_pick(base, form) -> None:
    """The private detection's AES-keyed transfers seal and open a whole run at once
    (since session 26); entry x of transfer m must still be the table's entry XOR, over
    the choice bits c, the key bit c of x picks: the hash of the sender's IKNP row j =
    bits * m + c (XOR its choice vector where the bit is 1) under tweaks j * (stream /
    16) up, block by block. The receiver reads the entry of each value it asked."""
    pairs, s, chosen = base
    rng = random.Random(5)
    run_id = b"aes labels"
    values = [rng.randrange(form.entries) for _ in range(form.transfers)]
    tables = [rng.randbytes(form.stream) for _ in range(form.transfers)]
    receiver = ot.LabelReceiver(pairs, run_id, form)
    query = receiver.query(values)
    reply = ot.LabelSender(s, chosen, run_id, form).reply(query, tables)
    run_key = ot._run_key(run_id)
    size = form.column_size  # the sender's IKNP columns, seed by seed
    columns = [int.from_bytes(ot._prf(seed, b"wec-ot lbl prg", run_key, size), "little")
               ^ (int.from_bytes(query[i * size:(i + 1) * size], "little")
                  if s >> i & 1 else 0) for i, seed in enumerate(chosen)]
    rows = ot._wide_rows(columns, form.ots)
    per_key, size = form.stream // 16, form.size

    def key(j: int, row: int) -> bytes:
        return b"".join(_hashed(run_key, row, j * per_key + t).to_bytes(16, "little")
                        for t in range(per_key))

    for m in range(form.transfers):
        keys = [(key(j, rows[j]), key(j, rows[j] ^ s))
                for j in range(form.bits * m, form.bits * (m + 1))]
        for x in range(form.entries):
            entry = int.from_bytes(tables[m][size * x:size * (x + 1)], "little")
            for c, pair in enumerate(keys):
                entry ^= int.from_bytes(pair[x >> c & 1][size * x:size * (x + 1)], "little")
            at = form.stream * m + size * x
            assert reply[at:at + size] == entry.to_bytes(size, "little")
    assert receiver.finish(reply) == [t[size * v:size * (v + 1)]
                                      for t, v in zip(tables, values, strict=True)]


def test_a_label_transfer_opens_no_other_entry(base) -> None:
    """With the receiver's own keys, every entry but the one asked reads as noise: none of
    the 31 others of any transfer comes out as the table's entry."""
    pairs, s, chosen = base
    rng = random.Random(7)
    tables = _tables(rng)
    values = [rng.randrange(ot.LABEL_ENTRIES) for _ in range(ot.LABEL_TRANSFERS)]
    receiver = ot.LabelReceiver(pairs, b"doze 2")
    reply = ot.LabelSender(s, chosen, b"doze 2").reply(receiver.query(values), tables)
    for other in range(1, ot.LABEL_ENTRIES):
        # the same keys read at another value of every transfer
        receiver.values = tuple((v + other) % ot.LABEL_ENTRIES for v in values)
        got = receiver.finish(reply)
        assert all(got[m] != tables[m][receiver.values[m]]
                   for m in range(ot.LABEL_TRANSFERS))


def test_the_audit_remakes_an_honest_label_query_and_refuses_another(base) -> None:
    pairs, s, chosen = base
    values = [1, 2, 3, 4, 5, 6, 7, 8, 9, 16]
    query = ot.LabelReceiver(pairs, b"doze 3").query(values)
    assert ot.label_query(pairs, b"doze 3", values) == query
    assert ot.label_query(pairs, b"doze 3", [*values[:-1], 15]) != query  # another count
    assert ot.label_query(pairs, b"doze 4", values) != query  # another run
    receiver = ot.LabelReceiver(pairs, b"r")
    with pytest.raises(ValueError, match="finish"):
        receiver.finish(bytes(ot.LABEL_REPLY_SIZE))
    with pytest.raises(ValueError, match="10 values"):
        receiver.query([0] * 9)
    with pytest.raises(ValueError, match="10 values"):
        receiver.query([32] + [0] * 9)
    query = receiver.query([0] * 10)
    with pytest.raises(ot.OtError, match="2560 bytes"):
        receiver.finish(bytes(2559))
    sender = ot.LabelSender(s, chosen, b"r")
    with pytest.raises(ot.OtError, match="896 bytes"):
        sender.reply(query[:-1], _tables(random.Random(1)))
    with pytest.raises(ValueError, match="tables"):
        sender.reply(query, _tables(random.Random(1))[:9])


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 40), st.integers(1, 9), st.data())
def test_blocks_repeated_and_gathered_are_the_slices_they_stand_for(
        blocks: int, times: int, data: st.DataObject) -> None:
    """The strided copies of 8-byte words that the label runs' keys and rows are made
    with give exactly the slices they replace: each block ``times`` times in a row, and
    every ``every``-th piece from ``first`` on."""
    raw = data.draw(st.binary(min_size=16 * blocks, max_size=16 * blocks))
    assert ot._blocks_repeated(raw, times) == b"".join(
        raw[16 * b:16 * (b + 1)] * times for b in range(blocks))
    size = 8 * data.draw(st.integers(1, 4))
    pieces = len(raw) // size
    if pieces:
        every = data.draw(st.integers(1, pieces))
        first = data.draw(st.integers(0, every - 1))
        count = (pieces - first + every - 1) // every
        assert ot._blocks_gathered(raw, size, first, every, count) == b"".join(
            raw[size * (first + every * m):size * (first + every * m + 1)]
            for m in range(count))


def test_square_blocks_hold_each_columns_bits_in_turn() -> None:
    """Block ``k`` of the columns cut for transposition: every column's bits ``128 k``
    up, column ``i`` as its row ``i``."""
    rng = random.Random(4)
    for blocks in (1, 2, 3):
        columns = [rng.getrandbits(128 * blocks) for _ in range(ot.KAPPA)]
        cut = ot._square_blocks(columns, blocks)
        assert cut == [b"".join((c >> 128 * k & (1 << 128) - 1).to_bytes(16, "little")
                                for c in columns) for k in range(blocks)]


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 48), st.integers(1, 3), st.data())
def test_the_columns_masked_in_one_go_are_the_columns_masked_one_by_one(
        size: int, blocks: int, data: st.DataObject) -> None:
    """A sender's IKNP columns taken with the query's by three integer operations for
    the whole run (``_masked_joined``) lie exactly as the columns masked one by one and
    joined for the transposition."""
    if size > blocks * 16:
        size = blocks * 16
    rng = random.Random(data.draw(st.integers(0, 2 ** 32)))
    prg = [rng.getrandbits(8 * size) for _ in range(ot.KAPPA)]
    s = rng.getrandbits(ot.KAPPA)
    query = rng.randbytes(ot.KAPPA * size)
    one_by_one = ot._joined_columns(ot._masked_columns(prg, s, query, size), blocks)
    joined = int.from_bytes(ot._joined_columns(prg, blocks), "little")
    assert ot._masked_joined(joined, s, query, size, blocks) == one_by_one


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 48), st.data())
def test_a_receivers_query_made_whole_is_each_columns_pair_and_choice(
        size: int, data: st.DataObject) -> None:
    """The receiver's query made from its columns laid end to end, in a few integer
    operations (``_receiver_query``), is column by column ``G(k0_i) ^ G(k1_i) ^ b``, each
    column the seed's PRG output (``_prg_columns``)."""
    rng = random.Random(data.draw(st.integers(0, 2 ** 32)))
    pairs = [(rng.randbytes(16), rng.randbytes(16)) for _ in range(ot.KAPPA)]
    run_key = rng.randbytes(32)
    choice = rng.getrandbits(8 * size)
    k0s, k1s = [k0 for k0, _ in pairs], [k1 for _, k1 in pairs]
    t0 = ot._prg_digests(k0s, b"person", run_key, size)
    t1 = ot._prg_digests(k1s, b"person", run_key, size)
    c0, c1 = ot._prg_columns(k0s, b"person", run_key, size), ot._prg_columns(
        k1s, b"person", run_key, size)
    assert ot._columns_of(t0, size) == c0
    assert ot._receiver_query(ot._tv_of(t0, t1), choice, size) == b"".join(
        (a ^ b ^ choice).to_bytes(size, "little") for a, b in zip(c0, c1, strict=True))
