"""The end-of-game audit of a fog-of-war game (issue 21).

When a game ends (any way), each side reveals its seed, its start half state and all
its intents (``FogGame.reveal``). Each side then replays the whole game on the full
state, which it can now build: ``engine.half.merged`` of its own start half state and
the peer's revealed one. Per action, in order, it checks:

1. the peer's revealed start is the one its commitment of the first turn binds, and the
   two starts fit together (``merged``; each half is the projection of the merged full
   state, so neither side hid or invented a piece at the start);
2. the peer's intent is legal on the full state (``engine.game.apply``; an illegal
   hidden Move is caught here) and its public form is the one the rules give
   (net.fog_codec ``public_form``: an actor we see whatever our detectors went whole,
   any other disguised);
3. every answer the peer gave our resolution is the one the true position gives: our
   resolution is re-run in process against the peer's half referee on the truth
   (``engine.half_resolution.resolve``), and the answers compared one by one (a denied
   hit, a false first hit, a false detection all show here); a first-hit PSI's result is
   compared in the clear (net.psi ``check_first_hit_answer``: no cryptography);
4. every question the peer asked us is the one its true resolution asks (it probed no
   other cell): its resolution is re-run in process and its questions compared; a PSI
   query is recomputed from its revealed secret and true route
   (net.psi ``check_first_hit_query``), the ``took`` notice compared with the true hit;
   a Doze judgement's query recomputed from its revealed secret and true Ground summary,
   its ``judged`` verdict compared with the Doze judged on the truth (net.doze_judge);
5. every detection run (R9.3-R9.7, net.private_sight): what the peer's tables told our
   owner side, unmasked by its revealed seed, is its true Sight's bits at our slots, and
   its input query its masks' (a peer that claims reach or locks it does not have is
   shown our hidden pieces); in its hidden Exchange the reach it told unmasked is its
   true Sight's; the queries its owner side asked us are the ones its revealed seed and
   its true slots make (it probed no other square); checked before our outcome, which
   such a lie leaves unchanged;
6. the peer's public state hash after every action, and its commitment at every turn
   (net.commitment: the root of its true pieces with its revealed seed's salts).

The verdict (``AuditVerdict``) is clean, or the first inconsistency: turn, action, the
side at fault, and the indices in our evidence record of the signed messages that prove
it (each message can be checked by a third party with both public keys:
net.evidence ``verify_record``). ``report()`` is JSON. With a clean verdict, ``start`` and
``history`` are the audited full game: the full start position and every intent in
order, a match both players can replay (engine.match).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from wec.engine.board import GROUND
from wec.engine.censor import events_for
from wec.engine.errors import FormatError, IllegalIntent
from wec.engine.game import apply
from wec.engine.half import merged
from wec.engine.half_referee import HalfReferee, OwnerConversation
from wec.engine.half_resolution import resolve
from wec.engine.intents import Doze, EndTurn, Fire, Intent
from wec.engine.knowledge import project
from wec.engine.outcome import Outcome
from wec.engine.pieces import Side
from wec.engine.position import Position
from wec.engine.questions import Asker, DozeQuestion, WeaponStep
from wec.engine.sides import doze_squares, side_ground_summary
from wec.engine.transit_schedule import (
    Travel,
    bound_after,
    step_due,
    travels_after,
    travels_at_start,
)
from wec.net import fog_codec as codec
from wec.net import ot
from wec.net import private_sight as ps
from wec.net.commitment import commitment_root
from wec.net.doze_judge import (
    NO_DOZE,
    DozeJudgeError,
    asker_values,
    foiled_in_clear,
    hidden_values,
)
from wec.net.psi import FirstHitQuery, PsiError, check_first_hit_query, run_secret
from wec.net.sight_places import PrivateSightError

# each side's transport schedule (engine.transit_schedule), as the audit replays them
Travels = dict[Side, tuple[Travel, ...]]

# The game, its action logs and messages are net.fog_game's (FogGame, ActionLog,
# FogMessage); typed Any here so that this module does not import it (fog_game calls
# the audit: no cycle).
FogGame = Any
ActionLog = Any
FogMessage = Any


@dataclass(frozen=True)
class AuditVerdict:
    """The end-of-game audit (net.audit): ``clean``, or the first inconsistency with the
    turn, the action and the evidence indices (``proof``) of the signed messages that
    prove it; ``history``: the audited intents on the full ``start`` position (a
    replayable match), empty when the audit could not replay."""

    clean: bool
    reason: str = ""
    turn: int | None = None
    action: int | None = None
    culprit: str | None = None
    proof: tuple[int, ...] = ()
    start: Position | None = None
    history: tuple[Intent, ...] = ()
    messages: tuple[dict[str, Any], ...] = ()

    def report(self) -> dict[str, Any]:
        """JSON-ready report."""
        return {"verdict": "audited: clean" if self.clean else "audited: inconsistency",
                "reason": self.reason, "turn": self.turn, "action": self.action,
                "culprit": self.culprit, "proof": list(self.proof),
                "actions": len(self.history), "messages": list(self.messages)}


class _Inconsistent(Exception):
    def __init__(self, reason: str, culprit: Side | None, proof: Sequence[int] = ()) -> None:
        super().__init__(reason)
        self.reason, self.culprit, self.proof = reason, culprit, tuple(p for p in proof if p >= 0)


def unrevealed(game: FogGame) -> AuditVerdict:
    """The peer did not reveal at the end: it is at fault (nothing can be replayed)."""
    return AuditVerdict(False, "the peer did not reveal its seed, start and intents at the "
                        "end of the game (issue 21: a side that refuses the audit)",
                        game.half.turn, len(game.actions), game.side.other.value,
                        (len(game.log) - 1,))


def audit_game(game: FogGame, reveal: FogMessage, peer_stopped: bool = False
               ) -> AuditVerdict:
    """The audit of ``game`` with the peer's ``reveal`` (see the module docstring).
    ``peer_stopped``: the reveal came while our game went on. When nothing in the record
    is wrong and we met no fault, the peer stopped a game that could go on: the verdict
    names it (a program that reveals to end a game it is losing gets no clean audit)."""
    me, peer = game.side, game.side.other
    turn: int | None = game.start.turn  # a fault in the start is the first turn's
    n: int | None = None
    try:
        proof = _reveal_index(game, reveal)
        seed, start, intents = _read_reveal(reveal, peer, proof)
        full = _start(game, start, seed, proof)
        begin = full
        history: list[Intent] = []
        # each side's transport schedule on the truth (engine.transit_schedule)
        travels = {side: travels_at_start(full, side) for side in Side}
        # each side's bound of the other's schedule (engine.transit_schedule
        # ``bound_after``), as the game began (none in a start position, R14.4(b))
        bounds = dict(game.start_bounds)
        for act in game.actions:
            turn, n = full.turn, act.n
            if act.outcome is None or act.peer_hash is None:
                # the game stopped in this action: the answers so far are checked
                _action(game, act, full, intents.get(act.n, act.intent), seed, proof,
                        travels, bounds, partial=True)
                if game.fault is None:
                    raise _stopped(game, act)
                break
            intent = act.intent if act.actor is me else intents.get(act.n)
            if intent is None:
                raise _Inconsistent(f"the peer revealed no intent for action {act.n}", peer,
                                    (proof,))
            before = full
            full = _action(game, act, full, intent, seed, proof, travels, bounds)
            travels = {side: travels_after(travels[side], before, intent, side, act.hidden,
                                           full) for side in Side}
            history.append(intent)
        if game.fault is not None and not game.fault.ours:
            raise _Inconsistent(f"caught during the game: {game.fault.reason}", peer,
                                game.fault.proof)
        if peer_stopped and game.fault is None:
            raise _Inconsistent(f"the peer stopped the game in turn {full.turn}: its reveal "
                                "came while the game went on here, and nothing in the "
                                "record stopped it", peer, (proof,))
    except _Inconsistent as exc:
        record = game.log.record()
        messages = tuple({"index": i, "sender": record.entries[i][0].sender,
                          "entry": record.entries[i][0].to_bytes().hex(),
                          "message": record.entries[i][1].hex()}
                         for i in exc.proof if 0 <= i < len(record.entries))
        return AuditVerdict(False, exc.reason, turn, n,
                            exc.culprit.value if exc.culprit else None, exc.proof,
                            messages=messages)
    return AuditVerdict(True, "audited: clean", full.turn, len(history), None, (), begin,
                        tuple(history))


def _stopped(game: FogGame, act: ActionLog) -> _Inconsistent:
    """The game ended inside action ``act``: when we had answered every question of the
    peer's, the next message was the peer's and it never came (a stalled exchange,
    claimed on time: net.game_clock ``protocol``); the proof is our last message."""
    if len(act.answered) < len(act.theirs):
        return _Inconsistent(f"the game stopped in action {act.n} before it finished (a "
                             "side stopped answering)", None)
    me = game.side.value
    entries = game.log.record().entries
    ours = [i for i, (entry, _) in enumerate(entries) if entry.sender == me]
    return _Inconsistent(f"the peer stopped answering in action {act.n}: every question "
                         "of its was answered, and its next message never came", game.side.other,
                         ours[-1:])


def _reveal_index(game: FogGame, reveal: FogMessage) -> int:
    """The reveal's index in our evidence record (received now if it was not yet)."""
    signed = reveal.signed()
    peer = game.side.other.value
    for index, (entry, message) in enumerate(game.log.record().entries):
        if entry.sender == peer and message == signed:
            return index
    before = game.fault
    game.receive(reveal)
    if game.fault is not before or reveal.kind != "reveal":
        raise _Inconsistent("the peer's reveal is not a signed reveal message in sequence",
                            game.side.other)
    return len(game.log) - 1


