"""Small helpers for the rules tests (test_examples_movement.py, test_rules_movement.py).

Positions are written in the ``wec-position/1`` JSON shape (board frame, White
coordinates, R1.2); squares are ``(row, col)`` and cells ``(row, col, level)``.
"""

from __future__ import annotations

from typing import Any

import pytest

from wec import engine
from wec.engine import board
from wec.engine.board import Level
from wec.engine.errors import IllegalIntent
from wec.engine.intents import EndTurn, Move
from wec.engine.movement import legal_plans, select_mover
from wec.engine.pieces import PieceKind

WHITE_TURN = 2
BLACK_TURN = 1


def pc(side: str, kind: str, row: int, col: int, level: str = "ground", *,
       hand: str | None = None, articles: tuple[str, ...] | list[str] = (),
       moved: bool = False, hidden: bool = False) -> dict[str, Any]:
    """One piece entry of the position format."""
    out: dict[str, Any] = {"side": side, "kind": kind, "at": [row, col], "level": level}
    if hand is not None:
        out["hand"] = hand
    if articles:
        out["articles"] = list(articles)
    if moved:
        out["moved"] = True
    if hidden:
        out["hidden"] = True
    return out


def white(kind: str, row: int, col: int, level: str = "ground", **kw: Any) -> dict[str, Any]:
    return pc("white", kind, row, col, level, **kw)


def black(kind: str, row: int, col: int, level: str = "ground", **kw: Any) -> dict[str, Any]:
    return pc("black", kind, row, col, level, **kw)


def make(pieces: list[dict[str, Any]], *, turn: int = WHITE_TURN,
         articles: list[tuple[str, int, int]] | None = None,
         options: dict[str, Any] | None = None) -> engine.Position:
    """A position with exactly these pieces and ground articles (kind, row, col)."""
    data: dict[str, Any] = {"format": "wec-position/1", "turn": turn, "pieces": pieces}
    if articles:
        data["articles"] = [{"kind": k, "at": [r, c]} for k, r, c in articles]
    if options:
        data["options"] = options
    return engine.position_from_dict(data)


def cell(row: int, col: int, level: str = "ground") -> int:
    return board.cell_at(row, col, Level.parse(level))


def sq(row: int, col: int) -> int:
    return board.square(row, col)


def as_cell(where: tuple[Any, ...]) -> int:
    """(row, col) -> Ground cell; (row, col, level) -> that cell."""
    if len(where) == 2:
        return cell(where[0], where[1])
    return cell(where[0], where[1], where[2])


def cell_tuple(c: int) -> tuple[int, int, str]:
    s = board.cell_square(c)
    return (board.row_of(s), board.col_of(s), board.cell_level(c).label)


def find_piece(position: engine.Position, row: int, col: int, level: str = "ground",
               kind: str | None = None) -> engine.Piece:
    """The side-to-act piece at a cell (engine.movement.select_mover)."""
    pk = PieceKind(kind) if kind else None
    c = cell(row, col, level)
    return select_mover(position, Move(c, c, pk))


def destinations(position: engine.Position, row: int, col: int, level: str = "ground",
                 kind: str | None = None) -> list[tuple[int, int, str]]:
    """Sorted distinct destination cells of the piece's legal Moves."""
    piece = find_piece(position, row, col, level, kind)
    return sorted({cell_tuple(plan.route.dest) for plan in legal_plans(position, piece)})


def dest_squares(position: engine.Position, row: int, col: int, level: str = "ground",
                 kind: str | None = None) -> list[tuple[int, int]]:
    """Sorted distinct destination squares (levels ignored)."""
    return sorted({(r, c) for r, c, _ in destinations(position, row, col, level, kind)})


def plan_options(position: engine.Position, row: int, col: int, level: str = "ground",
                 kind: str | None = None) -> list[tuple[tuple[int, int, str], bool]]:
    """Sorted (destination cell, carries passenger) of every legal plan."""
    piece = find_piece(position, row, col, level, kind)
    return sorted({(cell_tuple(p.route.dest), p.passenger is not None)
                   for p in legal_plans(position, piece)})


def move(position: engine.Position, frm: tuple[Any, ...], to: tuple[Any, ...],
         kind: str | None = None, carry: bool | None = None) -> engine.Outcome:
    """Apply a Move intent (cells as (row, col) or (row, col, level))."""
    pk = PieceKind(kind) if kind else None
    return engine.apply(position, Move(as_cell(frm), as_cell(to), pk, carry))


def end_turn(position: engine.Position) -> engine.Outcome:
    return engine.apply(position, EndTurn())


def refused(position: engine.Position, frm: tuple[Any, ...], to: tuple[Any, ...],
            kind: str | None = None, carry: bool | None = None) -> str:
    """Apply a Move that must be refused; returns the IllegalIntent's rule."""
    with pytest.raises(IllegalIntent) as info:
        move(position, frm, to, kind, carry)
    return info.value.rule


def layout(position: engine.Position) -> list[tuple[str, str, int, int, str]]:
    """Every piece as (side, kind, row, col, level), sorted."""
    return sorted((p["side"], p["kind"], p["at"][0], p["at"][1], p["level"])
                  for p in engine.position_to_dict(position)["pieces"])


def ground_articles(position: engine.Position) -> dict[tuple[int, int], list[str]]:
    """Unowned articles per square (sorted names), squares without any left out."""
    out: dict[tuple[int, int], list[str]] = {}
    for item in engine.position_to_dict(position)["articles"]:
        out.setdefault((item["at"][0], item["at"][1]), []).append(item["kind"])
    return {k: sorted(v) for k, v in out.items()}


def perturb_hidden(position: Any, side: Any, rng: Any, some: bool = False) -> Any:
    """The leakage tests' perturbation (issue 4 item 8): ``side``'s pieces hidden from the
    enemy (all of them, or a random few with ``some``) moved to other free cells and
    carrying other articles; None when ``side`` has no hidden piece."""
    from dataclasses import replace

    from wec.engine.pieces import TRAITS
    from wec.engine.pieces import ArticleKind as A

    hidden = [q for q in position.pieces if q.side is side and q.hidden and q.transit is None]
    if not hidden:
        return None
    chosen = rng.sample(hidden, rng.randint(1, len(hidden))) if some else hidden
    taken = {q.cell for q in position.pieces} | {pr.cell for pr in position.projectiles}
    changed = {}
    for q in chosen:
        free = [c for c in range(board.CELLS) if c not in taken
                and board.cell_level(c) in TRAITS[q.kind].native]
        target = rng.choice(free)
        taken.add(target)
        articles = rng.choice([(), (A.STEALTH,), (A.XXX, A.STEALTH, A.FLAME), q.articles])
        changed[q.pid] = replace(q, sq=target // 3, level=board.cell_level(target),
                                 articles=articles, ready=())
    return position.evolve(pieces=tuple(changed.get(q.pid, q) for q in position.pieces))
