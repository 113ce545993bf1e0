"""What the board screens (play, editor, replay) share: their 2D parts (status bar,
message line, buttons, chooser, panels) and the start of their frame task.

Plain DirectGui widgets in one look (dark translucent panels, light text, yellow
accent). Each widget is small and owns its nodes; ``destroy`` removes them all.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal

from direct.gui.DirectGui import DGG, DirectButton, DirectFrame, DirectLabel
from direct.gui.OnscreenText import OnscreenText
from direct.showbase import ShowBaseGlobal
from direct.task.Task import Task
from direct.task.TaskManagerGlobal import taskMgr
from panda3d.core import (
    CardMaker,
    MouseButton,
    NodePath,
    PGButton,
    TextNode,
    TextProperties,
    TextPropertiesManager,
    TransparencyAttrib,
)

from wec.client.camera import OrbitCamera
from wec.client.scene import BoardScene, screen_polygon
from wec.client.shading import Shading

Colour = tuple[float, float, float, float]
# A TextNode alignment: ALeft, ARight, ACenter, ABoxedLeft, ABoxedRight, ABoxedCenter.
Alignment = Literal[0, 1, 2, 3, 4, 5]

PANEL = (0.05, 0.06, 0.08, 0.62)
SOLID_PANEL = (0.06, 0.07, 0.09, 1.0)  # opaque panels: nothing shows through, no blending
DIM = (0.62, 0.63, 0.66, 1.0)
SELECTED_ROW = (0.42, 0.34, 0.08, 0.95)
HOVER_BOX = (0.12, 0.12, 0.16, 0.97)  # a line shown whole under the pointer
PLAIN_ROW = (0.0, 0.0, 0.0, 0.0)
# The wheel over a widget (DirectGui names only the mouse buttons' events).
WHEEL_UP = PGButton.getPressPrefix() + MouseButton.wheelUp().getName() + "-"
WHEEL_DOWN = PGButton.getPressPrefix() + MouseButton.wheelDown().getName() + "-"
TEXT = (0.93, 0.93, 0.90, 1.0)
ACCENT = (1.0, 0.86, 0.25, 1.0)
REFUSAL = (1.0, 0.45, 0.40, 1.0)
BUTTON = (0.18, 0.20, 0.26, 0.95)
BUTTON_SCALE = 0.045
# a skinned button's label keeps this much of the frame free on each side (label units),
# and a label drawn smaller keeps its middle this high above its baseline (label units)
LABEL_MARGIN = 0.3
LABEL_MIDDLE = 0.3
BUTTON_COLOURS = (BUTTON, (0.28, 0.30, 0.38, 1), (0.24, 0.26, 0.34, 1), (0.12, 0.12, 0.14, 0.6))


def button(parent: Any, text: str, command: Callable[..., Any], pos: tuple[float, float],
           width: float = 5.2, args: Sequence[Any] = (), name: str = "") -> DirectButton:
    """A flat button of the common look; ``name`` lets tests find it."""
    made = DirectButton(parent=parent, text=text, command=command, extraArgs=list(args),
                        pos=(pos[0], 0, pos[1]), scale=BUTTON_SCALE,
                        text_fg=TEXT, text_align=TextNode.ACenter,
                        frameColor=BUTTON_COLOURS,
                        frameSize=(-width / 2, width / 2, -0.45, 0.95),
                        relief=DGG.FLAT, pressEffect=True)
    made.setName(name or f"button-{text}")
    fit_label(made)
    return made


def arrow_button(parent: Any, up: bool, command: Callable[..., Any],
                 pos: tuple[float, float], width: float, args: Sequence[Any] = (),
                 name: str = "") -> DirectButton:
    """A scroll button drawn as a triangle pointing up or down: the font's "^" and "v"
    made a pair of unlike sizes and heights."""
    made = button(parent, "", command, pos, width=width, args=args, name=name)
    made["geom"] = _triangle(up)
    return made


def _triangle(up: bool) -> NodePath:
    """A small filled triangle in button units (the frame runs from -0.45 to 0.95)."""
    low, high = 0.0, 0.55
    corners = [(-0.38, low), (0.38, low), (0.0, high)] if up else \
        [(-0.38, high), (0.0, low), (0.38, high)]
    path = NodePath(screen_polygon(corners))
    path.setName("arrow-up" if up else "arrow-down")
    path.setColor(*TEXT)
    path.setTwoSided(True)
    return path


def fit_label(made: Any) -> None:
    """Draw a button's label smaller where it would not fit the frame with its margins
    (call again after its text changes): "Restore standard defaults" ran past its frame
    on the options screen."""
    if not made["text"]:
        return
    left, right = made["frameSize"][0], made["frameSize"][1]
    label = made.component("text0")
    label.setScale(1.0)
    label.setPos(0.0, 0.0)
    shrink = _shrink(float(label.textNode.getWidth()), right - left)
    if shrink < 1:
        label.setScale(shrink)
        label.setPos(0.0, LABEL_MIDDLE * (1 - shrink))


def _shrink(wide: float, frame: float) -> float:
    """How much smaller a label ``wide`` (label units) is drawn to fit a frame ``frame``
    wide with its margins: 1 when it fits."""
    room = frame - 2 * LABEL_MARGIN
    return 1.0 if wide <= room else room / wide


class ButtonSkin:
    """The look of many buttons drawn as one flattened mesh (a frame and a label each),
    rebuilt only when a button's look changes. On a software renderer every widget
    drawn costs about 0.1-0.2 ms a frame; a skinned button is an invisible DirectButton
    (the click area, the same frame, its events and name) under one shared picture, so
    twenty buttons cost one or two draws. A translucent card marks the button under the
    pointer, as DirectGui's rollover did."""

    def __init__(self, parent: Any) -> None:
        self.root = parent.attachNewNode("button-skin")
        self.picture: NodePath | None = None
        self.buttons: list[SkinnedButton] = []
        self.dirty = True
        maker = CardMaker("button-hover")
        maker.setFrame(-0.5, 0.5, -0.5, 0.5)
        self.hover = parent.attachNewNode(maker.generate())
        self.hover.setColor(1, 1, 1, 0.10)
        self.hover.setTransparency(TransparencyAttrib.MAlpha)
        self.hover.hide()
        self.hovered: SkinnedButton | None = None

    def mark(self) -> None:
        self.dirty = True

    def refresh(self) -> None:
        """Draw the buttons' looks again if any changed (called every frame)."""
        if not self.dirty:
            return
        self.dirty = False
        if self.picture is not None:
            self.picture.removeNode()
        picture = self.root.attachNewNode("buttons")
        for made in self.buttons:
            if made.isHidden():
                continue
            made.draw(picture)
        picture.flattenStrong()
        self.picture = picture
        if self.hovered is not None and self.hovered.isHidden():
            self.leave(self.hovered)

    def enter(self, made: SkinnedButton) -> None:
        if str(made["state"]) == DGG.DISABLED:
            return
        self.hovered = made
        left, right, bottom, top = made.area()
        self.hover.setPos((left + right) / 2, 0, (bottom + top) / 2)
        self.hover.setScale(right - left, 1, top - bottom)
        self.hover.show()

    def leave(self, made: SkinnedButton) -> None:
        if self.hovered is made:
            self.hovered = None
            self.hover.hide()

    def destroy(self) -> None:
        for made in list(self.buttons):
            made.destroy()
        self.root.removeNode()
        self.hover.removeNode()