def _read_reveal(reveal: FogMessage, peer: Side, proof: int
                 ) -> tuple[bytes, Position, dict[int, Intent]]:
    try:
        payload = codec.unpack(reveal.body)
        seed = payload["seed"]
        start = codec.position_from_wire(codec.unpack(payload["start"]))
        intents = {int(n): codec.from_wire(i) for n, i in payload["intents"]}
    except (codec.WireError, KeyError, TypeError, ValueError) as exc:
        raise _Inconsistent(f"the peer's reveal does not decode ({exc})", peer, (proof,)) \
            from None
    if not isinstance(seed, bytes) or len(seed) != 32 or start.viewer is not peer:
        raise _Inconsistent("the peer's reveal has no seed or not its own start", peer, (proof,))
    return seed, start, intents


def _start(game: FogGame, theirs: Position, seed: bytes, proof: int) -> Position:
    """The full start, checked against both halves and the peer's first commitment."""
    me, peer = game.side, game.side.other
    halves = {me: game.start, peer: theirs}
    try:
        full = merged(halves[Side.BLACK], halves[Side.WHITE])
    except FormatError as exc:
        raise _Inconsistent(f"the peer's revealed start does not fit ours: {exc}", peer,
                            (proof,)) from None
    _check_commit(game, peer, full, seed, proof)
    if _view(project(full, me)) != _view(game.start):
        raise _Inconsistent("the peer's revealed start does not give our start half state: it "
                            "hid or showed pieces other than the rules do (R9)", peer, (proof,))
    if _view(project(full, peer)) != _view(theirs):
        raise _Inconsistent("the peer's revealed start half state is not its part of the "
                            "full start", peer, (proof,))
    return full


