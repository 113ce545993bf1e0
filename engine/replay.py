"""Watching a game again (issue 7): any step of a saved or finished game, fast and checked.

A ``Replay`` indexes positions 0..length: position ``i`` is the full state after ``i``
steps (0: the start). Steps are the save's steps (played intents and R14.2 option
changes), numbered 1..length; ``steps[k - 1]`` describes step ``k``.

**Opening** (``Replay.open``) never replays the whole game: it checks the envelope and
the checksum, reads the step list (intents parsed, turns and sides derived: a turn
ends with each EndTurn step, R4.1 Black plays odd turns) and leaves the snapshots of a
version 2 save (engine.savegame: one every ``SNAPSHOT_INTERVAL`` steps and one after
the last) compressed. Only the last snapshot is decoded, to know the result and the
mode. A version 1 save (a short history, or an older file) has no snapshot: it is
verified in full at once (as ``decode_save`` checks it), keeping a position every
``SNAPSHOT_INTERVAL`` steps to seek from.

**Seeking** (``position(i)``) starts from the nearest known position at or before
``i``: a cached one, or the nearest snapshot, decoded. It then applies the steps
forward with the rules (``engine.game.apply``, option changes as ``engine.match``
makes them) and caches what it computed (a bounded cache; decoded snapshots stay).
The position returned always has the state hash recorded for it (SHA-256: then it is
the position the game reached, whatever the file says on the way); the positions on
the way are compared when they are returned in turn, or all of them, snapshot first,
to name the first bad step when the last one differs. So a seek costs one snapshot
decoding, at most ``SNAPSHOT_INTERVAL - 1`` steps and one hash, and a step back is
cached or recomputed from its snapshot: exact either way.

**Verifying** (``verify(max_steps)``) is the full check of issue 7 item 4, done in
slices so a client can call it every frame (no threads: the engine stays pure and
single-threaded): it replays the game
from the start position alone (never from a snapshot), compares the state hash after
every step, each snapshot byte for byte (engine orders included, so a snapshot can
only be the very position the game reached) and each turn's notation, in the full
and both censored copies, with the recorded one. Positions it computes go to the
cache too.

**Integrity**: the first difference found, by seeking or verifying, becomes a
``ReplayIntegrityError`` naming the step and its turn; from then on every position
at or after that step raises it. Nothing wrong is shown silently; what is shown
before ``verify`` reaches it was checked against the recorded hashes only, which is
why a client keeps verifying in the background.

**R14.3**: the full history of a competitive game is revealed when the game ends.
``Replay.open`` and ``Replay.of_match`` refuse an unfinished competitive game
(``ReplayRefused``) unless ``allow_unfinished_competitive`` is set (``wec history
--side``); then only the censored notation (``turn_notation(side)``) is available and
everything else raises ``ReplayRefused``.

Pure and deterministic: bytes in, positions out, no clock and no I/O.
"""

from __future__ import annotations

import bisect
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, NoReturn

from wec.engine import board, game, knowledge
from wec.engine.censor import events_for
from wec.engine.encoding import full_state_hash as state_hash
from wec.engine.errors import (
    FormatError,
    IllegalIntent,
    MatchError,
    ReplayIntegrityError,
    ReplayRefused,
    SaveError,
)
from wec.engine.events import Event
from wec.engine.formats import intent_from_dict, position_from_dict
from wec.engine.intents import (
    UNSEEN_SQUARE,
    Doze,
    Drop,
    EndTurn,
    Exchange,
    Fire,
    Intent,
    Move,
    PickUp,
    Reinforce,
)
from wec.engine.match import Match, OptionChange
from wec.engine.notation import (
    NotationError,
    NotationFile,
    Step,
    format_notation_file,
    parse_notation_file,
    replay_steps,
    write_turn,
)
from wec.engine.options import Options, options_from_dict, options_to_dict
from wec.engine.pieces import ArticleKind, PieceKind, Side, describe_kind
from wec.engine.position import Position
from wec.engine.savegame import (
    NOTATION_COPIES,
    SNAPSHOT_INTERVAL,
    SaveContent,
    decode_snapshot,
    expand_snapshot,
    option_change_after,
    position_in_engine_order,
    read_content,
    snapshot_data,
)
from wec.engine.setup import standard_position

