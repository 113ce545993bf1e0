"""Article icons (issue 18): one distinct, legible badge per article kind (R3.1), the same
on the board (lying flat on a square, or at a carrier's feet) and in the legend.

A badge is a coloured shape with the article's notation code (R16.2) written on it:
the colour names the weapon family (Flame orange, Stunner yellow, Conversion purple,
Rocket red, SAM sky blue, Torpedo teal), the shape the category, so that the badges
stay apart without colour too: weapons are discs, defences (Anti-...) hexagonal
shields in white with the colour on the rim and the letters, transport articles
diamonds, Stealth and Anti-Stealth squares, the XXX box an octagon.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from panda3d.core import (
    Geom,
    GeomNode,
    GeomTriangles,
    GeomVertexData,
    GeomVertexFormat,
    GeomVertexWriter,
    NodePath,
    TextNode,
)

from wec.engine.pieces import ArticleKind as A

Rgb = tuple[float, float, float]

FLAME = (1.0, 0.47, 0.10)
STUN = (1.0, 0.86, 0.15)
CONVERT = (0.70, 0.42, 1.0)
ROCKET = (0.90, 0.18, 0.16)
SAM = (0.36, 0.66, 1.0)
TORPEDO = (0.12, 0.72, 0.58)
WHITE = (0.97, 0.97, 0.95)
DARK = (0.10, 0.10, 0.12)


@dataclass(frozen=True, slots=True)
class Badge:
    """How one article kind is drawn: its code, fill, rim and letter colours, shape."""

    code: str
    fill: Rgb
    rim: Rgb
    ink: Rgb
    shape: str  # disc, shield, diamond, square, octagon


def _weapon(code: str, colour: Rgb, ink: Rgb = DARK) -> Badge:
    return Badge(code, colour, DARK, ink, "disc")


def _anti(code: str, colour: Rgb) -> Badge:
    ink = (colour[0] * 0.75, colour[1] * 0.75, colour[2] * 0.75)
    return Badge(code, WHITE, colour, ink, "shield")


BADGES: dict[A, Badge] = {
    A.FLAME: _weapon("FL", FLAME),
    A.STUNNER: _weapon("ST", STUN),
    A.CONVERSION: _weapon("CS", CONVERT),
    A.ROCKET_LAUNCHER: _weapon("RL", ROCKET, WHITE),
    A.SAM_LAUNCHER: _weapon("SL", SAM),
    A.TORPEDO_LAUNCHER: _weapon("TL", TORPEDO),
    A.ANTI_FLAME: _anti("AFL", FLAME),
    A.ANTI_STUNNER: _anti("AST", (0.85, 0.68, 0.0)),
    A.ANTI_CONVERSION: _anti("ACS", CONVERT),
    A.ANTI_ROCKET: _anti("ARL", ROCKET),
    A.ANTI_SAM: _anti("ASL", SAM),
    A.ANTI_TORPEDO: _anti("ATL", TORPEDO),
    A.STEALTH: Badge("SH", (0.24, 0.24, 0.28), (0.6, 0.6, 0.66), WHITE, "square"),
    A.ANTI_STEALTH: Badge("ASH", WHITE, (0.24, 0.24, 0.28), DARK, "square"),
    A.BIKE: Badge("BI", (0.62, 0.42, 0.22), DARK, WHITE, "diamond"),
    A.JUMP_PACK: Badge("JP", (0.78, 0.88, 1.0), (0.2, 0.35, 0.7), DARK, "diamond"),
    A.SCUBA_SUIT: Badge("SC", (0.05, 0.42, 0.62), (0.6, 0.9, 1.0), WHITE, "diamond"),
    A.XXX: Badge("XXX", (0.95, 0.76, 0.18), DARK, DARK, "octagon"),
}

CATEGORY_TEXT = ("Discs are weapons, white shields defences (Anti-...), diamonds transport, "
                 "squares Stealth and Anti-Stealth, the octagon the XXX box.")


def outline(shape: str) -> list[tuple[float, float]]:
    """The badge's outline, unit radius, counter-clockwise."""
    if shape == "disc":
        count, start = 24, 0.0
    elif shape == "shield":
        count, start = 6, 90.0
    elif shape == "diamond":
        count, start = 4, 90.0
    elif shape == "square":
        count, start = 4, 45.0
    else:
        count, start = 8, 22.5
    points = []
    for index in range(count):
        angle = math.radians(start + 360.0 * index / count)
        points.append((math.cos(angle), math.sin(angle)))
    if shape == "square":  # as wide as the disc, not its inscribed square
        points = [(x * 0.9 / 0.7071, y * 0.9 / 0.7071) for x, y in points]
    return points


