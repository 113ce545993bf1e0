"""The standard starting setup (R15): 56 pieces, 68 articles, reinforcements, locks."""

from __future__ import annotations

from wec.engine import board
from wec.engine.board import GROUND
from wec.engine.options import Options
from wec.engine.pieces import GOVERNMENT_PIECES, ArticleKind, Hand, PieceKind, Side, traits
from wec.engine.position import Lock, Piece, Position, Reinforcement, empty_ground
from wec.engine.visibility import settle

K = PieceKind
A = ArticleKind
R, L = Hand.RIGHT, Hand.LEFT

# R15.1, White's half: column -> (row 1 pieces, row 2 pieces); handedness per D-44.
_WHITE_SETUP: tuple[tuple[tuple[tuple[PieceKind, Hand | None], ...],
                          tuple[tuple[PieceKind, Hand | None], ...]], ...] = (
    (((K.TANK, R),), ((K.ROCKET_PAWN, None),)),
    (((K.DOZER, None), (K.SUB, None)), ((K.STUNNER_PAWN, None),)),
    (((K.CLERIC, R),), ((K.FLAME_PAWN, None), (K.AAA, None))),
    (((K.CHOPPER, R), (K.JET, None)), ((K.CONVERSION_PAWN, None), (K.DESTROYER, None))),
    (((K.KING, None),), ((K.STEALTH_PAWN, None),)),
    (((K.QUEEN, None),), ((K.XXX_PAWN, None),)),
    (((K.CHOPPER, L), (K.JET, None)), ((K.CONVERSION_PAWN, None), (K.DESTROYER, None))),
    (((K.CLERIC, L),), ((K.FLAME_PAWN, None), (K.AAA, None))),
    (((K.DOZER, None), (K.SUB, None)), ((K.STUNNER_PAWN, None),)),
    (((K.TANK, L),), ((K.ROCKET_PAWN, None),)),
)

# R15.2: unowned articles, column -> rows 3..8.
_ARTICLES: tuple[tuple[tuple[ArticleKind, ...], ...], ...] = (
    ((A.ANTI_STEALTH,), (A.ANTI_TORPEDO,), (A.TORPEDO_LAUNCHER,), (A.TORPEDO_LAUNCHER,),
     (A.ANTI_TORPEDO,), (A.STEALTH,)),
    ((A.TORPEDO_LAUNCHER,), (A.ANTI_STEALTH,), (A.STEALTH,), (A.STEALTH,), (A.ANTI_STEALTH,),
     (A.TORPEDO_LAUNCHER,)),
    ((A.BIKE, A.SAM_LAUNCHER), (A.SAM_LAUNCHER,), (A.ANTI_SAM,), (A.ANTI_SAM,),
     (A.SAM_LAUNCHER,), (A.BIKE, A.SAM_LAUNCHER)),
    ((A.JUMP_PACK,), (A.ANTI_STUNNER,), (A.STUNNER,), (A.CONVERSION,), (A.ANTI_CONVERSION,),
     (A.JUMP_PACK,)),
    ((A.SCUBA_SUIT,), (A.ANTI_FLAME,), (A.XXX, A.FLAME), (A.XXX, A.ROCKET_LAUNCHER),
     (A.ANTI_ROCKET,), (A.SCUBA_SUIT,)),
    ((A.SCUBA_SUIT,), (A.ANTI_ROCKET,), (A.XXX, A.ROCKET_LAUNCHER), (A.XXX, A.FLAME),
     (A.ANTI_FLAME,), (A.SCUBA_SUIT,)),
    ((A.JUMP_PACK,), (A.ANTI_CONVERSION,), (A.CONVERSION,), (A.STUNNER,), (A.ANTI_STUNNER,),
     (A.JUMP_PACK,)),
    ((A.BIKE, A.SAM_LAUNCHER), (A.SAM_LAUNCHER,), (A.ANTI_SAM,), (A.ANTI_SAM,),
     (A.SAM_LAUNCHER,), (A.BIKE, A.SAM_LAUNCHER)),
    ((A.TORPEDO_LAUNCHER,), (A.ANTI_STEALTH,), (A.STEALTH,), (A.STEALTH,), (A.ANTI_STEALTH,),
     (A.TORPEDO_LAUNCHER,)),
    ((A.STEALTH,), (A.ANTI_TORPEDO,), (A.TORPEDO_LAUNCHER,), (A.TORPEDO_LAUNCHER,),
     (A.ANTI_TORPEDO,), (A.ANTI_STEALTH,)),
)