__all__ = ["Replay", "StepInfo", "Verification", "match_from_notation", "notation_file_text"]

# Positions kept besides the start and the decoded snapshots: a few thousand steps
# around where the viewer looks (one position shares most of its data with the next).
CACHE_SIZE = 2048
_ALTERED = "the file was altered or made by a different engine version"
_COPY_VIEWERS: dict[str, Side | None] = {"full": None, "black": Side.BLACK,
                                         "white": Side.WHITE}


@dataclass(frozen=True, slots=True)
class StepInfo:
    """One step of the history, known without replaying it."""

    number: int  # 1-based
    turn: int
    side: Side  # who acted
    intent: Intent | OptionChange

    @property
    def summary(self) -> str:
        """One plain-language line for the history list, uncensored (written when
        asked: a long game has thousands of steps, a list shows a few)."""
        return describe_step(self.side, self.turn, self.intent)


@dataclass(frozen=True, slots=True)
class Verification:
    """How far ``Replay.verify`` got: ``checked`` steps recomputed from the start and
    found equal to the file, of ``total``; ``error`` once the first bad step is found."""

    checked: int
    total: int
    error: ReplayIntegrityError | None = None

    @property
    def done(self) -> bool:
        """Nothing left to check: every step passed, or a bad one was found."""
        return self.error is not None or self.checked >= self.total


@dataclass(frozen=True, slots=True)
class _State:
    """A position the replay reached, with the events of the step that led to it (none
    for the start or a decoded snapshot until that step is recomputed), and whether its
    state hash was compared with the recorded one yet."""

    position: Position
    events: tuple[Event, ...] | None = None
    seen: tuple[tuple[Event, ...], tuple[Event, ...]] | None = None
    checked: bool = True


@dataclass(slots=True)
class _Chain:
    """``verify``'s own replay from the start: where it stands and the turn it is in
    (the steps already played in it and the EndTurn step that opened it, R16)."""

    index: int
    position: Position
    turn_steps: list[Step] = field(default_factory=list)
    opening: Step | None = None
    turn_lines: int = 0  # notation lines checked so far
    done: bool = False  # every step and the end checked
    # the notation written, for a file that records none (version 1)
    written: dict[str, list[str]] = field(
        default_factory=lambda: {copy: [] for copy in NOTATION_COPIES})


