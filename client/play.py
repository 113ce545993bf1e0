"""The play screen: a hotseat game on the three-level board.

It shows the side to act its own view only (R9, R4.13), turns clicks into intents
through ``Interaction`` and sends every intent through the engine (via the match).
When the game hides information, a hand-over curtain covers the board between turns
so one player does not see the other's view.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from direct.gui.DirectGui import DirectEntry
from direct.showbase.DirectObject import DirectObject
from direct.task.Task import Task
from panda3d.core import Point3, TextNode

from wec.client.camera import OrbitCamera
from wec.client.hud import (
    ActionsPanel,
    Banner,
    Chooser,
    ListPanel,
    button,
    follow_view,
    label,
)
from wec.client.interaction import (
    ACTION_GROUPS,
    Interaction,
    Reply,
    article_label,
    parse_square,
    piece_label,
)
from wec.client.layout import choose_hit, ray_hits
from wec.client.narration import narrate_all
from wec.client.scene import BoardScene
from wec.client.session import HotseatSession
from wec.engine.board import AIR, GROUND, SUB, Level
from wec.engine.errors import IllegalIntent
from wec.engine.events import TurnEnded
from wec.engine.intents import EndTurn, Intent
from wec.engine.match import Action
from wec.engine.options import Options, option_specs, options_to_dict
from wec.engine.pieces import Side, describe_kind
from wec.engine.position import ACTION_LIMITS, Position

GROUP_TITLES = {"pickup": "Pick-up (P)", "drop": "Drop (D)", "exchange": "Exchange (X)",
                "reinforce": "Reinforce (R)", "doze": "Doze (Z)"}
ACTION_NAMES = (("move", "Move"), ("fire", "Fire"), ("pickup", "Pick-up"), ("drop", "Drop"),
                ("exchange", "Exchange"), ("reinforce", "Reinforce"))


def status_report(session: HotseatSession, view: Position) -> list[str]:
    """The game status screen's lines, from the viewer's view only."""
    current = session.current
    match = session.match
    mode = "competitive (R14.3)" if match.competitive else "non-competitive (undo on, R14.2)"
    lines = [f"Turn {current.turn}, {current.side_to_act.title} to act; {mode}",
             f"Actions played: {len(match.history)}"]
    if current.result is not None:
        lines.append(f"Result: {current.result.winner.title} won ({current.result.reason})")
    changed = changed_options(current.options)
    lines.append("Options: " + (", ".join(changed) if changed else "the standard game"))
    for side in (Side.BLACK, Side.WHITE):
        own = side is view.viewer
        pieces = [p for p in view.pieces if p.side is side]
        counts: dict[str, int] = {}
        for piece in pieces:
            counts[describe_kind(piece.kind)] = counts.get(describe_kind(piece.kind), 0) + 1
        seen = "" if own else " seen"
        lines.append(f"{side.title}: {len(pieces)} pieces{seen}, government "
                     f"{current.options.government(side).value}")
        lines.append("   " + ", ".join(f"{n} {k}" for k, n in sorted(counts.items())))
    waiting = [r for r in view.reinforcements if r.side is view.viewer]
    lines.append(f"{view.viewer.title if view.viewer else ''} reinforcements waiting: "
                 f"{len(waiting)}")
    return lines


def history_lines(session: HotseatSession, viewer: Side) -> list[str]:
    """Each action as the viewer may know it: a heading line for its own actions (the
    intent), then one plain-language line per event it saw."""
    lines: list[str] = []
    for played in session.played():
        seen = narrate_all(e for e in played.events_for(viewer) if not isinstance(e, TurnEnded))
        public = isinstance(played.intent, EndTurn)  # that a turn ended is no secret
        if played.side is viewer or public:
            lines.append(f"{played.turn} {played.side.title}: {played.intent.describe()}")
        elif not seen:
            continue
        else:
            lines.append(f"{played.turn} {played.side.title}:")
        lines.extend(f"    {line}" for line in seen)
    return lines


def changed_options(options: Options) -> list[str]:
    """``O6 tank_range 8``: the options that differ from the standard game."""
    standard = options_to_dict(Options())
    chosen = options_to_dict(options)
    ids = {name: oid for name, oid, _, _ in option_specs()}
    return [f"{ids[name]} {name} {chosen[name]}" for name in chosen
            if chosen[name] != standard[name]]


def hides_information(position: Position) -> bool:
    """True when either side may have pieces the other cannot see (O15, O16)."""
    return position.options.stealth_invisibility or position.options.submersion_invisibility


class PlayScreen(DirectObject):
    """One hotseat game: the board, the HUD, and the turn-by-turn hand-over."""

    def __init__(self, app: Any, session: HotseatSession,
                 on_leave: Callable[[], None]) -> None:
        super().__init__()
        self.app = app
        self.base = app.base
        self.session = session
        self.on_leave = on_leave
        self.curtain_between_turns = app.settings.hotseat_curtain and hides_information(
            session.current)
        self.scene = BoardScene(self.base, app.models, app.shading,
                                app.settings.animation_speed, app.settings.palette)
        self.scene.show_markers = app.settings.last_seen_markers
        self.scene.show_reinforcement_squares = app.settings.reinforcement_squares
        self.camera = OrbitCamera(self.base, session.current.side_to_act)
        self.gui = self.base.aspect2d.attachNewNode("play-hud")
        self.chooser: Chooser | None = None
        self.entry: DirectEntry | None = None
        self.status_panel: ListPanel | None = None
        self.actions: ActionsPanel | None = None
        self.banner: Banner | None = None
        self.message = ""
        self.refused = False
        self._build_hud()
        self._bind()
        self.interaction = self._interaction()
        self.redraw()
        self.base.taskMgr.add(self._frame, "play-frame")
        if session.current.result is not None:  # a finished game (or back from its replay)
            self._game_over()

    # ------------------------------------------------------------------ building

    def _build_hud(self) -> None:
        a2d = self.base
        self.status = label(a2d.a2dTopLeft, "", (0.04, -0.08), scale=0.055)
        self.budget = label(a2d.a2dTopLeft, "", (0.04, -0.15), scale=0.04)
        self.note = label(a2d.a2dBottomCenter, "", (0, 0.06), scale=0.045,
                          align=TextNode.ACenter)
        corner = a2d.a2dBottomRight
        self.end_button = button(corner, "End turn (E)", self.end_turn, (-0.22, 0.08),
                                 width=8, name="end-turn")
        self.actions_button = button(corner, "Actions (A)", self.toggle_actions,
                                     (-0.22, 0.18), width=8, name="actions")
        self.undo_button = button(corner, "Undo (U)", self.undo, (-0.22, 0.28), width=8,
                                  name="undo")
        top = a2d.a2dTopRight
        self.level_buttons = {
            level: button(top, f"{level.label.title()} ({index + 1})", self.toggle_level,
                          (-0.22, -0.08 - 0.1 * index), width=8, args=[level],
                          name=f"level-{level.label}")
            for index, level in enumerate((AIR, GROUND, SUB))}
        self.light_button = button(top, "Lights (L)", self.toggle_lighting, (-0.22, -0.38),
                                   width=8, name="lights")
        self.status_button = button(top, "Status (F1)", self.toggle_status, (-0.22, -0.48),
                                    width=8, name="status")
        self.save_button = button(top, "Save (Ctrl+S)", self.save, (-0.22, -0.78), width=8,
                                  name="save")
        self.editor_button = button(top, "Edit board (B)", self.open_editor, (-0.22, -0.88),
                                    width=8, name="edit-board")
        self.competitive_button = button(top, "Competitive", self.ask_competitive,
                                         (-0.22, -0.58), width=8, name="competitive")
        self.menu_button = button(top, "Menu (Esc)", self.leave, (-0.22, -0.68), width=8,
                                  name="menu")
        self.info = ListPanel(a2d.a2dTopLeft, "Selected", (0.03, -0.2), (0.62, 0.34), lines=6)
        self.log = ListPanel(a2d.a2dBottomLeft, "History", (0.03, 0.5), (0.74, 0.42), lines=9)

    def _bind(self) -> None:
        self.accept("f1", self.toggle_status)
        self.accept("control-s", self.save)
        self.accept("b", self.open_editor)
        self.accept("k", self.open_square_entry)
        self.accept("mouse1", self._click, [False])
        self.accept("mouse3", self._click, [True])
        self.accept("e", self.end_turn)
        self.accept("enter", self.end_turn)
        self.accept("u", self.undo)
        self.accept("l", self.toggle_lighting)
        self.accept("escape", self.escape)
        self.accept("home", lambda: self.camera.go_home(self.viewer))
        for index, level in enumerate((AIR, GROUND, SUB)):
            self.accept(str(index + 1), self.toggle_level, [level])
        self.accept("a", self.toggle_actions)
        for key, group in (("p", "pickup"), ("x", "exchange"), ("r", "reinforce"),
                           ("z", "doze")):
            self.accept(key, self.open_actions, [group])
        self.accept("shift-d", self.open_actions, ["drop"])
        self.camera.bind(self.accept)

    # ------------------------------------------------------------------ state

    @property
    def viewer(self) -> Any:
        """The side whose view is shown: in hotseat, the side to act."""
        return self.session.current.side_to_act

    @property
    def history(self) -> list[str]:
        """The history panel for the side now looking: its own actions in full, of the
        enemy's only what it saw (R14.3: nothing about pieces hidden from it)."""
        return history_lines(self.session, self.viewer)

    def _interaction(self) -> Interaction:
        view = self.session.view(self.session.current.side_to_act)
        return Interaction(view, self.session.legal())

    def redraw(self, action: Action | None = None) -> None:
        """Draw the side to act's view (animating what it saw of ``action``) and refresh
        every HUD line."""
        view = self.interaction.view
        self.scene.show(view, action.events_for(view.side_to_act) if action else ())
        self.scene.light(self.interaction.highlights())
        self._refresh_hud()

    def _refresh_hud(self) -> None:
        current = self.session.current
        view = self.interaction.view
        side = view.side_to_act.title
        if current.result is not None:
            self.status["text"] = f"Game over: {current.result.winner.title} won"
        else:
            self.status["text"] = f"Turn {current.turn} - {side} to act"
        done = [f"{name} {getattr(view.actions, key)}/{ACTION_LIMITS[key]}"
                for key, name in ACTION_NAMES]
        self.budget["text"] = "   ".join(done)
        self.note["text"] = self.message
        self.note["text_fg"] = (1.0, 0.45, 0.4, 1) if self.refused else (0.93, 0.93, 0.9, 1)
        self.info.set_lines(self._selection_lines())
        self.log.set_lines(self.history)
        if self.session.match.competitive:
            self.competitive_button.hide()
        if self.session.can_undo:
            self.undo_button.show()
        else:
            self.undo_button.hide()
        if self.interaction.can_end_turn():
            self.end_button["state"] = "normal"
            self.end_button["text_fg"] = (0.93, 0.93, 0.9, 1)
        else:
            self.end_button["state"] = "disabled"
            self.end_button["text_fg"] = (0.5, 0.5, 0.5, 1)

    def _selection_lines(self) -> list[str]:
        selection = self.interaction.selection
        if selection is None:
            return ["Left-click a piece to move it,", "right-click it to fire."]
        piece = selection.piece
        lines = [piece_label(piece)]
        if piece.articles:
            lines.append("Carries: " + ", ".join(article_label(a) for a in piece.articles))
        if piece.stunned_until > self.session.current.turn:
            lines.append(f"Stunned until turn {piece.stunned_until} (R7)")
        if selection.weapon is not None:
            lines.append(f"Aiming: {article_label(selection.weapon)}")
        weapons = self.interaction.weapons_of(piece)
        if weapons:
            lines.append("May fire: " + ", ".join(article_label(w) for w in weapons))
        return lines

    # ------------------------------------------------------------------ input

    def accept(self, event: str, method: Callable[..., Any],  # type: ignore[override]
               extraArgs: list[Any] | None = None) -> None:
        """Like DirectObject.accept, but hotkeys sleep while the square entry has focus."""
        args = list(extraArgs or [])

        def guarded(*more: Any) -> None:
            if self.entry is None:
                method(*args, *more)

        super().accept(event, guarded)

    def _click(self, right: bool) -> None:
        if self.banner is not None or self.chooser is not None or self.actions is not None:
            return
        picked = self.pick()
        if picked is None:
            return
        sq, level = picked
        reply = (self.interaction.right_click(sq, level) if right
                 else self.interaction.left_click(sq, level))
        self._handle(reply)

    def pick(self) -> tuple[int, Level | None] | None:
        """The square and level under the mouse, or None off the board."""
        watcher = self.base.mouseWatcherNode
        if watcher is None or not watcher.hasMouse():
            return None
        near, far = Point3(), Point3()
        self.base.camLens.extrude(watcher.getMouse(), near, far)
        render = self.base.render
        origin = render.getRelativePoint(self.base.cam, near)
        through = render.getRelativePoint(self.base.cam, far)
        direction = through - origin
        hits = ray_hits(tuple(origin), tuple(direction), self.scene.shown_levels())
        interesting = {p.cell for p in self.interaction.view.pieces}
        interesting.update(self.interaction.highlights())
        return choose_hit(hits, interesting)

    def _handle(self, reply: Reply) -> None:
        if reply.intent is not None:
            self.send(reply.intent)
            return
        if reply.choices:
            self._open_chooser(reply)
        self._say(reply.message, refused=reply.message.startswith("R"))
        self.scene.light(self.interaction.highlights())
        self._refresh_hud()

    def _say(self, text: str, refused: bool = False) -> None:
        self.message = text
        self.refused = refused

    def _open_chooser(self, reply: Reply) -> None:
        def pick(index: int) -> None:
            self._close_chooser()
            self._handle(self.interaction.choose(reply.choices[index]))

        self.chooser = Chooser(self.base.aspect2d, reply.prompt,
                               [c.label for c in reply.choices], pick, self._cancel_chooser)

    def _close_chooser(self) -> None:
        if self.chooser is not None:
            self.chooser.destroy()
            self.chooser = None

    def _cancel_chooser(self) -> None:
        self._close_chooser()
        self.interaction.cancel()
        self.scene.light({})
        self._refresh_hud()

    def escape(self) -> None:
        """Close the top-most popup, else drop the selection, else open the menu."""
        if self.chooser is not None:
            self._cancel_chooser()
        elif self.actions is not None:
            self._close_actions()
        elif self.interaction.selection is not None:
            self.interaction.cancel()
            self.scene.light({})
            self._say("")
            self._refresh_hud()
        elif self.banner is None:
            self.leave()

    # ------------------------------------------------------------------ actions

    def send(self, intent: Intent) -> bool:
        """Play one intent through the engine; a refusal is shown, never applied."""
        mover = self.session.current.side_to_act
        try:
            action = self.session.play(intent)
        except IllegalIntent as refusal:
            self._say(str(refusal), refused=True)
            self._refresh_hud()
            return False
        seen = action.events_for(mover)
        self._say(narrate_all(seen)[0] if seen else intent.describe())
        self._after_change(action, turn_ended=isinstance(intent, EndTurn))
        return True

    def _after_change(self, action: Action, turn_ended: bool) -> None:
        self._close_actions()
        self.interaction = self._interaction()
        current = self.session.current
        if current.result is not None:
            self.redraw(action)
            self._game_over(self.app.keep_finished_game())
            return
        if turn_ended and self.curtain_between_turns:
            self.scene.root.hide()
            self._hand_over()
            return
        if turn_ended:
            self.camera.go_home(self.viewer)
        self.redraw(action)

    def end_turn(self) -> None:
        if self.banner is not None or self.chooser is not None:
            return
        self.interaction.cancel()
        self.send(EndTurn())

    def undo(self) -> None:
        if not self.session.can_undo or self.banner is not None:
            return
        undone = self.session.undo()
        self.interaction = self._interaction()
        self._say(f"Undone: {undone.describe()} (R14.2)")
        self.camera.go_home(self.viewer)
        self.scene.root.show()
        self.redraw()

    def toggle_level(self, level: Level) -> None:
        shown = not self.scene.layer_shown[level]
        self.scene.set_level_shown(level, shown)
        self._say(f"{level.label.title()} level {'shown' if shown else 'faded'}")
        self._refresh_hud()

    def toggle_lighting(self) -> None:
        self.app.settings.lighting = not self.app.settings.lighting
        self.app.shading.set_lighting(self.app.settings.lighting)
        self._say(f"Lighting {'on' if self.app.settings.lighting else 'off'}")
        self._refresh_hud()

    def toggle_actions(self) -> None:
        if self.actions is not None:
            self._close_actions()
        else:
            self.open_actions(None)

    def open_actions(self, focus: str | None) -> None:
        """The Actions menu, listing the legal intents of each group."""
        if self.banner is not None or self.chooser is not None:
            return
        self._close_actions()
        groups = [g for g in ACTION_GROUPS if focus in (None, g)]
        listed = [(g, self.interaction.group(g)) for g in groups]

        def pick(group_title: str, index: int) -> None:
            group = next(g for g in ACTION_GROUPS if GROUP_TITLES[g] == group_title)
            intent = self.interaction.group(group)[index]
            self._close_actions()
            self.send(intent)

        self.actions = ActionsPanel(self.base.aspect2d,
                                    [(GROUP_TITLES[g], [i.describe() for i in items])
                                     for g, items in listed], pick, self._close_actions)

    def _close_actions(self) -> None:
        if self.actions is not None:
            self.actions.destroy()
            self.actions = None

    # ------------------------------------------------------------------ keyboard entry

    def open_square_entry(self) -> None:
        """The manual's emergency square select: type row,column[,level] and Enter."""
        if self.entry is not None or self.banner is not None:
            return
        self.entry = DirectEntry(parent=self.base.a2dBottomCenter, pos=(-0.4, 0, 0.16),
                                 scale=0.05, width=16, focus=1, command=self._square_entered,
                                 initialText="", numLines=1, frameColor=(0.1, 0.1, 0.12, 0.9),
                                 text_fg=(1, 1, 1, 1), focusOutCommand=self._close_entry)
        self.entry.setName("square-entry")
        self._say("Square: type row,column (and a level: 9,2,air), then Enter; Esc cancels")
        self._refresh_hud()
        self.base.acceptOnce("escape", self._close_entry)

    def type_square(self, text: str) -> None:
        """Enter a square as if typed in the square entry (tests, accessibility)."""
        self._square_entered(text)

    def _square_entered(self, text: str) -> None:
        self._close_entry()
        try:
            sq, level = parse_square(text)
        except ValueError as problem:
            self._say(str(problem), refused=True)
            self._refresh_hud()
            return
        self._handle(self.interaction.left_click(sq, level))

    def _close_entry(self) -> None:
        if self.entry is not None:
            self.entry.destroy()
            self.entry = None

    # ------------------------------------------------------------------ status, modes

    def toggle_status(self) -> None:
        """The game status screen: mode, options that differ from the standard game,
        pieces each side has (as far as the viewer sees)."""
        if self.status_panel is not None:
            self.status_panel.destroy()
            self.status_panel = None
            return
        self.status_panel = ListPanel(self.base.aspect2d, "Game status", (-0.75, 0.6),
                                      (1.5, 1.2), lines=24)
        self.status_panel.frame.setName("status-panel")
        self.status_panel.set_lines(status_report(self.session, self.interaction.view))

    def save(self) -> None:
        """Save the game (Ctrl+S): an atomic write; a failure is shown, nothing lost."""
        try:
            path = self.app.save_game()
        except OSError as problem:
            self._say(f"not saved: {problem}", refused=True)
        else:
            self._say(f"Saved as {path.name}")
        self._refresh_hud()

    def open_editor(self) -> None:
        """R14.4: the board editor with the current position as its buffer; refused in
        competitive mode with the rule (R14.3)."""
        from wec.engine.errors import MatchError

        if self.banner is not None or self.chooser is not None:
            return
        try:
            self.session.match.require_editor()
        except MatchError as refusal:
            self._say(str(refusal), refused=True)
            self._refresh_hud()
            return
        self.app.open_editor(self.session.current, session=self.session)

    def ask_competitive(self) -> None:
        if self.session.match.competitive or self.banner is not None:
            return
        self.banner = Banner(self.base.aspect2d, "Switch to competitive?",
                             "One-way (R14.3): no more Undo, no option changes, no editor; "
                             "each player's history is censored until the game ends.",
                             [("Switch to competitive", self.go_competitive),
                              ("Stay non-competitive", self._dismiss_banner)],
                             name="competitive-confirm")

    def go_competitive(self) -> None:
        self._dismiss_banner()
        self.session.go_competitive()
        self.competitive_button.hide()
        self._say("Competitive mode: Undo is off for the rest of the game (R14.3)")
        self._refresh_hud()

    # ------------------------------------------------------------------ banners

    def _hand_over(self) -> None:
        side = self.viewer.title
        self.banner = Banner(self.base.aspect2d, f"{side} to play",
                             f"Pass the seat to {side}. The other player looks away: the "
                             "board shows only what this side may see (R9).",
                             [(f"I am {side}: show my board", self._take_seat)],
                             name="hand-over")

    def _take_seat(self) -> None:
        if self.banner is not None:
            self.banner.destroy()
            self.banner = None
        self.scene.root.show()
        self.camera.go_home(self.viewer)
        self.redraw()

    def _game_over(self, kept: str = "") -> None:
        result = self.session.current.result
        assert result is not None
        detail = f"{result.reason} (R12)" + (f"\n{kept}" if kept else "")
        self.banner = Banner(self.base.aspect2d, f"{result.winner.title} wins", detail,
                             [("Look at the board", self._dismiss_banner),
                              ("Watch the replay", self.watch_replay),
                              ("Main menu", self.leave)], name="game-over")

    def watch_replay(self) -> None:
        """The game just finished, replayed with everything revealed (issue 7, R14.3);
        leaving the replay comes back to this game-over screen."""
        app, session = self.app, self.session

        def back(notice: str) -> None:
            screen = app.play(session)
            if notice:
                screen._say(notice, refused=True)
                screen._refresh_hud()

        app.open_replay(session.match, back=back, title="Replay of the game just finished")

    def _dismiss_banner(self) -> None:
        if self.banner is not None:
            self.banner.destroy()
            self.banner = None

    # ------------------------------------------------------------------ frame

    def _frame(self, task: Task) -> int:
        follow_view(self.base, self.camera, self.scene, self.app.shading, task)
        if self.banner is None and self.chooser is None and self.actions is None:
            picked = self.pick()
            self.scene.hover(*(picked if picked else (None, None)))
        return task.cont

    def leave(self) -> None:
        self.destroy()
        self.on_leave()

    def destroy(self) -> None:
        self.ignoreAll()
        self.base.taskMgr.remove("play-frame")
        for widget in (self.chooser, self.actions, self.banner):
            if widget is not None:
                widget.destroy()
        self.gui.removeNode()
        self._close_entry()
        if self.status_panel is not None:
            self.status_panel.destroy()
        for node in (self.status, self.budget, self.note, self.end_button,
                     self.actions_button, self.undo_button, self.light_button,
                     self.status_button, self.competitive_button, self.menu_button,
                     self.save_button, self.editor_button,
                     *self.level_buttons.values()):
            node.destroy()
        self.info.destroy()
        self.log.destroy()
        self.scene.destroy()