def _view(half: Position) -> Any:
    return (half.turn, tuple(sorted(half.pieces, key=lambda p: p.pid)), half.ground_articles,
            half.projectiles, half.result)


def _check_commit(game: FogGame, side: Side, full: Position, seed: bytes, proof: int) -> None:
    signed = game.signed.get((side, full.turn))
    where = game.signed_proof.get((side, full.turn), -1)
    if signed is None:
        raise _Inconsistent(f"no {side.value} commitment for turn {full.turn}", side, (proof,))
    root = commitment_root(seed, full.turn, codec.own_contents(full.pieces, side))
    if root != signed.root:
        raise _Inconsistent(f"turn {full.turn}: the {side.value} commitment does not match the "
                            "replayed pieces and the revealed seed (a hidden piece changed "
                            "between commitments, or moved other than its intents say)", side,
                            (where, proof))


class _Truth:
    """The other side's half referee on the truth, conversing about the real intent
    (the resolving side may hold only the intent's public form)."""

    def __init__(self, half: Position, intent: Intent, travels: Travels,
                 record: list[Any] | None = None, squares: list[list[int]] | None = None
                 ) -> None:
        self.half, self.intent, self.record, self.squares = half, intent, record, squares
        assert half.viewer is not None
        self.travels = travels[half.viewer]  # the owner's transport schedule

    def converse(self, intent: object, asker: Asker) -> Any:
        conv = HalfReferee(self.half, self.travels).converse(self.intent, asker)
        if self.squares is not None:
            return _SquaresAtDetect(conv, self.squares)
        return conv if self.record is None else _Recorder(conv, self.record)