class Replay:
    """A game to watch again; build one with ``Replay.open`` or ``Replay.of_match``."""

    def __init__(self, start: Position, hashes: Sequence[str],
                 steps: tuple[StepInfo, ...], mode: str,
                 snapshots: dict[int, bytes] | None = None,
                 notation: dict[str, list[str]] | None = None,
                 allow_unfinished_competitive: bool = False) -> None:
        self.length = len(steps)
        self.steps = steps
        self._hashes = tuple(hashes)  # index i: the recorded hash of position i
        self._mode = mode
        self._snapshots = snapshots or {}
        # where a seek may start besides the start: the snapshots, and for a file without
        # any the positions verify() pins every SNAPSHOT_INTERVAL steps
        self._anchors = sorted(self._snapshots)
        self._notation = notation
        self._pinned: dict[int, _State] = {0: _State(start)}
        self._cache: OrderedDict[int, _State] = OrderedDict()
        self._error: ReplayIntegrityError | None = None
        self._chain: _Chain | None = _Chain(0, start)
        self.turn_starts = _turn_starts(steps)
        self._final: Position | None = None
        self._match: Match | None = None
        self._allow_unfinished = allow_unfinished_competitive

    # ------------------------------------------------------------ building

    @classmethod
    def open(cls, data: bytes, *, allow_unfinished_competitive: bool = False) -> Replay:
        """The replay of a save file's bytes; ``SaveError`` for a foreign, damaged or
        newer file (as ``decode_save``), ``ReplayIntegrityError`` for a step that is not
        what the rules give, ``ReplayRefused`` for an unfinished competitive game
        (R14.3) unless allowed."""
        content = read_content(data)
        replay = cls._from_content(content, allow_unfinished_competitive)
        if not content.snapshots:  # version 1: checked in full now, as decode_save does
            verification = replay.verify(replay.length)
            if verification.error is not None:
                raise verification.error
        replay._check_mode()
        replay._refuse_if_unfinished_competitive()
        return replay

    @classmethod
    def _from_content(cls, content: SaveContent, allow: bool) -> Replay:
        if state_hash(content.start) != content.start_hash:
            raise SaveError(f"start position: state hash differs: {_ALTERED}")
        hashes = [content.start_hash]
        infos: list[StepInfo] = []
        turn = content.start.turn
        for number, raw in enumerate(content.steps, start=1):
            intent, recorded = _parsed_step(raw, number, turn)
            side = Side.BLACK if turn % 2 == 1 else Side.WHITE  # R4.1
            infos.append(StepInfo(number, turn, side, intent))
            hashes.append(recorded)
            if isinstance(intent, EndTurn):
                turn += 1
        return cls(content.start, hashes, tuple(infos), content.mode, content.snapshots,
                   content.notation, allow)

    @classmethod
    def of_match(cls, match: Match, *, allow_unfinished_competitive: bool = False) -> Replay:
        """The replay of a game in memory (the game-over screen): every position is
        known, so nothing is left to verify."""
        infos = tuple(StepInfo(number, action.turn, action.side, action.intent)
                      for number, action in enumerate(match.actions, start=1))
        replay = cls(match.start, [match.start_hash, *(a.state_hash for a in match.actions)],
                     infos, match.mode.value, None, None, allow_unfinished_competitive)
        for number, action in enumerate(match.actions, start=1):
            replay._pinned[number] = _State(action.position, action.events, action.seen)
        replay._final = match.current
        replay._chain = None
        replay._match = match
        replay._refuse_if_unfinished_competitive()
        return replay

    # ------------------------------------------------------------ reading

    @property
    def start(self) -> Position:
        """The start position (position 0)."""
        return self._pinned[0].position

    @property
    def turns(self) -> int:
        """How many turns saw a step."""
        return len({info.turn for info in self.steps})

    @property
    def finished(self) -> bool:
        """The game has a result (R12)."""
        return self._final_position().result is not None

    @property
    def competitive(self) -> bool:
        """The game ended (or stands) in competitive mode (R14.3, O32)."""
        return self._final_position().options.competitive

    @property
    def replayable(self) -> bool:
        """R14.3: everything may be shown, unless the game is competitive and not over."""
        return not (self.competitive and not self.finished)

    def position(self, index: int) -> Position:
        """The full position after ``index`` steps; ``ReplayIntegrityError`` if the file
        differs from the rules on the way there."""
        self._require_replayable()
        return self._state(index).position

    def state_hash(self, index: int) -> str:
        """The state hash of position ``index`` (recorded, and checked when reached)."""
        self._check_index(index)
        self.position(index)
        return self._hashes[index]

    def view(self, index: int, perspective: Side | None) -> Position:
        """What ``perspective`` knew at position ``index`` (R9, engine.knowledge), or the
        full position for None."""
        position = self.position(index)
        return position if perspective is None else knowledge.view(position, perspective)

    def events(self, step: int, perspective: Side | None) -> tuple[Event, ...]:
        """The events of step ``step`` (1-based), as ``perspective`` saw them (R14.3,
        engine.censor), or all of them for None."""
        self._require_replayable()
        if not 1 <= step <= self.length:
            raise IndexError(f"no step {step}: the replay has steps 1 to {self.length}")
        state = self._state(step)
        if state.events is None or state.seen is None:
            state = self._recompute(step)
        events, seen = state.events or (), state.seen or ((), ())
        if perspective is None:
            return events
        return seen[0] if perspective is Side.BLACK else seen[1]

    def turn_notation(self, perspective: Side | None = None) -> list[str]:
        """The R16 history, one string per turn: the full one, or ``perspective``'s
        censored copy (R14.3). A version 2 save records it (checked by ``verify``);
        otherwise it is written from the positions."""
        if perspective is None:
            self._require_replayable()
        copy = "full" if perspective is None else perspective.value
        if self._notation is not None:
            return list(self._notation[copy])
        if self._match is None:
            raise AssertionError("a file without notation is verified when opened")
        return self._match.turn_notation(perspective)

    # ------------------------------------------------------------ verifying

    def verify(self, max_steps: int) -> Verification:
        """Continue the full check from the start by at most ``max_steps`` steps (see the
        module docstring); cheap to call every frame with a small ``max_steps`` (a step
        takes about 2 ms). Like the whole engine, a Replay is not shared between threads:
        the viewer calls this a slice per frame, on the thread that seeks."""
        return self._verify(max_steps)

    def _verify(self, max_steps: int) -> Verification:
        chain = self._chain
        if chain is None or chain.done:
            return Verification(self.length, self.length, None)
        if self._error is not None and chain.index >= self._error.step - 1:
            return Verification(chain.index, self.length, self._error)
        try:
            for _ in range(max(0, max_steps)):
                if chain.index >= self.length:
                    break
                self._verify_step(chain)
            if chain.index >= self.length:
                self._verify_end(chain)
        except ReplayIntegrityError as error:
            self._fail(error)
            return Verification(chain.index, self.length, self._error)
        if chain.index >= self.length and self._error is None:
            chain.done = True
            if self._notation is None:
                self._notation = chain.written
            return Verification(self.length, self.length)
        return Verification(chain.index, self.length, None)

    def _verify_step(self, chain: _Chain) -> None:
        number = chain.index + 1
        info = self.steps[number - 1]
        before = chain.position
        if before.turn != info.turn:
            raise ReplayIntegrityError(number, info.turn, f"the game is in turn {before.turn}"
                                                          f" there: {_ALTERED}")
        state = self._apply(before, number)
        self._check_hash(number, state.position)
        if number in self._snapshots:
            stored = expand_snapshot(self._snapshots[number], _where(info))
            if stored != snapshot_data(state.position):
                raise ReplayIntegrityError(number, info.turn, "snapshot differs from the "
                                           f"replayed position: {_ALTERED}")
        if not isinstance(info.intent, OptionChange):
            assert state.events is not None
            step: Step = (before, info.intent,
                          game.Outcome(state.position, state.events))
            if isinstance(info.intent, EndTurn):
                self._check_turn_line(chain, chain.turn_steps, chain.opening, number)
                chain.turn_steps, chain.opening = [], step
            else:
                chain.turn_steps.append(step)
        chain.index, chain.position = number, state.position
        if not self._snapshots and number % SNAPSHOT_INTERVAL == 0:
            self._pinned[number] = state  # an anchor for seeks (no snapshot in the file)
            self._anchors.append(number)
        self._remember(number, state)

    def _verify_end(self, chain: _Chain) -> None:
        """After the last step: the last turn's notation (if R16 writes one) and the
        mode the file claims."""
        if chain.turn_steps or (chain.opening is not None
                                and chain.opening[2].position.result is not None):
            self._check_turn_line(chain, chain.turn_steps, chain.opening, self.length)
            chain.turn_steps = []
        if self._notation is not None:
            recorded = len(self._notation["full"])
            if recorded != chain.turn_lines:
                last = self.steps[-1] if self.steps else None
                raise ReplayIntegrityError(self.length, last.turn if last else 0,
                                           f"notation: {recorded} turn line(s) recorded, the "
                                           f"replayed game writes {chain.turn_lines}: "
                                           f"{_ALTERED}")
        mode = "competitive" if chain.position.options.competitive else "non_competitive"
        if self.length and mode != self._mode:
            raise ReplayIntegrityError(self.length, self.steps[-1].turn,
                                       f"invalid content: mode: the file says {self._mode} "
                                       f"but its history leaves the game {mode}")

    def _check_turn_line(self, chain: _Chain, actions: list[Step], opening: Step | None,
                         number: int) -> None:
        """The notation of the turn just closed, in each copy, against the file's."""
        line = chain.turn_lines
        chain.turn_lines += 1
        turn = self.steps[number - 1].turn
        for copy in NOTATION_COPIES:
            written = write_turn(actions, opening, _COPY_VIEWERS[copy])
            if self._notation is None:
                chain.written[copy].append(written)
                continue
            recorded = self._notation[copy]
            if line >= len(recorded) or recorded[line] != written:
                raise ReplayIntegrityError(number, turn, f"notation ({copy}) of turn "
                                           f"{turn} differs from the replayed game: "
                                           f"{_ALTERED}")

    # ------------------------------------------------------------ internals

    def _final_position(self) -> Position:
        if self._final is None:
            self._final = self._state(self.length).position
        return self._final

    def _check_mode(self) -> None:
        final = self._final_position()
        mode = "competitive" if final.options.competitive else "non_competitive"
        if mode != self._mode:
            raise SaveError(f"invalid content: mode: the file says {self._mode} but its "
                            f"history leaves the game {mode}")

    def _refuse_if_unfinished_competitive(self) -> None:
        if not self.replayable and not self._allow_unfinished:
            raise ReplayRefused(_UNFINISHED)

    def _require_replayable(self) -> None:
        if not self.replayable:
            raise ReplayRefused(_UNFINISHED)

    def _check_index(self, index: int) -> None:
        if not 0 <= index <= self.length:
            raise IndexError(f"no position {index}: the replay has positions 0 to "
                             f"{self.length}")

    def _state(self, index: int) -> _State:
        return self._reach(index)

    def _reach(self, index: int) -> _State:
        """The state at ``index``, its hash compared: known, or computed from the nearest
        known state or snapshot before it.

        The steps on the way are applied without hashing them (hashing costs five times
        applying): the state reached is right if its hash is the recorded one (SHA-256),
        whatever the hashes recorded on the way say. Those are compared when their
        positions are asked for (kept in the cache as unchecked), when a target's hash
        differs (to name the first bad step) and by ``verify``."""
        self._check_index(index)
        if self._error is not None and index >= self._error.step:
            raise self._error
        known = self._known(index)
        if known is None:
            base, state = self._base_for(index)
            computed: list[_State] = []
            try:
                for number in range(base + 1, index + 1):
                    state = self._apply(state.position, number, checked=False)
                    computed.append(state)
            except ReplayIntegrityError:
                self._raise_first_bad(base, computed)  # the snapshot, if it is the culprit
            if not self._hash_matches(index, state.position):
                self._raise_first_bad(base, computed)
            for number, passed in enumerate(computed, start=base + 1):
                self._remember(number, passed)
            known = state
        if not known.checked:
            self._check_hash(index, known.position, "snapshot: state hash differs"
                             if index in self._snapshots else "state hash differs")
            known = replace(known, checked=True)
            self._remember(index, known)
        return known

    def _raise_first_bad(self, base: int, computed: list[_State]) -> NoReturn:
        """The hash reached differs: name the first step whose hash differs, the
        starting snapshot included."""
        start = self._known(base)
        if start is not None and not start.checked:
            self._check_hash(base, start.position, "snapshot: state hash differs")
        for number, passed in enumerate(computed, start=base + 1):
            self._check_hash(number, passed.position)
        if self._error is not None:  # the rules refused the step after the last computed
            raise self._error
        raise AssertionError("the last hash differs, so an earlier one does")

    def _known(self, index: int) -> _State | None:
        pinned = self._pinned.get(index)
        if pinned is not None:
            return pinned
        cached = self._cache.get(index)
        if cached is not None:
            self._cache.move_to_end(index)
        return cached

    def _base_for(self, index: int) -> tuple[int, _State]:
        """The nearest state at or before ``index`` to start from: a known one no earlier
        than the nearest snapshot, else that snapshot (decoded and checked), else the
        start."""
        at = bisect.bisect_right(self._anchors, index) - 1
        snapshot = self._anchors[at] if at >= 0 else 0
        for candidate in range(index, snapshot - 1, -1):
            known = self._known(candidate)
            if known is not None:
                return candidate, known
        if snapshot == 0:
            return 0, self._pinned[0]
        return snapshot, self._pinned.get(snapshot) or self._decoded_snapshot(snapshot)

    def _decoded_snapshot(self, number: int) -> _State:
        info = self.steps[number - 1]
        try:
            position = decode_snapshot(expand_snapshot(self._snapshots[number], _where(info)),
                                       _where(info))
        except ReplayIntegrityError:
            raise
        except SaveError as exc:
            raise self._fail(ReplayIntegrityError(
                number, info.turn, str(exc).removeprefix(f"{_where(info)}: "))) from None
        state = _State(position, checked=False)  # its hash: when shown, or if a later one fails
        self._pinned[number] = state
        return state

    def _recompute(self, step: int) -> _State:
        """Step ``step`` applied again on the position before it, for its events (a
        decoded snapshot has none)."""
        return self._recomputed(step)

    def _recomputed(self, step: int) -> _State:
        state = self._apply(self._state(step - 1).position, step)
        self._check_hash(step, state.position)
        if step in self._pinned:  # keep the decoded position, add its events
            state = replace(self._pinned[step], events=state.events, seen=state.seen,
                            checked=True)
            self._pinned[step] = state
        else:
            self._remember(step, state)
        return state

    def _apply(self, before: Position, number: int, checked: bool = True) -> _State:
        """Step ``number`` made on ``before`` by the rules (ReplayIntegrityError if they
        refuse it); ``checked`` says whether the caller compares its hash."""
        info = self.steps[number - 1]
        if isinstance(info.intent, OptionChange):
            where = _where(info)
            try:
                after = option_change_after(before, info.intent.options, where)
            except SaveError as exc:
                raise self._fail(ReplayIntegrityError(
                    number, info.turn, str(exc).removeprefix(f"{where}: "))) from None
            return _State(after, (), ((), ()), checked)
        try:
            outcome = game.apply(before, info.intent)
        except IllegalIntent as exc:
            raise self._fail(ReplayIntegrityError(number, info.turn,
                                                  f"illegal intent: {exc}")) from None
        seen = (events_for(Side.BLACK, outcome), events_for(Side.WHITE, outcome))
        return _State(outcome.position, outcome.events, seen, checked)

    def _hash_matches(self, number: int, position: Position) -> bool:
        return state_hash(position) == self._hashes[number]

    def _check_hash(self, number: int, position: Position,
                    what: str = "state hash differs") -> None:
        if not self._hash_matches(number, position):
            if number == 0:
                raise SaveError(f"start position: state hash differs: {_ALTERED}")
            info = self.steps[number - 1]
            raise self._fail(ReplayIntegrityError(number, info.turn, f"{what}: {_ALTERED}"))

    def _fail(self, error: ReplayIntegrityError) -> ReplayIntegrityError:
        """Remember the earliest bad step found: positions from it on are refused."""
        if self._error is None or error.step < self._error.step:
            self._error = error
        return error

    def _remember(self, index: int, state: _State) -> None:
        if index in self._pinned:
            if state.checked and not self._pinned[index].checked:
                self._pinned[index] = replace(self._pinned[index], checked=True)
            return
        self._cache[index] = state
        self._cache.move_to_end(index)
        while len(self._cache) > CACHE_SIZE:
            self._cache.popitem(last=False)


