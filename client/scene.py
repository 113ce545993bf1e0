"""The board in 3D: levels, squares, pieces, articles, projectiles, markers, highlights.

``BoardScene.show(view)`` draws exactly one side's view (or the full state in a
replay): what the engine computed for that side, nothing more. Pieces keep their node
between calls (keyed by piece id) so moves can be animated.

Drawing cost matters on a software renderer (Mesa's llvmpipe shades every pixel on the
CPU), so the scene is built to be cheap without changing what the player sees:

- the static board is a handful of draws: the 100 squares in one, the rim in one, each
  level plane in two (grid strips and plain cells, see ``Shading.layer_plane``), the
  rank and file numbers in one for each reading direction (``face_labels``);
- pieces and tokens switch to their far models beyond ``LOD_SWITCH_DISTANCE``
  (``ModelLibrary.piece_lod``), where the difference is under a pixel;
- see-through things are drawn level by level (``LEVEL_BIN``); the Sub plane is left
  out while the Ground covers it (``seen_from``);
- while nothing moves, the board is shown from a picture of it (``RetainedFrames``),
  taken once: a still frame costs one copy of the window's pixels (``WindowCopy``, in
  place of the window's clears) instead of the whole board.
"""

from __future__ import annotations

import ctypes
import math
import sys
from collections.abc import Iterable
from typing import Any

from direct.interval.IntervalGlobal import LerpPosInterval, Sequence
from direct.task.Task import Task
from panda3d.core import (
    ATSNone,
    BitMask32,
    CallbackNode,
    Camera,
    CardMaker,
    CullBinManager,
    DepthTestAttrib,
    FrameBufferProperties,
    Geom,
    GeomNode,
    GeomTriangles,
    GeomVertexData,
    GeomVertexFormat,
    GeomVertexWriter,
    GraphicsOutput,
    GraphicsPipe,
    LineSegs,
    LODNode,
    NodePath,
    OmniBoundingVolume,
    PandaNode,
    Point3,
    PythonCallbackObject,
    SamplerState,
    TextNode,
    Texture,
    TransparencyAttrib,
    WindowProperties,
)

from wec.client.animation import SPEEDS, Choreographer, parallel, sequence
from wec.client.assets import ModelLibrary
from wec.client.icons import badge, plain
from wec.client.interaction import Highlight
from wec.client.layout import (
    LAYER_TINTS,
    LEVEL_Z,
    PALETTES,
    cell_xyz,
    hides_from,
    piece_heading,
    square_xy,
)
from wec.client.modelgen import LOD_SWITCH_DISTANCE
from wec.client.narration import article_name, own_turns_left
from wec.client.shading import Shading, flat_quads
from wec.engine import board
from wec.engine.board import AIR, GROUND, SUB, Level
from wec.engine.events import Event, Moved
from wec.engine.pieces import TRAITS, ArticleKind, Hand, Side
from wec.engine.position import Piece, Position

HIGHLIGHT_COLOURS: dict[Highlight, tuple[float, float, float, float]] = {
    Highlight.MOVE: (1.0, 0.92, 0.15, 0.85),       # yellow, as the manual says
    Highlight.CAPTURE: (1.0, 0.45, 0.10, 0.90),
    Highlight.AIM: (1.0, 0.15, 0.12, 0.85),
    Highlight.TARGET: (0.95, 0.20, 0.85, 0.90),
    Highlight.TRANSPORT: (0.20, 0.90, 0.95, 0.85),
    Highlight.SELECTED: (1.0, 1.0, 1.0, 0.65),
    Highlight.DOZE_PICK: (0.72, 0.40, 1.0, 0.55),   # a square the Dozer may take along
    Highlight.DOZE_CHOSEN: (0.85, 0.45, 1.0, 0.95),  # taken along
}
# A legal Move destination is lit in its level's colour (issue 18): the manual's yellow
# on the Ground, sky blue in the Air, sea green at the Sub level.
MOVE_COLOURS: dict[Level, tuple[float, float, float, float]] = {
    AIR: (0.35, 0.80, 1.0, 0.9),
    GROUND: HIGHLIGHT_COLOURS[Highlight.MOVE],
    SUB: (0.25, 1.0, 0.55, 0.9),
}


def highlight_colour(meaning: Highlight, level: Level) -> tuple[float, float, float, float]:
    """The colour a lit cell shows: Move destinations by level, the rest by meaning."""
    if meaning is Highlight.MOVE:
        return MOVE_COLOURS[level]
    return HIGHLIGHT_COLOURS[meaning]


LAST_MOVE_COLOUR = (0.35, 0.75, 1.0, 0.38)  # the squares of the last move seen
AIM_PATH_COLOUR = (1.0, 0.35, 0.2, 0.30)    # a shot's ray or area
AIM_HIT_COLOUR = (1.0, 0.1, 0.1, 0.75)      # a piece the shot would hit
MARKER_COLOUR = (0.85, 0.55, 1.0, 1.0)      # last-seen labels
OWN_REINFORCEMENT = (0.35, 0.95, 0.55, 1.0)
ENEMY_REINFORCEMENT = (1.0, 0.55, 0.25, 1.0)
SECRET_TEXT = (0.78, 0.72, 1.0, 1.0)        # "stealthy", "submerged" over own pieces
WATER = (0.16, 0.52, 0.66)                  # the Ground over a piece at the Sub level
XRAY_ALPHA = 0.85                           # Sub pieces seen through the water
XRAY = 3  # in LEVEL_BIN: Sub pieces through the water, after the Ground squares
ARTICLE_SIZE = 0.38     # a badge on the Ground, squares across
CARRIED_SIZE = 0.24     # a carried article's badge at its carrier's feet
LIGHT_SQUARE = (0.80, 0.74, 0.62, 1.0)
DARK_SQUARE = (0.38, 0.30, 0.24, 1.0)
MOVE_SECONDS = 0.35
LAYER_OPACITY = 0.12
FRAME_COLOUR = (0.12, 0.10, 0.09, 1.0)
RIM_Z = -0.02  # the rim lies a little below the squares
LABEL_COLOUR = (0.9, 0.85, 0.7, 1.0)
TEXT_OVER_SHADER = 1  # priority of "no shader" on text over the board's lit shader

# Everything see-through on the board is drawn level by level, bottom up, in one bin
# between the opaque pieces and Panda's sorted "transparent" bin: what lies at the Sub
# level (faded or stunned pieces, markers, highlights), the Ground squares, the Sub
# plane, the same for the Ground level, the Air plane, the Air level. The squares are
# 88% opaque and write depth, so the Sub plane drawn after them only shows where the
# Ground does not cover it (its 12% tint under 88% squares moved pixels by at most 3 of
# 255): a software renderer skips those pixels instead of blending a second full plane
# (and ``seen_from`` leaves the plane out when the Ground covers all of it). With the
# Ground faded, the Sub plane goes back beneath it (see ``_order_planes``).
LEVEL_BIN = "wec-levels"
LEVEL_BIN_SORT = 25  # after "opaque" (20), before "transparent" (30)
CONTENT_ORDER = {SUB: 0, GROUND: 4, AIR: 6}
SUB_PLANE_BENEATH, GROUND_SQUARES, AIR_PLANE = 1, 2, 5


def skip_2d_depth_clear(base: Any) -> None:
    """Turn off the depth clear ShowBase gives the 2D layer's display region, while
    render2d is drawn without depth test (ShowBase's setting, which no wec 2D part
    overrides): nothing drawn there reads the depth, so clearing it before the HUD only
    fills the window's depth buffer a second time each frame (about 0.7 ms on a software
    renderer)."""
    render2d, camera = getattr(base, "render2d", None), getattr(base, "cam2d", None)
    if render2d is None or camera is None:
        return
    test = render2d.getAttrib(DepthTestAttrib)
    if test is None or test.getMode() != DepthTestAttrib.M_none:
        return
    for region in camera.node().getDisplayRegions():
        region.setClearDepthActive(False)


def level_bin_ready() -> str:
    """The level-ordered bin (registered once per process)."""
    manager = CullBinManager.getGlobalPtr()
    if manager.findBin(LEVEL_BIN) < 0:
        manager.addBin(LEVEL_BIN, CullBinManager.BTFixed, LEVEL_BIN_SORT)
    return LEVEL_BIN


STUN_TEXT = (1.0, 0.92, 0.15, 1.0)
COOLDOWN_TEXT = (0.55, 0.9, 1.0, 1.0)
STATUS_COLOURS = {"stun": STUN_TEXT, "cooldown": COOLDOWN_TEXT, "secret": SECRET_TEXT,
                  "seen": MARKER_COLOUR}


