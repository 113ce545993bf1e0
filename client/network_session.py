"""A LAN game seen from this machine: the match the play screen draws (issue 8 item 7).

The Peer (net.peer) on the network thread holds the game that counts: its Lockstep.
:class:`NetworkSession` keeps an immutable copy of that Match on the Panda thread,
with the interface of :class:`~client.session.HotseatSession` (``current``, ``view``,
``legal``, ``play``, ``can_undo``, ``played``), so the play screen works unchanged:

- **our intents**: ``play`` checks the intent with the engine on the copy (an illegal
  one raises IllegalIntent naming the rule, as in hotseat), applies it to the copy at
  once (the same engine on the same match gives the same result, so the player never
  waits for the network) and hands it to the Peer, which applies it to the real game and
  sends it. Only the side whose turn it is may play (R4.1).
- **following the Peer**: after every game event the screen calls :meth:`refresh`; a
  snapshot of the Peer's game (:class:`GameSnapshot`, taken on the network thread) then
  replaces the copy. Actions it adds beyond the copy are the opponent's and are animated;
  a snapshot that does not extend the copy (a refused intent, an approved takeback)
  replaces it outright.
- **never blocking**: futures are checked with ``done()`` in :meth:`poll`, once a frame.
  A snapshot requested before our latest intent reached the network thread is stale
  and asked for again (the network thread runs commands in the order submitted).
"""

from __future__ import annotations

import concurrent.futures
import time
from dataclasses import dataclass, field
from typing import Any

from wec.client.session import HotseatSession
from wec.engine.errors import IllegalIntent, MatchError
from wec.engine.intents import Intent
from wec.engine.match import Action, Match, OptionChange
from wec.engine.pieces import Side
from wec.net.lockstep import GameResult


@dataclass(frozen=True)
class GameSnapshot:
    """What the Peer knows of its game, copied on the network thread (immutable parts
    only, so the Panda thread may read it freely)."""

    game_id: str
    peer_name: str
    our_side: Side
    match: Match
    result: GameResult | None
    desync_turn: int | None
    connected: bool
    away_since: float | None  # time.monotonic() of the network thread (same clock)
    our_takeback: int | None
    peer_takeback: int | None
    save_pending: str | None
    start_title: str
    # fog of war (issue 21): ``match`` holds our half states only; answers checked at
    # once so far, and the end-of-game audit's verdict once both reveals are in
    fog: bool = False
    verified: int = 0
    audit: str | None = None
    audit_clean: bool | None = None


def take_snapshot(peer: Any) -> GameSnapshot | None:
    """The game under way (or just finished) of ``peer``; run it on the network thread
    (``BackgroundPeer.submit(take_snapshot)``)."""
    game = peer.game
    if game is None:
        return None
    lockstep = game.lockstep
    audit = getattr(lockstep, "audit", None)
    return GameSnapshot(game.game_id.hex(), game.peer_name, lockstep.our_side,
                        lockstep.match, lockstep.result,
                        lockstep.desync.turn if lockstep.desync is not None else None,
                        game.connected, game.away_since, lockstep.our_takeback,
                        lockstep.peer_takeback, lockstep.save_pending, game.start_title,
                        lockstep.fog, getattr(lockstep, "verified", 0),
                        None if audit is None else audit.summary,
                        None if audit is None else audit.clean)


@dataclass
class Update:
    """What changed in the copy since the last poll: the opponent's actions to animate
    (``added``), or a copy replaced outright (``replaced``), and the reasons the Peer
    refused our commands."""

    added: tuple[Action, ...] = ()
    replaced: bool = False
    refusals: list[str] = field(default_factory=list)
    snapshot_changed: bool = False

    @property
    def empty(self) -> bool:
        return not (self.added or self.replaced or self.refusals or self.snapshot_changed)


