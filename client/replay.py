"""The replay viewer: watch a game again from any point, from either side's eyes or with
everything shown (issue 7).

``ReplayScreen`` draws ``Replay.view(index, perspective)`` on the play screen's
``BoardScene``: index i is the position after i steps (0 = the start). Stepping forward
animates what the chosen perspective saw of that step (``Replay.events``); every other
move along the timeline (a click or drag on it, a turn jump, Home/End, a history line,
stepping back) jumps without animation.

Integrity (issue 7 item 4): the full check (``Replay.verify``: the whole game replayed
from its start) runs in a worker process (client.verification) on the save's bytes, so
a 1,000-turn game is verified in seconds while the board stays smooth; each frame
reads its progress without waiting. Where no worker can run (a replay without a save
file behind it, or no process could be started: logged), the frame task calls
``Replay.verify`` for a few milliseconds per frame instead. A game in memory, or a
short save, is checked in full already when its replay is made. Every position shown
is still checked against its recorded state hash on the way (``Replay.view``). Once a
step is found whose recomputed state differs from the recorded one
(``ReplayIntegrityError``, from the check or from ``position``), playback stops, a
panel names the first bad step and its turn, and no position from that step on is
ever shown again.

An unfinished competitive game cannot be opened (the engine's ``ReplayRefused``, R14.3:
its full history is revealed only when the game ends).
"""

from __future__ import annotations

import logging
import time
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from direct.gui.DirectGui import DGG, DirectButton, DirectFrame
from direct.gui.OnscreenText import OnscreenText
from direct.showbase.DirectObject import DirectObject
from direct.task.Task import Task
from panda3d.core import (
    CardMaker,
    LineSegs,
    MouseButton,
    NodePath,
    PGButton,
    Point3,
    TextNode,
    TransparencyAttrib,
)

from wec.client.camera import OrbitCamera, home_orbit
from wec.client.hud import (
    ACCENT,
    PANEL,
    REFUSAL,
    TEXT,
    arrow_button,
    button,
    fit_label,
    follow_view,
    label,
)
from wec.client.narration import intent_words, narrate_all, unseen_action_words
from wec.client.playlayout import MARGIN, framed
from wec.client.scene import BoardScene
from wec.client.verification import BackgroundVerification, start_background_verification
from wec.engine.board import AIR, GROUND, SUB, Level
from wec.engine.errors import ReplayIntegrityError, ReplayRefused, WecError
from wec.engine.events import TurnEnded
from wec.engine.intents import EndTurn
from wec.engine.match import Match
from wec.engine.pieces import Side
from wec.engine.replay import Replay, Verification, match_from_notation

PLAYBACK_SPEEDS = (0.5, 1.0, 2.0, 4.0)
STEP_SECONDS = 0.9
"""Time between two steps when playing at 1x."""
VERIFY_SECONDS = 0.010
"""Time per frame given to the integrity check while the board stands still; a quarter
of it while playing or dragging, so the viewer stays smooth (a step takes a few ms)."""
HISTORY_ROWS = 14
ROW_CHARS = 62
GOOD = (0.45, 0.9, 0.5, 1.0)
WORKING = (0.85, 0.85, 0.6, 1.0)
BAR = (0.05, 0.06, 0.08, 0.9)
# where the panels stand (aspect2d units): the history list from the left edge, the
# buttons' column from the right edge, the bar's height at the bottom and the status
# lines' at the top; the board is framed in the space between (client.playlayout)
HISTORY_LEFT = 0.03
HISTORY_WIDTH = 1.0
BUTTONS_FROM_RIGHT = 0.26 + 9 * 0.045 / 2
BAR_HEIGHT = 0.44
TOP_LINES = 0.12
SELECTED_ROW = (0.42, 0.34, 0.08, 0.95)
PLAIN_ROW = (0.0, 0.0, 0.0, 0.0)
log = logging.getLogger(__name__)

# (name, side or None for everything, button text, key)
PERSPECTIVES: tuple[tuple[str, Side | None, str, str], ...] = (
    ("all", None, "Everything (A)", "a"),
    ("black", Side.BLACK, "Black's view (B)", "b"),
    ("white", Side.WHITE, "White's view (W)", "w"),
)
HELP_LINE = ("Space play/pause   Left/Right step   Shift+Left/Right or PgUp/PgDn turn   "
             "Home/End   A everything, B Black's view, W White's view   [ ] speed   "
             "1 2 3 levels   Esc back")
MAX_REPLAY_BYTES = 64 * 1024 * 1024
# The wheel over a widget (DirectGui names only the mouse buttons' events).
WHEEL_UP = PGButton.getPressPrefix() + MouseButton.wheelUp().getName() + "-"
WHEEL_DOWN = PGButton.getPressPrefix() + MouseButton.wheelDown().getName() + "-"