def status_lines(piece: Piece, turn: int) -> list[tuple[str, str]]:
    """What floats above a piece: ``stunned 3`` and one countdown per weapon still
    cooling down (``Flame 1``), both in the piece's own turns (R7.1, R6.3.2, O12: the
    inspector and the move list count the same way)."""
    lines: list[tuple[str, str]] = []
    if piece.stunned(turn):
        lines.append((f"stunned {own_turns_left(piece.side, turn, piece.stunned_until)}",
                      "stun"))
    waits: dict[str, int] = {}
    for index, ability in enumerate(piece.abilities()):
        wait = own_turns_left(piece.side, turn, piece.ready_at(index))
        if wait > 0:
            name = article_name(ability)
            waits[name] = min(wait, waits.get(name, wait))
    lines.extend((f"{name} {wait}", "cooldown") for name, wait in waits.items())
    return lines


def _lighter(colour: tuple[float, float, float, float],
             amount: float) -> tuple[float, float, float, float]:
    """``colour`` moved ``amount`` of the way to white (a dark piece seen in water)."""
    return (colour[0] + (1 - colour[0]) * amount, colour[1] + (1 - colour[1]) * amount,
            colour[2] + (1 - colour[2]) * amount, colour[3])


def secret_lines(piece: Piece, view: Position) -> list[tuple[str, str]]:
    """Over an own piece: whether it is stealthy (R9.2), never whether the enemy sees it
    now (that would tell where hidden detectors stand)."""
    if view.viewer is None or piece.side is not view.viewer:
        return []
    # Submerged pieces show it by the water over their square (a label would hide them).
    return [("stealthy", "secret")] if piece.is_stealthy(view.options) else []