_UNFINISHED = ("R14.3: this competitive game is not over: its full history is revealed "
               "when the game ends, so it cannot be replayed yet")


def _where(info: StepInfo) -> str:
    return f"step {info.number} (turn {info.turn})"


def _turn_starts(steps: tuple[StepInfo, ...]) -> tuple[int, ...]:
    """The position index at which each turn with a step starts (timeline marks)."""
    starts: list[int] = []
    previous: int | None = None
    for info in steps:
        if info.turn != previous:
            starts.append(info.number - 1)
            previous = info.turn
    return tuple(starts) or (0,)


_END_TURN = EndTurn()
_END_TURN_DATA = {"act": "end"}


def _parsed_step(raw: Any, number: int, turn: int) -> tuple[Intent | OptionChange, str]:
    """A step map of a save as (intent or option change, recorded hash); malformed
    content raises ReplayIntegrityError naming the step."""
    def bad(message: str) -> ReplayIntegrityError:
        return ReplayIntegrityError(number, turn, f"invalid content: {message}")

    if not isinstance(raw, dict):
        raise bad("a step must be a map")
    keys = tuple(sorted(raw))
    if keys not in (("hash", "intent"), ("hash", "options")):
        raise bad(f"a step must have exactly the keys hash and intent (or hash and "
                  f"options) (got {', '.join(keys) or 'none'})")
    recorded = raw["hash"]
    if not isinstance(recorded, str):
        raise bad("hash must be text")
    if raw.get("intent") == _END_TURN_DATA:  # a fifth of all steps: read at once
        return _END_TURN, recorded
    try:
        if "options" in raw:
            return OptionChange(options_from_dict(raw["options"])), recorded
        return intent_from_dict(raw["intent"]), recorded
    except FormatError as exc:
        raise bad(str(exc)) from None


