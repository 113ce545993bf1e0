"""The main menu, the new-game options screen and the settings screen.

The options screen offers every option of R13 (from ``engine.options.option_specs``),
each side's government and the movement system; the engine validates the choice and
its one-line refusal (naming the option and its allowed values) is shown in place.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from direct.gui.DirectGui import (
    DGG,
    DirectCheckButton,
    DirectFrame,
    DirectLabel,
    DirectOptionMenu,
)
from direct.gui.OnscreenText import OnscreenText
from direct.showbase.DirectObject import DirectObject
from panda3d.core import TextNode

from wec.client.hud import ACCENT, PANEL, REFUSAL, TEXT, Tooltip, button
from wec.client.option_text import OPTION_TEXT, value_label, value_of
from wec.client.settings import ANIMATION_SPEEDS, DETAILS, PALETTE_NAMES, Settings
from wec.client.sound import VOLUMES
from wec.engine.errors import WecError
from wec.engine.options import Options, option_specs, options_from_dict, options_to_dict

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
    """New hotseat game, continue, load a game, replays, settings, quit."""

    def __init__(self, base: Any, actions: dict[str, Callable[[], None]],
                 notice: str = "") -> None:
        super().__init__(base, "main-menu")
        OnscreenText(parent=self.frame, text=TITLE, pos=(0, 0.62), scale=0.14, fg=ACCENT)
        OnscreenText(parent=self.frame, text="chess on a three-level battlefield",
                     pos=(0, 0.5), scale=0.05, fg=TEXT)
        entries = [("New hotseat game", "new"), ("Human vs Computer", "computer"),
                   ("Continue game", "continue"),
                   ("Play on local network", "lan"),
                   ("Load game", "load"), ("Board editor", "editor"), ("Replays", "replays"),
                   ("Settings", "settings"), ("Help and rules (F1)", "help"),
                   ("Quit", "quit")]
        y = 0.3
        for text, key in entries:
            if key not in actions:
                continue
            button(self.frame, text, actions[key], (0, y), width=12, name=f"menu-{key}")
            y -= 0.115
        self.notice = OnscreenText(parent=self.frame, text=notice, pos=(0, -0.82), scale=0.045,
                                   fg=REFUSAL, wordwrap=40)
        self.hotkey = DirectObject()  # F1 opens and closes the help, Esc closes it
        if "help" in actions:
            self.hotkey.accept("f1", actions["help"])
        if "close-help" in actions:
            self.hotkey.accept("escape", actions["close-help"])

    def destroy(self) -> None:
        self.hotkey.ignoreAll()
        super().destroy()


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


class ReplaysScreen(Screen):
    """Recent games to watch again (issue 7): finished ones first, each with its date,
    sides, turns and result; a click opens its replay. A game that may not be replayed
    (unreadable, or competitive and unfinished, R14.3) is listed greyed out."""

    def __init__(self, base: Any, entries: list[Any], on_open: Callable[[Path], Any],
                 on_back: Callable[[], None], notice: str = "") -> None:
        super().__init__(base, "replays")
        OnscreenText(parent=self.frame, text="Replays", pos=(0, 0.7), scale=0.08, fg=ACCENT)
        if not entries:
            OnscreenText(parent=self.frame, text="No saved games yet: save a game (Ctrl+S "
                         "while playing) to watch it here.", pos=(0, 0.45), scale=0.045,
                         fg=TEXT, wordwrap=40)
        for index, entry in enumerate(entries):
            made = button(self.frame, entry.text, on_open, (0, 0.52 - index * 0.11),
                          width=56, args=[entry.path], name=f"replay-{index}")
            made["text_scale"] = 0.72
            if not entry.openable:
                made["text_fg"] = (0.55, 0.55, 0.55, 1)
        self.entries = entries
        self.notice = OnscreenText(parent=self.frame, text=notice, pos=(0, -0.45),
                                   scale=0.042, fg=REFUSAL, wordwrap=50, mayChange=True)
        button(self.frame, "Back", on_back, (0, -0.6), width=8, name="back")


class NewGameScreen(Screen):
    """Every R13 option with its allowed values (each side's government and the movement
    system among them); Start validates through the engine. The screen opens with the
    player's saved preferences (R13.1; a damaged preferences file is named, and the
    standard defaults used), can save the options as those preferences or restore the
    standard defaults, and starts from the standard setup, a bundled scenario (its
    description shown) or a saved board (``on_start_position`` gets the start position).
    The board editor reuses it for a board's options (``initial``, no start choice)."""

    def __init__(self, base: Any, on_start: Callable[[Options], None],
                 on_back: Callable[[], None], *,
                 on_start_position: Callable[[Any], None] | None = None,
                 boards: Sequence[Path] = (), initial: Options | None = None,
                 title: str = "New hotseat game", start_label: str = "Start") -> None:
        from wec.storage.preferences import load_preferences

        super().__init__(base, "new-game")
        self.on_start = on_start
        self.on_start_position = on_start_position
        OnscreenText(parent=self.frame, text=title, pos=(0, 0.88), scale=0.08, fg=ACCENT)
        OnscreenText(parent=self.frame, text="Options (R13): the defaults are the standard "
                     "game; point at an option's name for its rule numbers",
                     pos=(0, 0.8), scale=0.036, fg=TEXT)
        problem = None
        if initial is None:
            loaded = load_preferences()
            initial, problem = loaded.options, loaded.problem
        self.values: dict[str, Any] = options_to_dict(initial)
        self.own_values = dict(self.values)  # the options for the standard setup
        self.widgets: dict[str, Any] = {}
        self._layout()
        self.error = OnscreenText(parent=self.frame, text=problem or "", pos=(0, -0.8),
                                  scale=0.038, fg=REFUSAL, wordwrap=66, mayChange=True)
        self.notice = OnscreenText(parent=self.frame, text="", pos=(0, -0.72), scale=0.038,
                                   fg=TEXT, wordwrap=66, mayChange=True)
        self.starts: list[tuple[str, Any]] = []
        self.board: Any = None  # the chosen scenario's or saved board's Position
        self.board_problem = ""
        if on_start_position is not None:
            self._start_choice(boards)
        button(self.frame, start_label, self.start, (0.35, -0.92), width=8, name="start")
        button(self.frame, "Back", on_back, (-0.35, -0.92), width=8, name="back")
        button(self.frame, "Save as my defaults", self.save_defaults, (-0.95, -0.92),
               width=10, name="save-defaults")
        button(self.frame, "Restore standard defaults", self.restore_defaults, (0.95, -0.92),
               width=11, name="restore-defaults")

    def _start_choice(self, boards: Sequence[Path]) -> None:
        """"Start from": the standard setup, a scenario or a saved board."""
        from wec.storage.scenarios import scenario_names

        self.starts = [("Standard setup (R15)", None)]
        self.starts += [(f"Scenario: {name}", name) for name in scenario_names()
                        if name != "standard"]
        self.starts += [(f"Saved board: {path.stem}", path) for path in boards]
        OnscreenText(parent=self.frame, text="Start from", pos=(-1.2, -0.42), scale=0.04,
                     fg=ACCENT, align=TextNode.ALeft)
        menu = DirectOptionMenu(parent=self.frame, pos=(-0.8, 0, -0.42), scale=0.038,
                                items=[text for text, _ in self.starts], initialitem=0,
                                command=self._start_chosen, text_fg=TEXT, frameColor=PANEL,
                                relief=DGG.FLAT, highlightColor=(0.3, 0.3, 0.4, 1),
                                item_text_fg=TEXT, item_frameColor=PANEL)
        menu.setName("start-from")
        self.widgets["start-from"] = menu
        self.description = OnscreenText(parent=self.frame, text="", pos=(-1.2, -0.5),
                                        scale=0.036, fg=TEXT, wordwrap=66, mayChange=True,
                                        align=TextNode.ALeft)
        self._describe(None)

    def choose_start(self, text: str) -> None:
        """Pick ``text`` (``Scenario: air_war``, ``Saved board: NAME``) in "Start from",
        as picking it in the drop-down does."""
        menu = self.widgets["start-from"]
        menu.set(menu["items"].index(text))

    def _start_chosen(self, text: str) -> None:
        from wec.client.boards import read_board
        from wec.engine.editor import Editor
        from wec.storage.scenarios import load_scenario

        source = dict(self.starts)[text]
        if self.board is None:
            self.own_values = dict(self.values)
        self.board, self.board_problem = None, ""
        self.error.setText("")
        try:
            if isinstance(source, str):
                self.board = load_scenario(source)
            elif source is not None:  # a saved board: checked as a start board (R14.4)
                self.board = Editor(read_board(source)).start_position()
        except (OSError, ValueError, WecError) as problem:
            named = source if isinstance(source, str) else source.name
            self.board_problem = f"cannot start from {named}: {problem}"
            self.error.setText(self.board_problem)
        self.values = dict(options_to_dict(self.board.options) if self.board is not None
                           else self.own_values)
        self._show_values()
        self._describe(source)

    def _describe(self, source: Any) -> None:
        from wec.storage.scenarios import scenario_description

        if source is None:
            text = (scenario_description("standard") + " The options above shape it: "
                    "each side's government, O29-O31.")
        elif isinstance(source, str):
            text = scenario_description(source)
        else:
            text = (f"A board you saved ({source.name}). Its options are shown above; "
                    "the board is checked as a start board (R14.4) when the game starts.")
        self.description.setText(text)

    def _show_values(self) -> None:
        """Set every option widget to ``self.values`` (without calling back)."""
        for key, widget in self.widgets.items():
            if key == "start-from":
                continue
            name, _, part = key.partition(".")
            value = self.values[name][part] if part else self.values[name]
            if isinstance(widget, DirectCheckButton):
                widget["indicatorValue"] = int(bool(value))
                widget.setIndicatorValue()
            else:
                shown = str(value) if name == "rate_of_fire" else value_label(name, value)
                widget.set(widget["items"].index(shown), fCommand=False)

    def save_defaults(self) -> None:
        """R13.1: keep the options on screen as the player's preferred options."""
        from wec.storage.preferences import save_preferences

        try:
            path = save_preferences(self.chosen())
        except WecError as refusal:
            self.error.setText(str(refusal))
            return
        self.error.setText("")
        self.notice.setText(f"Saved as your defaults ({path})")

    def restore_defaults(self) -> None:
        """R13.1: forget the saved preferences; the standard defaults on screen."""
        from wec.storage.preferences import restore_defaults

        try:
            options = restore_defaults()
        except WecError as refusal:
            self.error.setText(str(refusal))
            return
        self.values = options_to_dict(options)
        self._show_values()
        self.error.setText("")
        self.notice.setText("Standard defaults restored (R13.1); new games start with them")

    def _layout(self) -> None:
        """Every option in three columns: its human name (the option id and rule numbers
        in a tooltip), its control with human value names, and one line saying what it
        does (issue 18). Each side's government shares a row, as do the reload rates."""
        rows: list[tuple[str, str, str, tuple[Any, ...]]] = list(option_specs())
        per_column = (len(rows) + 2) // 3
        # three columns 3.2 units wide, shrunk to fit narrower windows (4:3 is 2.67 wide)
        self.grid = self.frame.attachNewNode("options-grid")
        self.grid.setScale(min(1.0, (2 * self.base.getAspectRatio() - 0.08) / 3.2))
        self.tooltip = Tooltip(self.grid)
        for index, row in enumerate(rows):
            column, line = divmod(index, per_column)
            x = -1.62 + column * 1.1
            y = 0.72 - line * 0.098
            self._field(row, x, y)

    def _field(self, row: tuple[str, str, str, tuple[Any, ...]], x: float, y: float) -> None:
        name, oid, kind, allowed = row
        text = OPTION_TEXT[name]
        title = DirectLabel(parent=self.grid, text=text.title, pos=(x, 0, y), scale=0.032,
                            text_fg=TEXT, text_align=TextNode.ALeft, frameColor=(0, 0, 0, 0),
                            state=DGG.NORMAL)
        title.setName(f"option-title-{name}")
        self.tooltip.attach(title, f"{oid}, rules {text.rules}: {text.title}\n"
                                   f"{text.explanation}")
        if kind == "rates":  # the six weapons on the line below the name
            for n, weapon in enumerate(allowed):
                OnscreenText(parent=self.grid, text=value_label(name, weapon),
                             pos=(x + 0.18 * n, y - 0.042), scale=0.021, fg=TEXT,
                             align=TextNode.ALeft)
                self._menu(f"{name}.{weapon}", name, [str(v) for v in range(1, 10)],
                           x + 0.18 * n + 0.12, y - 0.042, numbers=True)
            return
        OnscreenText(parent=self.grid, text=text.explanation, pos=(x, y - 0.036),
                     scale=0.024, fg=(0.66, 0.67, 0.70, 1), align=TextNode.ALeft,
                     wordwrap=1.06 / 0.024)
        if kind == "government":
            for n, side in enumerate(("black", "white")):
                OnscreenText(parent=self.grid, text=side.title(), pos=(x + 0.27 + 0.4 * n, y),
                             scale=0.026, fg=TEXT, align=TextNode.ALeft)
                self._menu(f"{name}.{side}", name, list(allowed), x + 0.38 + 0.4 * n, y)
            return
        current = self.values[name]
        if kind == "flag":
            widget = DirectCheckButton(parent=self.grid, pos=(x + 0.9, 0, y + 0.01),
                                       scale=0.035, indicatorValue=int(bool(current)),
                                       boxPlacement="right", frameColor=(0, 0, 0, 0),
                                       command=self._set_flag, extraArgs=[name])
            widget.setName(f"option-{name}")
            self.widgets[name] = widget
            return
        if kind == "range":
            choices = [str(v) for v in range(allowed[0], allowed[1] + 1)]
        else:
            choices = list(allowed)
        self._menu(name, name, choices, x + 0.6, y)

    def _menu(self, key: str, name: str, values: list[str], x: float, y: float,
              numbers: bool = False) -> None:
        """A drop-down of ``values`` shown by their human names (``numbers``: as they
        are)."""
        labels = values if numbers else [value_label(name, v) for v in values]
        part = key.partition(".")[2]
        current = self.values[name][part] if part else self.values[name]
        shown = str(current) if numbers else value_label(name, current)
        widget = DirectOptionMenu(parent=self.grid, pos=(x, 0, y), scale=0.03,
                                  items=labels, initialitem=labels.index(shown),
                                  command=self._set_choice, extraArgs=[key, name],
                                  text_fg=TEXT, frameColor=PANEL, relief=DGG.FLAT,
                                  highlightColor=(0.3, 0.3, 0.4, 1),
                                  item_text_fg=TEXT, item_frameColor=PANEL)
        widget.setName(f"option-{key}")
        self.widgets[key] = widget

    def _set_flag(self, state: int, key: str) -> None:
        self._store(key, bool(state))

    def _set_choice(self, label: str, key: str, name: str) -> None:
        value = value_of(name, label)
        self._store(key, int(value) if value.isdigit() else value)

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

    def destroy(self) -> None:
        """Destroy the option widgets (their event hooks too), then the page."""
        for widget in self.widgets.values():
            widget.destroy()
        self.widgets = {}
        super().destroy()

    def chosen(self) -> Options:
        """The options as chosen; FormatError naming the option if the engine refuses."""
        return options_from_dict(self.values)

    def start(self) -> None:
        """Start with the chosen options: the standard setup through ``on_start``, a
        scenario or saved board (with those options, checked as a start board, R14.4)
        through ``on_start_position``; a refusal is shown in place."""
        from wec.client.boards import start_with_options

        try:
            options = self.chosen()
        except WecError as refusal:
            self.error.setText(str(refusal))
            return
        if self.board_problem:
            self.error.setText(self.board_problem)
            return
        if self.board is None or self.on_start_position is None:
            self.on_start(options)
            return
        try:
            start = start_with_options(self.board, options)
        except WecError as refusal:
            self.error.setText(str(refusal))
            return
        self.on_start_position(start)


