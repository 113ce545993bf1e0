"""The board editor screen (R14.4): build a start board by clicking, then play it.

The screen edits an immutable ``engine.editor.Editor``; every edit pushes the new
Editor on a stack, so Undo (Ctrl+Z) and Redo (Ctrl+Y) are free. The board is drawn in
full (the editor sees every piece, hidden or not) by the play screen's ``BoardScene``,
and a click picks a square with the scene's geometry (``client.layout``): the palette
on the left says what a click does (place a piece, an article or a projectile, or
remove what is there). The problems panel lists ``check_start`` live, with the
constraint and the square ("R14.4(d): White has no legal Move"), and the offending
cells glow red. "Play this board" is offered only when there is no problem.

It is reached from the main menu and, in a non-competitive game, from the play screen
(R14.4: the current position is the edit buffer; R14.3: refused in competitive mode).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from direct.gui.DirectGui import (
    DGG,
    DirectCheckButton,
    DirectEntry,
    DirectFrame,
    DirectOptionMenu,
)
from direct.gui.OnscreenText import OnscreenText
from direct.showbase.DirectObject import DirectObject
from direct.task.Task import Task
from panda3d.core import Point3, TextNode

from wec.client.boards import read_board, saved_boards, write_board
from wec.client.camera import Orbit, OrbitCamera
from wec.client.hud import (
    ACCENT,
    PANEL,
    REFUSAL,
    TEXT,
    Chooser,
    ListPanel,
    button,
    fit_label,
    follow_view,
    label,
)
from wec.client.interaction import Highlight
from wec.client.layout import choose_hit, ray_hits
from wec.client.narration import article_name
from wec.client.playlayout import framed
from wec.client.scene import BoardScene
from wec.engine import board
from wec.engine.board import AIR, GROUND, SUB, Level
from wec.engine.editor import Editor, EditorProblem
from wec.engine.errors import EditorError, WecError
from wec.engine.options import Options, options_to_dict
from wec.engine.pieces import TRAITS, ArticleKind, Hand, PieceKind, Side, describe_kind
from wec.engine.position import Position
from wec.storage.scenarios import load_scenario, scenario_description, scenario_names

K = PieceKind
KIND_GROUPS: tuple[tuple[str, tuple[PieceKind, ...]], ...] = (
    ("Pawn", (K.FLAME_PAWN, K.ROCKET_PAWN, K.STUNNER_PAWN, K.CONVERSION_PAWN,
              K.SAM_TORPEDO_PAWN, K.XXX_PAWN, K.STEALTH_PAWN)),
    ("Air", (K.JET, K.CHOPPER, K.AAA)),
    ("Sub", (K.SUB, K.DESTROYER)),
    ("Ground", (K.TANK, K.CLERIC, K.DOZER)),
    ("Government", (K.KING, K.QUEEN, K.DICTATOR, K.ASSASSIN, K.AVATAR, K.ACOLYTE,
                    K.PRESIDENT, K.PRIME_MINISTER)),
)
"""Every piece kind, grouped as the palette offers them (pawns, Air, Sub, Ground,
government); AAA sits with the Air pieces it shoots at, the Destroyer with the Subs."""

KIND_CHOICES: tuple[tuple[str, PieceKind], ...] = tuple(
    (f"{group}: {describe_kind(kind)}", kind) for group, kinds in KIND_GROUPS for kind in kinds)
LEVELS: tuple[Level, ...] = (GROUND, AIR, SUB)
PROJECTILE_LEVELS: dict[str, Level] = {"rocket": GROUND, "sam": AIR, "torpedo": SUB}
"""R6.8.1: a projectile flies on its own level."""
COMPASS: tuple[tuple[str, tuple[int, int]], ...] = (
    ("N (toward row 10)", (1, 0)), ("NE", (1, 1)), ("E (toward column 10)", (0, 1)),
    ("SE", (-1, 1)), ("S (toward row 1)", (-1, 0)), ("SW", (-1, -1)), ("W", (0, -1)),
    ("NW", (1, -1)))
TOOLS: tuple[tuple[str, str], ...] = (("piece", "Piece"), ("article", "Article"),
                                      ("projectile", "Projectile"), ("remove", "Remove"))
EDITOR_ORBIT = Orbit(heading=0.0, pitch=64.0, distance=27.5, target=(0.0, 0.0, 0.0))
"""Behind White's home rows; its distance is then chosen to frame the board between the
palette, the buttons, the status lines and the problems panel (:meth:`EditorScreen.
board_space`)."""
# where the panels stand (aspect2d units): the palette (with its menus) from the left
# edge, the buttons and the board's name from the right edge, the status lines from the
# top and the problems panel from the bottom
PALETTE_REACH = 0.72
BUTTONS_REACH = 0.5
STATUS_LINES = 0.19
PROBLEMS_TOP = 0.38
PROBLEM_LIGHT = Highlight.AIM  # red: where a problem is
CHOSEN = (0.30, 0.42, 0.62, 1.0)
UNCHOSEN = (0.18, 0.20, 0.26, 0.95)


@dataclass
class Palette:
    """What a click on the board does: the tool and the thing it places."""

    tool: str = "piece"
    side: Side = Side.WHITE
    kind: PieceKind = PieceKind.KING
    level: Level = GROUND
    hand: Hand = Hand.RIGHT
    carried: list[ArticleKind | None] = field(default_factory=lambda: [None, None, None])
    stun_turns: int = 0
    reinforcement: bool = False
    article: ArticleKind = ArticleKind.FLAME
    projectile: str = "rocket"
    direction: tuple[int, int] = (1, 0)

    def placing_level(self) -> Level:
        """The level a click places on (reinforcements enter at Ground, R10.1)."""
        if self.tool == "piece":
            return GROUND if self.reinforcement else self.level
        if self.tool == "projectile":
            return PROJECTILE_LEVELS[self.projectile]
        return GROUND


def place(editor: Editor, palette: Palette, sq: int) -> tuple[Editor, str]:
    """The palette's placement at square ``sq``: the new buffer and what was done; an
    EditorError (naming the rule) when the editor refuses it."""
    at = (board.row_of(sq), board.col_of(sq))
    where = board.describe_square(sq)
    side = palette.side
    if palette.tool == "article":
        return (editor.add_article(palette.article, at),
                f"placed a {article_name(palette.article)} on the Ground of {where}")
    if palette.tool == "projectile":
        return (editor.add_projectile(palette.projectile, side, at, palette.direction),
                f"placed a {side.title} {article_name(palette.projectile)} at {where} "
                f"{palette.placing_level().label}, flying {palette.direction}")
    kind = palette.kind
    hand = palette.hand if TRAITS[kind].handed else None
    articles = tuple(a for a in palette.carried if a is not None)
    stun = editor.position.turn + palette.stun_turns if palette.stun_turns else 0
    level = palette.placing_level()
    placed = editor.add_piece(side, kind, at, level, hand=hand, articles=articles,
                              stunned_until=stun, reinforcement=palette.reinforcement)
    name = f"{side.title} {describe_kind(kind)}" + (f" ({hand.value})" if hand else "")
    if palette.reinforcement:
        return placed, f"placed a {name} reinforcement waiting at {where} (R10)"
    return placed, f"placed the {name} at {where} {level.label}"


@dataclass(frozen=True, slots=True)
class Removable:
    """One thing on the board a Remove click may take away."""

    label: str
    take: Callable[[Editor], Editor]


def removables(position: Position, sq: int, level: Level | None) -> list[Removable]:
    """What lies at the clicked square (on ``level``, or on every level when None):
    pieces (with what they carry), projectiles, and at Ground the waiting
    reinforcements and unowned articles."""
    at = (board.row_of(sq), board.col_of(sq))
    where = board.describe_square(sq)
    out: list[Removable] = []
    seen: set[str] = set()

    def add(text: str, take: Callable[[Editor], Editor]) -> None:
        if text not in seen:
            seen.add(text)
            out.append(Removable(text, take))

    for p in sorted(position.pieces, key=lambda p: (p.level, p.pid)):
        if p.sq == sq and level in (None, p.level):
            hand = f" ({p.hand.value})" if p.hand else ""
            add(f"{p.side.title} {describe_kind(p.kind)}{hand} at {where} {p.level.label}",
                partial(Editor.remove_piece, at=at, level=p.level, kind=p.kind, side=p.side,
                        hand=p.hand))
    for pr in position.projectiles:
        if pr.sq == sq and level in (None, pr.level):
            add(f"{pr.side.title} {article_name(pr.kind)} at {where} {pr.level.label}",
                partial(Editor.remove_projectile, kind=pr.kind, at=at))
    if level in (None, GROUND):
        for r in position.reinforcements:
            if r.sq == sq and r.kind is not None:
                add(f"{r.side.title} {describe_kind(r.kind)} reinforcement waiting at {where}",
                    partial(Editor.remove_reinforcement, side=r.side, kind=r.kind, at=at,
                            hand=r.hand))
        for article in position.ground_articles[sq]:
            add(f"{article_name(article)} on the Ground of {where}",
                partial(Editor.remove_article, kind=article, at=at))
    return out


def square_lines(position: Position, sq: int) -> list[str]:
    """Everything at one square, level by level, for the square panel."""
    lines = [f"Square {board.describe_square(sq)}"]
    for level in (AIR, GROUND, SUB):
        for p in sorted(position.pieces, key=lambda p: p.pid):
            if p.sq == sq and p.level is level:
                hand = f" ({p.hand.value})" if p.hand else ""
                extra = [article_name(a) for a in p.articles]
                if p.stunned_until > position.turn:
                    extra.append(f"stunned until turn {p.stunned_until}")
                carries = f": {', '.join(extra)}" if extra else ""
                lines.append(f"{level.label}: {p.side.title} {describe_kind(p.kind)}{hand}"
                             f"{carries}")
    for pr in position.projectiles:
        if pr.sq == sq:
            lines.append(f"{pr.level.label}: {pr.side.title} {article_name(pr.kind)} {pr.dir}")
    for r in position.reinforcements:
        if r.sq == sq and r.kind is not None:
            lines.append(f"waiting: {r.side.title} {describe_kind(r.kind)} reinforcement")
    if position.ground_articles[sq]:
        lines.append("articles: " + ", ".join(article_name(a)
                                             for a in position.ground_articles[sq]))
    return lines


def problem_cells(problems: Sequence[EditorProblem]) -> dict[int, Highlight]:
    """The cells to light for the problems that have a square (Ground when the problem
    names no level)."""
    lit: dict[int, Highlight] = {}
    for problem in problems:
        if problem.square is not None:
            row, col = problem.square
            level = problem.level if problem.level is not None else GROUND
            lit[board.cell(board.square(row, col), level)] = PROBLEM_LIGHT
    return lit


def options_changes(before: Options, after: Options) -> list[str]:
    """``tank_range 8``: the options that differ between two option sets."""
    old, new = options_to_dict(before), options_to_dict(after)
    return [f"{name} {new[name]}" for name in new if new[name] != old[name]]


class EditorScreen(DirectObject):
    """The board editor: the board, the palette, the problems and the edit buttons."""

    def __init__(self, app: Any, editor: Editor, on_back: Callable[[], Any],
                 boards_folder: Path, from_game: bool = False) -> None:
        super().__init__()
        self.app = app
        self.base = app.base
        self.on_back = on_back
        self.boards_folder = boards_folder
        self.from_game = from_game
        self.history: list[tuple[Editor, str]] = [(editor, "the board as opened")]
        self.index = 0
        self.palette = Palette()
        self.problems: list[EditorProblem] = []
        self.popup: Chooser | None = None
        self.options_screen: Any = None
        self._hovered: int | None = None
        self.scene = BoardScene(self.base, app.models, app.shading, "off", app.settings.palette)
        self.scene.show_markers = False
        self.camera = OrbitCamera(self.base, Side.WHITE)
        self._frame_camera()
        self.base.setBackgroundColor(0.09, 0.11, 0.15, 1)
        self.anchors = {name: getattr(self.base, name).attachNewNode(f"editor-{name}")
                        for name in ("a2dTopLeft", "a2dTopRight", "a2dTopCenter",
                                     "a2dBottomCenter")}
        self.tool_buttons: dict[str, Any] = {}
        self.side_buttons: dict[Side, Any] = {}
        self.menus: dict[str, DirectOptionMenu] = {}
        self._build_palette(self.anchors["a2dTopLeft"])
        self._build_buttons(self.anchors["a2dTopRight"])
        self._build_panels()
        self._bind()
        self.base.taskMgr.add(self._frame, "editor-frame")
        self.refresh()
        opened = "the game's position" if from_game else "the standard setup"
        self.say(f"Editing {opened}: pick a tool on the left, then click the board "
                 "(R14.4)")

    def board_space(self) -> tuple[float, float, float, float]:
        """The space between the panels, in normalised device coordinates (left, right,
        bottom, top)."""
        ratio = self.base.getAspectRatio()
        return ((-ratio + PALETTE_REACH) / ratio, (ratio - BUTTONS_REACH) / ratio,
                -1 + PROBLEMS_TOP, 1 - STATUS_LINES)

    def _frame_camera(self) -> None:
        """The board framed between the panels (client.playlayout ``framed``, as in
        play and in the replay): in a 1024 x 768 window its left edge ran under the
        palette."""
        self.camera.set_orbit(framed(EDITOR_ORBIT, self.base.camLens, self.board_space()))

    # ------------------------------------------------------------------ state

    @property
    def editor(self) -> Editor:
        return self.history[self.index][0]

    @property
    def position(self) -> Position:
        return self.editor.position

    def problem_lines(self) -> list[str]:
        """The problems panel's lines, as shown."""
        return [str(p) for p in self.problems]

    # ------------------------------------------------------------------ building

    def _build_palette(self, parent: Any) -> None:
        panel = DirectFrame(parent=parent, frameColor=PANEL, frameSize=(0, 0.66, -1.99, 0),
                            pos=(0.01, 0, -0.005))
        panel.setName("editor-palette")
        OnscreenText(parent=panel, text="Board editor", pos=(0.03, -0.07), scale=0.055,
                     fg=ACCENT, align=TextNode.ALeft)
        for index, (tool, text) in enumerate(TOOLS):
            column, row = index % 2, index // 2
            self.tool_buttons[tool] = button(panel, text, self.set_tool,
                                             (0.18 + 0.3 * column, -0.15 - 0.085 * row),
                                             width=6.2, args=[tool], name=f"editor-tool-{tool}")
        for index, side in enumerate((Side.BLACK, Side.WHITE)):
            self.side_buttons[side] = button(panel, side.title, self.set_side,
                                             (0.18 + 0.3 * index, -0.34), width=6.2,
                                             args=[side], name=f"editor-side-{side.value}")
        y = -0.44
        self._menu(panel, "kind", "Piece", [text for text, _ in KIND_CHOICES], y,
                   KIND_CHOICES.index(next(c for c in KIND_CHOICES if c[1] is K.KING)))
        self._menu(panel, "level", "Level", [lv.label.title() for lv in LEVELS], y - 0.08)
        self._menu(panel, "hand", "Hand", ["right", "left"], y - 0.16)
        carry_items = ["nothing", *(article_name(a) for a in ArticleKind)]
        for slot in range(3):
            self._menu(panel, f"carry{slot}", f"Carries {slot + 1}", carry_items,
                       y - 0.24 - 0.07 * slot)
        self._menu(panel, "stun", "Stunned", ["no", *(f"{n} turns" for n in range(1, 10))],
                   y - 0.47)
        OnscreenText(parent=panel, text="Reinforcement (R10)", pos=(0.03, y - 0.56),
                     scale=0.036, fg=TEXT, align=TextNode.ALeft)
        self.reinforcement_box = DirectCheckButton(
            parent=panel, pos=(0.55, 0, y - 0.548), scale=0.036, indicatorValue=0,
            boxPlacement="right", frameColor=(0, 0, 0, 0), command=self._set_reinforcement)
        self.reinforcement_box.setName("editor-reinforcement")
        OnscreenText(parent=panel, text="waits for its activation square: the one clicked",
                     pos=(0.03, y - 0.61), scale=0.026, fg=(0.7, 0.7, 0.7, 1),
                     align=TextNode.ALeft)
        self._menu(panel, "article", "Article", [article_name(a) for a in ArticleKind],
                   y - 0.71)
        self._menu(panel, "projectile", "Projectile", ["rocket", "sam", "torpedo"], y - 0.80)
        self._menu(panel, "direction", "Flying", [text for text, _ in COMPASS], y - 0.88)
        self.square_panel = ListPanel(panel, "Under the pointer", (0.0, y - 0.95), (0.66, 0.59),
                                      lines=11)
        self._show_palette()

    def _menu(self, parent: Any, key: str, title: str, items: list[str], y: float,
              initial: int = 0) -> None:
        OnscreenText(parent=parent, text=title, pos=(0.03, y), scale=0.036, fg=TEXT,
                     align=TextNode.ALeft)
        menu = DirectOptionMenu(parent=parent, pos=(0.24, 0, y), scale=0.034, items=items,
                                initialitem=initial, command=self._menu_chosen,
                                extraArgs=[key], text_fg=TEXT, frameColor=UNCHOSEN,
                                relief=DGG.FLAT, highlightColor=(0.3, 0.3, 0.4, 1),
                                item_text_fg=TEXT, item_frameColor=PANEL, popupMarker_scale=0.5)
        menu.setName(f"editor-{key}")
        self.menus[key] = menu

    def _build_buttons(self, parent: Any) -> None:
        rows: list[tuple[str, Callable[[], Any], str]] = [
            ("Undo (Ctrl+Z)", self.undo, "editor-undo"),
            ("Redo (Ctrl+Y)", self.redo, "editor-redo"),
            ("Clear board", self.clear, "editor-clear"),
            ("Load scenario", self.choose_scenario, "editor-scenario"),
            ("Options (R13)", self.open_options, "editor-options"),
            ("", self.toggle_turn, "editor-turn"),
            ("Save board", self.save_board, "editor-save"),
            ("Load board", self.choose_board, "editor-load"),
            ("Play this board", self.play_board, "editor-play"),
            ("Back (Esc)", self.back, "editor-back"),
        ]
        self.buttons: dict[str, Any] = {}
        y = -0.08
        for text, command, name in rows:
            if name == "editor-save":
                label(parent, "Board name", (-0.48, y + 0.01), scale=0.032)
                self.name_entry = DirectEntry(
                    parent=parent, pos=(-0.48, 0, y - 0.05), scale=0.034, width=12,
                    initialText=time.strftime("board-%Y%m%d-%H%M"), numLines=1,
                    frameColor=(0.1, 0.1, 0.12, 0.9), text_fg=TEXT,
                    command=self._name_entered)
                self.name_entry.setName("editor-board-name")
                y -= 0.14
            self.buttons[name] = button(parent, text, command, (-0.25, y), width=9.6,
                                        name=name)
            y -= 0.1

    def _build_panels(self) -> None:
        top = self.anchors["a2dTopCenter"]
        self.status = OnscreenText(parent=top, text="", pos=(0, -0.07), scale=0.045, fg=TEXT,
                                   mayChange=True)
        self.note = OnscreenText(parent=top, text="", pos=(0, -0.13), scale=0.033, fg=TEXT,
                                 mayChange=True, wordwrap=40)
        self.problems_panel = ListPanel(self.anchors["a2dBottomCenter"], "Problems (R14.4)",
                                        (-0.64, 0.36), (1.28, 0.35), lines=6)
        self.problems_panel.frame.setName("editor-problems")

    def _bind(self) -> None:
        self.accept("mouse1", self._click)
        self.accept("control-z", self.undo)
        self.accept("control-y", self.redo)
        self.accept("shift-control-z", self.redo)
        self.accept("escape", self.escape)
        self.camera.bind(self.accept)

    def accept(self, event: str, method: Callable[..., Any],  # type: ignore[override]
               extraArgs: list[Any] | None = None) -> None:
        """Like DirectObject.accept, but asleep while the options screen is open, and
        while the board name is being typed (keys type; a click elsewhere ends typing)."""
        args = list(extraArgs or [])

        def guarded(*more: Any) -> None:
            if self.options_screen is not None:
                return
            if self.name_entry.guiItem.getFocus():
                if event != "mouse1":
                    return
                self.name_entry["focus"] = 0
            method(*args, *more)

        super().accept(event, guarded)

    # ------------------------------------------------------------------ palette

    def set_tool(self, tool: str) -> None:
        self.palette.tool = tool
        self._show_palette()
        self.say({"piece": "Click a square to place the piece (at the chosen level)",
                  "article": "Click a square to lay the article on its Ground (R1.7)",
                  "projectile": "Click a square to place the directional projectile "
                                "(R14.4(b): never a homing one)",
                  "remove": "Click what to remove: a piece, projectile, reinforcement or "
                            "article"}[tool])

    def set_side(self, side: Side) -> None:
        self.palette.side = side
        self._show_palette()

    def _menu_chosen(self, text: str, key: str) -> None:
        index = self.menus[key]["items"].index(text)
        p = self.palette
        if key == "kind":
            p.kind = KIND_CHOICES[index][1]
        elif key == "level":
            p.level = LEVELS[index]
        elif key == "hand":
            p.hand = (Hand.RIGHT, Hand.LEFT)[index]
        elif key.startswith("carry"):
            p.carried[int(key[-1])] = None if index == 0 else list(ArticleKind)[index - 1]
        elif key == "stun":
            p.stun_turns = index
        elif key == "article":
            p.article = list(ArticleKind)[index]
            p.tool = "article"
        elif key == "projectile":
            p.projectile = ("rocket", "sam", "torpedo")[index]
            p.tool = "projectile"
        elif key == "direction":
            p.direction = COMPASS[index][1]
            p.tool = "projectile"
        if key in ("kind", "level", "hand") or key.startswith("carry") or key == "stun":
            p.tool = "piece"
        self._show_palette()

    def choose(self, key: str, text: str) -> None:
        """Pick ``text`` in the palette menu ``key`` (``kind``, ``level``, ``hand``,
        ``carry0``..``carry2``, ``stun``, ``article``, ``projectile``, ``direction``),
        exactly as picking it in the drop-down does."""
        menu = self.menus[key]
        menu.set(menu["items"].index(text))

    def _set_reinforcement(self, state: int) -> None:
        self.palette.reinforcement = bool(state)
        self.palette.tool = "piece"
        self._show_palette()

    def _show_palette(self) -> None:
        for tool, made in self.tool_buttons.items():
            made["frameColor"] = CHOSEN if tool == self.palette.tool else UNCHOSEN
        for side, made in self.side_buttons.items():
            made["frameColor"] = CHOSEN if side is self.palette.side else UNCHOSEN
        handed = TRAITS[self.palette.kind].handed
        self.menus["hand"]["state"] = DGG.NORMAL if handed else DGG.DISABLED
        self.menus["hand"]["text_fg"] = TEXT if handed else (0.5, 0.5, 0.5, 1)

    # ------------------------------------------------------------------ clicks

    def _click(self) -> None:
        if self.popup is not None:
            return
        picked = self.pick()
        if picked is None:
            return
        sq, level = picked
        if self.palette.tool == "remove":
            self.remove_at(sq, level)
        else:
            self.place_at(sq)

    def pick(self) -> tuple[int, Level | None] | None:
        """The square (and level) the pointer is on for the current tool: for placing,
        the square of the chosen level's plane under the pointer; for removing, the
        nearest cell under the pointer holding something (as in play)."""
        ray = self._pointer_ray()
        if ray is None:
            return None
        origin, direction = ray
        if self.palette.tool != "remove":
            level = self.palette.placing_level()
            hits = [h for h in ray_hits(origin, direction, (level,)) if not h.body]
            return (hits[0].sq, level) if hits else None
        hits = ray_hits(origin, direction, self.scene.shown_levels())
        return choose_hit(hits, self._occupied_cells())

    def _pointer_ray(self) -> tuple[tuple[float, float, float],
                                    tuple[float, float, float]] | None:
        watcher = self.base.mouseWatcherNode
        if watcher is None or not watcher.hasMouse():
            return None
        near, far = Point3(), Point3()
        self.base.camLens.extrude(watcher.getMouse(), near, far)
        render = self.base.render
        origin = render.getRelativePoint(self.base.cam, near)
        through = render.getRelativePoint(self.base.cam, far)
        return tuple(origin), tuple(through - origin)

    def _occupied_cells(self) -> set[int]:
        position = self.position
        cells = {p.cell for p in position.pieces} | {pr.cell for pr in position.projectiles}
        cells |= {board.cell(r.sq, GROUND) for r in position.reinforcements}
        cells |= {board.cell(sq, GROUND) for sq, here in enumerate(position.ground_articles)
                  if here}
        return cells

    def place_at(self, sq: int) -> None:
        """Place the palette's piece, article or projectile at square ``sq``."""
        try:
            edited, what = place(self.editor, self.palette, sq)
        except EditorError as refusal:
            self.say(str(refusal), refused=True)
            return
        self.edit(edited, what)

    def remove_at(self, sq: int, level: Level | None) -> None:
        """Remove what is at the square (a chooser when several things are there)."""
        found = removables(self.position, sq, level)
        if not found:
            self.say(f"nothing to remove at {board.describe_square(sq)}", refused=True)
        elif len(found) == 1:
            self._remove(found[0])
        else:
            self._open_popup(f"Remove what at {board.describe_square(sq)}?",
                             [(item.label, item) for item in found], self._remove)

    def _remove(self, item: Removable) -> None:
        try:
            edited = item.take(self.editor)
        except EditorError as refusal:
            self.say(str(refusal), refused=True)
            return
        self.edit(edited, f"removed the {item.label}")

    # ------------------------------------------------------------------ edits

    def edit(self, editor: Editor, what: str) -> None:
        """Make ``editor`` the buffer (dropping anything undone after the current one)."""
        self.history = [*self.history[:self.index + 1], (editor, what)]
        self.index += 1
        self.refresh()
        self.say(what[0].upper() + what[1:])

    def undo(self) -> None:
        if self.popup is not None:
            return
        if self.index == 0:
            self.say("Nothing to undo", refused=True)
            return
        what = self.history[self.index][1]
        self.index -= 1
        self.refresh()
        self.say(f"Undone: {what}")

    def redo(self) -> None:
        if self.popup is not None:
            return
        if self.index + 1 >= len(self.history):
            self.say("Nothing to redo", refused=True)
            return
        self.index += 1
        self.refresh()
        self.say(f"Redone: {self.history[self.index][1]}")

    def clear(self) -> None:
        """R14.4: the buffer may be cleared (the options and the turn stay)."""
        self.edit(self.editor.clear(), "cleared the board")

    def toggle_turn(self) -> None:
        """Let the other side start: the turn before (or, at turn 1, after) this one
        (R4.1: Black acts on odd turns)."""
        turn = self.position.turn
        changed = self.editor.set_turn(turn - 1 if turn > 1 else turn + 1)
        self.edit(changed, f"{changed.position.side_to_act.title} starts (turn "
                           f"{changed.position.turn})")

    def load_scenario(self, name: str) -> None:
        """A bundled scenario as the starting point of the edit."""
        try:
            loaded = Editor(load_scenario(name))
        except WecError as refusal:
            self.say(str(refusal), refused=True)
            return
        self.edit(loaded, f"loaded the scenario {name}")
        self.say(f"Loaded the scenario {name}: {scenario_description(name)}")

    def choose_scenario(self) -> None:
        names = scenario_names()
        self._open_popup("Start from which scenario?", [(n, n) for n in names],
                         self.load_scenario)

    # ------------------------------------------------------------------ files

    def save_board(self, name: str | None = None) -> Path | None:
        """Write the buffer as a wec-position/1 board file (atomic); the file written."""
        name = name if name is not None else self.name_entry.get()
        try:
            path = write_board(self.boards_folder, name, self.position)
        except (OSError, EditorError) as refusal:
            self.say(f"Board not saved: {refusal}", refused=True)
            return None
        self.say(f"Saved the board as {path.name} in {path.parent}")
        return path

    def _name_entered(self, name: str) -> None:
        """Enter in the board name: save under that name."""
        self.name_entry["focus"] = 0
        self.save_board(name)

    def choose_board(self) -> None:
        boards = saved_boards(self.boards_folder)[:10]
        if not boards:
            self.say(f"No saved boards yet in {self.boards_folder}", refused=True)
            return
        self._open_popup("Load which board?", [(p.stem, p) for p in boards], self.load_board)

    def load_board(self, path: Path) -> None:
        try:
            loaded = Editor(read_board(path))
        except (OSError, ValueError, WecError) as refusal:
            self.say(f"cannot load {path.name}: {refusal}", refused=True)
            return
        self.edit(loaded, f"loaded the board {path.stem}")

    # ------------------------------------------------------------------ options

    def open_options(self) -> None:
        """The new-game options screen over the editor, on the board's options."""
        from wec.client.menus import NewGameScreen

        if self.popup is not None or self.options_screen is not None:
            return
        self._show_gui(False)
        self.options_screen = NewGameScreen(self.base, self._options_chosen,
                                            self._options_closed,
                                            initial=self.position.options,
                                            title="Board options (R13)",
                                            start_label="Use these options")

    def _options_chosen(self, options: Options) -> None:
        before = self.position.options
        try:
            changed = self.editor.set_options(options)
        except EditorError as refusal:
            self.options_screen.error.setText(str(refusal))
            return
        self._options_closed()
        changes = options_changes(before, options)
        if changes:
            self.edit(changed, "options set: " + ", ".join(changes))
        else:
            self.say("Options unchanged")

    def _options_closed(self) -> None:
        if self.options_screen is not None:
            self.options_screen.destroy()
            self.options_screen = None
        self.base.setBackgroundColor(0.09, 0.11, 0.15, 1)
        self._show_gui(True)

    def _show_gui(self, shown: bool) -> None:
        for node in (*self.anchors.values(), self.scene.root):
            if shown:
                node.show()
            else:
                node.hide()

    # ------------------------------------------------------------------ leaving

    def play_board(self) -> None:
        """Start a hotseat game from the buffer's start position (no problems only)."""
        try:
            start = self.editor.start_position()
        except EditorError as refusal:
            self.say(f"Fix the problems first: {refusal}", refused=True)
            return
        self.app.start_from_position(start)

    def back(self) -> None:
        self.on_back()

    def escape(self) -> None:
        if self.popup is not None:
            self._close_popup()
        else:
            self.back()

    # ------------------------------------------------------------------ showing

    def refresh(self) -> None:
        """Redraw the board, the problems (live), the highlights and the buttons."""
        position = self.position
        self.problems = self.editor.problems()
        self.scene.show(position)
        self.scene.light(problem_cells(self.problems))
        lines = self.problem_lines() or ["None: the board is a valid start. "
                                         "Play it or save it."]
        self.problems_panel.set_lines(lines)
        waiting = len(position.reinforcements)
        articles = sum(len(here) for here in position.ground_articles)
        self.status.setText(f"Turn {position.turn}, {position.side_to_act.title} to start - "
                            f"{len(position.pieces)} pieces, {articles} articles, "
                            f"{waiting} reinforcements")
        self.buttons["editor-turn"]["text"] = f"Starts: {position.side_to_act.title}"
        fit_label(self.buttons["editor-turn"])
        playable = not self.problems
        self.buttons["editor-play"]["state"] = DGG.NORMAL if playable else DGG.DISABLED
        self.buttons["editor-play"]["text_fg"] = TEXT if playable else (0.5, 0.5, 0.5, 1)
        for name, usable in (("editor-undo", self.index > 0),
                             ("editor-redo", self.index + 1 < len(self.history))):
            self.buttons[name]["text_fg"] = TEXT if usable else (0.5, 0.5, 0.5, 1)
        self._hovered = None

    def say(self, text: str, refused: bool = False) -> None:
        self.note.setText(text)
        self.note.setFg(REFUSAL if refused else TEXT)

    def _open_popup(self, prompt: str, options: list[tuple[str, Any]],
                    then: Callable[[Any], None]) -> None:
        def picked(index: int) -> None:
            self._close_popup()
            then(options[index][1])

        self._close_popup()
        self.popup = Chooser(self.base.aspect2d, prompt, [text for text, _ in options],
                             picked, self._close_popup)

    def _close_popup(self) -> None:
        if self.popup is not None:
            self.popup.destroy()
            self.popup = None

    def _frame(self, task: Task) -> int:
        follow_view(self.base, self.camera, self.scene, self.app.shading, task)
        picked = None if self.popup or self.options_screen else self.pick()
        self.scene.hover(*(picked if picked else (None, None)))
        sq = picked[0] if picked else None
        if sq != self._hovered:
            self._hovered = sq
            self.square_panel.set_lines(square_lines(self.position, sq) if sq is not None
                                        else ["Point at a square to see what is there."])
        return task.cont

    def destroy(self) -> None:
        self.ignoreAll()
        self.base.taskMgr.remove("editor-frame")
        self.base.camLens.setFilmOffset(0, 0)  # the board framed for this screen only
        self._close_popup()
        if self.options_screen is not None:
            self.options_screen.destroy()
            self.options_screen = None
        for made in (*self.tool_buttons.values(), *self.side_buttons.values(),
                     *self.menus.values(), *self.buttons.values(), self.name_entry,
                     self.reinforcement_box, self.square_panel, self.problems_panel):
            made.destroy()
        for node in self.anchors.values():
            node.removeNode()
        self.scene.destroy()
