"""Shading for the 3D client: the GLSL shaders of ``shaders/`` and a fixed-function fallback.

``Shading`` gives the client four looks, each applied to a NodePath:

- ``lit``: lighting (key + fill + ambient, Blinn-Phong, computed per vertex) of
  vertex-coloured, material-less models, with a global on/off toggle (R14.5: lighting
  is display-only); its lights are this module's constants, not Panda lights set on the
  scene; untextured geometry may say so (``textured=False``) and skip the texture
  fetch (the same pixels, cheaper);
- ``highlight``: the glowing, pulsing yellow of legal destination squares (or another
  colour for another meaning);
- ``layer``: a translucent Air or Sub level plane with grid lines, fadable;
- ``ghost``: a translucent last-seen marker with a rim glow (R9.10).

When the graphics driver has no GLSL 1.50, when a shader does not compile, or when
asked (``force_fallback=True``), every look is rebuilt from fixed-function state (Panda
lights, flat colours, alpha scales) so the board still shows everything, and
``message`` says why, for the player. The fallback drops the soft glow, the pulse's
colour shift and the ghost's rim; the highlight still pulses through its alpha.

Squares are found from the world grid (``grid_origin``: any square corner, world xy;
``square_size``: world units), so highlight and layer geometry needs no UVs.

Cost on a software renderer (Mesa's llvmpipe, where every pixel is shaded on the CPU):
``lit`` lights per vertex, so the board's large flat squares cost no more than unlit
ones (and, told they are untextured, fetch no texture either); a level plane made by
``layer_plane`` runs the per-pixel grid only on thin strips along the square borders
and draws the cells between them as plain tint, the colour the grid shader gives there.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from panda3d.core import (
    AmbientLight,
    DirectionalLight,
    Filename,
    Geom,
    GeomNode,
    GeomTriangles,
    GeomVertexData,
    GeomVertexFormat,
    GeomVertexWriter,
    LineStream,
    NodePath,
    Notify,
    PNMImage,
    PTAFloat,
    SamplerState,
    Shader,
    TexGenAttrib,
    Texture,
    TextureStage,
    TransparencyAttrib,
    Vec2,
    Vec3,
    Vec4,
)

from wec.client.resources import asset_folder

SHADER_DIR = asset_folder("shaders")
PROGRAMS = ("lit", "lit_plain", "highlight", "layer", "ghost")
# Programs that share another's vertex stage: lit_plain is lit.vert with a fragment
# stage that fetches no texture (see ``Shading.lit``).
VERTEX_STAGES = {"lit_plain": "lit"}
GLSL_VERSION_NEEDED = (1, 50)

# Lights, shared by lit.frag and the fixed-function fallback. Directions are the way the
# light travels in world space (Z up, the white side looking towards +Y).
KEY_DIRECTION = Vec3(0.4, 0.55, -0.73).normalized()
KEY_COLOR = Vec3(0.85, 0.82, 0.76)
FILL_DIRECTION = Vec3(-0.7, -0.2, -0.45).normalized()
FILL_COLOR = Vec3(0.28, 0.31, 0.38)
AMBIENT_COLOR = Vec3(0.24, 0.24, 0.27)
SPECULAR_COLOR = Vec3(0.3, 0.3, 0.3)
SHININESS = 32.0

# Legal destination highlight: the manual's yellow; alpha is the opacity at the centre.
HIGHLIGHT_COLOR = (1.0, 0.9, 0.15, 0.7)
PULSE_PERIOD = 1.6  # seconds from bright to bright
PULSE_MINIMUM = 0.65  # intensity at the pulse's low point, the peak being 1

GHOST_ALPHA = 0.4  # a ghost tint given as rgb gets this alpha

# Layer grid lines (the same numbers as in layer.frag).
LINE_HALF_WIDTH = 0.025  # squares
LINE_ALPHA = 0.8
LINE_LIGHTEN = 0.4
GRID_TEXTURE_SIZE = 128  # texels per square in the fallback's grid texture
# The fallback draws a layer as a texture (tint and grid lines) on white. One stage for
# every layer, so that calling ``layer`` again replaces the texture instead of adding one.
GRID_STAGE = TextureStage("wec-layer-grid")
# A level plane from ``layer_plane``: its strips reach this far (squares) each side of a
# square border. Beyond LINE_HALF_WIDTH plus the antialiasing width (one pixel's
# footprint, a few hundredths of a square on the board) the grid shader gives the plain
# tint, which the cells between the strips show without running it.
LAYER_STRIP_HALF_WIDTH = 0.08
LAYER_CELLS = "layer-cells"  # the part of a layer_plane drawn as plain tint
LAYER_STRIPS = "layer-strips"
# The cells' plain tint overrides the layer shader set on the plane itself.
CELLS_OVERRIDE = 10

FALLBACK_EFFECTS = "fixed-function lighting, highlights without glow, ghosts without rim glow"

Color = Sequence[float]
NOTIFY_PREFIX = re.compile(r"^:[\w:]*\(\w+\): ")
_FAILURE_LOGS: dict[int, str] = {}  # compile logs of failed shaders, by Panda3D object


class ShaderCompileError(RuntimeError):
    """A shader file is missing or does not compile or link; names the file."""

    def __init__(self, path: Path | str, log: str) -> None:
        self.path = Path(path)
        self.log = log.strip()
        super().__init__(f"{self.path}: {self.log}")


def pulse_intensity(time: float) -> float:
    """The highlight's intensity at ``time`` seconds (highlight.frag computes the same):
    1 at t = 0 and every period, ``PULSE_MINIMUM`` half a period later."""
    pulse = 0.5 + 0.5 * math.cos(2.0 * math.pi * time / PULSE_PERIOD)
    return PULSE_MINIMUM + (1.0 - PULSE_MINIMUM) * pulse


class Shading:
    """The client's shading, GLSL when available and fixed-function otherwise.

    ``base``: the ShowBase (or a GraphicsStateGuardian). ``shader_dir``: where the
    ``.vert``/``.frag`` files are (default ``shaders/``). ``force_fallback``: use the
    fixed-function path even with GLSL. ``strict``: raise ``ShaderCompileError`` when a
    shader fails instead of falling back. Attributes: ``glsl`` (the shaders are in use),
    ``message`` (None, or why not, for the player), ``lighting`` (the toggle's state),
    ``shaders`` (program name to compiled Shader, empty on the fallback path).

    Shaders are compiled on the GSG at construction, so call it from the draw thread
    (Panda3D's default single-threaded model).
    """

    def __init__(
        self,
        base: Any,
        *,
        shader_dir: Path | str | None = None,
        force_fallback: bool = False,
        strict: bool = False,
        grid_origin: tuple[float, float] = (0.0, 0.0),
        square_size: float = 1.0,
    ) -> None:
        self.gsg = base.win.getGsg() if hasattr(base, "win") else base
        self.shader_dir = Path(shader_dir) if shader_dir is not None else SHADER_DIR
        self.grid_origin = (float(grid_origin[0]), float(grid_origin[1]))
        self.square_size = float(square_size)
        self.lighting = True
        self.time = 0.0
        self.shaders: dict[str, Shader] = {}
        self.message: str | None = None
        self._lighting_flag = PTAFloat([1.0])
        self._time_input = PTAFloat([0.0])
        self._lit_nodes: list[NodePath] = []
        self._highlight_nodes: list[NodePath] = []
        self._lights = _fixed_function_lights()
        self._grid_textures: dict[tuple[float, ...], Texture] = {}
        self.glsl = self._load_shaders(force_fallback, strict)

    # -- setting up ---------------------------------------------------------------

    def _load_shaders(self, force_fallback: bool, strict: bool) -> bool:
        """Compile every program on the GSG; True when all are in use, else sets
        ``message`` (or raises when ``strict``)."""
        renderer = _renderer_name(self.gsg)
        if force_fallback:
            self.message = f"Shaders turned off: using {FALLBACK_EFFECTS}."
            return False
        missing = _glsl_missing_reason(self.gsg)
        if missing is not None:
            self.message = f"{missing} on {renderer}: using {FALLBACK_EFFECTS}."
            return False
        try:
            self.shaders = {name: self._compile(name) for name in PROGRAMS}
        except ShaderCompileError as error:
            if strict:
                raise
            self.shaders = {}
            self.message = (
                f"Shader {error.path} failed on {renderer} ({_first_error(error.log)}): "
                f"using {FALLBACK_EFFECTS}."
            )
            return False
        return True

    def _compile(self, name: str) -> Shader:
        """Load ``name``.vert/.frag (the vertex stage of ``VERTEX_STAGES`` where named)
        and compile them now; ShaderCompileError names the failing file and carries the
        driver's log."""
        vertex = self.shader_dir / f"{VERTEX_STAGES.get(name, name)}.vert"
        fragment = self.shader_dir / f"{name}.frag"
        for path in (vertex, fragment):
            if not path.is_file():
                raise ShaderCompileError(path, "shader file not found")
        with _captured_notify() as log:
            shader = Shader.load(
                Shader.SL_GLSL,
                vertex=Filename.fromOsSpecific(str(vertex)),
                fragment=Filename.fromOsSpecific(str(fragment)),
            )
            if shader is not None and not shader.getErrorFlag():
                shader.prepareNow(self.gsg.getPreparedObjects(), self.gsg)
        if shader is None:
            raise ShaderCompileError(vertex, _without_notify_prefixes(log) or "not loaded")
        if shader.getErrorFlag():
            # Panda3D keeps loaded shaders (failed ones too) for the whole process and
            # compiles each once: the log of an earlier failure is kept here.
            this = shader.this  # type: ignore[attr-defined]  # types-panda3d lacks the C++ pointer
            text = _FAILURE_LOGS.setdefault(this, _without_notify_prefixes(log))
            raise ShaderCompileError(_failing_file(text, vertex, fragment), text or "failed")
        return shader

    # -- the four looks -----------------------------------------------------------

    def lit(self, nodepath: NodePath, textured: bool = True) -> None:
        """Light ``nodepath`` and everything under it (pieces, board); follows
        ``set_lighting``. Keeps vertex colours, setColor and setColorScale tints, and
        the first texture unless ``textured`` is False: then the texture is ignored
        (lit_plain.frag), which shows untextured geometry exactly as it would show
        with it, at a lower cost per pixel on a software renderer."""
        if self.glsl:
            nodepath.setShader(self.shaders["lit" if textured else "lit_plain"])
            nodepath.setShaderInput("wec_lighting", self._lighting_flag)
            nodepath.setShaderInput("wec_key_direction", KEY_DIRECTION)
            nodepath.setShaderInput("wec_key_color", KEY_COLOR)
            nodepath.setShaderInput("wec_fill_direction", FILL_DIRECTION)
            nodepath.setShaderInput("wec_fill_color", FILL_COLOR)
            nodepath.setShaderInput("wec_ambient_color", AMBIENT_COLOR)
            nodepath.setShaderInput("wec_specular_color", SPECULAR_COLOR)
            nodepath.setShaderInput("wec_shininess", SHININESS)
            return
        self._lit_nodes.append(nodepath)
        self._apply_fixed_lighting(nodepath)

    def highlight(self, nodepath: NodePath, color: Color = HIGHLIGHT_COLOR) -> None:
        """Show ``nodepath`` (flat geometry over one or more squares, e.g. a card just
        above the board) as a pulsing, glowing highlight: by default the manual's yellow
        of legal destinations; ``color`` (rgb, or rgba whose alpha is the opacity at a
        square's centre, default ``HIGHLIGHT_COLOR``'s) for other meanings."""
        red, green, blue, alpha = _rgba(color, HIGHLIGHT_COLOR[3])
        _translucent(nodepath)
        nodepath.setDepthOffset(1)
        if self.glsl:
            nodepath.setShader(self.shaders["highlight"])
            nodepath.setShaderInput("wec_highlight_color", Vec4(red, green, blue, alpha))
            nodepath.setShaderInput("wec_time", self._time_input)
            nodepath.setShaderInput("wec_pulse_period", PULSE_PERIOD)
            nodepath.setShaderInput("wec_pulse_minimum", PULSE_MINIMUM)
            self._set_grid_inputs(nodepath)
            return
        nodepath.setTextureOff(1)
        nodepath.setColor(red, green, blue, alpha)
        nodepath.setAlphaScale(pulse_intensity(self.time))
        self._highlight_nodes.append(nodepath)

    def layer(self, nodepath: NodePath, tint: Color, opacity: float) -> None:
        """Show ``nodepath`` as a translucent level plane: ``tint`` (rgba; alpha is the
        plane's opacity between grid lines) with lighter grid lines at the square
        borders, all faded by ``opacity`` (0: invisible, 1: full). Call again to fade."""
        red, green, blue, alpha = _rgba(tint, 1.0)
        _translucent(nodepath)
        if self.glsl:
            nodepath.setShader(self.shaders["layer"])
            nodepath.setShaderInput("wec_tint", Vec4(red, green, blue, alpha))
            nodepath.setShaderInput("wec_opacity", float(opacity))
            self._set_grid_inputs(nodepath)
            cells = nodepath.find(LAYER_CELLS)
            if not cells.isEmpty():
                # What layer.frag gives between the lines, without running it per pixel.
                cells.setShaderOff(CELLS_OVERRIDE)
                cells.setColor(red, green, blue, alpha * float(opacity), CELLS_OVERRIDE)
            return
        origin_u, origin_v = self.grid_origin
        nodepath.setColor(1.0, 1.0, 1.0, 1.0)
        nodepath.setTexture(GRID_STAGE, self._grid_texture((red, green, blue, alpha)), 1)
        nodepath.setTexGen(GRID_STAGE, TexGenAttrib.MWorldPosition)
        nodepath.setTexScale(GRID_STAGE, 1.0 / self.square_size)
        nodepath.setTexOffset(
            GRID_STAGE, -origin_u / self.square_size, -origin_v / self.square_size
        )
        nodepath.setAlphaScale(float(opacity))

    def ghost(self, nodepath: NodePath, tint: Color) -> None:
        """Show ``nodepath`` (a piece model) as a last-seen marker (R9.10): its vertex
        colours times ``tint`` (rgb, or rgba; alpha defaults to ``GHOST_ALPHA``), unlit
        and translucent, with a glowing rim on the GLSL path. The tint replaces any
        colour scale set on ``nodepath`` itself."""
        red, green, blue, alpha = _rgba(tint, GHOST_ALPHA)
        nodepath.clearColorScale()
        _translucent(nodepath, two_sided=False)
        if self.glsl:
            nodepath.setShader(self.shaders["ghost"])
            nodepath.setShaderInput("wec_tint", Vec4(red, green, blue, alpha))
            return
        nodepath.setColorScale(red, green, blue, alpha)

    # -- global state -------------------------------------------------------------

    def set_lighting(self, on: bool) -> None:
        """The lighting toggle: off shows every ``lit`` node in its flat, unlit colour."""
        self.lighting = bool(on)
        self._lighting_flag[0] = 1.0 if self.lighting else 0.0
        self._lit_nodes = [node for node in self._lit_nodes if not node.isEmpty()]
        if not self.glsl:
            for node in self._lit_nodes:
                self._apply_fixed_lighting(node)

    def update(self, time: float) -> None:
        """Advance the highlight pulse to ``time`` (seconds, e.g. the frame time)."""
        self.time = float(time)
        self._time_input[0] = self.time
        self._highlight_nodes = [node for node in self._highlight_nodes if not node.isEmpty()]
        intensity = pulse_intensity(self.time)
        for node in self._highlight_nodes:
            node.setAlphaScale(intensity)

    # -- helpers ------------------------------------------------------------------

    def layer_plane(self, name: str, low: tuple[float, float],
                    high: tuple[float, float]) -> NodePath:
        """A flat plane from ``low`` to ``high`` (world x, y; z=0, facing +z) for
        ``layer``, on this Shading's grid: strips along every square border inside it
        (``LAYER_STRIPS``, where the grid lines are drawn per pixel) and the cells
        between them (``LAYER_CELLS``, plain tint); together they cover the rectangle
        once."""
        return layer_plane(name, low, high, self.grid_origin, self.square_size)

    def _set_grid_inputs(self, nodepath: NodePath) -> None:
        nodepath.setShaderInput("wec_grid_origin", Vec2(*self.grid_origin))
        nodepath.setShaderInput("wec_square_size", self.square_size)

    def _apply_fixed_lighting(self, nodepath: NodePath) -> None:
        """Fixed-function lighting: the three Panda lights when on, no light when off.
        Without a material, Panda lights the vertex colour."""
        nodepath.clearLight()
        if not self.lighting:
            nodepath.setLightOff()
            return
        for light in self._lights:
            nodepath.setLight(light)

    def _grid_texture(self, tint: tuple[float, float, float, float]) -> Texture:
        """One square of the fallback's layer look, cached per tint."""
        key = tuple(round(component, 4) for component in tint)
        if key not in self._grid_textures:
            self._grid_textures[key] = _make_grid_texture(tint)
        return self._grid_textures[key]


Rect = tuple[float, float, float, float]  # x0, y0, x1, y1 (world units)


def flat_quads(name: str, rects: Sequence[Rect],
               colors: Sequence[Color] | None = None) -> NodePath:
    """One GeomNode holding a horizontal quad (z=0, facing +z, normal up) per rectangle,
    each in its colour (white when ``colors`` is None): many squares in a single draw."""
    vertex_format = GeomVertexFormat.getV3n3c4()
    data = GeomVertexData(name, vertex_format, Geom.UHStatic)
    data.uncleanSetNumRows(4 * len(rects))
    vertices = GeomVertexWriter(data, "vertex")
    normals = GeomVertexWriter(data, "normal")
    colours = GeomVertexWriter(data, "color")
    triangles = GeomTriangles(Geom.UHStatic)
    for index, (x0, y0, x1, y1) in enumerate(rects):
        red, green, blue, alpha = _rgba(colors[index] if colors else (1.0, 1.0, 1.0), 1.0)
        for x, y in ((x0, y0), (x1, y0), (x1, y1), (x0, y1)):
            vertices.setData3(x, y, 0.0)
            normals.setData3(0.0, 0.0, 1.0)
            colours.setData4(red, green, blue, alpha)
        first = 4 * index
        triangles.addVertices(first, first + 1, first + 2)
        triangles.addVertices(first, first + 2, first + 3)
    geom = Geom(data)
    geom.addPrimitive(triangles)
    node = GeomNode(name)
    node.addGeom(geom)
    return NodePath(node)


def layer_plane(name: str, low: tuple[float, float], high: tuple[float, float],
                origin: tuple[float, float] = (0.0, 0.0), square: float = 1.0) -> NodePath:
    """See ``Shading.layer_plane``: strips of ``LAYER_STRIP_HALF_WIDTH`` squares each
    side of every grid border (lines at ``origin`` + k * ``square``) within the
    rectangle, and the cells between them."""
    reach = LAYER_STRIP_HALF_WIDTH * square
    xs = _borders(low[0], high[0], origin[0], square)
    ys = _borders(low[1], high[1], origin[1], square)
    # Across x: each border's strip runs the full height; along y: the strips between.
    x_bands = _bands(xs, low[0], high[0], reach)
    y_bands = _bands(ys, low[1], high[1], reach)
    strips: list[Rect] = [(x0, low[1], x1, high[1]) for x0, x1 in x_bands.strips]
    strips += [(x0, y0, x1, y1) for x0, x1 in x_bands.cells for y0, y1 in y_bands.strips]
    cells: list[Rect] = [(x0, y0, x1, y1) for x0, x1 in x_bands.cells
                         for y0, y1 in y_bands.cells]
    plane = NodePath(name)
    flat_quads(LAYER_STRIPS, strips).reparentTo(plane)
    flat_quads(LAYER_CELLS, cells).reparentTo(plane)
    return plane


class _Bands:
    """Intervals along one axis: around the borders (strips) and between them (cells)."""

    def __init__(self) -> None:
        self.strips: list[tuple[float, float]] = []
        self.cells: list[tuple[float, float]] = []


def _borders(low: float, high: float, origin: float, square: float) -> list[float]:
    """Grid borders from ``low`` to ``high`` inclusive (the ends when they lie on one)."""
    first = math.ceil((low - origin) / square - 1e-9)
    last = math.floor((high - origin) / square + 1e-9)
    return [origin + k * square for k in range(first, last + 1)]


def _bands(borders: list[float], low: float, high: float, reach: float) -> _Bands:
    bands = _Bands()
    start = low
    for border in borders:
        strip = (max(low, border - reach), min(high, border + reach))
        if strip[0] > start:
            bands.cells.append((start, strip[0]))
        if strip[1] > strip[0]:
            bands.strips.append(strip)
        start = max(start, strip[1])
    if high > start:
        bands.cells.append((start, high))
    return bands


def _rgba(color: Color, default_alpha: float) -> tuple[float, float, float, float]:
    """An (r, g, b, a) tuple from rgb or rgba."""
    values = [float(component) for component in color]
    if len(values) == 3:
        values.append(default_alpha)
    if len(values) != 4:
        raise ValueError(f"a colour has 3 or 4 components, not {len(values)}: {color!r}")
    return values[0], values[1], values[2], values[3]


def _translucent(nodepath: NodePath, two_sided: bool = True) -> None:
    """Alpha blended, sorted back to front, not hiding what is drawn later, unlit;
    flat planes two-sided so a level shows from above and below."""
    nodepath.setTransparency(TransparencyAttrib.MAlpha)
    nodepath.setDepthWrite(False)
    nodepath.setTwoSided(two_sided)
    nodepath.setLightOff()


def _fixed_function_lights() -> list[NodePath]:
    """Key, fill and ambient as Panda lights (the same numbers as lit.frag)."""
    root = NodePath("wec-shading-lights")
    key = DirectionalLight("wec-key")
    key.setColor(Vec4(KEY_COLOR, 1.0))
    key.setDirection(KEY_DIRECTION)
    fill = DirectionalLight("wec-fill")
    fill.setColor(Vec4(FILL_COLOR, 1.0))
    fill.setDirection(FILL_DIRECTION)
    ambient = AmbientLight("wec-ambient")
    ambient.setColor(Vec4(AMBIENT_COLOR, 1.0))
    return [root.attachNewNode(light) for light in (key, fill, ambient)]


def _make_grid_texture(tint: tuple[float, float, float, float]) -> Texture:
    """A repeating one-square texture that looks like layer.frag: the tint inside,
    lines at the borders lightened by ``LINE_LIGHTEN`` and at least ``LINE_ALPHA``
    opaque."""
    red, green, blue, alpha = tint
    size = GRID_TEXTURE_SIZE
    image = PNMImage(size, size, 4)
    image.fill(red, green, blue)
    image.alphaFill(alpha)
    line = (min(red + LINE_LIGHTEN, 1.0), min(green + LINE_LIGHTEN, 1.0),
            min(blue + LINE_LIGHTEN, 1.0))
    border = [index for index in range(size) if _texel_on_border(index, size)]
    for across in range(size):
        for along in border:
            image.setXelA(along, across, *line, max(alpha, LINE_ALPHA))
            image.setXelA(across, along, *line, max(alpha, LINE_ALPHA))
    texture = Texture("wec-layer-grid")
    texture.load(image)
    texture.setWrapU(SamplerState.WM_repeat)
    texture.setWrapV(SamplerState.WM_repeat)
    texture.setMinfilter(SamplerState.FT_linear_mipmap_linear)
    texture.setMagfilter(SamplerState.FT_linear)
    return texture


def _texel_on_border(index: int, size: int) -> bool:
    centre = (index + 0.5) / size
    return min(centre, 1.0 - centre) < LINE_HALF_WIDTH


def _renderer_name(gsg: Any) -> str:
    """The driver's renderer string, else the pipe's name (software renderers)."""
    renderer = gsg.getDriverRenderer()
    if renderer:
        return str(renderer)
    pipe = gsg.getPipe()
    return str(pipe.getInterfaceName()) if pipe is not None else "this graphics driver"


def _glsl_missing_reason(gsg: Any) -> str | None:
    """Why the GSG cannot run ``#version 150`` shaders, or None when it can."""
    if not gsg.getSupportsGlsl():
        return "GLSL is not available"
    major = gsg.getDriverShaderVersionMajor()
    minor = gsg.getDriverShaderVersionMinor()
    if major >= 0 and (major, minor) < GLSL_VERSION_NEEDED:
        needed = "{}.{}".format(*GLSL_VERSION_NEEDED)
        return f"GLSL {needed} is needed but the driver has {major}.{minor}"
    return None


def _failing_file(log: str, vertex: Path, fragment: Path) -> Path | str:
    """The file the compile log blames: a file or stage named in it, else both (a link
    error)."""
    for clue, path in (
        (str(fragment), fragment),
        (str(vertex), vertex),
        ("fragment shader", fragment),
        ("vertex shader", vertex),
    ):
        if clue in log:
            return path
    return f"{vertex} + {fragment.name}"


def _without_notify_prefixes(lines: list[str]) -> str:
    """The log as the driver wrote it, without Panda3D's ":category(severity): " heads."""
    return "\n".join(NOTIFY_PREFIX.sub("", line) for line in lines)


def _first_error(log: str) -> str:
    """The driver's first error line (``file:line(column): error: ...``), else the first
    line."""
    lines = [line for line in log.splitlines() if line.strip()]
    for line in lines:
        if "error" in line.lower() and "an error occurred" not in line.lower():
            return line.strip()
    return lines[0].strip() if lines else "failed"


@contextmanager
def _captured_notify() -> Iterator[list[str]]:
    """Collect Panda3D's notify output (where the driver's compile log goes) meanwhile."""
    lines: list[str] = []
    notify = Notify.ptr()
    previous = notify.getOstreamPtr()
    stream = LineStream()
    notify.setOstreamPtr(stream, False)
    try:
        yield lines
    finally:
        notify.setOstreamPtr(previous, False)
        while stream.isTextAvailable():
            lines.append(stream.getLine())