def _cell(cell: int) -> str:
    return board.describe_cell(cell)


def _article(article: ArticleKind) -> str:
    """``rocket launcher``, ``anti stealth``: as a player says it."""
    return article.value.replace("_", " ")


def describe_step(side: Side, turn: int | None, intent: Intent | OptionChange,
                  position: Position | None = None) -> str:
    """One plain-language line for a step, uncensored: "Black Tank (4,3) ground ->
    (6,3) ground", "White Rocket Pawn (2,1) ground fires rocket launcher at (5,1)
    ground". ``position``, the one it was played on, names the acting piece where the
    intent leaves its kind out; ``turn`` None: the turn is not named."""
    who = side.title

    def actor(cell: int, kind: PieceKind | None) -> str:
        if kind is None and position is not None:
            kind = next((p.kind for p in position.pieces
                         if p.side is side and p.cell == cell), None)
        return f"{who} {describe_kind(kind)}" if kind else who

    if isinstance(intent, Move):
        carry = " carrying its passenger" if intent.carry else ""
        return f"{actor(intent.frm, intent.kind)} {_cell(intent.frm)} -> " \
               f"{_cell(intent.to)}{carry}"
    if isinstance(intent, Fire):
        return (f"{actor(intent.frm, intent.kind)} {_cell(intent.frm)} fires "
                f"{_article(intent.weapon)} {_aim(intent)}")
    if isinstance(intent, PickUp):
        return f"{actor(intent.at, intent.kind)} picks up {_article(intent.article)} at " \
               f"{_cell(intent.at)}"
    if isinstance(intent, Drop):
        return f"{actor(intent.frm, intent.kind)} drops {_article(intent.article)} at " \
               f"{_cell(intent.frm)}"
    if isinstance(intent, Exchange):
        back = f" for {_article(intent.take)}" if intent.take else ""
        return (f"{actor(intent.frm, intent.kind)} passes {_article(intent.give)}{back} "
                f"from {_cell(intent.frm)} to {_cell(intent.to)}")
    if isinstance(intent, Reinforce):
        return (f"{who} brings in a {describe_kind(intent.kind)} at "
                f"{board.describe_square(intent.sq)}")
    if isinstance(intent, Doze):
        pushed = ", ".join(board.describe_square(sq) for sq in intent.squares) or "nothing"
        dozer = "an unseen square" if intent.sq == UNSEEN_SQUARE \
            else board.describe_square(intent.sq)
        return (f"{who} Dozer at {dozer} dozes {pushed} "
                f"{board.describe_direction(intent.dir)}")
    if isinstance(intent, OptionChange):
        if intent.options.competitive:  # R14.3: no option change once competitive
            return f"{who} switches the game to competitive mode (R14.3)"
        return f"{who} changes the options (R14.2)"
    if isinstance(intent, EndTurn):
        return f"{who} ends turn {turn}" if turn is not None else f"{who} ends the turn"
    return f"{who}: {intent.describe()}"


