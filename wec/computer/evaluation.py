"""The value function: how good a full (sampled) position is for one side, in pawns.

Terms (docs/computer.md, "The value function"):

* **material**: each piece's worth by kind, plus its articles (a weapon is worth more on
  a piece that already holds that weapon, since they fire together, R6.2; a defence more
  on a valuable piece), less while it is stunned (R7.2); waiting reinforcements count a
  third of their worth; the primary government piece is not material (losing it ends the
  game, R12);
* **king safety**: enemy pieces near one's primary government piece, own pieces beside it;
* **pressure**: attacking pieces closer to the enemy primary piece (games must end);
* **threats**: projectiles in flight toward pieces (R6.8) and, where asked for
  (``threat_penalty``), the pieces the side to act may take by a Move next.

A finished game is worth ``WIN`` (less the turn it took, so a quick win is preferred).
Everything here reads a position and nothing else; it never changes one.
"""

from __future__ import annotations

from wec.engine.board import distance
from wec.engine.pieces import ArticleKind, PieceKind, Side, traits
from wec.engine.position import Piece, Position

A = ArticleKind
K = PieceKind

WIN = 1000.0

PIECE_VALUES: dict[PieceKind, float] = {
    K.QUEEN: 9.0, K.ASSASSIN: 9.0, K.ACOLYTE: 9.0, K.PRIME_MINISTER: 9.0,
    K.TANK: 5.0, K.CLERIC: 5.5, K.CHOPPER: 4.0, K.JET: 3.5, K.SUB: 3.5,
    K.DESTROYER: 3.0, K.AAA: 3.0, K.DOZER: 2.5,
    K.CONVERSION_PAWN: 1.8, K.FLAME_PAWN: 1.5, K.ROCKET_PAWN: 1.5, K.STUNNER_PAWN: 1.5,
    K.STEALTH_PAWN: 1.6, K.XXX_PAWN: 1.2, K.SAM_TORPEDO_PAWN: 1.4,
    K.KING: 0.0, K.DICTATOR: 0.0, K.AVATAR: 0.0, K.PRESIDENT: 0.0,
}

ARTICLE_VALUES: dict[ArticleKind, float] = {
    A.FLAME: 0.7, A.STUNNER: 0.5, A.CONVERSION: 0.9, A.ROCKET_LAUNCHER: 0.6,
    A.SAM_LAUNCHER: 0.35, A.TORPEDO_LAUNCHER: 0.35,
    A.ANTI_FLAME: 0.25, A.ANTI_STUNNER: 0.2, A.ANTI_CONVERSION: 0.3, A.ANTI_ROCKET: 0.25,
    A.ANTI_SAM: 0.1, A.ANTI_TORPEDO: 0.1,
    A.STEALTH: 0.5, A.ANTI_STEALTH: 0.3, A.BIKE: 0.15, A.JUMP_PACK: 0.15, A.SCUBA_SUIT: 0.1,
    A.XXX: 0.35,
}

_WEAPONS = frozenset({A.FLAME, A.STUNNER, A.CONVERSION, A.ROCKET_LAUNCHER, A.SAM_LAUNCHER,
                      A.TORPEDO_LAUNCHER})
_DEFENCES = frozenset({A.ANTI_FLAME, A.ANTI_STUNNER, A.ANTI_CONVERSION, A.ANTI_ROCKET,
                       A.ANTI_SAM, A.ANTI_TORPEDO})
# kinds whose Move takes pieces (R2.1), the ones that press on the enemy primary piece
_ATTACKERS = frozenset(k for k, t in ((k, traits(k)) for k in K)
                       if t.movement.value in ("pawn", "king", "tank", "cleric", "chopper",
                                               "queen") and not t.primary)
_STUN_FACTOR = 0.6  # what a stunned piece is still worth (it is carried, dozed, hit)
_REINFORCEMENT_FACTOR = 0.35


_VALUE_MEMO: dict[tuple[PieceKind, tuple[ArticleKind, ...]], float] = {}


def piece_worth(kind: PieceKind, articles: tuple[ArticleKind, ...]) -> float:
    """The material worth of a piece of ``kind`` carrying ``articles`` (not stunned)."""
    key = (kind, articles)
    found = _VALUE_MEMO.get(key)
    if found is not None:
        return found
    base = PIECE_VALUES.get(kind, 2.0)
    inherent = traits(kind).inherent
    worth = base
    for article in articles:
        value = ARTICLE_VALUES.get(article, 0.2)
        if article in _WEAPONS and article in inherent:
            value *= 1.6  # fires together with the inherent weapon (R6.2)
        elif article in _DEFENCES:
            value *= 1.0 + min(base, 9.0) / 6.0 + (2.0 if traits(kind).primary else 0.0)
        worth += value
    if len(_VALUE_MEMO) > 20_000:
        _VALUE_MEMO.clear()
    _VALUE_MEMO[key] = worth
    return worth