class _SquaresAtDetect:
    """Notes the owner's slots at each ``detect`` it answers (what an honest owner's
    detection queries ask about: net.fog_game)."""

    def __init__(self, conv: OwnerConversation, found: list[Any]) -> None:
        self.conv, self.found = conv, found

    def __getattr__(self, name: str) -> Any:
        method = getattr(self.conv, name)
        if name != "detect":
            return method

        def detect(*args: Any) -> Any:
            self.found.append(self.conv.detection_slots())
            return method(*args)
        return detect


class _Recorder:
    """Records every call of a resolution to its conversation, in wire form."""

    def __init__(self, conv: OwnerConversation, record: list[Any]) -> None:
        self.conv, self.record = conv, record

    def __getattr__(self, name: str) -> Any:
        method = getattr(self.conv, name)

        def call(*args: Any) -> Any:
            self.record.append([name, *codec.to_wire(tuple(
                tuple(a) if isinstance(a, list) else a for a in args))])
            return method(*args)
        return call


def _action(game: FogGame, act: ActionLog, full: Position, intent: Intent, seed: bytes,
            proof: int, travels: Travels, bounds: Travels, partial: bool = False
            ) -> Position:
    me, peer = game.side, game.side.other
    actor = act.actor
    if actor is peer:
        form, hidden = codec.public_form(intent, project(full, peer))
        if (form, hidden) != (act.form, act.hidden):
            raise _Inconsistent(f"action {act.n}: the peer sent {act.form} for its intent "
                                f"{intent} (its public form is {form})", peer,
                                (act.intent_proof, proof))
    try:
        after = apply(full, intent)
    except IllegalIntent as exc:
        raise _Inconsistent(f"action {act.n}: the {actor.value} intent {intent} is illegal on "
                            f"the full state ({exc})", actor, (act.intent_proof, proof)) \
            from None
    halves = {side: project(full, side) for side in Side}
    mine_form = act.intent if actor is me else act.form
    theirs_form = act.form if actor is me else intent
    if not partial:
        # the peer's resolution on the truth: every question it asked us; the reach runs
        # first (a false reach changes what our owner side showed, not our outcome)
        record: list[Any] = []
        resolve(halves[peer], theirs_form, _Truth(halves[me], intent, travels, record),
                travels[peer], step_due(bounds[peer]))
        _check_sight_told(game, act, record, seed)
        # its private runs next: a probe there leaves its pieces where the rules do not
        # put them (a hidden Doze made on a false verdict), which the reach would show
        _check_runs(game, act, record, halves, seed, proof)
        # our resolution on the truth, with the peer's squares at each of our detections
        at_detect: list[Any] = []
        ours_true = resolve(halves[me], mine_form, _Truth(halves[peer], intent, travels,
                                                          squares=at_detect), travels[me],
                            step_due(bounds[me])) \
            if act.their_reach or act.their_backs else None
        _check_reach_asked(game, act, at_detect, seed, lambda: _check_answers(
            act, halves, mine_form, intent, travels, bounds, False))
    # our resolution: every answer the peer gave. Our half state and events after the
    # action are the replay's exactly when every answer that mattered was true; only
    # then is our resolution re-run, to name the first false answer
    if partial or not _same_outcome(act, after, me):
        _check_answers(act, halves, mine_form, intent, travels, bounds, partial)
        if partial:
            return full
        raise _Inconsistent(f"action {act.n}: our half state differs from the replay", None,
                            (proof,))
    backs = [q for q, _ in act.their_backs]
    if backs:  # what the peer asked back must be what its rules ask (R1.6 presence)
        assert ours_true is not None
        want = _presence_asked_back(ours_true.questions, record)
        for k, (q, where) in enumerate(act.their_backs):
            # ["presence_ot", query, j]: the query must be the one for the cell its
            # rules ask
            if k >= len(want) or _presence_problem(
                    game, act, True, q[2], tuple(want[k]), seed, q[1]):
                raise _Inconsistent(f"action {act.n}: the peer asked back about cells its "
                                    "rules do not need (R1.6 presence)", peer, (where,))
    # the peer's resolution: every question it asked us
    for k, q in enumerate(record):
        if q[0] == "detect":  # as it travels (net.private_sight)
            record[k] = _detect_sent(act, codec.from_wire(q[1]), peer)
        elif q[0] == "weapon":  # a Stunner's line goes by transfer (R6.6.1)
            record[k] = _weapon_sent(game, act, k, q, seed)
    if actor is me:
        for k, q in enumerate(record):
            if q[0] == "doze":
                record[k] = ["doze", codec.to_wire(replace(codec.from_wire(q[1]),
                                                           asker_ground=()))]
    _check_questions(game, act, record, halves, seed, proof)
    # the peer's public state hash after every action was compared with ours as the
    # game went (a mismatch stops the game: FogGame Fault); ours is the replay's
    if after.position.turn != full.turn:
        _check_commit(game, peer, after.position, seed, proof)
    if isinstance(intent, EndTurn | Fire | Doze) or act.hidden:  # else they stay
        for side in Side:  # each side's bound of the other's schedule, as it keeps it
            bounds[side] = bound_after(bounds[side], halves[side], act.form, side.other,
                                       act.hidden, events_for(side, after))
    return after.position