class SkinnedButton:
    """A button drawn by a ButtonSkin: used like a DirectButton (``made["text"]``,
    ``["frameColor"]``, ``["text_fg"]``, ``["state"]``, show, hide, setPos)."""

    def __init__(self, skin: ButtonSkin, parent: Any, text: str, command: Callable[..., Any],
                 pos: tuple[float, float], width: float, args: Sequence[Any] = (),
                 name: str = "") -> None:
        self.skin = skin
        self.width = width
        self.look: dict[str, Any] = {"text": text, "frameColor": BUTTON_COLOURS,
                                     "text_fg": TEXT}
        self.widget = DirectButton(parent=parent, text="", command=command,
                                   extraArgs=list(args), pos=(pos[0], 0, pos[1]),
                                   scale=BUTTON_SCALE, relief=None,
                                   frameSize=(-width / 2, width / 2, -0.45, 0.95))
        self.widget.setName(name or f"button-{text}")
        self.widget.bind(DGG.ENTER, lambda _event: skin.enter(self))
        self.widget.bind(DGG.EXIT, lambda _event: skin.leave(self))
        skin.buttons.append(self)
        skin.mark()

    def __getitem__(self, key: str) -> Any:
        if key == "state":
            return self.widget["state"]
        return self.look[key]

    def __setitem__(self, key: str, value: Any) -> None:
        if key == "state":
            if self.widget["state"] != value:
                self.widget["state"] = value
                self.skin.mark()
            return
        if self.look.get(key) != value:
            self.look[key] = value
            self.skin.mark()

    def area(self) -> tuple[float, float, float, float]:
        """The button's frame in its parent's units."""
        x, _, z = self.widget.getPos()
        half = self.width / 2 * BUTTON_SCALE
        return (x - half, x + half, z - 0.45 * BUTTON_SCALE, z + 0.95 * BUTTON_SCALE)

    def draw(self, into: NodePath) -> None:
        left, right, bottom, top = self.area()
        colours = self.look["frameColor"]
        disabled = str(self.widget["state"]) == DGG.DISABLED
        colour = colours[3] if disabled and len(colours) > 3 else colours[0]
        maker = CardMaker("frame")
        maker.setFrame(left, right, bottom, top)
        frame = into.attachNewNode(maker.generate())
        frame.setColor(*colour)
        if colour[3] < 1:
            frame.setTransparency(TransparencyAttrib.MAlpha)
        label = self._label()
        label.setTextColor(*self.look["text_fg"])
        text = into.attachNewNode(label.generate())
        scale = self._label_scale(label)
        text.setScale(scale)
        x, _, z = self.widget.getPos()
        text.setPos(x, 0, z + LABEL_MIDDLE * (BUTTON_SCALE - scale))

    def _label(self) -> TextNode:
        label = TextNode("label")
        label.setText(str(self.look["text"]))
        label.setAlign(TextNode.ACenter)
        return label

    def _label_scale(self, label: TextNode) -> float:
        """The label's scale: the buttons' own, or smaller for a label that would not
        fit the frame with its margins (a narrow window: "View (Shift+1)" ran past the
        right edge of a 1024 x 768 one)."""
        return BUTTON_SCALE * _shrink(float(label.getWidth()), self.width)

    def label_area(self) -> tuple[float, float, float, float]:
        """Where the label is drawn, in its parent's units (left, right, bottom, top)."""
        label = self._label()
        scale = self._label_scale(label)
        x, _, z = self.widget.getPos()
        z += LABEL_MIDDLE * (BUTTON_SCALE - scale)
        return (x + scale * float(label.getLeft()), x + scale * float(label.getRight()),
                z + scale * float(label.getBottom()), z + scale * float(label.getTop()))

    def show(self) -> None:
        self.widget.show()
        self.skin.mark()

    def hide(self) -> None:
        self.widget.hide()
        self.skin.mark()

    def isHidden(self) -> bool:
        return bool(self.widget.isHidden())

    def setPos(self, *pos: float) -> None:
        self.widget.setPos(*pos)
        self.skin.mark()

    def getName(self) -> str:
        return str(self.widget.getName())

    def destroy(self) -> None:
        if self in self.skin.buttons:
            self.skin.buttons.remove(self)
            self.skin.mark()
        self.widget.destroy()


