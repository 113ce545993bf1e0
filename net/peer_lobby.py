"""The lobby with each paired peer, as the Peer hosts it (net.peer).

Every paired link has its :class:`~net.lobby.Lobby` (a fresh one once a game on it is
over). The player's lobby commands go to the lobby of the link they name, and what each
lobby step produces is carried out here (:meth:`LobbyHost.carry_out`): its messages go
to the peer, its events are reported, and agreed rules start the game (net.game_host).
While a game is under way the lobby takes no commands but view settings and chat.
"""

from __future__ import annotations

from collections.abc import Callable

from wec.engine.options import Options
from wec.engine.pieces import Government
from wec.net.game_files import GameFiles
from wec.net.game_host import GameHost
from wec.net.limits import RateLimit
from wec.net.lobby import Lobby, LobbyError, Phase, RulesAgreed, SavedGame, StartBoard
from wec.net.messages import Chat, Message, Rejection
from wec.net.peer_events import LobbyUpdate
from wec.net.peer_links import Links
from wec.net.peer_state import Link, PeerState
from wec.net.steps import LobbyStep, Refused
from wec.storage.fog_saves import save_key


class LobbyHost:
    """The Lobby of each link, the player's lobby commands, and their steps carried out."""

    def __init__(self, state: PeerState, links: Links, games: GameHost,
                 files: GameFiles) -> None:
        self._state = state
        self._links = links
        self._games = games
        self._files = files

    # ------------------------------------------------------------ the lobby of a link

    def lobby_for(self, link: Link) -> Lobby:
        """The lobby of ``link``: a new one at first, and after its game is over."""
        state = self._state
        lobby = link.lobby
        if lobby is None or (lobby.phase is Phase.STARTED and (
                state.game is None or state.game.finished or state.game.link is not link)):
            self._games.archive_finished()
            peer_key = link.peer_key

            def find_save(digest: bytes) -> SavedGame | None:
                return self._files.find_save(digest, peer_key)

            lobby = Lobby(state.identity.public_key, link.peer_key,
                          initiator=link.session.initiator, find_save=find_save,
                          fog=state.config.fog)
            link.lobby = lobby
        return lobby

    def lobby(self, peer: str | None = None) -> Lobby:
        """The lobby with ``peer`` (read its phase, options, colours)."""
        return self.lobby_for(self._links.paired(peer))

    def reopen(self, link: Link) -> None:
        """A fresh lobby on ``link``, with its opening notice for the player."""
        link.lobby = None
        self.carry_out(link, self.lobby_for(link).opening_notice())

    def receive(self, link: Link, message: Message) -> None:
        """One of the peer's lobby messages: chat within its limit (issue 20 hole 2),
        then the lobby of the link."""
        if isinstance(message, Chat):
            config = self._state.config
            if link.chat_limit is None:
                link.chat_limit = RateLimit(config.chat_burst, config.chat_per_minute / 60,
                                            config.clock)
            if not link.chat_limit.allow():
                reason = (f"too many chat lines: at most {config.chat_per_minute:g} a "
                          "minute (the rest were refused)")
                self.carry_out(link, LobbyStep(send=[Rejection(message.TAG, reason)],
                                               events=[Refused(message.TAG, reason)]))
                return
        self.carry_out(link, self.lobby_for(link).receive(message))

    def carry_out(self, link: Link, step: LobbyStep) -> None:
        """Send the step's messages, report its events, start the game agreed on."""
        for message in step.send:
            self._state.send(link, message)
        for event in step.events:
            self._state.emit(LobbyUpdate(link.peer_name, event))
            if isinstance(event, RulesAgreed):
                self._games.start(link, event.setup)

    # ------------------------------------------------------------ the player's commands

    def command(self, peer: str | None, command: Callable[[Lobby], LobbyStep]) -> None:
        """Run a player's command on the lobby with ``peer`` (not during a game)."""
        link = self._links.paired(peer)
        game = self._state.game
        if game is not None and not game.finished:
            raise LobbyError("a game is under way")
        self.carry_out(link, command(self.lobby_for(link)))

    def invite(self, peer: str | None = None, resume_file: str | None = None) -> None:
        digest = None
        if resume_file is not None:
            # the SHA-256 of a save; of one side's half of a fog-of-war game, the key both
            # halves share (wec.storage.fog_saves.resume_key)
            digest = save_key(self._files.save_path(resume_file).read_bytes())
        self.command(peer, lambda lobby: lobby.invite(digest))

    def accept(self, peer: str | None = None) -> None:
        self.command(peer, Lobby.accept)

    def decline(self, peer: str | None = None, reason: str = "") -> None:
        self.command(peer, lambda lobby: lobby.decline(reason))

    def choose_colour(self, colour: str, peer: str | None = None) -> None:
        self.command(peer, lambda lobby: lobby.choose_colour(colour))

    def propose_options(self, options: Options, peer: str | None = None,
                        move_time: int | None = None) -> None:
        self.command(peer, lambda lobby: lobby.propose_options(options, move_time))

    def propose_move_time(self, seconds: int, peer: str | None = None) -> None:
        self.command(peer, lambda lobby: lobby.propose_move_time(seconds))

    def propose_start(self, board: StartBoard, peer: str | None = None) -> None:
        self.command(peer, lambda lobby: lobby.propose_start(board))

    def approve(self, peer: str | None = None) -> None:
        self.command(peer, Lobby.approve)

    def reject(self, peer: str | None = None, reason: str = "") -> None:
        self.command(peer, lambda lobby: lobby.reject(reason))

    def choose_government(self, government: Government, peer: str | None = None) -> None:
        self.command(peer, lambda lobby: lobby.choose_government(government))

    def end_setup(self, peer: str | None = None) -> None:
        self.command(peer, Lobby.end_setup)

    def set_view_setting(self, name: str, value: object, peer: str | None = None) -> None:
        """R14.5: a display-only setting; allowed at any time, also during a game."""
        link = self._links.paired(peer)
        lobby = link.lobby if link.lobby is not None else self.lobby_for(link)
        self.carry_out(link, lobby.set_view_setting(name, value))

    def chat(self, text: str, peer: str | None = None) -> None:
        """Say one line in the lobby with ``peer`` (also allowed during a game)."""
        link = self._links.paired(peer)
        self.carry_out(link, self.lobby_for(link).chat(text))


__all__ = ["LobbyHost"]
