"""The board in 3D: levels, squares, pieces, articles, projectiles, markers, highlights.

``BoardScene.show(view)`` draws exactly one side's view (or the full state in a
replay): what the engine computed for that side, nothing more. Pieces keep their node
between calls (keyed by piece id) so moves can be animated.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from direct.interval.IntervalGlobal import LerpPosInterval, Parallel, Sequence
from panda3d.core import (
    CardMaker,
    NodePath,
    TextNode,
    TransparencyAttrib,
)

from client.animation import SPEEDS, Choreographer
from client.assets import ModelLibrary
from client.interaction import Highlight
from client.layout import LAYER_TINTS, LEVEL_Z, PALETTES, cell_xyz, piece_heading, square_xy
from client.narration import article_name
from client.shading import Shading
from engine import board
from engine.board import AIR, GROUND, SUB, Level
from engine.events import Event, Moved
from engine.position import Piece, Position

HIGHLIGHT_COLOURS: dict[Highlight, tuple[float, float, float, float]] = {
    Highlight.MOVE: (1.0, 0.92, 0.15, 0.85),       # yellow, as the manual says
    Highlight.CAPTURE: (1.0, 0.45, 0.10, 0.90),
    Highlight.AIM: (1.0, 0.15, 0.12, 0.85),
    Highlight.TARGET: (0.95, 0.20, 0.85, 0.90),
    Highlight.TRANSPORT: (0.20, 0.90, 0.95, 0.85),
    Highlight.SELECTED: (1.0, 1.0, 1.0, 0.65),
}
LIGHT_SQUARE = (0.80, 0.74, 0.62, 1.0)
DARK_SQUARE = (0.38, 0.30, 0.24, 1.0)
MOVE_SECONDS = 0.35
LAYER_OPACITY = 0.12


STUN_TEXT = (1.0, 0.92, 0.15, 1.0)
COOLDOWN_TEXT = (0.55, 0.9, 1.0, 1.0)


def status_lines(piece: Piece, turn: int) -> list[tuple[str, str]]:
    """What floats above a piece: ``stunned 3`` (turns left, R7.1) and one countdown per
    weapon still cooling down (turns until it may fire again, R6.3)."""
    lines: list[tuple[str, str]] = []
    if piece.stunned_until > turn:
        lines.append((f"stunned {piece.stunned_until - turn}", "stun"))
    waits: dict[str, int] = {}
    for index, ability in enumerate(piece.abilities()):
        wait = piece.ready_at(index) - turn
        if wait > 0:
            name = article_name(ability)
            waits[name] = min(wait, waits.get(name, wait))
    lines.extend((f"{name} {wait}", "cooldown") for name, wait in waits.items())
    return lines


class BoardScene:
    """Everything on the board, under one node, drawn from a Position."""

    def __init__(self, base: Any, models: ModelLibrary, shading: Shading,
                 animation_speed: str = "full", palette: str = "manual") -> None:
        self.base = base
        self.colours = PALETTES[palette]
        self.choreographer = Choreographer(base.render, animation_speed)
        self.models = models
        self.shading = shading
        self.root = base.render.attachNewNode("wec-board")
        self.levels: dict[Level, NodePath] = {
            level: self.root.attachNewNode(f"level-{level.label}") for level in Level}
        self.layer_shown: dict[Level, bool] = {level: True for level in Level}
        self._pieces: dict[int, NodePath] = {}
        self._piece_state: dict[int, Piece] = {}
        self._dressing = self.root.attachNewNode("dressing")  # articles, markers, shots
        self._lit = self.root.attachNewNode("highlights")
        self._hover = self._make_hover()
        self._build_board()
        self.shading.lit(self.root)
        self.view: Position | None = None
        self.show_markers = True
        self.show_reinforcement_squares = True
        self.animation: Any = None

    # ------------------------------------------------------------------ building

    def _build_board(self) -> None:
        ground = self.levels[GROUND].attachNewNode("squares")
        maker = CardMaker("square")
        maker.setFrame(-0.5, 0.5, -0.5, 0.5)
        for sq in range(board.SQUARES):
            tile = ground.attachNewNode(maker.generate())
            tile.setP(-90)
            x, y = square_xy(sq)
            tile.setPos(x, y, 0)
            dark = (board.row_of(sq) + board.col_of(sq)) % 2 == 0
            tile.setColor(DARK_SQUARE if dark else LIGHT_SQUARE)
        ground.flattenStrong()
        ground.setTransparency(TransparencyAttrib.MAlpha)
        ground.setAlphaScale(0.88)  # Sub pieces show faintly through the Ground
        self._ground_tiles = ground
        self._build_frame()
        for level in (AIR, SUB):
            self._build_layer(level)
        self._build_labels()

    def _build_frame(self) -> None:
        """A wooden rim around the board: four strips, so nothing opaque lies under the
        squares and the Sub level shows through the Ground (R1.5)."""
        rim = self.levels[GROUND].attachNewNode("frame")
        for name, (left, right, bottom, top) in (
                ("south", (-5.8, 5.8, -5.8, -5.0)), ("north", (-5.8, 5.8, 5.0, 5.8)),
                ("west", (-5.8, -5.0, -5.0, 5.0)), ("east", (5.0, 5.8, -5.0, 5.0))):
            maker = CardMaker(f"frame-{name}")
            maker.setFrame(left, right, bottom, top)
            strip = rim.attachNewNode(maker.generate())
            strip.setP(-90)
            strip.setZ(-0.02)
        rim.setColor(0.12, 0.10, 0.09, 1)
        rim.flattenStrong()

    def _build_layer(self, level: Level) -> None:
        maker = CardMaker(f"layer-{level.label}")
        maker.setFrame(-5.0, 5.0, -5.0, 5.0)
        maker.setUvRange((0, 0), (10, 10))
        plane = self.levels[level].attachNewNode(maker.generate())
        plane.setP(-90)
        plane.setZ(LEVEL_Z[level])
        plane.setTwoSided(True)
        plane.setDepthWrite(False)
        plane.setBin("transparent", 0)
        self.shading.layer(plane, LAYER_TINTS[level], LAYER_OPACITY)
        self._layer_planes = getattr(self, "_layer_planes", {})
        self._layer_planes[level] = plane

    def _build_labels(self) -> None:
        labels = self.levels[GROUND].attachNewNode("labels")
        for n in range(1, board.SIZE + 1):
            for text, x, y in ((str(n), -5.45 - 0.15, n - 5.5),   # rows on the left
                               (str(n), n - 5.5, -5.45 - 0.15)):  # columns at the bottom
                node = TextNode(f"label-{text}")
                node.setText(text)
                node.setAlign(TextNode.ACenter)
                node.setTextColor(0.9, 0.85, 0.7, 1)
                holder = labels.attachNewNode(f"at-{x:.2f}-{y:.2f}")
                holder.setPos(x, y, 0.01)
                label = holder.attachNewNode(node)
                label.setScale(0.28)
                label.setP(-90)
                label.setPos(0, -0.1, 0)
        labels.setLightOff()
        self._labels = labels

    def face_labels(self, heading: float) -> None:
        """Turn the rank and file numbers to read upright from the camera's side."""
        upright = 180.0 if 90.0 < heading % 360 < 270.0 else 0.0
        for holder in self._labels.getChildren():
            holder.setH(upright)

    def _make_hover(self) -> NodePath:
        maker = CardMaker("hover")
        maker.setFrame(-0.48, 0.48, -0.48, 0.48)
        hover = self.root.attachNewNode(maker.generate())
        hover.setP(-90)
        hover.setColor(1, 1, 1, 0.18)
        hover.setTransparency(TransparencyAttrib.MAlpha)
        hover.setDepthWrite(False)
        hover.setLightOff()
        hover.hide()
        return hover

    # ------------------------------------------------------------------ showing

    def show(self, view: Position, events: Iterable[Event] = ()) -> None:
        """Draw ``view``; pieces that ``events`` moved glide to their new cells."""
        self.view = view
        if self.animation is not None:
            self.animation.finish()
            self.animation = None
        events = tuple(events)
        speed = SPEEDS[self.choreographer.speed]
        moved = {e.to: e for e in events if isinstance(e, Moved)} if speed else {}
        glides = []
        present: set[int] = set()
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
        effects = self.choreographer.effects(events, self.models)
        parts = ([Parallel(*glides)] if glides else []) + ([effects] if effects else [])
        if parts:
            self.animation = Sequence(*parts)
            self.animation.start()

    def _make_piece(self, piece: Piece) -> NodePath:
        holder = NodePath(f"piece-{piece.pid}")
        model = self.models.piece(piece.kind, piece.hand)
        model.reparentTo(holder)
        model.setH(piece_heading(piece.side))
        holder.setPythonTag("pid", piece.pid)
        self._dress_piece(holder, piece)
        return holder

    def _dress_piece(self, holder: NodePath, piece: Piece) -> None:
        """Carried articles as small tokens in a ring at the piece's feet."""
        old = holder.find("carried")
        if not old.isEmpty():
            old.removeNode()
        ring = holder.attachNewNode("carried")
        count = len(piece.articles)
        for index, article in enumerate(piece.articles):
            token = self.models.article(article)
            token.reparentTo(ring)
            token.setScale(0.55)
            offset = (index - (count - 1) / 2) * 0.2
            token.setPos(offset, -0.36, 0.0)

    def _colour_piece(self, node: NodePath, piece: Piece) -> None:
        node.setColorScale(*self.colours[(piece.side, piece.level)])
        stunned = self.view is not None and piece.stunned_until > self.view.turn
        node.setAlphaScale(0.55 if stunned else 1.0)
        if stunned:
            node.setTransparency(TransparencyAttrib.MAlpha)

    def _label_piece(self, node: NodePath, piece: Piece, view: Position) -> None:
        """Stun counters in yellow (R7) and, for pieces whose cooldowns the view shows,
        fire-rate countdowns (R6.3), floating above the piece."""
        old = node.find("status")
        if not old.isEmpty():
            old.removeNode()
        lines = status_lines(piece, view.turn)
        if not lines:
            return
        text = TextNode("status")
        text.setText("\n".join(line for line, _ in lines))
        text.setAlign(TextNode.ACenter)
        stunned = any(kind == "stun" for _, kind in lines)
        text.setTextColor(*(STUN_TEXT if stunned else COOLDOWN_TEXT))
        text.setCardColor(0, 0, 0, 0.55)
        text.setCardAsMargin(0.15, 0.15, 0.05, 0.05)
        label = node.attachNewNode(text)
        label.setName("status")
        label.setScale(0.22)
        label.setZ(1.0)
        label.setBillboardPointEye()
        label.setLightOff()
        label.setDepthTest(False)
        label.setBin("fixed", 30)

    def _piece_pos(self, piece: Piece, view: Position) -> tuple[float, float, float]:
        """The cell's centre; two pieces sharing a cell stand side by side."""
        x, y, z = cell_xyz(piece.cell)
        sharing = [p.pid for p in view.pieces if p.cell == piece.cell]
        if len(sharing) > 1:
            x += (sharing.index(piece.pid) - (len(sharing) - 1) / 2) * 0.42
        return x, y, z

    def _draw_dressing(self, view: Position) -> None:
        self._dressing.getChildren().detach()
        for sq, articles in enumerate(view.ground_articles):
            for index, article in enumerate(articles[:2]):
                token = self.models.article(article)
                token.reparentTo(self._dressing)
                x, y = square_xy(sq)
                token.setPos(x + (0.3 if index else -0.3), y + 0.3, 0.0)
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
            for marker in view.last_seen:
                ghost = self.models.piece(marker.kind, None)
                ghost.reparentTo(self._dressing)
                ghost.setPos(*cell_xyz(marker.cell))
                enemy = board.cell_level(marker.cell)
                colour = self.colours[(marker.viewer.other, enemy)]
                self.shading.ghost(ghost, colour[:3])
        if self.show_reinforcement_squares:
            self._draw_reinforcement_squares(view)

    def _draw_reinforcement_squares(self, view: Position) -> None:
        maker = CardMaker("reinforce")
        maker.setFrame(-0.46, 0.46, -0.46, 0.46)
        for waiting in view.reinforcements:
            if view.viewer is not None and waiting.side is not view.viewer:
                continue
            mark = self._dressing.attachNewNode(maker.generate())
            mark.setP(-90)
            x, y = square_xy(waiting.sq)
            mark.setPos(x, y, 0.004)
            mark.setColor(0.3, 0.8, 1.0, 0.22)
            mark.setTransparency(TransparencyAttrib.MAlpha)
            mark.setDepthWrite(False)

    # ------------------------------------------------------------------ highlights

    def light(self, cells: dict[int, Highlight]) -> None:
        """Light the given cells; everything else goes dark."""
        self._lit.getChildren().detach()
        maker = CardMaker("lit")
        maker.setFrame(-0.47, 0.47, -0.47, 0.47)
        for cell, meaning in sorted(cells.items()):
            quad = self._lit.attachNewNode(maker.generate())
            quad.setP(-90)
            x, y, z = cell_xyz(cell)
            quad.setPos(x, y, z + 0.012)
            quad.setTwoSided(True)
            quad.setDepthWrite(False)
            quad.setBin("transparent", 10)
            quad.setPythonTag("cell", cell)
            self.shading.highlight(quad, HIGHLIGHT_COLOURS[meaning])

    def lit_cells(self) -> list[int]:
        return [child.getPythonTag("cell") for child in self._lit.getChildren()]

    def hover(self, sq: int | None, level: Level | None) -> None:
        if sq is None:
            self._hover.hide()
            return
        x, y = square_xy(sq)
        self._hover.setPos(x, y, LEVEL_Z[level if level is not None else GROUND] + 0.008)
        self._hover.show()

    # ------------------------------------------------------------------ levels

    def set_level_shown(self, level: Level, shown: bool) -> None:
        """Show or fade one level (its plane and its pieces)."""
        self.layer_shown[level] = shown
        node = self.levels[level]
        node.setTransparency(TransparencyAttrib.MAlpha)
        node.setAlphaScale(1.0 if shown else 0.12)

    def shown_levels(self) -> tuple[Level, ...]:
        return tuple(level for level in Level if self.layer_shown[level])

    def piece_node(self, pid: int) -> NodePath | None:
        return self._pieces.get(pid)

    def destroy(self) -> None:
        if self.animation is not None:
            self.animation.finish()
        self.root.removeNode()