def _presence_asked_back(ours: Sequence[Any], record: Sequence[Any]) -> list[Any]:
    """The cells of each presence question the peer's owner side asks back in our
    resolution on the truth (R1.6), in order, less those its own resolution implies
    (since ``wec-fog/25``, net.fog_game ``_implied_presence``): a question of the same
    rank in ``record``, its resolution's questions to us, about the same cells."""
    own = [q for q in record if q[0] == "presence"]
    asked = [q for name, q, _ in ours if name == "asked back: presence"]
    return [cells for rank, cells in enumerate(asked)
            if rank >= len(own) or own[rank] != ["presence", codec.to_wire(tuple(cells))]]


def _detect_sent(act: ActionLog, sight: Any, peer: Side) -> list[Any]:
    """The peer's detect question as an honest peer sends its true ``sight``: its
    acquiring holders' squares alone, none in its Exchange we do not see (its sight is
    evaluated privately: what its tables told is checked by ``_check_sight_told``)."""
    hidden = ps.holders_hidden(act.form, act.hidden, act.actor, peer)
    return ["detect", codec.to_wire(ps.question_sight(sight, hidden))]


def _check_sight_told(game: FogGame, act: ActionLog, record: list[Any], seed: bytes) -> None:
    """What the peer's tables told our owner side at each of its detect questions
    (net.private_sight: masked, we read nothing of it during the game) must be its true
    Sight's: its reach at our slots' squares, its locks on them, whether it saw them and
    marks them, and in its Exchange we do not see its holders' distances to them
    (R9.4(b)). Its revealed seed unmasks what we read; its input queries must be its
    masks' (another choice would flip its bits inside the evaluation). A peer that
    claimed more would have been shown our hidden pieces."""
    peer = game.side.other
    pairs = None
    hidden = ps.holders_hidden(act.form, act.hidden, act.actor, peer)
    for k, read in sorted(act.sight_read.items()):
        if k >= len(record) or record[k][0] != "detect":
            continue  # a detect its resolution does not ask: _check_questions names it
        sight = codec.from_wire(record[k][1])
        run_id = codec.reach_run_id(game.game_id, act.n, game.side, read.j)
        claimed = ps.claimed_bits(read.masked, seed, run_id, hidden)
        truth = ps.asker_bits(sight, read.placed, hidden)
        if claimed != truth:
            wrong = sorted({slot.pid for slot, a, b in zip(read.placed, claimed, truth,
                                                            strict=True)
                            if slot is not None and a != b})
            what = ("reach, locks, sight or holders' distances" if hidden
                    else "reach, locks or sight")
            raise _Inconsistent(f"action {act.n}: the peer's detector {what} told at our "
                                f"pieces {wrong[:12]} were false (R9.3-R9.7, R9.4(b), R9.4(c), "
                                "R9.10: its tables claimed what its true Sight does not have)",
                                peer, (read.proof,))
        if pairs is None:
            pairs = ot.seed_pairs(seed, game.game_id)
        if ps.input_query(seed, run_id, pairs) != read.input_query or (
                hidden and ps.input_query(seed, run_id, pairs, True) != read.distance_query):
            raise _Inconsistent(f"action {act.n}: the peer's input query for our detection "
                                "is not its masks' (R9.3-R9.7: it chose other bits for the "
                                "evaluation than its tables told)", peer, (read.proof,))