def material(position: Position, side: Side) -> float:
    """Material of ``side`` less the enemy's (pieces, their articles, reinforcements)."""
    score = 0.0
    turn = position.turn
    for p in position.pieces:
        worth = piece_worth(p.kind, p.articles)
        if turn < p.stunned_until:
            worth *= _STUN_FACTOR
        score += worth if p.side is side else -worth
    for r in position.reinforcements:
        if r.kind is None:
            worth = 3.0 * _REINFORCEMENT_FACTOR
        else:
            worth = PIECE_VALUES.get(r.kind, 2.0) * _REINFORCEMENT_FACTOR
        score += worth if r.side is side else -worth
    return score


_PRIMARY: dict[PieceKind, bool] = {k: traits(k).primary for k in K}
_ATTACKING: dict[PieceKind, bool] = {k: k in _ATTACKERS for k in K}
_DISTANCES = [[distance(a, b) for b in range(100)] for a in range(100)]
_NOWHERE = [20] * 100  # distances to a primary piece that is not on the board
# pressure of an attacking piece at distance d from the enemy primary piece (index d)
_PRESSURE = [0.05 * (9 - d) + (0.35 if d <= 1 else 0.15 if d <= 2 else 0.0)
             for d in range(10)] + [0.0] * 11
_SHIELD = 0.12


def _distances(squares: list[int]) -> list[int]:
    """Per square, the distance to the nearest of ``squares`` (primary pieces)."""
    if not squares:
        return _NOWHERE
    if len(squares) == 1:
        return _DISTANCES[squares[0]]
    return [min(_DISTANCES[k][sq] for k in squares) for sq in range(100)]


def evaluate(position: Position, side: Side) -> float:
    """The worth of the full ``position`` for ``side``: material, king safety, pressure
    and projectiles in flight. Positive is good for ``side``. One pass over the pieces
    (it runs for every action the search tries)."""
    result = position.result
    if result is not None:
        win = WIN - position.turn * 0.01
        return win if result.winner is side else -win
    turn = position.turn
    pieces = position.pieces
    mine: list[int] = []
    theirs: list[int] = []
    for p in pieces:
        if _PRIMARY[p.kind]:
            (mine if p.side is side else theirs).append(p.sq)
    near_mine = _distances(mine)
    near_theirs = _distances(theirs)
    score = 0.0
    memo = _VALUE_MEMO
    for p in pieces:
        kind = p.kind
        worth = memo.get((kind, p.articles))
        if worth is None:
            worth = piece_worth(kind, p.articles)
        stunned = turn < p.stunned_until
        if stunned:
            worth *= _STUN_FACTOR
        if p.side is side:
            if _ATTACKING[kind]:
                pressure = _PRESSURE[near_theirs[p.sq]]
                worth += pressure * 0.5 if stunned else pressure
            if near_mine[p.sq] <= 1 and not _PRIMARY[kind]:
                worth += _SHIELD
            score += worth
        else:
            if _ATTACKING[kind]:
                pressure = _PRESSURE[near_mine[p.sq]]
                worth += pressure * 0.5 if stunned else pressure
            if near_theirs[p.sq] <= 1 and not _PRIMARY[kind]:
                worth += _SHIELD
            score -= worth
    for r in position.reinforcements:
        if r.kind is None:
            worth = 3.0 * _REINFORCEMENT_FACTOR
        else:
            worth = PIECE_VALUES.get(r.kind, 2.0) * _REINFORCEMENT_FACTOR
        score += worth if r.side is side else -worth
    if position.projectiles:
        score += _projectile_terms(position, side)
    return score


def _projectile_terms(position: Position, side: Side) -> float:
    """Projectiles flying toward pieces: a share of the worth of the first piece on their
    line (the target may step aside; homing ones follow it)."""
    occupied: dict[int, list[Piece]] = {}
    for p in position.pieces:
        occupied.setdefault(p.sq * 3 + p.level, []).append(p)
    score = 0.0
    for proj in position.projectiles:
        level = proj.level
        sq = proj.sq
        dr, dc = proj.dir
        row, col = sq // 10, sq % 10
        for step in range(1, 4):
            row, col = row + dr, col + dc
            if not (0 <= row < 10 and 0 <= col < 10):
                break
            here = occupied.get((row * 10 + col) * 3 + level)
            if here:
                share = (0.5 if proj.target is not None else 0.3) / step
                for p in here:
                    worth = piece_worth(p.kind, p.articles) + (6.0 if _PRIMARY[p.kind] else 0.0)
                    score += -share * worth if p.side is side else share * worth
                break
    return score


def piece_at_stake(p: Piece) -> float:
    """What losing ``p`` costs its side (the primary piece: the game)."""
    return WIN if _PRIMARY[p.kind] else piece_worth(p.kind, p.articles)
