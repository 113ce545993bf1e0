"""The codes of WEC notation (R16.2): the short strings a notation line uses for piece
types, articles, projectiles and effects on pieces, and the marks of levels, hands,
transport paths and sides; plus the groups of articles the grammar treats apart.

The piece, article and projectile codes have their reverse tables here too, built from
the forward ones, so what engine.notation_format writes is what
engine.notation_parser reads; the aliases read but never written (D-45) are the only
entries of a reverse table without a forward twin.
"""

from __future__ import annotations

from wec.engine.board import Level
from wec.engine.pieces import TRAITS, ArticleKind, Hand, PieceKind, Side

__all__ = [
    "ARTICLE_BY_CODE", "ARTICLE_CODES", "CONVERTED", "FIRE_ARTICLES", "KILL_CODES",
    "LEVEL_MARKS", "MAX_DOZE_ENTRIES", "ORIENTS", "PATH_MARKS", "PIECE_BY_CODE",
    "PIECE_CODES", "PROJECTILE_BY_CODE", "PROJECTILE_CODES", "RESULT_CODES", "SIDE_CODES",
    "STUNNED", "TAKE", "TARGETED_ARTICLES", "TRANSPORT_ARTICLES",
]

A = ArticleKind

# ---------------------------------------------------------------- piece types

PIECE_CODES: dict[PieceKind, str] = {kind: TRAITS[kind].code for kind in PieceKind}
PIECE_BY_CODE: dict[str, PieceKind] = {code: kind for kind, code in PIECE_CODES.items()}
PIECE_BY_CODE["SP"] = PieceKind.STUNNER_PAWN  # alias read, never written (D-45)

# ---------------------------------------------------------------- articles

ARTICLE_CODES: dict[ArticleKind, str] = {
    A.FLAME: "FL", A.STUNNER: "ST", A.CONVERSION: "CS", A.TORPEDO_LAUNCHER: "TL",
    A.ROCKET_LAUNCHER: "RL", A.SAM_LAUNCHER: "SL", A.STEALTH: "SH", A.XXX: "XXX",
    A.ANTI_ROCKET: "ARL", A.ANTI_SAM: "ASL", A.ANTI_TORPEDO: "ATL", A.ANTI_CONVERSION: "ACS",
    A.ANTI_STUNNER: "AST", A.ANTI_FLAME: "AFL", A.ANTI_STEALTH: "ASH", A.BIKE: "BI",
    A.SCUBA_SUIT: "SC", A.JUMP_PACK: "JP",
}
ARTICLE_BY_CODE: dict[str, ArticleKind] = {code: a for a, code in ARTICLE_CODES.items()}
ARTICLE_BY_CODE["JU"] = A.JUMP_PACK  # alias read, never written (D-45)

FIRE_ARTICLES = frozenset({A.FLAME, A.STUNNER, A.CONVERSION, A.ROCKET_LAUNCHER,
                           A.TORPEDO_LAUNCHER, A.SAM_LAUNCHER, A.BIKE, A.SCUBA_SUIT,
                           A.JUMP_PACK})
TRANSPORT_ARTICLES = frozenset({A.BIKE, A.SCUBA_SUIT, A.JUMP_PACK})
TARGETED_ARTICLES = frozenset({A.ROCKET_LAUNCHER, A.SAM_LAUNCHER, A.TORPEDO_LAUNCHER})

# ---------------------------------------------------------------- projectiles and results

PROJECTILE_CODES: dict[str, str] = {"rocket": "R", "torpedo": "T", "sam": "S"}
PROJECTILE_BY_CODE = {code: kind for kind, code in PROJECTILE_CODES.items()}

# ResultType codes of effects on a piece; "CRK" (a crash: a failed landing, R7.3,
# R8.4.2) is added here as D-45 added FK and CV. A take by a Move writes the type
# of the taking piece instead (TAKE).
KILL_CODES: dict[str, str] = {"rocket": "RK", "torpedo": "TK", "sam": "SK", "flame": "FK",
                              "conversion_kill": "CK", "crash": "CRK"}
STUNNED = "STK"
CONVERTED = "CV"
TAKE = "take"
RESULT_CODES = frozenset({*KILL_CODES.values(), STUNNED, CONVERTED})

# ---------------------------------------------------------------- marks

LEVEL_MARKS = {Level.AIR: "^", Level.GROUND: "", Level.SUB: "v"}
ORIENTS = {Hand.RIGHT: ">", Hand.LEFT: "<"}
PATH_MARKS = {"beeline": "", "starboard": ">", "port": "<"}
SIDE_CODES = {Side.BLACK: "B", Side.WHITE: "W"}
MAX_DOZE_ENTRIES = 5  # the coincident + at most 4 dozed pieces (R8.8.2)
