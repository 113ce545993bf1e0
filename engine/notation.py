"""Game-history notation (R16): one string per turn, written from the actions played,
read back into typed records, and replayed from the notation alone.

This module gathers the public names of the notation modules, so ``wec.engine.notation``
stays the one import for callers. Each concept has its own module:

* ``notation_codes``: the codes of R16.2 (piece types, articles, projectiles, effect
  results, levels, hands, paths, sides) and their reverse tables.
* ``notation_records``: the frozen records of one line (``TurnRecord`` and its
  elements), ``Step`` (one action as played) and ``NotationError``.
* ``notation_format``: a ``TurnRecord`` as its canonical line (``format_turn``).
* ``notation_parser``: a line read back into a ``TurnRecord`` (``parse_turn``).
* ``notation_writer``: a turn's steps into its records and line, full or censored
  per side (``record_turn``, ``write_turn``, ``write_game``, ``TurnRecorder``).
* ``notation_replay``: a game replayed from its lines alone, searching the order of
  each turn's actions (``replay``, ``replay_positions``, ``replay_steps``).
* ``notation_files``: the notation file format (tags and one turn per line).

They depend on each other in that order (codes and records at the bottom, replay
above the parser and the writer), with no cycle. They are flat ``engine/notation_*.py``
modules rather than an ``engine/notation/`` package because the wheel lists its
packages one by one (pyproject's ``[tool.setuptools] packages``) and the purity test
(tests/test_imports.py) reads ``engine/*.py``: a subpackage would be left out of both
unless they changed too. Every decision taken where R16 is silent is listed in
docs/notation.md.
"""

from __future__ import annotations

from wec.engine.notation_codes import (
    ARTICLE_CODES,
    CONVERTED,
    FIRE_ARTICLES,
    KILL_CODES,
    MAX_DOZE_ENTRIES,
    PIECE_CODES,
    PROJECTILE_CODES,
    RESULT_CODES,
    STUNNED,
    TAKE,
    TARGETED_ARTICLES,
    TRANSPORT_ARTICLES,
)
from wec.engine.notation_files import (
    NOTATION_FILE_FORMAT,
    NotationFile,
    format_notation_file,
    parse_notation_file,
)
from wec.engine.notation_format import format_turn
from wec.engine.notation_parser import parse_turn
from wec.engine.notation_records import (
    DozedPiece,
    DozeRecord,
    DropRecord,
    ExchangeRecord,
    FireRecord,
    Loc,
    MoveRecord,
    NotationError,
    PickupRecord,
    PieceRef,
    PieceResult,
    ProjectileGone,
    ProjectileMoved,
    ReinforceRecord,
    Result,
    Step,
    TransportRecord,
    TurnRecord,
)
from wec.engine.notation_replay import replay, replay_positions, replay_steps
from wec.engine.notation_writer import (
    TurnRecorder,
    TurnSteps,
    record_turn,
    remaining_stunned_turns,
    split_turns,
    write_game,
    write_turn,
)

__all__ = [
    "ARTICLE_CODES", "CONVERTED", "FIRE_ARTICLES", "KILL_CODES", "MAX_DOZE_ENTRIES",
    "NOTATION_FILE_FORMAT", "PIECE_CODES", "PROJECTILE_CODES", "RESULT_CODES", "STUNNED",
    "TAKE", "TARGETED_ARTICLES", "TRANSPORT_ARTICLES", "DozeRecord", "DozedPiece",
    "DropRecord", "ExchangeRecord", "FireRecord", "Loc", "MoveRecord", "NotationError",
    "NotationFile", "PickupRecord", "PieceRef", "PieceResult", "ProjectileGone",
    "ProjectileMoved", "ReinforceRecord", "Result", "Step", "TransportRecord", "TurnRecord",
    "TurnRecorder", "TurnSteps", "format_notation_file", "format_turn", "parse_notation_file",
    "parse_turn", "record_turn", "remaining_stunned_turns", "replay", "replay_positions",
    "replay_steps", "split_turns", "write_game", "write_turn",
]
