"""Movement geometry (R5.3-R5.6): every candidate route of a piece, from tables.

A route is a destination cell, the cells before it that must be empty (R5.2.2) and
how the Move treats enemies at the destination. Routes are pure geometry, computed
once per (movement rules, kind, side, hand, origin) and cached; the legality filter
(engine.movement) checks them against the board. Offsets in this module are
owner-relative ``(f, r)`` as in RULES.md and turned into board deltas by R1.3.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import permutations

from wec.engine import board
from wec.engine.board import AIR, GROUND, SUB, Level
from wec.engine.options import Options
from wec.engine.pieces import Hand, Movement, Side

COMBAT = 0  # takes every enemy piece at the destination (R5.1.3)
PEACEFUL = 1  # must not end at a level holding a visible enemy (R5.1.3)
ATTACK = 2  # pawn attack square: legal only onto a visible enemy, which it takes (R5.3.1)

Offset = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Route:
    """One way for a piece to make a Move: its path cells, destination and capture mode."""

    dest: int
    path: tuple[int, ...]
    mode: int
    rule: str
    first_move_only: bool = False


# (singles, groups, dependency mask): see MovementRules.route_groups.
RouteGroups = tuple[tuple[Route, ...], tuple[tuple[Route, ...], ...], int]


@dataclass(frozen=True, slots=True)
class MovementRules:
    """The options that shape movement (O1, O2, O4, O6-O9): a variant as a rules object."""

    system: str = "wec"
    pawn_mode: str = "all_sides_and_forward"
    sub_jet_combat: bool = False
    tank_range: int = 7
    cleric_range: int = 7
    queen_tank_range: int = 7
    queen_cleric_range: int = 7
    _memo: dict[tuple[object, ...], tuple[Route, ...]] = field(
        default_factory=dict, compare=False, repr=False, hash=False)
    _groups: dict[tuple[object, ...], RouteGroups] = field(
        default_factory=dict, compare=False, repr=False, hash=False)
    _relative: dict[tuple[object, ...], tuple[_RelativeRoute, ...]] = field(
        default_factory=dict, compare=False, repr=False, hash=False)

    def routes(self, movement: Movement, side: Side, hand: Hand | None, sq: int,
               level: Level) -> tuple[Route, ...]:
        """Candidate routes from one origin, memoised per rules object."""
        key = (movement, side, hand, sq, level)
        found = self._memo.get(key)
        if found is None:
            found = self._memo[key] = routes_for(self, movement, side, hand, sq, level)
        return found

    def route_groups(self, movement: Movement, side: Side, hand: Hand | None, sq: int,
                     level: Level) -> RouteGroups:
        """The routes grouped by destination, for move generation.

        Returns (singles, groups, depends): ``singles`` are destinations with one
        unconditional route; ``groups`` hold the rest, alternatives in order of
        preference (R5.2.3) or a pawn's first-move route; ``depends`` is a bit mask of
        every cell whose occupants can change which of these routes are legal (the
        origin, every path cell and every destination).
        """
        key = (movement, side, hand, sq * 3 + level)
        found = self._groups.get(key)
        if found is None:
            by_dest: dict[int, list[Route]] = {}
            depends = 1 << (sq * 3 + level)
            for route in self.routes(movement, side, hand, sq, level):
                by_dest.setdefault(route.dest, []).append(route)
                for c in (*route.path, route.dest):
                    depends |= 1 << c
            singles = tuple(g[0] for g in by_dest.values()
                            if len(g) == 1 and not g[0].first_move_only)
            groups = tuple(tuple(g) for g in by_dest.values()
                           if len(g) > 1 or g[0].first_move_only)
            found = self._groups[key] = (singles, groups, depends)
        return found

    @classmethod
    def from_options(cls, options: Options) -> MovementRules:
        """The shared rules object for these options (one memo of routes per variant)."""
        key = (options.movement_system, options.mdc_pawn_movement, options.sub_jet_combat,
               options.tank_range, options.cleric_range, options.queen_tank_range,
               options.queen_cleric_range)
        rules = _INTERNED.get(key)
        if rules is None:
            rules = _INTERNED[key] = cls(*key)
        return rules


_INTERNED: dict[tuple[object, ...], MovementRules] = {}


# ---------------------------------------------------------------- path shapes

def _cw(d: Offset) -> Offset:
    return (-d[1], d[0])


def _ccw(d: Offset) -> Offset:
    return (d[1], -d[0])


def _mirror(path: list[Offset]) -> list[Offset]:
    return [(f, -r) for f, r in path]


_ORTHOGONAL: tuple[Offset, ...] = ((1, 0), (0, 1), (-1, 0), (0, -1))  # forward, right, back, left
_KING: tuple[Offset, ...] = ((1, -1), (1, 0), (1, 1), (0, -1), (0, 1), (-1, -1), (-1, 0), (-1, 1))


def wec_tank_paths(hand: Hand, length: int) -> list[list[Offset]]:
    """R5.3.5: 4 squares straight, then diagonally turned 45 degrees toward the hand."""
    paths = []
    for d in _ORTHOGONAL:
        turn = _cw(d)  # right-handed; the left hand is the mirror image
        diag = (d[0] + turn[0], d[1] + turn[1])
        path = [(d[0] * i, d[1] * i) if i <= 4 else
                (4 * d[0] + (i - 4) * diag[0], 4 * d[1] + (i - 4) * diag[1])
                for i in range(1, length + 1)]
        paths.append(path)
    return paths if hand is Hand.RIGHT else [_mirror(p) for p in paths]


def wec_cleric_paths(hand: Hand, length: int) -> list[list[Offset]]:
    """R5.3.6: 5 squares diagonally, 2 turned 90 degrees toward the hand, 1 diagonally."""
    paths = []
    for d in ((1, 1), (-1, 1), (-1, -1), (1, -1)):  # forward-right, back-right, back-left, fwd-left
        turn = _ccw(d)  # left-handed; the right hand is the mirror image
        steps = [d] * 5 + [turn] * 2 + [d] * 1
        path, f, r = [], 0, 0
        for step in steps[:length]:
            f, r = f + step[0], r + step[1]
            path.append((f, r))
        paths.append(path)
    return paths if hand is Hand.LEFT else [_mirror(p) for p in paths]


def straight_paths(directions: tuple[Offset, ...], length: int) -> list[list[Offset]]:
    """R5.4.2, R5.4.3: exactly ``length`` squares along each direction."""
    return [[(d[0] * i, d[1] * i) for i in range(1, length + 1)] for d in directions]


_MDC_TANK_RIGHT: tuple[tuple[Offset, ...], ...] = (
    ((1, 1), (2, 0), (3, -1), (4, 0), (5, 1), (6, 0), (7, -1), (8, 0)),
    ((-1, 1), (0, 2), (1, 3), (0, 4), (-1, 5), (0, 6), (1, 7), (0, 8)),
    ((-1, -1), (-2, 0), (-3, 1), (-4, 0), (-5, -1), (-6, 0), (-7, 1), (-8, 0)),
    ((1, -1), (0, -2), (-1, -3), (0, -4), (1, -5), (0, -6), (-1, -7), (0, -8)),
)
_MDC_CLERIC_LEFT: tuple[tuple[Offset, ...], ...] = (
    ((1, -1), (2, 0), (3, 1), (3, 2), (3, 3), (2, 4), (1, 5), (0, 6)),
    ((1, 1), (0, 2), (-1, 3), (-2, 3), (-3, 3), (-4, 2), (-5, 1), (-6, 0)),
    ((-1, 1), (-2, 0), (-3, -1), (-3, -2), (-3, -3), (-2, -4), (-1, -5), (0, -6)),
    ((-1, -1), (0, -2), (1, -3), (2, -3), (3, -3), (4, -2), (5, -1), (6, 0)),
)


def mdc_tank_paths(hand: Hand, length: int) -> list[list[Offset]]:
    """R5.5.2: the zig-zag Tank."""
    paths = [list(p[:length]) for p in _MDC_TANK_RIGHT]
    return paths if hand is Hand.RIGHT else [_mirror(p) for p in paths]


def mdc_cleric_paths(hand: Hand, length: int) -> list[list[Offset]]:
    """R5.5.3: the spiral Cleric."""
    paths = [list(p[:length]) for p in _MDC_CLERIC_LEFT]
    return paths if hand is Hand.LEFT else [_mirror(p) for p in paths]


_WEC_CHOPPER_RIGHT: tuple[Offset, ...] = (
    (2, -2), (2, 1), (2, 2), (1, -2), (-1, 2), (-2, -2), (-2, -1), (-2, 2))
_WEC_CHOPPER_LEFT: tuple[Offset, ...] = (
    (2, -2), (2, -1), (2, 2), (1, 2), (-1, -2), (-2, -2), (-2, 1), (-2, 2))
_CHESS_CHOPPER: tuple[Offset, ...] = (
    (2, -1), (2, 1), (1, -2), (1, 2), (-1, -2), (-1, 2), (-2, -1), (-2, 1))
_MDC_CHOPPER_RIGHT: tuple[Offset, ...] = (
    (3, 1), (2, -2), (2, 2), (1, -3), (-1, 3), (-2, -2), (-2, 2), (-3, -1))
_MDC_CHOPPER_LEFT: tuple[Offset, ...] = (
    (3, -1), (2, -2), (2, 2), (1, 3), (-1, -3), (-2, -2), (-2, 2), (-3, 1))
_MDC_PAWN: dict[str, tuple[Offset, ...]] = {
    "all_sides_and_forward": ((1, -1), (1, 0), (1, 1), (0, -1), (0, 1)),
    "all_forward": ((1, -1), (1, 0), (1, 1)),
    "all_but_directly_in_front": ((1, -1), (1, 1), (0, -1), (0, 1)),
}


def chopper_offsets(rules: MovementRules, hand: Hand) -> tuple[Offset, ...]:
    """R5.3.7, R5.4.4, R5.5.4: the Chopper's destination offsets."""
    if rules.system == "standard_chess":
        return _CHESS_CHOPPER
    if rules.system == "mass_destruction":
        return _MDC_CHOPPER_RIGHT if hand is Hand.RIGHT else _MDC_CHOPPER_LEFT
    return _WEC_CHOPPER_RIGHT if hand is Hand.RIGHT else _WEC_CHOPPER_LEFT