class BoardScene:
    """Everything on the board, under one node, drawn from a Position."""

    def __init__(self, base: Any, models: ModelLibrary, shading: Shading,
                 animation_speed: str = "full", palette: str = "manual") -> None:
        self.base = base
        self.colours = PALETTES[palette]
        self.choreographer = Choreographer(base.render, animation_speed)
        self.models = models
        self.shading = shading
        self.root: NodePath = base.render.attachNewNode("wec-board")
        # all but the picture's camera
        self._content: NodePath = self.root.attachNewNode("content")
        self.retained = RetainedFrames(base, self.root, self._content, self._is_still,
                                       shading, self._drawn_shape, self._camera_moved)
        skip_2d_depth_clear(base)
        self.levels: dict[Level, NodePath] = {
            level: self._content.attachNewNode(f"level-{level.label}") for level in Level}
        self.layer_shown: dict[Level, bool] = {level: True for level in Level}
        self._pieces: dict[int, NodePath] = {}
        self._piece_state: dict[int, Piece] = {}
        self._sharing: dict[int, list[int]] = {}
        self._dressing = self._content.attachNewNode("dressing")  # markers, shots, squares
        self._articles = self._content.attachNewNode("articles")  # badges on the Ground
        plain(self._articles)
        self._ties = self._content.attachNewNode("ties")  # flyers' stems and shadows
        self._xray = self._content.attachNewNode("xray")  # Sub pieces through the water
        self._xray.setTransparency(TransparencyAttrib.MAlpha)
        self._xray.setAlphaScale(XRAY_ALPHA)
        self._xray.setDepthWrite(False)
        self._xray.setBin(level_bin_ready(), XRAY)
        self._overlay = self._content.attachNewNode("overlay")  # last move, a shot's aim
        plain(self._overlay)
        self._lit = self._content.attachNewNode("highlights")
        self._hover = self._make_hover()
        self._near = -1.0  # the side of a square toward the camera: -Y from White's side
        self.marker_turns: dict[tuple[str, int], int] = {}  # (kind, cell) -> seen on turn
        self._watered: frozenset[int] = frozenset()
        self._refracted: list[tuple[NodePath, float, float]] = []
        self._batch: NodePath | None = None  # the still pieces as one mesh (_batch_for)
        self._batch_members: list[NodePath] = []  # the models the batch stands in for
        self._batched = False
        self._build_board()
        # Nothing textured on the board is lit: text and badges are drawn plain.
        self.shading.lit(self.root, textured=False)
        self.view: Position | None = None
        self.show_markers = True
        self.show_reinforcement_squares = True
        self.animation: Sequence | None = None

    def _is_still(self) -> bool:
        """Whether the board looks the same from one frame to the next as long as the
        camera stays: no animation playing and no pulsing highlight."""
        playing = self.animation is not None and self.animation.isPlaying()
        return not playing and self._lit.getNumChildren() == 0

    def _camera_moved(self, eye: tuple[float, float, float]) -> None:
        if self._layer_planes:
            self.seen_from(eye)
        self._refract(eye)
        self._batch_for(eye)

    # ------------------------------------------------------------------ batching

    def _batch_for(self, eye: tuple[float, float, float]) -> None:
        """While the camera moves (every frame drawn afresh), draw the pieces that stand
        still as one batch: copies of the very models a frame would draw (the far
        stand-ins, which every piece shows from where the camera is), their place and
        colour baked into one mesh, a handful of draws instead of one per piece (a draw
        costs about 0.1 ms on a software renderer). Pieces that move, fade or show
        through something are left out and drawn as they are. Nothing changes on
        screen: the same triangles in the same colours."""
        playing = self.animation is not None and self.animation.isPlaying()
        wanted = not playing and self._all_far(eye)
        if wanted and self._batch is None:
            self._build_batch()
        use = wanted and self._batch is not None
        if use == self._batched:
            return
        self._batched = use
        for model in self._batch_members:
            if model.isEmpty():
                continue
            if use:
                model.stash()
            else:
                model.unstash()
        if self._batch is not None:
            if use:
                self._batch.unstash()
            else:
                self._batch.stash()

    def _all_far(self, eye: tuple[float, float, float]) -> bool:
        """Whether every piece is beyond the switch to its far model, seen from ``eye``."""
        if not self.models.has_far_models:
            return True
        reach = LOD_SWITCH_DISTANCE ** 2
        ex, ey, ez = eye
        for node in self._pieces.values():
            pos = node.getPos()
            if (pos.x - ex) ** 2 + (pos.y - ey) ** 2 + (pos.z - ez) ** 2 < reach:
                return False
        return True

    def _build_batch(self) -> None:
        batch = self._content.attachNewNode("batched-pieces")
        members = []
        for pid, node in self._pieces.items():
            piece = self._piece_state.get(pid)
            model = node.find("model")
            if (piece is None or model.isEmpty() or node.isHidden()
                    or model.hasTransparency() or not self.layer_shown[piece.level]
                    or (self.view is not None and piece.stunned(self.view.turn))):
                continue
            shown = model.getChild(1) if model.node().isOfType(LODNode.getClassType()) \
                and model.getNumChildren() > 1 else model
            copy = shown.copyTo(batch)
            copy.setTransform(model.getTransform(batch))
            copy.setColorScale(model.getColorScale())
            members.append(model)
        batch.clearModelNodes()
        batch.flattenStrong()
        batch.stash()
        self._batch = batch
        self._batch_members = members
        self._batched = False

    def _drop_batch(self) -> None:
        """The pieces changed: back to one node each until the camera moves again."""
        if self._batched:
            for model in self._batch_members:
                if not model.isEmpty():
                    model.unstash()
        if self._batch is not None:
            self._batch.removeNode()
        self._batch = None
        self._batch_members = []
        self._batched = False

    def _drawn_shape(self) -> list[tuple[float, float]]:
        """Squares (half side, height; centred on the board, board coordinates) whose
        convex hull holds everything drawn now: the rim and numbers, the level planes
        and whatever stands on them, up to the highest piece or floating status."""
        top = LEVEL_Z[AIR]
        for pid, node in self._pieces.items():
            floating = 0.0 if node.find("status").isEmpty() else STATUS_REACH
            top = max(top, LEVEL_Z[self._piece_state[pid].level] + PIECE_REACH + floating)
        if self.view is not None and self.show_markers:
            for marker in self.view.last_seen:
                top = max(top, LEVEL_Z[board.cell_level(marker.cell)] + PIECE_REACH)
        if self.view is not None and self.view.projectiles:
            top = max(top, LEVEL_Z[AIR] + PIECE_REACH)  # a SAM flies above the Air plane
        return [(RIM_REACH, LEVEL_Z[GROUND]), (PIECES_REACH, LEVEL_Z[SUB] - 0.05),
                (PIECES_REACH, LEVEL_Z[AIR]), (PIECES_REACH, top)]

    def invalidate(self) -> None:
        """Say that something on the board changed outside this class's methods (they
        say it themselves), so the next frame is drawn afresh (see RetainedFrames)."""
        self.retained.invalidate()

    # ------------------------------------------------------------------ building

    def _build_board(self) -> None:
        """The static board: squares, rim, level planes and numbers, each one draw."""
        squares = [(x - 0.5, y - 0.5, x + 0.5, y + 0.5)
                   for x, y in (square_xy(sq) for sq in range(board.SQUARES))]
        colours = [DARK_SQUARE if (board.row_of(sq) + board.col_of(sq)) % 2 == 0
                   else LIGHT_SQUARE for sq in range(board.SQUARES)]
        ground = flat_quads("squares", squares, colours)
        ground.reparentTo(self.levels[GROUND])
        ground.setTransparency(TransparencyAttrib.MAlpha)
        ground.setAlphaScale(0.88)  # Sub pieces show faintly through the Ground
        ground.setBin(level_bin_ready(), GROUND_SQUARES)
        # Not writing depth: the Sub pieces seen through the water (XRAY) come after.
        ground.setDepthWrite(False)
        self._ground_tiles = ground
        self._square_colours = colours
        self._build_frame()
        self._layer_planes: dict[Level, NodePath] = {}
        self._eye: tuple[float, float, float] | None = None
        for level in (AIR, SUB):
            self._build_layer(level)
        self._build_labels()

    def _build_frame(self) -> None:
        """A wooden rim around the board: four strips, so nothing opaque lies under the
        squares and the Sub level shows through the Ground (R1.5)."""
        strips = [(-5.8, -5.8, 5.8, -5.0), (-5.8, 5.0, 5.8, 5.8),
                  (-5.8, -5.0, -5.0, 5.0), (5.0, -5.0, 5.8, 5.0)]
        rim = flat_quads("frame", strips, [FRAME_COLOUR] * len(strips))
        rim.reparentTo(self.levels[GROUND])
        rim.setZ(RIM_Z)

    def _build_layer(self, level: Level) -> None:
        plane = self.shading.layer_plane(f"layer-{level.label}", (-5.0, -5.0), (5.0, 5.0))
        plane.reparentTo(self.levels[level])
        plane.setZ(LEVEL_Z[level])
        plane.setTwoSided(True)
        plane.setDepthWrite(False)
        self.shading.layer(plane, LAYER_TINTS[level], LAYER_OPACITY)
        self._layer_planes[level] = plane
        self._order_planes()

    def _order_planes(self) -> None:
        """The Sub plane beneath the Ground squares, the Air plane above the Ground's
        content (see LEVEL_BIN)."""
        orders = {AIR: AIR_PLANE, SUB: SUB_PLANE_BENEATH}
        for level, plane in self._layer_planes.items():
            plane.setBin(LEVEL_BIN, orders[level])
        self.seen_from(self._eye)

    def seen_from(self, eye: tuple[float, float, float] | None) -> None:
        """The camera is at ``eye`` (board coordinates; None: anywhere). The Sub plane
        is left out while the shown Ground and its rim cover all of it from there (as
        from the home view): under 88% opaque squares its 12% tint moved no pixel by
        more than 3 of 255, and a software renderer would still rasterise it."""
        self._eye = eye
        covered = (eye is not None and self.layer_shown[GROUND]
                   and hides_from(eye, (RIM_REACH - 0.1, RIM_Z), (PLANE_REACH, LEVEL_Z[SUB])))
        plane = self._layer_planes.get(SUB)
        if plane is None:  # still building
            return
        if covered:
            plane.stash()
        else:
            plane.unstash()

    def _see_through(self, node: NodePath, level: Level) -> None:
        """Draw ``node`` (translucent, at ``level``) in its level's turn (LEVEL_BIN)."""
        node.setBin(level_bin_ready(), CONTENT_ORDER[level])

    def _build_labels(self) -> None:
        """Rank and file numbers, twice: reading upright from White's side and from
        Black's; ``face_labels`` shows the set that suits the camera. Each set is
        flattened into one draw."""
        labels = self.levels[GROUND].attachNewNode("labels")
        self._label_sets = {upright: self._label_set(labels, upright)
                            for upright in (0.0, 180.0)}
        labels.setLightOff()
        # Text is drawn without the lit shader: glyphs are alpha-only textures, which
        # lit.frag would read as black; the fixed-function path shows the text colour.
        labels.setShaderOff(TEXT_OVER_SHADER)
        self._labels = labels
        self._labels_upright: float | None = None
        self.face_labels(0.0)

    def _label_set(self, parent: NodePath, upright: float) -> NodePath:
        numbers = parent.attachNewNode(f"labels-{upright:g}")
        for n in range(1, board.SIZE + 1):
            for text, x, y in ((str(n), -5.45 - 0.15, n - 5.5),   # rows on both sides
                               (str(n), 5.45 + 0.15, n - 5.5),
                               (str(n), n - 5.5, -5.45 - 0.15),   # columns, both ends
                               (str(n), n - 5.5, 5.45 + 0.15)):
                node = TextNode(f"label-{text}")
                node.setText(text)
                node.setAlign(TextNode.ACenter)
                node.setTextColor(*LABEL_COLOUR)
                holder = numbers.attachNewNode(f"at-{x:.2f}-{y:.2f}")
                holder.setPos(x, y, 0.01)
                holder.setH(upright)
                label = holder.attachNewNode(node.generate())
                label.setScale(0.28)
                label.setP(-90)
                label.setPos(0, -0.1, 0)
        numbers.flattenStrong()
        numbers.hide()
        return numbers

    def face_labels(self, heading: float) -> None:
        """Turn the rank and file numbers to read upright from the camera's side (called
        every frame: nothing to do unless the camera crossed to the other side)."""
        upright = 180.0 if 90.0 < heading % 360 < 270.0 else 0.0
        if upright == self._labels_upright:
            return
        self._labels_upright = upright
        self.invalidate()
        for angle, numbers in self._label_sets.items():
            if angle == upright:
                numbers.show()
            else:
                numbers.hide()
        near = -1.0 if upright == 0.0 else 1.0
        if near != self._near:  # badges move to the squares' side toward the camera
            self._near = near
            if self.view is not None:
                self._draw_articles(self.view)
                for pid, node in self._pieces.items():
                    self._dress_piece(node, self._piece_state[pid])
                self._draw_ties(self.view)

    def _make_hover(self) -> NodePath:
        maker = CardMaker("hover")
        maker.setFrame(-0.48, 0.48, -0.48, 0.48)
        hover = self._content.attachNewNode(maker.generate())
        hover.setP(-90)
        hover.setColor(1, 1, 1, 0.18)
        hover.setTransparency(TransparencyAttrib.MAlpha)
        hover.setDepthWrite(False)
        hover.setLightOff()
        hover.hide()
        self._hover_level: Level | None = None
        self._hovered: tuple[int, Level] | None = None
        return hover

    # ------------------------------------------------------------------ showing

    def show(self, view: Position, events: Iterable[Event] = ()) -> None:
        """Draw ``view``; pieces that ``events`` moved glide to their new cells."""
        self.view = view
        self.invalidate()
        self._drop_batch()
        if self.animation is not None:
            self.animation.finish()
            self.animation = None
        events = tuple(events)
        speed = SPEEDS[self.choreographer.speed]
        moved = {e.to: e for e in events if isinstance(e, Moved)} if speed else {}
        glides = []
        present: set[int] = set()
        self._sharing = self._pieces_by_cell(view)
        for piece in view.pieces:
            present.add(piece.pid)
            node = self._pieces.get(piece.pid)
            old = self._piece_state.get(piece.pid)
            if node is None or old is None or (old.kind, old.hand, old.side) != (
                    piece.kind, piece.hand, piece.side):
                if node is not None:
                    node.removeNode()
                node = self._make_piece(piece)
                self._pieces[piece.pid] = node
            elif old.articles != piece.articles:
                self._dress_piece(node, piece)
            self._colour_piece(node, piece)
            self._label_piece(node, piece, view)
            target = self._piece_pos(piece, view)
            if old is not None and old.cell != piece.cell and piece.cell in moved:
                node.setPos(self._piece_pos(old, view))
                glides.append(LerpPosInterval(node, MOVE_SECONDS * speed, target,
                                              blendType="easeInOut"))
            else:
                node.setPos(target)
            node.reparentTo(self.levels[piece.level])
            self._piece_state[piece.pid] = piece
        for pid in [p for p in self._pieces if p not in present]:
            self._pieces.pop(pid).removeNode()
            self._piece_state.pop(pid, None)
        self._draw_dressing(view)
        self._draw_articles(view)
        self._draw_ties(view)
        effects = self.choreographer.effects(events, self.models)
        parts = ([parallel(*glides)] if glides else []) + ([effects] if effects else [])
        if parts:
            self.animation = sequence(*parts)
            self.animation.start()

    def _make_piece(self, piece: Piece) -> NodePath:
        holder = NodePath(f"piece-{piece.pid}")
        model = self.models.piece_lod(piece.kind, piece.hand)
        model.reparentTo(holder)
        model.setName("model")
        model.setH(piece_heading(piece.side))
        holder.setPythonTag("pid", piece.pid)
        self._dress_piece(holder, piece)
        return holder

    def _dress_piece(self, holder: NodePath, piece: Piece) -> None:
        """Carried articles as small badges in a row at the piece's feet, on the side of
        its square toward the camera (issue 18: every carrier shows what it carries)."""
        old = holder.find("carried")
        if not old.isEmpty():
            old.removeNode()
        if not piece.articles:
            return
        ring = holder.attachNewNode("carried")
        count = len(piece.articles)
        for index, article in enumerate(piece.articles):
            token = badge(article)
            token.reparentTo(ring)
            token.setScale(CARRIED_SIZE)
            offset = (index - (count - 1) / 2) * (CARRIED_SIZE + 0.02)
            token.setPos(offset, self._near * 0.3, 0.012)
            if self._near > 0:
                token.setH(180)
        plain(ring, 2)
        ring.flattenStrong()

    def _colour_piece(self, node: NodePath, piece: Piece) -> None:
        """The side and level colour; a stunned piece (R7) half see-through."""
        model = node.find("model")
        target = model if not model.isEmpty() else node
        target.setColorScale(*self.colours[(piece.side, piece.level)])
        stunned = self.view is not None and piece.stunned(self.view.turn)
        if stunned:
            target.setAlphaScale(0.55)
            target.setTransparency(TransparencyAttrib.MAlpha)
            self._see_through(target, piece.level)
        else:  # opaque: drawn with the opaque pieces, not sorted and blended
            target.clearTransparency()
            target.clearBin()

    def _label_piece(self, node: NodePath, piece: Piece, view: Position,
                     height: float = 1.0) -> None:
        """Stun counters in yellow (R7), fire-rate countdowns in light blue (R6.3), both
        in the piece's own turns, and over own pieces whether they are stealthy or
        submerged: one line each, floating above the piece, in their own colours."""
        old = node.find("status")
        if not old.isEmpty():
            old.removeNode()
        lines = status_lines(piece, view.turn) + secret_lines(piece, view)
        if not lines:
            return
        label = self._floating_text(node, lines, height)
        label.setName("status")

    def _floating_text(self, parent: NodePath, lines: list[tuple[str, str]],
                       height: float) -> NodePath:
        """Lines of text over a dark card, facing the camera above ``parent``, each in
        the colour of its kind, never tinted, lit or hidden by the board."""
        holder = parent.attachNewNode("floating")
        for index, (line, kind) in enumerate(reversed(lines)):
            text = TextNode("line")
            text.setText(line)
            text.setAlign(TextNode.ACenter)
            text.setTextColor(*STATUS_COLOURS[kind])
            text.setCardColor(0.02, 0.02, 0.03, 0.78)
            text.setCardAsMargin(0.15, 0.15, 0.06, 0.04)
            row = holder.attachNewNode(text)
            row.setZ(index * 1.1)
        holder.setScale(0.2)
        holder.setZ(height)
        holder.setBillboardPointEye()
        holder.setColorScaleOff(2)
        holder.setTransparency(TransparencyAttrib.MAlpha, 2)
        plain(holder, 2)
        holder.setDepthTest(False)
        holder.setDepthWrite(False)
        holder.setBin("fixed", 30)
        return holder

    @staticmethod
    def _pieces_by_cell(view: Position) -> dict[int, list[int]]:
        """Piece ids on each occupied cell, in the view's order."""
        cells: dict[int, list[int]] = {}
        for piece in view.pieces:
            cells.setdefault(piece.cell, []).append(piece.pid)
        return cells

    def _piece_pos(self, piece: Piece, view: Position) -> tuple[float, float, float]:
        """The cell's centre; two pieces sharing a cell stand side by side."""
        x, y, z = cell_xyz(piece.cell)
        sharing = (self._sharing.get(piece.cell) if view is self.view
                   else None) or [p.pid for p in view.pieces if p.cell == piece.cell]
        if len(sharing) > 1 and piece.pid in sharing:
            x += (sharing.index(piece.pid) - (len(sharing) - 1) / 2) * 0.42
        return x, y, z

    def _draw_dressing(self, view: Position) -> None:
        self._dressing.getChildren().detach()
        for shot in view.projectiles:
            model = self.models.projectile(shot.kind)
            model.reparentTo(self._dressing)
            level = {"sam": AIR, "torpedo": SUB}.get(shot.kind, GROUND)
            x, y = square_xy(shot.sq)
            model.setPos(x, y, LEVEL_Z[level] + 0.45)
            dr, dc = shot.dir
            model.setH(-math.degrees(math.atan2(dc, dr)))  # models face +Y; H turns to -X
            model.setColorScale(*self.colours[(shot.side, level)])
        if self.show_markers:
            self._draw_markers(view)
        if self.show_reinforcement_squares:
            self._draw_reinforcement_squares(view)

    def _draw_markers(self, view: Position) -> None:
        """R9.10: one ghost per piece last seen, side by side when several share a cell
        (with the pieces there now), each with ``seen T`` over it when the turn is
        known (``marker_turns``)."""
        by_cell: dict[int, int] = {}
        for marker in view.last_seen:
            by_cell[marker.cell] = by_cell.get(marker.cell, 0) + 1
        placed: dict[int, int] = {}
        for marker in view.last_seen:
            # A marker keeps the kind, not the hand: a handed kind shows its right-handed
            # model (R2.3).
            hand = Hand.RIGHT if TRAITS[marker.kind].handed else None
            ghost = self.models.piece_lod(marker.kind, hand)
            holder = self._dressing.attachNewNode("marker")
            ghost.reparentTo(holder)
            ghost.setH(piece_heading(marker.viewer.other))
            x, y, z = cell_xyz(marker.cell)
            here = len(self._sharing.get(marker.cell, ())) + by_cell[marker.cell]
            slot = len(self._sharing.get(marker.cell, ())) + placed.get(marker.cell, 0)
            placed[marker.cell] = placed.get(marker.cell, 0) + 1
            if here > 1:
                x += (slot - (here - 1) / 2) * 0.42
            holder.setPos(x, y, z)
            enemy = board.cell_level(marker.cell)
            colour = self.colours[(marker.viewer.other, enemy)]
            self.shading.ghost(ghost, (*colour[:3], 0.55))
            self._see_through(ghost, enemy)
            when = self.marker_turns.get((marker.kind.value, marker.cell))
            text = f"seen T{when}" if when is not None else "last seen"
            self._floating_text(holder, [(text, "seen")], 0.95)

    def _draw_reinforcement_squares(self, view: Position) -> None:
        """R10.5, R14.5: the squares where reinforcements wait, both sides' (the types
        only in the inspector, and only one's own): a corner frame, green for one's own,
        orange for the enemy's (white and black in a replay showing everything)."""
        lines = LineSegs("reinforcement-squares")
        lines.setThickness(3.0)
        seen: set[tuple[int, bool]] = set()
        for waiting in view.reinforcements:
            own = view.viewer is None or waiting.side is view.viewer
            if (waiting.sq, own) in seen:
                continue
            seen.add((waiting.sq, own))
            if view.viewer is None:
                colour = (0.95, 0.95, 0.9, 1.0) if waiting.side is Side.WHITE \
                    else (0.15, 0.15, 0.18, 1.0)
            else:
                colour = OWN_REINFORCEMENT if own else ENEMY_REINFORCEMENT
            lines.setColor(*colour)
            x, y = square_xy(waiting.sq)
            inset = 0.40 if own else 0.33
            arm = 0.16
            for sx in (-1, 1):
                for sy in (-1, 1):
                    cx, cy = x + sx * inset, y + sy * inset
                    lines.moveTo(cx - sx * arm, cy, 0.008)
                    lines.drawTo(cx, cy, 0.008)
                    lines.drawTo(cx, cy - sy * arm, 0.008)
        if not seen:
            return
        frame = self._dressing.attachNewNode(lines.create())
        plain(frame, 2)

    def _article_spots(self, view: Position) -> list[tuple[int, ArticleKind, float, float]]:
        """Where each Ground article's badge lies: (square, kind, x, y)."""
        spots = []
        for sq, articles in enumerate(view.ground_articles):
            x, y = square_xy(sq)
            shown = articles[:2]
            for index, article in enumerate(shown):
                spread = (index - (len(shown) - 1) / 2) * 0.44
                spots.append((sq, article, x + spread * -self._near, y + self._near * 0.27))
        return spots

    def article_at(self, x: float, y: float) -> tuple[int, ArticleKind] | None:
        """The article whose badge lies under board point (x, y), if any."""
        if self.view is None:
            return None
        reach = ARTICLE_SIZE / 2 + 0.02
        for sq, article, ax, ay in self._article_spots(self.view):
            if (x - ax) ** 2 + (y - ay) ** 2 <= reach ** 2:
                return sq, article
        return None

    def _draw_articles(self, view: Position) -> None:
        """Unowned articles on the Ground (R1.7): up to two badges side by side on the
        half of the square toward the camera, inside the square."""
        self.invalidate()
        self._articles.getChildren().detach()
        made = self._articles.attachNewNode("badges")
        for _sq, article, x, y in self._article_spots(view):
            token = badge(article)
            token.reparentTo(made)
            token.setScale(ARTICLE_SIZE)
            token.setPos(x, y, 0.006)
            if self._near > 0:
                token.setH(180)
        made.flattenStrong()

    def _draw_ties(self, view: Position) -> None:
        """Tie every piece off the Ground to its square (issue 18). A flyer has a stem
        down to its square and a shadow on it. A piece at the Sub level lies under
        water: its square shows as water with a ring of its colour, and the piece is
        drawn through the water where refraction would show it, right under its
        square (``_refract``), clearly and never hidden by the Ground; the true
        placement (the real piece node) is drawn instead while the Ground or the Sub
        level is faded, where nothing hides it."""
        self._ties.getChildren().detach()
        self._xray.getChildren().detach()
        self._refracted = []
        through_water = self.layer_shown[SUB] and self.layer_shown[GROUND]
        stems = LineSegs("stems")
        stems.setThickness(2.0)
        rings = LineSegs("sub-rings")
        rings.setThickness(2.5)
        water: set[int] = set()
        shadows = []
        for piece in view.pieces:
            node = self._pieces.get(piece.pid)
            if piece.level is GROUND:
                if node is not None:
                    node.show()
                continue
            x, y, z = self._piece_pos(piece, view)
            colour = self.colours[(piece.side, piece.level)]
            if piece.level is AIR:
                if node is not None:
                    node.show()
                stems.setColor(colour[0], colour[1], colour[2], 1.0)
                stems.moveTo(x, y, z)
                stems.drawTo(x, y, 0.02)
                shadows.append((x, y))
                continue
            water.add(piece.sq)
            colour = _lighter(colour, 0.35 if piece.side is Side.BLACK else 0.0)
            rings.setColor(colour[0], colour[1], colour[2], 1.0)
            for step in range(25):
                angle = 2 * math.pi * step / 24
                point = (x + 0.36 * math.cos(angle), y + 0.36 * math.sin(angle), 0.01)
                if step == 0:
                    rings.moveTo(*point)
                else:
                    rings.drawTo(*point)
            if node is None:
                continue
            if through_water:
                node.hide()
                holder = self._xray.attachNewNode(f"under-{piece.pid}")
                copy = self.models.piece_lod(piece.kind, piece.hand)
                copy.setH(piece_heading(piece.side))
                copy.setColorScale(*colour)
                copy.reparentTo(holder)
                self._label_piece(holder, piece, view, 0.2)
                if any(p.sq == piece.sq and p.level is GROUND for p in view.pieces):
                    # lying across the view, on the camera's side of what stands on the
                    # Ground there, so that it shows on both sides of it
                    copy.setH(90.0)
                    copy.setScale(0.9)
                    y += self._near * 0.33
                self._refracted.append((holder, x, y))
            else:
                node.show()
        if shadows:
            maker = CardMaker("shadow")
            maker.setFrame(-0.3, 0.3, -0.3, 0.3)
            for x, y in shadows:
                shadow = self._ties.attachNewNode(maker.generate())
                shadow.setP(-90)
                shadow.setPos(x, y, 0.004)
                shadow.setColor(0.0, 0.0, 0.0, 0.45)
            self._ties.setTransparency(TransparencyAttrib.MAlpha)
            self._ties.setDepthWrite(False)
            self._see_through(self._ties, GROUND)
        plain(self._ties.attachNewNode(stems.create()), 2)
        if water:
            plain(self._ties.attachNewNode(rings.create()), 2)
        self._set_water(frozenset(water) if self.layer_shown[SUB] else frozenset())
        self._refract(self._eye)

    def _refract(self, eye: tuple[float, float, float] | None) -> None:
        """Place each Sub-level piece seen through the water on the line from the
        camera through its square's centre (its middle there), so that it shows right
        under its square, as water would bend it into view (display only: its cell is
        unchanged for picking and for the rules)."""
        middle = 0.35
        for copy, x, y in self._refracted:
            depth = LEVEL_Z[SUB] + middle
            if eye is None or eye[2] < 0.5:
                copy.setPos(x, y, LEVEL_Z[SUB])
                continue
            ex, ey, ez = eye
            t = (ez - depth) / ez
            copy.setPos(ex + (x - ex) * t, ey + (y - ey) * t, LEVEL_Z[SUB])

    def _set_water(self, squares: frozenset[int]) -> None:
        """Show the Ground squares over pieces at the Sub level as water: a blue-green,
        more see-through square (the others keep their colour)."""
        if squares == self._watered:
            return
        self._watered = squares
        node = self._ground_tiles.node()
        assert isinstance(node, GeomNode)
        data = node.modifyGeom(0).modifyVertexData()
        colours = GeomVertexWriter(data, "color")
        for sq in range(board.SQUARES):
            if sq in squares:
                red, green, blue = WATER
                alpha = 0.5
            else:
                red, green, blue, alpha = self._square_colours[sq]
            colours.setRow(4 * sq)
            for _ in range(4):
                colours.setData4(red, green, blue, alpha)

    # ------------------------------------------------------------------ overlays

    def show_last_move(self, cells: Iterable[int]) -> None:
        """Mark the cells of the last move seen (from and to), quietly: no pulse."""
        self._flat_marks("last-move", cells, LAST_MOVE_COLOUR, 0.49)

    def show_aim(self, path: Iterable[int], hits: Iterable[int]) -> None:
        """A shot being aimed: its ray or area (``path``) and the cells of pieces it
        would hit as far as this side knows (``hits``)."""
        self._flat_marks("aim-path", path, AIM_PATH_COLOUR, 0.44)
        self._flat_marks("aim-hits", hits, AIM_HIT_COLOUR, 0.3, ring=True)

    def _flat_marks(self, name: str, cells: Iterable[int],
                    colour: tuple[float, float, float, float], half: float,
                    ring: bool = False) -> None:
        self.invalidate()
        old = self._overlay.find(name)
        if not old.isEmpty():
            old.removeNode()
        cells = list(cells)
        if not cells:
            return
        holder = self._overlay.attachNewNode(name)
        if ring:
            lines = LineSegs(name)
            lines.setThickness(4.0)
            lines.setColor(*colour)
            for cell in cells:
                x, y, z = cell_xyz(cell)
                for step in range(25):
                    angle = 2 * math.pi * step / 24
                    point = (x + half * math.cos(angle), y + half * math.sin(angle), z + 0.03)
                    if step == 0:
                        lines.moveTo(*point)
                    else:
                        lines.drawTo(*point)
            holder.attachNewNode(lines.create())
            holder.setDepthTest(False)
            holder.setBin("fixed", 20)
            return
        by_level: dict[float, list[tuple[float, float, float, float]]] = {}
        for cell in cells:
            x, y, z = cell_xyz(cell)
            by_level.setdefault(z, []).append((x - half, y - half, x + half, y + half))
        for z, level_rects in by_level.items():  # one draw per level
            part = flat_quads(name, level_rects, [colour] * len(level_rects))
            part.reparentTo(holder)
            part.setZ(z + 0.009)
            part.setTransparency(TransparencyAttrib.MAlpha)
            part.setDepthWrite(False)
            level = {LEVEL_Z[AIR]: AIR, LEVEL_Z[SUB]: SUB}.get(z, GROUND)
            self._see_through(part, level)

    # ------------------------------------------------------------------ highlights

    def light(self, cells: dict[int, Highlight]) -> None:
        """Light the given cells (Move destinations in their level's colour, issue 18);
        everything else goes dark. A lit cell off the Ground also marks its square's
        Ground with a thin frame of its colour, so the square it belongs to is plain."""
        self.invalidate()
        self._lit.getChildren().detach()
        maker = CardMaker("lit")
        maker.setFrame(-0.47, 0.47, -0.47, 0.47)
        frames = LineSegs("lit-footprints")
        frames.setThickness(2.0)
        footprints = False
        for cell, meaning in sorted(cells.items()):
            quad = self._lit.attachNewNode(maker.generate())
            quad.setP(-90)
            x, y, z = cell_xyz(cell)
            quad.setPos(x, y, z + 0.012)
            quad.setTwoSided(True)
            quad.setDepthWrite(False)
            quad.setPythonTag("cell", cell)
            level = board.cell_level(cell)
            colour = highlight_colour(meaning, level)
            quad.setPythonTag("colour", colour)
            self.shading.highlight(quad, colour)
            self._see_through(quad, level)
            if level is not GROUND:
                footprints = True
                frames.setColor(*colour[:3], 1.0)
                half = 0.42
                frames.moveTo(x - half, y - half, 0.015)
                for fx, fy in ((x + half, y - half), (x + half, y + half),
                               (x - half, y + half), (x - half, y - half)):
                    frames.drawTo(fx, fy, 0.015)
        if footprints:
            node = self._lit.attachNewNode(frames.create())
            node.setName("footprints")
            plain(node, 2)

    def lit_cells(self) -> list[int]:
        return [child.getPythonTag("cell") for child in self._lit.getChildren()
                if child.hasPythonTag("cell")]

    def hover(self, sq: int | None, level: Level | None) -> None:
        """Mark the square under the mouse (at ``level``, else the Ground); called every
        frame, it changes the board only when the square does."""
        where = None if sq is None else (sq, level if level is not None else GROUND)
        if where == self._hovered:
            return
        self._hovered = where
        self.invalidate()
        if where is None:
            self._hover.hide()
            return
        sq, level = where
        x, y = square_xy(sq)
        if level is not self._hover_level:
            self._hover_level = level
            self._see_through(self._hover, level)
        self._hover.setPos(x, y, LEVEL_Z[level] + 0.008)
        self._hover.show()

    # ------------------------------------------------------------------ levels

    def set_level_shown(self, level: Level, shown: bool) -> None:
        """Show or fade one level (its plane and its pieces)."""
        self.invalidate()
        self._drop_batch()
        self.layer_shown[level] = shown
        node = self.levels[level]
        node.setAlphaScale(1.0 if shown else 0.12)
        if shown:  # its pieces opaque again, drawn with the opaque ones
            node.clearTransparency()
            node.clearBin()
        else:  # its pieces see-through too: drawn in the level's turn
            node.setTransparency(TransparencyAttrib.MAlpha)
            self._see_through(node, level)
        self._order_planes()
        if self.view is not None:
            self._draw_ties(self.view)

    def shown_levels(self) -> tuple[Level, ...]:
        return tuple(level for level in Level if self.layer_shown[level])

    def piece_node(self, pid: int) -> NodePath | None:
        return self._pieces.get(pid)

    def destroy(self) -> None:
        if self.animation is not None:
            self.animation.finish()
        self.retained.destroy()
        self.root.removeNode()


