"""The Help screen (F1 or the menu, issue 18): the controls, and the player's rules
reference written for this project (``docs/rules.md``, package data of ``wec``).

``CONTROLS`` is the one list of the play screen's inputs: the Help screen shows it and
the README's controls table says the same (a test compares them). The rules reference
is Markdown (headings, paragraphs, bullets, simple tables); ``markdown_blocks`` reads
it into blocks and the screen lays them out in lines that fit its width, scrolled by
the wheel, the arrows or Page Up / Page Down, with its sections listed on the left.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from direct.gui.DirectGui import DGG, DirectButton, DirectFrame
from direct.gui.OnscreenText import OnscreenText
from direct.showbase.DirectObject import DirectObject
from panda3d.core import TextNode

from wec.client.hud import ACCENT, DIM, PLAIN_ROW, SELECTED_ROW, TEXT, WHEEL_DOWN, WHEEL_UP, button

# (input, what it does) for the play screen; README.md's table lists the same.
CONTROLS: tuple[tuple[str, str], ...] = (
    ("left click", "select one of your pieces (a chooser when the square holds several); "
                   "its legal destinations light up in their level's colour (Air blue, "
                   "Ground yellow, Sub green, capture orange); click one to move"),
    ("right click", "select a weapon of the piece; its aims light up; point at one to see "
                    "the shot's ray or area, its range and what it would hit; click to fire"),
    ("click an article badge", "pick it up with your piece on that square"),
    ("drag one piece onto another", "exchange articles between two of your pieces"),
    ("A", "the Actions menu: Pick-up, Drop, Exchange, Reinforce and Doze, grouped by piece"),
    ("P, D, X, R", "the Actions menu at Pick-up, Drop, Exchange or Reinforce"),
    ("Z", "doze with the selected Dozer: choose the squares on the board"),
    ("E, Enter", "end the turn"),
    ("U", "undo (non-competitive games, R14.2)"),
    ("K", "type a square (9,2 or 9,2,air) instead of clicking"),
    ("1, 2, 3", "show or fade the Air, Ground and Sub levels"),
    ("Shift+1, Shift+2, Shift+3", "look at the Air, Ground or Sub level (camera views)"),
    ("arrows", "orbit and tilt the camera"),
    ("Shift+arrows", "pan the camera"),
    ("wheel, +, -", "zoom"),
    ("middle drag, Alt+left drag", "orbit the camera (Shift+middle drag pans)"),
    ("Home", "back behind your side"),
    ("PgUp, PgDn", "scroll the move list; click a line to look at that moment (read-only)"),
    ("G", "the legend: article badges, level colours, markers"),
    ("F1", "help: these controls and the rules reference"),
    ("F2", "the game status"),
    ("L", "lighting on or off"),
    ("Ctrl+S", "save the game"),
    ("B", "the board editor (non-competitive games)"),
    ("Esc", "close a popup, leave a past moment, then the menu"),
)

MOUSE_WORDS = ("left", "right", "click", "drag", "arrows", "wheel", "middle")


def controls_table() -> list[str]:
    """``CONTROLS`` as the README's Markdown table (keys in backticks, mouse words not);
    the README carries exactly these lines."""
    rows = ["| input | does |", "|---|---|"]
    for keys, does in CONTROLS:
        shown = ", ".join(key if key.startswith(MOUSE_WORDS) else f"`{key}`"
                          for key in keys.split(", "))
        rows.append(f"| {shown} | {does} |")
    return rows


BASICS = (
    "Black moves first. In your turn make exactly one Move, and if you like up to two "
    "Fires, one Pick-up, one Drop, one Exchange and one Reinforce, in any order; then "
    "end the turn (E). You win by destroying or converting the enemy's King (or its "
    "other primary government piece). The rules reference below says everything.")


@dataclass
class Block:
    """A piece of the rules reference: a heading (level 1-3), a paragraph, a bullet
    (``indent`` levels deep), a table (``rows`` of cells) or code."""

    kind: str
    text: str = ""
    level: int = 0
    rows: list[list[str]] = field(default_factory=list)


_INLINE = re.compile(r"(\*\*|__|`)")
_LINK = re.compile(r"\[([^\]]+)\]\([^)]+\)")


def inline(text: str) -> str:
    """Markdown inline marks removed: **bold**, `code`, [text](link) -> text."""
    return _INLINE.sub("", _LINK.sub(r"\1", text)).strip()


def markdown_blocks(source: str) -> list[Block]:
    """The blocks of a Markdown text (headings, paragraphs, bullets, tables, code)."""
    blocks: list[Block] = []
    paragraph: list[str] = []
    table: list[list[str]] = []
    code: list[str] | None = None

    def flush() -> None:
        if paragraph:
            blocks.append(Block("text", inline(" ".join(paragraph))))
            paragraph.clear()
        if table:
            blocks.append(Block("table", rows=[list(r) for r in table]))
            table.clear()

    for raw in source.splitlines():
        line = raw.rstrip()
        if code is not None:
            if line.strip().startswith("```"):
                blocks.append(Block("code", "\n".join(code)))
                code = None
            else:
                code.append(line)
            continue
        stripped = line.strip()
        if stripped.startswith("```"):
            flush()
            code = []
        elif not stripped:
            flush()
        elif stripped.startswith("#"):
            flush()
            level = len(stripped) - len(stripped.lstrip("#"))
            blocks.append(Block("heading", inline(stripped.lstrip("#")), min(level, 3)))
        elif stripped.startswith("|"):
            if paragraph:
                flush()
            cells = [inline(c) for c in stripped.strip("|").split("|")]
            if not all(re.fullmatch(r":?-{2,}:?", c.strip()) for c in cells if c.strip()):
                table.append(cells)
        elif re.match(r"^([-*+]|\d+[.)])\s+", stripped):
            flush()
            indent = (len(line) - len(line.lstrip())) // 2
            marker, _, rest = stripped.partition(" ")
            bullet = "-" if marker in ("-", "*", "+") else marker
            blocks.append(Block("bullet", f"{bullet} {inline(rest)}", indent))
        elif blocks and blocks[-1].kind == "bullet" and line.startswith("  ") and not paragraph:
            blocks[-1].text += " " + inline(stripped)
        else:
            if table:
                flush()
            paragraph.append(stripped)
    if code is not None:
        blocks.append(Block("code", "\n".join(code)))
    flush()
    return blocks


def read_rules(path: Path) -> tuple[str, list[Block]]:
    """The rules reference's text and blocks; a missing file says where it should be."""
    try:
        source = path.read_text(encoding="utf-8")
    except OSError as problem:
        source = (f"# Rules reference\n\nThe rules reference could not be read ({problem}). "
                  f"It is docs/rules.md in the game's folder.")
    return source, markdown_blocks(source)


