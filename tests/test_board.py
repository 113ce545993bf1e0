"""Board geometry (R1): coordinates, colours of squares, distance, cells."""

from __future__ import annotations

import pytest

from wec.engine import board
from wec.engine.board import AIR, GROUND, SUB


def test_r1_2_squares_and_cells_round_trip():
    assert board.square(1, 1) == 0 and board.square(10, 10) == 99
    for row in range(1, 11):
        for col in range(1, 11):
            sq = board.square(row, col)
            assert (board.row_of(sq), board.col_of(sq)) == (row, col)
            for level in (AIR, GROUND, SUB):
                c = board.cell(sq, level)
                assert (board.cell_square(c), board.cell_level(c)) == (sq, level)
    assert board.describe_cell(board.cell_at(4, 3, GROUND)) == "(4,3) ground"


@pytest.mark.parametrize(("a", "b", "expected"), [
    ((1, 1), (1, 1), 0), ((1, 1), (2, 2), 1), ((1, 1), (10, 10), 9), ((3, 4), (6, 6), 3),
    ((5, 5), (2, 4), 3), ((10, 1), (1, 10), 9), ((6, 6), (2, 4), 4),
])
def test_r1_9_distance_is_chebyshev(a, b, expected):
    assert board.distance(board.square(*a), board.square(*b)) == expected
    assert board.distance(board.square(*b), board.square(*a)) == expected


def test_r1_10_eight_directions():
    assert len(set(board.DIRECTIONS)) == 8 and (0, 0) not in board.DIRECTIONS
    assert all(max(abs(dr), abs(dc)) == 1 for dr, dc in board.DIRECTIONS)


def test_level_names_parse_and_refuse():
    assert board.Level.parse("Air") is AIR and board.Level.parse("sub") is SUB
    with pytest.raises(ValueError, match="unknown level 'water'"):
        board.Level.parse("water")


def test_r1_6_has_one_implementation():
    """R1.6(a, c): at most 2 pieces of one side at a level, 2 only with a coexisting one;
    every check of capacity and coexistence in the engine calls ``may_share``."""
    import re
    from pathlib import Path

    from wec.engine.pieces import may_share

    assert [may_share(n, c) for n in (0, 1, 2, 3) for c in (False, True)] == [
        True, True, True, True, False, True, False, False]
    root = Path(__file__).resolve().parents[1] / "engine"
    recoded = [f"{path.name}:{n}" for path in sorted(root.glob("*.py"))
               for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
               if re.search(r"len\(\w+\) (>=|==) 2 and not any\(|len\(here\) >= 2", line)]
    assert recoded == []


def test_r12_2_has_one_implementation():
    """R12.2: every game-end test (after a Move's captures, after any action or step)
    goes through engine.ending.game_end."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "engine"
    reasons = [path.name for path in sorted(root.glob("*.py"))
               if 'f"R12.1: {' in path.read_text(encoding="utf-8")]
    assert reasons == ["ending.py"]