def flight_paths(drow: int, dcol: int) -> list[list[tuple[int, int]]]:
    """R5.3.7, D-19: the monotone minimal king paths of a board displacement, best first.

    Each path lists the intermediate squares q1..q(n-1) as board deltas. Candidates
    come in order of decreasing number of leading diagonal steps; among equals, the
    one whose diagonal steps come earlier goes first.
    """
    n = max(abs(drow), abs(dcol))
    sr, sc = (drow > 0) - (drow < 0), (dcol > 0) - (dcol < 0)
    diagonals = min(abs(drow), abs(dcol))
    straight = (sr, 0) if abs(drow) > abs(dcol) else (0, sc)
    orders = sorted(set(permutations([True] * diagonals + [False] * (n - diagonals))),
                    key=lambda flags: tuple(not f for f in flags))
    paths = []
    for flags in orders:
        r = c = 0
        squares = []
        for is_diag in flags[:-1]:
            step = (sr, sc) if is_diag else straight
            r, c = r + step[0], c + step[1]
            squares.append((r, c))
        paths.append(squares)
    return paths


# ---------------------------------------------------------------- route tables

def _to_board(side: Side, f: int, r: int) -> tuple[int, int]:
    """R1.3: owner offset -> board delta."""
    return (f, r) if side is Side.WHITE else (-f, -r)


