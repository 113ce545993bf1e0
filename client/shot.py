"""Screenshots of one side's view of a position, rendered offscreen (``wec shot``).

``render_shot`` draws exactly what the game shows that side (R9: its own pieces, the
enemy pieces it sees, everything public, its last-seen markers; never a hidden enemy
piece) with the game's own parts: ``BoardScene``, the home camera of ``OrbitCamera``
(``home_orbit``), ``Shading``'s lighting and shaders and the chosen model set. Only the
HUD is left out; a small caption in the top-left corner says the turn and whose view it
is. The picture is rendered into an offscreen buffer of the requested size with its own
cameras and scene root, so whatever else the ShowBase is showing (menus, another board
in the tests) stays out of the shot and is left as it was.

``main_shot`` is the command-line entry: it checks every argument before Panda3D
starts and keeps the CLI's error contract (status 2, one line on stderr, nothing on
stdout).
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

from wec.engine.pieces import Side
from wec.engine.position import Position

SIZE_PATTERN = re.compile(r"^\s*(\d+)\s*[xX]\s*(\d+)\s*$")
MIN_SIDE, MAX_SIDE = 16, 8192  # pixels, per dimension
DETAILS = ("simple", "detailed")
BACKGROUND = (0.09, 0.11, 0.15, 1.0)  # the play screen's (client/app.py, WecApp.play)
CAPTION_SCALE = 0.05  # of half the picture's height, like aspect2d text
CAPTION_MARGIN = 0.04
CAPTION_COLOUR = (0.93, 0.93, 0.9, 1.0)
CAPTION_CARD = (0.0, 0.0, 0.0, 0.55)
QUIET_PRC = "print-pipe-types false\n"  # keep stderr to the one line of the CLI contract


class ShotError(ValueError):
    """A shot that cannot be taken as asked; the message says what to change."""


def parse_size(text: str) -> tuple[int, int]:
    """``"1280x720"`` to (1280, 720); each side between MIN_SIDE and MAX_SIDE pixels."""
    match = SIZE_PATTERN.match(text)
    if match is None:
        raise ShotError(f"--size: expected WIDTHxHEIGHT such as 1280x720 (got {text!r})")
    width, height = int(match.group(1)), int(match.group(2))
    for value in (width, height):
        if not MIN_SIDE <= value <= MAX_SIDE:
            raise ShotError(f"--size: each side must be {MIN_SIDE} to {MAX_SIDE} pixels "
                            f"(got {text!r})")
    return width, height


def parse_side(text: str) -> Side:
    try:
        return Side(text)
    except ValueError:
        raise ShotError(f"--side: expected black or white (got {text!r})") from None


def check_detail(detail: str) -> str:
    if detail not in DETAILS:
        raise ShotError(f"--detail: expected simple or detailed (got {detail!r})")
    return detail


def shot_view(position: Position, side: Side) -> Position:
    """What ``side`` sees of ``position`` (R9, R4.13): a full state is projected with its
    visibility recomputed; a file that already is one side's view serves that side only."""
    from wec.engine.knowledge import view

    if position.viewer is None:
        return view(position, side)
    if position.viewer is not side:
        raise ShotError(
            f"the position is {position.viewer.title}'s view (R9): it holds nothing "
            f"{side.title} alone sees; shoot it with --side {position.viewer.value}, or give "
            "the full state")
    return position


def caption_text(view: Position) -> str:
    """The caption: the turn, the side to act and whose view this is."""
    assert view.viewer is not None
    return (f"Turn {view.turn} - {view.side_to_act.title} to act - "
            f"{view.viewer.title}'s view")


def render_shot(position: Position, side: Side, out_path: Path | str,
                size: tuple[int, int] = (1280, 720), detail: str = "detailed",
                base: Any = None) -> Path:
    """Render ``side``'s view of ``position`` as the game draws it, save it as an RGB PNG
    of ``size`` pixels at ``out_path`` and return that path.

    ``base``: a ShowBase to render with (the tests' shared one); when None, an offscreen
    ShowBase is made for the shot and destroyed afterwards (Panda3D allows one ShowBase
    per process, so only do that where no other exists, as ``wec shot`` does)."""
    shown = shot_view(position, side)
    check_detail(detail)
    width, height = size
    out = Path(out_path)
    if base is not None:
        return _shoot(base, shown, out, (width, height), detail)
    from panda3d.core import loadPrcFileData

    from wec.client.offscreen import configure_offscreen

    configure_offscreen((width, height))
    loadPrcFileData("wec-shot", QUIET_PRC)
    from direct.showbase.ShowBase import ShowBase

    own = ShowBase()
    try:
        return _shoot(own, shown, out, (width, height), detail)
    finally:
        own.destroy()


def _shoot(base: Any, view: Position, out: Path, size: tuple[int, int], detail: str) -> Path:
    """Build the game's board for ``view`` under a private root, render it into an
    offscreen buffer and write the PNG; everything made here is removed again."""
    from panda3d.core import Filename, PNMImage

    from wec.client.assets import ModelLibrary
    from wec.client.scene import BoardScene
    from wec.client.shading import Shading

    shading = Shading(base)
    shading.set_lighting(True)
    scene = BoardScene(base, ModelLibrary(base.loader, detail), shading)
    stage = _private_root(base, "wec-shot")
    try:
        scene.root.reparentTo(stage)
        scene.show(view)
        if scene.animation is not None:
            scene.animation.finish()
        with _offscreen_buffer(base, size) as (buffer, texture):
            heading = _aim_cameras(base, buffer, stage, view, size)
            scene.face_labels(heading)
            base.graphicsEngine.renderFrame()
            base.graphicsEngine.renderFrame()  # the second frame is the finished one
            image = PNMImage()
            if not texture.store(image):
                raise ShotError("the offscreen buffer gave no picture (OpenGL driver?)")
        image.removeAlpha()  # translucent levels leave alpha < 1 in the framebuffer
        if not image.write(Filename.fromOsSpecific(str(out))):
            raise ShotError(f"{out}: cannot write the PNG")
        return out
    finally:
        scene.destroy()
        stage.removeNode()


