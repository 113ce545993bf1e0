"""client/shot.py: offscreen shots of one side's view (``wec shot``), read back as pixels.

A shot is a PNG of the asked size with the play screen's background and a caption;
Black's and White's shots of the standard position differ (each is behind its own home
rows); enemy pieces hidden from a side are not drawn at all (R9, R4.13): White's shot
is pixel for pixel the same whether or not Black's stealthy AAAs (R9.3) exist. Bad
files, wrong sides and bad arguments are refused on one stderr line, status 2.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from panda3d.core import Filename, PNMImage, Texture

from wec.client.shot import (
    BACKGROUND,
    ShotError,
    caption_text,
    main_shot,
    parse_size,
    render_shot,
)
from wec.engine.formats import position_to_dict
from wec.engine.knowledge import view
from wec.engine.pieces import PieceKind, Side
from wec.engine.position import Position
from wec.engine.setup import standard_position

SIZE = (480, 270)


def read_png(path: Path) -> PNMImage:
    image = PNMImage()
    assert image.read(Filename.fromOsSpecific(str(path))), path
    return image


def rgb(image: PNMImage, x: int, y: int) -> tuple[int, int, int]:
    return image.getRedVal(x, y), image.getGreenVal(x, y), image.getBlueVal(x, y)


def pixels(path: Path) -> bytes:
    """Every pixel of the PNG as RGB bytes."""
    texture = Texture()
    texture.load(read_png(path))
    return bytes(texture.getRamImageAs("RGB"))


def differing_pixels(first: Path, second: Path) -> int:
    a, b = pixels(first), pixels(second)
    assert len(a) == len(b)
    return sum(a[i:i + 3] != b[i:i + 3] for i in range(0, len(a), 3))


def without_black_aaas(position: Position) -> Position:
    return position.evolve(pieces=tuple(
        p for p in position.pieces if not (p.kind is PieceKind.AAA and p.side is Side.BLACK)))


def shoot(panda_base: Any, position: Position, side: Side, path: Path) -> Path:
    return render_shot(position, side, path, size=SIZE, detail="simple", base=panda_base)


def write_position(path: Path, position: Position) -> Path:
    path.write_text(json.dumps(position_to_dict(position)), encoding="utf-8")
    return path


def run_main(*args: Any, **kwargs: Any) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main_shot(*args, stdout=out, stderr=err, **kwargs)
    return code, out.getvalue(), err.getvalue()


# ---------------------------------------------------------------- the picture

def test_a_png_of_the_asked_size_with_background_and_caption(panda_base: Any,
                                                              tmp_path: Path) -> None:
    path = shoot(panda_base, standard_position(), Side.BLACK, tmp_path / "black.png")
    image = read_png(path)
    assert (image.getXSize(), image.getYSize()) == SIZE
    assert image.getNumChannels() == 3  # RGB: translucent levels leave no holes
    background = tuple(round(255 * c) for c in BACKGROUND[:3])
    top_right = (SIZE[0] - 2, 1)
    assert rgb(image, *top_right) == background  # the play screen's backdrop
    caption = [rgb(image, x, 12) for x in range(6, 200)]
    assert any(value != background for value in caption)  # the caption, top left
    assert caption_text(view(standard_position(), Side.BLACK)) == (
        "Turn 1 - Black to act - Black's view")


def test_the_caption_names_the_turn_and_the_viewer() -> None:
    later = standard_position().evolve(turn=7)
    assert caption_text(view(later, Side.WHITE)) == "Turn 7 - Black to act - White's view"


def test_black_and_white_see_the_board_from_their_own_side(panda_base: Any,
                                                            tmp_path: Path) -> None:
    start = standard_position()
    black = shoot(panda_base, start, Side.BLACK, tmp_path / "black.png")
    white = shoot(panda_base, start, Side.WHITE, tmp_path / "white.png")
    assert differing_pixels(black, white) > SIZE[0] * SIZE[1] // 10


def test_the_same_shot_twice_is_pixel_identical(panda_base: Any, tmp_path: Path) -> None:
    start = standard_position()
    first = shoot(panda_base, start, Side.WHITE, tmp_path / "1.png")
    second = shoot(panda_base, start, Side.WHITE, tmp_path / "2.png")
    assert differing_pixels(first, second) == 0


def test_hidden_enemy_pieces_are_not_drawn(panda_base: Any, tmp_path: Path) -> None:
    """R9.3, R4.13: Black's AAAs are stealthy at the start, so White's shot is the same
    with or without them; Black, who sees its own AAAs, gets a different shot."""
    start = standard_position()
    hidden = [p for p in start.pieces if p.kind is PieceKind.AAA and p.side is Side.BLACK]
    assert len(hidden) == 2 and all(p.hidden for p in hidden)
    fewer = without_black_aaas(start)
    white_all = shoot(panda_base, start, Side.WHITE, tmp_path / "white-all.png")
    white_fewer = shoot(panda_base, fewer, Side.WHITE, tmp_path / "white-fewer.png")
    assert differing_pixels(white_all, white_fewer) == 0
    black_all = shoot(panda_base, start, Side.BLACK, tmp_path / "black-all.png")
    black_fewer = shoot(panda_base, fewer, Side.BLACK, tmp_path / "black-fewer.png")
    assert differing_pixels(black_all, black_fewer) > 0


def test_a_side_view_is_shot_as_is_for_that_side(panda_base: Any, tmp_path: Path) -> None:
    start = standard_position()
    from_view = shoot(panda_base, view(start, Side.WHITE), Side.WHITE, tmp_path / "v.png")
    from_full = shoot(panda_base, start, Side.WHITE, tmp_path / "f.png")
    assert differing_pixels(from_view, from_full) == 0


def test_a_side_view_cannot_be_shot_for_the_other_side(panda_base: Any,
                                                         tmp_path: Path) -> None:
    white_view = view(standard_position(), Side.WHITE)
    with pytest.raises(ShotError, match="White's view"):
        shoot(panda_base, white_view, Side.BLACK, tmp_path / "no.png")
    assert not (tmp_path / "no.png").exists()


# ---------------------------------------------------------------- the command

def test_main_shot_writes_the_png_and_says_so(panda_base: Any, tmp_path: Path) -> None:
    source = write_position(tmp_path / "start.json", standard_position())
    before = source.read_bytes()
    out = tmp_path / "shot.png"
    code, stdout, stderr = run_main(str(source), "white", str(out), "200x150", "simple",
                                    base=panda_base)
    assert (code, stderr) == (0, "")
    assert stdout == f"{out}: 200x150 PNG of White's view, turn 1\n"
    image = read_png(out)
    assert (image.getXSize(), image.getYSize()) == (200, 150)
    assert source.read_bytes() == before  # input files are only read


def test_main_shot_of_a_view_file_for_the_wrong_side(panda_base: Any, tmp_path: Path) -> None:
    source = write_position(tmp_path / "white.json", view(standard_position(), Side.WHITE))
    out = tmp_path / "shot.png"
    code, stdout, stderr = run_main(str(source), "black", str(out), base=panda_base)
    assert (code, stdout) == (2, "")
    assert stderr == ("wec shot: the position is White's view (R9): it holds nothing Black "
                      "alone sees; shoot it with --side white, or give the full state\n")
    assert not out.exists()
    code, _, stderr = run_main(str(source), "white", str(out), "64x48", base=panda_base)
    assert (code, stderr) == (0, "")
    assert out.exists()


@pytest.mark.parametrize(("content", "message"), [
    (None, "{file}: cannot read: No such file or directory"),
    ("{not json", "{file}: not valid JSON: line 1 column 2: Expecting property name "
                  "enclosed in double quotes"),
    ('{"format": "wec-position/9"}', "format: 'wec-position/9' is not readable by this "
                                     "version of wec (it reads wec-position/1)"),
    ('{"format": "wec-position/1", "turn": 0, "pieces": []}',
     "turn: expected a whole number >= 1 (got 0)"),
])
def test_main_shot_refuses_a_bad_file_on_one_line(tmp_path: Path, content: str | None,
                                                  message: str) -> None:
    source = tmp_path / "bad.json"
    if content is not None:
        source.write_text(content, encoding="utf-8")
    out = tmp_path / "shot.png"
    code, stdout, stderr = run_main(str(source), "black", str(out))
    assert (code, stdout) == (2, "")
    expected = message.format(file=source)
    if not expected.startswith(str(source)):
        expected = f"{source}: {expected}"
    assert stderr == f"wec shot: {expected}\n"
    assert not out.exists()


@pytest.mark.parametrize(("side", "size", "detail", "out", "message"), [
    ("red", "1280x720", "detailed", "shot.png", "--side: expected black or white (got 'red')"),
    ("black", "1280", "detailed", "shot.png",
     "--size: expected WIDTHxHEIGHT such as 1280x720 (got '1280')"),
    ("black", "8x8", "detailed", "shot.png",
     "--size: each side must be 16 to 8192 pixels (got '8x8')"),
    ("black", "1280x720", "fancy", "shot.png",
     "--detail: expected simple or detailed (got 'fancy')"),
    ("black", "1280x720", "detailed", "shot.jpg", "--out: {out}: expected a .png file name"),
    ("black", "1280x720", "detailed", "missing/shot.png",
     "--out: {out}: no such folder {folder}"),
])
def test_main_shot_refuses_bad_arguments_before_rendering(
        tmp_path: Path, side: str, size: str, detail: str, out: str, message: str) -> None:
    source = write_position(tmp_path / "start.json", standard_position())
    target = tmp_path / out
    code, stdout, stderr = run_main(str(source), side, str(target), size, detail)
    assert (code, stdout) == (2, "")
    assert stderr == "wec shot: " + message.format(out=target, folder=target.parent) + "\n"


def test_parse_size() -> None:
    assert parse_size("1280x720") == (1280, 720)
    assert parse_size("640X480") == (640, 480)


def test_main_shot_in_a_new_process_makes_its_own_offscreen_window(tmp_path: Path) -> None:
    """What ``wec shot`` does: no ShowBase yet, so the shot opens (and closes) its own;
    stdout says what was written and stderr stays empty."""
    source = write_position(tmp_path / "start.json", standard_position())
    out = tmp_path / "own.png"
    done = subprocess.run(
        [sys.executable, "-c", "import sys; from client.shot import main_shot; "
         "sys.exit(main_shot(*sys.argv[1:]))", str(source), "black", str(out), "96x54",
         "simple"], capture_output=True, text=True, timeout=120,
        cwd=Path(__file__).resolve().parent.parent)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == f"{out}: 96x54 PNG of Black's view, turn 1\n"
    image = read_png(out)
    assert (image.getXSize(), image.getYSize()) == (96, 54)