# ---------------------------------------------------------------- opening


def load_replay(source: Path | Match | Replay, notation: bool = False) -> Replay:
    """A Replay from a save file, an R16 notation file (``notation=True``), a match in
    memory or a replay already open. A file that cannot be read or is not a game raises
    OSError, ValueError or a WecError saying why; an unfinished competitive game raises
    ReplayRefused (R14.3: its full history is revealed only when the game ends)."""
    if isinstance(source, Replay):
        return source
    if isinstance(source, Match):
        return Replay.of_match(source)
    path = Path(source)
    if path.stat().st_size > MAX_REPLAY_BYTES:
        raise ValueError(f"{path}: too large for a saved game "
                         f"({path.stat().st_size:,} bytes)")
    if notation:
        return Replay.of_match(match_from_notation(path.read_text(encoding="utf-8")))
    data = path.read_bytes()
    replay = Replay.open(data)
    _SAVE_BYTES[replay] = data  # for the viewer's verifying process
    return replay


# The bytes each replay opened by load_replay was read from, while that replay lives.
_SAVE_BYTES: weakref.WeakKeyDictionary[Replay, bytes] = weakref.WeakKeyDictionary()


def save_bytes_of(replay: Replay) -> bytes | None:
    """The save file's bytes ``replay`` was opened from by ``load_replay``, or None (a
    game in memory, a notation file, a Replay opened elsewhere)."""
    return _SAVE_BYTES.get(replay)


@dataclass(frozen=True)
class ReplayEntry:
    """One recent game in the Replays list: its file and one line about it."""

    path: Path
    text: str
    finished: bool
    openable: bool


def describe_save(path: Path) -> ReplayEntry:
    """``2026-11-22 14:03   Black monarchy v White monarchy   40 turns   White won
    (king captured)``: what the Replays list says of a saved game."""
    date = time.strftime("%Y-%m-%d %H:%M", time.localtime(path.stat().st_mtime))
    try:
        replay = load_replay(path)
        final = replay.position(replay.length)
    except ReplayRefused:
        return ReplayEntry(path, f"{date}   {path.stem}   competitive, in progress: no "
                           "replay before it ends (R14.3)", False, False)
    except (OSError, ValueError, WecError) as problem:
        return ReplayEntry(path, f"{date}   {path.stem}: cannot be replayed ({problem})",
                           False, False)
    options = final.options
    sides = (f"Black {options.government(Side.BLACK).value} v "
             f"White {options.government(Side.WHITE).value}")
    if final.result is not None:
        result = f"{final.result.winner.title} won ({final.result.reason})"
    else:
        result = "in progress"
    turns = f"{final.turn} turn{'s' if final.turn != 1 else ''}"
    return ReplayEntry(path, f"{date}   {sides}   {turns}   {result}", replay.finished, True)


# ---------------------------------------------------------------- history rows


@dataclass(frozen=True)
class HistoryRow:
    """A line of the history list: a turn heading (its R16 notation) or one step.
    ``target`` is the position index a click jumps to."""

    target: int
    step: int | None      # the step shown (1-based), or None for a turn heading
    heading: int | None   # the heading's turn order (0 = the first turn), or None


def history_rows(replay: Replay) -> list[HistoryRow]:
    """A heading at each turn start (jumps to it), then one line per step of that turn
    (jumps to the position after the step)."""
    rows: list[HistoryRow] = []
    starts = list(replay.turn_starts)
    order = 0
    for step in range(1, replay.length + 1):
        while order < len(starts) and starts[order] < step:
            rows.append(HistoryRow(starts[order], None, order))
            order += 1
        rows.append(HistoryRow(step, step, None))
    while order < len(starts):
        rows.append(HistoryRow(starts[order], None, order))
        order += 1
    return rows


def step_line(replay: Replay, step: int, perspective: Side | None) -> str:
    """One step in plain language as ``perspective`` knew it: everything (the step's
    summary), or for a side its own actions in full and of the enemy's only what it saw
    (R9, R14.3), like the play screen's history."""
    info = replay.steps[step - 1]
    if perspective is None or info.side is perspective or isinstance(info.intent, EndTurn):
        try:  # the piece named from the position it was played on
            before = replay.position(step - 1)
        except WecError:  # a file that does not replay: the step's words without it
            return f"{step}. {info.summary}"
        return f"{step}. {intent_words(info.intent, info.side, before)}"
    seen = narrate_all(e for e in replay.events(step, perspective)
                       if not isinstance(e, TurnEnded))
    if not seen:
        return f"{step}. {info.side.title}: {unseen_action_words(info.intent)}"
    told = "; ".join(seen)
    # a line that names its side already ("White Tank (3,4) -> ...") is not prefixed
    return f"{step}. {told}" if told.startswith(info.side.title) \
        else f"{step}. {info.side.title}: {told}"


