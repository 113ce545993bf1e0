"""The game-end test (R12): one implementation for every action and resolution step."""

from __future__ import annotations

from collections.abc import Sequence

from wec.engine.pieces import PieceKind, Side, describe_kind
from wec.engine.position import Result

# A primary government piece lost in an action or step: its side, its kind and how
# (the end of the R12.1 reason: "destroyed (flame) at (4,5) ground", "taken at ...").
Loss = tuple[Side, PieceKind, str]


def game_end(actor: Side, losses: Sequence[Loss]) -> Result | None:
    """R12.1, R12.2 (D-41): after an action or step in which primary pieces were lost
    (in order), the acting side loses if it lost one, otherwise it wins; None if none
    was lost."""
    if not losses:
        return None
    sides = [side for side, _, _ in losses]
    loser = actor if actor in sides else actor.other
    _, kind, how = next(loss for loss in losses if loss[0] is loser)
    reason = f"R12.1: {loser.title} lost the {describe_kind(kind)}, {how}"
    if len(set(sides)) == 2:
        reason += " (both sides lost a primary piece: the acting side loses, R12.2)"
    return Result(loser.other, reason)