# How far things reach (world units from the board's centre line, or up from a level)
# for the shape that holds what the board draws: the rim and numbers 5.8 across, the
# level planes 5, pieces (two on a square stand side by side) and their floating status
# labels 5.2; a piece 0.9 above its level, a status label 1.0 above the piece with a
# few lines of text.
RIM_REACH = 5.9
PLANE_REACH = 5.0
PIECES_REACH = 5.3  # also holds the level planes (5)
PIECE_REACH = 0.95
STATUS_REACH = 1.8
# Panda3D shows a node to a camera when any bit of the camera's mask shows it: the
# picture's camera has a bit of its own, which the window's camera gives up, and while
# the picture stands in the board is hidden for every other bit.
PICTURE_CAMERA = BitMask32.bit(27)
HIDDEN_FROM_WINDOW = PandaNode.getAllCameraMask() & ~PICTURE_CAMERA
PICTURE_SORT = -30  # the picture's buffer renders before the window
PICTURE_BIN = ("background", -100)  # in render2d: before the HUD


class RetainedFrames:
    """Draws a still board from a picture of it (retained rendering).

    Most frames show the same board from the same place: nobody moves the camera or a
    piece while a player thinks. A software renderer would still shade every square,
    plane and piece again (tens of milliseconds a frame on llvmpipe). So once the board
    and the camera have stayed the same for a frame, a picture of the board is taken
    once and following frames show it while the window's camera skips the board. The
    picture is the very frame the window would have drawn, so the player sees the same
    pixels. It is taken and shown in one of two ways:

    - copied (``WindowCopy``, where the window is not multisampled and OpenGL's
      framebuffer blit is at hand): the first still frame draws the board in the window
      as usual and, before the HUD, copies the window into a texture; later frames copy
      that texture back over the whole window before the HUD, instead of the window's
      colour and depth clears (both turned off only while the copy stands in, since it
      covers every pixel and nothing else is drawn in 3D). On a software renderer a copy
      between buffers of one format is a memory copy, a tenth of what drawing the same
      pixels costs; the copy is exact, pixel for pixel;
    - as a card: the board is rendered once into an offscreen buffer of the window's
      size (same camera, lens, buffer format and clear colour) and shown, cropped to
      where the board can be on screen, as one textured card behind the HUD.

    Any change draws the board directly again until things are still: the camera (its
    transform or lens), the window's size or clear colour, the lighting toggle, every
    BoardScene change (``invalidate``), a playing animation or a pulsing highlight
    (``is_still`` False), or something else drawn in 3D under ``render`` (which the
    picture could not place in depth). Without a window (a private stage, as ``wec
    shot`` uses) nothing here runs: the board is drawn directly.
    """

    def __init__(self, base: Any, root: NodePath, content: NodePath, is_still: Any,
                 shading: Shading, shape: Any, camera_moved: Any) -> None:
        self.base = base
        self.shape = shape
        self.camera_moved = camera_moved
        self.root = root
        self.content = content
        self.is_still = is_still
        self.shading = shading
        self.showing_picture = False
        self.pictures_drawn = 0  # frames that took the board's picture
        self.frames_drawn_directly = 0  # frames that drew the shown board in the window
        self._picture_valid = False
        self._changed = True
        self._last_look: tuple[Any, ...] | None = None
        self._picture_look: tuple[Any, ...] | None = None
        self._buffer: Any = None
        self._no_buffer = False
        self._texture: Texture | None = None
        self._camera: NodePath | None = None
        self._card: NodePath | None = None  # what shows the picture behind the HUD
        self._copy: WindowCopy | None = None
        self._copy_refused = False  # copying is not possible here: the card is used
        self._copy_taking = False  # this frame copies the window into the picture
        self._saved_clears: tuple[bool, bool] | None = None  # the window's, while off
        self._task_name = f"wec-board-picture-{id(self)}"
        if getattr(base, "win", None) is not None and getattr(base, "taskMgr", None):
            camera = base.camNode
            camera.setCameraMask(camera.getCameraMask() & ~PICTURE_CAMERA)
            # After the screens' own frame tasks (default sort 0) have moved the camera,
            # before the frame is drawn (igLoop, sort 50).
            base.taskMgr.add(self._frame, self._task_name, sort=45)

    @property
    def copying(self) -> bool:
        """Whether the picture is taken and shown by copying the window (else a card)."""
        return self._copy is not None

    def invalidate(self) -> None:
        self._changed = True

    def _look(self) -> tuple[Any, ...]:
        """What besides the board itself decides the picture."""
        base = self.base
        camera = base.cam.getMat(self.root)
        lens = base.camLens.getProjectionMat()
        return (tuple(camera.getRow(i) for i in range(4)),
                tuple(lens.getRow(i) for i in range(4)),
                base.win.getXSize(), base.win.getYSize(), tuple(base.win.getClearColor()),
                self.shading.lighting)

    def _frame(self, task: Task) -> int:
        if self.root.isEmpty():
            self._draw_directly()
            return task.DS_done  # the same 0 as task.done, which is also AsyncFuture.done()
        if self._copy is not None and self._copy.broken:
            self._give_up_copying()
        look = self._look()
        changed, moved = self._changed, look != self._last_look
        self._last_look, self._changed = look, False
        if moved:
            eye = self.base.cam.getPos(self.root)
            self.camera_moved((eye.x, eye.y, eye.z))
        if changed:  # the board itself changed: the picture no longer shows it
            self._picture_valid = False
        if self.root.isHidden():  # e.g. the hand-over curtain: nothing to show
            self._draw_directly()
            return task.cont
        if changed or moved or not self.is_still() or not self._alone_in_render():
            self._picture_valid = self._picture_valid and self.is_still()
            self._draw_directly()
            self.frames_drawn_directly += 1
            return task.cont
        # Still for a frame: show the picture, taking it first unless the one there is
        # of this very board seen from here (the camera may come back to a place).
        self._show_picture(render_now=not (self._picture_valid
                                           and look == self._picture_look))
        self._picture_look = look
        return task.cont

    def _alone_in_render(self) -> bool:
        """Whether the board is the only thing drawn in 3D (besides the camera)."""
        base = self.base
        if self.root.getParent() != base.render:
            return False
        for child in base.render.getChildren():
            if child != self.root and child != base.camera and not child.isHidden():
                return False
        return True

    def _draw_directly(self) -> None:
        """The board drawn in the window as usual, with the window's own clears."""
        self._clears_back()
        if not self.showing_picture:
            return
        self.showing_picture = False
        self._copy_taking = False
        self.content.show(HIDDEN_FROM_WINDOW)
        if self._card is not None:
            self._card.stash()

    def _show_picture(self, render_now: bool) -> None:
        if render_now:
            if not self._take_picture():
                self._draw_directly()
                self.frames_drawn_directly += 1
                return
            self._picture_valid = True
            self.pictures_drawn += 1
        self.showing_picture = True
        assert self._card is not None
        if self._copy is not None and render_now:
            # The board is drawn in the window this frame and copied before the HUD.
            self._copy_taking = True
            self.content.show(HIDDEN_FROM_WINDOW)
            self._clears_back()
        else:
            self._copy_taking = False
            self.content.hide(HIDDEN_FROM_WINDOW)
            if self._copy is not None:  # the copy covers every pixel the clears would
                self._clears_off()
        self._card.unstash()

    def _take_picture(self) -> bool:
        """Arrange for the picture to be taken during this frame; False when that is not
        possible."""
        if self._copy is None and not self._copy_refused:
            self._start_copying()
        if self._copy is not None:
            return True  # the window's own frame, copied by _copy_window
        return self._render_picture()

    def _start_copying(self) -> None:
        self._copy = WindowCopy.for_window(self.base)
        if self._copy is None:
            self._copy_refused = True
            return
        if self._card is not None:
            self._card.removeNode()
        callback = CallbackNode("wec-board-picture-copy")
        callback.setDrawCallback(PythonCallbackObject(self._copy_window))
        callback.setBounds(OmniBoundingVolume())
        callback.setFinal(True)
        self._card = self.base.render2d.attachNewNode(callback)
        self._card.setBin(*PICTURE_BIN)
        self._card.stash()

    def _copy_window(self, data: Any) -> None:
        """Draw callback of the copying card, in the window's GL context, after the 3D
        scene and before the HUD: take the picture, or put it back over the window."""
        copy, window = self._copy, self.base.win
        if copy is None:
            return
        size = (window.getXSize(), window.getYSize())
        if self._copy_taking:
            copy.take(size)
        else:
            copy.show(size)

    def _give_up_copying(self) -> None:
        """The driver refused a copy: show pictures as a card from now on."""
        self._draw_directly()
        self._copy, self._copy_refused, self._picture_valid = None, True, False
        if self._card is not None:
            self._card.removeNode()
            self._card = None

    def _clears_off(self) -> None:
        if self._saved_clears is None:
            window = self.base.win
            self._saved_clears = (window.getClearColorActive(), window.getClearDepthActive())
            window.setClearColorActive(False)
            window.setClearDepthActive(False)

    def _clears_back(self) -> None:
        if self._saved_clears is not None:
            colour, depth = self._saved_clears
            self._saved_clears = None
            self.base.win.setClearColorActive(colour)
            self.base.win.setClearDepthActive(depth)

    def _render_picture(self) -> bool:
        """Render the board into the picture during this frame (before the window) and
        crop the card to where it can be on screen; False when that is not possible."""
        base = self.base
        size = (base.win.getXSize(), base.win.getYSize())
        current = None if self._buffer is None else (self._buffer.getXSize(),
                                                      self._buffer.getYSize())
        if current != size and (self._no_buffer or not self._make_buffer(size)):
            self._no_buffer = True  # the driver cannot: draw directly from now on
            return False
        assert self._buffer is not None and self._camera is not None
        self._buffer.setClearColor(base.win.getClearColor())
        self._camera.setMat(self.root, base.cam.getMat(self.root))
        self._buffer.setOneShot(True)
        self._buffer.setActive(True)
        self._crop_card()
        return True

    def _make_buffer(self, size: tuple[int, int]) -> bool:
        base = self.base
        self._drop_buffer()
        properties = FrameBufferProperties(base.win.getFbProperties())
        properties.setRgbColor(True)
        properties.setDepthBits(max(24, properties.getDepthBits()))
        buffer = base.graphicsEngine.makeOutput(
            base.pipe, "wec-board-picture", PICTURE_SORT, properties,
            WindowProperties(size=size), GraphicsPipe.BF_refuse_window,
            base.win.getGsg(), base.win)
        if buffer is None:
            return False
        texture = Texture("wec-board-picture")
        texture.setAutoTextureScale(ATSNone)  # the window's size, not padded: one texel a pixel
        texture.setMinfilter(SamplerState.FT_nearest)
        texture.setMagfilter(SamplerState.FT_nearest)
        buffer.addRenderTexture(texture, GraphicsOutput.RTM_bind_or_copy)
        buffer.setClearColorActive(True)
        buffer.setClearDepthActive(True)
        buffer.setActive(False)
        if self._camera is None:
            camera = Camera("wec-board-picture-camera", base.camLens)
            camera.setCameraMask(PICTURE_CAMERA)
            self._camera = self.root.attachNewNode(camera)
        region = buffer.makeDisplayRegion()
        region.setCamera(self._camera)
        self._buffer, self._texture = buffer, texture
        if self._card is None:
            self._card = base.render2d.attachNewNode("wec-board-picture-card")
            self._card.setBin(*PICTURE_BIN)
            self._card.setDepthTest(False)
            self._card.setDepthWrite(False)
            self._card.stash()
        self._card.setTexture(texture, 1)
        return True

    def _crop_card(self) -> None:
        """The card covers the screen outline of the shape holding everything the board
        draws (the whole window if it reaches behind the camera): outside it the picture
        is the clear colour, which the window shows anyway."""
        base = self.base
        lens = base.camLens
        points: list[tuple[float, float]] = []
        for corner in ((x * reach, y * reach, z) for reach, z in self.shape()
                       for x in (-1.0, 1.0) for y in (-1.0, 1.0)):
            in_camera = base.cam.getRelativePoint(self.root, Point3(*corner))
            if in_camera.y <= lens.getNear():  # behind the camera: take the whole window
                points = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]
                break
            film = Point3()
            lens.project(in_camera, film)  # False off screen, but the point is computed
            points.append((film.x, film.y))
        assert self._card is not None
        self._card.node().removeAllChildren()
        outline = clip_to_window(convex_hull(points))
        if len(outline) >= 3:
            self._card.attachNewNode(screen_polygon(outline))

    def _drop_buffer(self) -> None:
        if self._buffer is not None:
            self.base.graphicsEngine.removeWindow(self._buffer)
            self._buffer = None

    def destroy(self) -> None:
        base = self.base
        if getattr(base, "taskMgr", None):
            base.taskMgr.remove(self._task_name)
        self._draw_directly()
        self._drop_buffer()
        if self._card is not None:
            self._card.removeNode()
            self._card = None