def _aim(fire: Fire) -> str:
    if fire.dir is not None:
        return board.describe_direction(fire.dir)
    if fire.target is not None:
        return f"at {_cell(fire.target)}"
    return f"to {board.describe_square(fire.dest or 0)} ({fire.path})"


# ---------------------------------------------------------------- notation files

def notation_file_text(replay: Replay, perspective: Side | None = None) -> str:
    """A notation file of the replay's game (docs/notation.md, "Notation files"): the
    start (``[Start "standard"]`` with ``[Options ...]``, the options that are not the
    defaults, if any; or the start position's data in engine order), then one R16 turn
    per line. ``perspective`` writes that side's censored copy, tagged ``[View ...]``
    (R14.3: it cannot rebuild the game).
    A game with an option change cannot be written: R16 has no code for one (R14.2)."""
    changed = next((info for info in replay.steps if isinstance(info.intent, OptionChange)),
                   None)
    if changed is not None:
        raise MatchError("R16", f"step {changed.number} (turn {changed.turn}) changes the "
                                "options (R14.2) and the notation has no code for that, so a "
                                "notation file cannot rebuild this game")
    turns = replay.turn_notation(perspective)
    start = replay.start
    tags: list[tuple[str, object]] = []
    if snapshot_data(start) == snapshot_data(standard_position(start.options)):
        tags.append(("Start", "standard"))
        if start.options != Options():
            defaults = options_to_dict(Options())
            tags.append(("Options", {name: value for name, value
                                     in options_to_dict(start.options).items()
                                     if defaults.get(name) != value}))
    else:
        tags.append(("Start", position_in_engine_order(start)))
    if perspective is not None:
        tags.append(("View", perspective.value))
    return format_notation_file(turns, tags)


