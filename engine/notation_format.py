"""Writing WEC notation records as text (R16.1): ``format_turn`` gives the one canonical
string of a ``TurnRecord``, with the canonical codes (never the D-45 aliases).

It is the inverse of engine.notation_parser: a canonical line reads into records that
write back as the same line (tests/test_notation.py checks it on written games). It is
kept apart from engine.notation_writer, which decides *what* a turn records (from its
steps, full or censored), because the replay search also writes single elements with
it to compare them with the line being replayed.
"""

from __future__ import annotations

from wec.engine.notation_codes import (
    ARTICLE_CODES,
    LEVEL_MARKS,
    ORIENTS,
    PATH_MARKS,
    PIECE_CODES,
    PROJECTILE_CODES,
    SIDE_CODES,
)
from wec.engine.notation_records import (
    DozeRecord,
    ExchangeRecord,
    FireRecord,
    MoveRecord,
    PieceRef,
    ProjectileGone,
    ProjectileMoved,
    Result,
    TransportRecord,
    TurnRecord,
)
from wec.engine.pieces import Hand

__all__ = ["format_turn"]


def format_turn(record: TurnRecord) -> str:
    """The notation string of ``record`` (R16.1), with the canonical codes."""
    parts = ["MV:" + (_move_text(record.move) if record.move else "-")]
    parts += [_after_move_text(element) for element in record.after_move]
    parts += [f",FI{n}:{_fire_text(fire)}" for n, fire in enumerate(record.fires, 1)]
    if record.pickup:
        parts.append(f",PU:{_piece_text(record.pickup.piece)}^"
                     f"{ARTICLE_CODES[record.pickup.article]}")
    if record.exchange:
        parts.append(",EX:" + _exchange_text(record.exchange))
    if record.reinforce:
        r = record.reinforce
        parts.append(f",RE:{r.loc}{PIECE_CODES[r.kind]}{_orient(r.hand)}")
    if record.drop:
        parts.append(f",DR:{_piece_text(record.drop.piece)}v"
                     f"{ARTICLE_CODES[record.drop.article]}")
    if record.results:
        parts.append(",RS:" + ",".join(_result_text(r) for r in record.results))
    return "".join(parts)


def _orient(hand: Hand | None) -> str:
    """``Orient``: the hand of a piece that has one, else nothing."""
    return ORIENTS[hand] if hand else ""


def _piece_text(piece: PieceRef) -> str:
    """``PieceType Level Loc [Count Article{Article}] [Orient]``."""
    articles = ""
    if piece.articles:
        articles = f"{len(piece.articles)}" + "".join(ARTICLE_CODES[a] for a in piece.articles)
    return (f"{PIECE_CODES[piece.kind]}{LEVEL_MARKS[piece.level]}{piece.loc}{articles}"
            f"{_orient(piece.hand)}")


def _move_text(move: MoveRecord) -> str:
    """``Piece "->" Level Loc``: the mover and the destination asked for."""
    return f"{_piece_text(move.piece)}->{LEVEL_MARKS[move.level]}{move.loc}"


def _after_move_text(element: TransportRecord | DozeRecord) -> str:
    """A ``,DO>`` Doze or a ``-TRA->`` Transport, with its leading marker."""
    if isinstance(element, DozeRecord):
        return ",DO>" + str(element.dest) + ",".join(
            f"{PIECE_CODES[p.kind]}{p.loc}" for p in element.pieces)
    return f"-TRA->{_piece_text(element.piece)}{LEVEL_MARKS[element.level]}{element.loc}"


def _fire_text(fire: FireRecord) -> str:
    """``Article "/" Piece``, then ``=>`` a target or ``->`` a square (and a path)."""
    head = f"{ARTICLE_CODES[fire.article]}/{_piece_text(fire.piece)}"
    if fire.target is not None:
        return f"{head}=>{_piece_text(fire.target)}"
    return f"{head}->{fire.dest}{PATH_MARKS[fire.path]}"


def _exchange_text(ex: ExchangeRecord) -> str:
    """The giver, the article given, ``<=>`` the one taken back or ``->``, the receiver."""
    give = ARTICLE_CODES[ex.give]
    back = f"<=>{ARTICLE_CODES[ex.take]}<-" if ex.take is not None else "->"
    return f"{_piece_text(ex.giver)}->{give}{back}{_piece_text(ex.receiver)}"


def _result_text(result: Result) -> str:
    """A projectile moved (``->``) or gone (``v``), or an effect on a piece (``*``)."""
    if isinstance(result, ProjectileMoved):
        dr, dc = result.offset
        return f"{PROJECTILE_CODES[result.projectile]}->{result.loc}({dr},{dc})"
    if isinstance(result, ProjectileGone):
        return f"{PROJECTILE_CODES[result.projectile]}v{result.loc}"
    code = PIECE_CODES[result.taker] if result.taker is not None else result.effect
    return f"{code}*{_piece_text(result.piece)}{result.stun}{SIDE_CODES[result.side]}"
