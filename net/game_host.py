"""The game under way over the network, as the Peer hosts it (net.peer).

The lobby's agreement starts the game (:meth:`GameHost.start`): its id, its journal
(net.game_journal) and its :class:`~net.lockstep.Lockstep`. The player's game commands
go to the Lockstep, and what each of its steps produces is carried out here
(:meth:`GameHost.carry_out`): the messages go to the peer while the game's link is up
(otherwise the Resume exchange resends them), the events are reported, a game over is
noted in the journal, saves and desync reports are written (net.game_files).

The game's clock (net.game_clock) notes since when each side owes the other its move or
an answer: a takeback request we leave unanswered is declined by itself after the
request timeout, and a connected peer that owes us its move or an answer past its limit
can be claimed against (:meth:`GameHost.claim_win`; issue 20 hole 3).

While the peer is away the grace period runs (:meth:`GameHost.begin_away`; net.redial
reports its end); after it the player may claim the win or keep waiting.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import logging
import time
import weakref
from collections import deque
from collections.abc import Callable, Iterator
from functools import partial
from itertools import chain
from typing import Any, TypeVar

from wec.engine.intents import Intent
from wec.engine.savegame import encode_save
from wec.net.game_clock import SLACK, GameClock, Limits
from wec.net.game_files import KEPT_FINISHED_GAMES, GameFiles, save_stem
from wec.net.game_fog import fog_problem, new_fog_game, restored_fog_game
from wec.net.game_journal import Journal
from wec.net.heap import FullCollections, fresh_heap, released_heap, settling_heap
from wec.net.limits import RateLimit
from wec.net.lobby import GameSetup, LobbyError, stage1_problem
from wec.net.lockstep import (
    Desynced,
    DesyncReportReady,
    GameOver,
    Lockstep,
    LockstepError,
    SaveNow,
)
from wec.net.lockstep_fog import Audited, FogLockstep, FogSaveNow
from wec.net.messages import Chat, Message, SaveNotice, TimeClaim
from wec.net.peer_events import ErrorEvent, GameStarted, GameUpdate, PeerIdle
from wec.net.peer_state import Game, Link, PeerState
from wec.net.steps import GameStep, Refused

log = logging.getLogger("wec.net.peer")
_DONE = object()

# wall-clock time beyond the thread's CPU time (ms) past which a stretch of the game's
# work counts as a pause of the process (LoopPauses)
PAUSE_MS = 1.5
_T = TypeVar("_T")


class LoopPauses:
    """The stretches of the game's work on the network thread (a peer message handled, a
    slice of idle work) whose wall-clock time exceeded the thread's CPU time by more than
    ``PAUSE_MS``: the process was not running while it had work. None of that work waits
    on purpose; a journal line's write could block on the disk. On the 2-core test
    machine (a virtual machine) such pauses of 2-5 ms come with no context switch and no
    page fault, more often the longer a burst of CPU work runs and when both processes
    compute at once (docs/network.md, "Where the time goes"): whatever action they fall
    in takes that much longer. ``wec peer`` reports them in its final event, and ``wec
    bench net`` tells which of its actions had one, so that a run's tail can be read
    against them. ``found``: (start, ms lost) by ``time.monotonic()``, the first
    ``LIMIT`` only."""

    LIMIT = 10_000

    def __init__(self, wall: Callable[[], float] = time.perf_counter,
                 cpu: Callable[[], float] = time.thread_time,
                 now: Callable[[], float] = time.monotonic) -> None:
        self.found: list[tuple[float, float]] = []
        self._wall, self._cpu, self._now = wall, cpu, now  # clocks (tests give their own)

    def timed(self, work: Callable[[], _T]) -> _T:
        """``work()``, noted if it paused."""
        start, wall, cpu = self._now(), self._wall(), self._cpu()
        try:
            return work()
        finally:
            lost = (self._wall() - wall - (self._cpu() - cpu)) * 1000.0
            if lost > PAUSE_MS and len(self.found) < self.LIMIT:
                self.found.append((start, lost))


def run_when_idle(loop: asyncio.AbstractEventLoop, work: Iterator[None],
                  current: Callable[[], bool], finished: Callable[[], None],
                  pauses: LoopPauses | None = None) -> None:
    """Run ``work`` one slice per turn of ``loop``, and only in a turn where no other
    callback is waiting (a frame being read, a message being handled, a reply being
    written): those go first and the slice waits for the next turn. Before 2026-11-26
    (session 14) a slice ran in every turn, and a message crossed three turns to be read
    and handled (the frame's bytes, the reader's task, the handler's task), so it waited
    behind up to three slices: on loopback a frame took 1.1-1.2 ms from one peer's write
    to the other's read, median, 0.5 ms since. Stops when ``current()`` turns false
    (newer work replaced it) and calls ``finished`` at the end. The waiting callbacks
    are asyncio's ready queue (``loop._ready``, private to the standard loops); a loop
    without one runs a slice every turn, as before. ``pauses`` notes the slices that
    paused (:class:`LoopPauses`). The works of one loop take their slices in turn
    (:class:`_IdleWorks`)."""
    works = _IDLE_WORKS.get(loop)
    if works is None:
        works = _IDLE_WORKS[loop] = _IdleWorks(loop)
    works.add(_IdleWork(work, current, finished, pauses))


class _IdleWork:
    """One work given to :func:`run_when_idle`."""

    __slots__ = ("current", "finished", "pauses", "work")

    def __init__(self, work: Iterator[None], current: Callable[[], bool],
                 finished: Callable[[], None], pauses: LoopPauses | None) -> None:
        self.work, self.current, self.finished, self.pauses = work, current, finished, pauses

    def one_slice(self) -> bool:
        """Run the next slice; whether the work is over (then ``finished`` was called)."""
        try:
            done = (next(self.work, _DONE) if self.pauses is None
                    else self.pauses.timed(partial(next, self.work, _DONE))) is _DONE
        except Exception:  # idle work never decides anything: the answer path redoes it
            log.exception("the game's idle work failed")
            done = True
        if done:
            self.finished()
        return done


class _IdleWorks:
    """The idle works of one event loop, run by one callback that waits while any other
    callback is ready and otherwise runs one slice of the first work, the works taking
    turns. Until 2026-11-27 (session 22) each work waited on its own callback while the
    ready queue was not empty: two works in one loop (two peers in one process, as in
    the tests) each saw the other's callback waiting and waited again, turn after turn,
    at full CPU, and neither ever ran."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        # weak: ``_IDLE_WORKS`` is keyed by the loop, and a value that held its key would
        # keep both, and every work left in a loop that stopped (its games with them),
        # for the life of the process (until session 29)
        self._loop = weakref.ref(loop)
        self.works: deque[_IdleWork] = deque()
        self.scheduled = False

    def add(self, work: _IdleWork) -> None:
        self.works.append(work)
        loop = self._loop()
        if not self.scheduled and loop is not None:
            self.scheduled = True
            loop.call_soon(self.tick)

    def tick(self) -> None:
        works = self.works
        while works and not works[0].current():
            works.popleft()  # replaced by newer work, or stopped
        loop = self._loop()
        if not works or loop is None:
            self.scheduled = False
            return
        if not getattr(loop, "_ready", None):  # nothing else waits
            work = works.popleft()
            if not work.one_slice():
                works.append(work)  # its next slice after the others'
        loop.call_soon(self.tick)


# the idle works of each event loop (run_when_idle)
_IDLE_WORKS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _IdleWorks] = \
    weakref.WeakKeyDictionary()