def heading_line(replay: Replay, order: int, notation: Sequence[str]) -> str:
    """``Turn 5 Black: MV:RP(2,1)->(3,2)``: a turn and its R16 notation."""
    start = replay.turn_starts[order]
    if start < replay.length:
        info = replay.steps[start]
        title = f"Turn {info.turn} {info.side.title}"
    else:
        title = "Turn " + (str(replay.steps[-1].turn + 1) if replay.steps else "1")
    written = notation[order] if order < len(notation) else ""
    return f"{title}: {written}" if written else title


def shorten(text: str, limit: int = ROW_CHARS) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."


def integrity_text(verification: Verification | None, length: int) -> str:
    """``Verifying 1,234 / 6,000``, ``All 6,000 steps verified`` or the first bad step."""
    if verification is None:
        return f"Verifying 0 / {length:,}"
    if verification.error is not None:
        error = verification.error
        return f"Step {error.step} (turn {error.turn}) fails the integrity check"
    if verification.checked >= verification.total:
        noun = "step" if verification.total == 1 else "steps"
        return f"All {verification.total:,} {noun} verified"
    return f"Verifying {verification.checked:,} / {verification.total:,}"


# ---------------------------------------------------------------- widgets


def _card(parent: NodePath, name: str, frame: tuple[float, float, float, float],
          colour: tuple[float, float, float, float]) -> NodePath:
    """A flat coloured rectangle on the 2D layer (not clickable, unlike a DirectFrame)."""
    maker = CardMaker(name)
    maker.setFrame(*frame)
    card = parent.attachNewNode(maker.generate())
    card.setColor(*colour)
    card.setTransparency(TransparencyAttrib.MAlpha)
    return card


class Timeline:
    """The bar under the board: one tick per turn start (a taller, numbered tick every
    few turns), the part already played, the verified part (a green line under the
    bar), the part past a failed check (red), and the cursor. A click or a drag seeks."""

    HEIGHT = 0.045

    def __init__(self, parent: Any, width: float, y: float, replay: Replay,
                 on_press: Callable[[], None], on_release: Callable[[], None]) -> None:
        self.length = max(replay.length, 1)
        self.left, self.right = -width / 2, width / 2
        half = self.HEIGHT / 2
        self.frame = DirectFrame(parent=parent, pos=(0, 0, y), state=DGG.NORMAL,
                                 frameColor=(0.16, 0.18, 0.22, 1.0),
                                 frameSize=(self.left, self.right, -half, half))
        self.frame.setName("replay-timeline")
        self.frame.bind(DGG.B1PRESS, lambda _event: on_press())
        self.frame.bind(DGG.B1RELEASE, lambda _event: on_release())
        top = self.frame.attachNewNode("timeline-parts")
        self.played = _card(top, "played", (0, 1, -half, half), (0.62, 0.52, 0.16, 1.0))
        self.played.setPos(self.left, 0, 0)
        self.verified = _card(top, "verified", (0, 1, -half - 0.014, -half - 0.004), GOOD)
        self.verified.setPos(self.left, 0, 0)
        self.verified.setSx(0.0001)
        self.bad = _card(top, "bad", (0, 1, -half, half), (0.75, 0.15, 0.12, 1.0))
        self.bad.hide()
        self._ticks(top, replay, half)
        self.cursor = _card(top, "cursor", (-0.007, 0.007, -half - 0.02, half + 0.02),
                            (1.0, 0.95, 0.75, 1.0))
        self.show_index(0)

    def x_of(self, index: int) -> float:
        return self.left + (self.right - self.left) * index / self.length

    def index_at(self, x: float) -> int:
        """The position index under a point of the bar (in the bar's coordinates)."""
        fraction = (x - self.left) / (self.right - self.left)
        return max(0, min(self.length, round(fraction * self.length)))

    def _ticks(self, parent: NodePath, replay: Replay, half: float) -> None:
        starts = replay.turn_starts
        every = next((n for n in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000)
                      if len(starts) / n <= 10), 10000)
        lines = LineSegs("turn-marks")
        lines.setThickness(1.0)
        lines.setColor(0.7, 0.72, 0.78, 1.0)
        for order, start in enumerate(starts):
            x = self.x_of(start)
            tall = order % every == 0
            lines.moveTo(x, 0, half + (0.028 if tall else 0.012))
            lines.drawTo(x, 0, -half)
            if tall and start < replay.length:
                OnscreenText(parent=parent, text=f"turn {replay.steps[start].turn}",
                             pos=(x, half + 0.036), scale=0.028, fg=TEXT,
                             align=TextNode.ACenter)
        parent.attachNewNode(lines.create())

    def show_index(self, index: int) -> None:
        x = self.x_of(index)
        self.played.setSx(max(x - self.left, 0.0001))
        self.cursor.setX(x)

    def show_verified(self, checked: int) -> None:
        self.verified.setSx(max(self.x_of(checked) - self.left, 0.0001))

    def show_bad_from(self, index: int) -> None:
        x = self.x_of(index)
        self.bad.setPos(x, 0, 0)
        self.bad.setSx(max(self.right - x, 0.0001))
        self.bad.show()

    def destroy(self) -> None:
        self.frame.destroy()


