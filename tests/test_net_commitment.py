"""net.commitment: salted per-cell Merkle commitments, openings and signed roots
(issue 21 building block): correctness, constant sizes, tampering detected, the audit."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wec.engine.board import CELLS as ENGINE_CELLS
from wec.net.commitment import (
    CELLS,
    DEPTH,
    MAX_CONTENTS,
    SIGNED_COMMITMENT_SIZE,
    Commitment,
    CommitmentError,
    Opening,
    SignedCommitment,
    audit_commitments,
    check_opening,
    commitment_root,
    leaf_hash,
    merkle_root,
    new_seed,
    opening_size,
    salt_for,
)
from wec.net.identity import Identity

SEED = bytes(range(32))
GAME = bytes(16)
WHITE = Identity.generate()
BLACK = Identity.generate()

contents_maps = st.dictionaries(st.integers(0, CELLS - 1), st.binary(max_size=MAX_CONTENTS),
                                max_size=40)


def flip(data: bytes, at: int = 0) -> bytes:
    return data[:at] + bytes([data[at] ^ 1]) + data[at + 1:]


def test_cells_match_the_engine() -> None:
    assert CELLS == ENGINE_CELLS == 300
    assert 2 ** DEPTH >= CELLS > 2 ** (DEPTH - 1)


@settings(max_examples=40, deadline=None)
@given(contents=contents_maps, turn=st.integers(0, 2 ** 64 - 1), cell=st.integers(0, CELLS - 1))
def test_every_opening_verifies_and_round_trips(contents: dict[int, bytes], turn: int,
                                                cell: int) -> None:
    commitment = Commitment.build(SEED, turn, contents)
    opening = commitment.open(cell)
    assert opening.contents == contents.get(cell, b"")
    assert opening.salt == salt_for(SEED, turn, cell)
    assert opening.verify(commitment.root)
    data = opening.to_bytes()
    assert len(data) == opening_size() == 452
    assert Opening.from_bytes(data) == opening
    assert commitment.root == commitment_root(SEED, turn, contents)
    leaves = [leaf_hash(salt_for(SEED, turn, c), c, contents.get(c, b"")) for c in range(CELLS)]
    assert merkle_root(leaves) == commitment.root


@settings(max_examples=60, deadline=None)
@given(before=contents_maps, after=contents_maps, turn=st.integers(0, 2 ** 64 - 1),
       cell=st.integers(0, CELLS - 1))
def test_a_commitment_made_ahead_gives_the_same_tree(before: dict[int, bytes],
                                                     after: dict[int, bytes], turn: int,
                                                     cell: int) -> None:
    """A commitment built from one made ahead on other contents (FogGame's idle work) is
    the one built from scratch: the same root, leaves, salts and openings."""
    ahead = Commitment.build(SEED, turn, before)
    made = Commitment.build(SEED, turn, after, ahead=ahead)
    assert made == Commitment.build(SEED, turn, after)
    assert made.open(cell) == Commitment.build(SEED, turn, after).open(cell)
    assert Commitment.build(SEED, turn, before, ahead=ahead) is ahead  # nothing changed


@settings(max_examples=30, deadline=None)
@given(contents=contents_maps, turn=st.integers(0, 2 ** 64 - 1))
def test_a_commitment_built_in_steps_is_the_salted_tree_of_its_cells(contents: dict[int, bytes],
                                                                     turn: int) -> None:
    """``build_steps`` (idle work's slices: the salts, the leaves, the tree) ends with the
    commitment whose root is the Merkle root of every cell's salted leaf, computed here
    from the module's definitions, after two steps that give nothing."""
    steps = list(Commitment.build_steps(SEED, turn, contents))
    assert steps[:2] == [None, None] and len(steps) == 3
    made = steps[2]
    assert made is not None
    leaves = [leaf_hash(salt_for(SEED, turn, c), c, contents.get(c, b"")) for c in range(CELLS)]
    assert made.root == merkle_root(leaves) == commitment_root(SEED, turn, contents)
    assert made.salts == tuple(salt_for(SEED, turn, c) for c in range(CELLS))


def test_a_commitment_made_ahead_for_another_turn_or_seed_is_not_used() -> None:
    """An ``ahead`` of another turn or another seed would commit with the wrong salts:
    it is ignored, and the tree is the one built from scratch."""
    contents = {12: b"sub", 40: b"stealth"}
    for ahead in (Commitment.build(SEED, 4, contents), Commitment.build(bytes(32), 5, contents)):
        made = Commitment.build(SEED, 5, contents, ahead=ahead)
        assert made is not ahead
        assert made.root == commitment_root(SEED, 5, contents) != ahead.root


def test_all_cells_open_and_no_opening_fits_another_cell_or_turn() -> None:
    contents = {0: b"tank", 17: b"sub", 299: b"jet"}
    commitment = Commitment.build(SEED, 5, contents)
    other_turn = Commitment.build(SEED, 6, contents)
    assert commitment.root != other_turn.root  # fresh salts every turn
    for cell in range(CELLS):
        opening = commitment.open(cell)
        assert opening.verify(commitment.root)
        assert not opening.verify(other_turn.root)
        moved = dataclasses.replace(opening, cell=(cell + 1) % CELLS)
        assert not moved.verify(commitment.root)


def test_tampering_is_detected() -> None:
    commitment = Commitment.build(SEED, 3, {42: b"stealth pawn"})
    opening = commitment.open(42)
    root = commitment.root
    assert not dataclasses.replace(opening, contents=b"").verify(root)  # the leaf
    assert not dataclasses.replace(opening, contents=b"stealth pawm").verify(root)
    assert not dataclasses.replace(opening, salt=flip(opening.salt)).verify(root)
    for k in range(DEPTH):  # every path element
        path = list(opening.path)
        path[k] = flip(path[k], 31)
        assert not dataclasses.replace(opening, path=tuple(path)).verify(root)
    assert not opening.verify(flip(root, 7))  # the root
    assert not dataclasses.replace(opening, path=opening.path[:-1]).verify(root)
    # an empty cell's opening does not prove another content
    empty = commitment.open(43)
    assert empty.contents == b"" and empty.verify(root)
    assert not dataclasses.replace(empty, contents=b"x").verify(root)


def test_salts_differ_and_hide_equal_contents() -> None:
    commitment = Commitment.build(SEED, 1, {})
    assert len(set(commitment.salts)) == CELLS
    leaves = commitment.levels[0]
    assert len(set(leaves)) == CELLS  # 300 empty cells, 300 unrelated leaves
    assert Commitment.build(new_seed(), 1, {}).root != commitment.root


def test_signed_commitment_round_trip_and_tampering() -> None:
    root = commitment_root(SEED, 9, {1: b"x"})
    signed = SignedCommitment.sign(BLACK, GAME, 9, "black", root)
    data = signed.to_bytes()
    assert len(data) == SIGNED_COMMITMENT_SIZE == 121
    assert SignedCommitment.from_bytes(data) == signed
    assert signed.verify(BLACK.public_key)
    assert not signed.verify(WHITE.public_key)
    for changed in (dataclasses.replace(signed, turn=10),
                    dataclasses.replace(signed, side="white"),
                    dataclasses.replace(signed, game_id=flip(GAME)),
                    dataclasses.replace(signed, root=flip(root)),
                    dataclasses.replace(signed, signature=flip(signed.signature, 5)),
                    dataclasses.replace(signed, signature=b"short")):
        assert not changed.verify(BLACK.public_key)
    for index in range(len(data)):  # any flipped bit of the wire form breaks it
        try:
            decoded = SignedCommitment.from_bytes(flip(data, index))
        except CommitmentError:
            continue
        assert not decoded.verify(BLACK.public_key)


def test_check_opening_names_the_problem() -> None:
    commitment = Commitment.build(SEED, 4, {7: b"aaa"})
    signed = SignedCommitment.sign(WHITE, GAME, 4, "white", commitment.root)
    opening = commitment.open(7)
    assert check_opening(signed, opening, WHITE.public_key, 7) is None
    assert "not signed" in (check_opening(signed, opening, BLACK.public_key, 7) or "")
    assert "not of cell 8" in (check_opening(signed, opening, WHITE.public_key, 8) or "")
    forged = dataclasses.replace(opening, contents=b"")
    assert "does not match" in (check_opening(signed, forged, WHITE.public_key, 7) or "")


def test_malformed_openings_are_refused() -> None:
    data = Commitment.build(SEED, 1, {5: b"abc"}).open(5).to_bytes()
    with pytest.raises(CommitmentError, match="452 bytes"):
        Opening.from_bytes(data[:-1])
    with pytest.raises(CommitmentError, match="cell"):
        Opening.from_bytes(b"\xff\xff" + data[2:])
    with pytest.raises(CommitmentError, match="claim"):
        Opening.from_bytes(data[:34] + b"\x00\xff" + data[36:])
    with pytest.raises(CommitmentError, match="padding"):
        Opening.from_bytes(data[:36 + 10] + b"\x01" + data[36 + 11:])
    with pytest.raises(CommitmentError, match="121 bytes"):
        SignedCommitment.from_bytes(bytes(120))
    with pytest.raises(ValueError, match="at most"):
        Commitment.build(SEED, 1, {5: bytes(MAX_CONTENTS + 1)})
    with pytest.raises(ValueError, match="not on the board"):
        Commitment.build(SEED, 1, {CELLS: b""})


def test_audit_finds_the_first_bad_commitment() -> None:
    positions = [{c: b"p%d" % t for c in range(t, t + 3)} for t in range(6)]
    signed = [SignedCommitment.sign(WHITE, GAME, t, "white", commitment_root(SEED, t, p))
              for t, p in enumerate(positions)]
    assert audit_commitments(SEED, GAME, "white", WHITE.public_key, signed, positions) is None
    # a piece changed between commitments: turn 3's root was of another position
    lying = list(signed)
    lying[3] = SignedCommitment.sign(WHITE, GAME, 3, "white",
                                     commitment_root(SEED, 3, {0: b"elsewhere"}))
    report = audit_commitments(SEED, GAME, "white", WHITE.public_key, lying, positions)
    assert report is not None and report.startswith("turn 3:") and "does not match" in report
    # a wrong seed revealed
    report = audit_commitments(new_seed(), GAME, "white", WHITE.public_key, signed, positions)
    assert report is not None and report.startswith("turn 0:")
    forged = list(signed)
    forged[2] = dataclasses.replace(signed[2], signature=flip(signed[2].signature))
    assert audit_commitments(SEED, GAME, "white", WHITE.public_key, forged, positions) == \
        "turn 2: the white commitment: the signature by White does not verify"
    assert "3 replayed" in (audit_commitments(SEED, GAME, "white", WHITE.public_key, signed,
                                              positions[:3]) or "")
