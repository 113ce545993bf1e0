"""WEC rules engine: pure, deterministic, no I/O (see docs/architecture.md).

The public API: build a position (``standard_position``, ``position_from_dict``),
list what the side to act may do (``legal_intents``, ``legal_moves``), apply an
intent (``apply``: on the full state, or on one side's half state with the other
side's ``HalfReferee``), project a side's half state (``project``) and hash a state
(``full_state_hash``, ``public_state_hash``).

The package imports none of its modules itself: each name below is loaded from its
module when first used (PEP 562), so importing any one module of the engine loads only
what that module imports, and import cycles between modules cannot hide behind this
file (the import contract in pyproject.toml checks that there are none).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from wec.engine.encoding import encode_state, full_state_hash, public_state_hash, state_hash
    from wec.engine.errors import FormatError, IllegalIntent, WecError
    from wec.engine.formats import (
        intent_from_dict,
        intent_to_dict,
        position_from_dict,
        position_to_dict,
    )
    from wec.engine.game import Outcome, apply, legal_intents
    from wec.engine.half_referee import HalfReferee
    from wec.engine.intents import EndTurn, Intent, Move
    from wec.engine.knowledge import project
    from wec.engine.movement import legal_moves
    from wec.engine.options import Options
    from wec.engine.pieces import ArticleKind, Hand, PieceKind, Side
    from wec.engine.position import Piece, Position
    from wec.engine.questions import Referee
    from wec.engine.referee import FullStateReferee
    from wec.engine.setup import standard_position

_HOMES = {
    "encode_state": "encoding", "full_state_hash": "encoding", "public_state_hash": "encoding",
    "state_hash": "encoding", "FormatError": "errors", "IllegalIntent": "errors",
    "WecError": "errors", "intent_from_dict": "formats", "intent_to_dict": "formats",
    "position_from_dict": "formats", "position_to_dict": "formats", "Outcome": "game",
    "apply": "game", "legal_intents": "game", "HalfReferee": "half_referee",
    "EndTurn": "intents", "Intent": "intents", "Move": "intents", "project": "knowledge",
    "legal_moves": "movement", "Options": "options", "ArticleKind": "pieces", "Hand": "pieces",
    "PieceKind": "pieces", "Side": "pieces", "Piece": "position", "Position": "position",
    "Referee": "questions", "FullStateReferee": "referee", "standard_position": "setup",
}

__all__ = ["ArticleKind", "EndTurn", "FormatError", "FullStateReferee", "HalfReferee", "Hand",
    "IllegalIntent", "Intent", "Move", "Options", "Outcome", "Piece", "PieceKind", "Position",
    "Referee", "Side", "WecError", "apply", "encode_state", "full_state_hash",
    "intent_from_dict", "intent_to_dict", "legal_intents", "legal_moves",
    "position_from_dict", "position_to_dict", "project", "public_state_hash",
    "standard_position", "state_hash"]


def __getattr__(name: str) -> Any:
    """The public name ``name``, from its module (loaded on first use)."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'wec.engine' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"wec.engine.{home}"), name)
    globals()[name] = value
    return value