def _check_reach_asked(game: FogGame, act: ActionLog, at_detect: list[Any],
                       seed: bytes, answers_checked: Callable[[], None]) -> None:
    """Each detection run the peer's owner side asked us (sent ahead, or ``back``
    ``reach``) must ask about its slots as they stood at our detection: its revealed seed
    and true pieces remake both queries (by hashing only). Where our tables come masked
    (net.private_sight) a query about other squares or pieces reads nothing but masks,
    yet it is not the protocol.
    ``at_detect``: the peer's slots at each of our detections, from our resolution on
    the truth. A run for a detect our resolution on the truth does not ask follows from
    a false answer of the peer's (a Fire's firer not named, ``wec-fog/26``): that
    answer, the first lie, is named (``answers_checked``)."""
    if not act.their_reach:
        return
    peer = game.side.other
    bases = ps.Bases(ot.seed_pairs(seed, game.game_id), 0, ())
    for j, asked in sorted(act.their_reach.items()):
        number = sum(1 for q in act.mine.questions[:asked.question] if q[0] == "detect")
        if number >= len(at_detect):
            answers_checked()
        try:
            honest = None if number >= len(at_detect) else list(ps.OwnerRun(
                seed, codec.reach_run_id(game.game_id, act.n, peer, j), bases,
                at_detect[number], act.start.options).queries())
        except PrivateSightError:  # more slots than a run holds
            honest = None
        if honest is None or honest != list(asked.query):
            raise _Inconsistent(f"action {act.n}: the peer's reach query is not made of the "
                                "squares of its pieces (R9.3(b), R9.6: it probed where our "
                                "detectors reach, or its pieces are not where the rules put "
                                "them)", peer, (asked.proof,))


def _same_outcome(act: ActionLog, after: Outcome, me: Side) -> bool:
    """Our half state and events after the action are the replay's."""
    assert act.outcome is not None
    ours = act.outcome
    return (_view(project(after.position, me)) == _view(ours.position)
            and ours.position.actions == project(after.position, me).actions
            and tuple(ours.events) == tuple(events_for(me, after)))


def _weapon_sent(game: FogGame, act: ActionLog, k: int, q: list[Any], seed: bytes
                 ) -> list[Any]:
    """The peer's weapon question ``k`` as an honest peer sends it: whole, but a
    Stunner's line, whose first piece of its goes by the label transfer its revealed seed
    makes at its true place (``stun_ot``: a query at another place probed our pieces)."""
    step = codec.from_wire(q[2])
    if not isinstance(step, WeaponStep) or step.kind != "stun":
        return q
    query = ot.label_query(ot.seed_pairs(seed, game.game_id), codec.stun_run_id(
        game.game_id, act.n, game.side.other, k), [step.limit], ot.STUN_LABELS)
    return ["stun_ot", q[1], codec.to_wire(replace(step, limit=0)), query]


def _check_answers(act: ActionLog, halves: dict[Side, Position], mine_form: Intent,
                   intent: Intent, travels: Travels, bounds: Travels, partial: bool) -> None:
    """Each answer the peer gave our resolution against the replay's (in order)."""
    me = act.start.viewer
    assert me is not None
    peer = me.other
    expected = resolve(halves[me], mine_form, _Truth(halves[peer], intent, travels),
                       travels[me], step_due(bounds[me]))
    got = [(q[0], a, p) for q, a, p in zip(act.mine.questions, act.mine.answers,
                                           act.mine.proof, strict=False)
           if q[0] not in ("new_turn", "receive")]
    want = [(name, answer) for name, _, answer in expected.questions
            if not name.startswith("asked back")]
    for k, (name, answer) in enumerate(want):
        if partial and k >= len(got):
            return  # the rest never came
        if k >= len(got) or got[k][0] != name or got[k][1] != answer:
            where = got[k][2] if k < len(got) else -1
            raise _Inconsistent(f"action {act.n}: the peer's answer to our {name} question "
                                f"was false (the truth gives {_short(answer)}, it said "
                                f"{_short(got[k][1]) if k < len(got) else 'nothing'})", peer,
                                (where,))