WEAPON_ARTICLES = frozenset({A.FLAME, A.STUNNER, A.CONVERSION, A.ROCKET_LAUNCHER,
                             A.SAM_LAUNCHER, A.TORPEDO_LAUNCHER})

# R15.4 placeholder (D-39): White's activation squares; Black's are the 180-degree turn.
# "secondary" stands for the side's secondary government piece (R10.2, D-40).
_WHITE_REINFORCEMENTS: tuple[tuple[int, int, str, Hand | None], ...] = (
    (10, 1, "tank", R), (10, 2, "jet", None), (10, 2, "sub", None), (10, 3, "cleric", R),
    (10, 8, "secondary", None), (10, 8, "dozer", None), (10, 9, "jet", None),
    (10, 9, "sub", None), (10, 10, "aaa", None), (10, 10, "destroyer", None),
)


def _rotate(row: int, col: int) -> tuple[int, int]:
    """R15.1: Black's setup is the 180-degree rotation of White's."""
    return 11 - row, 11 - col


def standard_position(options: Options | None = None) -> Position:
    """The standard start (R15), adjusted by the quantity and government options."""
    options = options or Options()
    pieces: list[Piece] = []
    for side in (Side.WHITE, Side.BLACK):
        primary, secondary = _government_kinds(options, side)
        for col0, rows in enumerate(_WHITE_SETUP):
            for row, entries in ((1, rows[0]), (2, rows[1])):
                r, c = (row, col0 + 1) if side is Side.WHITE else _rotate(row, col0 + 1)
                for kind, hand in entries:
                    kind = {K.KING: primary, K.QUEEN: secondary}.get(kind, kind)
                    pieces.append(Piece(len(pieces), side, kind, board.square(r, c), GROUND,
                                        hand))
    ground = list(empty_ground())
    for col0, column in enumerate(_ARTICLES):
        for row0, articles in enumerate(column):
            kept = tuple(a for a in articles if _article_kept(a, options))
            ground[board.square(row0 + 3, col0 + 1)] = kept
    locks = _stealth_pawn_locks(pieces) if options.stealth_lock_on else ()  # O17
    start = Position(turn=1, pieces=tuple(pieces), ground_articles=tuple(ground),
                     options=options, reinforcements=_reinforcements(options), locks=locks,
                     next_pid=len(pieces))
    # R9: each piece's visibility derived by the rules (the Stealth Pawns seen through their
    # locks, R15.3, only with O17 on; the locks kept only on stealthy targets, R9.4(c))
    return settle(start)


def _government_kinds(options: Options, side: Side) -> tuple[PieceKind, PieceKind]:
    return GOVERNMENT_PIECES[options.government(side)]


def _article_kept(article: ArticleKind, options: Options) -> bool:
    """O30, O31 (D-42): 'None' removes weapon articles or XXX boxes from the setup."""
    if article in WEAPON_ARTICLES and options.weapon_articles == "none":
        return False
    return not (article is A.XXX and options.xxx_boxes == "none")


def _reinforcements(options: Options) -> tuple[Reinforcement, ...]:
    if options.reinforcements == "none":  # O29
        return ()
    out = []
    for side in (Side.WHITE, Side.BLACK):
        secondary = _government_kinds(options, side)[1]
        for row, col, name, hand in _WHITE_REINFORCEMENTS:
            r, c = (row, col) if side is Side.WHITE else _rotate(row, col)
            kind = secondary if name == "secondary" else PieceKind(name)
            out.append(Reinforcement(side, kind, board.square(r, c), hand))
    return tuple(out)


def _stealth_pawn_locks(pieces: list[Piece]) -> tuple[Lock, ...]:
    """R15.3: the two Stealth Pawns start locked on each other (instance 0 = inherent)."""
    pawns = {p.side: p for p in pieces if p.kind is K.STEALTH_PAWN}
    if len(pawns) != 2:
        return ()
    white, black = pawns[Side.WHITE], pawns[Side.BLACK]
    assert A.ANTI_STEALTH in traits(K.STEALTH_PAWN).inherent
    return (Lock(white.pid, 0, black.pid), Lock(black.pid, 0, white.pid))