@dataclass(frozen=True)
class Line:
    """One line of the help text: cells at x offsets (text units), a style, and the
    section it belongs to."""

    cells: tuple[tuple[float, str], ...]
    style: str  # h1, h2, h3, text, bullet, table, head, code, blank
    section: int


STYLE_SCALE = {"h1": 0.062, "h2": 0.05, "h3": 0.043}
BODY_SCALE = 0.034


class HelpScreen(DirectObject):
    """A full-window page over everything (opaque: nothing of the game shows through):
    the sections on the left, the text on the right."""

    def __init__(self, base: Any, rules: Path, on_close: Callable[[], None],
                 name: str = "help", own_keys: bool = True) -> None:
        super().__init__()
        self.base = base
        self.on_close = on_close
        ratio = base.getAspectRatio()
        self.frame = DirectFrame(parent=base.aspect2d, frameColor=(0.04, 0.05, 0.07, 1.0),
                                 frameSize=(-ratio - 1, ratio + 1, -2, 2), state=DGG.NORMAL,
                                 sortOrder=200)
        self.frame.setName(name)
        OnscreenText(parent=self.frame, text="Help", pos=(-ratio + 0.06, 0.9), scale=0.07,
                     fg=ACCENT, align=TextNode.ALeft)
        self.close_button = button(self.frame, "Close (Esc or F1)", self.close,
                                   (ratio - 0.3, 0.91), width=9, name="help-close")
        _, self.blocks = read_rules(rules)
        self.text_left = -ratio + 0.78
        self.text_width = ratio - self.text_left - 0.08
        self.lines: list[Line] = []
        self.sections: list[str] = []
        self._layout()
        self.top = 0
        self.rows = 30
        self.row_height = 0.056
        self.texts: list[list[OnscreenText]] = []
        text_top = 0.8
        self.view = self.frame.attachNewNode("help-text")
        self.view.setPos(self.text_left, 0, text_top)
        for _ in range(self.rows):
            self.texts.append([])
        self._section_buttons(ratio)
        self._wheel(self.frame)
        if own_keys:  # else the screen that opened it routes Esc and F1 here
            self.accept("escape", self.close)
            self.accept("f1", self.close)
        for key, lines in (("page_down", self.rows - 2), ("page_up", -(self.rows - 2)),
                           ("arrow_down", 1), ("arrow_up", -1), ("wheel_down", 3),
                           ("wheel_up", -3)):
            self.accept(key, self.scroll, [lines])
            self.accept(f"{key}-repeat", self.scroll, [lines])
        self.accept("home", self.scroll, [-10**6])
        self.accept("end", self.scroll, [10**6])
        self.refresh()

    # ------------------------------------------------------------------ layout

    def _layout(self) -> None:
        """Controls first, then the rules reference, in lines that fit the text width."""
        self.sections.append("Controls")
        self._add(((0.0, "Controls"),), "h1")
        self._wrapped(BASICS, "text")
        self._add(((0.0, ""),), "blank")
        key_width = 0.0
        for key, _ in CONTROLS:
            key_width = max(key_width, self._width(key, BODY_SCALE))
        key_width = min(key_width + 0.05, self.text_width * 0.4)
        for key, does in CONTROLS:
            wrapped = self._wrap(does, self.text_width - key_width, BODY_SCALE)
            for index, part in enumerate(wrapped):
                cells = ((0.0, key if index == 0 else ""), (key_width, part))
                self._add(cells, "table")
        for block in self.blocks:
            if block.kind == "heading":
                if block.level <= 2:
                    self.sections.append(block.text)
                self._add(((0.0, ""),), "blank")
                style = f"h{block.level}"
                for part in self._wrap(block.text, self.text_width, STYLE_SCALE[style]):
                    self._add(((0.0, part),), style)
            elif block.kind == "text":
                self._wrapped(block.text, "text")
                self._add(((0.0, ""),), "blank")
            elif block.kind == "bullet":
                indent = 0.04 + 0.06 * block.level
                for index, part in enumerate(self._wrap(block.text, self.text_width - indent
                                                         - 0.04, BODY_SCALE)):
                    self._add(((indent + (0.0 if index == 0 else 0.04), part),), "bullet")
            elif block.kind == "code":
                for part in block.text.splitlines() or [""]:
                    self._add(((0.04, part),), "code")
                self._add(((0.0, ""),), "blank")
            elif block.kind == "table":
                self._table(block.rows)
                self._add(((0.0, ""),), "blank")

    def _table(self, rows: list[list[str]]) -> None:
        columns = max(len(r) for r in rows)
        natural = [max((self._width(r[c], BODY_SCALE) if c < len(r) else 0.0)
                       for r in rows) + 0.04 for c in range(columns)]
        total = sum(natural)
        widths = natural if total <= self.text_width else [
            max(0.12, w * self.text_width / total) for w in natural]
        for index, row in enumerate(rows):
            wrapped = [self._wrap(row[c] if c < len(row) else "", widths[c] - 0.03,
                                  BODY_SCALE) for c in range(columns)]
            for k in range(max(len(w) for w in wrapped)):
                cells = []
                x = 0.0
                for c in range(columns):
                    cells.append((x, wrapped[c][k] if k < len(wrapped[c]) else ""))
                    x += widths[c]
                self._add(tuple(cells), "head" if index == 0 else "table")

    def _add(self, cells: tuple[tuple[float, str], ...], style: str) -> None:
        self.lines.append(Line(cells, style, len(self.sections) - 1))

    def _wrapped(self, text: str, style: str) -> None:
        for part in self._wrap(text, self.text_width, BODY_SCALE):
            self._add(((0.0, part),), style)

    @staticmethod
    def _width(text: str, scale: float) -> float:
        node = TextNode("measure")
        return float(node.calcWidth(text)) * scale

    @staticmethod
    def _wrap(text: str, width: float, scale: float) -> list[str]:
        """``text`` in lines no wider than ``width`` (aspect2d units) at ``scale``."""
        node = TextNode("wrap")
        node.setWordwrap(max(1.0, width / scale))
        node.setText(text)
        return str(node.getWordwrappedText()).split("\n") or [""]

    def _section_buttons(self, ratio: float) -> None:
        self.section_buttons: list[DirectButton] = []
        left = -ratio + 0.05
        y = 0.8
        spacing = min(0.062, 1.7 / max(1, len(self.sections)))
        for index, title in enumerate(self.sections):
            made = DirectButton(parent=self.frame, text=title[:34], scale=0.032,
                                pos=(left, 0, y - index * spacing),
                                text_align=TextNode.ALeft, text_fg=TEXT, relief=DGG.FLAT,
                                frameColor=PLAIN_ROW, frameSize=(-0.2, 21, -0.45, 1.05),
                                command=self.go_to_section, extraArgs=[index])
            made.setName(f"help-section-{index}")
            self._wheel(made)
            self.section_buttons.append(made)

    def _wheel(self, widget: Any) -> None:
        widget.bind(WHEEL_UP, lambda _event: self.scroll(-3))
        widget.bind(WHEEL_DOWN, lambda _event: self.scroll(3))

    # ------------------------------------------------------------------ reading

    def go_to_section(self, index: int) -> None:
        first = next((n for n, line in enumerate(self.lines) if line.section == index), 0)
        self.top = max(0, min(first, max(0, len(self.lines) - self.rows)))
        self.refresh()

    def scroll(self, lines: int) -> None:
        self.top = max(0, min(max(0, len(self.lines) - self.rows), self.top + lines))
        self.refresh()

    def refresh(self) -> None:
        for slot in range(self.rows):
            for old in self.texts[slot]:
                old.destroy()
            self.texts[slot] = []
            index = self.top + slot
            if index >= len(self.lines):
                continue
            line = self.lines[index]
            scale = STYLE_SCALE.get(line.style, BODY_SCALE)
            colour = ACCENT if line.style in ("h1", "h2", "h3", "head") else (
                DIM if line.style == "code" else TEXT)
            for x, text in line.cells:
                if not text:
                    continue
                self.texts[slot].append(OnscreenText(
                    parent=self.view, text=text, pos=(x, -slot * self.row_height),
                    scale=scale, fg=colour, align=TextNode.ALeft))
        section = self.lines[self.top].section if self.lines else 0
        for index, made in enumerate(self.section_buttons):
            made["frameColor"] = SELECTED_ROW if index == section else PLAIN_ROW
            made["text_fg"] = ACCENT if index == section else TEXT

    def visible_text(self) -> list[str]:
        return [" | ".join(t.getText() for t in row) for row in self.texts if row]

    def all_text(self) -> str:
        return "\n".join(" ".join(text for _, text in line.cells) for line in self.lines)

    def close(self) -> None:
        self.destroy()
        self.on_close()

    def destroy(self) -> None:
        self.ignoreAll()
        self.frame.destroy()
