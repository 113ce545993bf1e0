"""The wec desktop game: a Panda3D window with the menus and the hotseat board.

``run()`` opens a window (``wec play``); ``WecApp(offscreen=True)`` renders into an
offscreen buffer with a virtual mouse, which is how the tests drive the real client.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from wec.client.settings import Settings, load_settings, save_settings

WINDOW_PRC = """
window-title Weaponized Chess
win-size 1280 800
sync-video true
"""
SMOOTH_EDGES_PRC = """
framebuffer-multisample 1
multisamples 4
"""
SOFTWARE_RENDERERS = ("llvmpipe", "softpipe", "swrast", "software rasterizer")


def window_prc(settings: Settings) -> str:
    """The real window's configuration: 4x multisampling when the player wants smooth
    edges (costly on a software renderer, where it is worth turning off)."""
    return WINDOW_PRC + (SMOOTH_EDGES_PRC if settings.smooth_edges else "")


def software_renderer_advice(renderer: str, settings: Settings) -> str:
    """A line for the main menu when smooth edges run on a renderer without a graphics
    card: every pixel is then shaded four times on the CPU."""
    if not settings.smooth_edges or not any(
            name in renderer.lower() for name in SOFTWARE_RENDERERS):
        return ""
    return (f"Drawing without a graphics card ({renderer}): turn off Smooth edges in "
            "Settings for a faster board")


class VirtualPointer:
    """A mouse for windows that have none (offscreen): a VirtualMouse feeding a
    MouseWatcher and a ButtonThrower, exactly the chain a real window gets."""

    def __init__(self, base: Any) -> None:
        from panda3d.core import (
            ButtonThrower,
            KeyboardButton,
            ModifierButtons,
            MouseWatcher,
            VirtualMouse,
        )

        self.base = base
        self.size = (base.win.getXSize(), base.win.getYSize())
        self.mouse = VirtualMouse("virtual-mouse")
        self.mouse.setWindowSize(*self.size)
        node = base.dataRoot.attachNewNode(self.mouse)
        watcher = MouseWatcher("virtual-watcher")
        watcher_np = node.attachNewNode(watcher)
        watcher.setDisplayRegion(base.camNode.getDisplayRegion(0))
        thrower = ButtonThrower("virtual-buttons")
        modifiers = ModifierButtons()  # as a real window's: "shift-3", "control-s"
        for modifier in (KeyboardButton.shift(), KeyboardButton.control(),
                         KeyboardButton.alt(), KeyboardButton.meta()):
            modifiers.addButton(modifier)
        thrower.setModifierButtons(modifiers)
        watcher_np.attachNewNode(thrower)
        base.mouseWatcherNode = watcher
        base.mouseWatcher = watcher_np
        base.buttonThrowers = [watcher_np.find("virtual-buttons")]
        base.aspect2d.node().setMouseWatcher(watcher)
        base.pixel2d.node().setMouseWatcher(watcher)
        self.mouse.setMouseOn(True)

    def move(self, x: int, y: int) -> None:
        """Put the pointer on pixel (x, y) of the window (0,0 at the top left)."""
        self.mouse.setMousePos(x, y)

    def click(self, x: int, y: int, button: int = 1, frames: int = 2) -> None:
        """Press and release a mouse button at pixel (x, y), rendering frames between."""
        from panda3d.core import MouseButton

        handle = {1: MouseButton.one(), 2: MouseButton.two(), 3: MouseButton.three()}[button]
        self.move(x, y)
        self.step(frames)
        self.mouse.pressButton(handle)
        self.step(1)
        self.mouse.releaseButton(handle)
        self.step(frames)

    def key(self, name: str) -> None:
        """Press and release a keyboard key by its event name (``e``, ``escape``, ``1``,
        ``arrow_right``, ``page_down``)."""
        from panda3d.core import KeyboardButton

        method = {"arrow_left": "left", "arrow_right": "right", "arrow_up": "up",
                  "arrow_down": "down"}.get(name, name)
        handle = KeyboardButton.asciiKey(name) if len(name) == 1 else getattr(
            KeyboardButton, method)()
        self.mouse.pressButton(handle)
        self.step(1)
        self.mouse.releaseButton(handle)
        self.step(1)

    def step(self, frames: int = 1) -> None:
        for _ in range(frames):
            self.base.taskMgr.step()


class WecApp:
    """Screens on one ShowBase: main menu, new game, settings, play."""

    def __init__(self, base: Any = None, offscreen: bool = False,
                 settings: Settings | None = None, settings_file: Path | None = None) -> None:
        notice = ""
        if settings is None:
            settings, problem = load_settings(settings_file)
            notice = problem or ""
        self.settings = settings
        self.settings_file = settings_file
        self.save_dir: Path | None = None
        self.boards_dir: Path | None = None  # saved editor boards (default: boards_folder())
        self.lan: Any = None  # client.lan.LanPlay while the LAN screens are open
        self.lan_state_dir: Path | None = None  # LAN identity, pins, games (default: user data)
        self.lan_peer_options: dict[str, Any] = {}  # extra net.peer.PeerConfig fields (tests)
        self._replay_entries: dict[tuple[str, int, int], Any] = {}
        if base is None:
            base = _make_base(offscreen, settings)
            if not offscreen:
                renderer = base.win.getGsg().getDriverRenderer()
                notice = (notice + "\n" + software_renderer_advice(renderer, settings)).strip()
        self.base = base
        if base.mouseWatcherNode is None and getattr(base, "wec_pointer", None) is None:
            base.wec_pointer = VirtualPointer(base)  # offscreen: no real mouse
        self.pointer: VirtualPointer | None = getattr(base, "wec_pointer", None)
        from wec.client.assets import ModelLibrary
        from wec.client.shading import Shading
        from wec.client.sound import Sounds

        self.shading = Shading(base)
        self.shading.set_lighting(settings.lighting)
        self.models = ModelLibrary(base.loader, settings.detail)
        self.sounds = Sounds(base.loader, settings.volume)
        if self.shading.message:
            notice = (notice + "\n" + self.shading.message).strip()
        self.screen: Any = None
        self.session: Any = None
        self.help: Any = None  # the Help page opened from the main menu
        self.main_menu(notice)

    # ------------------------------------------------------------------ screens

    def _replace(self, screen: Any) -> Any:
        if self.screen is not None:
            self.screen.destroy()
        self.close_help()
        self.screen = screen
        return screen

    def main_menu(self, notice: str = "") -> Any:
        from wec.client.menus import MainMenu

        actions = {"new": self.new_game, "settings": self.open_settings, "quit": self.quit,
                   "lan": self.open_lan, "help": self.open_help,
                   "close-help": self.close_help,
                   "replays": self.open_replays, "editor": self.open_editor,
                   "computer": self.new_computer_game}
        if self.session is not None and self.session.current.result is None:
            actions["continue"] = self.continue_game
        if self.recent_saves():
            actions["load"] = self.open_load
        self.base.camera.setPos(0, -30, 14)
        self.base.camera.lookAt(0, 0, 0)
        return self._replace(MainMenu(self.base, actions, notice))

    def open_help(self) -> Any:
        """Help from the main menu: the controls and the rules reference (docs/rules.md),
        over the menu until closed (Esc or F1)."""
        from wec.client.help import HelpScreen
        from wec.client.resources import rules_file

        if self.help is not None:  # F1 again closes it
            self.help.destroy()
            self.help = None
            return None

        def closed() -> None:
            self.help = None

        self.help = HelpScreen(self.base, rules_file(), closed, own_keys=False)
        return self.help

    def close_help(self) -> None:
        if self.help is not None:
            self.help.destroy()
            self.help = None

    def open_lan(self) -> Any:
        """Play on local network (issue 8): the LAN screens, with the network running
        beside the frames until the player leaves them (client.lan)."""
        from wec.client.lan import LanPlay

        if self.lan is None:
            self.lan = LanPlay(self, self.lan_state_dir, self.lan_peer_options)
        return self.lan.open()

    def new_game(self) -> Any:
        from wec.client.boards import saved_boards
        from wec.client.menus import NewGameScreen

        return self._replace(NewGameScreen(self.base, self.start_game,
                                           lambda: self.main_menu(),
                                           on_start_position=self.start_from_position,
                                           boards=saved_boards(self.boards_folder())))

    def start_game(self, options: Any) -> Any:
        from wec.client.session import HotseatSession
        from wec.engine.setup import standard_position

        return self.play(HotseatSession.new(standard_position(options)))

    def start_from_position(self, start: Any) -> Any:
        """A new hotseat game from a start position (a scenario, a saved board, the
        board editor's board)."""
        from wec.client.session import HotseatSession

        return self.play(HotseatSession.new(start))

    # ------------------------------------------------------------------ board editor

    def boards_folder(self) -> Path:
        from wec.client.boards import boards_folder

        return self.boards_dir or boards_folder()

    def open_editor(self, position: Any = None, session: Any = None) -> Any:
        """The board editor (R14.4) on ``position`` (default: the standard setup with the
        player's preferred options). From a game (``session``) the game's current
        position is the edit buffer, Back returns to the game, and a competitive game
        is refused (R14.3) on the play screen before this is called."""
        from wec.client.editor import EditorScreen
        from wec.engine.editor import Editor
        from wec.engine.errors import EditorError

        if position is None:
            from wec.engine.setup import standard_position
            from wec.storage.preferences import load_preferences

            position = standard_position(load_preferences().options)

        def back() -> Any:
            return self.main_menu() if session is None else self.play(session)

        try:
            editor = Editor(position)
        except EditorError as refusal:
            if session is None:
                return self.main_menu(str(refusal))
            screen = self.play(session)
            screen._say(str(refusal), refused=True)
            screen._refresh_hud()
            return screen
        return self._replace(EditorScreen(self, editor, back, self.boards_folder(),
                                          from_game=session is not None))

    def open_position(self, path: Path) -> Any:
        """Play from a saved game or a position file (``wec-position/1``); a bad file is
        refused on the main menu with the reader's message and the file left untouched."""
        from wec.client.session import HotseatSession
        from wec.engine.errors import WecError
        from wec.engine.loading import load_position

        try:
            if path.read_bytes()[:16].find(b"wec-save") >= 0:
                return self.open_save(path)
        except OSError as problem:
            return self.main_menu(f"cannot open {path}: {problem}")
        try:
            position = load_position(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError, WecError) as problem:
            return self.main_menu(f"cannot open {path}: {problem}")
        if position.viewer is not None:
            return self.main_menu(f"cannot open {path}: it is one side's view, not a game")
        return self.play(HotseatSession.new(position))

    def saves_folder(self) -> Path:
        from wec.client.settings import saves_folder

        return self.save_dir or saves_folder()

    def recent_saves(self) -> list[Path]:
        """The newest saved games first (at most eight)."""
        folder = self.saves_folder()
        if not folder.is_dir():
            return []
        saves = sorted(folder.glob("*.wecsave"), key=lambda p: p.stat().st_mtime,
                       reverse=True)
        return saves[:8]

    def open_load(self) -> Any:
        from wec.client.menus import LoadScreen

        return self._replace(LoadScreen(self.base, self.recent_saves(), self.open_save,
                                        lambda: self.main_menu()))

    def open_save(self, path: Path) -> Any:
        """Resume a saved game; a bad save is refused with its reason, untouched."""
        from wec.client.session import HotseatSession
        from wec.engine.errors import WecError
        from wec.storage.saves import read_save

        try:
            match = read_save(path)
        except (OSError, WecError) as problem:
            return self.main_menu(str(problem))
        return self.play(HotseatSession(match), resumed=True)

    def save_game(self, label: str = "") -> Path:
        """Write the current game to the saves folder (atomically); the file written."""
        import time

        from wec.storage.saves import write_save

        folder = self.saves_folder()
        folder.mkdir(parents=True, exist_ok=True)
        turn = self.session.current.turn
        path = folder / f"{time.strftime('%Y%m%d-%H%M%S')}{label}-turn{turn}.wecsave"
        write_save(path, self.session.match)
        return path

    def keep_finished_game(self) -> str:
        """Issue 7: a game that just ended is saved with its full history, so the Replays
        list offers it; the line to show the players (where it went, or why not)."""
        try:
            path = self.save_game("-finished")
        except OSError as problem:
            return f"The game could not be kept for Replays: {problem}"
        return f"Kept for Replays as {path.name}"

    # ------------------------------------------------------------------ replays

    def open_replays(self, notice: str = "") -> Any:
        """The Replays list: the recent saved games, finished ones first (newest first
        within each group), each with its date, sides, turns and result."""
        from wec.client.menus import ReplaysScreen

        entries = [self._replay_entry(path) for path in self.recent_saves()]
        entries.sort(key=lambda entry: not entry.finished)  # stable: keeps newest first
        return self._replace(ReplaysScreen(self.base, entries, self._open_listed_replay,
                                           lambda: self.main_menu(), notice))

    def _replay_entry(self, path: Path) -> Any:
        """The list's line for a save, kept while the file is unchanged (opening a long
        game's replay takes a moment)."""
        from wec.client.replay import describe_save

        stat = path.stat()
        key = (str(path), stat.st_mtime_ns, stat.st_size)
        if key not in self._replay_entries:
            self._replay_entries[key] = describe_save(path)
        return self._replay_entries[key]

    def _open_listed_replay(self, path: Path) -> Any:
        return self.open_replay(path, back=self.open_replays)

    def open_replay(self, source: Any, back: Callable[[str], Any] | None = None,
                    notation: bool = False, title: str = "") -> Any:
        """Open the replay viewer on ``source``: a save file's path (or an R16 notation
        file's with ``notation=True``), a Match in memory or a Replay. Leaving the viewer
        calls ``back`` (default: the main menu); a file that cannot be replayed, or an
        unfinished competitive game (R14.3), is refused there with its reason."""
        from wec.client.replay import ReplayScreen, load_replay
        from wec.engine.errors import ReplayRefused, WecError

        back = back or self.main_menu
        if not title and isinstance(source, Path):
            title = f"Replay of {source.name}"
        try:
            replay = load_replay(source, notation)
        except ReplayRefused as refusal:  # R14.3
            return back(str(refusal))
        except (OSError, ValueError, WecError) as problem:
            where = source if isinstance(source, Path) else "this game"
            return back(f"cannot replay {where}: {problem}")
        self.base.setBackgroundColor(0.09, 0.11, 0.15, 1)

        def leave() -> None:
            self.screen = None
            back("")

        return self._replace(ReplayScreen(self, replay, on_leave=leave, title=title))

    # ------------------------------------------------------------------ play

    def play(self, session: Any, resumed: bool = False) -> Any:
        """The play screen on ``session``; ``resumed`` (a saved game, Continue): anyone
        may be at the seat, so a game that hides information opens on the hand-over."""
        from wec.client.play import PlayScreen

        self.session = session
        self.base.setBackgroundColor(0.09, 0.11, 0.15, 1)
        return self._replace(PlayScreen(self, session, on_leave=self._left_game,
                                        resumed=resumed))

    def continue_game(self) -> Any:
        if getattr(self.session, "human", None) is not None:  # Human vs Computer
            return self.play_computer(self.session)
        return self.play(self.session, resumed=True)

    # ------------------------------------------------------------------ vs the computer

    def new_computer_game(self) -> Any:
        """New game "Human vs Computer" (issue 19, client.computer_play): side and level."""
        from wec.client.computer_play import ComputerSetupScreen

        return self._replace(ComputerSetupScreen(self.base, self.start_computer_game,
                                                 lambda: self.main_menu()))

    def start_computer_game(self, human: Any, level: int, budget: float | None = None) -> Any:
        from wec.client.computer_play import ComputerSession
        from wec.engine.setup import standard_position

        return self.play_computer(ComputerSession.against(standard_position(), human, level,
                                                          budget=budget))

    def play_computer(self, session: Any) -> Any:
        from wec.client.computer_play import ComputerPlayScreen

        self.session = session
        self.base.setBackgroundColor(0.09, 0.11, 0.15, 1)
        return self._replace(ComputerPlayScreen(self, session, on_leave=self._left_game))

    def _left_game(self) -> None:
        self.screen = None
        self.main_menu()

    def open_settings(self) -> Any:
        from wec.client.menus import SettingsScreen

        return self._replace(SettingsScreen(self.base, self.settings, self._settings_done))

    def _settings_done(self, settings: Settings) -> None:
        from wec.client.assets import ModelLibrary

        self.settings = settings
        self.shading.set_lighting(settings.lighting)
        self.models = ModelLibrary(self.base.loader, settings.detail)
        self.sounds.set_volume(settings.volume)
        notice = ""
        try:
            save_settings(settings, self.settings_file)
        except OSError as problem:
            notice = f"settings not saved: {problem}"
        self.main_menu(notice)

    def close(self) -> None:
        """Remove every screen (the ShowBase stays: tests reuse it); a LAN network stops."""
        if self.lan is not None:
            self.lan.stop(wait=True)
            self.lan = None
        if self.screen is not None:
            self.screen.destroy()
            self.screen = None
        self.close_help()

    def quit(self) -> None:
        self.close()
        self.base.userExit()

    def screenshot(self, path: Path) -> None:
        self.base.graphicsEngine.renderFrame()
        self.base.graphicsEngine.renderFrame()
        self.base.win.saveScreenshot(str(path))


def _make_base(offscreen: bool, settings: Settings) -> Any:
    from panda3d.core import loadPrcFileData

    if offscreen:
        from wec.client.offscreen import configure_offscreen

        configure_offscreen()
    else:
        from wec.client.offscreen import model_cache_prc

        loadPrcFileData("wec-window", window_prc(settings) + model_cache_prc())
    from direct.showbase.ShowBase import ShowBase

    return ShowBase()


def run(file: Path | None = None, offscreen_check: Path | None = None) -> int:
    """``wec play [FILE]``: open the window (on the main menu, or straight into FILE).
    With ``offscreen_check`` no window opens: the first screen is drawn offscreen into
    that PNG and the game ends (``wec play --offscreen-check PNG``)."""
    try:
        app = WecApp(offscreen=offscreen_check is not None)
    except Exception as problem:  # no display, no OpenGL: say what to do
        print(no_window_advice("wec play", problem), file=sys.stderr)
        return 2
    if file is not None:
        app.open_position(file)
    if offscreen_check is not None:
        return _offscreen_check(app, offscreen_check)
    app.base.run()
    return 0


def no_window_advice(command: str, problem: object) -> str:
    """What to say when no window can open (no display, no OpenGL): why, and what to do
    instead (issue 18)."""
    import os

    display = os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    where = ("no display was found (DISPLAY and WAYLAND_DISPLAY are not set)" if not display
             else f"the display {display} could not be used")
    return (f"{command}: cannot open a window: {problem}\n"
            f"  {where}. To play, run it on a desktop (a graphical session), or over SSH "
            "with X forwarding (ssh -X).\n"
            "  Without a display: `wec play --offscreen-check board.png` checks that the game "
            "runs here (it draws its first screen offscreen into the PNG), and "
            "`wec shot POSITION --out board.png` draws a position as the game shows it.")


def _offscreen_check(app: WecApp, out: Path) -> int:
    """Draw a few frames of the first screen, write it to ``out`` and say what drew it;
    status 1 if the renderer cannot run the game's shaders (GLSL 1.50)."""
    for _ in range(3):
        app.base.taskMgr.step()
    app.screenshot(out)
    gsg = app.base.win.getGsg()
    size = (app.base.win.getXSize(), app.base.win.getYSize())
    glsl = bool(gsg.getSupportsGlsl())
    screen = type(app.screen).__name__ if app.screen is not None else "no screen"
    print(f"{out}: {size[0]}x{size[1]} PNG of the {screen}, drawn by "
          f"{gsg.getDriverRenderer()} (GLSL {'yes' if glsl else 'no'})")
    app.close()
    return 0 if glsl else 1


def run_replay(path: Path, notation: bool = False) -> int:
    """``wec replay FILE`` (``--notation``: an R16 notation file): open the window on the
    game's replay. A file that cannot be replayed, or an unfinished competitive game
    (R14.3), is refused in one line on stderr (exit 1) before any window opens."""
    from wec.client.replay import load_replay
    from wec.engine.errors import ReplayRefused, WecError

    try:
        replay = load_replay(path, notation)
    except ReplayRefused as refusal:  # R14.3
        print(f"wec replay: {path}: {refusal}", file=sys.stderr)
        return 1
    except (OSError, ValueError, WecError) as problem:
        print(f"wec replay: cannot replay {path}: {problem}", file=sys.stderr)
        return 1
    try:
        app = WecApp()
    except Exception as problem:  # no display, no OpenGL: say what to do
        print(no_window_advice("wec replay", problem), file=sys.stderr)
        return 2
    app.open_replay(replay, title=f"Replay of {path.name}")
    app.base.run()
    return 0
