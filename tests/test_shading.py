"""client/shading.py and shaders/: what the player sees, read back from rendered frames.

Every look is checked on both paths, real GLSL shaders ("glsl") and the fixed-function
fallback ("fallback"), with exact pixel values: the scene is a flat-coloured background
below the camera, which looks straight down from 10 units up, so pixels can be
predicted from the blend formula. A highlight is the manual's yellow on its square
only, a layer at opacity 0 changes nothing and at 0.5 blends half-half, lighting
brightens faces turned to the key light and the toggle flattens them, a last-seen
marker (R9.10) lets the board show through. Broken or missing GLSL is reported naming
the file, and a real driver without GLSL (Panda3D's software renderer) falls back.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from panda3d.core import (
    Camera,
    FrameBufferProperties,
    Geom,
    GeomNode,
    GeomTriangles,
    GeomVertexData,
    GeomVertexFormat,
    GeomVertexReader,
    GeomVertexWriter,
    GraphicsOutput,
    GraphicsPipe,
    GraphicsPipeSelection,
    NodePath,
    PerspectiveLens,
    PNMImage,
    Point2,
    Point3,
    Shader,
    Texture,
    Vec3,
    WindowProperties,
)

from wec.client.shading import (
    GHOST_ALPHA,
    HIGHLIGHT_COLOR,
    KEY_DIRECTION,
    LINE_LIGHTEN,
    PROGRAMS,
    PULSE_MINIMUM,
    PULSE_PERIOD,
    SHADER_DIR,
    VERTEX_STAGES,
    ShaderCompileError,
    Shading,
)

CAMERA_HEIGHT = 10.0
DARK = (0.1, 0.1, 0.1)
RED = (0.8, 0.1, 0.1)
GREY_BODY = (0.8, 0.8, 0.8)  # the light grey of piece bodies
LAYER_TINT = (0.1, 0.3, 0.9, 1.0)
GHOST_TINT = (0.2, 0.4, 1.0, 0.4)
YELLOW = HIGHLIGHT_COLOR[:3]
CENTRE_ALPHA = HIGHLIGHT_COLOR[3]

RGB = tuple[int, int, int]


# -- scene helpers ----------------------------------------------------------------


def quad(
    corners: tuple[float, float, float, float],
    z: float = 0.0,
    normal: Sequence[float] = (0.0, 0.0, 1.0),
    color: Sequence[float] = (1.0, 1.0, 1.0),
) -> NodePath:
    """A horizontal rectangle (x0, y0, x1, y1) at height z, facing up, with one normal
    and one vertex colour for every vertex and UVs 0..1, material-less."""
    x0, y0, x1, y1 = corners
    data = GeomVertexData("quad", GeomVertexFormat.getV3n3c4t2(), Geom.UHStatic)
    vertices = GeomVertexWriter(data, "vertex")
    normals = GeomVertexWriter(data, "normal")
    colors = GeomVertexWriter(data, "color")
    uvs = GeomVertexWriter(data, "texcoord")
    for (x, y), (u, v) in zip(
        ((x0, y0), (x1, y0), (x1, y1), (x0, y1)), ((0, 0), (1, 0), (1, 1), (0, 1)), strict=True
    ):
        vertices.addData3(x, y, z)
        normals.addData3(*normal)
        colors.addData4(*color, 1.0)
        uvs.addData2(u, v)
    triangles = GeomTriangles(Geom.UHStatic)
    triangles.addVertices(0, 1, 2)
    triangles.addVertices(0, 2, 3)
    geom = Geom(data)
    geom.addPrimitive(triangles)
    node = GeomNode("quad")
    node.addGeom(geom)
    return NodePath(node)


def add_background(root: NodePath, color: Sequence[float]) -> NodePath:
    """An unlit, opaque floor of one colour below everything, filling the view."""
    floor = quad((-30.0, -30.0, 30.0, 30.0), z=-0.5, color=color)
    floor.reparentTo(root)
    return floor


def add(root: NodePath, node: NodePath) -> NodePath:
    node.reparentTo(root)
    return node


def frame(output: Any) -> PNMImage:
    """Render (twice: the second frame is the one on screen) and read the pixels."""
    engine = output.getEngine()
    engine.renderFrame()
    engine.renderFrame()
    image = PNMImage()
    assert output.getScreenshot(image)
    return image


def pixel_at(image: PNMImage, camera: NodePath, point: Sequence[float]) -> RGB:
    """The 0..255 colour where the world point shows in the image."""
    in_camera = camera.getRelativePoint(camera.getTop(), Point3(*point))
    projected = Point2()
    assert camera.node().getLens().project(in_camera, projected), point
    column = int((projected.x + 1.0) / 2.0 * image.getXSize())
    row = int((1.0 - projected.y) / 2.0 * image.getYSize())
    return (
        image.getRedVal(column, row),
        image.getGreenVal(column, row),
        image.getBlueVal(column, row),
    )


def blend(behind: Sequence[float], colour: Sequence[float], alpha: float) -> RGB:
    """What alpha blending of colour over behind shows, 0..255."""
    red, green, blue = (
        round(255 * min(b * (1.0 - alpha) + c * alpha, 1.0))
        for b, c in zip(behind, colour, strict=True)
    )
    return red, green, blue


def opaque(colour: Sequence[float]) -> RGB:
    return blend(colour, colour, 1.0)


def assert_close(actual: RGB, expected: RGB, tolerance: int = 3) -> None:
    assert all(abs(a - e) <= tolerance for a, e in zip(actual, expected, strict=True)), (
        f"pixel {actual}, expected {expected} (±{tolerance})"
    )


# -- fixtures ---------------------------------------------------------------------


@pytest.fixture
def scene(panda_base: Any) -> Iterator[NodePath]:
    """A fresh root under render, camera 10 units above the origin looking down
    (+Y up on screen); removed afterwards."""
    root = NodePath("test-shading")
    root.reparentTo(panda_base.render)
    root.setLightOff()
    saved = panda_base.camera.getTransform(), panda_base.cam.getTransform()
    panda_base.camera.setPosHpr(0, 0, 0, 0, 0, 0)
    panda_base.cam.setPosHpr(0, 0, CAMERA_HEIGHT, 0, -90, 0)
    yield root
    root.removeNode()
    panda_base.camera.setTransform(saved[0])  # as the other tests left them
    panda_base.cam.setTransform(saved[1])


@pytest.fixture(params=["glsl", "fallback"])
def fallback(request: pytest.FixtureRequest) -> bool:
    """Run the test on the GLSL path and on the fixed-function fallback."""
    return bool(request.param == "fallback")


@pytest.fixture
def shading(panda_base: Any, fallback: bool) -> Shading:
    made = Shading(panda_base, force_fallback=fallback)
    assert made.glsl is not fallback
    return made


def look(panda_base: Any, *points: Sequence[float]) -> list[RGB]:
    image = frame(panda_base.win)
    return [pixel_at(image, panda_base.cam, point) for point in points]


# -- GLSL is real -----------------------------------------------------------------


def test_the_shaders_are_real_glsl_150_compiled_on_the_driver(
    panda_base: Any, scene: NodePath
) -> None:
    gsg = panda_base.win.getGsg()
    assert gsg.getSupportsGlsl()
    shading = Shading(panda_base)
    assert shading.glsl is True
    assert shading.message is None
    assert sorted(shading.shaders) == sorted(PROGRAMS)
    for name, shader in shading.shaders.items():
        assert shader.getLanguage() == Shader.SL_GLSL, name
        assert not shader.getErrorFlag(), name
        assert shader.isPrepared(gsg.getPreparedObjects()), name
        for stem, stage in ((VERTEX_STAGES.get(name, name), "vert"), (name, "frag")):
            source = (SHADER_DIR / f"{stem}.{stage}").read_text()
            assert source.startswith("#version 150\n"), f"{stem}.{stage}"
    nodes = {name: add(scene, quad((0, 0, 1, 1))) for name in PROGRAMS}
    shading.lit(nodes["lit"])
    shading.lit(nodes["lit_plain"], textured=False)
    shading.highlight(nodes["highlight"])
    shading.layer(nodes["layer"], LAYER_TINT, 0.5)
    shading.ghost(nodes["ghost"], GHOST_TINT)
    for name, node in nodes.items():
        assert node.getShader() == shading.shaders[name], name


# -- legal destination highlight ----------------------------------------------------


def test_a_highlighted_square_is_yellow_and_its_neighbour_untouched(
    panda_base: Any, scene: NodePath, shading: Shading
) -> None:
    add_background(scene, DARK)
    points = ((0.5, 0.5, 0), (1.5, 0.5, 0))
    before = look(panda_base, *points)
    shading.highlight(add(scene, quad((0, 0, 1, 1), z=0.01)))
    shading.update(0.0)
    centre, neighbour = look(panda_base, *points)
    red, green, blue = centre
    assert red > 150 and green > 140 and blue < 60, f"not yellow: {centre}"
    assert_close(centre, blend(DARK, YELLOW, CENTRE_ALPHA))
    assert neighbour == before[1]


def test_the_highlight_pulses_with_time(panda_base: Any, scene: NodePath, shading: Shading) -> None:
    add_background(scene, DARK)
    shading.highlight(add(scene, quad((0, 0, 1, 1), z=0.01)))
    brightness = {}
    for time in (0.0, PULSE_PERIOD / 2, PULSE_PERIOD):
        shading.update(time)
        [brightness[time]] = look(panda_base, (0.5, 0.5, 0))
    assert_close(brightness[0.0], blend(DARK, YELLOW, CENTRE_ALPHA))
    assert_close(brightness[PULSE_PERIOD / 2], blend(DARK, YELLOW, CENTRE_ALPHA * PULSE_MINIMUM))
    assert brightness[PULSE_PERIOD / 2][0] < brightness[0.0][0] - 40
    assert_close(brightness[PULSE_PERIOD], brightness[0.0], tolerance=1)


def test_the_highlight_glows_towards_soft_edges_with_glsl_and_is_flat_without(
    panda_base: Any, scene: NodePath, shading: Shading
) -> None:
    add_background(scene, DARK)
    points = ((0.5, 0.5, 0), (0.1, 0.5, 0), (0.04, 0.5, 0), (0.01, 0.5, 0))
    [_, _, _, behind_edge] = look(panda_base, *points)
    shading.highlight(add(scene, quad((0, 0, 1, 1), z=0.01)))
    shading.update(0.0)
    centre, glow, fading, edge = look(panda_base, *points)
    if shading.glsl:
        assert glow[0] > centre[0] + 10 and glow[1] > centre[1] + 10, (glow, centre)
        assert behind_edge[0] + 20 < fading[0] < glow[0] - 60, (fading, glow)
        assert edge == behind_edge, "the highlight must fade out before the square's border"
    else:
        assert glow == fading == edge == centre


@pytest.mark.parametrize(
    "colour", [(0.2, 0.9, 0.95, 0.85), (1.0, 0.15, 0.12)], ids=["cyan-rgba", "red-rgb"]
)
def test_a_highlight_takes_another_colour_for_another_meaning(
    panda_base: Any, scene: NodePath, shading: Shading, colour: tuple[float, ...]
) -> None:
    add_background(scene, DARK)
    shading.highlight(add(scene, quad((0, 0, 1, 1), z=0.01)), colour)
    shading.update(0.0)
    [centre] = look(panda_base, (0.5, 0.5, 0))
    alpha = colour[3] if len(colour) == 4 else CENTRE_ALPHA
    assert_close(centre, blend(DARK, colour[:3], alpha))


# -- level layers -----------------------------------------------------------------


def test_a_layer_at_opacity_0_leaves_the_view_unchanged_and_at_half_blends(
    panda_base: Any, scene: NodePath, shading: Shading
) -> None:
    add_background(scene, RED)
    points = ((0.5, 0.5, 0), (1.0, 0.5, 0))
    before = look(panda_base, *points)
    plane = add(scene, quad((-3, -3, 3, 3), normal=(0, 0, 0)))
    shading.layer(plane, LAYER_TINT, 0.0)
    assert look(panda_base, *points) == before

    shading.layer(plane, LAYER_TINT, 0.5)
    inside, on_line, on_other_line = look(panda_base, (0.5, 0.5, 0), (1.0, 0.5, 0), (0.5, -1.0, 0))
    assert_close(inside, blend(RED, LAYER_TINT[:3], 0.5))
    lighter = [min(component + LINE_LIGHTEN, 1.0) for component in LAYER_TINT[:3]]
    assert_close(on_line, blend(RED, lighter, 0.5))
    assert_close(on_other_line, blend(RED, lighter, 0.5))


def test_layer_grid_lines_follow_the_grid_origin(
    panda_base: Any, scene: NodePath, fallback: bool
) -> None:
    shading = Shading(panda_base, force_fallback=fallback, grid_origin=(0.5, 0.5))
    add_background(scene, RED)
    shading.layer(add(scene, quad((-3, -3, 3, 3))), LAYER_TINT, 1.0)
    old_border, new_border = look(panda_base, (1.0, 0.0, 0), (1.5, 0.0, 0))
    assert_close(old_border, opaque(LAYER_TINT[:3]))
    assert_close(new_border, opaque([min(c + LINE_LIGHTEN, 1.0) for c in LAYER_TINT[:3]]))


# -- lighting ---------------------------------------------------------------------


def test_lighting_brightens_the_face_turned_to_the_light_and_the_toggle_flattens(
    panda_base: Any, scene: NodePath, shading: Shading
) -> None:
    add_background(scene, DARK)
    towards = add(scene, quad((-2, 0, -1, 1), normal=-KEY_DIRECTION, color=GREY_BODY))
    away = add(scene, quad((1, 0, 2, 1), normal=KEY_DIRECTION, color=GREY_BODY))
    for node in (towards, away):
        shading.lit(node)
    points = ((-1.5, 0.5, 0), (1.5, 0.5, 0))

    lit_towards, lit_away = look(panda_base, *points)
    assert min(lit_towards) > max(lit_away) + 120, (lit_towards, lit_away)
    assert min(lit_towards) > 200

    shading.set_lighting(False)
    assert shading.lighting is False
    flat_towards, flat_away = look(panda_base, *points)
    assert flat_towards == flat_away
    assert_close(flat_towards, opaque(GREY_BODY), tolerance=1)

    shading.set_lighting(True)
    assert look(panda_base, *points) == [lit_towards, lit_away]


def test_lighting_keeps_vertex_colour_colour_scale_and_texture(
    panda_base: Any, scene: NodePath, shading: Shading
) -> None:
    add_background(scene, DARK)
    tinted = add(scene, quad((-2, 0, -1, 1), color=GREY_BODY))
    tinted.setColorScale(1.0, 0.5, 0.25, 1.0)
    textured = add(scene, quad((1, 0, 2, 1), color=GREY_BODY))
    texture = Texture("cyan")
    texture.setup2dTexture(1, 1, Texture.TUnsignedByte, Texture.FRgb)
    texture.setRamImage(bytes([255, 255, 128]))  # stored blue, green, red
    textured.setTexture(texture)
    for node in (tinted, textured):
        shading.lit(node)
    shading.set_lighting(False)
    tinted_pixel, textured_pixel = look(panda_base, (-1.5, 0.5, 0), (1.5, 0.5, 0))
    assert_close(tinted_pixel, opaque((0.8, 0.4, 0.2)), tolerance=1)
    assert_close(textured_pixel, opaque((0.8 * 128 / 255, 0.8, 0.8)), tolerance=1)


def test_untextured_lighting_gives_the_same_pixels_without_the_texture_fetch(
    panda_base: Any, scene: NodePath, shading: Shading
) -> None:
    """``lit(textured=False)`` (lit_plain.frag) draws untextured geometry exactly as
    ``lit`` does, lit or flat, tinted or not."""
    add_background(scene, DARK)
    nodes = [add(scene, quad((-2, 0, -1, 1), normal=-KEY_DIRECTION, color=GREY_BODY)),
             add(scene, quad((1, 0, 2, 1), color=GREY_BODY))]
    nodes[1].setColorScale(1.0, 0.5, 0.25, 1.0)
    points = ((-1.5, 0.5, 0), (1.5, 0.5, 0))
    for lighting in (True, False):
        shading.set_lighting(lighting)
        for node in nodes:
            shading.lit(node)
        textured = look(panda_base, *points)
        for node in nodes:
            shading.lit(node, textured=False)
        if shading.glsl:
            assert nodes[0].getShader() == shading.shaders["lit_plain"]
        assert look(panda_base, *points) == textured, lighting
        assert opaque(DARK) not in textured


# -- last-seen markers (R9.10) ------------------------------------------------------


def test_a_ghost_is_tinted_and_translucent(
    panda_base: Any, scene: NodePath, shading: Shading
) -> None:
    add_background(scene, RED)
    facing = add(scene, quad((-0.5, -0.5, 0.5, 0.5), color=GREY_BODY))
    facing.setColorScale(0.0, 1.0, 0.0, 1.0)  # a side tint: the ghost's tint replaces it
    shading.ghost(facing, GHOST_TINT)
    [centre] = look(panda_base, (0, 0, 0))
    body = [g * t for g, t in zip(GREY_BODY, GHOST_TINT[:3], strict=True)]
    assert_close(centre, blend(RED, body, GHOST_TINT[3]))
    assert centre[0] > 120, "R9.10: the board must show through a last-seen marker"


def test_a_ghost_tint_without_alpha_gets_the_ghost_alpha(
    panda_base: Any, scene: NodePath, shading: Shading
) -> None:
    add_background(scene, RED)
    shading.ghost(add(scene, quad((-0.5, -0.5, 0.5, 0.5), color=GREY_BODY)), GHOST_TINT[:3])
    [centre] = look(panda_base, (0, 0, 0))
    body = [g * t for g, t in zip(GREY_BODY, GHOST_TINT[:3], strict=True)]
    assert_close(centre, blend(RED, body, GHOST_ALPHA))


def test_a_ghost_rim_glows_with_glsl(panda_base: Any, scene: NodePath, shading: Shading) -> None:
    """At (2, 0.5, 0) the eye lies along (-2, -0.5, 10); a normal across it is a
    silhouette: the rim is lighter and more opaque there on the GLSL path."""
    add_background(scene, RED)
    silhouette = Vec3(10, 0, 2).normalized()
    rim = add(scene, quad((1.5, 0, 2.5, 1), normal=silhouette, color=GREY_BODY))
    shading.ghost(rim, GHOST_TINT)
    [rim_pixel] = look(panda_base, (2.0, 0.5, 0))
    body = [g * t for g, t in zip(GREY_BODY, GHOST_TINT[:3], strict=True)]
    if shading.glsl:
        glow = [(t + 1.0) / 2 for t in GHOST_TINT[:3]]
        assert_close(rim_pixel, blend(RED, glow, 0.8))
    else:
        assert_close(rim_pixel, blend(RED, body, GHOST_TINT[3]))


# -- fallback and errors ----------------------------------------------------------


def test_forced_fallback_uses_no_shader_and_says_so(panda_base: Any, scene: NodePath) -> None:
    shading = Shading(panda_base, force_fallback=True)
    assert shading.glsl is False
    assert shading.shaders == {}
    assert shading.message == (
        "Shaders turned off: using fixed-function lighting, highlights without glow, "
        "ghosts without rim glow."
    )
    nodes = [add(scene, quad((0, 0, 1, 1))) for _ in PROGRAMS]
    shading.lit(nodes[0])
    shading.lit(nodes[1], textured=False)
    shading.highlight(nodes[2])
    shading.layer(nodes[3], LAYER_TINT, 0.5)
    shading.ghost(nodes[4], GHOST_TINT)
    assert [node.getShader() for node in nodes] == [None] * len(PROGRAMS)


def broken_copy(tmp_path: Path, name: str, edit: str) -> Path:
    """A copy of shaders/ in which ``name`` is broken: "syntax" adds a syntax error,
    "undeclared" uses an undeclared variable, "missing" deletes the file."""
    directory = tmp_path / "shaders"
    shutil.copytree(SHADER_DIR, directory)
    target = directory / name
    if edit == "missing":
        target.unlink()
    elif edit == "syntax":
        target.write_text(target.read_text().replace("void main() {", "void main() { oops"))
    else:
        source = target.read_text()
        position = "gl_Position = p3d_ModelViewProjectionMatrix * p3d_Vertex;"
        assert position in source
        target.write_text(source.replace(position, position[:-1] + " * nowhere;"))
    return directory


@pytest.mark.parametrize(
    ("name", "edit", "log_says"),
    [
        ("highlight.frag", "syntax", "syntax error"),
        ("lit.vert", "syntax", "syntax error"),
        ("layer.vert", "undeclared", "nowhere"),
        ("ghost.frag", "missing", "shader file not found"),
    ],
)
def test_a_broken_shader_is_reported_naming_its_file(
    panda_base: Any, tmp_path: Path, name: str, edit: str, log_says: str
) -> None:
    directory = broken_copy(tmp_path, name, edit)
    with pytest.raises(ShaderCompileError) as raised:
        Shading(panda_base, shader_dir=directory, strict=True)
    assert raised.value.path == directory / name
    assert log_says in raised.value.log
    assert str(raised.value).startswith(f"{directory / name}: ")

    shading = Shading(panda_base, shader_dir=directory)
    assert shading.glsl is False
    assert shading.message is not None
    assert shading.message.startswith(f"Shader {directory / name} failed on llvmpipe")
    assert log_says in shading.message
    assert shading.message.endswith(
        ": using fixed-function lighting, highlights without glow, ghosts without rim glow."
    )


def test_after_a_broken_shader_the_fallback_still_shows_the_highlight(
    panda_base: Any, scene: NodePath, tmp_path: Path
) -> None:
    shading = Shading(panda_base, shader_dir=broken_copy(tmp_path, "highlight.frag", "syntax"))
    add_background(scene, DARK)
    shading.highlight(add(scene, quad((0, 0, 1, 1), z=0.01)))
    shading.update(0.0)
    [centre] = look(panda_base, (0.5, 0.5, 0))
    assert_close(centre, blend(DARK, YELLOW, CENTRE_ALPHA))


@pytest.fixture
def software_buffer(panda_base: Any, scene: NodePath) -> Iterator[tuple[GraphicsOutput, NodePath]]:
    """An offscreen buffer of Panda3D's software renderer (TinyPanda: no GLSL at all),
    showing the same scene from the same place; removed afterwards."""
    pipe = GraphicsPipeSelection.getGlobalPtr().makeModulePipe("p3tinydisplay")
    assert pipe is not None
    properties = FrameBufferProperties()
    properties.setRgbColor(True)
    properties.setDepthBits(16)
    buffer = panda_base.graphicsEngine.makeOutput(
        pipe,
        "no-glsl",
        -10,
        properties,
        WindowProperties.size(256, 256),
        GraphicsPipe.BFRefuseWindow,
    )
    assert buffer is not None
    lens = PerspectiveLens()
    lens.setAspectRatio(1.0)
    camera = panda_base.render.attachNewNode(Camera("no-glsl-camera", lens))
    camera.setPosHpr(0, 0, CAMERA_HEIGHT, 0, -90, 0)
    buffer.makeDisplayRegion().setCamera(camera)
    yield buffer, camera
    panda_base.graphicsEngine.removeWindow(buffer)
    camera.removeNode()


def test_a_driver_without_glsl_falls_back_and_says_so(
    scene: NodePath, software_buffer: tuple[GraphicsOutput, NodePath]
) -> None:
    buffer, camera = software_buffer
    gsg = buffer.getGsg()
    assert not gsg.getSupportsGlsl()
    shading = Shading(gsg)
    assert shading.glsl is False
    assert shading.message == (
        "GLSL is not available on TinyPanda: using fixed-function lighting, "
        "highlights without glow, ghosts without rim glow."
    )
    add_background(scene, DARK)
    shading.highlight(add(scene, quad((0, 0, 1, 1), z=0.01)))
    towards = add(scene, quad((-2, 0, -1, 1), normal=-KEY_DIRECTION, color=GREY_BODY))
    away = add(scene, quad((1, 0, 2, 1), normal=KEY_DIRECTION, color=GREY_BODY))
    shading.lit(towards)
    shading.lit(away)
    points = ((0.5, 0.5, 0), (-1.5, 0.5, 0), (1.5, 0.5, 0))

    image = frame(buffer)
    highlight, lit_towards, lit_away = (pixel_at(image, camera, p) for p in points)
    assert_close(highlight, blend(DARK, YELLOW, CENTRE_ALPHA))
    assert min(lit_towards) > max(lit_away) + 100, (lit_towards, lit_away)

    shading.set_lighting(False)
    image = frame(buffer)
    flat_towards, flat_away = (pixel_at(image, camera, p) for p in points[1:])
    assert flat_towards == flat_away == opaque(GREY_BODY)


# -- level planes drawn cheaply -------------------------------------------------------


def test_a_layer_plane_covers_its_rectangle_once_in_strips_and_cells(panda_base: Any) -> None:
    """``layer_plane``: strips LAYER_STRIP_HALF_WIDTH squares each side of every border
    (clipped to the rectangle) and the cells between, not overlapping."""
    from wec.client.shading import LAYER_CELLS, LAYER_STRIP_HALF_WIDTH, LAYER_STRIPS

    plane = Shading(panda_base).layer_plane("test", (-5.0, -5.0), (5.0, 5.0))

    def rects(name: str) -> list[tuple[float, float, float, float]]:
        """The quads of one part, as (x0, y0, x1, y1): four vertices each."""
        found: list[tuple[float, float, float, float]] = []
        for geom in plane.find(name).node().getGeoms():
            vertices = GeomVertexReader(geom.getVertexData(), "vertex")
            corners = [vertices.getData3() for _ in range(geom.getVertexData().getNumRows())]
            for index in range(0, len(corners), 4):
                xs = [c.x for c in corners[index:index + 4]]
                ys = [c.y for c in corners[index:index + 4]]
                found.append((min(xs), min(ys), max(xs), max(ys)))
        return found

    strips, cells = rects(LAYER_STRIPS), rects(LAYER_CELLS)
    assert len(cells) == 100
    inner = 1.0 - 2 * LAYER_STRIP_HALF_WIDTH
    assert all(abs((x1 - x0) - inner) < 1e-5 and abs((y1 - y0) - inner) < 1e-5
               for x0, y0, x1, y1 in cells)
    area = sum((x1 - x0) * (y1 - y0) for x0, y0, x1, y1 in strips + cells)
    assert abs(area - 100.0) < 1e-4


def test_a_layer_plane_looks_like_the_layer_on_a_plain_quad(
    panda_base: Any, scene: NodePath, shading: Shading
) -> None:
    """The cells between the strips show the plain tint without running layer.frag,
    the strips the grid lines: the same pixels as the layer look on one big quad."""
    add_background(scene, RED)
    points = ((0.5, 0.5, 0), (1.0, 0.5, 0), (0.5, -1.0, 0), (0.3, 0.7, 0), (0.92, 0.5, 0))
    background = look(panda_base, *points)
    plain = add(scene, quad((-3, -3, 3, 3), normal=(0, 0, 0)))
    shading.layer(plain, LAYER_TINT, 0.5)
    expected = look(panda_base, *points)
    plain.removeNode()
    plane = add(scene, shading.layer_plane("test", (-3.0, -3.0), (3.0, 3.0)))
    shading.layer(plane, LAYER_TINT, 0.5)
    assert look(panda_base, *points) == expected
    if shading.glsl:
        cells = plane.find("layer-cells")
        assert cells.getShader() is None and plane.getShader() == shading.shaders["layer"]
    shading.layer(plane, LAYER_TINT, 0.0)  # faded to nothing: the background alone
    assert look(panda_base, *points) == background
