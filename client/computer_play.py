"""Human vs Computer (issue 19): the setup screen and the play screen of a game against
the computer opponent (wec.computer, docs/computer.md).

``ComputerSetupScreen`` picks the human's side and the computer's level (the per-move
budget is the level's own). ``ComputerPlayScreen`` is the hotseat play screen with the
human's side always at the seat (no hand-over curtain; the board, panels and move list
show only the human's view and events until the game ends). When the computer is to
act, its side's view goes to a worker process (client.computer_worker) with everything
its side was told of the game so far; the window keeps drawing meanwhile (the camera
orbits, the pointer reads the board) and a "thinking" line with a moving ellipsis stands
above the board. Its intents come back one at a time and are played like the human's,
each animated from the human's side (what the human may see of it) before the next.

Undo (non-competitive games, R14.2) takes back the computer's last turn and the human's
last action (its End: the human is back in its own turn; Undo again takes back more, one
action at a time); the computer then forgets the game and is told it again from the
start when it next thinks.
``wec.benchmarks.thinking_frames`` measures this screen's frame while the computer thinks
(the frame-rate figure of ``wec bench computer``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from direct.gui.OnscreenText import OnscreenText
from panda3d.core import TextNode

from wec.client.computer_worker import ComputerWorker
from wec.client.hud import ACCENT, DIM, TEXT, button
from wec.client.interaction import Interaction
from wec.client.menus import Screen
from wec.client.narration import narrate
from wec.client.play import PlayScreen
from wec.client.session import HotseatSession
from wec.computer import DEFAULT_LEVEL, LEVELS, NAMES
from wec.computer.arena import match_observations
from wec.engine.errors import IllegalIntent
from wec.engine.intents import EndTurn, Intent
from wec.engine.match import Action, Match
from wec.engine.pieces import Side
from wec.engine.position import Position

# per-move budgets offered (reference seconds, turned into a fixed amount of work:
# wec.computer.levels); None: the level's own
BUDGETS: tuple[float | None, ...] = (None, 0.5, 2.0, 5.0)
BUDGET_NAMES: dict[float | None, str] = {None: "Level's own", 0.5: "Quick (0.5 s)",
                                         2.0: "2 s", 5.0: "Deep (5 s)"}
PAUSE_SECONDS = 0.35  # between two of the computer's actions, once the last is animated
THINKING = "thinking-indicator"


class ComputerSession(HotseatSession):
    """A hotseat match with one side played by the computer."""

    def __init__(self, match: Match, human: Side, level: int, seed: int = 0,
                 budget: float | None = None) -> None:
        super().__init__(match)
        self.human = human
        self.level, self.seed, self.budget = level, seed, budget

    @classmethod
    def against(cls, start: Position, human: Side, level: int = DEFAULT_LEVEL,
                seed: int = 0, budget: float | None = None) -> ComputerSession:
        return cls(Match.begin(start), human, level, seed, budget)

    @property
    def computer(self) -> Side:
        return self.human.other


class ComputerSetupScreen(Screen):
    """New game "Human vs Computer": the human's side, the computer's level and its time
    per move."""

    def __init__(self, base: Any, on_start: Callable[[Side, int, float | None], Any],
                 on_back: Callable[[], Any]) -> None:
        super().__init__(base, "computer-setup")
        self.on_start = on_start
        self.side = Side.BLACK
        self.level = DEFAULT_LEVEL
        self.budget: float | None = None
        OnscreenText(parent=self.frame, text="Human vs Computer", pos=(0, 0.7), scale=0.09,
                     fg=ACCENT)
        OnscreenText(parent=self.frame, text="The standard game (R13 defaults, R15 setup), "
                     "fog of war on. The computer sees only what its side may see.",
                     pos=(0, 0.58), scale=0.04, fg=TEXT, wordwrap=40)
        OnscreenText(parent=self.frame, text="You play", pos=(0, 0.4), scale=0.05, fg=TEXT)
        self.side_buttons = {
            side: button(self.frame, f"{side.title}" + (" (moves first)" if side is Side.BLACK
                                                          else ""),
                         self.choose_side, (x, 0.28), width=10, args=[side],
                         name=f"computer-side-{side.value}")
            for side, x in ((Side.BLACK, -0.35), (Side.WHITE, 0.35))}
        OnscreenText(parent=self.frame, text="Computer level", pos=(0, 0.1), scale=0.05,
                     fg=TEXT)
        self.level_buttons = {
            level: button(self.frame, f"{level} {NAMES[level]}", self.choose_level,
                          (-0.6 + 0.6 * i, -0.02), width=8, args=[level],
                          name=f"computer-level-{level}")
            for i, level in enumerate(sorted(LEVELS))}
        OnscreenText(parent=self.frame, text="Time per move", pos=(0, -0.18), scale=0.05,
                     fg=TEXT)
        self.budget_buttons = {
            budget: button(self.frame, BUDGET_NAMES[budget], self.choose_budget,
                           (-0.75 + 0.5 * i, -0.3), width=7, args=[budget],
                           name=f"computer-budget-{i}")
            for i, budget in enumerate(BUDGETS)}
        self.summary = OnscreenText(parent=self.frame, text="", pos=(0, -0.48), scale=0.042,
                                    fg=DIM, mayChange=True, wordwrap=40)
        button(self.frame, "Start", self.start, (0.35, -0.7), width=8, name="computer-start")
        button(self.frame, "Back", on_back, (-0.35, -0.7), width=8, name="back")
        self._show()

    def choose_budget(self, budget: float | None) -> None:
        self.budget = budget
        self._show()

    def choose_side(self, side: Side) -> None:
        self.side = side
        self._show()

    def choose_level(self, level: int) -> None:
        self.level = level
        self._show()

    def _show(self) -> None:
        for side, made in self.side_buttons.items():
            made["text_fg"] = ACCENT if side is self.side else TEXT
        for level, made in self.level_buttons.items():
            made["text_fg"] = ACCENT if level == self.level else TEXT
        for budget, made in self.budget_buttons.items():
            made["text_fg"] = ACCENT if budget == self.budget else TEXT
        self.summary.setText(f"You: {self.side.title}.  Computer: {self.side.other.title}, "
                             f"level {self.level} ({NAMES[self.level]}), "
                             f"{BUDGET_NAMES[self.budget].lower()} per move.")

    def start(self) -> Any:
        return self.on_start(self.side, self.level, self.budget)


class ComputerPlayScreen(PlayScreen):
    """The play screen of a Human vs Computer game (see the module docstring)."""

    def __init__(self, app: Any, session: ComputerSession,
                 on_leave: Callable[[], None], resumed: bool = False) -> None:
        self.worker = ComputerWorker(session.computer, session.level, session.seed,
                                     session.budget)
        self.told = 0  # steps of the match the worker was told (the start counts as one)
        self.paused_until = 0.0
        self.thinking_since: float | None = None
        super().__init__(app, session, on_leave, resumed)
        self.thinking = OnscreenText(parent=self.hud, text="", pos=(0, 0.9), scale=0.05,
                                     fg=ACCENT, align=TextNode.ACenter, mayChange=True)
        self.thinking.setName(THINKING)
        self.thinking.hide()
        self.go_home()

    @property
    def computer_session(self) -> ComputerSession:
        assert isinstance(self.session, ComputerSession)
        return self.session

    # ------------------------------------------------------------ whose view

    @property
    def viewer(self) -> Any:
        """The human's side, always."""
        return self.computer_session.human

    @property
    def humans_turn(self) -> bool:
        return self.session.current.side_to_act is self.viewer

    def _uses_curtain(self) -> bool:
        return False  # one player at the seat

    def reveals_all(self) -> bool:
        """The computer's hidden moves stay hidden from the human until the game ends."""
        return self._finished()

    def _wanted_buttons(self) -> dict[str, bool]:
        return {**super()._wanted_buttons(), "edit-board": False}

    def _mode_text(self) -> str:
        """Against the computer the history is the human's side's until the game ends,
        whatever the mode (``reveals_all``); the mode only decides undo (R14.2, R14.3)."""
        if self.session.match.competitive:
            return "against the computer, competitive: no undo, your side's history (R14.3)"
        return "against the computer: undo on, your side's history until the end (R14.2)"

    def open_editor(self) -> None:
        """The editor's buffer is the whole position, the computer's hidden pieces
        included: not offered against the computer (R14.4 is a hotseat tool)."""
        self.say("The board editor is not available against the computer: it would show "
                  "the computer's hidden pieces (R14.4)", refused=True)

    def _interaction(self) -> Interaction:
        legal = self.session.legal() if self.humans_turn and not self._finished() else []
        return Interaction(self.session.view(self.viewer), legal)

    # ------------------------------------------------------------ the human's actions

    def send(self, intent: Intent) -> bool:
        if not self.humans_turn:
            self.say("The computer is thinking: wait for its move")
            return False
        return super().send(intent)

    def _click(self, right: bool) -> None:
        if not self.humans_turn and not self._finished() and not self._blocked():
            self.say("The computer is thinking: wait for its move")
            return
        super()._click(right)

    def say(self, text: str, refused: bool = False) -> None:
        self._say(text, refused)
        self._refresh_hud()

    def undo(self) -> None:
        """R14.2: back into the human's turn: the computer's actions since and the human's
        last action taken back."""
        session = self.session
        if not session.can_undo or self._blocked():
            return
        while session.can_undo and session.match.history[-1].side is not self.viewer:
            session.undo()
        if session.can_undo:
            session.undo()
        self.worker.reset()
        self.told = 0
        self._close_popups()
        self.interaction = self._interaction()
        self._say("Undone back to your turn (R14.2)")
        self.go_home()
        self.redraw()

    # ------------------------------------------------------------ the computer's actions

    def _frame(self, task: Any) -> int:
        result = super()._frame(task)
        self.computer_step()
        return result

    def computer_step(self) -> None:
        """Once a frame: ask the worker when the computer is to act, play what it sent
        once the last animation is over, keep the indicator up while it thinks."""
        if self._finished() or self.cover is not None:
            self._show_thinking(False)
            return
        if self.humans_turn:
            self._show_thinking(False)
            return
        worker = self.worker
        if worker.failure is not None:
            self._show_thinking(False)
            self.say(f"The computer stopped: {worker.failure}", refused=True)
            worker.failure = None
            self._play_computer(self._fallback())
            return
        if worker.thinking:
            intent = worker.poll()
            if intent is None:
                self._show_thinking(worker.thinking)
                return
            self._play_computer(intent)
            return
        animation = self.scene.animation
        if time.monotonic() < self.paused_until or (animation is not None
                                                    and animation.isPlaying()):
            return
        self._tell_worker()
        worker.think(self.session.view(self.computer_session.computer))
        self._show_thinking(True)

    def _tell_worker(self) -> None:
        """Everything the computer's side was told since the worker last heard."""
        match = self.session.match
        steps = len(match.history) + 1
        if steps < self.told:  # the match went back (undo): start again
            self.worker.reset()
            self.told = 0
        for observation in match_observations(match, self.computer_session.computer,
                                              self.told):
            self.worker.observe(observation.view, observation.events)
        self.told = steps

    def _play_computer(self, intent: Intent) -> None:
        try:
            action = self.session.play(intent)
        except IllegalIntent:  # a hidden piece of the human's changed its plan
            self.worker.refuse(intent)
            return
        self._announce(action)
        self.interaction = self._interaction()
        self.paused_until = time.monotonic() + PAUSE_SECONDS
        self._after_change(action, turn_ended=isinstance(intent, EndTurn))
        if isinstance(intent, EndTurn) and not self._finished():
            self._show_thinking(False)
            self.say(self._turn_summary())

    def _announce(self, action: Action) -> None:
        """What the human saw of the computer's action: its first event, in words."""
        seen = action.events_for(self.viewer)
        self.app.sounds.play_events(seen)
        if seen and not isinstance(action.intent, EndTurn):
            self._say(f"Computer: {narrate(seen[0], action.turn)}")

    def _fallback(self) -> Intent:
        """The worker failed: a legal Move, else the End (the game goes on)."""
        from wec.engine.intents import Doze, Move

        legal = self.session.legal()
        if not self.session.current.actions.move:
            moves = [i for i in legal if isinstance(i, Move | Doze)]
            if moves:
                return moves[0]
        return EndTurn()

    def _show_thinking(self, shown: bool) -> None:
        if not hasattr(self, "thinking"):
            return
        if not shown:
            self.thinking_since = None
            self.thinking.hide()
            return
        if self.thinking_since is None:
            self.thinking_since = time.monotonic()
        dots = "." * (1 + int((time.monotonic() - self.thinking_since) * 3) % 3)
        level = self.computer_session.level
        self.thinking.setText(f"Computer ({self.computer_session.computer.title}, level "
                              f"{level} {NAMES[level]}) is thinking{dots:<3}")
        self.thinking.show()

    @property
    def thinking_shown(self) -> bool:
        return not self.thinking.isHidden()

    def destroy(self) -> None:
        self.worker.close()
        self.thinking.destroy()
        super().destroy()