class Chooser:
    """A list of choices (a square with several pieces, a Move with or without its
    passenger, an aim with several paths): centred, or filling ``rect`` (left, right,
    bottom, top) when given, as the play screen's left column does."""

    def __init__(self, parent: Any, prompt: str, labels: Sequence[str],
                 on_pick: Callable[[int], None], on_cancel: Callable[[], None],
                 rect: tuple[float, float, float, float] | None = None) -> None:
        if rect is None:
            height = 0.16 + 0.085 * (len(labels) + 1)
            rect = (-0.62, 0.62, -height / 2, height / 2)
            wide = 24.0
        else:
            wide = (rect[1] - rect[0] - 0.06) / BUTTON_SCALE
        left, right, bottom, top = rect
        self.frame = DirectFrame(parent=parent, frameColor=SOLID_PANEL, state=DGG.NORMAL,
                                 frameSize=(left, right, bottom, top))
        self.frame.setName("chooser")
        middle = (left + right) / 2
        chars = int((right - left) / 0.05 * 1.9)
        OnscreenText(parent=self.frame, text=prompt, pos=(middle, top - 0.07), scale=0.04,
                     fg=ACCENT, wordwrap=(right - left - 0.04) / 0.04)
        room = max(1, int((top - bottom - 0.25) / 0.075))
        shown = list(labels)[:room]
        self.buttons = [
            button(self.frame, shorten(label, chars), on_pick,
                   (middle, top - 0.17 - 0.075 * i), width=wide, args=[i], name=f"choice-{i}")
            for i, label in enumerate(shown)]
        self.buttons.append(button(self.frame, "Cancel (Esc)", lambda: on_cancel(),
                                   (middle, top - 0.17 - 0.075 * len(shown)), width=10,
                                   name="choice-cancel"))

    def destroy(self) -> None:
        self.frame.destroy()


