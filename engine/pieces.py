"""Piece kinds, article kinds, sides and the inherent traits of R2.1 and R11."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from wec.engine.board import AIR, GROUND, SUB, Level


class Side(Enum):
    """The two players (R4.1: Black acts on odd turns)."""

    __hash__ = object.__hash__  # members are singletons; C-level hash keeps rules fast

    BLACK = "black"
    WHITE = "white"

    @property
    def other(self) -> Side:
        return Side.WHITE if self is Side.BLACK else Side.BLACK

    @property
    def forward(self) -> int:
        """Row sign of this side's forward (R1.3)."""
        return 1 if self is Side.WHITE else -1

    @property
    def title(self) -> str:
        return self.value.capitalize()


class Hand(Enum):
    """Handedness of Tanks, Clerics and Choppers (R2.3)."""

    __hash__ = object.__hash__  # members are singletons; C-level hash keeps rules fast

    RIGHT = "right"
    LEFT = "left"


class ArticleKind(Enum):
    """The 18 article types of R3.1 (values are the position-format names)."""

    __hash__ = object.__hash__  # members are singletons; C-level hash keeps rules fast

    FLAME = "flame"
    STUNNER = "stunner"
    CONVERSION = "conversion"
    ROCKET_LAUNCHER = "rocket_launcher"
    SAM_LAUNCHER = "sam_launcher"
    TORPEDO_LAUNCHER = "torpedo_launcher"
    ANTI_FLAME = "anti_flame"
    ANTI_STUNNER = "anti_stunner"
    ANTI_CONVERSION = "anti_conversion"
    ANTI_ROCKET = "anti_rocket"
    ANTI_SAM = "anti_sam"
    ANTI_TORPEDO = "anti_torpedo"
    STEALTH = "stealth"
    ANTI_STEALTH = "anti_stealth"
    BIKE = "bike"
    JUMP_PACK = "jump_pack"
    SCUBA_SUIT = "scuba_suit"
    XXX = "xxx"


class PieceKind(Enum):
    """Every piece type of R2.1 and R11 (values are the position-format names)."""

    __hash__ = object.__hash__  # members are singletons; C-level hash keeps rules fast

    TANK = "tank"
    DOZER = "dozer"
    CLERIC = "cleric"
    CHOPPER = "chopper"
    JET = "jet"
    SUB = "sub"
    DESTROYER = "destroyer"
    AAA = "aaa"
    KING = "king"
    QUEEN = "queen"
    DICTATOR = "dictator"
    ASSASSIN = "assassin"
    AVATAR = "avatar"
    ACOLYTE = "acolyte"
    PRESIDENT = "president"
    PRIME_MINISTER = "prime_minister"
    FLAME_PAWN = "flame_pawn"
    ROCKET_PAWN = "rocket_pawn"
    STUNNER_PAWN = "stunner_pawn"
    CONVERSION_PAWN = "conversion_pawn"
    SAM_TORPEDO_PAWN = "sam_torpedo_pawn"
    XXX_PAWN = "xxx_pawn"
    STEALTH_PAWN = "stealth_pawn"


class Movement(Enum):
    """How a kind moves (R5.3.9: every government piece moves like King or Queen)."""

    __hash__ = object.__hash__  # members are singletons; C-level hash keeps rules fast

    PAWN = "pawn"
    KING = "king"
    STEP = "step"  # Dozer, Destroyer, AAA: one square, non-combat (R5.3.2)
    SUB = "sub"
    JET = "jet"
    TANK = "tank"
    CLERIC = "cleric"
    CHOPPER = "chopper"
    QUEEN = "queen"


class Government(Enum):
    """The four governments of R11 (option O5)."""

    __hash__ = object.__hash__  # members are singletons; C-level hash keeps rules fast

    MONARCHY = "monarchy"
    DICTATORSHIP = "dictatorship"
    THEOCRACY = "theocracy"
    DEMOCRACY = "democracy"


A = ArticleKind


@dataclass(frozen=True, slots=True)
class KindTraits:
    """The permanent facts of one piece kind (R2.1, R11.1)."""

    code: str
    movement: Movement
    inherent: tuple[ArticleKind, ...]
    coexists: bool = False
    carries: bool = False
    handed: bool = False
    native: frozenset[Level] = frozenset({GROUND})
    primary: bool = False
    secondary: bool = False
    pawn: bool = False


_G = frozenset({GROUND})

