"""The network game screen (issue 8 item 7): the hotseat play screen over a
:class:`~client.network_session.NetworkSession`.

Our intents go to the Peer; the opponent's arrive and are animated, told in the history
panel's plain language. Around the board: the connection status line, claim the win or
keep waiting after the grace period, the desync message with its report, resign,
takeback by request, chat, and save (each machine writes and names its own file).
:class:`~client.lan.LanPlay` (a :class:`NetworkHost`) opens this screen and feeds it the
Peer's events.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any, Protocol

from direct.gui.DirectGui import DirectEntry

from wec.client.hud import REFUSAL, SOLID_PANEL, TEXT, Banner, ListPanel, label
from wec.client.narration import message_words, narrate_all, unseen_action_words
from wec.client.network_session import NetworkSession, Update
from wec.client.play import PlayScreen
from wec.engine.intents import EndTurn
from wec.engine.match import Action
from wec.net import lockstep as game_events
from wec.net.lockstep_fog import Audited
from wec.net.peer_events import AuditWritten


class NetworkGameRecord(Protocol):
    """What the screen reads of the LAN model: the game's chat and its desync report."""

    chat: list[str]
    desync_path: str


class NetworkHost(Protocol):
    """The screen that opened this one (``client.lan.LanPlay``): where "Back to local
    network", "Leave" and the replay's way back go. A protocol, so that the LAN menus
    may import this screen without this screen importing them."""

    @property
    def model(self) -> NetworkGameRecord: ...

    def leave_game(self) -> None: ...

    def leave(self) -> None: ...

    def show_game(self, notice: str = "") -> None: ...

OK_COLOUR = (0.55, 0.95, 0.55, 1.0)
WAIT_COLOUR = (1.0, 0.75, 0.3, 1.0)
DISPUTE_CHARS = 120  # of the peer's reason (untrusted text) on the game-over banner


def save_file_name(peer_name: str, turn: int) -> str:
    """A bare file name for our copy of a LAN save (the other machine names its own)."""
    safe = re.sub(r"[^A-Za-z0-9_-]+", "_", peer_name).strip("_")[:24] or "peer"
    return f"{time.strftime('%Y%m%d-%H%M%S')}-lan-{safe}-turn{turn}.wecsave"