class ListPanel:
    """A titled panel of text lines (history, selected piece, actions)."""

    def __init__(self, parent: Any, title: str, pos: tuple[float, float],
                 size: tuple[float, float], lines: int = 12) -> None:
        width, height = size
        self.frame = DirectFrame(parent=parent, frameColor=PANEL, pos=(pos[0], 0, pos[1]),
                                 frameSize=(0, width, -height, 0))
        self.title = OnscreenText(parent=self.frame, text=title, pos=(0.03, -0.06),
                                  scale=0.042, fg=ACCENT, align=TextNode.ALeft)
        self.body = OnscreenText(parent=self.frame, text="", pos=(0.03, -0.12), scale=0.034,
                                 fg=TEXT, align=TextNode.ALeft, mayChange=True,
                                 wordwrap=width / 0.034 - 1)
        self.lines = lines

    def set_lines(self, lines: Sequence[str]) -> None:
        self.body.setText("\n".join(list(lines)[-self.lines:]))

    def text(self) -> str:
        return str(self.body.getText())

    def destroy(self) -> None:
        self.frame.destroy()


def shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."


def coloured(text: str, colour: Colour) -> str:
    """``text`` in ``colour`` inside a longer text (TextNode's embedded properties)."""
    name = "wec-" + "-".join(f"{c:.3f}" for c in colour)
    manager = TextPropertiesManager.getGlobalPtr()
    if not manager.hasProperties(name):
        properties = TextProperties()
        properties.setTextColor(*colour)
        manager.setProperties(name, properties)
    return f"\1{name}\1{text}\2"


# a ScrollList's title: where it starts, its scale, and the room its arrows take at the
# right (frame units)
TITLE_LEFT = 0.03
TITLE_SCALE = 0.04
ARROWS_WIDTH = 0.2


