"""Intents: the small value types a player (or peer) sends; the only way to change a game."""

from __future__ import annotations

from dataclasses import dataclass

from wec.engine import board
from wec.engine.pieces import ArticleKind, Hand, PieceKind
from wec.engine.values import fast_init


@fast_init
@dataclass(frozen=True, slots=True)
class Move:
    """R5: move the own piece at cell ``frm`` to cell ``to``.

    ``kind`` names the piece when two own pieces share the level, and ``hand`` when
    both are of one handed kind (two Choppers); ``carry`` says whether a Chopper or
    Sub takes its co-located passenger along (R8.7; None = only when the passenger
    must come, R2.5).
    """

    frm: int
    to: int
    kind: PieceKind | None = None
    carry: bool | None = None
    hand: Hand | None = None

    def describe(self) -> str:
        who = f" {self.kind.value}" if self.kind else ""
        return f"move{who} {board.describe_cell(self.frm)} -> {board.describe_cell(self.to)}"


@fast_init
@dataclass(frozen=True, slots=True)
class EndTurn:
    """R4.11: end the turn (after the mandatory Move, R4.4)."""

    def describe(self) -> str:
        return "end turn"




@fast_init
@dataclass(frozen=True, slots=True)
class PickUp:
    """R4.7: the own piece at Ground cell ``at`` picks up an unowned ``article`` there."""

    at: int
    article: ArticleKind
    kind: PieceKind | None = None
    hand: Hand | None = None

    def describe(self) -> str:
        return f"pick up {self.article.value} at {board.describe_cell(self.at)}"


@fast_init
@dataclass(frozen=True, slots=True)
class Drop:
    """R4.8: the own piece at cell ``frm`` drops a carried ``article`` onto Ground."""

    frm: int
    article: ArticleKind
    kind: PieceKind | None = None
    hand: Hand | None = None

    def describe(self) -> str:
        return f"drop {self.article.value} at {board.describe_cell(self.frm)}"


@fast_init
@dataclass(frozen=True, slots=True)
class Exchange:
    """R4.9: the own piece at ``frm`` gives ``give`` to the own piece at ``to``, which
    gives ``take`` back (a swap) or nothing (a transfer, ``take`` None)."""

    frm: int
    to: int
    give: ArticleKind
    take: ArticleKind | None = None
    kind: PieceKind | None = None
    to_kind: PieceKind | None = None
    hand: Hand | None = None
    to_hand: Hand | None = None

    def describe(self) -> str:
        back = f" for {self.take.value}" if self.take else ""
        return (f"exchange {self.give.value}{back} between {board.describe_cell(self.frm)} "
                f"and {board.describe_cell(self.to)}")


@fast_init
@dataclass(frozen=True, slots=True)
class Reinforce:
    """R10.3: bring a waiting reinforcement of ``kind`` onto Ground of square ``sq``."""

    sq: int
    kind: PieceKind
    hand: Hand | None = None

    def describe(self) -> str:
        return f"reinforce {self.kind.value} at {board.describe_square(self.sq)}"


@fast_init
@dataclass(frozen=True, slots=True)
class Fire:
    """R6, R8.1: the own piece at cell ``frm`` fires every ready instance of ``weapon``.

    The aim is one of: ``dir`` (Flame, Stunner, Conversion, directional Rocket, SAM,
    Torpedo), ``target``, the cell of a visible enemy piece (homing SAM or Torpedo,
    restricted Rocket), or ``dest``, a square, with ``path`` (transport articles).
    ``target_kind`` names the target where two enemy pieces share its cell.
    """

    frm: int
    weapon: ArticleKind
    dir: tuple[int, int] | None = None
    target: int | None = None
    dest: int | None = None
    path: str = "beeline"
    kind: PieceKind | None = None
    hand: Hand | None = None
    target_kind: PieceKind | None = None

    def describe(self) -> str:
        if self.dir is not None:
            aim = f"direction {self.dir}"
        elif self.target is not None:
            aim = f"at {board.describe_cell(self.target)}"
        else:
            aim = f"to {board.describe_square(self.dest or 0)} ({self.path})"
        return f"fire {self.weapon.value} from {board.describe_cell(self.frm)} {aim}"


@fast_init
@dataclass(frozen=True, slots=True)
class Doze:
    """R8.8: the own Dozer at Ground of ``sq`` dozes the Ground pieces of ``squares``
    one square along ``dir``, with its coincident piece. ``sq`` is ``UNSEEN_SQUARE`` in
    the form the other side is told when it sees neither the Dozer nor its coincident
    (R9.1: the rules show it only the dozed pieces it sees move)."""

    sq: int
    squares: tuple[int, ...]
    dir: tuple[int, int]

    def describe(self) -> str:
        chosen = ", ".join(board.describe_square(q) for q in self.squares) or "nothing"
        frm = "an unseen square" if self.sq == UNSEEN_SQUARE else board.describe_square(self.sq)
        return f"doze from {frm} ({chosen}) direction {self.dir}"


UNSEEN_SQUARE = -1  # a Doze's Dozer square the other side does not see (R9.1)


Intent = Move | EndTurn | PickUp | Drop | Exchange | Reinforce | Fire | Doze