def _check_questions(game: FogGame, act: ActionLog, record: list[Any],
                     halves: dict[Side, Position], seed: bytes, proof: int) -> None:
    peer = game.side.other
    theirs = act.theirs
    for k, q in enumerate(theirs):
        where = act.theirs_proof[k] if k < len(act.theirs_proof) else -1
        if k >= len(record):
            raise _Inconsistent(f"action {act.n}: the peer asked a question its resolution "
                                f"does not ask ({q[0]})", peer, (where,))
        want = record[k]
        if q[0] in ("first_hit_psi", "doze_ot"):
            continue  # checked first (``_check_runs``)
        if q[0] == "presence_ot":
            if want[0] != "presence" or _presence_problem(game, act, False, k,
                                                          tuple(want[1]), seed, q[1]):
                raise _Inconsistent(f"action {act.n}: the peer's presence query is not the "
                                    f"one its resolution asks (R1.6: it probed another "
                                    f"cell)", peer, (where, proof))
        elif q != want:
            raise _Inconsistent(f"action {act.n}: the peer asked {q[0]} other than its true "
                                f"resolution asks ({want[0]}: it probed or lied)", peer,
                                (where,))
    if len(record) > len(theirs):
        raise _Inconsistent(f"action {act.n}: the peer skipped questions its resolution asks",
                            peer, (proof,))


def _check_runs(game: FogGame, act: ActionLog, record: list[Any],
                halves: dict[Side, Position], seed: bytes, proof: int) -> None:
    """Each private run the peer asked us: a first-hit run (a hidden Move's, R5.2.4, and
    the Doze transfer with it, R8.8.4) or a Doze judgement (``_check_doze``). Its
    queries must be the ones its revealed seed and true intent make (it probed no other
    cell or square), and its ``took`` notice the true first hit."""
    peer = game.side.other
    for k, q in enumerate(act.theirs):
        where = act.theirs_proof[k] if k < len(act.theirs_proof) else -1
        if q[0] == "doze_ot":
            if k >= len(record):
                raise _Inconsistent(f"action {act.n}: the peer asked a question its "
                                    f"resolution does not ask ({q[0]})", peer, (where,))
            _check_doze(game, act, k, q, record[k], halves[game.side], seed, (where, proof))
        if q[0] != "first_hit_psi":
            continue
        run = _hidden_run(record[k]) if k < len(record) else None
        if run is None:
            raise _Inconsistent(f"action {act.n}: the peer ran a first-hit PSI where its "
                                f"resolution asks "
                                f"{record[k][0] if k < len(record) else 'nothing'}", peer,
                                (where,))
        cells, values = run
        secret = run_secret(seed, codec.run_id(game.game_id, act.n, "asker", k))
        try:
            problem = check_first_hit_query(codec.FIRST_HIT_SHAPE, cells, secret,
                                            FirstHitQuery.from_bytes(q[2],
                                                                     codec.FIRST_HIT_SHAPE))
        except PsiError:
            problem = "the first-hit query does not decode"
        if problem is None and q[3] != ot.label_query(
                ot.seed_pairs(seed, game.game_id), codec.hidden_doze_run_id(
                    game.game_id, act.n, peer, k), values, ot.HIDDEN_DOZE_LABELS):
            problem = ("its Doze transfer's query is not the one its intent makes "
                       "(R8.8.4: it probed our Ground pieces)")
        if problem is not None:
            raise _Inconsistent(f"action {act.n}: {problem} (it asked about other cells)",
                                peer, (where, proof))
        truth = _true_hit(halves[game.side], cells)
        if act.took.get(k, -1) != truth:
            raise _Inconsistent(f"action {act.n}: the peer's took notice names cell "
                                f"{act.took.get(k)} where its route first hits "
                                f"{truth}", peer, (where,))