# OpenGL names used by WindowCopy (from the OpenGL 4.5 core specification).
GL_TEXTURE_2D = 0x0DE1
GL_TEXTURE_BINDING_2D = 0x8069
GL_PIXEL_UNPACK_BUFFER = 0x88EC
GL_PIXEL_UNPACK_BUFFER_BINDING = 0x88EF
GL_READ_FRAMEBUFFER = 0x8CA8
GL_DRAW_FRAMEBUFFER = 0x8CA9
GL_READ_FRAMEBUFFER_BINDING = 0x8CAA
GL_DRAW_FRAMEBUFFER_BINDING = 0x8CA6
GL_READ_BUFFER = 0x0C02
GL_DRAW_BUFFER = 0x0C01
GL_COLOR_ATTACHMENT0 = 0x8CE0
GL_FRAMEBUFFER_COMPLETE = 0x8CD5
GL_SCISSOR_TEST = 0x0C11
GL_FRAMEBUFFER_SRGB = 0x8DB9
GL_COLOR_BUFFER_BIT = 0x4000
GL_NEAREST = 0x2600
GL_RGBA = 0x1908
GL_BGRA = 0x80E1
GL_UNSIGNED_BYTE = 0x1401
GL_TEXTURE_MIN_FILTER = 0x2801
GL_TEXTURE_MAG_FILTER = 0x2800
GL_NO_ERROR = 0
GL_LIBRARY = "libGL.so.1"  # GLVND's or Mesa's: calls go to the current context


