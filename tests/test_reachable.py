"""Reachable-set golden tables (R5.3-R5.5) and an independent model of the rules.

Three layers:

1. The golden files tests/golden/reachable/*.json (regenerate with
   ``.venv/bin/python tests/golden/make_reachable.py``) must equal what the engine
   computes now: this proves stability.
2. Every golden entry must equal what ``rules_model`` below derives from the offset
   tables of RULES.md (R5.3.1-R5.3.8, R5.4, R5.5) with the orientation rule R1.3 and
   the on-board path rule D-15. The model is written from the rules text, not from
   engine.routes: this proves correctness.
3. A list of hand-computed absolute destination sets (worked out on paper from the
   tables) pins a few well-known squares, and the literal tables are checked against
   the summary destination sets that RULES.md states beside them.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType

import pytest

Offset = tuple[int, int]
Cell = tuple[int, int, str]


def _load_generator() -> ModuleType:
    path = Path(__file__).resolve().parent / "golden" / "make_reachable.py"
    spec = importlib.util.spec_from_file_location("make_reachable", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["make_reachable"] = module
    spec.loader.exec_module(module)
    return module


gen = _load_generator()

# ---------------------------------------------------------------- RULES.md tables, literally

# R5.3.5 WEC Tank, squares 1..8 of the forward, right, back and left paths.
WEC_TANK: dict[str, tuple[tuple[Offset, ...], ...]] = {
    "right": (
        ((1, 0), (2, 0), (3, 0), (4, 0), (5, 1), (6, 2), (7, 3), (8, 4)),
        ((0, 1), (0, 2), (0, 3), (0, 4), (-1, 5), (-2, 6), (-3, 7), (-4, 8)),
        ((-1, 0), (-2, 0), (-3, 0), (-4, 0), (-5, -1), (-6, -2), (-7, -3), (-8, -4)),
        ((0, -1), (0, -2), (0, -3), (0, -4), (1, -5), (2, -6), (3, -7), (4, -8)),
    ),
    "left": (  # as spelt out in the prose under the table
        ((1, 0), (2, 0), (3, 0), (4, 0), (5, -1), (6, -2), (7, -3), (8, -4)),
        ((0, 1), (0, 2), (0, 3), (0, 4), (1, 5), (2, 6), (3, 7), (4, 8)),
        ((-1, 0), (-2, 0), (-3, 0), (-4, 0), (-5, 1), (-6, 2), (-7, 3), (-8, 4)),
        ((0, -1), (0, -2), (0, -3), (0, -4), (-1, -5), (-2, -6), (-3, -7), (-4, -8)),
    ),
}

# R5.3.6 WEC Cleric, squares 1..8.
WEC_CLERIC: dict[str, tuple[tuple[Offset, ...], ...]] = {
    "left": (
        ((1, 1), (2, 2), (3, 3), (4, 4), (5, 5), (6, 4), (7, 3), (8, 4)),
        ((-1, 1), (-2, 2), (-3, 3), (-4, 4), (-5, 5), (-4, 6), (-3, 7), (-4, 8)),
        ((-1, -1), (-2, -2), (-3, -3), (-4, -4), (-5, -5), (-6, -4), (-7, -3), (-8, -4)),
        ((1, -1), (2, -2), (3, -3), (4, -4), (5, -5), (4, -6), (3, -7), (4, -8)),
    ),
    "right": (  # as spelt out in the prose under the table
        ((1, -1), (2, -2), (3, -3), (4, -4), (5, -5), (6, -4), (7, -3), (8, -4)),
        ((1, 1), (2, 2), (3, 3), (4, 4), (5, 5), (4, 6), (3, 7), (4, 8)),
        ((-1, 1), (-2, 2), (-3, 3), (-4, 4), (-5, 5), (-6, 4), (-7, 3), (-8, 4)),
        ((-1, -1), (-2, -2), (-3, -3), (-4, -4), (-5, -5), (-4, -6), (-3, -7), (-4, -8)),
    ),
}

# R5.3.7 WEC Chopper destinations.
WEC_CHOPPER: dict[str, tuple[Offset, ...]] = {
    "right": ((2, -2), (2, 1), (2, 2), (1, -2), (-1, 2), (-2, -2), (-2, -1), (-2, 2)),
    "left": ((2, -2), (2, -1), (2, 2), (1, 2), (-1, -2), (-2, -2), (-2, 1), (-2, 2)),
}

# R5.5.2 MDC Tank, right-handed; left = mirror (negate r).
MDC_TANK_RIGHT: tuple[tuple[Offset, ...], ...] = (
    ((1, 1), (2, 0), (3, -1), (4, 0), (5, 1), (6, 0), (7, -1), (8, 0)),
    ((-1, 1), (0, 2), (1, 3), (0, 4), (-1, 5), (0, 6), (1, 7), (0, 8)),
    ((-1, -1), (-2, 0), (-3, 1), (-4, 0), (-5, -1), (-6, 0), (-7, 1), (-8, 0)),
    ((1, -1), (0, -2), (-1, -3), (0, -4), (1, -5), (0, -6), (-1, -7), (0, -8)),
)

# R5.5.3 MDC Cleric, left-handed; right = mirror (negate r).
MDC_CLERIC_LEFT: tuple[tuple[Offset, ...], ...] = (
    ((1, -1), (2, 0), (3, 1), (3, 2), (3, 3), (2, 4), (1, 5), (0, 6)),
    ((1, 1), (0, 2), (-1, 3), (-2, 3), (-3, 3), (-4, 2), (-5, 1), (-6, 0)),
    ((-1, 1), (-2, 0), (-3, -1), (-3, -2), (-3, -3), (-2, -4), (-1, -5), (0, -6)),
    ((-1, -1), (0, -2), (1, -3), (2, -3), (3, -3), (4, -2), (5, -1), (6, 0)),
)

# R5.5.4 MDC Chopper destinations.
MDC_CHOPPER: dict[str, tuple[Offset, ...]] = {
    "right": ((3, 1), (2, -2), (2, 2), (1, -3), (-1, 3), (-2, -2), (-2, 2), (-3, -1)),
    "left": ((3, -1), (2, -2), (2, 2), (1, 3), (-1, -3), (-2, -2), (-2, 2), (-3, 1)),
}

# R5.5.1 MDC Pawn variants (every square is both move and attack).
MDC_PAWN: dict[str, tuple[Offset, ...]] = {
    "all_sides_and_forward": ((1, -1), (1, 0), (1, 1), (0, -1), (0, 1)),
    "all_forward": ((1, -1), (1, 0), (1, 1)),
    "all_but_directly_in_front": ((1, -1), (1, 1), (0, -1), (0, 1)),
}

# R5.4.4 Standard Chess Chopper (both hands): the knight.
CHESS_CHOPPER: tuple[Offset, ...] = ((1, 2), (1, -2), (-1, 2), (-1, -2),
                                     (2, 1), (2, -1), (-2, 1), (-2, -1))

KING_STEPS: tuple[Offset, ...] = ((1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1),
                                  (1, -1))
ORTHOGONAL: tuple[Offset, ...] = ((1, 0), (0, 1), (-1, 0), (0, -1))
DIAGONAL: tuple[Offset, ...] = ((1, 1), (-1, 1), (-1, -1), (1, -1))


def mirror(path: tuple[Offset, ...]) -> tuple[Offset, ...]:
    return tuple((f, -r) for f, r in path)


def line(direction: Offset, n: int) -> tuple[Offset, ...]:
    return tuple((direction[0] * i, direction[1] * i) for i in range(1, n + 1))


# ---------------------------------------------------------------- the independent model

def land(side: str, origin: tuple[int, int], off: Offset) -> tuple[int, int] | None:
    """R1.3: White (row+f, col+r), Black (row-f, col-r); None when off the board (R1.1)."""
    sign = 1 if side == "white" else -1
    row, col = origin[0] + sign * off[0], origin[1] + sign * off[1]
    return (row, col) if 1 <= row <= 10 and 1 <= col <= 10 else None


def path_dest(side: str, origin: tuple[int, int], path: tuple[Offset, ...],
              n: int) -> tuple[int, int] | None:
    """R5.1.6, D-14, D-15: the exact n-th square, if every square 1..n is on the board."""
    squares = [land(side, origin, off) for off in path[:n]]
    assert len(squares) == n
    return None if None in squares else squares[-1]


def steps(side: str, origin: tuple[int, int], offsets: tuple[Offset, ...],
          level: str) -> set[Cell]:
    out = set()
    for off in offsets:
        sq = land(side, origin, off)
        if sq is not None:
            out.add((sq[0], sq[1], level))
    return out


def paths(side: str, origin: tuple[int, int], table: tuple[tuple[Offset, ...], ...],
          n: int) -> set[Cell]:
    out = set()
    for path in table:
        sq = path_dest(side, origin, path, n)
        if sq is not None:
            out.add((sq[0], sq[1], "ground"))
    return out


def tank_table(system: str, hand: str, n: int) -> tuple[tuple[Offset, ...], ...]:
    if system == "wec":
        return WEC_TANK[hand]
    if system == "standard_chess":
        return tuple(line(d, n) for d in ORTHOGONAL)  # R5.4.2
    return MDC_TANK_RIGHT if hand == "right" else tuple(mirror(p) for p in MDC_TANK_RIGHT)


def cleric_table(system: str, hand: str, n: int) -> tuple[tuple[Offset, ...], ...]:
    if system == "wec":
        return WEC_CLERIC[hand]
    if system == "standard_chess":
        return tuple(line(d, n) for d in DIAGONAL)  # R5.4.3
    return MDC_CLERIC_LEFT if hand == "left" else tuple(mirror(p) for p in MDC_CLERIC_LEFT)


def chopper_offsets(system: str, hand: str) -> tuple[Offset, ...]:
    if system == "wec":
        return WEC_CHOPPER[hand]
    if system == "standard_chess":
        return CHESS_CHOPPER
    return MDC_CHOPPER[hand]


def rules_model(case: gen.Case) -> set[Cell]:  # type: ignore[name-defined]
    """The destinations RULES.md gives a lone piece on an empty board."""
    side, origin, level, system = case.side, case.origin, case.level, case.system
    opts = dict(case.options)
    kind = case.kind
    if kind in gen.PAWNS:
        if system == "mass_destruction":  # R5.5.1: no 2-square first move
            return steps(side, origin, MDC_PAWN[opts["mdc_pawn_movement"]], "ground")
        if system == "standard_chess":  # R5.4.1: (1,0); first move also (2,0)
            moves: tuple[Offset, ...] = ((1, 0),) if case.moved else ((1, 0), (2, 0))
        else:  # R5.3.1: (1,-1), (1,1); first move also (2,-2), (2,2); attacks need an enemy
            moves = ((1, -1), (1, 1)) if case.moved else ((1, -1), (1, 1), (2, -2), (2, 2))
        return steps(side, origin, moves, "ground")
    if kind in gen.PRIMARY or kind in gen.STEPPERS:  # R5.3.2, R5.3.9
        return steps(side, origin, KING_STEPS, "ground")
    if kind == "sub":  # R5.3.3
        other = "sub" if level == "ground" else "ground"
        return steps(side, origin, KING_STEPS, level) | {(*origin, other)}
    if kind == "jet":  # R5.3.4, D-18
        if level == "ground":
            return {(*origin, "air")}
        two = tuple((2 * f, 2 * r) for f, r in KING_STEPS)
        return {(*origin, "ground")} | steps(side, origin, KING_STEPS + two, "air")
    if kind == "chopper":  # R5.3.7, R5.4.4, R5.5.4
        ground = steps(side, origin, chopper_offsets(system, case.hand), "ground")
        if level == "air":
            return ground
        return ground | {(r, c, "air") for r, c, _ in ground}
    if kind == "tank":
        n = opts["tank_range"]
        return paths(side, origin, tank_table(system, case.hand, n), n)
    if kind == "cleric":
        n = opts["cleric_range"]
        return paths(side, origin, cleric_table(system, case.hand, n), n)
    if kind in gen.SECONDARY:  # R5.3.8, R5.4.5, R5.5.5: both hands of both pieces
        qt, qc = opts["queen_tank_range"], opts["queen_cleric_range"]
        out: set[Cell] = set()
        for hand in ("right", "left"):
            out |= paths(side, origin, tank_table(system, hand, qt), qt)
            out |= paths(side, origin, cleric_table(system, hand, qc), qc)
        return out
    raise AssertionError(f"no rules model for {kind}")


# ---------------------------------------------------------------- fixtures and helpers

@pytest.fixture(scope="module", params=gen.SYSTEMS)
def system(request: pytest.FixtureRequest) -> str:
    return str(request.param)


_ENGINE: dict[str, dict[str, list[Cell]]] = {}


def engine_entries(system: str) -> dict[str, list[Cell]]:
    if system not in _ENGINE:
        _ENGINE[system] = gen.compute_entries(system)
    return _ENGINE[system]


def fmt(cells: Iterable[Cell]) -> str:
    return ", ".join(f"({r},{c}){level[0].upper()}" for r, c, level in sorted(cells))


# ---------------------------------------------------------------- 1. golden stability

def test_golden_file_matches_engine(system: str) -> None:
    path = gen.golden_path(system)
    assert path.exists(), f"{path} is missing: run .venv/bin/python tests/golden/make_reachable.py"
    golden = gen.load(system)
    now = engine_entries(system)
    problems = []
    for key in sorted(set(golden) - set(now)):
        problems.append(f"  only in the golden file: {key}")
    for key in sorted(set(now) - set(golden)):
        problems.append(f"  not in the golden file:  {key} -> [{fmt(now[key])}]")
    for key in sorted(set(golden) & set(now)):
        if sorted(golden[key]) != now[key]:
            lost = set(golden[key]) - set(now[key])
            new = set(now[key]) - set(golden[key])
            problems.append(f"  {key}:\n      golden [{fmt(golden[key])}]\n      engine "
                            f"[{fmt(now[key])}]\n      missing now [{fmt(lost)}], "
                            f"new [{fmt(new)}]")
    assert not problems, (
        f"{path.name}: the engine's reachable sets changed in {len(problems)} entries "
        "(if intended, regenerate with .venv/bin/python tests/golden/make_reachable.py and "
        "review the diff):\n" + "\n".join(problems[:60]))


def test_golden_file_is_canonical(system: str) -> None:
    """Sorted keys, one entry per line: exactly what the generator writes."""
    path = gen.golden_path(system)
    assert path.read_text(encoding="utf-8") == gen.render(gen.load(system))


def test_table_coverage() -> None:
    keys = {s: set(gen.load(s)) for s in gen.SYSTEMS}
    for s in gen.SYSTEMS:
        kinds = {k.split()[1] for k in keys[s]}
        assert kinds == {kind.value for kind in gen.engine.PieceKind}, s
    wec = keys["wec"]
    for probe in ("white tank right from (5,5) ground, tank_range 7",
                  "black tank left from (10,10) ground, tank_range 8",
                  "white cleric left from (1,1) ground, cleric_range 6",
                  "black jet from (4,7) air", "white sub from (1,5) sub",
                  "black chopper left from (1,1) air",
                  "white acolyte from (5,5) ground, queen_tank_range 6, queen_cleric_range 8",
                  "black xxx_pawn from (1,5) ground, moved true"):
        assert probe in wec, probe
    mdc = keys["mass_destruction"]
    for mode in gen.MDC_PAWN_MOVEMENTS:
        assert f"white rocket_pawn from (5,5) ground, mdc_pawn_movement {mode}, moved false" in mdc


# ---------------------------------------------------------------- 2. engine vs the rules model

def test_engine_matches_rules_model(system: str) -> None:
    now = engine_entries(system)
    problems = []
    for case in gen.cases(system):
        expected = rules_model(case)
        got = set(now[case.key])
        if got != expected:
            problems.append(f"  {case.key}:\n      RULES.md [{fmt(expected)}]\n      engine   "
                            f"[{fmt(got)}]\n      engine lacks [{fmt(expected - got)}], "
                            f"engine adds [{fmt(got - expected)}]")
    assert not problems, (f"{system}: {len(problems)} entries differ from the RULES.md tables:\n"
                          + "\n".join(problems[:60]))


# ---------------------------------------------------------------- 3. hand-computed squares

def G(*squares: tuple[int, int]) -> set[Cell]:
    return {(r, c, "ground") for r, c in squares}


def A(*squares: tuple[int, int]) -> set[Cell]:
    return {(r, c, "air") for r, c in squares}


def S(*squares: tuple[int, int]) -> set[Cell]:
    return {(r, c, "sub") for r, c in squares}


# (system, key, expected) worked out on paper from the RULES.md tables.
HAND_COMPUTED: list[tuple[str, str, set[Cell]]] = [
    # R5.3.5 WEC Tank
    ("wec", "white tank right from (1,1) ground, tank_range 6", G((7, 3))),
    ("wec", "white tank right from (1,1) ground, tank_range 7", G((8, 4))),
    ("wec", "white tank right from (1,1) ground, tank_range 8", G((9, 5))),
    ("wec", "white tank left from (1,1) ground, tank_range 6", G((3, 7))),
    ("wec", "white tank left from (1,1) ground, tank_range 7", G((4, 8))),
    ("wec", "white tank left from (1,1) ground, tank_range 8", G((5, 9))),
    ("wec", "white tank right from (5,5) ground, tank_range 6", set()),
    ("wec", "white tank right from (5,5) ground, tank_range 7", set()),
    ("wec", "white tank left from (5,5) ground, tank_range 8", set()),
    ("wec", "black tank right from (5,5) ground, tank_range 7", set()),
    ("wec", "white tank right from (3,4) ground, tank_range 7", G((10, 7))),
    ("wec", "white tank left from (3,4) ground, tank_range 7", G((10, 1))),
    ("wec", "black tank right from (10,10) ground, tank_range 7", G((3, 7))),
    ("wec", "black tank left from (10,10) ground, tank_range 7", G((7, 3))),
    ("wec", "black tank right from (10,10) ground, tank_range 6", G((4, 8))),
    ("wec", "black tank left from (10,10) ground, tank_range 8", G((6, 2))),
    ("wec", "black tank right from (1,1) ground, tank_range 7", G((8, 4))),
    ("wec", "black tank left from (1,1) ground, tank_range 7", G((4, 8))),
    ("wec", "white tank right from (10,10) ground, tank_range 7", G((3, 7))),
    # R5.3.6 WEC Cleric
    ("wec", "white cleric right from (1,1) ground, cleric_range 6", G((5, 7))),
    ("wec", "white cleric right from (1,1) ground, cleric_range 7", G((4, 8))),
    ("wec", "white cleric right from (1,1) ground, cleric_range 8", G((5, 9))),
    ("wec", "white cleric left from (1,1) ground, cleric_range 6", G((7, 5))),
    ("wec", "white cleric left from (1,1) ground, cleric_range 7", G((8, 4))),
    ("wec", "white cleric left from (1,1) ground, cleric_range 8", G((9, 5))),
    ("wec", "black cleric right from (10,10) ground, cleric_range 7", G((7, 3))),
    ("wec", "black cleric left from (10,10) ground, cleric_range 7", G((3, 7))),
    ("wec", "white cleric left from (5,5) ground, cleric_range 7", set()),
    # R5.3.8 WEC Queen
    ("wec", "white queen from (1,1) ground, queen_tank_range 7, queen_cleric_range 7",
     G((8, 4), (4, 8))),
    ("wec", "white queen from (5,5) ground, queen_tank_range 7, queen_cleric_range 7", set()),
    ("wec", "black queen from (5,5) ground, queen_tank_range 7, queen_cleric_range 7", set()),
    ("wec", "white queen from (3,4) ground, queen_tank_range 7, queen_cleric_range 7",
     G((10, 7), (10, 1))),
    ("wec", "black queen from (8,2) ground, queen_tank_range 7, queen_cleric_range 7",
     G((1, 5), (5, 9))),
    ("wec", "white queen from (1,1) ground, queen_tank_range 6, queen_cleric_range 8",
     G((7, 3), (3, 7), (9, 5), (5, 9))),
    # R5.3.7 WEC Chopper
    ("wec", "white chopper right from (1,1) ground", G((3, 2), (3, 3)) | A((3, 2), (3, 3))),
    ("wec", "white chopper right from (1,1) air", G((3, 2), (3, 3))),
    ("wec", "white chopper left from (5,5) air",
     G((7, 3), (7, 4), (7, 7), (6, 7), (4, 3), (3, 3), (3, 6), (3, 7))),
    ("wec", "black chopper right from (5,5) air",
     G((3, 7), (3, 4), (3, 3), (4, 7), (6, 3), (7, 7), (7, 6), (7, 3))),
    ("wec", "black chopper left from (10,10) ground", G((8, 8), (9, 8)) | A((8, 8), (9, 8))),
    # R5.3.4 Jet
    ("wec", "white jet from (1,1) ground", A((1, 1))),
    ("wec", "white jet from (1,1) air", G((1, 1)) | A((2, 1), (2, 2), (1, 2), (3, 1), (3, 3),
                                                      (1, 3))),
    ("wec", "black jet from (10,10) air",
     G((10, 10)) | A((9, 10), (9, 9), (10, 9), (8, 10), (8, 8), (10, 8))),
    # R5.3.3 Sub
    ("wec", "white sub from (1,1) sub", S((1, 2), (2, 1), (2, 2)) | G((1, 1))),
    ("wec", "black sub from (1,5) ground",
     G((1, 4), (1, 6), (2, 4), (2, 5), (2, 6)) | S((1, 5))),
    # R5.3.2 King and steppers
    ("wec", "white king from (10,10) ground", G((9, 9), (9, 10), (10, 9))),
    ("wec", "black dozer from (1,5) ground", G((1, 4), (1, 6), (2, 4), (2, 5), (2, 6))),
    # R5.3.1 WEC Pawn
    ("wec", "white flame_pawn from (1,5) ground, moved false", G((2, 4), (2, 6), (3, 3), (3, 7))),
    ("wec", "white flame_pawn from (1,5) ground, moved true", G((2, 4), (2, 6))),
    ("wec", "black stunner_pawn from (10,10) ground, moved false", G((9, 9), (8, 8))),
    ("wec", "black stunner_pawn from (1,1) ground, moved false", set()),
    # R5.4 Standard Chess
    ("standard_chess", "white tank right from (1,1) ground, tank_range 7", G((8, 1), (1, 8))),
    ("standard_chess", "black tank left from (1,1) ground, tank_range 6", G((7, 1), (1, 7))),
    ("standard_chess", "white cleric left from (1,1) ground, cleric_range 7", G((8, 8))),
    ("standard_chess", "black cleric right from (10,10) ground, cleric_range 8", G((2, 2))),
    ("standard_chess", "white queen from (1,1) ground, queen_tank_range 7, queen_cleric_range 7",
     G((8, 1), (1, 8), (8, 8))),
    ("standard_chess", "white queen from (3,4) ground, queen_tank_range 7, queen_cleric_range 6",
     G((10, 4), (9, 10))),
    ("standard_chess", "white chopper left from (1,1) ground",
     G((2, 3), (3, 2)) | A((2, 3), (3, 2))),
    ("standard_chess", "white rocket_pawn from (1,5) ground, moved false", G((2, 5), (3, 5))),
    ("standard_chess", "white rocket_pawn from (1,5) ground, moved true", G((2, 5))),
    ("standard_chess", "black rocket_pawn from (10,10) ground, moved false", G((9, 10), (8, 10))),
    # R5.5 MDC
    ("mass_destruction", "white tank right from (1,5) ground, tank_range 7", G((8, 4))),
    ("mass_destruction", "white tank left from (1,5) ground, tank_range 7", G((8, 6))),
    ("mass_destruction", "white tank right from (5,5) ground, tank_range 7", set()),
    ("mass_destruction", "white tank right from (3,4) ground, tank_range 6", G((9, 4), (3, 10))),
    ("mass_destruction", "white cleric left from (5,5) ground, cleric_range 7",
     G((6, 10), (10, 4))),
    ("mass_destruction", "black cleric left from (5,5) ground, cleric_range 7",
     G((10, 4), (6, 10))),  # P2 and P3 turned by R1.3; P1, P4 leave the board
    ("mass_destruction", "white chopper right from (5,5) air",
     G((8, 6), (7, 3), (7, 7), (6, 2), (4, 8), (3, 3), (3, 7), (2, 4))),
    ("mass_destruction", "white queen from (5,5) ground, queen_tank_range 7, "
     "queen_cleric_range 7",
     G((6, 10), (10, 4), (4, 10), (10, 6))),
    ("mass_destruction", "white xxx_pawn from (1,1) ground, mdc_pawn_movement all_forward, "
     "moved false", G((2, 1), (2, 2))),
    ("mass_destruction", "black xxx_pawn from (10,10) ground, mdc_pawn_movement "
     "all_sides_and_forward, moved false", G((9, 9), (9, 10), (10, 9))),
    ("mass_destruction", "white xxx_pawn from (5,5) ground, mdc_pawn_movement "
     "all_but_directly_in_front, moved true", G((6, 4), (6, 6), (5, 4), (5, 6))),
]


@pytest.mark.parametrize(("system_name", "key", "expected"), HAND_COMPUTED,
                         ids=[f"{s}:{k}" for s, k, _ in HAND_COMPUTED])
def test_hand_computed(system_name: str, key: str, expected: set[Cell]) -> None:
    entries = engine_entries(system_name)
    assert key in entries, f"no table entry {key!r}"
    got = set(entries[key])
    assert got == expected, (f"{system_name} {key}: hand-computed [{fmt(expected)}], engine "
                             f"[{fmt(got)}]")
    case = next(c for c in gen.cases(system_name) if c.key == key)
    assert rules_model(case) == expected, "the rules model disagrees with the hand computation"


# ---------------------------------------------------------------- the literal tables themselves

def dests(table: tuple[tuple[Offset, ...], ...], n: int) -> set[Offset]:
    return {path[n - 1] for path in table}


def test_literal_tables_match_rules_summaries() -> None:
    """The summary sets RULES.md states next to each table (guards against typos here)."""
    # R5.3.5
    assert dests(WEC_TANK["right"], 6) == {(6, 2), (-2, 6), (-6, -2), (2, -6)}
    assert dests(WEC_TANK["right"], 7) == {(7, 3), (-3, 7), (-7, -3), (3, -7)}
    assert dests(WEC_TANK["right"], 8) == {(8, 4), (-4, 8), (-8, -4), (4, -8)}
    for n in (6, 7, 8):  # "left: mirror"
        assert dests(WEC_TANK["left"], n) == {(f, -r) for f, r in dests(WEC_TANK["right"], n)}
    for path in WEC_TANK["right"] + WEC_TANK["left"]:  # 4 straight, then 45 degrees
        d = path[0]
        assert path[:4] == line(d, 4)
    # R5.3.6
    assert dests(WEC_CLERIC["left"], 7) == {(7, 3), (-3, 7), (-7, -3), (3, -7)}
    assert dests(WEC_CLERIC["right"], 7) == {(7, -3), (3, 7), (-3, -7), (-7, 3)}
    for n in (6, 7, 8):
        assert dests(WEC_CLERIC["right"], n) == {(f, -r) for f, r in dests(WEC_CLERIC["left"], n)}
    # R5.3.8: both ranges 7 -> 8 destinations, each by one Tank and one Cleric path
    tanks = dests(WEC_TANK["right"], 7) | dests(WEC_TANK["left"], 7)
    clerics = dests(WEC_CLERIC["right"], 7) | dests(WEC_CLERIC["left"], 7)
    assert tanks == clerics == {(7, 3), (7, -3), (3, 7), (3, -7), (-3, 7), (-3, -7), (-7, 3),
                                (-7, -3)}
    # R5.5.2
    mdc_left = tuple(mirror(p) for p in MDC_TANK_RIGHT)
    assert dests(MDC_TANK_RIGHT, 7) == {(7, -1), (1, 7), (-7, 1), (-1, -7)}
    assert dests(mdc_left, 7) == {(7, 1), (1, -7), (-7, -1), (-1, 7)}
    for table in (MDC_TANK_RIGHT, mdc_left):
        assert dests(table, 6) == {(6, 0), (-6, 0), (0, 6), (0, -6)}
        assert dests(table, 8) == {(8, 0), (-8, 0), (0, 8), (0, -8)}
    # R5.5.3
    mdc_cleric_right = tuple(mirror(p) for p in MDC_CLERIC_LEFT)
    assert dests(MDC_CLERIC_LEFT, 7) == {(1, 5), (-5, 1), (-1, -5), (5, -1)}
    assert dests(mdc_cleric_right, 7) == {(1, -5), (-5, -1), (-1, 5), (5, 1)}
    # R5.5.5: both 7 -> 16 destinations
    queen = (dests(MDC_TANK_RIGHT, 7) | dests(mdc_left, 7) | dests(MDC_CLERIC_LEFT, 7)
             | dests(mdc_cleric_right, 7))
    assert queen == {(a * x, b * y) for a in (1, -1) for b in (1, -1)
                     for x, y in ((7, 1), (1, 7), (5, 1), (1, 5))}
    assert len(queen) == 16
    # every path is a chain of king steps (paths are walkable squares)
    for table in (*WEC_TANK.values(), *WEC_CLERIC.values(), MDC_TANK_RIGHT, MDC_CLERIC_LEFT):
        for path in table:
            assert len(path) == 8
            prev = (0, 0)
            for sq in path:
                assert max(abs(sq[0] - prev[0]), abs(sq[1] - prev[1])) == 1, path
                prev = sq
    # R5.3.7 / R5.5.4: the two hands are mirror images
    for offsets in (WEC_CHOPPER, MDC_CHOPPER):
        assert set(offsets["left"]) == {(f, -r) for f, r in offsets["right"]}
        assert len(set(offsets["right"])) == 8