class NetworkPlayScreen(PlayScreen):
    """The play screen of a LAN game: our side's view only, our intents to the Peer,
    the opponent's animated as they arrive; no hand-over curtain (each machine shows
    its own side); connection status, resign, takeback by request, chat and save."""

    def __init__(self, app: Any, session: NetworkSession, lan: NetworkHost) -> None:
        self.lan = lan
        self._queued: list[Callable[[], Banner]] = []
        self._over_shown = False
        self._desync_turn: int | None = None
        self._status_text = ""
        super().__init__(app, session, on_leave=lambda: None)
        self.go_home()
        self.accept("t", self.open_chat)
        self.chat_panel.set_lines(lan.model.chat)
        self.tick()
        self._check_over()
        if session.stopped:
            self._desynced(session.snapshot.desync_turn or 0)

    @property
    def stopped(self) -> bool:
        """The game stopped after a desync (known from the event or the snapshot)."""
        return self.net_session.stopped or self._desync_turn is not None

    @property
    def net_session(self) -> NetworkSession:
        assert isinstance(self.session, NetworkSession)
        return self.session

    # ------------------------------------------------------------ building

    chat_reserve = 0.5  # the chat sits at the bottom of the left column

    def _build_hud(self) -> None:
        super()._build_hud()
        self.takeback_button = self.add_button("Ask takeback", self.ask_takeback, "takeback")
        self.chat_button = self.add_button("Chat (T)", self.open_chat, "chat")
        left, right, bottom, _top = self.layout.left
        self.chat_panel = ListPanel(self.hud, "Chat", (left, bottom + self.chat_reserve - 0.08),
                                    (right - left, self.chat_reserve - 0.1), lines=6)
        self.chat_panel.frame["frameColor"] = SOLID_PANEL
        self.chat_panel.frame.setName("chat-panel")
        self.chat_panel.body["wordwrap"] = (right - left - 0.06) / 0.034
        self.connection = label(self.hud, "", (left + 0.01, bottom + self.chat_reserve - 0.045),
                                scale=0.036)
        # fog of war (issue 21): the only trace of the commitment and answer traffic
        self.verified = label(self.hud, "", (left + 0.01, bottom + self.chat_reserve - 0.005),
                              scale=0.03)
        self.verified.setName("verified")
        self._verified_text = ""

    # ------------------------------------------------------------ whose view

    @property
    def viewer(self) -> Any:
        """Our side, always: each machine shows its own side."""
        return self.net_session.our_side

    def _interaction(self) -> Any:
        from wec.client.interaction import Interaction

        return Interaction(self.session.view(self.viewer), self.session.legal())

    def redraw(self, action: Action | None = None) -> None:
        self._show_actions((action,) if action is not None else ())

    def _show_actions(self, actions: tuple[Action, ...]) -> None:
        self._draw([e for a in actions for e in a.events_for(self.viewer)])

    def _finished(self) -> bool:
        return self._result_line() is not None

    def _uses_curtain(self) -> bool:
        return False  # each machine shows its own side

    def reveals_all(self) -> bool:
        """Each machine has its own side's events only: the history stays censored."""
        return False

    def _board_view(self) -> Any:
        return self.interaction.view

    def _wanted_buttons(self) -> dict[str, bool]:
        over = self._result_line() is not None
        return {**super()._wanted_buttons(), "competitive": False, "undo": False,
                "edit-board": False,
                "takeback": (not self.net_session.match.competitive and not over
                             and not self.net_session.fog),
                "resign": not over}

    def _destroy_hud(self) -> None:
        self.chat_panel.destroy()
        self.connection.destroy()
        self.verified.destroy()
        super()._destroy_hud()

    def _refresh_hud(self) -> None:
        super()._refresh_hud()
        session = self.net_session
        current = session.current
        over = self._result_line()
        if over is not None:
            self.status["text"] = f"Game over: {over[0]}"
        else:
            side = current.side_to_act
            who = "you" if side is self.viewer else session.peer_name
            self.status["text"] = f"Turn {current.turn} - {side.title} to act ({who})"

    def _result_line(self) -> tuple[str, str] | None:
        """(title, reason) of the finished game: the lockstep's ending (resign, forfeit)
        or the rules' (R12)."""
        session = self.net_session
        result = session.result
        if result is not None:
            title = f"{result.winner.title} wins" if result.winner else "Nobody wins"
            return title, result.reason
        ended = session.current.result
        if ended is not None:
            return f"{ended.winner.title} wins", f"{ended.reason} (R12)"
        return None

    # ------------------------------------------------------------ playing

    def _click(self, right: bool) -> None:
        session = self.net_session
        if (self.banner is None and self.chooser is None and self.actions is None
                and not session.our_turn and self._result_line() is None):
            side = session.current.side_to_act
            if self.stopped:
                self.say("The game stopped after a desync")
            elif side is self.viewer:  # ours to act, the exchange with the peer under way
                # (the game's opening, or our last action not settled yet)
                self.say(f"A moment: the game's exchange with {session.peer_name} is "
                         "still under way")
            else:
                self.say(f"{side.title} ({session.peer_name}) is to act: wait for their move")
            return
        super()._click(right)

    def _after_change(self, action: Action, turn_ended: bool) -> None:
        self._close_actions()
        self.interaction = self._interaction()
        self.redraw(action)
        self._check_over()

    def follow(self, update: Update) -> None:
        """The Peer's game moved on: animate the opponent's actions, or redraw a copy
        replaced outright (a takeback, a refused intent)."""
        if update.added or update.replaced:
            self._close_actions()
            self._cancel_chooser_quietly()
            self.interaction = self._interaction()
            self._show_actions(update.added)
            theirs = [a for a in update.added if a.side is not self.viewer
                      and not isinstance(a.intent, EndTurn)]
            if theirs:
                self.say(f"{self.net_session.peer_name}: {self._plain(theirs[-1])}")
            elif update.added and isinstance(update.added[-1].intent, EndTurn) \
                    and self.net_session.our_turn:
                self.say("Your turn")
        for refusal in update.refusals:
            self.say(refusal, refused=True)
        self._refresh_hud()
        self.tick()
        self._check_over()

    def _cancel_chooser_quietly(self) -> None:
        if self.chooser is not None:
            self._close_chooser()
            self.interaction.cancel()

    def _plain(self, action: Action) -> str:
        """What the opponent did, in the history panel's plain language: the first event
        this player saw of it (a Move's "White Tank (3,4) -> (4,4)"), else only its kind
        (narration ``unseen_action_words``: "a move you do not see")."""
        lines = narrate_all(action.events_for(self.viewer))
        return lines[0] if lines else unseen_action_words(action.intent)

    def say(self, text: str, refused: bool = False) -> None:
        self._say(text, refused)
        self._refresh_hud()

    def tick(self) -> None:
        """The connection status line (called every frame by LanPlay)."""
        session = self.net_session
        peer = session.peer_name
        away = session.away_seconds()
        if self._result_line() is not None:
            text, colour = f"Game with {peer} finished", TEXT
        elif self.stopped:
            text, colour = "Game stopped after a desync", REFUSAL
        elif away is None:
            text, colour = f"Connected to {peer}", OK_COLOUR
        else:
            text, colour = f"{peer} is away for {int(away)} s: reconnecting...", WAIT_COLOUR
        if text != self._status_text:
            self._status_text = text
            self.connection["text"] = text
            self.connection["text_fg"] = colour
        self._tick_verified()

    def _tick_verified(self) -> None:
        """Fog of war: a small "verified" line (every answer about hidden pieces checked
        at once against the other machine's signed commitments), then the audit's
        verdict once the game ended."""
        snapshot = self.net_session.snapshot
        if not snapshot.fog:
            return
        summary, clean = self._audit or (snapshot.audit, snapshot.audit_clean)
        if summary is not None:
            text = summary
            colour = OK_COLOUR if clean else REFUSAL
        elif self._result_line() is not None:
            text, colour = "fog of war: auditing the game...", WAIT_COLOUR
        else:
            text = f"fog of war: verified ({snapshot.verified} actions checked)"
            colour = OK_COLOUR
        if text != self._verified_text:
            self._verified_text = text
            self.verified["text"] = text
            self.verified["text_fg"] = colour

    # ------------------------------------------------------------ events

    def on_event(self, event: Any) -> None:
        """A game or connection event from LanPlay (the match itself follows through
        :meth:`follow`)."""
        from wec.net import peer as peer_events

        session = self.net_session
        peer = session.peer_name
        if isinstance(event, game_events.ChatLine):
            self.chat_panel.set_lines(self.lan.model.chat)
        elif isinstance(event, game_events.TakebackRequested):
            if event.by_us:
                self.say(f"Asked {peer} to take back from turn {event.turn} (R14.2)")
            else:
                self._show_banner(lambda: self._takeback_banner(event.turn))
        elif isinstance(event, game_events.TakebackAnswered):
            verdict = "accepted" if event.accepted else "refused"
            who = "You" if event.by_us else peer
            self.say(f"{who} {verdict} the takeback to turn {event.turn}")
        elif isinstance(event, game_events.Desynced):
            self._desynced(event.report.turn)
        elif isinstance(event, peer_events.DesyncWritten):
            self._desynced(self._desync_turn or session.snapshot.desync_turn or 0)
        elif isinstance(event, game_events.Refused):
            self.say(f"Refused {peer}'s {message_words(event.tag)}: {event.reason}",
                     refused=True)
        elif isinstance(event, game_events.PeerRefused):
            self.say(f"{peer} refused your {message_words(event.tag)}: {event.reason}",
                     refused=True)
            if event.tag == "time_claim":
                # our claim stands on our clock; that the peer disputes it belongs on
                # the game-over banner, not only under the dimmed board
                self._disputed = f"{peer} refused the claim: {event.reason[:DISPUTE_CHARS]}"
                self._audit_arrived()
        elif isinstance(event, peer_events.Resumed):
            self._drop_banner("grace-expired")
            self.say(f"Connected to {peer} again: the game goes on")
        elif isinstance(event, peer_events.GraceExpired):
            self._show_banner(lambda: self._grace_banner(event.seconds))
        elif isinstance(event, peer_events.PeerIdle):  # issue 20 hole 3
            self._show_banner(lambda: self._idle_banner(event.claim, event.seconds))
        elif isinstance(event, Audited):  # fog of war: both reveals are in (issue 21)
            session.refresh()
            self._audit = (event.summary, event.clean)
            self.say(event.summary, refused=not event.clean)
            self._audit_arrived()
        elif isinstance(event, AuditWritten):
            self._audit_report = event.path
            self._audit_arrived()
        elif isinstance(event, peer_events.Saved) and event.file_name.endswith(
                "-audited.wecsave"):
            self._audited_save = event.path
            self._audit_arrived()
        elif isinstance(event, peer_events.Saved):
            self.say(f"Saved as {event.file_name}" if event.asked_by_us else
                     f"{peer} saved the game; this machine keeps it as {event.file_name}")
        elif isinstance(event, peer_events.ErrorEvent):
            self.say(event.text, refused=True)

    # ------------------------------------------------------------ commands

    def send_command(self, what: str, run: Callable[[Any], Any]) -> None:
        self.net_session.command(what, run)

    def _mode_text(self) -> str:
        """A network game has no undo: with fog of war (issue 21) no takeback either, and
        each machine's history is its own side's; without it, a takeback by agreement in
        a non-competitive game (R14.2)."""
        if self.net_session.fog:
            return "network, fog of war (O15, O16): no takeback, your side's history"
        if self.net_session.match.competitive:
            return "network, competitive: no takeback, censored history (R14.3)"
        return "network, non-competitive: takeback by agreement, full history (R14.2)"

    def ask_takeback(self) -> None:
        if self.banner is None:
            self.send_command("takeback", lambda peer: peer.request_takeback())

    def ask_resign(self) -> None:
        if self.banner is not None or self._result_line() is not None:
            return
        self._show_banner(lambda: Banner(
            self.base.aspect2d, "Resign?", f"{self.net_session.peer_name} wins the game.",
            [("Resign", self._resign), ("Play on", self._dismiss_banner)],
            name="resign-confirm"))

    def _resign(self) -> None:
        self._dismiss_banner()
        self.send_command("resign", lambda peer: peer.resign())

    def save(self) -> None:
        """Ctrl+S: both machines save, each from its own data under its own name."""
        name = save_file_name(self.net_session.peer_name, self.session.current.turn)
        self.send_command("save", lambda peer: peer.save(name))
        self.say(f"Saving as {name}...")

    def open_editor(self) -> None:
        self.say("The board editor is not available in a network game (R14.4)",
                 refused=True)

    def ask_competitive(self) -> None:
        return None  # the options of a network game are agreed in the lobby

    def undo(self) -> None:
        return None  # a takeback is asked of the opponent

    def open_chat(self) -> None:
        if self.entry is not None:
            return
        left, right, bottom, _top = self.layout.left
        self.entry = DirectEntry(parent=self.hud, pos=(left + 0.02, 0, bottom + 0.03),
                                 scale=0.034, width=(right - left - 0.06) / 0.034, focus=1,
                                 command=self.chat_entered,
                                 initialText="", numLines=1, frameColor=(0.1, 0.1, 0.12, 0.95),
                                 text_fg=(1, 1, 1, 1), focusOutCommand=self._close_entry)
        self.entry.setName("chat-entry")
        self.base.acceptOnce("escape", self._close_entry)

    def chat_entered(self, text: str) -> None:
        """Send a chat line (Enter in the chat entry)."""
        self._close_entry()
        text = text.strip()
        if text:
            self.send_command("chat", lambda peer: peer.chat(text))

    # ------------------------------------------------------------ banners

    def _show_banner(self, make: Callable[[], Banner]) -> None:
        if self.banner is None:
            self.banner = make()
        else:
            self._queued.append(make)

    def _dismiss_banner(self) -> None:
        super()._dismiss_banner()
        if self._queued and self.banner is None:
            self.banner = self._queued.pop(0)()

    def _drop_banner(self, name: str) -> None:
        if self.banner is not None and self.banner.frame.getName() == name:
            self._dismiss_banner()

    def _takeback_banner(self, turn: int) -> Banner:
        peer = self.net_session.peer_name
        return Banner(self.base.aspect2d, f"{peer} asks for a takeback",
                      f"Back to the start of turn {turn} (R14.2)?",
                      [("Approve", lambda: self._answer_takeback(True)),
                       ("Refuse", lambda: self._answer_takeback(False))],
                      name="takeback-request")

    def _answer_takeback(self, accept: bool) -> None:
        self._dismiss_banner()
        self.send_command("takeback answer", lambda peer: peer.answer_takeback(accept))

    def _grace_banner(self, seconds: float) -> Banner:
        peer = self.net_session.peer_name
        return Banner(self.base.aspect2d, f"{peer} has been away for {seconds:.0f} s",
                      f"Claim the win, or keep waiting for {peer} to come back.",
                      [("Claim the win", self._claim), ("Keep waiting", self._keep_waiting)],
                      name="grace-expired")

    def _idle_banner(self, claim: str, seconds: float) -> Banner:
        peer = self.net_session.peer_name
        what = {"answer": "has not answered your takeback request",
                "protocol": "has not answered"}.get(claim, "has not finished its turn")
        why = (f"{peer}'s machine stopped answering the game's questions in the middle of "
               "your action. " if claim == "protocol" else "")
        return Banner(self.base.aspect2d, f"{peer} {what} for {seconds:.0f} s",
                      f"{why}Claim the win, or keep waiting for {peer}.",
                      [("Claim the win", self._claim), ("Keep waiting", self._dismiss_banner)],
                      name="peer-idle")

    def _claim(self) -> None:
        self._dismiss_banner()
        self.send_command("claim the win", lambda peer: peer.claim_win())

    def _keep_waiting(self) -> None:
        self._dismiss_banner()
        self.send_command("keep waiting", lambda peer: peer.keep_waiting())
        self.say(f"Waiting for {self.net_session.peer_name} to come back")

    def _desynced(self, turn: int) -> None:
        """The game stopped after a desync: say so once, and name the report's path
        as soon as it is written."""
        if self._desync_turn is not None:
            if self.banner is not None and self.banner.frame.getName() == "desync":
                self.banner.destroy()
                self.banner = self._desync_banner(self._desync_turn)
            return
        self._desync_turn = turn
        self._show_banner(lambda: self._desync_banner(turn))

    def _desync_banner(self, turn: int) -> Banner:
        path = self.lan.model.desync_path
        where = f"A report was written to {path}" if path else "A report is being written"
        return Banner(self.base.aspect2d, f"Desync at turn {turn}: the game stopped",
                      f"The two machines disagree about the game. {where}.",
                      [("Look at the board", self._dismiss_banner),
                       ("Back to local network", self.lan.leave_game)], name="desync")

    def _check_over(self) -> None:
        if self._over_shown or self._result_line() is None:
            return
        self._over_shown = True
        self._show_banner(lambda: self._game_over(self._kept_line()))

    def _keep(self) -> str:
        """Issue 7: a finished LAN game is kept for Replays, like a hotseat game. With
        fog of war this machine holds only its half: the Peer keeps the audited full game
        once both reveals are in (issue 21)."""
        from wec.engine.errors import SaveError
        from wec.storage.saves import write_save

        if self.net_session.fog:
            return "The whole game is kept for Replays once it is audited."
        folder = self.app.saves_folder()
        name = save_file_name(self.net_session.peer_name, self.session.current.turn)
        path = folder / name.replace(".wecsave", "-finished.wecsave")
        try:
            folder.mkdir(parents=True, exist_ok=True)
            write_save(path, self.session.match)
        except (OSError, SaveError) as problem:
            return f"The game could not be kept for Replays: {problem}"
        return f"Kept for Replays as {path.name}"

    def _game_over(self, kept: str = "") -> Any:
        over = self._result_line()
        if over is None:  # PlayScreen.__init__ asks on an engine result: shown later
            return None
        self._over_shown = True
        title, reason = over
        detail = reason + (f"\n{self._disputed}" if self._disputed else "") \
            + (f"\n{kept}" if kept else "")
        if self.net_session.fog:
            detail += "\n" + self._audit_line()
        no_replay = self.net_session.fog and self._audit is not None and not self._audit[1]
        buttons = [("Look at the board", self._dismiss_banner),
                   *([] if no_replay else [("Watch the replay", self.watch_replay)]),
                   ("Back to local network", self.lan.leave_game)]
        banner = Banner(self.base.aspect2d, title, detail, buttons, name="game-over")
        if self.banner is None:
            self.banner = banner
        return banner

    def _audit_line(self) -> str:
        """The end-of-game audit for the game-over banner (fog of war)."""
        snapshot = self.net_session.snapshot
        summary, clean = self._audit or (snapshot.audit, snapshot.audit_clean)
        if summary is None:
            return "Audit: waiting for the other machine's reveal..."
        if clean:
            return "Audited: clean (every answer and commitment checked)"
        report = self._audit_report
        finding = summary.removeprefix("audited: ")  # not "Audit: audited: ..."
        return f"Audit: {finding}" + (f"\nReport: {report}" if report else "")

    _audit: tuple[str, bool] | None = None
    _disputed = ""  # the peer refused our claim of the win, and said why
    _audit_report = ""
    _audited_save = ""

    def _audit_arrived(self) -> None:
        """The verdict (or the peer's dispute of our claim) came after the game-over
        banner: show it there."""
        if self.banner is not None and self.banner.frame.getName() == "game-over":
            self.banner.destroy()
            self.banner = None
            self._show_banner(lambda: self._game_over(self._kept_line()))

    def _kept_line(self) -> str:
        if self._audited_save:
            name = self._audited_save.replace("\\", "/").rsplit("/", 1)[-1]
            return f"The audited game is kept for Replays as {name}"
        if self._audit is not None and not self._audit[1]:  # no audited history to keep
            return "No replay of the whole game: the audit did not come out clean."
        return self._keep()

    def watch_replay(self) -> None:
        lan = self.lan
        match = self.session.match
        if self.net_session.fog:
            from wec.storage.saves import read_save

            if not self._audited_save:
                self.say("No replay of the whole game: the audit did not come out clean"
                         if self._audit is not None and not self._audit[1] else
                         "The replay opens once the game is audited", refused=True)
                return
            match = read_save(self._audited_save)
        self.app.open_replay(match, back=lambda notice: lan.show_game(notice),
                             title="Replay of the game just finished")

    def leave(self) -> None:
        """Menu/Esc: a finished game goes back to the LAN screens; a game under way asks
        first (it is kept, and resumed when Play on local network opens again)."""
        if self._result_line() is not None or self.stopped:
            self.lan.leave_game()
            return
        peer = self.net_session.peer_name
        self._show_banner(lambda: Banner(
            self.base.aspect2d, "Leave the game?",
            f"The game is kept: open Play on local network again to resume it with {peer}. "
            f"While you are away, {peer} may claim the win after the grace period.",
            [("Leave", lambda: self.lan.leave()), ("Stay", self._dismiss_banner)],
            name="leave-confirm"))

    def destroy(self) -> None:
        self._queued = []
        super().destroy()