def _private_root(base: Any, name: str) -> Any:
    """A scene root with ``render``'s state but none of its children."""
    from panda3d.core import NodePath

    stage = NodePath(name)
    stage.setState(base.render.getState())
    return stage


@contextmanager
def _offscreen_buffer(base: Any, size: tuple[int, int]) -> Iterator[tuple[Any, Any]]:
    """A colour + depth buffer of ``size`` on the ShowBase's GSG whose every frame is
    copied into a texture in RAM; removed afterwards."""
    from panda3d.core import (
        FrameBufferProperties,
        GraphicsOutput,
        GraphicsPipe,
        Texture,
        WindowProperties,
    )

    properties = FrameBufferProperties()
    properties.setRgbColor(True)
    properties.setRgbaBits(8, 8, 8, 8)
    properties.setDepthBits(24)
    buffer = base.graphicsEngine.makeOutput(
        base.pipe, "wec-shot-buffer", -20, properties, WindowProperties(size=size),
        GraphicsPipe.BF_refuse_window, base.win.getGsg(), base.win)
    if buffer is None:
        raise ShotError(f"cannot open a {size[0]}x{size[1]} offscreen buffer")
    texture = Texture("wec-shot")
    buffer.addRenderTexture(texture, GraphicsOutput.RTM_copy_ram)
    buffer.setClearColorActive(True)
    buffer.setClearColor(BACKGROUND)
    buffer.setClearDepthActive(True)
    try:
        yield buffer, texture
    finally:
        base.graphicsEngine.removeWindow(buffer)


def _aim_cameras(base: Any, buffer: Any, stage: Any, view: Position,
                 size: tuple[int, int]) -> float:
    """The game's camera (home orbit behind the viewer, the game's lens at this aspect)
    over ``stage``, and a 2D camera over a caption; returns the camera heading."""
    from panda3d.core import Camera, NodePath, OrthographicLens, TextNode, TransparencyAttrib

    from wec.client.camera import home_orbit

    assert view.viewer is not None
    aspect = size[0] / size[1]
    lens = base.camLens.makeCopy()
    lens.setAspectRatio(aspect)
    camera = stage.attachNewNode(Camera("wec-shot-camera", lens))
    orbit = home_orbit(view.viewer)
    camera.setPos(*orbit.eye())
    camera.lookAt(*orbit.target)
    buffer.makeDisplayRegion().setCamera(camera)

    overlay = NodePath("wec-shot-caption")
    overlay.setDepthTest(False)
    overlay.setDepthWrite(False)
    overlay.setTransparency(TransparencyAttrib.MAlpha)
    flat = OrthographicLens()
    flat.setFilmSize(2 * aspect, 2)
    flat.setNearFar(-10, 10)
    region = buffer.makeDisplayRegion()
    region.setSort(10)
    region.setCamera(overlay.attachNewNode(Camera("wec-shot-2d", flat)))
    text = TextNode("caption")
    text.setText(caption_text(view))
    text.setTextColor(*CAPTION_COLOUR)
    text.setCardColor(*CAPTION_CARD)
    text.setCardAsMargin(0.4, 0.4, 0.25, 0.2)
    caption = overlay.attachNewNode(text)
    caption.setScale(CAPTION_SCALE)
    caption.setPos(-aspect + CAPTION_MARGIN + 0.02, 0, 1 - CAPTION_MARGIN - CAPTION_SCALE)
    return orbit.heading


def main_shot(file: str, side: str, out: str, size: str = "1280x720",
              detail: str = "detailed", base: Any = None,
              stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """``wec shot FILE --side black|white --out PNG [--size WxH] [--detail ...]``: write
    the PNG and say so on stdout, returning 0; or return 2 with one line on stderr and
    nothing on stdout (the CLI's contract; the file is only ever read)."""
    from wec.engine.errors import WecError
    from wec.storage.positions import read_position

    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    try:
        wanted = parse_side(side)
        pixels = parse_size(size)
        check_detail(detail)
        _check_writable(out)
        position = read_position(file)
        shot_view(position, wanted)  # refuse a wrong side before Panda3D starts
        written = render_shot(position, wanted, out, pixels, detail, base)
    except (ShotError, WecError) as problem:
        print(f"wec shot: {problem}", file=stderr)
        return 2
    except Exception as problem:  # no OpenGL, no EGL: say so in one line
        print(f"wec shot: cannot render offscreen: {problem}", file=stderr)
        return 2
    print(f"{written}: {pixels[0]}x{pixels[1]} PNG of {wanted.title}'s view, turn "
          f"{position.turn}", file=stdout)
    return 0


def _check_writable(out: str) -> None:
    """Refuse an output path that cannot be written before rendering anything."""
    path = Path(out)
    if path.suffix.lower() != ".png":
        raise ShotError(f"--out: {out}: expected a .png file name")
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise ShotError(f"--out: {out}: no such folder {folder}")
    if path.is_dir() or not os.access(folder, os.W_OK) or (
            path.exists() and not os.access(path, os.W_OK)):
        raise ShotError(f"--out: {out}: not writable")
