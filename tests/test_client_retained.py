"""How a still board is drawn from its retained picture (client.scene.RetainedFrames):
the player sees exactly the pixels of a direct draw, whether the picture is copied
into the window (WindowCopy, the window's clears off while the copy covers it) or shown
as a card; the clears come back whenever the board is drawn directly again.

The other retained-picture tests (when the picture is taken, what draws the board
afresh) are in tests/test_client_parts.py."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from wec.client.camera import home_orbit
from wec.client.settings import Settings
from wec.engine import board
from wec.engine.board import GROUND
from wec.engine.pieces import Side


def window_pixels(base: Any) -> bytes:
    """The window's current picture, RGB."""
    from panda3d.core import PNMImage, Texture

    image = PNMImage()
    assert base.win.getScreenshot(image)
    texture = Texture()
    texture.load(image)
    return bytes(texture.getRamImageAs("RGB"))


def largest_channel_difference(first: bytes, second: bytes) -> int:
    assert len(first) == len(second)
    return max((abs(a - b) for a, b in zip(first, second, strict=True)), default=0)


def clears(base: Any) -> tuple[bool, bool]:
    """Whether the window clears its colour and its depth at the start of a frame."""
    return base.win.getClearColorActive(), base.win.getClearDepthActive()


@pytest.fixture
def playing(panda_base: Any, tmp_path: Path) -> Iterator[Any]:
    """The play screen of a new standard game (Black to act), a few frames in."""
    from wec.client.app import WecApp
    from wec.engine.options import Options

    app = WecApp(base=panda_base, settings=Settings(), settings_file=tmp_path / "s.json")
    play = app.start_game(Options())
    app.pointer.step(3)
    yield play
    app.close()


def picture_and_direct_draw(play: Any) -> tuple[bytes, bytes]:
    """The window from the retained picture, then the same frame drawn directly."""
    retained, step = play.scene.retained, play.app.pointer.step
    step(3)  # moved (drawn directly), still (picture taken), still (picture shown)
    assert retained.showing_picture
    from_picture = window_pixels(play.base)
    play.scene.invalidate()
    step(1)
    assert not retained.showing_picture
    return from_picture, window_pixels(play.base)


ORBITS = {  # from home, from aside, low over the board's edge, close up
    "home": home_orbit(Side.BLACK),
    "aside": home_orbit(Side.BLACK).turned(60.0),
    "low": home_orbit(Side.BLACK).tilted(-45.0).zoomed(1.5),
    "close": home_orbit(Side.BLACK).zoomed(0.35).panned(2.0, 1.0),
}


@pytest.mark.parametrize("name", list(ORBITS))
def test_the_copied_picture_shows_exactly_the_pixels_of_a_direct_draw(
        playing: Any, name: str) -> None:
    """On this offscreen llvmpipe window (one sample a pixel, OpenGL 4.5) the picture
    is copied into the window: every pixel, HUD included, is the one a direct draw
    gives."""
    base = playing.base
    playing.camera.set_orbit(ORBITS[name])
    from_picture, drawn = picture_and_direct_draw(playing)
    assert playing.scene.retained.copying
    assert from_picture == drawn, (
        f"{name}: {largest_channel_difference(from_picture, drawn)} levels apart")
    background = bytes(round(255 * c) for c in tuple(base.win.getClearColor())[:3])
    board_pixels = sum(drawn[i:i + 3] != background for i in range(0, len(drawn), 3))
    assert board_pixels > len(drawn) // 30  # the board is really in the picture


def test_the_card_fallback_shows_nearly_the_pixels_of_a_direct_draw(playing: Any) -> None:
    """Where copying is not possible (a multisampled window, no OpenGL 3) the picture
    is rendered into a buffer of its own and shown as a card cropped to the board's
    outline. That path is not exact: a few hundred edge pixels of thin parts come out
    differently (as before the copy existed); under one pixel in a thousand."""
    retained = playing.scene.retained
    retained._give_up_copying()  # as when the driver refuses a copy
    for name in ("home", "close"):
        playing.camera.set_orbit(ORBITS[name])
        from_picture, drawn = picture_and_direct_draw(playing)
        assert not retained.copying and retained.pictures_drawn > 0
        pixels = len(drawn) // 3
        differing = sum(from_picture[i:i + 3] != drawn[i:i + 3]
                        for i in range(0, len(drawn), 3))
        assert differing < pixels // 1000, (name, differing)
        assert clears(playing.base) == (True, True)  # a card covers only the board


def test_the_window_clears_are_off_only_while_the_copy_covers_the_window(
        playing: Any) -> None:
    """The copy writes every pixel and nothing else is drawn in 3D, so the window's
    colour and depth clears would be wasted: they are off exactly while the copy
    stands in, and back on for every frame that draws the board directly."""
    base, scene, step = playing.base, playing.scene, playing.app.pointer.step
    retained = scene.retained
    assert retained.showing_picture and not retained._copy_taking
    assert clears(base) == (False, False)
    playing.camera.set_orbit(home_orbit(Side.BLACK).turned(5.0))  # the camera moves
    step(1)
    assert not retained.showing_picture and clears(base) == (True, True)
    step(1)  # still: the board drawn in the window and copied into the picture
    assert retained._copy_taking and clears(base) == (True, True)
    step(1)
    assert clears(base) == (False, False)
    scene.hover(board.square(5, 5), GROUND)  # the mouse moved to another square
    step(1)
    assert clears(base) == (True, True)
    step(2)
    assert clears(base) == (False, False)
    scene.root.hide()  # the hand-over curtain: the HUD alone, on a cleared window
    step(1)
    assert not retained.showing_picture and clears(base) == (True, True)
    assert retained._card is not None and retained._card.isStashed()
    scene.root.show()
    step(2)
    assert retained.showing_picture and clears(base) == (False, False)


def test_leaving_the_board_gives_the_window_its_clears_back(playing: Any) -> None:
    base = playing.base
    assert playing.scene.retained.showing_picture and clears(base) == (False, False)
    playing.app.close()  # back to the menus: no board, no picture
    playing.app.pointer.step(1)
    assert clears(base) == (True, True)


def test_a_board_drawn_again_after_the_copy_matches_one_drawn_before_it(
        playing: Any) -> None:
    """The copy restores every piece of GL state it touches (framebuffers, scissor,
    texture bindings): direct frames before and after a run of copied frames agree."""
    scene, step = playing.scene, playing.app.pointer.step
    scene.invalidate()
    step(1)
    before = window_pixels(playing.base)
    step(4)
    assert scene.retained.showing_picture
    scene.invalidate()
    step(1)
    assert window_pixels(playing.base) == before


def test_the_2d_layer_does_not_clear_the_depth_nothing_there_reads(playing: Any) -> None:
    """ShowBase clears the depth before drawing render2d; nothing the board screens draw
    there tests depth, so the board turns that clear off (client.scene
    skip_2d_depth_clear): the same pixels, one window-sized fill less a frame."""
    from panda3d.core import DepthTestAttrib

    base, step = playing.base, playing.app.pointer.step
    region = base.cam2d.node().getDisplayRegion(0)
    assert not region.getClearDepthActive()
    for path in [base.render2d, *base.render2d.findAllMatches("**")]:
        test = path.getState().getAttrib(DepthTestAttrib)
        assert test is None or test.getMode() == DepthTestAttrib.M_none, path
    playing.camera.set_orbit(ORBITS["aside"])
    step(1)  # drawn directly
    without = window_pixels(base)
    region.setClearDepthActive(True)
    playing.scene.invalidate()
    step(1)
    assert window_pixels(base) == without

