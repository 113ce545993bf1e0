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
from direct.task.Task import Task
from panda3d.core import TextNode

from wec.client.camera import OrbitCamera
from wec.client.scene import BoardScene
from wec.client.shading import Shading

Colour = tuple[float, float, float, float]
# A TextNode alignment: ALeft, ARight, ACenter, ABoxedLeft, ABoxedRight, ABoxedCenter.
Alignment = Literal[0, 1, 2, 3, 4, 5]

PANEL = (0.05, 0.06, 0.08, 0.62)
TEXT = (0.93, 0.93, 0.90, 1.0)
ACCENT = (1.0, 0.86, 0.25, 1.0)
REFUSAL = (1.0, 0.45, 0.40, 1.0)
BUTTON = (0.18, 0.20, 0.26, 0.95)
BUTTON_SCALE = 0.045


def button(parent: Any, text: str, command: Callable[..., Any], pos: tuple[float, float],
           width: float = 5.2, args: Sequence[Any] = (), name: str = "") -> DirectButton:
    """A flat button of the common look; ``name`` lets tests find it."""
    made = DirectButton(parent=parent, text=text, command=command, extraArgs=list(args),
                        pos=(pos[0], 0, pos[1]), scale=BUTTON_SCALE,
                        text_fg=TEXT, text_align=TextNode.ACenter,
                        frameColor=(BUTTON, (0.28, 0.30, 0.38, 1), (0.24, 0.26, 0.34, 1),
                                    (0.12, 0.12, 0.14, 0.6)),
                        frameSize=(-width / 2, width / 2, -0.45, 0.95),
                        relief=DGG.FLAT, pressEffect=True)
    made.setName(name or f"button-{text}")
    return made


class Chooser:
    """A centred list of choices (a square with several pieces, a Move with or
    without its passenger, an aim with several paths)."""

    def __init__(self, parent: Any, prompt: str, labels: Sequence[str],
                 on_pick: Callable[[int], None], on_cancel: Callable[[], None]) -> None:
        height = 0.16 + 0.085 * (len(labels) + 1)
        self.frame = DirectFrame(parent=parent, frameColor=PANEL,
                                 frameSize=(-0.62, 0.62, -height / 2, height / 2))
        self.frame.setName("chooser")
        top = height / 2 - 0.08
        OnscreenText(parent=self.frame, text=prompt, pos=(0, top), scale=0.05, fg=ACCENT)
        self.buttons = [
            button(self.frame, label, on_pick, (0, top - 0.09 * (i + 1)), width=24,
                   args=[i], name=f"choice-{i}")
            for i, label in enumerate(labels)]
        self.buttons.append(button(self.frame, "Cancel (Esc)", lambda: on_cancel(),
                                   (0, top - 0.09 * (len(labels) + 1)), width=10,
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


class ActionsPanel:
    """The Actions menu: one button per legal Pick-up, Drop, Exchange, Reinforce and
    Doze of the side to act, grouped, as the engine lists them."""

    def __init__(self, parent: Any, groups: Sequence[tuple[str, Sequence[str]]],
                 on_pick: Callable[[str, int], None], on_close: Callable[[], None]) -> None:
        rows = sum(max(1, len(items)) + 1 for _, items in groups) + 1
        rows = min(rows, 22)
        height = 0.1 + 0.07 * rows
        self.frame = DirectFrame(parent=parent, frameColor=PANEL,
                                 frameSize=(-0.8, 0.8, -height / 2, height / 2))
        self.frame.setName("actions-panel")
        y = height / 2 - 0.07
        self.buttons: list[DirectButton] = []
        shown = 0
        for group, items in groups:
            OnscreenText(parent=self.frame, text=group, pos=(-0.76, y), scale=0.042, fg=ACCENT,
                         align=TextNode.ALeft)
            y -= 0.07
            if not items:
                OnscreenText(parent=self.frame, text="none legal now", pos=(-0.7, y),
                             scale=0.036, fg=(0.6, 0.6, 0.6, 1), align=TextNode.ALeft)
                y -= 0.07
            for index, label in enumerate(items):
                if shown >= 18:
                    break
                self.buttons.append(button(self.frame, label, on_pick, (0, y), width=34,
                                           args=[group, index], name=f"action-{group}-{index}"))
                shown += 1
                y -= 0.07
        self.buttons.append(button(self.frame, "Close (Esc)", lambda: on_close(),
                                   (0, -height / 2 + 0.05), width=10, name="actions-close"))

    def destroy(self) -> None:
        self.frame.destroy()


class Banner:
    """A large centred message with buttons (hand-over between players, game over)."""

    def __init__(self, parent: Any, title: str, text: str,
                 buttons: Sequence[tuple[str, Callable[[], None]]], name: str) -> None:
        self.frame = DirectFrame(parent=parent, frameColor=(0.02, 0.03, 0.05, 0.93),
                                 frameSize=(-2.5, 2.5, -1.2, 1.2))
        self.frame.setName(name)
        OnscreenText(parent=self.frame, text=title, pos=(0, 0.25), scale=0.11, fg=ACCENT)
        OnscreenText(parent=self.frame, text=text, pos=(0, 0.1), scale=0.05, fg=TEXT,
                     wordwrap=30)
        for index, (label, action) in enumerate(buttons):
            button(self.frame, label, action, (0, -0.15 - index * 0.11), width=12,
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
