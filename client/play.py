"""The play screen: a hotseat game on the three-level board (issue 18).

It shows the side to act its own view only (R9, R4.13), turns clicks into intents
through ``Interaction`` and sends every intent through the engine (via the session).

Around the board (``client.playlayout``, nothing over it): on the left the game status
and the inspector (every piece and article on every level of the square under the
pointer), which a chooser, the Actions menu, the status or the legend replace for a
while; on the right the level toggles and camera views, the move list with the
pieces each side lost, and the buttons; the message line runs under the board.

Hotseat secrets (R9, R14.2, R14.3): when the game hides information, an opaque cover
replaces the whole window between turns, and whenever an undo goes back into the
other side's turn, until the player of the side to act takes the seat; nothing of
either side is drawn meanwhile, not even a line of text. The move list follows the
mode: everything in a non-competitive game (R14.2), each side's censored events in a
competitive one until the game ends (R14.3).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from direct.gui.DirectGui import DGG, DirectEntry, DirectFrame
from direct.gui.OnscreenText import OnscreenText
from direct.showbase.DirectObject import DirectObject
from direct.task.Task import Task
from panda3d.core import Point3, TextNode

from wec.client.aiming import AimPreview, preview
from wec.client.camera import Orbit, OrbitCamera, home_orbit
from wec.client.help import HelpScreen
from wec.client.hud import (
    ACCENT,
    BUTTON,
    DIM,
    REFUSAL,
    SOLID_PANEL,
    TEXT,
    Banner,
    ButtonSkin,
    Chooser,
    ListPanel,
    ScrollList,
    SkinnedButton,
    button,
    follow_view,
)
from wec.client.inspector import piece_lines, square_lines
from wec.client.interaction import (
    ActionRow,
    Interaction,
    Reply,
    article_label,
    parse_square,
)
from wec.client.layout import LEVEL_Z, choose_hit, ray_hits, square_at
from wec.client.legend import LegendPanel
from wec.client.movelist import (
    MoveRow,
    history_losses,
    losses_line,
    move_rows,
    reveals_all,
    seen_events,
)
from wec.client.narration import intent_words, narrate, narrate_all
from wec.client.playlayout import PlayLayout, frame_board
from wec.client.resources import rules_file
from wec.client.scene import BoardScene
from wec.client.session import HotseatSession
from wec.engine import board
from wec.engine.board import AIR, GROUND, SUB, Level
from wec.engine.errors import IllegalIntent
from wec.engine.events import Dozed, Moved, TurnEnded
from wec.engine.intents import EndTurn, Fire, Intent
from wec.engine.knowledge import project
from wec.engine.match import Action, OptionChange
from wec.engine.options import Options, option_specs, options_to_dict
from wec.engine.pieces import Side, describe_kind
from wec.engine.position import ACTION_LIMITS, Position

GROUP_TITLES = {"pickup": "Pick-up (P)", "drop": "Drop (D)", "exchange": "Exchange (X)",
                "reinforce": "Reinforce (R)", "doze": "Doze (Z)"}
ACTION_NAMES = (("move", "Move"), ("fire", "Fire"), ("pickup", "Pick-up"), ("drop", "Drop"),
                ("exchange", "Exchange"), ("reinforce", "Reinforce"))
LEVEL_KEYS = ((AIR, "1"), (GROUND, "2"), (SUB, "3"))
COVER_COLOUR = (0.035, 0.045, 0.06, 1.0)
SHOWN_BUTTON = (0.22, 0.36, 0.26, 0.97)
FADED_BUTTON = (0.14, 0.14, 0.16, 0.97)
OWN_ROW = TEXT
ENEMY_ROW = (0.72, 0.82, 1.0, 1.0)
TURN_ROW = DIM


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


def step_text(action: Action, events: tuple[Any, ...]) -> str:
    """An action in one line of plain language, from the events given."""
    if isinstance(action.intent, EndTurn):
        return f"{action.side.title} ended turn {action.turn}"
    if isinstance(action.intent, OptionChange):
        return "the option change"
    lines = narrate_all((e for e in events if not isinstance(e, TurnEnded)), action.turn)
    return lines[0] if lines else f"an action of {action.side.title}"


class HandOverCover:
    """The hand-over (R9, R14.3): an opaque page over the whole window saying whose turn
    it is and nothing else, until that player takes the seat."""

    def __init__(self, base: Any, side: Side, turn: int, reason: str,
                 on_take: Callable[[], None]) -> None:
        ratio = base.getAspectRatio()
        self.frame = DirectFrame(parent=base.aspect2d, frameColor=COVER_COLOUR,
                                 frameSize=(-ratio - 1, ratio + 1, -2, 2), state=DGG.NORMAL,
                                 sortOrder=100)
        self.frame.setName("hand-over")
        OnscreenText(parent=self.frame, text=f"{side.title} to play", pos=(0, 0.22),
                     scale=0.11, fg=ACCENT)
        lines = f"Turn {turn}. Pass the seat to {side.title}; the other player looks away."
        if reason:
            lines = f"{reason}\n{lines}"
        OnscreenText(parent=self.frame, text=lines, pos=(0, 0.07), scale=0.05, fg=TEXT,
                     wordwrap=34)
        self.button = button(self.frame, f"I am {side.title}: show my board", on_take,
                             (0, -0.2), width=14, name="banner-0")

    def destroy(self) -> None:
        self.frame.destroy()


class PlayScreen(DirectObject):
    """One hotseat game: the board, the panels around it, and the hand-over."""

    chat_reserve = 0.0  # left-column room kept for a network game's chat

    def __init__(self, app: Any, session: HotseatSession,
                 on_leave: Callable[[], None], resumed: bool = False) -> None:
        super().__init__()
        self.app = app
        self.base = app.base
        self.session = session
        self.on_leave = on_leave
        self.curtain_between_turns = self._uses_curtain()
        self.layout = PlayLayout(self.base.getAspectRatio())
        self.scene = BoardScene(self.base, app.models, app.shading,
                                app.settings.animation_speed, app.settings.palette)
        self.scene.show_markers = app.settings.last_seen_markers
        self.scene.show_reinforcement_squares = app.settings.reinforcement_squares
        self.camera = OrbitCamera(self.base, session.current.side_to_act)
        self.hud = self.base.aspect2d.attachNewNode("play-hud")
        self.gui = self.hud
        self.chooser: Chooser | None = None
        self.actions: ScrollList | None = None
        self.action_rows: list[ActionRow] = []
        self.status_panel: ListPanel | None = None
        self.legend: LegendPanel | None = None
        self.entry: DirectEntry | None = None
        self.banner: Banner | None = None
        self.cover: HandOverCover | None = None
        self.help: HelpScreen | None = None
        self.browsing: int | None = None
        self.message = ""
        self.refused = False
        self.hovered: tuple[int, Level | None] | None = None
        self.aim: AimPreview | None = None
        self.pressed: tuple[int, Any] | None = None  # (square, own piece) under mouse1
        self._rows: list[MoveRow] = []
        self._rows_key: tuple[Any, ...] | None = None
        self._marker_cache: dict[tuple[str, Side], frozenset[tuple[str, int]]] = {}
        self._fits: dict[tuple[float, float, float], tuple[Orbit, tuple[float, float]]] = {}
        self._film_offset = (0.0, 0.0)
        self._build_hud()
        self._bind()
        self.interaction = self._interaction()
        self.camera.set_orbit(self._framed(home_orbit(self.viewer)))
        self.scene.face_labels(self.camera.orbit.heading)  # badges on the camera's side
        self.redraw()
        self.base.taskMgr.add(self._frame, "play-frame")
        if self._finished():  # a finished game (or back from its replay)
            self._game_over()
        elif resumed and self.curtain_between_turns and self.cover is None:
            self._hand_over("The game goes on.")

    def _uses_curtain(self) -> bool:
        """The hand-over between turns: when the game hides anything (and the player
        has not turned it off in Settings)."""
        return bool(self.app.settings.hotseat_curtain) and hides_information(
            self.session.current)

    # ------------------------------------------------------------------ building

    def _build_hud(self) -> None:
        layout = self.layout
        hud = self.hud
        left, right, bottom, top = layout.left
        self.status = OnscreenText(parent=hud, text="", pos=(left + 0.01, top - 0.06),
                                   scale=0.05, fg=TEXT, align=TextNode.ALeft, mayChange=True)
        self.mode_line = OnscreenText(parent=hud, text="", pos=(left + 0.01, top - 0.11),
                                      scale=0.03, fg=DIM, align=TextNode.ALeft,
                                      mayChange=True)
        self.budget = OnscreenText(parent=hud, text="", pos=(left + 0.01, top - 0.155),
                                   scale=0.03, fg=TEXT, align=TextNode.ALeft, mayChange=True,
                                   wordwrap=(right - left - 0.02) / 0.03)
        self.panel_rect = (left, right, bottom + self.chat_reserve, top - 0.23)
        self.info = ListPanel(hud, "Under the pointer", (left, top - 0.23),
                              (right - left, top - 0.23 - bottom - self.chat_reserve),
                              lines=40)
        self.info.frame["frameColor"] = SOLID_PANEL
        self.info.frame.setName("inspector")
        self.info.body["wordwrap"] = (right - left - 0.06) / 0.034
        msg = layout.message
        self.note = OnscreenText(parent=hud, text="", pos=((msg[0] + msg[1]) / 2, msg[3] - 0.035),
                                 scale=0.036, fg=TEXT, align=TextNode.ACenter, mayChange=True,
                                 wordwrap=(msg[1] - msg[0]) / 0.036)
        self._build_right()

    def _button(self, text: str, command: Callable[..., Any], pos: tuple[float, float],
                width: float, name: str, args: list[Any] | None = None) -> SkinnedButton:
        """A button of the play screen, drawn with the others in one mesh (ButtonSkin)."""
        return SkinnedButton(self.skin, self.hud, text, command, pos, width, args or [], name)

    def _build_right(self) -> None:
        left, right, bottom, top = self.layout.right
        hud = self.hud
        width = right - left
        self.skin = ButtonSkin(hud)
        y = top - 0.045
        self.level_buttons: dict[Level, SkinnedButton] = {}
        self.view_buttons: dict[Level, SkinnedButton] = {}
        toggle_width = (width * 0.62) / 0.045
        view_width = (width * 0.34) / 0.045
        for level, key in LEVEL_KEYS:
            self.level_buttons[level] = self._button(
                "", self.toggle_level, (left + width * 0.31, y), toggle_width,
                f"level-{level.label}", [level])
            self.view_buttons[level] = self._button(
                f"View (Shift+{key})", self.view_level,
                (left + width * 0.66 + width * 0.17, y), view_width, f"view-{level.label}",
                [level])
            y -= 0.085
        names = self._button_entries()
        rows = (len(names) + 1) // 2
        grid_top = bottom + rows * 0.085 + 0.01
        self.losses = OnscreenText(parent=hud, text="", pos=(left + 0.02, grid_top + 0.095),
                                   scale=0.03, fg=TEXT, align=TextNode.ALeft, mayChange=True,
                                   wordwrap=(width - 0.04) / 0.03)
        self.back_button = self._button("Back to the game (Esc)", self.stop_browsing,
                                        (left + width / 2, grid_top + 0.15),
                                        width / 0.045 - 0.5, "back-to-game")
        self.back_button.hide()
        list_top = y + 0.02
        list_bottom = grid_top + 0.2
        self.log = ScrollList(hud, "Moves (click to look back)",
                              (left, right, list_bottom, list_top), self._row_text,
                              self.browse, "move-list", colour_of=self._row_colour)
        self.buttons: dict[str, SkinnedButton] = {}
        for text, command, name in names:
            self.buttons[name] = self._button(text, command, (0, 0), width / 2 / 0.045 - 0.4,
                                              name)
        self._grid = (left, width, bottom)
        self._place_buttons()
        self.end_button = self.buttons["end-turn"]
        self.actions_button = self.buttons["actions"]
        self.undo_button = self.buttons["undo"]
        self.resign_button = self.buttons["resign"]
        self.save_button = self.buttons["save"]
        self.editor_button = self.buttons["edit-board"]
        self.competitive_button = self.buttons["competitive"]
        self.menu_button = self.buttons["menu"]
        self.light_button = self.buttons["lights"]
        self.status_button = self.buttons["status"]

    def _button_entries(self) -> list[tuple[str, Callable[[], Any], str]]:
        return [("End turn (E)", self.end_turn, "end-turn"),
                ("Actions (A)", self.toggle_actions, "actions"),
                ("Undo (U)", self.undo, "undo"),
                ("Resign", self.ask_resign, "resign"),
                ("Help (F1)", self.toggle_help, "help"),
                ("Status (F2)", self.toggle_status, "status"),
                ("Legend (G)", self.toggle_legend, "legend"),
                ("Lights (L)", self.toggle_lighting, "lights"),
                ("Save (Ctrl+S)", self.save, "save"),
                ("Edit board (B)", self.open_editor, "edit-board"),
                ("Competitive", self.ask_competitive, "competitive"),
                ("Menu (Esc)", self.leave, "menu")]

    def add_button(self, text: str, command: Callable[[], Any], name: str) -> SkinnedButton:
        """Another button in the grid (a network game's takeback and chat)."""
        _left, width, _ = self._grid
        made = self._button(text, command, (0, 0), width / 2 / 0.045 - 0.4, name)
        self.buttons[name] = made
        self._place_buttons()
        return made

    def _place_buttons(self) -> None:
        """The buttons in two columns at the bottom of the right column, in order, the
        hidden ones leaving no gap."""
        left, width, bottom = self._grid
        shown = [b for b in self.buttons.values() if not b.isHidden()]
        rows = (len(self.buttons) + 1) // 2
        for index, made in enumerate(shown):
            row, column = divmod(index, 2)
            made.setPos(left + width * (0.25 + 0.5 * column), 0,
                        bottom + (rows - 1 - row) * 0.085 + 0.03)

    def _bind(self) -> None:
        self.accept("f1", self.toggle_help)
        self.accept("f2", self.toggle_status)
        self.accept("g", self.toggle_legend)
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
        self.accept("home", self.go_home)
        for level, key in LEVEL_KEYS:
            self.accept(key, self.toggle_level, [level])
            self.accept(f"shift-{key}", self.view_level, [level])
        self.accept("a", self.toggle_actions)
        for key, group in (("p", "pickup"), ("x", "exchange"), ("r", "reinforce"),
                           ("d", "drop"), ("shift-d", "drop")):
            self.accept(key, self.open_actions, [group])
        self.accept("z", self.doze_key)
        for key, lines in (("page_up", -6), ("page_down", 6)):
            self.accept(key, self._scroll_moves, [lines])
            self.accept(f"{key}-repeat", self._scroll_moves, [lines])
        self.accept("aspectRatioChanged", self._relayout)

        def camera_accept(event: str, method: Callable[..., Any],
                          extra: list[Any] | None = None) -> None:
            if event == "mouse1-up":  # one handler per event: a drop and a drag's end
                def both() -> None:
                    method(*(extra or []))
                    self._release()

                self.accept(event, both)
            else:
                self.accept(event, method, extra or [])

        self.camera.bind(camera_accept)

    def _relayout(self) -> None:
        """The window changed shape: lay the panels out again and frame the board."""
        self._close_popups()
        self._destroy_hud()
        self.layout = PlayLayout(self.base.getAspectRatio())
        self.hud = self.base.aspect2d.attachNewNode("play-hud")
        self.gui = self.hud
        self._build_hud()
        self._fits.clear()
        self.camera.set_orbit(self._framed(self.camera.orbit))
        if self.cover is not None:
            self.hud.hide()
        self._refresh_hud()

    # ------------------------------------------------------------------ camera

    def _framed(self, orbit: Orbit) -> Orbit:
        """``orbit`` at the distance that fits the board between the panels, with the
        lens shifted to centre it there (``client.playlayout``)."""
        key = (round(orbit.heading, 3), round(orbit.pitch, 3), round(orbit.target[2], 3))
        if key not in self._fits:
            centred = Orbit(orbit.heading, orbit.pitch, orbit.distance,
                            (0.0, 0.0, orbit.target[2]))
            self._fits[key] = frame_board(centred, self.base.camLens,
                                          self.layout.board_ndc())
        fitted, offset = self._fits[key]
        self._film_offset = offset
        self.base.camLens.setFilmOffset(*offset)
        return Orbit(orbit.heading, orbit.pitch, fitted.distance, (0.0, 0.0, orbit.target[2]))

    def go_home(self) -> None:
        self.camera.set_orbit(self._framed(home_orbit(self.viewer)))
        self.scene.face_labels(self.camera.orbit.heading)

    def view_level(self, level: Level) -> None:
        """A camera view per level (issue 18): the Air seen from higher up, the Ground
        from home, the Sub level from low and close with the Air faded."""
        if self._blocked():
            return
        home = home_orbit(self.viewer)
        if level is AIR:
            orbit = Orbit(home.heading, 66.0, home.distance, (0.0, 0.0, LEVEL_Z[AIR]))
        elif level is SUB:
            orbit = Orbit(home.heading, 42.0, home.distance, (0.0, 0.0, LEVEL_Z[SUB]))
        else:
            orbit = home
        for shown_level in (AIR, GROUND, SUB):
            wanted = not (level is SUB and shown_level is AIR)
            if self.scene.layer_shown[shown_level] != wanted:
                self.scene.set_level_shown(shown_level, wanted)
        self.camera.set_orbit(self._framed(orbit))
        self._say(f"Looking at the {level.label.title()} level (Home: back behind your side)")
        self._refresh_hud()

    # ------------------------------------------------------------------ state

    @property
    def viewer(self) -> Any:
        """The side whose view is shown: in hotseat, the side to act."""
        return self.session.current.side_to_act

    def _finished(self) -> bool:
        return self.session.ending is not None

    def reveals_all(self) -> bool:
        """R14.2: a non-competitive history shows everything; R14.3: a competitive one
        each side's own until the game ends."""
        return reveals_all(self.session.match.competitive, self._finished())

    @property
    def history(self) -> list[str]:
        """The move list's lines as the side now looking may read them."""
        return [row.line() for row in self.rows()]

    def rows(self) -> list[MoveRow]:
        match = self.session.match
        key = (len(match.history), match.current_hash, self.viewer, self.reveals_all())
        if key != self._rows_key:
            self._rows_key = key
            self._rows = move_rows(match.history, self.viewer, self.reveals_all())
        return self._rows

    def _interaction(self) -> Interaction:
        view = self.session.view(self.session.current.side_to_act)
        return Interaction(view, self.session.legal())

    def _board_view(self) -> Position:
        """What the board shows: the side's view; once the game is over, everything."""
        if self._finished() and self.reveals_all():
            return self.session.current
        return self.interaction.view

    def redraw(self, action: Action | None = None) -> None:
        """Draw the side to act's view (animating what it saw of ``action``) and refresh
        every panel."""
        self._draw(action.events_for(self.viewer) if action else ())

    def _draw(self, events: Any) -> None:
        """Draw the board (animating ``events``), its marks and every panel."""
        view = self._board_view()
        self.scene.marker_turns = self._marker_turns_now()
        self.scene.show(view, events)
        self.scene.light(self.interaction.highlights())
        self.scene.show_last_move(self._last_move_cells())
        self.scene.show_aim((), ())
        self.aim = None
        self._refresh_hud()

    def _marker_turns_now(self) -> dict[tuple[str, int], int]:
        """For each last-seen marker of the viewer (R9.10): the turn its piece was last
        seen, read from the viewer's own earlier views (never anything else): the
        turn of the action after which the marker first stood there."""
        match = self.session.match
        markers = {(m.kind.value, m.cell) for m in self.interaction.view.last_seen}
        turns: dict[tuple[str, int], int] = {}
        index = len(match.history)
        pending = set(markers)
        while pending and index > 0:
            earlier = self._seen_markers(index - 1)
            for key in list(pending):
                if key not in earlier:
                    turns[key] = match.history[index - 1].turn
                    pending.discard(key)
            index -= 1
        for key in pending:
            turns[key] = match.start.turn
        return turns

    def _seen_markers(self, index: int) -> frozenset[tuple[str, int]]:
        """The viewer's markers in the position after ``index`` actions (cached by that
        position's state hash)."""
        match = self.session.match
        key = (match.hash_at(index), self.viewer)
        if key not in self._marker_cache:
            seen = project(match.position_at(index), self.viewer)
            self._marker_cache[key] = frozenset((m.kind.value, m.cell) for m in seen.last_seen)
        return self._marker_cache[key]

    def _last_move_cells(self) -> list[int]:
        """The cells of the last Move the viewer saw in the latest turn (its own, or
        the opponent's just before its turn): from and to, quietly marked."""
        history = self.session.match.history
        current_turn = self.session.current.turn
        for action in reversed(history):
            if action.turn < current_turn - 1:
                break
            for event in reversed(action.events_for(self.viewer)):
                if isinstance(event, Moved):
                    return [event.frm, event.to]
                if isinstance(event, Dozed) and event.moved:
                    return [board.cell(sq, GROUND) for move in event.moved
                            for sq in (move[2], move[3])]
        return []

    def _mode_text(self) -> str:
        """The game's mode as the HUD names it: what undo and the history allow (R14)."""
        return ("competitive: no undo, censored history (R14.3)" if self.session.match.competitive
                else "non-competitive: undo on, full history (R14.2)")

    def _refresh_hud(self) -> None:
        current = self.session.current
        view = self.interaction.view
        side = view.side_to_act.title
        ending = self.session.ending
        if ending is not None:
            self.status.setText(f"Game over: {ending.winner.title} won")
        else:
            self.status.setText(f"Turn {current.turn} - {side} to act")
        self.mode_line.setText(self._mode_text())
        done = [f"{name} {getattr(view.actions, key)}/{ACTION_LIMITS[key]}"
                for key, name in ACTION_NAMES]
        self.budget.setText("   ".join(done[:3]) + "\n" + "   ".join(done[3:]))
        self.note.setText(self.message)
        self.note["fg"] = REFUSAL if self.refused else TEXT
        self._refresh_inspector()
        rows = self.rows()
        self.log.set_count(len(rows), follow_end=self.browsing is None)
        current_row = None
        if self.browsing is not None:
            current_row = next((n for n, r in enumerate(rows) if r.index == self.browsing),
                               None)
        self.log.follow(current_row)
        lost = history_losses(self.session.match.history, self.viewer, self.reveals_all())
        self.losses.setText("\n".join(losses_line(s, lost[s]) for s in (Side.BLACK, Side.WHITE)))
        if self.browsing is not None:
            self.back_button.show()
        else:
            self.back_button.hide()
        self._refresh_buttons()

    def _refresh_buttons(self) -> None:
        for level, made in self.level_buttons.items():
            shown = self.scene.layer_shown[level]
            key = dict(LEVEL_KEYS)[level]
            made["text"] = f"{level.label.title()} ({key}): {'shown' if shown else 'faded'}"
            made["frameColor"] = (SHOWN_BUTTON if shown else FADED_BUTTON,
                                  (0.28, 0.30, 0.38, 1), (0.24, 0.26, 0.34, 1),
                                  (0.12, 0.12, 0.14, 0.6))
            made["text_fg"] = TEXT if shown else DIM
        layout_changed = False
        for name, wanted in self._wanted_buttons().items():
            made = self.buttons[name]
            if wanted == made.isHidden():
                layout_changed = True
                if wanted:
                    made.show()
                else:
                    made.hide()
        if layout_changed:
            self._place_buttons()
        can_end = self.interaction.can_end_turn() and self.browsing is None
        self.end_button["state"] = DGG.NORMAL if can_end else DGG.DISABLED
        self.end_button["text_fg"] = TEXT if can_end else (0.5, 0.5, 0.5, 1)
        self.end_button["frameColor"] = ((0.20, 0.34, 0.22, 0.97) if can_end and
                                         self.interaction.view.actions.move else BUTTON,
                                         (0.28, 0.30, 0.38, 1), (0.24, 0.26, 0.34, 1),
                                         (0.12, 0.12, 0.14, 0.6))

    def _wanted_buttons(self) -> dict[str, bool]:
        """The buttons that come and go with the game's state."""
        return {"competitive": not self.session.match.competitive and not self._finished(),
                "undo": self.session.can_undo, "resign": not self._finished()}

    def _refresh_inspector(self) -> None:
        """The square under the pointer, else the selected piece, else a hint."""
        view = self.scene.view or self.interaction.view
        if self.hovered is not None:
            sq = self.hovered[0]
            self.info.title.setText(f"Under the pointer: {board.describe_square(sq)}")
            lines = square_lines(view, sq, self.scene.marker_turns)
        elif self.interaction.selection is not None:
            piece = self.interaction.selection.piece
            self.info.title.setText("Selected")
            lines = piece_lines(piece, self.interaction.view)
            if self.interaction.selection.weapon is not None:
                lines.append(f"Aiming: {article_label(self.interaction.selection.weapon)}")
                if self.aim is not None:
                    lines.append(self.aim.text)
            weapons = self.interaction.weapons_of(piece)
            if weapons:
                lines.append("May fire: " + ", ".join(article_label(w) for w in weapons))
        else:
            self.info.title.setText("Under the pointer")
            lines = ["Point at a square to see everything on its three levels.",
                     "Left-click one of your pieces to move it, right-click it to fire.",
                     "F1: help and rules; G: legend."]
        self.info.set_lines(lines)

    def _row_text(self, index: int) -> str:
        rows = self.rows()
        return rows[index].line() if index < len(rows) else ""

    def _row_colour(self, index: int) -> Any:
        rows = self.rows()
        if index >= len(rows):
            return TEXT
        row = rows[index]
        if row.text.startswith("turn ") or row.text.startswith("the options"):
            return TURN_ROW
        return OWN_ROW if row.side is self.viewer else ENEMY_ROW

    def _scroll_moves(self, lines: int) -> None:
        self.log.scroll(lines)

    # ------------------------------------------------------------------ looking back

    def browse(self, row_index: int) -> None:
        """Show the moment after a move-list line, read-only (issue 18): what the
        viewer knew then, or everything where the history shows everything (R14.2,
        and R14.3 once the game is over)."""
        if self._blocked(allow_browsing=True):
            return
        rows = self.rows()
        if row_index >= len(rows):
            return
        row = rows[row_index]
        self.browsing = row.index
        self._cancel_selection()
        position = self.session.match.position_at(row.index)
        moment = position if self.reveals_all() else project(position, self.viewer)
        action = self.session.match.history[row.index - 1]
        self.scene.marker_turns = {}
        self.scene.show(moment)
        self.scene.light({})
        seen = seen_events(action, self.viewer, self.reveals_all())
        self.scene.show_last_move([c for e in seen if isinstance(e, Moved)
                                   for c in (e.frm, e.to)])
        everything = " (everything shown, R14.2)" if self.reveals_all() else ""
        self._say(f"Looking back{everything}: turn {row.turn}, {row.text} - read-only; "
                  "Esc or Back to the game returns")
        self._refresh_hud()

    def stop_browsing(self) -> None:
        if self.browsing is None:
            return
        self.browsing = None
        self._say("")
        self.redraw()

    # ------------------------------------------------------------------ input

    def accept(self, event: str, method: Callable[..., Any],  # type: ignore[override]
               extraArgs: list[Any] | None = None) -> None:
        """Like DirectObject.accept, but keys sleep while the square entry has focus,
        and everything but Esc and F1 while the help or the hand-over is up."""
        args = list(extraArgs or [])

        def guarded(*more: Any) -> None:
            if self.entry is not None:
                return
            if self.help is not None and event not in ("escape", "f1"):
                return
            if self.cover is not None:
                return
            method(*args, *more)

        super().accept(event, guarded)

    def _blocked(self, allow_browsing: bool = False) -> bool:
        """Whether a modal page or dialog is up (or a past moment shown)."""
        return (self.cover is not None or self.help is not None or self.banner is not None
                or (self.browsing is not None and not allow_browsing))

    def _click(self, right: bool) -> None:
        if self._blocked() or self.chooser is not None:
            return
        picked = self.pick()
        if picked is None:
            return
        self._close_panels()
        sq, level = picked
        if not right and self.interaction.doze is None:
            grabbed = self._article_click()
            if grabbed is not None:
                self._handle(grabbed)
                return
        reply = (self.interaction.right_click(sq, level) if right
                 else self.interaction.left_click(sq, level))
        if not right and self.interaction.selection is not None:
            self.pressed = (sq, self.interaction.selection.piece)
        self._handle(reply)

    def _release(self) -> None:
        """Dropping a piece onto another own piece offers their Exchanges (R4.9)."""
        pressed, self.pressed = self.pressed, None
        if pressed is None or self._blocked() or self.chooser is not None:
            return
        picked = self.pick()
        if picked is None or picked[0] == pressed[0]:
            return
        exchanges = self.interaction.exchanges_between(pressed[1], picked[0])
        if not exchanges:
            return
        giver = pressed[1]
        rows = [r for r in self.interaction.action_rows("exchange")
                if r.intent in exchanges]
        labels = [(r.label, r.intent) for r in rows] or [
            (intent_words(i, self.viewer, self.interaction.view), i) for i in exchanges]
        self._handle(self.interaction._ask(
            f"Exchange: the {describe_kind(giver.kind)} and {board.describe_square(picked[0])}",
            labels, self.interaction._send))

    def _article_click(self) -> Reply | None:
        """A click on an article badge lying on a square: its Pick-up, when legal."""
        point = self._ground_point()
        if point is None:
            return None
        found = self.scene.article_at(*point)
        if found is None:
            return None
        sq, article = found
        pickups = self.interaction.pickups_at(sq, article)
        if not pickups:
            return None
        selected = self.interaction.selection
        if selected is not None:
            mine = [p for p in pickups if p.at == selected.piece.cell]
            pickups = mine or pickups
        self.interaction.cancel()
        if len(pickups) == 1:
            return Reply(intent=pickups[0])
        pieces = {p.kind for p in pickups}
        return self.interaction._ask(
            f"Which piece picks up the {article_label(article)}?",
            [(f"the {describe_kind(p.kind) if p.kind else 'piece'}"
              f" ({', '.join(describe_kind(k) for k in pieces if k) or 'yours'})", p)
             for p in pickups], self.interaction._send)

    def _ray(self) -> tuple[tuple[float, float, float], tuple[float, float, float]] | None:
        watcher = self.base.mouseWatcherNode
        if watcher is None or not watcher.hasMouse():
            return None
        near, far = Point3(), Point3()
        self.base.camLens.extrude(watcher.getMouse(), near, far)
        render = self.base.render
        origin = render.getRelativePoint(self.base.cam, near)
        through = render.getRelativePoint(self.base.cam, far)
        direction = through - origin
        return (origin.x, origin.y, origin.z), (direction.x, direction.y, direction.z)

    def _ground_point(self) -> tuple[float, float] | None:
        ray = self._ray()
        if ray is None:
            return None
        (ox, oy, oz), (dx, dy, dz) = ray
        if abs(dz) < 1e-9:
            return None
        t = -oz / dz
        if t <= 0:
            return None
        x, y = ox + dx * t, oy + dy * t
        return (x, y) if square_at(x, y) is not None else None

    def pick(self) -> tuple[int, Level | None] | None:
        """The square and level under the mouse, or None off the board."""
        ray = self._ray()
        if ray is None:
            return None
        origin, direction = ray
        hits = ray_hits(origin, direction, self.scene.shown_levels())
        interesting = {p.cell for p in self.interaction.view.pieces}
        interesting.update(self.interaction.highlights())
        return choose_hit(hits, interesting)

    def _handle(self, reply: Reply) -> None:
        if reply.intent is not None:
            self.send(reply.intent)
            return
        if reply.choices:
            self._open_chooser(reply)
        self._say(reply.message, refused=reply.message.startswith("R") and
                  reply.message[1:2].isdigit())
        self.scene.light(self.interaction.highlights())
        self._update_aim()
        self._refresh_hud()

    def _say(self, text: str, refused: bool = False) -> None:
        self.message = text
        self.refused = refused

    def say(self, text: str, refused: bool = False) -> None:
        self._say(text, refused)
        self._refresh_hud()

    def _open_chooser(self, reply: Reply) -> None:
        def pick(index: int) -> None:
            self._close_chooser()
            self._handle(self.interaction.choose(reply.choices[index]))

        self._close_panels()
        self.chooser = Chooser(self.hud, reply.prompt, [c.label for c in reply.choices],
                               pick, self._cancel_chooser, rect=self.panel_rect)

    def _close_chooser(self) -> None:
        if self.chooser is not None:
            self.chooser.destroy()
            self.chooser = None
        self._show_inspector()

    def _cancel_chooser(self) -> None:
        self._close_chooser()
        self._cancel_selection()
        self._refresh_hud()

    def _cancel_selection(self) -> None:
        self.interaction.cancel()
        self.scene.light({})
        self.scene.show_aim((), ())
        self.aim = None

    def escape(self) -> None:
        """Close the top-most popup or page, else leave a past moment, else drop the
        selection, else open the menu."""
        if self.help is not None:
            self.toggle_help()
        elif self.chooser is not None:
            self._cancel_chooser()
        elif self.actions is not None or self.status_panel is not None or self.legend is not None:
            self._close_panels()
            self._refresh_hud()
        elif self.banner is not None:
            return
        elif self.browsing is not None:
            self.stop_browsing()
        elif self.interaction.selection is not None or self.interaction.doze is not None:
            self._cancel_selection()
            self._say("")
            self._refresh_hud()
        else:
            self.leave()

    # ------------------------------------------------------------------ aiming

    def _update_aim(self) -> None:
        """With a weapon selected: the shot of the aim under the pointer (else of the
        only aim), its ray or area and what it would hit (client.aiming)."""
        selection = self.interaction.selection
        if selection is None or selection.weapon is None or self.browsing is not None:
            if self.aim is not None:
                self.aim = None
                self.scene.show_aim((), ())
            return
        fires = self.interaction.fires_of(selection.piece, selection.weapon)
        chosen = self._aim_under_pointer(fires)
        if chosen is None and len(fires) == 1:
            chosen = fires[0]
        if chosen is None:
            if self.aim is not None:
                self.aim = None
                self.scene.show_aim((), ())
                self._refresh_inspector()
            return
        aim = preview(chosen, self.interaction.view)
        if aim != self.aim:
            self.aim = aim
            self.scene.show_aim(aim.path, aim.hits)
            self._say(aim.text)
            self.note.setText(self.message)
            self.note["fg"] = TEXT
            self._refresh_inspector()

    def _aim_under_pointer(self, fires: list[Fire]) -> Fire | None:
        if self.hovered is None:
            return None
        sq = self.hovered[0]
        for fire in fires:
            if self.interaction.aims_at_square(fire, sq):
                return fire
        for fire in fires:
            aim = preview(fire, self.interaction.view)
            if any(board.cell_square(c) == sq for c in aim.path):
                return fire
        return None

    # ------------------------------------------------------------------ actions

    def send(self, intent: Intent) -> bool:
        """Play one intent through the engine; a refusal is shown, never applied."""
        before = self.session.current
        mover = before.side_to_act
        try:
            action = self.session.play(intent)
        except IllegalIntent as refusal:
            self._say(str(refusal), refused=True)
            self._refresh_hud()
            return False
        seen = action.events_for(mover)
        self.app.sounds.play_events(seen)
        self._say(narrate(seen[0], action.turn) if seen
                  else intent_words(intent, mover, before))
        self._after_change(action, turn_ended=isinstance(intent, EndTurn))
        return True

    def _after_change(self, action: Action, turn_ended: bool) -> None:
        self._close_popups()
        self.interaction = self._interaction()
        if self._finished():
            self.redraw(action)
            self._game_over(self.app.keep_finished_game())
            return
        if turn_ended and self.curtain_between_turns:
            self._hand_over("")
            return
        if turn_ended:
            self.go_home()
            self._say(self._turn_summary())
        self.redraw(action)

    def _turn_summary(self) -> str:
        """What the side now to act saw of the other side's last turn, in one line."""
        side = self.viewer
        seen: list[str] = []
        for action in reversed(self.session.match.history):
            if action.side is side and not isinstance(action.intent, EndTurn):
                break
            if action.turn < self.session.current.turn - 1:
                break
            events = [e for e in action.events_for(side) if not isinstance(e, TurnEnded)]
            if events:
                seen.insert(0, narrate(events[0], action.turn))
        other = side.other.title
        if not seen:
            return f"Your turn, {side.title}. You saw nothing of {other}'s turn."
        return f"Your turn, {side.title}. " + "; ".join(seen[-3:])

    def end_turn(self) -> None:
        if self._blocked() or self.chooser is not None:
            return
        self._cancel_selection()
        self.send(EndTurn())

    def undo(self) -> None:
        """R14.2: one action back; back into the other side's turn, the seat changes
        hands first (the hand-over)."""
        if not self.session.can_undo or self._blocked():
            return
        before = self.session.current.side_to_act
        action = self.session.match.history[-1]
        text = step_text(action, action.events_for(action.side))
        self.session.undo()
        self._close_popups()
        self.interaction = self._interaction()
        self._say(f"Undone: {text} (R14.2)")
        if self.curtain_between_turns and self.session.current.side_to_act is not before:
            self._hand_over(f"Undo went back into {self.viewer.title}'s turn.")
            return
        self.go_home()
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
            self._close_panels()
            self._refresh_hud()
        else:
            self.open_actions(None)

    def doze_key(self) -> None:
        """Z: the selected Dozer dozes, its squares chosen on the board (R8.8); without
        one, the Actions menu's Doze lines."""
        if self._blocked() or self.chooser is not None:
            return
        selection = self.interaction.selection
        if selection is not None and self.interaction.dozes_from(selection.piece.sq):
            self._handle(self.interaction.start_doze(selection.piece.sq))
            return
        self.open_actions("doze")

    def open_actions(self, focus: str | None) -> None:
        """The Actions menu in the left column: the legal Pick-ups, Drops, Exchanges,
        Dozes and Reinforcements, grouped by the piece that acts, in plain words,
        scrolled when long (issue 18)."""
        if self._blocked() or self.chooser is not None:
            return
        self._close_panels()
        rows = self.interaction.action_rows(focus)
        title = "Actions (A)" if focus is None else GROUP_TITLES[focus]
        if not rows:
            rows = [ActionRow("none legal now")]
        self.action_rows = rows

        def text_of(index: int) -> str:
            row = self.action_rows[index]
            return row.label if row.heading else "   " + row.label

        def colour_of(index: int) -> Any:
            return ACCENT if self.action_rows[index].heading else TEXT

        self.actions = ScrollList(self.hud, f"{title}  (Esc closes)", self.panel_rect,
                                  text_of, self._action_picked, "actions-panel",
                                  colour_of=colour_of)
        self.actions.set_count(len(rows))
        self.info.frame.hide()

    def _action_picked(self, index: int) -> None:
        row = self.action_rows[index]
        if row.heading:
            return
        self._close_panels()
        if row.doze_from is not None:
            self._handle(self.interaction.start_doze(row.doze_from))
            return
        assert row.intent is not None
        self.send(row.intent)

    def _close_actions(self) -> None:
        if self.actions is not None:
            self.actions.destroy()
            self.actions = None
        self._show_inspector()

    def _close_panels(self) -> None:
        """Close whatever replaced the inspector (not a chooser: it waits for a pick)."""
        self._close_actions()
        if self.status_panel is not None:
            self.status_panel.destroy()
            self.status_panel = None
        if self.legend is not None:
            self.legend.destroy()
            self.legend = None
        self._show_inspector()

    def _close_popups(self) -> None:
        self._close_panels()
        self._close_chooser()
        self._close_entry()

    def _show_inspector(self) -> None:
        if (self.actions is None and self.status_panel is None and self.legend is None
                and self.chooser is None):
            self.info.frame.show()

    # ------------------------------------------------------------------ keyboard entry

    def open_square_entry(self) -> None:
        """The manual's emergency square select: type row,column[,level] and Enter."""
        if self.entry is not None or self._blocked():
            return
        msg = self.layout.message
        self.entry = DirectEntry(parent=self.hud, pos=(msg[0] + 0.02, 0, msg[2] + 0.02),
                                 scale=0.04, width=16, focus=1, command=self._square_entered,
                                 initialText="", numLines=1, frameColor=(0.1, 0.1, 0.12, 1),
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
        """The game status (F2): mode, options that differ from the standard game,
        pieces each side has (as far as the viewer sees), in the left column."""
        if self.status_panel is not None:
            self._close_panels()
            return
        if self._blocked(allow_browsing=True) or self.chooser is not None:
            return
        self._close_panels()
        left, right, bottom, top = self.panel_rect
        self.status_panel = ListPanel(self.hud, "Game status (F2)", (left, top),
                                      (right - left, top - bottom), lines=30)
        self.status_panel.frame["frameColor"] = SOLID_PANEL
        self.status_panel.frame.setName("status-panel")
        self.status_panel.body["wordwrap"] = (right - left - 0.06) / 0.034
        self.status_panel.set_lines(status_report(self.session, self.interaction.view))
        self.info.frame.hide()

    def toggle_legend(self) -> None:
        """The legend (G): article badges, level colours and the marks on the board."""
        if self.legend is not None:
            self._close_panels()
            return
        if self._blocked(allow_browsing=True) or self.chooser is not None:
            return
        self._close_panels()
        self.legend = LegendPanel(self.hud, self.panel_rect)
        self.info.frame.hide()

    def toggle_help(self) -> None:
        """The Help screen (F1): the controls and the rules reference (docs/rules.md)."""
        if self.help is not None:
            self.help.destroy()
            self.help = None
            return
        if self.cover is not None:
            return
        self.help = HelpScreen(self.base, rules_file(), self._help_closed, own_keys=False)

    def _help_closed(self) -> None:
        self.help = None

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

        if self._blocked() or self.chooser is not None:
            return
        try:
            self.session.match.require_editor()
        except MatchError as refusal:
            self._say(str(refusal), refused=True)
            self._refresh_hud()
            return
        self.app.open_editor(self.session.current, session=self.session)

    def ask_competitive(self) -> None:
        if self.session.match.competitive or self._blocked():
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
        self._say("Competitive mode: Undo is off for the rest of the game (R14.3)")
        self._refresh_hud()

    def ask_resign(self) -> None:
        """Resign (hotseat): the side to act gives the game to the other, once
        confirmed."""
        if self._blocked() or self._finished():
            return
        side = self.viewer
        self.banner = Banner(self.base.aspect2d, f"{side.title}: resign?",
                             f"{side.other.title} wins the game.",
                             [("Resign", self._resign), ("Play on", self._dismiss_banner)],
                             name="resign-confirm")

    def _resign(self) -> None:
        self._dismiss_banner()
        self.session.resign(self.viewer)
        self.app.sounds.play("game_end")
        self._close_popups()
        self._cancel_selection()
        self.redraw()
        self._game_over(self.app.keep_finished_game())

    # ------------------------------------------------------------------ hand-over

    def _hand_over(self, reason: str) -> None:
        """Cover the whole window until the side to act's player takes the seat: the
        board, every panel and line of text go (R9, R14.3)."""
        self._close_popups()
        self._cancel_selection()
        self.hovered = None
        self.browsing = None
        if self.help is not None:
            self.help.destroy()
            self.help = None
        self.scene.root.hide()
        self.hud.hide()
        if self.cover is not None:
            self.cover.destroy()
        self.cover = HandOverCover(self.base, self.viewer, self.session.current.turn, reason,
                                   self._take_seat)
        self.banner = None

    def _take_seat(self) -> None:
        if self.cover is not None:
            self.cover.destroy()
            self.cover = None
        self.interaction = self._interaction()
        self.hud.show()
        self.scene.root.show()
        self.go_home()
        if not self.message.startswith("Undone"):
            self._say(self._turn_summary())
        self.redraw()

    # ------------------------------------------------------------------ banners

    def _game_over(self, kept: str = "") -> None:
        ending = self.session.ending
        assert ending is not None
        if self.cover is not None:
            self.cover.destroy()
            self.cover = None
            self.hud.show()
            self.scene.root.show()
        detail = f"{ending.reason}" + (" (R12)" if self.session.current.result else "") + (
            f"\n{kept}" if kept else "")
        buttons = [("Look at the board", self._dismiss_banner)]
        if self.session.current.result is not None or not self.session.match.competitive:
            buttons.append(("Watch the replay", self.watch_replay))
        buttons.append(("Main menu", self.leave))
        self.banner = Banner(self.base.aspect2d, f"{ending.winner.title} wins", detail,
                             buttons, name="game-over")
        self.redraw()

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
        lens = self.base.camLens
        if tuple(lens.getFilmOffset()) != self._film_offset:  # another screen's leaving
            lens.setFilmOffset(*self._film_offset)
        follow_view(self.base, self.camera, self.scene, self.app.shading, task)
        self.skin.refresh()
        if self.cover is None and self.help is None:
            picked = self.pick()
            self.scene.hover(*(picked if picked else (None, None)))
            if picked != self.hovered:
                self.hovered = picked
                self._update_aim()
                self._refresh_inspector()
        return task.cont

    def leave(self) -> None:
        self.destroy()
        self.on_leave()

    def _destroy_hud(self) -> None:
        for widget in (self.chooser, self.actions, self.status_panel, self.legend):
            if widget is not None:
                widget.destroy()
        self.chooser = self.actions = self.status_panel = self.legend = None
        self._close_entry()
        self.info.destroy()
        self.log.destroy()
        self.skin.destroy()
        for text in (self.status, self.mode_line, self.budget, self.note, self.losses):
            text.destroy()
        self.hud.removeNode()

    def destroy(self) -> None:
        self.ignoreAll()
        self.base.taskMgr.remove("play-frame")
        for widget in (self.banner, self.cover, self.help):
            if widget is not None:
                widget.destroy()
        self.banner = self.cover = self.help = None
        self._destroy_hud()
        self.base.camLens.setFilmOffset(0, 0)
        self.scene.destroy()
