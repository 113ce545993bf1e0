"""``wec editor check FILE`` (wec/commands/editor.py): the R14.4 checks of the board
editor on a position file, with the CLI's contract (exit status 2 and one stderr line
on a refusal; the file is only read)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from wec.cli import main
from wec.engine import position_to_dict, standard_position


def write(tmp_path: Path, data: dict[str, Any], name: str = "board.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["editor", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_standard_setup_is_a_valid_start_board(tmp_path, capsys):
    path = write(tmp_path, position_to_dict(standard_position()))
    assert run(capsys, "check", str(path)) == (0, "ok: a valid start board\n", "")


def test_every_problem_is_printed_on_its_own_line(tmp_path, capsys):
    """R14.4(b) and (d): a homing SAM aimed at Black's Jet, and White's only piece
    stunned through its first turn. The file is left as it was."""
    board = {"format": "wec-position/1", "turn": 1, "pieces": [
        {"side": "black", "kind": "king", "at": [10, 6]},
        {"side": "black", "kind": "jet", "at": [6, 3], "level": "air"},
        {"side": "white", "kind": "king", "at": [1, 5], "stunned_until": 6}],
        "projectiles": [{"kind": "sam", "side": "white", "at": [4, 3], "strength": 1,
                         "target": [6, 3, "air"]}]}
    path = write(tmp_path, board)
    before = path.read_bytes()
    code, out, err = run(capsys, "check", str(path))
    assert code == 2
    assert out == "R14.4(b): homing projectile at (4,3) air\n"
    assert err == f"wec editor: {path}: not a valid start board (1 problem, listed above)\n"
    board["projectiles"] = []
    path = write(tmp_path, board, "stunned.json")
    code, out, err = run(capsys, "check", str(path))
    assert (code, out) == (2, "R14.4(d): White has no legal Move\n")
    board["pieces"][0]["stunned_until"] = 6
    board["pieces"].pop(1)
    path = write(tmp_path, board, "both.json")
    code, out, err = run(capsys, "check", str(path))
    assert (code, out) == (2, "R14.4(d): Black has no legal Move\n"
                              "R14.4(d): White has no legal Move\n")
    assert err == f"wec editor: {path}: not a valid start board (2 problems, listed above)\n"
    assert (tmp_path / "board.json").read_bytes() == before


def test_a_competitive_position_is_not_an_editor_board(tmp_path, capsys):
    data = position_to_dict(standard_position())
    data["options"]["competitive"] = True
    code, out, _ = run(capsys, "check", str(write(tmp_path, data)))
    assert (code, out) == (2, "R14.4: the board editor exists only in non-competitive mode "
                              "(R14.3): option O32 competitive is on\n")


def test_a_file_the_format_refuses_gets_one_line(tmp_path, capsys):
    """R1.6 is already a rule of the position format: its refusal comes first."""
    board = {"format": "wec-position/1", "turn": 1, "pieces": [
        {"side": "white", "kind": "tank", "at": [4, 3], "hand": "right"},
        {"side": "white", "kind": "king", "at": [4, 3]}]}
    path = write(tmp_path, board)
    assert run(capsys, "check", str(path)) == (
        2, "", f"wec editor: {path}: pieces[1]: R1.6: tank and king share (4,3) ground but "
               "neither can coexist\n")
    missing = tmp_path / "none.json"
    assert run(capsys, "check", str(missing)) == (
        2, "", f"wec editor: {missing}: cannot read: No such file or directory\n")


def test_the_editor_command_needs_an_action(capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["editor"])
    assert stopped.value.code == 2
    assert capsys.readouterr().err.endswith(
        "wec editor: error: the following arguments are required: {check}\n")