def link_fog(link: Link) -> bool:
    """Whether the lobby on ``link`` plays fog-of-war games."""
    lobby = link.lobby
    return bool(lobby is not None and lobby.fog)


class GameHost:
    """Starts the game, takes the player's game commands, carries out the Lockstep's
    steps, runs the grace period and tells when the peer holds all we sent."""

    def __init__(self, state: PeerState, files: GameFiles) -> None:
        self._state = state
        self._files = files
        self._save_name: str | None = None  # our player's name for the save being made
        self._fog_save_name: str | None = None  # the same, for a fog save still to come
        self._idle: Iterator[None] | None = None  # the fog game's idle work under way
        self.pauses = LoopPauses()  # where handling a message or idle work stood still
        # the collector's full passes, in a process of the peer's own (settling_heap)
        self.collections = FullCollections().watch() if state.config.freeze_heap else None

    # ------------------------------------------------------------ start and end

    def start(self, link: Link, setup: GameSetup) -> None:
        """Start the game the lobby on ``link`` agreed: journal first, then play. With
        fog of war (issue 21) the journal's header holds our half state and our seed (or
        the resumed save's record), never the peer's pieces."""
        state = self._state
        options = setup.match.current.options if setup.match is not None else setup.options
        problem = fog_problem(options) if link_fog(link) else stage1_problem(options)
        if problem:  # the lobbies refuse such rules first; this is the last guard
            raise LobbyError(problem)
        game_id = hashlib.sha256(setup.rules_hash + link.session.session_id).digest()
        self.archive_finished()
        header: dict[str, Any] = {
            "game": game_id.hex(), "peer_name": link.peer_name,
            "peer_key": base64.b64encode(link.peer_key).decode("ascii"),
            "our_side": setup.our_side.value, "start_title": setup.start_title,
            "rules_hash": setup.rules_hash.hex(), "move_time": setup.move_time}
        path = self._files.games_dir() / f"{game_id.hex()}.jsonl"
        opening = None
        lockstep: Lockstep
        if setup.match is not None:
            header["start"] = base64.b64encode(encode_save(setup.match)).decode("ascii")
            journal = Journal.create(path, header)
            lockstep = Lockstep(game_id, setup.match, setup.our_side, record=journal.record,
                                move_time=setup.move_time)
        else:
            if setup.saved is not None:
                fog_game, header["fog"] = restored_fog_game(setup.saved.fog.record,
                                                            state.identity)
            else:
                assert setup.half is not None
                fog_game, header["fog"] = new_fog_game(game_id, setup.our_side, setup.half,
                                                       state.identity, link.peer_key)
            journal = Journal.create(path, header)
            lockstep = FogLockstep(game_id, fog_game, setup.our_side,
                                   record=journal.record, move_time=setup.move_time)
            if setup.saved is None:
                opening = lockstep.open()
        game = Game(game_id, link.peer_key, link.peer_name, lockstep, journal,
                    setup.start_title, link=link)
        link.resumed = True
        state.game = game
        if state.config.freeze_heap:
            fresh_heap()
        self.clock(game)
        for address in (state.addresses.get(link.session.peer_fingerprint),
                        link.listen_address):
            if address is not None:
                state.note_game_address(link.peer_key, address)
        state.emit(GameStarted(game_id.hex(), link.peer_name, setup.our_side, setup.options,
                               setup.start_title, setup.state_hash,
                               setup.resume_game is not None, setup.move_time))
        if opening is not None:
            self.carry_out(opening)

    def archive_finished(self) -> None:
        """A finished game stops being the game under way (it still answers a Resume)."""
        state = self._state
        game = state.game
        if game is not None and game.finished:
            state.finished_games[game.game_id] = game
            state.game = None
            self.forget_old_games()

    def forget_old_games(self) -> None:
        """Keep the newest few finished games (to answer a late Resume); the older ones
        are only in their journals (issue 20: the list grew for the life of the
        process)."""
        finished = self._state.finished_games
        while len(finished) > KEPT_FINISHED_GAMES:
            old = finished.pop(next(iter(finished)))
            old.lockstep.flush_journal()
            old.journal.close()
            if isinstance(old.lockstep, FogLockstep):
                old.lockstep.game.close()  # its waiting resolutions held it in memory

    def close(self) -> None:
        """The Peer stops: the journals closed (the games stay), the idle work stopped
        and the fog games' waiting resolutions let go, the collector no longer watched,
        and in a process of the peer's own the heap unfrozen and the collector's
        thresholds restored (net.heap ``released_heap``: the client goes on without
        the network: what its games and screens left frozen is garbage the collector may
        reach again). A fog game left in the middle stayed in the client's memory for
        good before session 29 (its waiting resolutions' greenlets hold it out of the
        collector's sight); resumed, it is made again from its journal."""
        self.close_journals()
        self._idle = None  # its idle work stops at the loop's next turn
        for game in self._games():
            if isinstance(game.lockstep, FogLockstep):
                game.lockstep.game.close()
        if self.collections is not None:
            self.collections.stop()
        if self._state.config.freeze_heap:
            released_heap()

    def close_journals(self) -> None:
        """Close the journal files of every game (the Peer stops; the games stay)."""
        for game in self._games():
            game.lockstep.flush_journal()
            game.journal.close()

    def _games(self) -> list[Game]:
        """The game under way, if any, and the finished games kept."""
        state = self._state
        return [game for game in (state.game, *state.finished_games.values())
                if game is not None]

    def current(self) -> Game:
        """The game under way (LockstepError when there is none)."""
        if self._state.game is None:
            raise LockstepError("no game is under way")
        return self._state.game

    # ------------------------------------------------------------ steps

    def carry_out(self, step: GameStep) -> None:
        """Send the step's messages (when the game's link is up) and act on its events."""
        state = self._state
        game = state.game
        sent_at: float | None = None
        if game is not None and step.send and game.connected and game.link is not None:
            sent_at = time.monotonic()  # before the write: see GameUpdate.sent_at
            for message in step.send:
                state.send(game.link, message)
        for event in step.events:
            state.emit(GameUpdate(event, sent_at))
            try:  # a file that fails is reported; the step's other events still are
                if isinstance(event, GameOver) and game is not None:
                    game.journal.note(finished=True)  # restarts skip old finished games
                if isinstance(event, SaveNow):
                    self._files.write_save(event, self._save_name if event.asked_by_us
                                           else None)
                elif isinstance(event, FogSaveNow):
                    name = self._fog_save_name if event.asked_by_us else None
                    if event.asked_by_us:
                        self._fog_save_name = None
                    self._files.write_save(event, name)
                elif isinstance(event, Audited) and game is not None:
                    self._files.write_audit(game, event)
                elif isinstance(event, DesyncReportReady | Desynced):
                    self._files.write_desync(event.report)
            except Exception as exc:
                log.exception("acting on a %s event failed", event.kind)
                state.emit(ErrorEvent(f"the {event.kind} of the game could not be kept: "
                                      f"{exc!r}"))
        if game is not None:
            self.clock(game)  # note when turns and requests began

    def receive(self, message: Message) -> None:
        """One of the peer's game messages (on the game's link): chat within its limits
        (issue 20 hole 2: every accepted line is journalled), then the Lockstep."""
        game = self.current()
        lockstep = game.lockstep
        problem = (self._chat_problem(game) if isinstance(message, Chat)
                   else self._save_problem(game) if isinstance(message, SaveNotice)
                   else self._claim_problem(game, message) if isinstance(message, TimeClaim)
                   else None)
        if problem:
            self.carry_out(lockstep.refuse(message, problem))
            return
        step = self.pauses.timed(partial(lockstep.receive, message))
        if isinstance(message, Chat) and not any(isinstance(e, Refused)
                                                 for e in step.events):
            game.peer_chat += 1
        self.carry_out(step)
        if isinstance(lockstep, FogLockstep):
            self._settle_soon(lockstep)
        # the messages are on the socket: make ahead, while the peer computes, the PSI
        # material our next answer needs (FogGame.preparing; sends nothing); afresh after
        # every message, since what is due changes with each (our resolution over, with
        # its finish waiting, sends nothing); then settle the heap
        self._prepare(lockstep)

    def _chat_problem(self, game: Game) -> str | None:
        """Why the peer may not say one more line in this game now (None: it may)."""
        config = self._state.config
        if game.peer_chat >= config.max_game_chat:
            return f"the chat of this game is full ({config.max_game_chat} lines)"
        if game.chat_limit is None:
            game.chat_limit = RateLimit(config.chat_burst, config.chat_per_minute / 60,
                                        config.clock)
        if not game.chat_limit.allow():
            return (f"too many chat lines: at most {config.chat_per_minute:g} a minute "
                    "(the rest were refused)")
        return None

    def _save_problem(self, game: Game) -> str | None:
        """Why the peer may not have us write one more save now (issue 20 hole 4: each
        is a file on this machine)."""
        config = self._state.config
        if game.peer_saves >= config.max_peer_saves:
            return f"no more saves in this game ({config.max_peer_saves} were written)"
        if game.save_limit is None:
            game.save_limit = RateLimit(config.save_burst, config.saves_per_minute / 60,
                                        config.clock)
        if not game.save_limit.allow():
            return f"too many saves asked: at most {config.saves_per_minute:g} a minute"
        game.peer_saves += 1
        return None

    def command(self, command: Callable[[Lockstep], GameStep]) -> None:
        """Run a player's command on the game's Lockstep and carry out its step."""
        game = self.current()
        step = command(game.lockstep)
        self.carry_out(step)
        if step.send:
            self._prepare(game.lockstep)  # as after a peer message (receive)

    def _settle_soon(self, lockstep: FogLockstep) -> None:
        """What the fog game left until our answer is written (``FogLockstep.settle``:
        the finish that waited for the peer's question, 2-3 ms at an End of turn, or our
        resolution's step on the message our owner side just answered, since session
        39), in the event loop's next turn: our answer is then on its way while it
        computes. Before the idle work, which is scheduled after it. Without a running
        loop, at once. The game waits on it: every step a receive makes is settled."""
        if not lockstep.settle_due:
            return

        def settle() -> None:
            if self._state.game is None or self.current().lockstep is not lockstep:
                return  # the game went away meanwhile
            step = self.pauses.timed(lockstep.settle)
            self.carry_out(step)
            if step.send:
                self._prepare(lockstep)

        try:
            asyncio.get_running_loop().call_soon(settle)
        except RuntimeError:
            settle()

    def _prepare(self, lockstep: Lockstep) -> None:
        """The game's idle work in slices while the event loop has nothing else to do
        (:func:`run_when_idle`), so that the peer's next message is read and handled
        between slices rather than after them: a fog game's PSI material made ahead
        (``FogLockstep.preparing``: some 10 ms, and the peer's answer often came
        sooner), then, in a process of the peer's own (``freeze_heap``), the heap
        settled (:func:`settling_heap`). A newer start replaces an older one, and what is
        left undone is made when it is needed (the heap is settled after the newer
        work). Without a running loop (a host driven directly) it is all done at once."""
        work: Iterator[None] = (lockstep.preparing() if isinstance(lockstep, FogLockstep)
                                else iter(()))
        if self._state.config.freeze_heap:
            work = chain(work, settling_heap())
        elif not isinstance(lockstep, FogLockstep):
            return  # nothing to do
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            for _ in work:
                pass
            return
        self._idle = work

        def finished() -> None:
            if self._idle is work:
                self._idle = None

        run_when_idle(loop, work, lambda: self._idle is work, finished, self.pauses)

    # ------------------------------------------------------------ the player's commands

    def play(self, intent: Intent) -> None:
        self.command(lambda lockstep: lockstep.play(intent))

    def resign(self) -> None:
        self.command(lambda lockstep: lockstep.resign())

    def request_takeback(self, turn: int | None = None) -> None:
        self.command(lambda lockstep: lockstep.request_takeback(turn))

    def answer_takeback(self, accept: bool) -> None:
        self.command(lambda lockstep: lockstep.answer_takeback(accept))

    def chat(self, text: str) -> None:
        self.command(lambda lockstep: lockstep.chat(text))

    def save(self, file_name: str | None = None) -> None:
        """Save the game on both machines: ours as ``file_name`` (a bare name; the
        game names it when None), the peer's as the peer chooses."""
        try:
            stem = save_stem(file_name) if file_name else None
        except ValueError as exc:
            raise LockstepError(str(exc)) from None
        self._save_name = stem
        try:
            self.command(lambda lockstep: lockstep.save())
        finally:
            self._save_name = None
        # with fog of war both sides save at the next turn's start (net.lockstep_fog):
        # the name waits for it
        self._fog_save_name = stem

    # ------------------------------------------------------------ the peer away

    def begin_away(self) -> None:
        """The game's peer is gone: start the grace period and redial at once."""
        game = self._state.game
        if game is not None and game.away_since is None and not game.finished:
            game.away_since = time.monotonic()
            game.grace_reported = False
            self._state.dial_now.set()

    def claim_win(self) -> None:
        """End the game as won by us: after the grace period when the peer is away, or,
        while it is connected, when it owes us its move or an answer for too long (net.
        game_clock; issue 20 hole 3)."""
        grace_period = self._state.config.grace_period
        game = self.current()
        if game.connected:
            self._claim_time(game)
            return
        away = time.monotonic() - (game.away_since or time.monotonic())
        if away < grace_period:
            raise LockstepError(f"{game.peer_name} has been away for {away:.0f} s; a win "
                                f"can be claimed after {grace_period:g} s")
        reason = (f"{game.lockstep.peer_side.title} ({game.peer_name}) was gone for more "
                  f"than {grace_period:g} s; {game.lockstep.our_side.title} "
                  "claimed the win")
        self.carry_out(game.lockstep.claim_win(reason))

    def _claim_time(self, game: Game) -> None:
        lockstep = game.lockstep
        clock = self.clock(game)
        debt = clock.peer_owes(lockstep)
        if debt is None:
            raise LockstepError(f"{game.peer_name} is connected and owes you neither a move "
                                "nor an answer: there is nothing to claim")
        if not debt.due:
            what = ("to answer your takeback request" if debt.kind == "answer"
                    else "to act")
            raise LockstepError(f"{game.peer_name} has had {debt.seconds:.0f} s {what}; a "
                                f"win can be claimed after {debt.limit:g} s")
        self.carry_out(lockstep.claim_time(debt.kind, int(debt.seconds)))

    def clock(self, game: Game) -> GameClock:
        """The game's clock (made at the first look), up to date with the game."""
        if game.clock is None:
            config = self._state.config
            game.clock = GameClock(config.clock, Limits(
                game.lockstep.move_time, config.idle_limit, config.request_timeout))
        game.clock.observe(game.lockstep)
        return game.clock

    def check_timers(self) -> None:
        """Called every round of the watch (net.redial): decline by ourselves a takeback
        request we left unanswered past the timeout, and say once when the connected
        peer owes us its move or an answer past its limit (PeerIdle: the win may then be
        claimed)."""
        game = self._state.game
        if game is not None and game.finished:
            self._check_reveal(game)
        if game is None or game.finished:
            return
        clock = self.clock(game)
        lockstep = game.lockstep
        if clock.request_expired(lockstep):
            self.carry_out(lockstep.answer_takeback(False))
        debt = clock.peer_owes(lockstep)
        if debt is None or not debt.due or not game.connected:
            return
        key = (debt.kind, debt.turn, lockstep.takebacks, lockstep.our_takeback)
        if key not in game.idle_reported:
            game.idle_reported.add(key)
            self._state.emit(PeerIdle(game.peer_name, debt.kind, round(debt.seconds, 1),
                                      debt.limit))

    def _check_reveal(self, game: Game) -> None:
        """Fog of war: a connected peer that does not send its reveal within the request
        timeout after the game ended refuses the audit; the verdict names it."""
        lockstep = game.lockstep
        if not isinstance(lockstep, FogLockstep) or not lockstep.awaiting_reveal:
            game.reveal_wait_since = None
            return
        now = self._state.config.clock()
        if game.reveal_wait_since is None or not game.connected:
            game.reveal_wait_since = now  # it counts while the peer is here
            return
        if now - game.reveal_wait_since >= self._state.config.request_timeout:
            self.carry_out(lockstep.reveal_overdue())

    def _claim_problem(self, game: Game, message: TimeClaim) -> str | None:
        """Why the peer's time claim is not true on our clock (None: it is, or the rules
        decide: the Lockstep refuses a claim about a turn that is not ours)."""
        debt = self.clock(game).we_owe(game.lockstep, message.kind)
        if debt is None or debt.seconds >= debt.limit * SLACK:
            return None
        what = "an answer" if message.kind == "answer" else f"turn {debt.turn}"
        return (f"not so on this machine: {what} has been owed for {debt.seconds:.0f} s, "
                f"the limit is {debt.limit:g} s")

    def cancel_takeback(self) -> None:
        self.command(lambda lockstep: lockstep.cancel_takeback())

    def keep_waiting(self) -> None:
        """After the grace period: wait another grace period before asking again."""
        game = self.current()
        game.away_since = time.monotonic()
        game.grace_reported = False

    # ------------------------------------------------------------ delivery

    def delivered(self) -> bool:
        """True when the peer has received everything we sent in the game (its
        heartbeats say so on a resumed link); a finished game so delivered is settled."""
        game = self._state.game
        if game is None:
            return True
        link = game.link
        if link is None or not link.resumed or not link.session.is_open:
            return False
        session = link.session
        delivered = session.peer_received >= session.counters.messages_sent
        if delivered and game.finished:
            game.settled = True
        return delivered

    def remember_address(self, host: str, port: int) -> None:
        """Note where the game's peer listens (``wec peer --address``), for redialling."""
        game = self._state.game
        if game is not None:
            self._state.note_game_address(game.peer_key, (host, port))


__all__ = ["GameHost"]