TRAITS: dict[PieceKind, KindTraits] = {
    PieceKind.JET: KindTraits("JE", Movement.JET, (A.SAM_LAUNCHER, A.ROCKET_LAUNCHER),
                              native=frozenset({GROUND, AIR})),
    PieceKind.CHOPPER: KindTraits("CH", Movement.CHOPPER, (A.STUNNER,), coexists=True,
                                  carries=True, handed=True, native=frozenset({GROUND, AIR})),
    PieceKind.DOZER: KindTraits("DO", Movement.STEP, (), coexists=True),
    PieceKind.TANK: KindTraits("TA", Movement.TANK, (A.FLAME,), handed=True),
    PieceKind.CLERIC: KindTraits("CL", Movement.CLERIC, (A.CONVERSION,), handed=True),
    PieceKind.DESTROYER: KindTraits("DS", Movement.STEP, (A.TORPEDO_LAUNCHER,), coexists=True),
    PieceKind.AAA: KindTraits("AAA", Movement.STEP, (A.STEALTH, A.SAM_LAUNCHER), coexists=True),
    PieceKind.SUB: KindTraits("SU", Movement.SUB, (A.TORPEDO_LAUNCHER, A.ROCKET_LAUNCHER),
                              coexists=True, carries=True, native=frozenset({GROUND, SUB})),
    PieceKind.KING: KindTraits("K", Movement.KING, (A.ANTI_FLAME, A.ANTI_ROCKET), primary=True),
    PieceKind.QUEEN: KindTraits("Q", Movement.QUEEN, (A.ANTI_CONVERSION, A.ANTI_STUNNER),
                                secondary=True),
    PieceKind.DICTATOR: KindTraits("DI", Movement.KING, (A.ANTI_CONVERSION, A.ANTI_ROCKET),
                                   primary=True),
    PieceKind.ASSASSIN: KindTraits("AS", Movement.QUEEN, (A.ANTI_FLAME, A.ANTI_STUNNER),
                                   secondary=True),
    PieceKind.AVATAR: KindTraits("AV", Movement.KING, (A.ANTI_STUNNER, A.ANTI_ROCKET),
                                 primary=True),
    PieceKind.ACOLYTE: KindTraits("AC", Movement.QUEEN, (A.ANTI_FLAME, A.ANTI_CONVERSION),
                                  secondary=True),
    PieceKind.PRESIDENT: KindTraits("PR", Movement.KING, (A.ANTI_CONVERSION, A.ANTI_FLAME),
                                    primary=True),
    PieceKind.PRIME_MINISTER: KindTraits("PM", Movement.QUEEN, (A.ANTI_ROCKET, A.ANTI_STUNNER),
                                         secondary=True),
    PieceKind.FLAME_PAWN: KindTraits("FP", Movement.PAWN, (A.FLAME, A.ANTI_FLAME), pawn=True),
    PieceKind.ROCKET_PAWN: KindTraits("RP", Movement.PAWN, (A.ROCKET_LAUNCHER, A.ANTI_ROCKET),
                                      pawn=True),
    PieceKind.STUNNER_PAWN: KindTraits("STP", Movement.PAWN, (A.STUNNER, A.ANTI_STUNNER),
                                       pawn=True),
    PieceKind.CONVERSION_PAWN: KindTraits("CP", Movement.PAWN, (A.CONVERSION, A.ANTI_CONVERSION),
                                          pawn=True),
    PieceKind.SAM_TORPEDO_PAWN: KindTraits("SOP", Movement.PAWN,
                                           (A.SAM_LAUNCHER, A.TORPEDO_LAUNCHER), pawn=True),
    PieceKind.XXX_PAWN: KindTraits("XP", Movement.PAWN, (A.XXX,), pawn=True),
    PieceKind.STEALTH_PAWN: KindTraits("SHP", Movement.PAWN, (A.STEALTH, A.ANTI_STEALTH),
                                       pawn=True),
}

# R11.1: the primary and secondary piece of each government.
GOVERNMENT_PIECES: dict[Government, tuple[PieceKind, PieceKind]] = {
    Government.MONARCHY: (PieceKind.KING, PieceKind.QUEEN),
    Government.DICTATORSHIP: (PieceKind.DICTATOR, PieceKind.ASSASSIN),
    Government.THEOCRACY: (PieceKind.AVATAR, PieceKind.ACOLYTE),
    Government.DEMOCRACY: (PieceKind.PRESIDENT, PieceKind.PRIME_MINISTER),
}

def traits(kind: PieceKind) -> KindTraits:
    return TRAITS[kind]


def may_share(count: int, coexists: bool) -> bool:
    """R1.6(a, c): whether ``count`` pieces of one side may stand together at one level
    of a square, ``coexists`` saying whether one of them has the coexistence ability: at
    most 2, and 2 only with a coexisting piece. (R1.6(b), pieces of both sides, is the
    caller's: it never holds outside the conversion anomaly, R6.7.4.) The one
    implementation of the rule; every check of capacity and coexistence calls it."""
    return count <= 1 or (count == 2 and coexists)


def article_capacity(kind: PieceKind, articles: tuple[ArticleKind, ...]) -> int:
    """How many articles a piece may carry (R2.6): XXX boxes raise it, never stack."""
    if kind is PieceKind.XXX_PAWN:
        return 2
    return 3 if ArticleKind.XXX in articles else 1


_ACRONYMS = {"aaa": "AAA", "xxx": "XXX", "sam": "SAM"}


def describe_kind(kind: PieceKind) -> str:
    """Readable name for messages: ``flame_pawn`` -> ``Flame Pawn``, ``aaa`` -> ``AAA``."""
    return " ".join(_ACRONYMS.get(word, word.capitalize()) for word in kind.value.split("_"))