class HistoryList:
    """The history list: a window of ``HISTORY_ROWS`` clickable lines over every turn
    heading and step (any game length), scrolled by the wheel or the arrows, with the
    current step highlighted."""

    def __init__(self, parent: Any, pos: tuple[float, float], width: float,
                 rows: list[HistoryRow], text_of: Callable[[int], str],
                 on_pick: Callable[[HistoryRow], None]) -> None:
        self.rows = rows
        self.text_of = text_of
        self.on_pick = on_pick
        self.top = 0
        self.current = 0
        spacing = 0.062
        height = 0.2 + spacing * HISTORY_ROWS
        self.frame = DirectFrame(parent=parent, frameColor=PANEL, pos=(pos[0], 0, pos[1]),
                                 frameSize=(0, width, -height, 0))
        self.frame.setName("history-list")
        OnscreenText(parent=self.frame, text="History (click to jump)", pos=(0.03, -0.06),
                     scale=0.042, fg=ACCENT, align=TextNode.ALeft)
        scale = 0.032
        self.buttons: list[DirectButton] = []
        for slot in range(HISTORY_ROWS):
            row = DirectButton(parent=self.frame, text="", scale=scale,
                               pos=(0.02, 0, -0.13 - spacing * slot),
                               text_align=TextNode.ALeft, text_fg=TEXT, text_pos=(0.3, 0),
                               frameSize=(0, (width - 0.04) / scale, -0.5, 1.1),
                               frameColor=PLAIN_ROW, relief=DGG.FLAT,
                               command=self._pick, extraArgs=[slot])
            row.setName(f"history-row-{slot}")
            self._wheel(row)
            self.buttons.append(row)
        self._wheel(self.frame)
        self.up = arrow_button(self.frame, True, self.scroll, (width - 0.16, -0.055), 2,
                               args=[-HISTORY_ROWS // 2], name="history-up")
        self.down = arrow_button(self.frame, False, self.scroll, (width - 0.06, -0.055), 2,
                                 args=[HISTORY_ROWS // 2], name="history-down")

    def _wheel(self, widget: Any) -> None:
        widget.bind(WHEEL_UP, lambda _event: self.scroll(-3))
        widget.bind(WHEEL_DOWN, lambda _event: self.scroll(3))

    def _pick(self, slot: int) -> None:
        if self.top + slot < len(self.rows):
            self.on_pick(self.rows[self.top + slot])

    def scroll(self, lines: int) -> None:
        most = max(0, len(self.rows) - HISTORY_ROWS)
        self.top = max(0, min(most, self.top + lines))
        self.refresh()

    def follow(self, current: int) -> None:
        """Highlight row ``current`` and scroll it into view if it is out of sight."""
        self.current = current
        if not self.top <= current < self.top + HISTORY_ROWS:
            self.top = max(0, min(max(0, len(self.rows) - HISTORY_ROWS),
                                  current - HISTORY_ROWS // 3))
        self.refresh()

    def refresh(self) -> None:
        for slot, row_button in enumerate(self.buttons):
            index = self.top + slot
            if index >= len(self.rows):
                row_button["text"] = ""
                row_button.hide()
                continue
            row_button.show()
            row_button["text"] = shorten(self.text_of(index))
            selected = index == self.current
            row_button["frameColor"] = SELECTED_ROW if selected else PLAIN_ROW
            row_button["text_fg"] = ACCENT if selected else TEXT

    def visible_texts(self) -> list[str]:
        return [str(b["text"]) for b in self.buttons if not b.isHidden()]

    def destroy(self) -> None:
        self.frame.destroy()


class IntegrityPanel:
    """The panel shown when a step does not check out: which step, which turn, and that
    nothing from it on is shown."""

    def __init__(self, parent: Any, error: ReplayIntegrityError,
                 on_look: Callable[[], None], on_back: Callable[[], None]) -> None:
        self.frame = DirectFrame(parent=parent, frameColor=(0.14, 0.04, 0.04, 1.0),
                                 frameSize=(-1.1, 1.1, -0.44, 0.5))
        self.frame.setName("integrity-panel")
        OnscreenText(parent=self.frame, text="This replay does not check out",
                     pos=(0, 0.36), scale=0.075, fg=REFUSAL)
        detail = str(error).rstrip(".")
        self.text = (f"{detail}.\n\nThe replay stops before step {error.step} (turn "
                     f"{error.turn}): nothing from that step on is shown.")
        OnscreenText(parent=self.frame, text=self.text, pos=(0, 0.24), scale=0.045,
                     fg=TEXT, wordwrap=42)
        button(self.frame, "Look at the positions before it", on_look, (0, -0.22),
               width=16, name="integrity-look")
        button(self.frame, "Back (Esc)", on_back, (0, -0.34), width=16,
               name="integrity-back")

    def destroy(self) -> None:
        self.frame.destroy()


# ---------------------------------------------------------------- the screen


class ReplayScreen(DirectObject):
    """A finished (or non-competitive) game, replayed on the 3D board."""

    def __init__(self, app: Any, replay: Replay, on_leave: Callable[[], None],
                 title: str = "") -> None:
        super().__init__()
        self.app = app
        self.base = app.base
        self.replay = replay
        self.on_leave = on_leave
        self.title = title
        self.index = 0
        self.perspective: Side | None = None
        self.playing = False
        self.speed = 1.0
        self.limit = replay.length       # the last index that may be shown
        self.error: ReplayIntegrityError | None = None
        self.verification: Verification | None = None
        self.background: BackgroundVerification | None = None
        self.dragging = False
        self._since_step = 0.0
        self._texts: dict[tuple[Side | None, int], str] = {}
        self._notation: dict[Side | None, list[str]] = {}
        self.rows = history_rows(replay)
        self._row_of_step = {row.step: n for n, row in enumerate(self.rows)
                             if row.step is not None}
        self.scene = BoardScene(self.base, app.models, app.shading,
                                app.settings.animation_speed, app.settings.palette)
        self.scene.show_markers = app.settings.last_seen_markers
        self.scene.show_reinforcement_squares = app.settings.reinforcement_squares
        self.camera = OrbitCamera(self.base, Side.WHITE)
        self._camera_home(Side.WHITE)
        self.integrity_panel: IntegrityPanel | None = None
        self._build_hud()
        self._bind()
        self._display(0)
        self._start_verification()
        self.base.taskMgr.add(self._frame, "replay-frame")

    # ------------------------------------------------------------------ building

    def _build_hud(self) -> None:
        base = self.base
        self.heading = OnscreenText(parent=base.a2dTopCenter, text=self.title,
                                    pos=(0, -0.07), scale=0.04, fg=(0.7, 0.7, 0.72, 1.0))
        self.status = label(base.a2dTopLeft, "", (0.04, -0.08), scale=0.05)
        self.detail = OnscreenText(parent=base.a2dTopLeft, text="", pos=(0.04, -0.2),
                                   scale=0.036, fg=TEXT, align=TextNode.ALeft,
                                   wordwrap=34, mayChange=True)
        self.integrity = OnscreenText(parent=base.a2dTopLeft, text="", pos=(0.04, -0.14),
                                      scale=0.038, fg=WORKING, align=TextNode.ALeft,
                                      mayChange=True)
        self.history = HistoryList(base.a2dTopLeft, (HISTORY_LEFT, -0.42), HISTORY_WIDTH,
                                   self.rows, self._row_text, self._row_picked)
        top = base.a2dTopRight
        self.perspective_buttons = {
            side: button(top, text, self.set_perspective, (-0.26, -0.08 - 0.1 * n), width=9,
                         args=[side], name=f"perspective-{name}")
            for n, (name, side, text, _key) in enumerate(PERSPECTIVES)}
        self.level_buttons = {
            level: button(top, f"{level.label.title()} ({n + 1})", self.toggle_level,
                          (-0.26, -0.45 - 0.1 * n), width=9, args=[level],
                          name=f"replay-level-{level.label}")
            for n, level in enumerate((AIR, GROUND, SUB))}
        self.back_button = button(top, "Back (Esc)", self.leave, (-0.26, -0.82), width=9,
                                  name="replay-back")
        self._build_bar()

    def _build_bar(self) -> None:
        base = self.base
        ratio = base.getAspectRatio()
        self.bar = DirectFrame(parent=base.a2dBottomCenter, frameColor=BAR,
                               frameSize=(-ratio, ratio, 0, BAR_HEIGHT))
        self.bar.setName("replay-bar")
        self.timeline = Timeline(self.bar, 2 * ratio - 0.3, 0.34, self.replay,
                                 self._start_drag, self._end_drag)
        controls = (("|< Start", self.to_start, 4.6, "replay-start"),
                    ("<< Turn", self.previous_turn, 4.6, "replay-turn-back"),
                    ("< Step", self.step_back, 4.2, "replay-step-back"),
                    ("Play (Space)", self.toggle_play, 6.8, "replay-play"),
                    ("Step >", self.step_forward, 4.2, "replay-step-forward"),
                    ("Turn >>", self.next_turn, 4.6, "replay-turn-forward"),
                    ("End >|", self.to_end, 4.6, "replay-end"))
        speeds = [(f"{speed:g}x", 2.8, f"speed-{speed:g}x", speed) for speed in PLAYBACK_SPEEDS]
        gap = 0.02
        total = sum(w for _, _, w, _ in controls) * 0.045 + sum(s[1] for s in speeds) * 0.045
        total += gap * (len(controls) + len(speeds)) + 0.1
        x = -total / 2
        self.controls: dict[str, DirectButton] = {}
        for text, command, width, name in controls:
            size = width * 0.045
            self.controls[name] = button(self.bar, text, command, (x + size / 2, 0.17),
                                         width=width, name=name)
            x += size + gap
        x += 0.1
        self.speed_buttons: dict[float, DirectButton] = {}
        for text, width, name, speed in speeds:
            size = width * 0.045
            self.speed_buttons[speed] = button(self.bar, text, self.set_speed,
                                               (x + size / 2, 0.17),
                                               width=width, args=[speed], name=name)
            x += size + gap
        self.help = OnscreenText(parent=self.bar, text=HELP_LINE, pos=(0, 0.05),
                                 scale=0.028, fg=(0.7, 0.7, 0.72, 1.0))

    def _bind(self) -> None:
        self.accept("space", self.toggle_play)
        for key, method in (("arrow_right", self.step_forward), ("arrow_left", self.step_back),
                            ("page_down", self.next_turn), ("page_up", self.previous_turn),
                            ("shift-arrow_right", self.next_turn),
                            ("shift-arrow_left", self.previous_turn)):
            self.accept(key, method)
            self.accept(f"{key}-repeat", method)
        self.accept("home", self.to_start)
        self.accept("end", self.to_end)
        for _name, side, _text, key in PERSPECTIVES:
            self.accept(key, self.set_perspective, [side])
        self.accept("[", self.change_speed, [-1])
        self.accept("]", self.change_speed, [1])
        for n, level in enumerate((AIR, GROUND, SUB)):
            self.accept(str(n + 1), self.toggle_level, [level])
        self.accept("escape", self.leave)
        self.accept("aspectRatioChanged", self._relayout)
        self.accept("mouse1-up", self._end_drag)
        taken = {"arrow_left", "arrow_right", "shift-arrow_left",  # replay keys win
                 "shift-arrow_right"}

        def camera_accept(event: str, method: Callable[..., Any],
                          extra: list[Any] | None = None) -> None:
            if event == "mouse1-up":  # one handler per event: end both drags
                def both() -> None:
                    self._end_drag()
                    method(*(extra or []))

                self.accept(event, both)
            elif event.removesuffix("-up") not in taken:
                self.accept(event, method, extra or [])

        self.camera.bind(camera_accept)

    def _relayout(self) -> None:
        """The window changed shape: the bottom bar spans it again."""
        self.timeline.destroy()
        self.bar.destroy()
        self._build_bar()
        if self.verification is not None:
            self.timeline.show_verified(self.verification.checked)
        if self.error is not None:
            self.timeline.show_bad_from(self.error.step)
        self._refresh()

    # ------------------------------------------------------------------ showing

    @property
    def view(self) -> Any:
        """The position the board shows now."""
        return self.scene.view

    def _display(self, index: int, animate: bool = False) -> bool:
        """Show position ``index`` (animating its step when ``animate``); False when the
        integrity check refuses it."""
        index = max(0, min(self.limit, index))
        try:
            view = self.replay.view(index, self.perspective)
            events = (self.replay.events(index, self.perspective)
                      if animate and index > 0 else ())
        except ReplayIntegrityError as error:
            self._integrity_failed(error)
            return False
        self.index = index
        self.scene.show(view, events)
        if events and self.scene.animation is not None and self.playing:
            self.scene.animation.setPlayRate(self.speed)
        self._refresh()
        return True

    def _refresh(self) -> None:
        view = self.scene.view
        length = self.replay.length
        if view is None:
            self.status["text"] = "Replay"
        elif self.index == 0:
            self.status["text"] = f"Replay: start, turn {view.turn}   ({length:,} steps)"
        else:
            self.status["text"] = (f"Replay: turn {view.turn}, step {self.index:,} of "
                                   f"{length:,}")
        lines = []
        if self.index > 0:
            lines.append(shorten(step_line(self.replay, self.index, self.perspective), 150))
        if view is not None and view.result is not None:
            lines.append(f"Game over: {view.result.winner.title} won ({view.result.reason})")
        seen = ("Everything shown" if self.perspective is None
                else f"{self.perspective.title}'s view at that moment")
        lines.append(f"{seen}; {self.speed:g}x" + ("" if self.playing else ", paused"))
        self.detail.setText("\n".join(lines))
        self.timeline.show_index(self.index)
        self.history.follow(self._current_row())
        self.controls["replay-play"]["text"] = "Pause (Space)" if self.playing \
            else "Play (Space)"
        fit_label(self.controls["replay-play"])
        for side, widget in self.perspective_buttons.items():
            widget["text_fg"] = ACCENT if side is self.perspective else TEXT
        for speed, widget in self.speed_buttons.items():
            widget["text_fg"] = ACCENT if speed == self.speed else TEXT

    def _current_row(self) -> int:
        if self.index == 0:
            return 0
        return self._row_of_step.get(self.index, 0)

    def _row_text(self, row_index: int) -> str:
        row = self.rows[row_index]
        if row.target > self.limit:  # at or past the first bad step: nothing of it
            what = f"{row.step}." if row.step is not None else "Turn"
            return f"    {what} not shown: it fails the integrity check"
        key = (self.perspective, row_index)
        if key not in self._texts:
            try:
                if row.step is not None:
                    text = "    " + step_line(self.replay, row.step, self.perspective)
                else:
                    assert row.heading is not None
                    text = heading_line(self.replay, row.heading, self._notation_of()
                                        if self._turn_checks_out(row.heading) else [])
            except ReplayIntegrityError:  # found by the check, which reports it
                return f"    {row.step}. not shown: it fails the integrity check"
            self._texts[key] = text
        return self._texts[key]

    def _turn_checks_out(self, order: int) -> bool:
        """False for the turn holding the first bad step: its recorded notation is not
        shown either."""
        if self.error is None:
            return True
        starts = self.replay.turn_starts
        end = starts[order + 1] if order + 1 < len(starts) else self.replay.length
        return end < self.error.step

    def _notation_of(self) -> list[str]:
        if self.perspective not in self._notation:
            try:
                self._notation[self.perspective] = self.replay.turn_notation(self.perspective)
            except ReplayIntegrityError:
                self._notation[self.perspective] = []  # headings without their notation
        return self._notation[self.perspective]

    # ------------------------------------------------------------------ navigation

    def seek(self, index: int) -> None:
        """Jump to position ``index`` without animation."""
        self._display(index)

    def step_forward(self) -> None:
        """One step on, animating what the perspective saw of it."""
        if self.index < self.limit:
            self._display(self.index + 1, animate=True)

    def step_back(self) -> None:
        if self.index > 0:
            self._display(self.index - 1)

    def next_turn(self) -> None:
        later = [s for s in self.replay.turn_starts if s > self.index]
        self.seek(later[0] if later else self.replay.length)

    def previous_turn(self) -> None:
        earlier = [s for s in self.replay.turn_starts if s < self.index]
        self.seek(earlier[-1] if earlier else 0)

    def to_start(self) -> None:
        self.seek(0)

    def to_end(self) -> None:
        self.seek(self.replay.length)

    def toggle_play(self) -> None:
        if self.playing:
            self.playing = False
        else:
            if self.index >= self.limit:
                self.seek(0)
            self.playing = self.index < self.limit
            self._since_step = 0.0
        self._refresh()

    def set_speed(self, speed: float) -> None:
        self.speed = speed
        self._refresh()

    def change_speed(self, direction: int) -> None:
        at = PLAYBACK_SPEEDS.index(self.speed) + direction
        self.set_speed(PLAYBACK_SPEEDS[max(0, min(len(PLAYBACK_SPEEDS) - 1, at))])

    def set_perspective(self, side: Side | None) -> None:
        """Everything (None), or what one side knew at that moment (R9)."""
        if side is not self.perspective and side is not None:
            self._camera_home(side)
        self.perspective = side
        self._display(self.index)

    def _camera_home(self, side: Side) -> None:
        """Behind ``side``, the board framed between the panels (the history list, the
        buttons, the timeline bar), as the play screen frames it: until session 22 it was
        drawn under them, the first two columns behind the history list and the first
        row behind the bar."""
        self.camera.set_orbit(framed(home_orbit(side), self.base.camLens,
                                     self.board_space()))

    def board_space(self) -> tuple[float, float, float, float]:
        """The space between the panels, in normalised device coordinates (left,
        right, bottom, top)."""
        ratio = self.base.getAspectRatio()
        left = -ratio + HISTORY_LEFT + HISTORY_WIDTH + MARGIN
        right = ratio - BUTTONS_FROM_RIGHT - MARGIN
        return (left / ratio, right / ratio, -1 + BAR_HEIGHT + MARGIN, 1 - TOP_LINES)

    def toggle_level(self, level: Level) -> None:
        self.scene.set_level_shown(level, not self.scene.layer_shown[level])

    def _row_picked(self, row: HistoryRow) -> None:
        self.playing = False
        self.seek(row.target)

    # ------------------------------------------------------------------ timeline drag

    def _start_drag(self) -> None:
        self.dragging = True
        self.playing = False
        self._follow_drag()

    def _end_drag(self) -> None:
        self.dragging = False

    def _follow_drag(self) -> None:
        watcher = self.base.mouseWatcherNode
        if not self.dragging or watcher is None or not watcher.hasMouse():
            return
        mouse = watcher.getMouse()
        local = self.timeline.frame.getRelativePoint(self.base.render2d,
                                                     Point3(mouse.x, 0, mouse.y))
        index = self.timeline.index_at(local.x)
        if index != self.index or self.scene.view is None:
            self.seek(index)

    # ------------------------------------------------------------------ integrity

    def _start_verification(self) -> None:
        """Start the full check (issue 7 item 4) in a worker process when the replay
        has unchecked steps and a save's bytes to give it; otherwise the frames check
        in slices (nothing to check takes no time either way)."""
        if self.replay.verify(0).done:
            return
        data = save_bytes_of(self.replay)
        if data is None:
            log.info("replay verification runs in the viewer's frames: no save file's "
                     "bytes for this replay")
            return
        self.background = start_background_verification(data, self.replay.length)

    def _verify_some(self) -> None:
        """Show the integrity check's progress: the worker's latest report, or a few
        milliseconds more of the check itself without a worker (issue 7 item 4)."""
        found = self.verification
        if found is not None and found.done:
            return
        if self.background is not None:
            found = self.background.poll()
            if self.background.failure is not None:
                log.warning("replay verification continues in the viewer's frames: %s",
                            self.background.failure)
                self._stop_background()
                return
        else:
            found = self._verify_slice()
        self.verification = found
        self.timeline.show_verified(found.checked)
        if found.error is not None:
            self._integrity_failed(found.error)
        else:
            self.integrity.setText(integrity_text(found, self.replay.length))
            done = found.checked >= found.total
            self.integrity["fg"] = GOOD if done else WORKING

    def _verify_slice(self) -> Verification:
        """A few milliseconds of the check in this frame (a quarter while playing or
        dragging, so the viewer stays smooth)."""
        busy = self.playing or self.dragging
        deadline = time.perf_counter() + VERIFY_SECONDS / (4 if busy else 1)
        while True:
            found = self.replay.verify(1)
            if found.done or time.perf_counter() >= deadline:
                return found

    def _stop_background(self) -> None:
        if self.background is not None:
            self.background.cancel()
            self.background = None

    def _integrity_failed(self, error: ReplayIntegrityError) -> None:
        """Stop at the first bad step: no position from it on is shown again."""
        if self.error is not None and self.error.step <= error.step:
            return
        self.error = error
        self.playing = False
        self._texts.clear()  # the history list loses what is past the bad step
        self.limit = max(0, error.step - 1)
        self.timeline.show_bad_from(error.step)
        self.integrity.setText(f"Step {error.step} (turn {error.turn}) fails the integrity "
                               "check: the replay stops before it")
        self.integrity["fg"] = REFUSAL
        if self.integrity_panel is not None:
            self.integrity_panel.destroy()
        self.integrity_panel = IntegrityPanel(self.base.aspect2d, error,
                                              self.close_integrity_panel, self.leave)
        needs_redraw = self.index > self.limit or self.scene.view is None
        if needs_redraw and not self._display(self.limit):
            return
        self._refresh()

    def close_integrity_panel(self) -> None:
        if self.integrity_panel is not None:
            self.integrity_panel.destroy()
            self.integrity_panel = None

    # ------------------------------------------------------------------ frame

    def _frame(self, task: Task) -> int:
        dt = follow_view(self.base, self.camera, self.scene, self.app.shading, task)
        if self.dragging:
            watcher = self.base.mouseWatcherNode
            if watcher is not None and not watcher.isButtonDown(MouseButton.one()):
                self.dragging = False
            self._follow_drag()
        self._verify_some()
        if self.playing:
            self._since_step += dt
            if self._since_step >= STEP_SECONDS / self.speed:
                self._since_step = 0.0
                self.step_forward()
                if self.index >= self.limit:
                    self.playing = False
                    self._refresh()
        return task.cont

    def leave(self) -> None:
        self.destroy()
        self.on_leave()

    def destroy(self) -> None:
        self.ignoreAll()
        self.base.taskMgr.remove("replay-frame")
        self.base.camLens.setFilmOffset(0, 0)  # the board framed for this screen only
        self._stop_background()
        self.close_integrity_panel()
        self.history.destroy()
        self.timeline.destroy()
        self.bar.destroy()
        for widget in (self.status, self.back_button, *self.perspective_buttons.values(),
                       *self.level_buttons.values()):
            widget.destroy()
        for text in (self.heading, self.detail, self.integrity):
            text.destroy()
        self.scene.destroy()
