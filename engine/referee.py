"""The local referee: the full state answering a half state's questions.

Hotseat, the computer opponent and tests keep the full state; a side resolving on its
half state (engine.half_resolution) can ask a ``FullStateReferee`` instead of the other
side's ``HalfReferee``: it answers exactly as the other side would, from the other
side's half state projected from the truth (engine.knowledge). Two-halves play (the
network's shape) never uses it: each side's questions go to the other side's half
referee. ``PieceInfo`` and ``FirstHit`` are engine.questions' (kept importable here).
"""

from __future__ import annotations

from wec.engine.half_referee import HalfReferee, OwnerConversation
from wec.engine.knowledge import project
from wec.engine.position import Position
from wec.engine.questions import Asker, FirstHit, PieceInfo, Referee

__all__ = ["FirstHit", "FullStateReferee", "PieceInfo", "Referee"]


class FullStateReferee:
    """A Referee backed by the full state (hotseat, computer opponent, tests)."""

    def __init__(self, truth: Position) -> None:
        if truth.viewer is not None:
            raise ValueError("a FullStateReferee needs the full state, not a half state")
        self.truth = truth

    def converse(self, intent: object, asker: Asker) -> OwnerConversation:
        """The conversation the asker's enemy would hold, from its half of the truth."""
        return HalfReferee(project(self.truth, asker.side.other)).converse(intent, asker)
