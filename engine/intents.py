"""Intents: the small value types a player (or peer) sends; the only way to change a game."""

from __future__ import annotations

from dataclasses import dataclass

from engine import board
from engine.pieces import Hand, PieceKind


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


@dataclass(frozen=True, slots=True)
class EndTurn:
    """R4.11: end the turn (after the mandatory Move, R4.4)."""

    def describe(self) -> str:
        return "end turn"


Intent = Move | EndTurn