# A route relative to its origin square, for every origin at once: its destination and
# path cells as offsets from the origin's ``sq * 3`` (``(drow * SIZE + dcol) * 3 + level``),
# its mode, rule and first-move flag, the box (least and greatest drow, dcol) of its
# squares: it is on the board from an origin exactly when that box is (R5.2.1, D-15), and
# its cells as ``(drow, dcol, level)``, path then destination.
_RelativeRoute = tuple[int, tuple[int, ...], int, str, bool, tuple[int, int, int, int],
                       tuple[tuple[int, int, Level], ...]]


class _Builder:
    """Collects the routes of one piece relative to its origin square (``_RelativeRoute``);
    ``routes_for`` places them on an origin, dropping those that leave the board."""

    def __init__(self, side: Side) -> None:
        self.side = side
        self.routes: list[_RelativeRoute] = []

    def add_cells(self, cells: list[tuple[int, int, Level]], mode: int, rule: str,
                  first_move_only: bool = False) -> None:
        """A route through board deltas ``(drow, dcol, level)`` from the origin, the last
        one its destination."""
        rows = [dr for dr, _, _ in cells] + [0]
        cols = [dc for _, dc, _ in cells] + [0]
        offsets = [(dr * board.SIZE + dc) * 3 + level for dr, dc, level in cells]
        self.routes.append((offsets[-1], tuple(offsets[:-1]), mode, rule, first_move_only,
                            (min(rows), max(rows), min(cols), max(cols)), tuple(cells)))

    def add_path(self, path: list[Offset], level: Level, mode: int, rule: str,
                 first_move_only: bool = False) -> None:
        """A path of owner offsets (R1.3) at one level."""
        self.add_cells([(*_to_board(self.side, f, r), level) for f, r in path], mode, rule,
                       first_move_only)

    def add_steps(self, offsets: tuple[Offset, ...], level: Level, mode: int, rule: str) -> None:
        for off in offsets:
            self.add_path([off], level, mode, rule)