class NetworkSession(HotseatSession):
    """The copy of a LAN game's match that the play screen shows (module docstring)."""

    def __init__(self, network: Any, snapshot: GameSnapshot) -> None:
        super().__init__(snapshot.match)
        self.network = network
        self.snapshot = snapshot
        self.our_side = snapshot.our_side
        self.peer_name = snapshot.peer_name
        self._plays: list[concurrent.futures.Future[Any]] = []
        self._commands: list[tuple[str, concurrent.futures.Future[Any]]] = []
        self._request: concurrent.futures.Future[GameSnapshot | None] | None = None
        self._request_generation = 0
        self._generation = 0  # our intents handed to the Peer so far
        self._refresh_wanted = False
        self._resolving = False  # fog of war: our intent is being resolved over the wire

    @property
    def fog(self) -> bool:
        """Fog of war: the copy holds our half states; each intent is resolved with the
        other machine before it shows (issue 21)."""
        return self.snapshot.fog

    # ------------------------------------------------------------ reading

    @property
    def result(self) -> GameResult | None:
        """How the game ended: the rules (R12), a resignation, a forfeit; None while on."""
        return self.snapshot.result

    @property
    def stopped(self) -> bool:
        """The game stopped after a desync (net.lockstep)."""
        return self.snapshot.desync_turn is not None

    @property
    def our_turn(self) -> bool:
        return (self.current.side_to_act is self.our_side and self.result is None
                and self.current.result is None and not self.stopped
                and not self._resolving)

    def away_seconds(self, now: float | None = None) -> float | None:
        """How long the opponent has been away, or None while connected."""
        if self.snapshot.connected or self.snapshot.away_since is None:
            return None
        return max(0.0, (now if now is not None else time.monotonic())
                   - self.snapshot.away_since)

    def legal(self) -> list[Intent]:
        """Our legal intents on our view (R4.13); none while the opponent acts."""
        return self.match.legal_intents() if self.our_turn else []

    @property
    def can_undo(self) -> bool:
        """No undo in a network game: a takeback is asked of the opponent (R14.2)."""
        return False

    def undo(self) -> Intent | OptionChange:
        raise MatchError("R14.2", "in a network game, ask the opponent for a takeback")

    def go_competitive(self) -> None:
        raise MatchError("R14.3", "the options of a network game are agreed in the lobby")

    # ------------------------------------------------------------ our intents

    def play(self, intent: Intent) -> Action:
        """Play one of our intents: checked and applied on the copy, then sent through
        the Peer. IllegalIntent (the rule) when it is not legal or not our turn."""
        current = self.current
        if self.result is not None:
            raise IllegalIntent("R12", f"the game is over: {self.result.reason}")
        if self.stopped:
            raise IllegalIntent("R14", f"the game stopped after a desync at turn "
                                       f"{self.snapshot.desync_turn}")
        if current.side_to_act is not self.our_side:
            raise IllegalIntent("R4.1", f"it is {current.side_to_act.title}'s turn "
                                        f"({self.peer_name}): wait for their move")
        if self.fog:
            # resolved with the other machine (questions and answers about the pieces
            # we do not see): it shows when the Peer's snapshot brings it
            if self._resolving:
                raise IllegalIntent("R4.1", "the previous action is still being resolved")
            if intent not in self.legal():
                self.match.play(intent)  # not legal here: HalfMatch names the problem
            self._resolving = True
            self._generation += 1
            self._plays.append(self.network.submit(lambda peer: peer.play(intent)))
            self._refresh_wanted = True
            return Action(intent, self.our_side, current.turn, current, (),
                          self.match.current_hash)
        after = self.match.play(intent)
        self.match = after
        self._generation += 1
        self._plays.append(self.network.submit(lambda peer: peer.play(intent)))
        return after.history[-1]

    def command(self, what: str, run: Any) -> None:
        """Run a Peer command (resign, takeback, chat, save...) on the network thread;
        a refusal comes back through :meth:`poll` as ``what``: reason."""
        self._commands.append((what, self.network.submit(run)))
        self._refresh_wanted = True

    # ------------------------------------------------------------ following the Peer

    def refresh(self) -> None:
        """Ask for a new snapshot of the Peer's game (after a game event)."""
        self._refresh_wanted = True

    def poll(self) -> Update:
        """Check the futures (never waits); what changed since the last call."""
        update = Update()
        for future in [f for f in self._plays if f.done()]:
            self._plays.remove(future)
            problem = future.exception()
            if problem is not None:
                update.refusals.append(f"not played: {_reason(problem)}")
                self._refresh_wanted = True
                self._resolving = False
        for what, future in [c for c in self._commands if c[1].done()]:
            self._commands.remove((what, future))
            problem = future.exception()
            if problem is not None:
                update.refusals.append(f"{what}: {_reason(problem)}")
        request = self._request
        if request is not None and request.done():
            self._request = None
            if self._request_generation < self._generation:
                self._refresh_wanted = True  # taken before our latest intent was handed on
            elif request.exception() is None:
                snapshot = request.result()
                if snapshot is not None and snapshot.game_id == self.snapshot.game_id:
                    self._take(snapshot, update)
        if self._resolving and self._request is None and not self._plays:
            self._refresh_wanted = True  # keep asking until our intent shows
        if self._refresh_wanted and self._request is None:
            self._refresh_wanted = False
            self._request_generation = self._generation
            self._request = self.network.submit(take_snapshot)
        return update

    def _take(self, snapshot: GameSnapshot, update: Update) -> None:
        old, new = self.match, snapshot.match
        update.snapshot_changed = snapshot != self.snapshot
        self.snapshot = snapshot
        if new.current_hash == old.current_hash and len(new.actions) == len(old.actions):
            return
        known = len(old.actions)
        extends = len(new.actions) > known and new.hash_at(known) == old.current_hash
        self.match = new
        if any(a.side is self.our_side for a in new.actions[known:]):
            self._resolving = False
        if extends:
            update.added = new.actions[known:]
        else:
            update.replaced = True


def _reason(problem: BaseException) -> str:
    """The player's line for a refused command (LobbyError/LockstepError carry one)."""
    return str(getattr(problem, "reason", None) or problem)
