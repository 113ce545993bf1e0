"""The main menu, the new-game options screen and the settings screen.

The options screen offers every option of R13 (from ``engine.options.option_specs``),
each side's government and the movement system; the engine validates the choice and
its one-line refusal (naming the option and its allowed values) is shown in place.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from direct.gui.DirectGui import DGG, DirectCheckButton, DirectFrame, DirectOptionMenu
from direct.gui.OnscreenText import OnscreenText
from panda3d.core import TextNode

from client.hud import ACCENT, PANEL, REFUSAL, TEXT, button
from client.settings import ANIMATION_SPEEDS, DETAILS, PALETTE_NAMES, Settings
from engine.errors import WecError
from engine.options import Options, option_specs, options_from_dict, options_to_dict

TITLE = "WEAPONIZED CHESS"

_LABELS = {"sam": "SAM", "mdc": "MDC", "aaa": "AAA", "xxx": "XXX"}


def option_title(name: str, oid: str) -> str:
    """``O6 Tank range``: an option as the screen names it."""
    words = name.split("_")
    return f"{oid} " + " ".join(_LABELS.get(w, w) for w in words).capitalize().replace(
        " sam", " SAM").replace(" xxx", " XXX").replace("Mdc", "MDC")


class Screen:
    """A full-screen page of widgets under one frame."""

    def __init__(self, base: Any, name: str) -> None:
        self.base = base
        self.frame = DirectFrame(parent=base.aspect2d, frameColor=(0.03, 0.04, 0.06, 1.0),
                                 frameSize=(-3, 3, -1.5, 1.5))
        self.frame.setName(name)
        base.setBackgroundColor(0.03, 0.04, 0.06, 1)

    def destroy(self) -> None:
        self.frame.destroy()


class MainMenu(Screen):
    """New hotseat game, open a file, settings, quit."""

    def __init__(self, base: Any, actions: dict[str, Callable[[], None]],
                 notice: str = "") -> None:
        super().__init__(base, "main-menu")
        OnscreenText(parent=self.frame, text=TITLE, pos=(0, 0.62), scale=0.14, fg=ACCENT)
        OnscreenText(parent=self.frame, text="chess on a three-level battlefield",
                     pos=(0, 0.5), scale=0.05, fg=TEXT)
        entries = [("New hotseat game", "new"), ("Continue game", "continue"),
                   ("Load game", "load"), ("Settings", "settings"), ("Quit", "quit")]
        y = 0.25
        for text, key in entries:
            if key not in actions:
                continue
            button(self.frame, text, actions[key], (0, y), width=12, name=f"menu-{key}")
            y -= 0.13
        self.notice = OnscreenText(parent=self.frame, text=notice, pos=(0, -0.75), scale=0.045,
                                   fg=REFUSAL, wordwrap=40)


class LoadScreen(Screen):
    """The saved games, newest first; a click resumes one."""

    def __init__(self, base: Any, saves: list[Path], on_open: Callable[[Path], Any],
                 on_back: Callable[[], None]) -> None:
        super().__init__(base, "load-game")
        OnscreenText(parent=self.frame, text="Load game", pos=(0, 0.7), scale=0.08, fg=ACCENT)
        for index, path in enumerate(saves):
            button(self.frame, path.stem, on_open, (0, 0.5 - index * 0.11), width=24,
                   args=[path], name=f"save-{index}")
        button(self.frame, "Back", on_back, (0, -0.6), width=8, name="back")


class NewGameScreen(Screen):
    """Every R13 option with its allowed values; Start validates through the engine."""

    def __init__(self, base: Any, on_start: Callable[[Options], None],
                 on_back: Callable[[], None]) -> None:
        super().__init__(base, "new-game")
        self.on_start = on_start
        OnscreenText(parent=self.frame, text="New hotseat game", pos=(0, 0.88), scale=0.08,
                     fg=ACCENT)
        OnscreenText(parent=self.frame, text="Options (R13) — defaults are the standard game",
                     pos=(0, 0.8), scale=0.04, fg=TEXT)
        self.values: dict[str, Any] = options_to_dict(Options())
        self.widgets: dict[str, Any] = {}
        self._layout()
        self.error = OnscreenText(parent=self.frame, text="", pos=(0, -0.82), scale=0.042,
                                  fg=REFUSAL, wordwrap=60, mayChange=True)
        button(self.frame, "Start", self.start, (0.35, -0.92), width=8, name="start")
        button(self.frame, "Back", on_back, (-0.35, -0.92), width=8, name="back")

    def _layout(self) -> None:
        rows: list[tuple[str, str, str, tuple[Any, ...], str | None]] = []
        for name, oid, kind, allowed in option_specs():
            if kind == "government":
                rows.append((name, oid, kind, allowed, "black"))
                rows.append((name, oid, kind, allowed, "white"))
            elif kind == "rates":
                rows.extend((name, oid, kind, allowed, weapon) for weapon in allowed)
            else:
                rows.append((name, oid, kind, allowed, None))
        per_column = (len(rows) + 2) // 3
        for index, row in enumerate(rows):
            column, line = divmod(index, per_column)
            x = -1.62 + column * 1.1
            y = 0.7 - line * 0.0625
            self._field(row, x, y)

    def _field(self, row: tuple[str, str, str, tuple[Any, ...], str | None],
               x: float, y: float) -> None:
        name, oid, kind, allowed, part = row
        title = option_title(name, oid)
        if part is not None:
            title = f"{oid} {'Government' if kind == 'government' else 'Rate'} ({part})"
        OnscreenText(parent=self.frame, text=title, pos=(x, y), scale=0.032, fg=TEXT,
                     align=TextNode.ALeft)
        key = f"{name}.{part}" if part else name
        current = self.values[name][part] if part else self.values[name]
        if kind == "flag":
            widget = DirectCheckButton(parent=self.frame, pos=(x + 0.9, 0, y + 0.01),
                                       scale=0.035, indicatorValue=int(bool(current)),
                                       boxPlacement="right", frameColor=(0, 0, 0, 0),
                                       command=self._set_flag, extraArgs=[key])
        else:
            if kind == "range":
                choices = [str(v) for v in range(allowed[0], allowed[1] + 1)]
            elif kind == "rates":
                choices = [str(v) for v in range(1, 10)]
            else:
                choices = list(allowed)
            widget = DirectOptionMenu(parent=self.frame, pos=(x + 0.62, 0, y), scale=0.032,
                                      items=choices, initialitem=choices.index(str(current)),
                                      command=self._set_choice, extraArgs=[key, kind],
                                      text_fg=TEXT, frameColor=PANEL, relief=DGG.FLAT,
                                      highlightColor=(0.3, 0.3, 0.4, 1),
                                      item_text_fg=TEXT, item_frameColor=PANEL)
        widget.setName(f"option-{key}")
        self.widgets[key] = widget

    def _set_flag(self, state: int, key: str) -> None:
        self._store(key, bool(state))

    def _set_choice(self, value: str, key: str, kind: str) -> None:
        self._store(key, int(value) if kind in ("range", "rates") else value)

    def _store(self, key: str, value: Any) -> None:
        name, _, part = key.partition(".")
        if part:
            self.values[name] = {**self.values[name], part: value}
        else:
            self.values[name] = value
        self.error.setText("")

    def set_option(self, key: str, value: Any) -> None:
        """Set one option as the widget would (``government.black``, ``rate_of_fire.flame``)."""
        self._store(key, value)

    def chosen(self) -> Options:
        """The options as chosen; FormatError naming the option if the engine refuses."""
        return options_from_dict(self.values)

    def start(self) -> None:
        try:
            options = self.chosen()
        except WecError as refusal:
            self.error.setText(str(refusal))
            return
        self.on_start(options)


class SettingsScreen(Screen):
    """Display settings (R14.5): model detail, lighting, markers, reinforcement squares,
    the hot-seat curtain."""

    def __init__(self, base: Any, settings: Settings, on_done: Callable[[Settings], None],
                 path: Path | None = None) -> None:
        super().__init__(base, "settings")
        self.settings = settings
        OnscreenText(parent=self.frame, text="Settings", pos=(0, 0.7), scale=0.08, fg=ACCENT)
        y = 0.57
        for name, text, values in (("detail", "Model detail", DETAILS),
                                   ("animation_speed", "Animations", ANIMATION_SPEEDS),
                                   ("palette", "Piece colours", PALETTE_NAMES)):
            y -= 0.12
            OnscreenText(parent=self.frame, text=text, pos=(-0.6, y), scale=0.045, fg=TEXT,
                         align=TextNode.ALeft)
            menu = DirectOptionMenu(parent=self.frame, pos=(0.3, 0, y), scale=0.045,
                                    items=list(values),
                                    initialitem=values.index(getattr(settings, name)),
                                    command=self._set, extraArgs=[name], text_fg=TEXT,
                                    frameColor=PANEL, relief=DGG.FLAT, item_text_fg=TEXT,
                                    item_frameColor=PANEL)
            menu.setName(f"setting-{name}")
        flags = [("lighting", "Lighting"), ("last_seen_markers", "Last-seen markers (R9.10)"),
                 ("reinforcement_squares", "Reinforcement squares (R14.5)"),
                 ("hotseat_curtain", "Hide the board between hotseat turns")]
        for name, text in flags:
            y -= 0.12
            OnscreenText(parent=self.frame, text=text, pos=(-0.6, y), scale=0.045, fg=TEXT,
                         align=TextNode.ALeft)
            check = DirectCheckButton(parent=self.frame, pos=(0.5, 0, y + 0.015), scale=0.045,
                                      indicatorValue=int(getattr(settings, name)),
                                      frameColor=(0, 0, 0, 0), command=self._flag,
                                      extraArgs=[name])
            check.setName(f"setting-{name}")
        button(self.frame, "Done", lambda: on_done(self.settings), (0, -0.6), width=8,
               name="settings-done")

    def _set(self, value: str, name: str) -> None:
        setattr(self.settings, name, value)

    def _flag(self, state: int, name: str) -> None:
        setattr(self.settings, name, bool(state))