def routes_for(rules: MovementRules, movement: Movement, side: Side, hand: Hand | None,
               sq: int, level: Level) -> tuple[Route, ...]:
    """Every candidate route of a piece, in the rules' order of preference (R5.2.3): the
    routes relative to any origin (``relative_routes``, memoised) placed on ``sq``, those
    leaving the board dropped (R5.2.1, D-15)."""
    key = (movement, side, hand, level)
    relative = rules._relative.get(key)
    if relative is None:
        relative = rules._relative[key] = relative_routes(rules, movement, side, hand, level)
    row, col = divmod(sq, board.SIZE)
    last = board.SIZE - 1
    base = sq * 3
    return tuple([Route(base + dest, tuple([base + k for k in path]), mode, rule, first)
                  for dest, path, mode, rule, first, (low_r, high_r, low_c, high_c), _ in relative
                  if row + low_r >= 0 and row + high_r <= last and col + low_c >= 0
                  and col + high_c <= last])


def relative_routes(rules: MovementRules, movement: Movement, side: Side, hand: Hand | None,
                    level: Level) -> tuple[_RelativeRoute, ...]:
    """Every candidate route of a piece relative to its origin, in the rules' order of
    preference (R5.2.3), before any is dropped for leaving the board."""
    b = _Builder(side)
    system = rules.system
    if movement is Movement.PAWN:
        _pawn_routes(b, rules)
    elif movement is Movement.KING:
        b.add_steps(_KING, level, COMBAT, "R5.3.2")
    elif movement is Movement.STEP:
        b.add_steps(_KING, level, PEACEFUL, "R5.3.2")
    elif movement is Movement.SUB:
        mode = COMBAT if rules.sub_jet_combat else PEACEFUL
        b.add_steps(_KING, level, mode, "R5.3.3")
        other = SUB if level is GROUND else GROUND
        b.add_cells([(0, 0, other)], mode, "R5.3.3")
    elif movement is Movement.JET:
        _jet_routes(b, rules, level)
    elif movement is Movement.TANK:
        assert hand is not None
        for path in _tank_paths(rules, hand, rules.tank_range):
            b.add_path(path, GROUND, COMBAT, _rule(system, "R5.3.5", "R5.4.2", "R5.5.2"))
    elif movement is Movement.CLERIC:
        assert hand is not None
        for path in _cleric_paths(rules, hand, rules.cleric_range):
            b.add_path(path, GROUND, COMBAT, _rule(system, "R5.3.6", "R5.4.3", "R5.5.3"))
    elif movement is Movement.QUEEN:
        rule = _rule(system, "R5.3.8", "R5.4.5", "R5.5.5")
        for h in (Hand.RIGHT, Hand.LEFT):
            for path in _tank_paths(rules, h, rules.queen_tank_range):
                b.add_path(path, GROUND, COMBAT, rule)
        for h in (Hand.RIGHT, Hand.LEFT):
            for path in _cleric_paths(rules, h, rules.queen_cleric_range):
                b.add_path(path, GROUND, COMBAT, rule)
        _dedupe_paths(b)
    elif movement is Movement.CHOPPER:
        assert hand is not None
        _chopper_routes(b, rules, hand, level)
    return tuple(b.routes)


_MOVEMENT_RULES: dict[Movement, tuple[str, str, str]] = {
    Movement.PAWN: ("R5.3.1", "R5.4.1", "R5.5.1"),
    Movement.KING: ("R5.3.2", "R5.3.2", "R5.3.2"),
    Movement.STEP: ("R5.3.2", "R5.3.2", "R5.3.2"),
    Movement.SUB: ("R5.3.3", "R5.3.3", "R5.3.3"),
    Movement.JET: ("R5.3.4", "R5.3.4", "R5.3.4"),
    Movement.TANK: ("R5.3.5", "R5.4.2", "R5.5.2"),
    Movement.CLERIC: ("R5.3.6", "R5.4.3", "R5.5.3"),
    Movement.CHOPPER: ("R5.3.7", "R5.4.4", "R5.5.4"),
    Movement.QUEEN: ("R5.3.8", "R5.4.5", "R5.5.5"),
}


