"""Hypothesis strategies and random-game helpers shared by the property tests."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

from hypothesis import strategies as st

from wec.engine import board
from wec.engine.board import Level
from wec.engine.game import end_turn
from wec.engine.movement import all_legal_plans, resolve_plan
from wec.engine.options import options_from_dict
from wec.engine.pieces import TRAITS, ArticleKind, Hand, PieceKind, Side, article_capacity
from wec.engine.position import PROJECTILE_KINDS, Piece, Position, Projectile, empty_ground
from wec.engine.setup import standard_position

KINDS = list(PieceKind)
ARTICLES = list(ArticleKind)


def _cell_accepts(here: list[Piece], newcomer: Piece) -> bool:
    """R1.6: a cell takes a second piece only from the same side with coexistence."""
    if not here:
        return True
    if len(here) >= 2 or here[0].side is not newcomer.side:
        return False
    return TRAITS[here[0].kind].coexists or TRAITS[newcomer.kind].coexists


@st.composite
def option_sets(draw: st.DrawFn) -> dict[str, Any]:
    """Valid option objects, varying what shapes movement and governments."""
    out: dict[str, Any] = {}
    if draw(st.booleans()):
        out["movement_system"] = draw(st.sampled_from(
            ["wec", "standard_chess", "mass_destruction"]))
        out["mdc_pawn_movement"] = draw(st.sampled_from(
            ["all_sides_and_forward", "all_forward", "all_but_directly_in_front"]))
    for key in ("tank_range", "cleric_range", "queen_tank_range", "queen_cleric_range"):
        if draw(st.booleans()):
            out[key] = draw(st.integers(6, 8))
    if draw(st.booleans()):
        out["king_may_fly_or_go_sub"] = False
    if draw(st.booleans()):
        govs = ["monarchy", "dictatorship", "theocracy", "democracy"]
        out["government"] = {"black": draw(st.sampled_from(govs)),
                             "white": draw(st.sampled_from(govs))}
    return out


@st.composite
def positions(draw: st.DrawFn, max_pieces: int = 24) -> Position:
    """Random positions that keep every board invariant (R1.6, R1.7, R2.5, R2.6, R9.9)."""
    options = options_from_dict(draw(option_sets()))
    cells: dict[int, list[Piece]] = {}
    pieces: list[Piece] = []
    for _ in range(draw(st.integers(1, max_pieces))):
        kind = draw(st.sampled_from(KINDS))
        side = draw(st.sampled_from([Side.BLACK, Side.WHITE]))
        sq = draw(st.integers(0, board.SQUARES - 1))
        level = draw(st.sampled_from(sorted(TRAITS[kind].native)))
        hand = draw(st.sampled_from([Hand.RIGHT, Hand.LEFT])) if TRAITS[kind].handed else None
        articles: tuple[ArticleKind, ...] = ()
        if draw(st.integers(0, 3)) == 0:
            if kind is not PieceKind.XXX_PAWN and draw(st.booleans()):
                articles = (ArticleKind.XXX,)
            while len(articles) < article_capacity(kind, articles) and draw(st.booleans()):
                article = draw(st.sampled_from(ARTICLES))
                if article is ArticleKind.STEALTH and TRAITS[kind].primary:
                    continue  # R9.9
                articles += (article,)
        stunned_until = draw(st.sampled_from([0, 0, 0, 5, 30, 70]))
        instances = len(TRAITS[kind].inherent) + len(articles)
        ready: tuple[int, ...] = ()
        if instances and draw(st.integers(0, 3)) == 0:  # some weapons cooling down (R6.3)
            ready = tuple(draw(st.sampled_from([0, 9, 64])) for _ in range(instances))
            ready = ready if any(ready) else ()
        piece = Piece(len(pieces), side, kind, sq, level, hand, articles,
                      draw(st.booleans()), draw(st.integers(0, 3)) == 0, stunned_until, ready)
        here = cells.setdefault(piece.cell, [])
        if _cell_accepts(here, piece):
            here.append(piece)
            pieces.append(piece)
    pieces += _passengers(draw, cells, len(pieces))
    ground = list(empty_ground())
    for _ in range(draw(st.integers(0, 30))):
        sq = draw(st.integers(0, board.SQUARES - 1))
        if len(ground[sq]) < 2:
            ground[sq] = ground[sq] + (draw(st.sampled_from(ARTICLES)),)
    return Position(turn=draw(st.integers(1, 60)), pieces=tuple(pieces),
                    ground_articles=tuple(ground), options=options, next_pid=len(pieces),
                    projectiles=tuple(draw(st.lists(projectiles(pieces), max_size=4))),
                    hits=_hits(draw, pieces))


def _hits(draw: st.DrawFn, pieces: list[Piece]) -> tuple[tuple[int, ArticleKind, int], ...]:
    """Some hits received this turn (R6.4.2), sorted as the engine keeps them."""
    chosen = {}
    for p in pieces:
        if draw(st.integers(0, 5)) == 0:
            chosen[(p.pid, ArticleKind.FLAME)] = draw(st.integers(1, 3))
    return tuple(sorted(((pid, w, n) for (pid, w), n in chosen.items()),
                        key=lambda h: (h[0], h[1].value)))


@st.composite
def projectiles(draw: st.DrawFn, pieces: list[Piece]) -> Projectile:
    """A projectile in flight (R6.8): directional, or homing on an enemy at its level,
    never resting on a piece (it would have hit it, R6.8.5)."""
    kind = draw(st.sampled_from(PROJECTILE_KINDS))
    side = draw(st.sampled_from([Side.BLACK, Side.WHITE]))
    level = {"rocket": Level.GROUND, "sam": Level.AIR, "torpedo": Level.SUB}[kind]
    occupied = {p.cell for p in pieces}
    free = [sq for sq in range(board.SQUARES) if sq * 3 + level not in occupied]
    sq = draw(st.sampled_from(free))
    targets = [p for p in pieces if p.level is level and p.side is not side and kind != "rocket"
               and sum(q.cell == p.cell and q.side is p.side for q in pieces) == 1]
    target = draw(st.none() | st.sampled_from(targets)) if targets else None
    d = (board.sign_step(sq, target.sq) if target is not None and target.sq != sq
         else draw(st.sampled_from(board.DIRECTIONS)))
    return Projectile(kind, side, sq, draw(st.integers(1, 3)), d,
                      target.pid if target is not None else None)


def _passengers(draw: st.DrawFn, cells: dict[int, list[Piece]], pid: int) -> list[Piece]:
    """Some carriers in Air or Sub get a passenger at a level not native to it (R8.7)."""
    added = []
    for c in sorted(cells):
        here = cells[c]
        carrier = here[0]
        if (len(here) == 1 and TRAITS[carrier.kind].carries and carrier.level is not Level.GROUND
                and draw(st.booleans())):
            kind = draw(st.sampled_from([PieceKind.TANK, PieceKind.KING, PieceKind.FLAME_PAWN,
                                         PieceKind.DOZER, PieceKind.QUEEN]))
            hand = Hand.LEFT if TRAITS[kind].handed else None
            passenger = Piece(pid + len(added), carrier.side, kind, carrier.sq, carrier.level,
                              hand, (), True, carrier.hidden)
            here.append(passenger)
            added.append(passenger)
    return added


def random_game_positions(seed: int, turns: int) -> list[Position]:
    """Positions met along a random game from the standard setup (restarting when it ends)."""
    rng = random.Random(seed)
    position = standard_position()
    seen = [position]
    for _ in range(turns):
        plans = all_legal_plans(position)
        if plans:
            position, _ = resolve_plan(position, rng.choice(plans))
        position = standard_position() if position.result else end_turn(position).position
        seen.append(position)
    return seen


def hide_randomly(position: Position, rng: random.Random, share: float = 0.4) -> Position:
    """Mark a random share of pieces as hidden from their enemy (a stand-in for R9)."""
    pieces = tuple(replace(p, hidden=rng.random() < share) for p in position.pieces)
    return position.evolve(pieces=pieces)
