"""How long each side of a network game has owed the other something (issue 20 hole 3).

A peer that stays connected and never moves, or never answers a takeback request,
stalled the game for ever: the grace period only starts when the link drops. The
:class:`GameClock` watches the game's :class:`~net.lockstep.Lockstep` after every step
and notes, on the Peer's clock (``PeerConfig.clock``: ``time.monotonic``, or a test's
own), since when

- the side to act has been to act in this turn (a takeback restarts it),
- a takeback request of either side has waited for its answer,
- a fog-of-war game's exchange has waited, without a step, for the other machine
  (``Lockstep.exchange_waiting``, issue 21: a peer that stays connected and stops
  answering the protocol in the middle of *our* action owes no move, yet stalls the
  game for ever).

From that, :meth:`GameClock.peer_owes` says what we may claim against the peer: its turn
beyond the per-move time agreed in the lobby (``move_time``) or beyond the idle limit
(``idle``, always on), the answer to our request for twice the request timeout
(``answer``: an honest machine declines a request it did not answer within the timeout
by itself), or the exchange's next message for twice the request timeout (``protocol``:
an honest machine answers the protocol by itself, at once; either side sees the same
stall, so each may claim it and each checks the other's claim on its own clock).
:meth:`GameClock.we_owe` is the same from the peer's side, to check its claims: a claim
is taken only when our own clock agrees (with a tenth of slack for the delay between the
machines).

The clock lives here, in the network layer: the engine and the lockstep never read a
clock, so a journal replays to the same game whenever it is replayed.
"""

from __future__ import annotations

from dataclasses import dataclass

from wec.engine.pieces import Side
from wec.net.limits import Clock
from wec.net.lockstep import Lockstep

SLACK = 0.9  # a claim is taken when our clock shows at least this share of the limit


@dataclass(frozen=True)
class Limits:
    """The time limits of one game, in seconds: ``move_time`` per turn (0: none),
    ``idle`` per turn whatever the options, ``request`` before a takeback request we did
    not answer is declined by itself."""

    move_time: float
    idle: float
    request: float


@dataclass(frozen=True)
class Debt:
    """What one side owes the other: ``kind`` (move_time, idle or answer), the turn,
    for how long (s) and the limit it passed (or will pass)."""

    kind: str
    turn: int
    seconds: float
    limit: float

    @property
    def due(self) -> bool:
        return self.seconds >= self.limit


class GameClock:
    """Since when each obligation of the game runs (see the module docstring)."""

    def __init__(self, clock: Clock, limits: Limits) -> None:
        self.now = clock
        self.limits = limits
        start = clock()
        self._turn: tuple[Side, int, int] | None = None
        self.turn_since = start
        self._requests: dict[bool, tuple[int | None, float]] = {True: (None, start),
                                                                False: (None, start)}
        self._exchange: tuple[int | None, float] = (None, start)

    def observe(self, lockstep: Lockstep) -> None:
        """Note what changed since the last look (called after every step)."""
        now = self.now()
        current = lockstep.current
        turn = (current.side_to_act, current.turn, lockstep.takebacks)
        if turn != self._turn:
            self._turn, self.turn_since = turn, now
        for ours, request in ((True, lockstep.our_takeback),
                              (False, lockstep.peer_takeback)):
            if self._requests[ours][0] != request:
                self._requests[ours] = (request, now)
        waiting = lockstep.exchange_waiting
        if waiting != self._exchange[0]:
            self._exchange = (waiting, now)

    def turn_seconds(self) -> float:
        """How long the side to act has been to act in this turn."""
        return self.now() - self.turn_since

    def request_seconds(self, ours: bool) -> float | None:
        """How long our (``ours``) or the peer's takeback request has waited, or None."""
        request, since = self._requests[ours]
        return None if request is None else self.now() - since

    def exchange_seconds(self) -> float | None:
        """How long the game's exchange has waited without a step, or None."""
        waiting, since = self._exchange
        return None if waiting is None else self.now() - since

    def _debts(self, lockstep: Lockstep, debtor: Side) -> list[Debt]:
        if lockstep.result is not None or lockstep.desync is not None:
            return []
        debts: list[Debt] = []
        current = lockstep.current
        if current.side_to_act is debtor:
            seconds = self.turn_seconds()
            if lockstep.move_time:
                debts.append(Debt("move_time", current.turn, seconds, lockstep.move_time))
            debts.append(Debt("idle", current.turn, seconds, self.limits.idle))
        waiting = self.request_seconds(ours=debtor is not lockstep.our_side)
        if waiting is not None:
            debts.append(Debt("answer", current.turn, waiting, 2 * self.limits.request))
        stalled = self.exchange_seconds()
        if stalled is not None:
            debts.append(Debt("protocol", current.turn, stalled, 2 * self.limits.request))
        return debts

    def peer_owes(self, lockstep: Lockstep) -> Debt | None:
        """The peer's debt we may claim now (the first due), else its nearest one."""
        debts = self._debts(lockstep, lockstep.peer_side)
        due = [debt for debt in debts if debt.due]
        if due:
            return due[0]
        return min(debts, key=lambda debt: debt.limit - debt.seconds, default=None)

    def we_owe(self, lockstep: Lockstep, kind: str) -> Debt | None:
        """Our debt of ``kind`` as our own clock sees it (to check the peer's claim)."""
        return next((debt for debt in self._debts(lockstep, lockstep.our_side)
                     if debt.kind == kind), None)

    def request_expired(self, lockstep: Lockstep) -> bool:
        """The peer's takeback request has waited for our answer past the timeout."""
        waiting = self.request_seconds(ours=False)
        return waiting is not None and waiting >= self.limits.request


__all__ = ["SLACK", "Debt", "GameClock", "Limits"]
