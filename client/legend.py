"""The play screen's legend (G, issue 18): every article badge with its name, what the
colours and marks on the board mean."""

from __future__ import annotations

from typing import Any

from direct.gui.DirectGui import DGG, DirectFrame
from direct.gui.OnscreenText import OnscreenText
from panda3d.core import CardMaker, NodePath, TextNode

from wec.client.hud import ACCENT, DIM, SOLID_PANEL, TEXT, Colour
from wec.client.icons import BADGES, CATEGORY_TEXT, badge, plain
from wec.client.layout import PIECE_COLOURS
from wec.client.narration import article_name
from wec.engine.board import AIR, GROUND, SUB
from wec.engine.pieces import Side

MARKS: tuple[tuple[str, Colour, str], ...] = (
    ("square", (1.0, 0.92, 0.15, 1.0), "legal Move on the Ground"),
    ("square", (0.35, 0.80, 1.0, 1.0), "legal Move in the Air (frame on its square)"),
    ("square", (0.25, 1.0, 0.55, 1.0), "legal Move at the Sub level"),
    ("square", (1.0, 0.45, 0.10, 1.0), "a capture"),
    ("square", (1.0, 0.15, 0.12, 1.0), "an aim; pale red: the shot's ray or area"),
    ("square", (0.35, 0.75, 1.0, 1.0), "the last move you saw"),
    ("square", (0.16, 0.52, 0.66, 1.0), "water: a piece below, at the Sub level"),
    ("corners", (0.35, 0.95, 0.55, 1.0), "your reinforcements wait here (R10)"),
    ("corners", (1.0, 0.55, 0.25, 1.0), "enemy reinforcements wait here (R10.5)"),
    ("square", (0.85, 0.55, 1.0, 1.0), "ghost, seen T5: an enemy piece last seen on turn 5"),
)
NOTES = ("A line ties each flyer to its square (with its shadow) and each piece at the Sub "
         "level to the water over its square. Over a piece: stunned 3 = misses 3 more of "
         "its own turns, Flame 1 = its Flame is ready after 1 more of its own turns; over "
         "your pieces, stealthy or submerged (R9). Air pieces are blue, Sub pieces green.")


class LegendPanel:
    """The legend, drawn in ``rect`` (left, right, bottom, top) of ``parent``."""

    def __init__(self, parent: Any, rect: tuple[float, float, float, float]) -> None:
        left, right, bottom, top = rect
        width = right - left
        self.frame = DirectFrame(parent=parent, frameColor=SOLID_PANEL, pos=(left, 0, top),
                                 frameSize=(0, width, -(top - bottom), 0), state=DGG.NORMAL)
        self.frame.setName("legend-panel")
        OnscreenText(parent=self.frame, text="Legend (G)", pos=(0.03, -0.055), scale=0.04,
                     fg=ACCENT, align=TextNode.ALeft)
        badges = self.frame.attachNewNode("legend-badges")
        plain(badges)
        column = width / 2
        y = -0.115
        kinds = list(BADGES)
        for index, kind in enumerate(kinds):
            col, row = divmod(index, (len(kinds) + 1) // 2)
            x = 0.045 + col * column
            icon = badge(kind, flat=False)
            icon.reparentTo(badges)
            icon.setScale(0.05)
            icon.setPos(x, 0, y - row * 0.052 + 0.01)
            OnscreenText(parent=self.frame, text=article_name(kind), pos=(x + 0.04, y - row
                                                                          * 0.052),
                         scale=0.028, fg=TEXT, align=TextNode.ALeft)
        y -= 0.052 * ((len(kinds) + 1) // 2) + 0.01
        note = OnscreenText(parent=self.frame, text=CATEGORY_TEXT, pos=(0.03, y), scale=0.026,
                            fg=DIM, align=TextNode.ALeft, wordwrap=(width - 0.06) / 0.026)
        y -= 0.03 * _lines(note) + 0.02
        for side in (Side.BLACK, Side.WHITE):
            x = 0.03
            OnscreenText(parent=self.frame, text=f"{side.title}:", pos=(x, y), scale=0.028,
                         fg=TEXT, align=TextNode.ALeft)
            x += 0.13
            for level, name in ((AIR, "Air"), (GROUND, "Ground"), (SUB, "Sub")):
                _swatch(self.frame, x, y, PIECE_COLOURS[(side, level)], "square")
                OnscreenText(parent=self.frame, text=name, pos=(x + 0.035, y), scale=0.028,
                             fg=TEXT, align=TextNode.ALeft)
                x += 0.19
            y -= 0.045
        for shape, colour, text in MARKS:
            _swatch(self.frame, 0.045, y, colour, shape)
            OnscreenText(parent=self.frame, text=text, pos=(0.085, y), scale=0.027, fg=TEXT,
                         align=TextNode.ALeft)
            y -= 0.042
        OnscreenText(parent=self.frame, text=NOTES, pos=(0.03, y - 0.005), scale=0.026,
                     fg=DIM, align=TextNode.ALeft, wordwrap=(width - 0.06) / 0.026)

    def destroy(self) -> None:
        self.frame.destroy()


def _lines(text: OnscreenText) -> int:
    node = text.textNode
    return max(1, int(node.getNumRows()))


def _swatch(parent: Any, x: float, y: float, colour: Colour, shape: str) -> NodePath:
    maker = CardMaker("swatch")
    maker.setFrame(-0.015, 0.015, -0.005, 0.025)
    card: NodePath = parent.attachNewNode(maker.generate())
    card.setPos(x, 0, y)
    card.setColor(*colour)
    if shape == "corners":
        card.setColor(0.08, 0.09, 0.11, 1.0)
        inner = parent.attachNewNode(CardMaker("corner").generate())
        inner.setScale(0.012)
        inner.setPos(x - 0.016, 0, y - 0.006)
        inner.setColor(*colour)
        other = parent.attachNewNode(CardMaker("corner").generate())
        other.setScale(0.012)
        other.setPos(x + 0.004, 0, y + 0.014)
        other.setColor(*colour)
    return card