class WindowCopy:
    """Copies the window's colour buffer into a texture of the window's size and back,
    with OpenGL's framebuffer blit, from draw callbacks (the window's GL context is
    current there; Panda3D has no call for it).

    Why: on a software renderer (Mesa's llvmpipe) any drawn pixel goes through the
    general fragment path, about 5 ns for a flat colour and 11 ns for a texture fetch on
    one core, while a blit between buffers of one format with nothing to convert, scale
    or flip is a memory copy (0.6 ms for 1280x720 against 8 to 11 ms for a window-sized
    card). The window's rows are stored top down and a texture's bottom up, so the
    picture is kept upside down in OpenGL's terms: both copies flip, which to the
    driver is no flip at all. The texture is an unsized RGBA one given BGRA pixels,
    for which Mesa takes the window's own format (8-bit BGRA). Any other driver makes
    the same exact copies, only maybe slower: no filtering and no scaling, with the
    scissor test and sRGB conversion off during the copy (restored afterwards, as is
    every binding touched, so Panda3D's record of the GL state stays true).
    """

    def __init__(self, gl: Any) -> None:
        self.gl = gl
        self.size: tuple[int, int] | None = None
        self.texture = 0
        self.framebuffer = 0
        self.broken = False  # the driver refused: the caller should stop using it

    @classmethod
    def for_window(cls, base: Any) -> WindowCopy | None:
        """The window's copier (one per window, kept with the ShowBase, so that its
        texture is made once); None where copying is not possible: not OpenGL 3 on a
        system with a shared GL library, or a multisampled or stereo window (a blit
        cannot write a multisampled buffer)."""
        window = base.win
        kept = getattr(base, "_wec_window_copy", None)
        if kept is not None and kept[0] == window:
            return None if kept[1].broken else kept[1]
        gsg = window.getGsg()
        properties = window.getFbProperties()
        if (not sys.platform.startswith("linux") or gsg is None
                or window.getPipe().getInterfaceName() != "OpenGL"
                or gsg.getDriverVersionMajor() < 3
                or properties.getMultisamples() > 0 or properties.getStereo()):
            return None
        gl = _load_gl()
        if gl is None:
            return None
        copy = cls(gl)
        base._wec_window_copy = (window, copy)
        return copy

    def take(self, size: tuple[int, int]) -> None:
        """Copy the window's current colour (the frame drawn so far) into the picture."""
        if self.broken or not self._ready(size):
            self.broken = True
            return
        gl, (width, height) = self.gl, size
        with _BlitState(gl) as window:
            gl.glBindFramebuffer(GL_READ_FRAMEBUFFER, window)
            read_buffer = _integer(gl, GL_READ_BUFFER)
            gl.glReadBuffer(_integer(gl, GL_DRAW_BUFFER))  # the buffer being drawn
            gl.glBindFramebuffer(GL_DRAW_FRAMEBUFFER, self.framebuffer)
            gl.glBlitFramebuffer(0, 0, width, height, 0, height, width, 0,
                                 GL_COLOR_BUFFER_BIT, GL_NEAREST)
            gl.glBindFramebuffer(GL_READ_FRAMEBUFFER, window)
            gl.glReadBuffer(read_buffer)
        if gl.glGetError() != GL_NO_ERROR:
            self.broken = True

    def show(self, size: tuple[int, int]) -> None:
        """Copy the picture over the whole window."""
        if self.broken or self.size != size:
            self.broken = True
            return
        gl, (width, height) = self.gl, size
        with _BlitState(gl):
            gl.glBindFramebuffer(GL_READ_FRAMEBUFFER, self.framebuffer)
            gl.glBlitFramebuffer(0, height, width, 0, 0, 0, width, height,
                                 GL_COLOR_BUFFER_BIT, GL_NEAREST)

    def _ready(self, size: tuple[int, int]) -> bool:
        """The texture (of ``size``) and the framebuffer that reads and writes it."""
        if self.size == size:
            return True
        gl = self.gl
        if not self.texture:
            names = (ctypes.c_uint * 2)()
            gl.glGenTextures(1, names)
            gl.glGenFramebuffers(1, ctypes.byref(names, ctypes.sizeof(ctypes.c_uint)))
            self.texture, self.framebuffer = names[0], names[1]
        bound_texture = _integer(gl, GL_TEXTURE_BINDING_2D)
        unpack = _integer(gl, GL_PIXEL_UNPACK_BUFFER_BINDING)
        gl.glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0)
        gl.glBindTexture(GL_TEXTURE_2D, self.texture)
        gl.glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST)
        gl.glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST)
        gl.glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, size[0], size[1], 0, GL_BGRA,
                        GL_UNSIGNED_BYTE, None)
        gl.glBindTexture(GL_TEXTURE_2D, bound_texture)
        gl.glBindBuffer(GL_PIXEL_UNPACK_BUFFER, unpack)
        bound_framebuffer = _integer(gl, GL_READ_FRAMEBUFFER_BINDING)
        gl.glBindFramebuffer(GL_READ_FRAMEBUFFER, self.framebuffer)
        gl.glFramebufferTexture2D(GL_READ_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D,
                                  self.texture, 0)
        complete = bool(gl.glCheckFramebufferStatus(GL_READ_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE)
        gl.glBindFramebuffer(GL_READ_FRAMEBUFFER, bound_framebuffer)
        self.size = size if complete else None
        return complete


class _BlitState:
    """Around a blit: the framebuffer bindings, scissor test and sRGB conversion saved,
    the last two turned off (a scissored or converting blit is no longer a plain
    copy), all restored afterwards. Entering gives the framebuffer being drawn (the
    window's)."""

    def __init__(self, gl: Any) -> None:
        self.gl = gl

    def __enter__(self) -> int:
        gl = self.gl
        self.read = _integer(gl, GL_READ_FRAMEBUFFER_BINDING)
        self.draw = _integer(gl, GL_DRAW_FRAMEBUFFER_BINDING)
        self.enabled = [cap for cap in (GL_SCISSOR_TEST, GL_FRAMEBUFFER_SRGB)
                        if gl.glIsEnabled(cap)]
        for cap in self.enabled:
            gl.glDisable(cap)
        return self.draw

    def __exit__(self, *exc: object) -> None:
        gl = self.gl
        gl.glBindFramebuffer(GL_READ_FRAMEBUFFER, self.read)
        gl.glBindFramebuffer(GL_DRAW_FRAMEBUFFER, self.draw)
        for cap in self.enabled:
            gl.glEnable(cap)


def _integer(gl: Any, name: int) -> int:
    value = ctypes.c_int(0)
    gl.glGetIntegerv(name, ctypes.byref(value))
    return value.value


def _load_gl() -> Any:
    """The system's OpenGL library with the calls WindowCopy makes; None without it."""
    try:
        gl = ctypes.CDLL(GL_LIBRARY)
        for name in ("glBlitFramebuffer", "glGenFramebuffers", "glBindFramebuffer",
                     "glFramebufferTexture2D", "glCheckFramebufferStatus", "glGenTextures",
                     "glBindTexture", "glTexImage2D", "glTexParameteri", "glBindBuffer",
                     "glGetIntegerv", "glIsEnabled", "glEnable", "glDisable",
                     "glReadBuffer", "glGetError"):
            getattr(gl, name).restype = ctypes.c_uint
    except (OSError, AttributeError):
        return None
    gl.glIsEnabled.restype = ctypes.c_ubyte
    gl.glTexImage2D.argtypes = [ctypes.c_uint, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                                ctypes.c_int, ctypes.c_int, ctypes.c_uint, ctypes.c_uint,
                                ctypes.c_void_p]
    return gl


def convex_hull(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """The convex hull of 2D points, counter-clockwise (Andrew's monotone chain)."""
    ordered = sorted(set(points))
    if len(ordered) < 3:
        return ordered

    def turn(o: tuple[float, float], a: tuple[float, float], b: tuple[float, float]) -> float:
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    hull: list[tuple[float, float]] = []
    for sweep in (ordered, list(reversed(ordered))):
        start = len(hull)
        for point in sweep:
            while len(hull) >= start + 2 and turn(hull[-2], hull[-1], point) <= 0:
                hull.pop()
            hull.append(point)
        hull.pop()
    return hull


def clip_to_window(polygon: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """The part of a convex polygon inside the window (-1..1 both ways), by clipping it
    at each edge in turn (Sutherland-Hodgman)."""
    for axis, limit in ((0, -1.0), (0, 1.0), (1, -1.0), (1, 1.0)):
        def inside(point: tuple[float, float], axis: int = axis, limit: float = limit) -> bool:
            return point[axis] >= limit if limit < 0 else point[axis] <= limit

        clipped: list[tuple[float, float]] = []
        for index, current in enumerate(polygon):
            previous = polygon[index - 1]
            if inside(current) != inside(previous):
                t = (limit - previous[axis]) / (current[axis] - previous[axis])
                clipped.append((previous[0] + t * (current[0] - previous[0]),
                                previous[1] + t * (current[1] - previous[1])))
            if inside(current):
                clipped.append(current)
        polygon = clipped
        if not polygon:
            break
    return polygon


def screen_polygon(outline: list[tuple[float, float]]) -> GeomNode:
    """A convex polygon in render2d coordinates (-1..1 across the window) whose texture
    coordinates are its screen position (0..1): a window-sized picture shows one texel
    on each pixel."""
    data = GeomVertexData("picture", GeomVertexFormat.getV3t2(), Geom.UHStatic)
    vertices = GeomVertexWriter(data, "vertex")
    uvs = GeomVertexWriter(data, "texcoord")
    for x, y in outline:
        vertices.addData3(x, 0.0, y)
        uvs.addData2((x + 1.0) / 2.0, (y + 1.0) / 2.0)
    fan = GeomTriangles(Geom.UHStatic)
    for index in range(1, len(outline) - 1):
        fan.addVertices(0, index, index + 1)
    geom = Geom(data)
    geom.addPrimitive(fan)
    node = GeomNode("picture")
    node.addGeom(geom)
    return node
