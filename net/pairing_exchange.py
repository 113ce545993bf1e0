"""Pairing on a new link (net.peer), before anything else may pass on it.

Both sides send their PairingState (whether they pinned the other's key). When both have
pinned each other the link is paired at once. Otherwise both show the 6-digit code
(PairingCode) and both players confirm it (:meth:`PairingExchange.confirm`, or
``PeerConfig.auto_confirm``); with both confirmations the key is pinned (net.pairing). A
refusal on either side closes the link.

A paired link then resumes the game under way with that peer (it sends Resume; the
answer is net.game_resume's; a game we won by forfeit while the peer was away is
announced with GameClosed instead) or opens the lobby (net.peer_lobby).
"""

from __future__ import annotations

import contextlib

from wec.net.errors import PeerKeyChanged, PinStoreError
from wec.net.lobby import LobbyError
from wec.net.messages import GameClosed, PairingResult, PairingState, Rejection, Resume
from wec.net.pairing import PinStatus, format_sas
from wec.net.peer_events import Paired, PairingCode, PairingFailed
from wec.net.peer_links import Links
from wec.net.peer_lobby import LobbyHost
from wec.net.peer_state import Link, PeerState


class PairingExchange:
    """The pairing messages of each link and the player's confirmation of the code."""

    def __init__(self, state: PeerState, links: Links, lobbies: LobbyHost) -> None:
        self._state = state
        self._links = links
        self._lobbies = lobbies

    def receive(self, link: Link, message: PairingState | PairingResult) -> None:
        """The peer's pairing state, or its answer to the code."""
        if isinstance(message, PairingState):
            self._on_state(link, message)
        else:
            self._on_result(link, message)

    def _on_state(self, link: Link, message: PairingState) -> None:
        if link.peer_pinned is not None:
            self._state.send(link, Rejection(message.TAG, "the pairing state was already sent"))
            return
        link.peer_pinned = message.pinned
        status = link.session.pin_status
        we_pinned = status is not None and status.pinned
        if we_pinned and message.pinned:
            self._paired(link, newly=False)
            return
        self._state.emit(PairingCode(link.peer_name, format_sas(link.session.sas),
                                     link.session.peer_fingerprint, self._known_as(link)))
        if self._state.config.auto_confirm:
            self._confirm(link, True)  # this link: other peers may share its name

    def _on_result(self, link: Link, message: PairingResult) -> None:
        if link.peer_pinned is None or link.paired or link.peer_confirmed:
            self._state.send(link, Rejection(message.TAG,
                                             "no pairing confirmation was expected"))
            return
        if not message.confirmed:
            self._fail(link, "the other player did not confirm the pairing code")
            return
        link.peer_confirmed = True
        self._check_paired(link)

    def confirm(self, peer: str | None = None, accept: bool = True) -> None:
        """The player compared the code: both screens show the same (``accept``) or not.
        Without a name: the one link whose code waits for the player (others may be
        connected, e.g. strangers that never pair)."""
        if peer is None:
            waiting = [link for link in self._state.links.values()
                       if not link.paired and not link.we_confirmed
                       and link.peer_pinned is not None]
            if len(waiting) > 1:
                names = ", ".join(sorted(link.peer_name for link in waiting))
                raise LobbyError(f"several pairing codes wait ({names}): name the peer")
            link = waiting[0] if waiting else self._links.named(None)
        else:
            link = self._links.named(peer)
        self._confirm(link, accept)

    def _confirm(self, link: Link, accept: bool) -> None:
        if link.paired or link.we_confirmed or link.peer_pinned is None:
            raise LobbyError("there is no pairing code to confirm")
        self._state.send(link, PairingResult(accept))
        if not accept:
            self._fail(link, "you did not confirm the pairing code")
            return
        link.we_confirmed = True
        self._check_paired(link)

    def _fail(self, link: Link, reason: str) -> None:
        self._state.emit(PairingFailed(link.peer_name, reason))
        self._links.drop(link, reason)

    def _known_as(self, link: Link) -> str | None:
        """The name this peer's key was pinned under, when it now calls itself otherwise
        (issue 20 hole 11: the key is the peer; a new name is shown as such)."""
        if link.session.pin_status is not PinStatus.RENAMED:
            return None
        with contextlib.suppress(PinStoreError):
            return self._state.pins.name_for_key(link.peer_key)
        return None

    def _check_paired(self, link: Link) -> None:
        """Both players confirmed: pin the key (a key changed meanwhile fails)."""
        if not (link.we_confirmed and link.peer_confirmed):
            return
        self._paired(link, newly=link.session.pin_status is not PinStatus.RENAMED)

    def _paired(self, link: Link, newly: bool) -> None:
        """The link is paired: pin the key (under the name it uses now), then resume the
        game with this peer, or open the lobby."""
        known_as = self._known_as(link)
        try:
            self._state.pins.pin(link.peer_name, link.peer_key)
        except (PeerKeyChanged, PinStoreError, ValueError) as exc:
            self._state.emit(PairingFailed(link.peer_name, str(exc)))
            self._links.drop(link, "the key could not be pinned")
            return
        link.paired = True
        self._state.emit(Paired(link.peer_name, newly, known_as))
        game = self._state.game
        if game is not None and game.peer_key == link.peer_key:
            result = game.lockstep.result
            if result is not None and result.how == "forfeit":
                # we won while the peer was away: say so (it asks nothing of us first)
                winner = result.winner.value if result.winner else "none"
                link.closed_sent = True
                self._state.send(link, GameClosed(game.game_id, winner, result.reason[:200]))
                self._lobbies.reopen(link)
                return
            if game.link is not None and game.link is not link:
                self._links.drop(game.link, "replaced by a newer connection")
            game.link = link
            link.resumed = False
            link.resume_open = True
            self._state.send(link, Resume(game.game_id, game.lockstep.peer_processed))
            return
        self._lobbies.reopen(link)


__all__ = ["PairingExchange"]
