"""Regenerate the reachable-set golden tables (tests/golden/reachable/*.json).

For every piece kind, hand, side, origin square and origin level, on an otherwise
empty board, the exact set of legal Move destinations the engine reports, per
movement system (R5.3 WEC, R5.4 Standard Chess, R5.5 MDC) and per movement option
(tank/cleric/queen ranges, MDC pawn movement, pawn "moved" flag).

Run from the project root:  .venv/bin/python tests/golden/make_reachable.py

tests/test_reachable.py recomputes every entry with ``compute_entries`` and compares
it exactly with the stored files, and checks every entry against an independent
implementation of the RULES.md offset tables.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from wec import engine  # noqa: E402
from wec.engine.formats import cell_to_list  # noqa: E402
from wec.engine.movement import legal_plans  # noqa: E402

GOLDEN_DIR = Path(__file__).resolve().parent / "reachable"

SYSTEMS = ("wec", "standard_chess", "mass_destruction")
MDC_PAWN_MOVEMENTS = ("all_sides_and_forward", "all_forward", "all_but_directly_in_front")
SIDES = ("white", "black")
ORIGINS: tuple[tuple[int, int], ...] = ((1, 1), (1, 5), (5, 5), (4, 7), (10, 10), (3, 4), (8, 2))
RANGES = (6, 7, 8)
HANDS = ("right", "left")

PAWNS = ("flame_pawn", "rocket_pawn", "stunner_pawn", "conversion_pawn", "sam_torpedo_pawn",
         "xxx_pawn", "stealth_pawn")
PRIMARY = ("king", "dictator", "avatar", "president")
SECONDARY = ("queen", "assassin", "acolyte", "prime_minister")
HANDED = ("tank", "cleric", "chopper")
STEPPERS = ("dozer", "destroyer", "aaa")
LEVELS: dict[str, tuple[str, ...]] = {"jet": ("ground", "air"), "sub": ("ground", "sub"),
                                      "chopper": ("ground", "air")}
ALL_KINDS = (*PAWNS, "tank", "cleric", "chopper", "jet", "sub", *STEPPERS, *PRIMARY,
             *SECONDARY)

Cell = tuple[int, int, str]


@dataclass(frozen=True)
class Case:
    """One table entry: a lone piece on an empty board under some options."""

    system: str
    side: str
    kind: str
    hand: str | None
    origin: tuple[int, int]
    level: str
    options: tuple[tuple[str, Any], ...]  # the options that shape this piece's movement
    moved: bool | None = None  # pawns only

    @property
    def key(self) -> str:
        hand = f" {self.hand}" if self.hand else ""
        extras = [f"{name} {value}" for name, value in self.options]
        if self.moved is not None:
            extras.append(f"moved {'true' if self.moved else 'false'}")
        suffix = f", {', '.join(extras)}" if extras else ""
        return (f"{self.side} {self.kind}{hand} from ({self.origin[0]},{self.origin[1]}) "
                f"{self.level}{suffix}")

    def position_dict(self) -> dict[str, Any]:
        piece: dict[str, Any] = {"side": self.side, "kind": self.kind,
                                 "at": list(self.origin), "level": self.level}
        if self.hand:
            piece["hand"] = self.hand
        if self.moved:
            piece["moved"] = True
        options: dict[str, Any] = {"movement_system": self.system, **dict(self.options)}
        return {"format": "wec-position/1", "turn": 2 if self.side == "white" else 1,
                "options": options, "pieces": [piece]}


def option_sets(system: str, kind: str) -> list[tuple[tuple[str, Any], ...]]:
    """The option variations that change how ``kind`` moves (O2, O6-O9)."""
    if kind == "tank":
        return [(("tank_range", n),) for n in RANGES]
    if kind == "cleric":
        return [(("cleric_range", n),) for n in RANGES]
    if kind in SECONDARY:
        return [(("queen_tank_range", t), ("queen_cleric_range", c))
                for t in RANGES for c in RANGES]
    if kind in PAWNS and system == "mass_destruction":
        return [(("mdc_pawn_movement", m),) for m in MDC_PAWN_MOVEMENTS]
    return [()]


def cases(system: str) -> Iterator[Case]:
    """Every entry of one movement system's table."""
    for kind in ALL_KINDS:
        hands: tuple[str | None, ...] = HANDS if kind in HANDED else (None,)
        moved_values: tuple[bool | None, ...] = (False, True) if kind in PAWNS else (None,)
        for side in SIDES:
            for hand in hands:
                for origin in ORIGINS:
                    for level in LEVELS.get(kind, ("ground",)):
                        for opts in option_sets(system, kind):
                            for moved in moved_values:
                                yield Case(system, side, kind, hand, origin, level, opts, moved)


def reachable(case: Case) -> list[Cell]:
    """The engine's legal Move destinations for one case, sorted."""
    position = engine.position_from_dict(case.position_dict())
    piece = position.pieces[0]
    cells: list[Cell] = []
    for plan in legal_plans(position, piece):
        row, col, level = cell_to_list(plan.route.dest)
        cells.append((int(row), int(col), str(level)))
    if len(set(cells)) != len(cells):
        raise AssertionError(f"{case.key}: the engine lists a destination twice: {cells}")
    return sorted(cells)


def compute_entries(system: str) -> dict[str, list[Cell]]:
    entries: dict[str, list[Cell]] = {}
    for case in cases(system):
        if case.key in entries:
            raise AssertionError(f"duplicate table key {case.key!r}")
        entries[case.key] = reachable(case)
    return dict(sorted(entries.items()))


def golden_path(system: str) -> Path:
    return GOLDEN_DIR / f"{system}.json"


def render(entries: dict[str, list[Cell]]) -> str:
    """Sorted keys, one entry per line, so diffs name the changed entries."""
    lines = [f"  {json.dumps(key)}: {json.dumps([list(c) for c in cells])}"
             for key, cells in sorted(entries.items())]
    return "{\n" + ",\n".join(lines) + "\n}\n"


def load(system: str) -> dict[str, list[Cell]]:
    data = json.loads(golden_path(system).read_text(encoding="utf-8"))
    return {key: [(int(r), int(c), str(level)) for r, c, level in cells]
            for key, cells in data.items()}


def main() -> None:
    GOLDEN_DIR.mkdir(parents=True, exist_ok=True)
    total = 0
    for system in SYSTEMS:
        entries = compute_entries(system)
        golden_path(system).write_text(render(entries), encoding="utf-8")
        total += len(entries)
        print(f"{golden_path(system).relative_to(ROOT)}: {len(entries)} entries")
    print(f"total: {total} entries")


if __name__ == "__main__":
    main()
