"""Boards a player keeps: saved editor boards and the start positions a new game offers.

A saved board is one ``wec-position/1`` JSON file in the user's data folder
(``platformdirs.user_data_dir("wec")/boards``, on Linux ``$XDG_DATA_HOME/wec/boards``),
written atomically (temporary file, flushed, one rename) so a crash never leaves half a
board. ``start_with_options`` turns a board (a scenario or a saved board) into the start
of a new game with the options the player chose on the new-game screen, through the
board editor's R14.4 checks.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import platformdirs

from wec.engine import board
from wec.engine.editor import Editor
from wec.engine.errors import EditorError
from wec.engine.formats import position_from_dict, position_to_dict
from wec.engine.loading import load_position
from wec.engine.options import Options
from wec.engine.pieces import GOVERNMENT_PIECES, TRAITS, ArticleKind, PieceKind, Side
from wec.engine.position import Position
from wec.engine.setup import WEAPON_ARTICLES
from wec.storage.files import write_atomically

BOARD_SUFFIX = ".json"
_NAME_ALLOWED = re.compile(r"[^A-Za-z0-9_.-]+")


def boards_folder() -> Path:
    """Where saved boards live (``user_data_dir("wec")/boards``)."""
    return Path(platformdirs.user_data_dir("wec")) / "boards"


def board_file_name(name: str) -> str:
    """``my board!`` -> ``my-board.json``: a safe file name for a board name."""
    stem = _NAME_ALLOWED.sub("-", name.strip()).strip("-.") or "board"
    return stem[:60] + BOARD_SUFFIX


def saved_boards(folder: Path) -> list[Path]:
    """The saved boards in ``folder``, newest first."""
    if not folder.is_dir():
        return []
    return sorted(folder.glob(f"*{BOARD_SUFFIX}"), key=lambda p: (-p.stat().st_mtime, p.name))


def write_board(folder: Path, name: str, position: Position) -> Path:
    """Save ``position`` (the editor's buffer) as ``wec-position/1`` JSON in ``folder``,
    atomically; the file written. A board the position reader would refuse is not
    written (EditorError with the reader's reason), so every saved board loads again."""
    data = position_to_dict(position)
    try:
        position_from_dict(json.loads(json.dumps(data)))
    except Exception as refusal:  # the reader's own checks (R1.6, R10.4, ...)
        raise EditorError([f"not saved: this board would not load again: {refusal}"]) from None
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / board_file_name(name)
    text = json.dumps(data, indent=1, sort_keys=True) + "\n"
    write_atomically(path, text.encode("utf-8"))
    return path


def read_board(path: Path) -> Position:
    """A saved board (or any full ``wec-position/1`` file); OSError, ValueError or a
    FormatError saying what is wrong; a side's view is refused (R14.4: the editor works
    on the full state)."""
    position = load_position(json.loads(path.read_text(encoding="utf-8")))
    if position.viewer is not None:
        raise EditorError([f"{path.name} is {position.viewer.title}'s view, not a board"])
    return position


# ---------------------------------------------------------------- new game from a board

def start_with_options(position: Position, options: Options) -> Position:
    """The start of a new game on ``position`` (a start board: a scenario, or a saved
    board through ``Editor.start_position``) with ``options``: the board itself when
    the options are its own, else the board with each side's government pieces changed
    to the chosen government (R11.1: on the same squares, reinforcements too), O29-O31
    "none" applied (no reinforcements, no weapon articles or XXX boxes on the Ground,
    D-42), and the options set, checked as a start board (R14.4). EditorError lists
    every problem."""
    if options == position.options:
        return position
    position = _with_governments(position, options)
    editor = Editor(position.evolve(options=Options())).set_options(options)
    editor = _without_quantities(editor, options)
    return editor.start_position()


def _with_governments(position: Position, options: Options) -> Position:
    """R11.1: each side's primary and secondary pieces become its chosen government's."""
    def kind_for(side: Side, kind: PieceKind) -> PieceKind:
        primary, secondary = GOVERNMENT_PIECES[options.government(side)]
        if TRAITS[kind].primary:
            return primary
        if TRAITS[kind].secondary:
            return secondary
        return kind

    pieces = tuple(replace(p, kind=kind_for(p.side, p.kind)) for p in position.pieces)
    waiting = tuple(replace(r, kind=None if r.kind is None else kind_for(r.side, r.kind))
                    for r in position.reinforcements)
    return position.evolve(pieces=pieces, reinforcements=waiting)


def _without_quantities(editor: Editor, options: Options) -> Editor:
    """O29-O31 (D-42) "none": the board's reinforcements, unowned weapon articles or
    XXX boxes taken away."""
    position = editor.position
    if options.reinforcements == "none":
        editor = Editor(position.evolve(reinforcements=()))
    for sq, here in enumerate(position.ground_articles):
        for article in here:
            gone = ((article in WEAPON_ARTICLES and options.weapon_articles == "none")
                    or (article is ArticleKind.XXX and options.xxx_boxes == "none"))
            if gone:
                editor = editor.remove_article(article, (board.row_of(sq), board.col_of(sq)))
    return editor
