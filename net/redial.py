"""Bringing the game's peer back after its link dropped (net.peer; issue 8 item 6).

The game is kept, and *both* sides dial the other again, whichever dialled first: at its
last known address (from discovery, the address we dialled, ``PeerConfig.addresses``, or
the listening port a peer that dialled us announced; all noted in the game's journal, so
a restarted process knows them too) every ``reconnect_interval``, and at once when
discovery sees the peer again. The side with the smaller key dials first, the other
after ``dial_delay``; should both succeed, net.peer_links keeps the same one link on both
sides. After ``grace_period`` seconds without the peer (a link on which the peer does not
resume the game counts as without), GraceExpired is reported once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

from wec.net.errors import NetError, PeerKeyChanged
from wec.net.game_host import GameHost
from wec.net.identity import fingerprint
from wec.net.peer_events import ConnectionRefused, ErrorEvent, GraceExpired, Reconnecting
from wec.net.peer_links import Links
from wec.net.peer_state import Game, PeerState
from wec.net.session import connect

log = logging.getLogger("wec.net.peer")


class Redialler:
    """Watches the game's link and redials its peer while it is away."""

    def __init__(self, state: PeerState, links: Links, games: GameHost) -> None:
        self._state = state
        self._links = links
        self._games = games
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._watch(), name="wec-peer-watch")

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()

    async def _watch(self) -> None:
        """Redial a lost game peer and report the end of the grace period (a failure in
        one round is reported and the watch goes on)."""
        last_attempt = 0.0
        dial_now = self._state.dial_now
        while True:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self._state.config.reconnect_interval):
                    await dial_now.wait()
            dial_now.clear()
            try:
                last_attempt = await self._round(last_attempt)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.exception("watching the game link failed")
                self._state.emit(ErrorEvent(f"reconnecting failed: {exc!r}"))

    async def _round(self, last_attempt: float) -> float:
        """One look at the game's link: note a lost one, report the grace period's end,
        and redial when it is our turn to; returns the time of the last attempt."""
        state, config = self._state, self._state.config
        game = state.game
        self._games.delivered()  # notes when a finished game is settled
        self._games.check_timers()  # requests that expired, a peer that does not move
        self._links.drop_unpaired()  # links that waited too long for their pairing
        if game is None or game.stopped_for_good:
            return last_attempt
        link = game.link
        if link is not None and (not link.session.is_open
                                 or state.links.get(link.peer_key) is not link):
            self._links.lost(link, link.session.close_reason or "the connection was lost")
        if game.connected or (game.link is not None and game.away_since is None):
            return last_attempt
        now = time.monotonic()
        if game.away_since is None:
            game.away_since = now
        away = now - game.away_since
        if away >= config.grace_period and not game.grace_reported \
                and not game.finished:
            game.grace_reported = True
            state.emit(GraceExpired(game.peer_name, round(away, 1)))
        if game.link is not None:
            # a link is up but the peer has not resumed the game on it (issue 20 hole 1:
            # a peer that connects and then neither resumes nor leaves is away as well,
            # so the grace period runs on); nothing to dial
            return last_attempt
        first = state.identity.public_key < game.peer_key
        if not first and away < config.dial_delay:
            return last_attempt
        if now - last_attempt < config.reconnect_interval * 0.9:
            return last_attempt
        await self._redial(game)
        return now

    def _candidates(self, game: Game) -> list[tuple[str, int]]:
        """Where the game's peer may listen: the address discovery advertised first."""
        candidates = []
        advertised = self._state.addresses.get(fingerprint(game.peer_key))
        if advertised is not None:
            candidates.append(advertised)
        candidates += [a for a in [*game.addresses, *self._state.config.addresses]
                       if a not in candidates]
        return candidates

    async def _redial(self, game: Game) -> None:
        """Try each address until one answers with the game peer's key."""
        state = self._state
        for host, port in self._candidates(game):
            if game.link is not None or game.peer_key in state.links:
                return
            try:
                async with asyncio.timeout(state.config.redial_timeout):
                    session = await connect(host, port, state.identity, state.name,
                                            expected_key=game.peer_key, pins=state.pins,
                                            config=state.config.session)
            except PeerKeyChanged as exc:
                state.emit(ConnectionRefused(str(exc), key_changed=True))
                continue
            except (NetError, OSError, TimeoutError) as exc:
                game.redials += 1
                if game.redials in (1, 2, 5) or game.redials % 20 == 0:
                    state.emit(Reconnecting(game.peer_name, f"{host}:{port}", game.redials,
                                            str(exc) or type(exc).__name__))
                continue
            # The peer may have dialled us meanwhile: admit keeps exactly one of the
            # two links, the same one on both sides.
            self._links.admit(session, dialled=True)
            return


__all__ = ["Redialler"]