def match_from_notation(text: str) -> Match:
    """The game a notation file describes, rebuilt by the rules: each turn's actions in
    the order that is legal and writes the line back (engine.notation.replay_steps),
    played through ``Match.play``. NotationError names the line or turn at fault; a
    censored copy is refused (R14.3)."""
    found = parse_notation_file(text)
    view = found.tag("View")
    if view is not None:
        raise NotationError(f"R14.3: this is {view}'s censored copy: the pieces hidden from "
                            "that side are missing, so it cannot rebuild the game")
    start = _notation_start(found)
    match = Match.begin(start)
    for before, intent, outcome in replay_steps(start, found.turns):
        turn = before.turn
        match = match.play(intent)
        if match.current_hash != state_hash(outcome.position):
            raise NotationError(f"turn {turn - start.turn + 1} (T={turn}): the engine's "
                                f"intent {intent.describe()!r} cannot name the piece the "
                                "notation moved (docs/notation.md, Limits)")
    return match


def _notation_start(found: NotationFile) -> Position:
    start = found.tag("Start")
    options = found.tag("Options")
    try:
        if start is None or start == "standard":
            return standard_position(options_from_dict(options if options is not None else {}))
        if options is not None:
            raise NotationError("[Options ...] goes with [Start \"standard\"]; a start "
                                "position carries its own options")
        if not isinstance(start, dict):
            raise NotationError(f"[Start ...] must be \"standard\" or a position object "
                                f"(got {start!r})")
        position = position_from_dict(start)
    except FormatError as exc:
        raise NotationError(f"start: {exc}") from None
    if position.viewer is not None:
        raise NotationError(f"start: a game starts from the full state, not "
                            f"{position.viewer.title}'s view")
    return position