def _fan(name: str, rings: list[tuple[float, Rgb]], shape: str, flat: bool) -> GeomNode:
    """Filled outlines, the first (the rim) largest, each drawn over the one before."""
    data = GeomVertexData(name, GeomVertexFormat.getV3c4(), Geom.UHStatic)
    vertices = GeomVertexWriter(data, "vertex")
    colours = GeomVertexWriter(data, "color")
    triangles = GeomTriangles(Geom.UHStatic)
    shape_points = outline(shape)
    row = 0
    for layer, (radius, colour) in enumerate(rings):
        lift = 0.002 * layer
        centre = row
        for x, y in [(0.0, 0.0), *shape_points]:
            if flat:
                vertices.addData3(x * radius, y * radius, lift)
            else:
                vertices.addData3(x * radius, -lift, y * radius)
            colours.addData4(*colour, 1.0)
            row += 1
        count = len(shape_points)
        for index in range(count):
            a = centre + 1 + index
            b = centre + 1 + (index + 1) % count
            if flat:
                triangles.addVertices(centre, a, b)
            else:
                triangles.addVertices(centre, b, a)
    geom = Geom(data)
    geom.addPrimitive(triangles)
    node = GeomNode(name)
    node.addGeom(geom)
    return node


def _letters(badge: Badge, flat: bool) -> NodePath:
    text = TextNode(f"code-{badge.code}")
    text.setText(badge.code)
    text.setAlign(TextNode.ACenter)
    text.setTextColor(*badge.ink, 1.0)
    letters = NodePath(text.generate())
    size = 0.62 if len(badge.code) <= 2 else 0.46
    letters.setScale(size)
    if flat:
        letters.setP(-90)
        letters.setPos(0, -size * 0.32, 0.006)
    else:
        letters.setPos(0, -0.01, -size * 0.32)
    return letters


_PROTOTYPES: dict[tuple[A, bool], NodePath] = {}


def badge(kind: A, flat: bool = True) -> NodePath:
    """The badge of ``kind``, one unit across (radius 0.5): lying in the XY plane facing
    up (``flat``, for the board: the letters read from -Y) or standing in the XZ plane
    facing -Y (for the 2D legend). The caller sets its scale and place; the letters are
    text, so the caller turns shaders and lighting off for it (``plain``). Each kind is
    built once; every call gives a fresh copy."""
    key = (kind, flat)
    prototype = _PROTOTYPES.get(key)
    if prototype is None:
        style = BADGES[kind]
        prototype = NodePath(f"badge-{kind.value}")
        prototype.attachNewNode(_fan("shape", [(0.5, style.rim), (0.42, style.fill)],
                                     style.shape, flat))
        _letters(style, flat).reparentTo(prototype)
        prototype.flattenStrong()
        _PROTOTYPES[key] = prototype
    return NodePath(prototype.node().copySubgraph())


def plain(node: NodePath, priority: int = 1) -> None:
    """Flat colours, no lighting and no shader (text glyphs read as black in lit.frag)."""
    node.setLightOff(priority)
    node.setShaderOff(priority)
