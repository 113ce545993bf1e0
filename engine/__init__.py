"""WEC rules engine: pure, deterministic, no I/O (see docs/architecture.md).

The public API: build a position (``standard_position``, ``position_from_dict``),
list what the side to act may do (``legal_intents``, ``legal_moves``), apply an
intent (``apply``), project a side's knowledge (``project``) and hash a state
(``state_hash``).
"""

from wec.engine.encoding import encode_state, state_hash
from wec.engine.errors import FormatError, IllegalIntent, WecError
from wec.engine.formats import (
    intent_from_dict,
    intent_to_dict,
    position_from_dict,
    position_to_dict,
)
from wec.engine.game import Outcome, apply, legal_intents
from wec.engine.intents import EndTurn, Intent, Move
from wec.engine.knowledge import project
from wec.engine.movement import legal_moves
from wec.engine.options import Options
from wec.engine.pieces import ArticleKind, Hand, PieceKind, Side
from wec.engine.position import Piece, Position
from wec.engine.referee import FullStateReferee, Referee
from wec.engine.setup import standard_position

__all__ = [
    "ArticleKind", "EndTurn", "FormatError", "FullStateReferee", "Hand", "IllegalIntent",
    "Intent", "Move", "Options", "Outcome", "Piece", "PieceKind", "Position", "Referee", "Side",
    "WecError", "apply", "encode_state", "intent_from_dict", "intent_to_dict", "legal_intents",
    "legal_moves", "position_from_dict", "position_to_dict", "project", "standard_position",
    "state_hash",
]