def movement_rule(system: str, movement: Movement) -> str:
    """The rule that defines how ``movement`` moves under movement system ``system``."""
    return _rule(system, *_MOVEMENT_RULES[movement])


def _rule(system: str, wec: str, chess: str, mdc: str) -> str:
    return {"wec": wec, "standard_chess": chess, "mass_destruction": mdc}[system]


def _tank_paths(rules: MovementRules, hand: Hand, length: int) -> list[list[Offset]]:
    if rules.system == "standard_chess":
        return straight_paths(_ORTHOGONAL, length)
    if rules.system == "mass_destruction":
        return mdc_tank_paths(hand, length)
    return wec_tank_paths(hand, length)


def _cleric_paths(rules: MovementRules, hand: Hand, length: int) -> list[list[Offset]]:
    if rules.system == "standard_chess":
        return straight_paths(((1, 1), (-1, 1), (-1, -1), (1, -1)), length)
    if rules.system == "mass_destruction":
        return mdc_cleric_paths(hand, length)
    return wec_cleric_paths(hand, length)


def _dedupe_paths(b: _Builder) -> None:
    """Standard Chess Queen paths repeat for both hands; keep the first of each."""
    seen: set[tuple[int, tuple[int, ...]]] = set()
    unique = []
    for route in b.routes:
        key = (route[0], route[1])
        if key not in seen:
            seen.add(key)
            unique.append(route)
    b.routes = unique


def _pawn_routes(b: _Builder, rules: MovementRules) -> None:
    if rules.system == "mass_destruction":
        b.add_steps(_MDC_PAWN[rules.pawn_mode], GROUND, COMBAT, "R5.5.1")
        return
    if rules.system == "standard_chess":
        b.add_path([(1, 0)], GROUND, PEACEFUL, "R5.4.1")
        b.add_path([(1, 0), (2, 0)], GROUND, PEACEFUL, "R5.4.1", first_move_only=True)
        b.add_steps(((1, -1), (1, 1)), GROUND, ATTACK, "R5.4.1")
        return
    b.add_steps(((1, -1), (1, 1)), GROUND, PEACEFUL, "R5.3.1")
    b.add_path([(1, -1), (2, -2)], GROUND, PEACEFUL, "R5.3.1", first_move_only=True)
    b.add_path([(1, 1), (2, 2)], GROUND, PEACEFUL, "R5.3.1", first_move_only=True)
    b.add_steps(((1, 0), (0, -1), (0, 1)), GROUND, ATTACK, "R5.3.1")


def _jet_routes(b: _Builder, rules: MovementRules, level: Level) -> None:
    """R5.3.4: take-off / landing in place; in Air 1 or 2 squares along 8 directions."""
    combat = rules.sub_jet_combat
    one = COMBAT if combat else PEACEFUL  # R5.6.2: all Jet Moves but the 2-square one
    if level is GROUND:
        b.add_cells([(0, 0, AIR)], one, "R5.3.4")
        return
    if level is not AIR:
        return
    b.add_cells([(0, 0, GROUND)], one, "R5.3.4")
    b.add_steps(_KING, AIR, one, "R5.3.4")
    for f, r in _KING:
        b.add_path([(f, r), (2 * f, 2 * r)], AIR, PEACEFUL, "R5.3.4")


def _chopper_routes(b: _Builder, rules: MovementRules, hand: Hand, level: Level) -> None:
    """R5.3.7: 3-D flight; from Ground end at Ground or Air, from Air end at Ground."""
    if level is SUB:
        return
    rule = _rule(rules.system, "R5.3.7", "R5.4.4", "R5.5.4")
    for f, r in chopper_offsets(rules, hand):
        drow, dcol = _to_board(b.side, f, r)
        ends = (GROUND, AIR) if level is GROUND else (GROUND,)
        for end in ends:
            for middle in flight_paths(drow, dcol):
                cells: list[tuple[int, int, Level]] = [(0, 0, AIR)] if level is GROUND else []
                cells += [(mr, mc, AIR) for mr, mc in middle]
                if end is GROUND:
                    cells.append((drow, dcol, AIR))
                cells.append((drow, dcol, end))
                b.add_cells(cells, COMBAT, rule)