def _hidden_run(want: list[Any]) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """What a hidden Move's first-hit run asks, by the question the true resolution asks
    (net.fog_game ``_WireConversation``): a Move's route and no Doze; a hidden Dozer's
    own cell and its destinations (net.doze_judge ``hidden_values``). None: neither."""
    if want[0] == "first_hit":
        return tuple(want[2]), NO_DOZE
    if want[0] == "doze":
        question = codec.from_wire(want[1])
        if isinstance(question, DozeQuestion):
            intent = Doze(question.sq, question.squares, question.dir)
            try:
                return (question.sq * 3 + GROUND,), hidden_values(intent)
            except DozeJudgeError:
                return None
    return None


def _check_doze(game: FogGame, act: ActionLog, k: int, q: list[Any], want: list[Any],
                ours: Position, seed: bytes, where: tuple[int, ...]) -> None:
    """The peer's Doze judgement ``k`` (net.doze_judge): its query must be the one its
    revealed secret and true Ground summary make, and the verdict it told the one the
    truth gives (R8.8.4-5)."""
    peer = game.side.other
    true_question = codec.from_wire(want[1]) if want[0] == "doze" else None
    if not isinstance(true_question, DozeQuestion):
        raise _Inconsistent(f"action {act.n}: the peer judged a Doze where its resolution "
                            f"asks {want[0]}", peer, where)
    truth = Doze(true_question.sq, true_question.squares, true_question.dir)
    form = act.form  # checked against the true intent's public form (net.fog_codec)
    public = replace(true_question, asker_ground=())
    if isinstance(form, Doze):  # the squares left out asked apart
        public = replace(public, sq=form.sq, squares=form.squares, dir=form.dir)
    if codec.from_wire(q[1]) != public:
        raise _Inconsistent(f"action {act.n}: the peer's Doze judgement names another Doze "
                            "than its intent (R8.8)", peer, where)
    problem: str | None
    try:  # by oblivious transfer: the queries remade, hashing only
        pairs = ot.seed_pairs(seed, game.game_id)
        run = codec.doze_run_id(game.game_id, act.n, peer, k)
        values = asker_values(public, true_question.asker_ground, truth)
        hidden = ot.label_query(pairs, codec.hidden_doze_run_id(game.game_id, act.n, peer, k),
                                hidden_values(truth, Doze(public.sq, public.squares,
                                                          public.dir)),
                                ot.HIDDEN_DOZE_LABELS)
        problem = None if q[2] == ot.label_query(pairs, run, values) and len(q) == 4 \
            and q[3] == hidden else "another query"
    except (TypeError, ValueError, DozeJudgeError):
        problem = "the Doze query does not decode"
    if problem is not None:
        raise _Inconsistent(f"action {act.n}: the peer's Doze query is not the one its true "
                            f"Ground pieces make (R8.8.4: it misstated them)", peer, where)
    foiled = foiled_in_clear(true_question, true_question.asker_ground,
                             side_ground_summary(ours, game.side, doze_squares(truth)),
                             ours.options)
    if act.judged.get(k) is not foiled:
        raise _Inconsistent(f"action {act.n}: the peer told the Doze "
                            f"{'foiled' if act.judged.get(k) else 'made'} where the truth "
                            f"{'foils' if foiled else 'lets'} it (R8.8.4-5)", peer, where)


def _presence_problem(game: FogGame, act: ActionLog, back: bool, i: int,
                      cells: tuple[int, ...], seed: bytes, query: Any) -> str | None:
    """Why the peer's presence query ``i`` of ``act`` (``back``: asked back by its owner
    side) is not the one ``cells`` and its revealed ``seed`` make, or None (by oblivious
    transfer, net.ot: the query remade, hashing only)."""
    run = codec.presence_run_id(game.game_id, act.n, game.side.other, back, i)
    if len(cells) != 1 or query != ot.presence_query(ot.seed_pairs(seed, game.game_id),
                                                     run, cells[0]):
        return "the presence query is not the one for the cell asked"
    return None


def _true_hit(half: Position, cells: Sequence[int]) -> int | None:
    side = half.viewer
    held = {p.cell for p in half.pieces if p.side is side}
    return next((c for c in cells if c in held), None)


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 160 else text[:157] + "..."