class ScrollList:
    """A titled panel showing ``rows`` lines of a longer list at a time: scrolled by the
    wheel over it or its arrows, each line clickable (``on_pick`` gets the row's index
    in the whole list), the ``current`` row highlighted. ``text_of`` and ``colour_of``
    give a row's text and colour; ``set_count`` tells the list how many rows exist.
    The lines are one text (each in its colour) over invisible click areas, and the
    highlight one card: a handful of draws however many lines show."""

    def __init__(self, parent: Any, title: str, rect: tuple[float, float, float, float],
                 text_of: Callable[[int], str], on_pick: Callable[[int], None] | None,
                 name: str, scale: float = 0.032, spacing: float = 0.05,
                 colour_of: Callable[[int], Colour] | None = None,
                 frame_colour: Colour = SOLID_PANEL) -> None:
        left, right, bottom, top = rect
        width = right - left
        self.text_of = text_of
        self.colour_of = colour_of
        self.on_pick = on_pick
        self.count = 0
        self.top = 0
        self.current: int | None = None
        # the rows are the lines of one text: as far apart as the font sets its lines
        spacing = scale * float(TextNode("measure").getLineHeight())
        self.spacing = spacing
        self.rows = max(1, int((top - bottom - 0.1) / spacing))
        self.chars = max(12, int(width / (scale * 0.52)))
        self.frame = DirectFrame(parent=parent, frameColor=frame_colour, pos=(left, 0, top),
                                 frameSize=(0, width, -(top - bottom), 0), state=DGG.NORMAL)
        self.frame.setName(name)
        # the title keeps clear of the arrows (a narrow window: "Moves (click to look
        # back)" ran under them in a 1024 x 768 one)
        room = width - TITLE_LEFT - ARROWS_WIDTH
        wide = TITLE_SCALE * float(TextNode("measure").calcWidth(title))
        self.title = OnscreenText(parent=self.frame, text=title, pos=(TITLE_LEFT, -0.055),
                                  scale=TITLE_SCALE * min(1.0, room / wide) if wide else
                                  TITLE_SCALE, fg=ACCENT, align=TextNode.ALeft,
                                  mayChange=True)
        maker = CardMaker(f"{name}-current")
        maker.setFrame(0.01, width - 0.01, -0.45 * scale, 1.05 * scale)
        self.highlight = self.frame.attachNewNode(maker.generate())
        self.highlight.setColor(*SELECTED_ROW)
        self.highlight.hide()
        self.lines = OnscreenText(parent=self.frame, text="", pos=(0.025, -0.115),
                                  scale=scale, fg=TEXT, align=TextNode.ALeft, mayChange=True)
        self.texts: list[str] = []
        self.full: list[str] = []  # the same lines uncut
        self.scale = scale
        # a line cut to the panel's width is shown whole under the pointer
        maker = CardMaker(f"{name}-whole")
        maker.setFrame(0.01, width - 0.01, -1.0, 0.0)  # scaled to the lines it holds
        self.whole_card = self.frame.attachNewNode(maker.generate())
        self.whole_card.setColor(*HOVER_BOX)
        self.whole_card.setBin("gui-popup", 49)
        self.whole_card.hide()
        self.whole = OnscreenText(parent=self.frame, text="", scale=scale, fg=TEXT,
                                  align=TextNode.ALeft, mayChange=True,
                                  wordwrap=(width - 0.06) / scale)
        self.whole.setBin("gui-popup", 50)
        self.whole.hide()
        self._hover_task = f"{name}-hover-{id(self)}"
        self.frame.bind(DGG.WITHIN, lambda _event: self._start_hover())
        self.frame.bind(DGG.WITHOUT, lambda _event: self._stop_hover())
        # One click area for every line (the row is read from where the click falls):
        # one widget instead of one per line, quicker to build and to draw.
        self.frame.bind(DGG.B1PRESS, self._clicked)
        self._wheel(self.frame)
        self.up = arrow_button(self.frame, True, self.scroll, (width - 0.15, -0.045), 1.8,
                               args=[-max(1, self.rows // 2)], name=f"{name}-up")
        self.down = arrow_button(self.frame, False, self.scroll, (width - 0.06, -0.045),
                                 1.8, args=[max(1, self.rows // 2)], name=f"{name}-down")

    def _wheel(self, widget: Any) -> None:
        widget.bind(WHEEL_UP, lambda _event: self.scroll(-3))
        widget.bind(WHEEL_DOWN, lambda _event: self.scroll(3))

    def row_point(self, slot: int) -> tuple[float, float]:
        """The middle of line ``slot`` (0: the top line shown), in the frame's units."""
        return (self.frame["frameSize"][1] / 2, -0.115 - self.spacing * slot
                + 0.3 * self.scale)

    def slot_at(self, z: float) -> int | None:
        """The line shown at height ``z`` (the frame's units), None above or below."""
        slot = int((-0.115 + 1.05 * self.scale - z) // self.spacing)
        return slot if 0 <= slot < min(self.rows, self.count - self.top) else None

    def _clicked(self, event: Any) -> None:
        from panda3d.core import Point3

        mouse = event.getMouse()  # render2d units (-1..1 across the window)
        local = self.frame.getRelativePoint(self.frame.getTop(), Point3(mouse.x, 0, mouse.y))
        slot = self.slot_at(local.z)
        if slot is not None:
            self._pick(slot)

    def _start_hover(self) -> None:
        taskMgr.remove(self._hover_task)
        taskMgr.add(self._hover, self._hover_task)

    def _stop_hover(self) -> None:
        taskMgr.remove(self._hover_task)
        self.show_whole(None)

    def _hover(self, task: Any) -> Any:
        watcher = ShowBaseGlobal.base.mouseWatcherNode
        if self.frame.isEmpty() or watcher is None or not watcher.hasMouse():
            self.show_whole(None)
            return task.cont
        from panda3d.core import Point3

        mouse = watcher.getMouse()
        local = self.frame.getRelativePoint(self.frame.getTop(), Point3(mouse.x, 0, mouse.y))
        self.show_whole(self.slot_at(local.z))
        return task.cont

    def show_whole(self, slot: int | None) -> None:
        """Show line ``slot`` (from the top shown) whole under itself when the panel's
        width cut it ("Doze: choose the squares on th..." in a narrow window), else
        nothing."""
        if slot is None or slot >= len(self.full) or self.full[slot] == self.texts[slot]:
            self.whole.hide()
            self.whole_card.hide()
            return
        whole = self.full[slot].strip()
        if self.whole.getText() != whole:
            self.whole.setText(whole)
        baseline = -0.115 - self.spacing * (slot + 1)
        self.whole.setPos(0.025, baseline)
        lines = max(1, self.whole.textNode.getNumRows())
        self.whole_card.setPos(0, 0, baseline + 0.8 * self.scale)
        self.whole_card.setSz(self.spacing * (lines - 1) + 1.15 * self.scale)
        self.whole_card.show()
        self.whole.show()

    def whole_text(self) -> str:
        """The line shown whole under the pointer ("" when none is)."""
        return "" if self.whole.isHidden() else str(self.whole.getText())

    def _pick(self, slot: int) -> None:
        if self.on_pick is not None and self.top + slot < self.count:
            self.on_pick(self.top + slot)

    def set_count(self, count: int, follow_end: bool = False) -> None:
        """``count`` rows exist now; ``follow_end`` scrolls to the last one."""
        self.count = count
        most = max(0, count - self.rows)
        self.top = most if follow_end else min(self.top, most)
        self.refresh()

    def scroll(self, lines: int) -> None:
        most = max(0, self.count - self.rows)
        self.top = max(0, min(most, self.top + lines))
        self.refresh()

    def follow(self, current: int | None) -> None:
        """Highlight row ``current`` (None: none) and scroll it into view."""
        self.current = current
        if current is not None and not self.top <= current < self.top + self.rows:
            self.top = max(0, min(max(0, self.count - self.rows), current - self.rows // 2))
        self.refresh()

    def refresh(self) -> None:
        texts: list[str] = []
        fulls: list[str] = []
        shown: list[str] = []
        for slot in range(self.rows):
            index = self.top + slot
            if index >= self.count:
                break
            whole = self.text_of(index)
            text = shorten(whole, self.chars)
            texts.append(text)
            fulls.append(whole)
            selected = index == self.current
            colour = ACCENT if selected else (
                self.colour_of(index) if self.colour_of is not None else TEXT)
            shown.append(coloured(text, colour))
        self.texts, self.full = texts, fulls
        self.show_whole(None)
        joined = "\n".join(shown)
        if self.lines.getText() != joined:
            self.lines.setText(joined)
        slot = -1 if self.current is None else self.current - self.top
        if 0 <= slot < len(texts):
            self.highlight.setPos(0, 0, -0.115 - self.spacing * slot)
            self.highlight.show()
        else:
            self.highlight.hide()

    def visible_texts(self) -> list[str]:
        return list(self.texts)

    def destroy(self) -> None:
        taskMgr.remove(self._hover_task)
        self.frame.destroy()


class Tooltip:
    """A small box of text that follows a widget while the pointer is over it."""

    def __init__(self, parent: Any) -> None:
        self.box = OnscreenText(parent=parent, text="", scale=0.034, fg=TEXT,
                                bg=(0.12, 0.12, 0.16, 0.97), align=TextNode.ALeft,
                                mayChange=True, wordwrap=30)
        self.box.setBin("gui-popup", 50)
        self.box.hide()

    def attach(self, widget: Any, text: str) -> None:
        """Show ``text`` by ``widget`` (which must be a DirectGui widget in NORMAL state)
        while the pointer is over it."""
        widget.bind(DGG.ENTER, lambda _event: self.show(widget, text))
        widget.bind(DGG.EXIT, lambda _event: self.hide())

    def show(self, widget: Any, text: str) -> None:
        self.box.setText(text)
        point = self.box.getParent().getRelativePoint(widget, (0, 0, 0))
        self.box.setPos(point.x + 0.05, point.z - 0.07)
        self.box.show()

    def text(self) -> str:
        return "" if self.box.isHidden() else str(self.box.getText())

    def hide(self) -> None:
        self.box.hide()

    def destroy(self) -> None:
        self.box.destroy()


class Banner:
    """A large centred message with buttons (hand-over between players, game over)."""

    def __init__(self, parent: Any, title: str, text: str,
                 buttons: Sequence[tuple[str, Callable[[], None]]], name: str) -> None:
        self.frame = DirectFrame(parent=parent, frameColor=(0.02, 0.03, 0.05, 0.93),
                                 frameSize=(-2.5, 2.5, -1.2, 1.2))
        self.frame.setName(name)
        OnscreenText(parent=self.frame, text=title, pos=(0, 0.25), scale=0.11, fg=ACCENT)
        detail = OnscreenText(parent=self.frame, text=text, pos=(0, 0.1), scale=0.05,
                              fg=TEXT, wordwrap=30)
        # the buttons below the text as it wraps (a long verdict or dispute must not run
        # under them): its last line's baseline, a descender and a gap
        node = detail.textNode
        bottom = 0.1 - (max(1, node.getNumRows()) - 1) * node.getLineHeight() * 0.05 - 0.02
        top = min(-0.15, bottom - 0.07)
        for index, (label, action) in enumerate(buttons):
            button(self.frame, label, action, (0, top - index * 0.11), width=12,
                   name=f"banner-{index}")

    def destroy(self) -> None:
        self.frame.destroy()


def label(parent: Any, text: str, pos: tuple[float, float], scale: float = 0.045,
          colour: Colour = TEXT, align: Alignment = TextNode.ALeft) -> DirectLabel:
    made = DirectLabel(parent=parent, text=text, pos=(pos[0], 0, pos[1]), scale=scale,
                       text_fg=colour, text_align=align, frameColor=(0, 0, 0, 0))
    return made


def follow_view(base: Any, camera: OrbitCamera, scene: BoardScene, shading: Shading,
                task: Task) -> float:
    """The start of a board screen's frame task: the camera moves on by the frame's
    time (1/60 s where ``base`` has no clock), the rank and file numbers turn to read
    from its side, and the lighting's pulse follows the task's clock. Returns the
    frame's time."""
    dt: float = base.clock.getDt() if hasattr(base, "clock") else 1 / 60
    camera.update(dt)
    scene.face_labels(camera.orbit.heading)
    shading.update(task.time)
    return dt
