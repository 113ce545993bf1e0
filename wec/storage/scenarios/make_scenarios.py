"""Build the bundled scenarios and write their position files (reproducible).

Each scenario is built with the board editor (engine.editor), checked by its R14.4
checks (``start_position`` refuses an invalid board) and written in wec-position/1 JSON,
one piece, article or reinforcement per line, beside this script. Run it after
changing a scenario::

    .venv/bin/python -m wec.storage.scenarios.make_scenarios

tests/test_scenarios.py checks that the files in the package are exactly what this
script writes. The descriptions a player reads live in ``wec/scenarios/__init__.py``
and docs/scenarios.md.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from pathlib import Path

from wec.engine import board
from wec.engine.board import GROUND, SUB, Level
from wec.engine.editor import Editor
from wec.engine.options import Options
from wec.engine.pieces import ArticleKind, Hand, PieceKind, Side
from wec.engine.position import Position
from wec.engine.setup import standard_position

K = PieceKind
A = ArticleKind
R, L = Hand.RIGHT, Hand.LEFT
FOLDER = Path(__file__).resolve().parent

# (kind, row, col, level, hand) in White's half; Black's is the 180-degree turn (R15.1).
Placement = tuple[PieceKind, int, int, Level, Hand | None]
# (article, row, col) of the unowned articles on White's half (rows 3-5).
ArticlePlacement = tuple[ArticleKind, int, int]


def _turned(row: int, col: int) -> tuple[int, int]:
    """R15.1: Black's setup is the 180-degree rotation of White's."""
    return 11 - row, 11 - col


def _symmetric(editor: Editor, pieces: Iterable[Placement],
               articles: Iterable[ArticlePlacement] = (),
               reinforcements: Iterable[tuple[PieceKind, int, int, Hand | None]] = ()
               ) -> Editor:
    """``editor`` with White's pieces, articles and reinforcements as given and Black's
    the same turned by 180 degrees (hands kept, as in R15.1)."""
    for side in (Side.WHITE, Side.BLACK):
        def at(row: int, col: int, side: Side = side) -> tuple[int, int]:
            return (row, col) if side is Side.WHITE else _turned(row, col)

        for kind, row, col, level, hand in pieces:
            editor = editor.add_piece(side, kind, at(row, col), level, hand=hand)
        for kind, row, col, hand in reinforcements:
            editor = editor.add_piece(side, kind, at(row, col), hand=hand, reinforcement=True)
    for article, row, col in articles:
        editor = editor.add_article(article, (row, col)).add_article(article, _turned(row, col))
    return editor


def _without(position: Position, kinds: frozenset[PieceKind],
             articles: frozenset[ArticleKind]) -> Editor:
    """The position in the editor with the given piece kinds (on the board and waiting
    as reinforcements) and unowned article kinds taken away."""
    editor = Editor(position)
    for piece in position.pieces:
        if piece.kind in kinds:
            editor = editor.remove_piece((piece.row, piece.col), piece.level, piece.kind,
                                         side=piece.side, hand=piece.hand)
    for waiting in position.reinforcements:
        if waiting.kind in kinds:
            at = (board.row_of(waiting.sq), board.col_of(waiting.sq))
            editor = editor.remove_reinforcement(waiting.side, waiting.kind, at)
    for sq, here in enumerate(position.ground_articles):
        for article in here:
            if article in articles:
                editor = editor.remove_article(article, (board.row_of(sq), board.col_of(sq)))
    return editor


# ---------------------------------------------------------------- the scenarios

def standard() -> Position:
    """R15 with the R13 defaults: the standard game."""
    return Editor(standard_position()).start_position()


def open_information() -> Position:
    """The standard setup with O15 (stealth) and O16 (submersion) invisibility off."""
    options = Options(stealth_invisibility=False, submersion_invisibility=False)
    return Editor(standard_position(options)).start_position()


def ground_war() -> Position:
    """The standard setup without the pieces that reach Air or Sub (Jets, Choppers,
    Subs, on the board and as reinforcements) and without transport articles."""
    air_and_sub = frozenset({K.JET, K.CHOPPER, K.SUB})
    transport = frozenset({A.BIKE, A.JUMP_PACK, A.SCUBA_SUIT})
    return _without(standard_position(), air_and_sub, transport).start_position()


def air_war() -> Position:
    """Jets, Choppers and AAA over a line of SAM-Torpedo Pawns, SAM articles between."""
    pieces: list[Placement] = [
        (K.JET, 1, 2, GROUND, None), (K.JET, 1, 3, GROUND, None),
        (K.CHOPPER, 1, 4, GROUND, R), (K.KING, 1, 5, GROUND, None),
        (K.QUEEN, 1, 6, GROUND, None), (K.CHOPPER, 1, 7, GROUND, L),
        (K.JET, 1, 8, GROUND, None), (K.JET, 1, 9, GROUND, None),
        (K.AAA, 2, 3, GROUND, None), (K.AAA, 2, 8, GROUND, None),
        (K.STEALTH_PAWN, 2, 5, GROUND, None), (K.XXX_PAWN, 2, 6, GROUND, None),
    ]
    pieces += [(K.SAM_TORPEDO_PAWN, 2, col, GROUND, None) for col in (1, 2, 4, 7, 9, 10)]
    articles: list[ArticlePlacement] = [
        (A.SAM_LAUNCHER, 3, 2), (A.SAM_LAUNCHER, 3, 9), (A.ANTI_SAM, 4, 3),
        (A.ANTI_SAM, 4, 8), (A.JUMP_PACK, 3, 4), (A.JUMP_PACK, 3, 7),
        (A.XXX, 5, 5), (A.ANTI_STEALTH, 4, 5), (A.STEALTH, 5, 2),
    ]
    reinforcements = [(K.JET, 10, 2, None), (K.JET, 10, 9, None)]
    return _symmetric(Editor.empty(), pieces, articles, reinforcements).start_position()


def submarine_duel() -> Position:
    """Four submerged Subs a side, Destroyers hunting them, Torpedo articles between."""
    pieces: list[Placement] = [
        (K.DOZER, 1, 2, GROUND, None), (K.DESTROYER, 1, 3, GROUND, None),
        (K.KING, 1, 5, GROUND, None), (K.QUEEN, 1, 6, GROUND, None),
        (K.DESTROYER, 1, 8, GROUND, None), (K.DOZER, 1, 9, GROUND, None),
    ]
    pieces += [(K.SAM_TORPEDO_PAWN, 2, col, GROUND, None) for col in range(1, 11)]
    pieces += [(K.SUB, 2, col, SUB, None) for col in (2, 4, 7, 9)]
    articles: list[ArticlePlacement] = [
        (A.TORPEDO_LAUNCHER, 3, 1), (A.TORPEDO_LAUNCHER, 3, 10), (A.ANTI_TORPEDO, 4, 2),
        (A.ANTI_TORPEDO, 4, 9), (A.SCUBA_SUIT, 3, 5), (A.SCUBA_SUIT, 3, 6),
        (A.XXX, 5, 4), (A.TORPEDO_LAUNCHER, 5, 4), (A.STEALTH, 4, 6),
    ]
    reinforcements = [(K.SUB, 10, 2, None), (K.SUB, 10, 9, None)]
    return _symmetric(Editor.empty(), pieces, articles, reinforcements).start_position()


def king_hunt() -> Position:
    """Both Kings stand forward on row 4 / 7 behind two Pawns, a small strike force
    behind them; no articles and no reinforcements (O29, O30, O31 none)."""
    pieces: list[Placement] = [
        (K.TANK, 1, 1, GROUND, R), (K.CLERIC, 1, 3, GROUND, R), (K.CHOPPER, 1, 4, GROUND, R),
        (K.QUEEN, 1, 6, GROUND, None), (K.CHOPPER, 1, 7, GROUND, L),
        (K.CLERIC, 1, 8, GROUND, L), (K.TANK, 1, 10, GROUND, L),
        (K.ROCKET_PAWN, 2, 2, GROUND, None), (K.STUNNER_PAWN, 2, 9, GROUND, None),
        (K.KING, 4, 5, GROUND, None), (K.FLAME_PAWN, 5, 4, GROUND, None),
        (K.CONVERSION_PAWN, 5, 6, GROUND, None),
    ]
    options = Options(reinforcements="none", weapon_articles="none", xxx_boxes="none")
    return _symmetric(Editor.empty(options), pieces).start_position()


BUILDERS: dict[str, Callable[[], Position]] = {
    "standard": standard,
    "open_information": open_information,
    "ground_war": ground_war,
    "air_war": air_war,
    "submarine_duel": submarine_duel,
    "king_hunt": king_hunt,
}


def render(position: Position) -> str:
    """The file text of a scenario: the CLI's one-item-per-line position JSON."""
    from wec.storage.positions import dump_position

    return dump_position(position) + "\n"


def main(folder: Path = FOLDER) -> list[Path]:
    """Write every scenario's file into ``folder``; the paths written."""
    written = []
    for name, build in BUILDERS.items():
        path = folder / f"{name}.json"
        path.write_text(render(build()), encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":
    for path in main():
        print(path, file=sys.stdout)
