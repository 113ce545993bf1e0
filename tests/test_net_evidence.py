"""net.evidence: signed, cross-linked chains of game messages (issue 21 building block).

Both sides record the same exchange; a third party with only the two public keys
verifies it; every kind of tampering (a changed message or signature, a reordered,
dropped, duplicated or inserted entry, a forged acknowledgement, another game's entry)
is reported as the first failing entry."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import msgpack  # type: ignore[import-untyped]
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wec.net.evidence import (
    SIGNED_ENTRY_SIZE,
    Entry,
    EvidenceError,
    EvidenceLog,
    EvidenceRecord,
    verify_record,
)
from wec.net.identity import Identity

GAME = bytes(range(16))
WHITE = Identity.generate()
BLACK = Identity.generate()


def exchange(schedule: list[str]) -> tuple[EvidenceLog, EvidenceLog]:
    """Play a schedule: "w" White sends and Black receives it, "b" the reverse, "x" both
    send at the same time (each before reading the other's message)."""
    white = EvidenceLog(GAME, "white", WHITE, BLACK.public_key)
    black = EvidenceLog(GAME, "black", BLACK, WHITE.public_key)
    for n, step in enumerate(schedule):
        if step == "w":
            message = b"white %d" % n
            black.accept(white.seal(message), message)
        elif step == "b":
            message = b"black %d" % n
            white.accept(black.seal(message), message)
        else:  # crossing messages
            mw, mb = b"white %d" % n, b"black %d" % n
            ew, eb = white.seal(mw), black.seal(mb)
            black.accept(ew, mw)
            white.accept(eb, mb)
    return white, black


def verify(record: EvidenceRecord) -> str | None:
    return verify_record(record, WHITE.public_key, BLACK.public_key).failure


def with_entries(record: EvidenceRecord, entries: list[tuple[Entry, bytes]]) -> EvidenceRecord:
    return dataclasses.replace(record, entries=tuple(entries))


@settings(max_examples=30, deadline=None)
@given(schedule=st.lists(st.sampled_from("wbx"), min_size=1, max_size=20))
def test_both_records_verify_for_any_interleaving(schedule: list[str]) -> None:
    white, black = exchange(schedule)
    for log in (white, black):
        record = log.record()
        verdict = verify_record(record, WHITE.public_key, BLACK.public_key)
        assert verdict.ok and verdict.entries == len(schedule) + schedule.count("x")
        assert EvidenceRecord.from_bytes(record.to_bytes()) == record
    # both sides recorded the same entries, each chain in the same order
    for side in ("white", "black"):
        assert [e for e, _ in white.record().entries if e.sender == side] == \
            [e for e, _ in black.record().entries if e.sender == side]


def test_entry_wire_form_is_fixed_size() -> None:
    white, _ = exchange(["w", "b", "w"])
    for entry, _ in white.record().entries:
        data = entry.to_bytes()
        assert len(data) == SIGNED_ENTRY_SIZE == 193
        assert Entry.from_bytes(data) == entry
    with pytest.raises(EvidenceError, match="193 bytes"):
        Entry.from_bytes(bytes(192))


def test_export_import_as_a_file(tmp_path: Path) -> None:
    white, _ = exchange(list("wbxwbbw"))
    path = tmp_path / "game.wec-evidence"
    white.record().save(path)
    loaded = EvidenceRecord.load(path)
    assert loaded == white.record()
    assert verify(loaded) is None


def test_a_bad_signature_is_named_with_its_entry() -> None:
    record = exchange(list("wbwbwb"))[0].record()
    entries = list(record.entries)
    entry, message = entries[3]
    assert entry.sender == "black"
    entries[3] = (dataclasses.replace(entry, signature=bytes(64)), message)
    assert verify(with_entries(record, entries)) == "entry 3: signature by Black does not verify"
    # the right keys matter: the roles swapped, the first entry already fails
    assert verify_record(record, BLACK.public_key, WHITE.public_key).failure == \
        "entry 0: signature by White does not verify"


def test_a_changed_message_is_detected() -> None:
    record = exchange(list("wbwb"))[1].record()
    entries = list(record.entries)
    entries[2] = (entries[2][0], b"white 2, or so it says")
    assert verify(with_entries(record, entries)) == \
        "entry 2: White's message 1 is not the one its entry signs"


def test_dropped_reordered_duplicated_entries_are_detected() -> None:
    record = exchange(list("wwbwwb"))[0].record()
    entries = list(record.entries)
    dropped = entries[:1] + entries[2:]
    assert verify(with_entries(record, dropped)) == (
        "entry 1: Black's entry 0 acknowledges 2 entries of White, of which only 1 came "
        "before it")
    dropped_last_white = entries[:3] + entries[4:]
    assert "entry number 3 where number 2 was due (dropped or reordered)" in (
        verify(with_entries(record, dropped_last_white)) or "")
    swapped = [entries[1], entries[0], *entries[2:]]
    assert verify(with_entries(record, swapped)) == \
        "entry 0: White's entry number 1 where number 0 was due (dropped or reordered)"
    duplicated = [*entries[:2], entries[1], *entries[2:]]
    assert "repeated or reordered" in (verify(with_entries(record, duplicated)) or "")
    assert verify(with_entries(record, entries[:-1])) is None  # a prefix is a valid record


def test_a_resigned_entry_with_a_wrong_link_is_detected() -> None:
    """Even the key holder cannot rewrite its own history without breaking the links:
    a re-signed entry that skips its previous one, or acknowledges a peer entry that
    was never recorded."""
    white, _ = exchange(list("wbw"))
    record = white.record()
    entries = list(record.entries)
    entry, message = entries[2]
    relinked = dataclasses.replace(entry, previous=bytes(32))
    relinked = dataclasses.replace(relinked, signature=WHITE.sign(relinked.signed_bytes()))
    assert verify(with_entries(record, [*entries[:2], (relinked, message)])) == \
        "entry 2: White's entry 1 does not link to White's previous entry"
    forged_ack = dataclasses.replace(entry, peer_last=bytes(32))
    forged_ack = dataclasses.replace(forged_ack,
                                     signature=WHITE.sign(forged_ack.signed_bytes()))
    assert verify(with_entries(record, [*entries[:2], (forged_ack, message)])) == \
        "entry 2: White's entry 1 acknowledges another Black entry 0 than the recorded one"


def test_an_entry_from_another_game_is_detected() -> None:
    other = EvidenceLog(bytes(16), "white", WHITE, BLACK.public_key)
    entry = other.seal(b"hello")
    record = EvidenceRecord(GAME, {"white": WHITE.public_key, "black": BLACK.public_key},
                            ((entry, b"hello"),))
    assert verify(record) == "entry 0: entry by White is for another game"


def test_accept_refuses_and_records_nothing() -> None:
    white = EvidenceLog(GAME, "white", WHITE, BLACK.public_key)
    black = EvidenceLog(GAME, "black", BLACK, WHITE.public_key)
    first = white.seal(b"one")
    second = white.seal(b"two")
    with pytest.raises(EvidenceError, match="number 1 where number 0"):
        black.accept(second, b"two")
    with pytest.raises(EvidenceError, match="not the one its entry signs"):
        black.accept(first, b"ONE")
    with pytest.raises(EvidenceError, match="names sender white"):
        white.accept(first, b"one")
    forged = EvidenceLog(GAME, "white", Identity.generate(), BLACK.public_key).seal(b"one")
    with pytest.raises(EvidenceError, match="signature by White"):
        black.accept(forged, b"one")
    assert black.record().entries == ()
    black.accept(first, b"one")
    black.accept(second, b"two")
    assert verify(black.record()) is None


def test_a_signature_checked_later_is_checked_in_order_and_a_bad_one_named() -> None:
    """``signature_later``: the chain is checked at once, the signature when asked; a
    bad one is named by its entry and stays unchecked (named again), the good ones
    before it are done."""
    white = EvidenceLog(GAME, "white", WHITE, BLACK.public_key)
    black = EvidenceLog(GAME, "black", BLACK, WHITE.public_key)
    for body in (b"one", b"two"):
        black.accept(white.seal(body), body, signature_later=True)
    black.seal(b"three")
    forged_key = EvidenceLog(GAME, "white", Identity.generate(), BLACK.public_key)
    forged_key._chains = white._chains  # the right place in the chain, the wrong key
    forged = forged_key.seal(b"four")
    black.accept(forged, b"four", signature_later=True)
    with pytest.raises(EvidenceError, match="number 2 where number 3"):
        black.accept(forged, b"four", signature_later=True)  # the chain still checked now
    assert (len(black), black.unchecked) == (4, 3)
    black.check_signatures(limit=1)
    assert black.unchecked == 2
    for _ in range(2):
        with pytest.raises(EvidenceError, match="entry 3: signature by White does not "
                                                "verify"):
            black.check_signatures()
        assert black.unchecked == 1
    assert verify(black.record()) == "entry 3: signature by White does not verify"


def test_resume_continues_a_saved_record() -> None:
    white, black = exchange(list("wb"))
    resumed = EvidenceLog.resume(white.record(), "white", WHITE)
    message = b"after restart"
    black.accept(resumed.seal(message), message)
    assert verify(resumed.record()) is None and verify(black.record()) is None
    with pytest.raises(ValueError, match="not this identity"):
        EvidenceLog.resume(white.record(), "white", BLACK)


def test_malformed_files_are_refused() -> None:
    with pytest.raises(EvidenceError, match=r"not an evidence record|not a wec-evidence"):
        EvidenceRecord.from_bytes(b"\xc1")
    with pytest.raises(EvidenceError, match="wec-evidence/1"):
        EvidenceRecord.from_bytes(b"\x80")
    white, _ = exchange(["w"])
    raw = msgpack.unpackb(white.record().to_bytes())
    raw["entries"][0][0] = raw["entries"][0][0][:-1]
    with pytest.raises(EvidenceError, match="entry 0: an evidence entry has 193 bytes"):
        EvidenceRecord.from_bytes(msgpack.packb(raw, use_bin_type=True))
    raw["entries"][0] = "text"
    with pytest.raises(EvidenceError, match="entry 0: not an"):
        EvidenceRecord.from_bytes(msgpack.packb(raw, use_bin_type=True))
