"""Resuming the game on a new link (net.peer; issue 8 item 6).

When a link to the game's peer is paired, both sides send Resume: the game id and how
many of the other's lockstep messages they processed. Each resends the rest of its log
(:meth:`~net.lockstep.Lockstep.resend_from`), and new game messages wait until the
peer's Resume arrived, so everything arrives in order, nothing lost, nothing applied
twice. A Resume for a game this machine no longer has (or that was forfeited) is
answered with GameClosed; a GameClosed is accepted only as the answer to our own Resume.
"""

from __future__ import annotations

import contextlib

from wec.net.game_host import GameHost
from wec.net.lockstep import LockstepError
from wec.net.messages import GameClosed, Rejection, Resume
from wec.net.peer_events import ErrorEvent, GameAbandoned, Resumed
from wec.net.peer_links import Links
from wec.net.peer_lobby import LobbyHost
from wec.net.peer_state import Game, Link, PeerState


class GameResume:
    """Answers the peer's Resume and GameClosed on a paired link."""

    def __init__(self, state: PeerState, links: Links, games: GameHost,
                 lobbies: LobbyHost) -> None:
        self._state = state
        self._links = links
        self._games = games
        self._lobbies = lobbies

    def on_resume(self, link: Link, message: Resume) -> None:
        """Resend what the peer has not processed and let the game's messages flow."""
        state = self._state
        game = state.game_by_id(message.link)
        if game is None or game.peer_key != link.peer_key:
            state.send(link, GameClosed(message.link, "none",
                                        "this machine has no such game (it may have been "
                                        "set up again)"))
            return
        lockstep = game.lockstep
        if lockstep.result is not None and lockstep.result.how == "forfeit":
            winner = lockstep.result.winner
            state.send(link, GameClosed(game.game_id, winner.value if winner else "none",
                                        lockstep.result.reason[:200]))
            return
        if game is not state.game:  # a finished game: just show the peer how it ended
            for old in lockstep.resend_from(min(message.received, len(lockstep.log))):
                state.send(link, old)
            return
        try:
            resend = lockstep.resend_from(message.received)
        except LockstepError as exc:
            state.emit(ErrorEvent(f"cannot resume: {exc.reason}"))
            self._links.drop(link, exc.reason)
            return
        game.link = link
        link.resumed = True
        game.away_since = None
        for old in resend:
            state.send(link, old)
        state.emit(Resumed(game.game_id.hex(), len(resend), message.received,
                           lockstep.state_hash))

    def on_game_closed(self, link: Link, message: GameClosed) -> None:
        """The peer's answer to our Resume: the game ended (or never began) over there."""
        state = self._state
        game = state.game_by_id(message.link)
        if game is None or game.peer_key != link.peer_key:
            return
        if not link.resume_sent:
            # only an answer to our Resume on this link (a game the peer closed while we
            # were away) may close a game; in the middle of play it is refused
            state.send(link, Rejection(message.TAG, "a game is closed only in answer to "
                                                    "a resume"))
            return
        lockstep = game.lockstep
        if (game is state.game and message.winner == "none" and lockstep.result is None
                and not lockstep.log and lockstep.peer_processed == 0):
            self._abandon(link, game, message.reason)
            return
        self._games.carry_out(lockstep.close_by_peer(message))
        if game is state.game:
            game.link = link
            link.resumed = True
            game.away_since = None

    def _abandon(self, link: Link, game: Game, reason: str) -> None:
        """The link broke while the game was starting: the peer never started it and
        nothing was played. Forget it and set the game up again."""
        game.journal.close()
        with contextlib.suppress(OSError):
            game.journal.path.replace(game.journal.path.with_suffix(".abandoned"))
        self._state.game = None
        link.lobby = None
        self._state.emit(GameAbandoned(game.game_id.hex(), reason))
        lobbies = self._lobbies
        lobbies.carry_out(link, lobbies.lobby_for(link).opening_notice())


__all__ = ["GameResume"]
