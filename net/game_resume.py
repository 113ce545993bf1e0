"""Resuming the game on a new link (net.peer; issue 8 item 6, issue 20 hole 1).

When a link to the game's peer is paired, both sides send Resume: the game id and how
many of the other's lockstep messages they processed. Each resends the rest of its log
(:meth:`~net.lockstep.Lockstep.resend_from`), and new game messages wait until the
peer's Resume arrived, so everything arrives in order, nothing lost, nothing applied
twice. One Resume is taken per link (each one resends the log: a small message must not
buy a large answer again and again).

A side that won the game by forfeit while the peer was away sends GameClosed instead of
Resume, and a Resume for a game this machine no longer has (or that was forfeited) is
answered with GameClosed. A GameClosed closes our game only

- while our own Resume on this link is unanswered (the peer's Resume answers it: from
  then on the game runs on both sides, and a GameClosed is refused), once, and
- with an outcome the rules allow: the peer's win by forfeit when we were away at least
  the grace period (or this process was not running: a game restored from its journal),
  or "no such game" when nothing was played yet (the game is then set up again).

Anything else is refused and the game stays as it is: we were not away, so the peer
cannot have won by forfeit; if it will not resume, it is the one away, and our grace
period runs.
"""

from __future__ import annotations

import contextlib

from wec.net.game_clock import SLACK
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
        if link.peer_resumed:
            state.send(link, Rejection(message.TAG, "the game was already resumed on this "
                                                    "link"))
            return
        link.peer_resumed = True
        link.resume_open = False  # the game goes on over there: it closes nothing now
        game = state.game_by_id(message.link)
        if game is None or game.peer_key != link.peer_key:
            self._close(link, GameClosed(message.link, "none",
                                         "this machine has no such game (it may have been "
                                         "set up again)"))
            return
        lockstep = game.lockstep
        if lockstep.result is not None and lockstep.result.how == "forfeit":
            winner = lockstep.result.winner
            self._close(link, GameClosed(game.game_id, winner.value if winner else "none",
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

    def _close(self, link: Link, message: GameClosed) -> None:
        """Tell the peer the game is closed here (once per link)."""
        if not link.closed_sent:
            link.closed_sent = True
            self._state.send(link, message)

    def on_game_closed(self, link: Link, message: GameClosed) -> None:
        """The peer's answer to our Resume: the game ended (or never began) over there."""
        state = self._state
        game = state.game_by_id(message.link)
        if game is None or game.peer_key != link.peer_key:
            return
        if not link.resume_open:
            # only an answer to our Resume on this link (a game the peer closed while we
            # were away) may close a game; in the middle of play it is refused
            state.send(link, Rejection(message.TAG, "a game is closed only in answer to "
                                                    "a resume"))
            return
        link.resume_open = False  # one answer
        lockstep = game.lockstep
        if message.winner == "none" and game is state.game and lockstep.result is None \
                and not lockstep.log and lockstep.peer_processed == 0:
            self._abandon(link, game, message.reason)
            return
        problem = self._closing_problem(link, game, message)
        if problem:
            state.send(link, Rejection(message.TAG, problem[:200]))
            state.emit(ErrorEvent(f"{game.peer_name} says the game is closed, but "
                                  f"{problem}; the game is kept"))
            return
        self._games.carry_out(lockstep.close_by_peer(message))
        if game is state.game:
            game.link = link
            link.resumed = True
            game.away_since = None

    def _closing_problem(self, link: Link, game: Game, message: GameClosed) -> str | None:
        """Why the rules do not allow the peer to close ``game`` so (None: they do)."""
        lockstep = game.lockstep
        if lockstep.result is not None:
            return None  # over here too: only noted
        if message.winner == "none":
            return ("moves were played: a game does not end without a winner because the "
                    "other machine lost it")
        if message.winner != lockstep.peer_side.value:
            return "only a win of the peer by forfeit closes a game in answer to a resume"
        grace = self._state.config.grace_period
        if game.link_lost_at is not None:
            away = link.opened_at - game.link_lost_at
            if away < grace * SLACK:
                return (f"this machine was away for {away:.0f} s only, less than the grace "
                        f"period ({grace:g} s)")
        return None

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