class SettingsScreen(Screen):
    """Display settings (R14.5): model detail, lighting, markers, reinforcement squares,
    the hot-seat curtain."""

    def __init__(self, base: Any, settings: Settings, on_done: Callable[[Settings], None],
                 path: Path | None = None) -> None:
        super().__init__(base, "settings")
        self.settings = settings
        OnscreenText(parent=self.frame, text="Settings", pos=(0, 0.8), scale=0.08, fg=ACCENT)
        y = 0.7
        volumes = tuple(str(v) for v in VOLUMES)
        if str(settings.volume) not in volumes:
            volumes = (*volumes, str(settings.volume))
        for name, text, values in (("detail", "Model detail", DETAILS),
                                   ("animation_speed", "Animations", ANIMATION_SPEEDS),
                                   ("palette", "Piece colours", PALETTE_NAMES),
                                   ("volume", "Sound volume (%)", volumes)):
            y -= 0.12
            OnscreenText(parent=self.frame, text=text, pos=(-0.6, y), scale=0.045, fg=TEXT,
                         align=TextNode.ALeft)
            menu = DirectOptionMenu(parent=self.frame, pos=(0.3, 0, y), scale=0.045,
                                    items=list(values),
                                    initialitem=values.index(str(getattr(settings, name))),
                                    command=self._set, extraArgs=[name], text_fg=TEXT,
                                    frameColor=PANEL, relief=DGG.FLAT, item_text_fg=TEXT,
                                    item_frameColor=PANEL)
            menu.setName(f"setting-{name}")
        flags = [("lighting", "Lighting"), ("last_seen_markers", "Last-seen markers (R9.10)"),
                 ("reinforcement_squares", "Reinforcement squares (R14.5)"),
                 ("hotseat_curtain", "Hide the board between hotseat turns"),
                 ("smooth_edges", "Smooth edges (4x anti-aliasing, from the next start)")]
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
        setattr(self.settings, name, int(value) if name == "volume" else value)

    def _flag(self, state: int, name: str) -> None:
        setattr(self.settings, name, bool(state))
