"""The half referee: one side answering the other side's questions about its pieces,
from its own half state alone.

A ``HalfReferee`` holds one side's half state (engine.knowledge: its own pieces, the
enemy pieces it sees, everything public); it never sees the other side's unseen
pieces, and it needs none of them: every question of engine.questions is about its
own pieces. For each intent the other side resolves, ``converse`` opens a
``OwnerConversation``: the owner's pieces as the intent goes (a ``SideWorking``,
engine.sides), to which the owner applies what the questions tell it happens to them
(the Flame reaching them, the Move taking them), in rule order. Where its own rules
need the asker's pieces (a landing on a cell the asker may hold, R7.3; the asker's
pieces on a Move's route when the owner is the one moving), it asks back through the
``Asker``. When the owner is the side acting, it resolves its own part of the intent
(engine.sides ``act``) as the conversation opens.

Each answer reveals what the rule's outcome reveals; the owner's part of the events
and of the public consequences comes with the end-of-step ``detect`` answer, censored
as engine.censor censors a full-state outcome: an event about the owner's pieces is
kept when the asker saw them at the start of the step and sees them (or they left
play) at its end.
"""

from __future__ import annotations

from collections.abc import Sequence

from wec.engine.budget import transited
from wec.engine.detection_parts import DetectionParts, Slot, assemble, slots_for
from wec.engine.half_resolution import firer_shown
from wec.engine.intents import Doze, EndTurn, Fire, Intent
from wec.engine.pieces import TRAITS, Side
from wec.engine.position import FRESH_TURN, ActionCounts, Piece, Position, Projectile
from wec.engine.questions import (
    ActAnswer,
    Asker,
    Detection,
    DozeQuestion,
    FirstHit,
    HomingAnswer,
    HomingQuery,
    PieceInfo,
    Sight,
    WeaponAnswer,
    WeaponStep,
)
from wec.engine.sides import (
    Acted,
    SideWorking,
    Summary,
    act,
    area_hits,
    collision_effects,
    collision_hits,
    convert_at,
    doze_squares,
    dozed_movers,
    ground_summary,
    homing_broken,
    homing_step,
    judge_doze,
    own_detection,
    shove,
    split_half,
    stun_first,
    transit_phase,
)
from wec.engine.transit_schedule import Travel
from wec.engine.visibility import (
    acquisitions,
    hiding_squares,
    seen_by,
    seen_whatever,
)


class HalfReferee:
    """Answers for the pieces of ``half.viewer``, from its half state ``half`` alone."""

    def __init__(self, half: Position, travels: Sequence[Travel] = ()) -> None:
        if half.viewer is None:
            raise ValueError("a HalfReferee answers from a half state (viewer set), never "
                             "from the full state")
        self.half = half
        self.travels = tuple(travels)  # its side's transport schedule

    @property
    def side(self) -> Side:
        assert self.half.viewer is not None
        return self.half.viewer

    def converse(self, intent: object, asker: Asker) -> OwnerConversation:
        """The owner's side of the other side's resolution of ``intent``."""
        if asker.side is self.side:
            raise ValueError(f"the half referee of {self.side.value} answers the other side, "
                             "not its own")
        return OwnerConversation(self.half, intent, asker, self.travels)


class OwnerConversation:
    """One intent's questions, answered by the owner of the pieces they are about."""

    def __init__(self, half: Position, intent: object, asker: Asker,
                 travels: Sequence[Travel] = ()) -> None:
        assert half.viewer is not None
        self.half = half
        self.travels = tuple(travels)  # the owner's transport schedule (its phase keeps to)
        self.side = half.viewer
        self.asker = asker
        self.options = half.options
        self._w: SideWorking | None = None  # made when first needed
        self._new_turn: int | None = None  # a new turn begun before _w was made
        self.acting = half.side_to_act is self.side
        self.actions: ActionCounts = half.actions if self.acting else FRESH_TURN
        self.projectiles_after: tuple[Projectile, ...] | None = None
        self.overcome: dict[int, tuple[Piece, object]] = {}
        # the step's pieces that entered (R10), came from the asker, went to the asker
        self.entered: set[int] = set()
        self.received: set[int] = set()
        self.gone_over: set[int] = set()
        self.acted: Acted | None = None
        # the owner's pieces the asker may not have seen at the step's start
        # (engine.detection_parts: the slots of the step's detection)
        self._start_unsure: Sequence[Piece] = [
            p for p in split_half(half)[0].values() if not seen_whatever(p, half.options)]
        if self.acting and not isinstance(intent, EndTurn):
            assert not isinstance(intent, EndTurn)
            self.acted = act(self.w, half, intent, asker.first_hit,  # type: ignore[arg-type]
                             self._judge_doze)
            self.actions = self.acted.actions
            if self.acted.entered is not None:
                self.entered.add(self.acted.entered.pid)

    @property
    def w(self) -> SideWorking:
        """The owner's pieces as the intent goes (made from its half state when first
        needed: a question about cells it does not hold changes nothing)."""
        w = self._w
        if w is None:
            half, side = self.half, self.side
            own, _, own_hits, _ = split_half(half)
            turn = self._new_turn
            w = self._w = SideWorking(side, own, half.locks,
                                      own_hits if turn is None else (),
                                      half.turn if turn is None else turn,
                                      half.options, self.asker.presence)
            w.start_from(half)
        return w

    def occupied(self) -> set[int] | frozenset[int]:
        """The cells holding the owner's pieces as the intent stands (what ``presence``
        answers from; the LAN's private presence run needs the whole set)."""
        if self._w is None:
            found = self.half.derived.own_cells.get(self.side)
            if found is None:
                side = self.side
                found = frozenset(p.sq * 3 + p.level for p in self.half.pieces
                                  if p.side is side)
                self.half.derived.mine("own_cells")[side] = found
            return found
        return {p.sq * 3 + p.level for p in self._w.pieces.values()}

    def squares(self) -> list[int]:
        """The squares holding the owner's pieces that can hide, as the intent stands, in
        order (engine.visibility ``hiding_squares``: where the LAN's private detection
        asks the asker's reach, R9.3(b), R9.6)."""
        pieces = self._w.pieces.values() if self._w is not None else self.half.pieces
        return hiding_squares(pieces, self.side, self.options)

    def _judge_doze(self, intent: Doze, own: Summary) -> bool:
        """R8.8.4-5 for the owner's own Doze: the asker's Ground pieces summed up by it."""
        other = self.asker.ground(doze_squares(intent))
        return judge_doze(intent, self.side, self.options, self.side, own, other)

    # ------------------------------------------------------------ the questions

    def first_hit(self, op: int, cells: Sequence[int]) -> FirstHit | None:
        """R5.2.4: the first of ``cells`` holding the owner's pieces; they are taken."""
        occupied = self.occupied()
        first = next((i for i, c in enumerate(cells) if c in occupied), None)
        if first is None:
            return None
        cell = cells[first]
        here = [p for p in self.w.pieces.values() if p.sq * 3 + p.level == cell]
        for p in here:  # taken (R5.1.3): their locks end (R9.4(c))
            del self.w.pieces[p.pid]
            self.w._forget(p.pid)
        infos = sorted((PieceInfo.of(p) for p in here), key=PieceInfo.sort_key)
        return FirstHit(first, cell, tuple(infos))

    def presence(self, cells: Sequence[int]) -> frozenset[int]:
        """R1.6: which of ``cells`` hold the owner's pieces."""
        occupied = self.occupied()
        return frozenset(c for c in cells if c in occupied)

    def weapon(self, op: int, step: WeaponStep) -> WeaponAnswer:
        """R6.5, R6.6, R6.7, R6.12: the weapon's effect on the owner's pieces."""
        n = step.strength or (self.acted.strength if self.acted is not None else 0)
        if step.kind == "area":
            area_hits(self.w, op, step.weapon, n, step.cells)
            return WeaponAnswer()
        if step.kind == "stun":
            first = stun_first(self.w, op, n, step.cells, step.limit)
            if step.limit >= len(step.cells):
                return WeaponAnswer()  # the asker has no piece in range: nothing to tell
            return WeaponAnswer(blocked=first is not None and first < step.limit)
        joined = convert_at(self.w, op, n, step.cells[0], step.firer)
        self.gone_over.update(p.pid for p in joined)
        return WeaponAnswer(joined=tuple(joined),
                            hits=self.w.hits_of([p.pid for p in joined]))

    def stun_table(self, step: WeaponStep) -> tuple[bool, ...]:
        """R6.6.1 without the asker's first piece: for each index the asker's first piece
        on ``step``'s cells may have (``len(cells)``: none), whether the Stunner hits it
        (it comes before the owner's first). Nothing changes; ``stun_applied`` does,
        once the owner's side knows its own outcome (the LAN's private comparison,
        net.fog_game: neither side names its first piece to the other)."""
        cells = step.cells
        first = self.w.first_at(cells)
        mine = len(cells) if first is None else first
        return tuple(u < mine for u in range(len(cells) + 1))

    def stun_applied(self, op: int, step: WeaponStep, hit: bool) -> None:
        """R6.6.1: the Stunner's hits on the owner's first piece on ``step``'s cells when
        it comes first (``hit``: the owner's side learned it from its own question)."""
        if hit:
            n = step.strength or (self.acted.strength if self.acted is not None else 0)
            stun_first(self.w, op, n, step.cells, len(step.cells))

    def collide(self, op: int, projectiles: Sequence[Projectile]) -> frozenset[int]:
        """R6.8.5: the projectiles' cells holding the owner's pieces; they are hit."""
        occupied, overcome = collision_hits(self.w, op, projectiles)
        self.overcome = overcome  # type: ignore[assignment]
        self.w.doomed = set(overcome)
        return occupied

    def collision_effects(self, op: int, slot: int, cell: int) -> None:
        """R6.8.5: the hits that overcame at ``cell`` take effect."""
        collision_effects(self.w, op, slot, cell, self.overcome)  # type: ignore[arg-type]

    def homing(self, queries: Sequence[HomingQuery]) -> tuple[HomingAnswer, ...]:
        """R6.11.2, R6.11.3: homing projectiles aimed at the owner's pieces."""
        out = []
        for q in queries:
            target = self.w.pieces.get(q.target)
            if q.mode == "step":
                out.append(HomingAnswer(dir=homing_step(target, q.sq)))
            else:
                out.append(HomingAnswer(broken=homing_broken(target, q.level, q.owner)))
        return tuple(out)

    def doze(self, question: DozeQuestion) -> bool:
        """R8.8.4, R8.8.5: whether the Doze is foiled on the truth; if not, the owner's
        Ground pieces of the selected squares are shoved along (R8.8.2, O24)."""
        if self.acted is not None:
            return self.acted.foiled  # the owner's own Doze, judged as it opened
        intent = Doze(question.sq, question.squares, question.dir)
        return self.doze_judged(question, judge_doze(
            intent, question.dozer_side, self.options, self.side, self.doze_ground(intent),
            question.asker_ground))

    def doze_ground(self, intent: Doze) -> Summary:
        """The owner's Ground pieces at the squares ``intent`` reads (R8.8.4), as
        ``doze`` judges with them (a private two-party judgement needs them alone)."""
        return ground_summary(self.w, doze_squares(intent))

    def doze_judged(self, question: DozeQuestion, foiled: bool) -> bool:
        """The Doze judged elsewhere (the acting side learns the verdict of a private
        judgement, net.doze_judge, and tells it): the owner's Ground pieces of the
        selected squares are shoved along unless it was foiled."""
        if self.acted is not None:
            return self.acted.foiled
        if not foiled:
            intent = Doze(question.sq, question.squares, question.dir)
            shove(self.w, intent, dozed_movers(self.w, intent), question.dozer_side)
        return foiled

    def transport_phase(self, op: int, projectiles: Sequence[Projectile]) -> None:
        """R4.2(3), R8.4: the owner's pieces in transit advance (it is the side to act)."""
        moving = list(projectiles)
        if self._w is None and not any(t.steps > 0 for t in self.travels) \
                and not any(p.transit is not None for p in split_half(self.half)[0].values()):
            self.projectiles_after = tuple(moving)  # nothing of the owner's in transit
            return
        _, moved = transit_phase(self.w, op, moving, self.travels)
        for pid in moved:
            self.actions = transited(self.actions, pid)
        self.projectiles_after = tuple(moving)

    def act(self, need: str) -> ActAnswer:
        """The owner's acting piece, as the asker needs it: ``move`` (where it took the
        asker's pieces, R5.2.4), ``strength`` (R6.2, and a homing target, R6.11.1),
        ``drop`` (the dropped article's ready turn, R3.5)."""
        a = self.acted
        assert a is not None, "act: the owner does not act"
        if need == "move":
            if not a.taken:
                return ActAnswer()
            primary = any(TRAITS[i.kind].primary for i in a.taken)
            assert a.plan is not None
            return ActAnswer(stop=a.stop, taken=a.taken,
                             taker=a.plan.piece.kind if primary else None)
        if need == "strength":
            shown = (firer_shown(a.intent, a.plan.piece, self.options)
                     if isinstance(a.intent, Fire) and a.plan is not None else None)
            return ActAnswer(strength=a.strength, target=a.target, shown=shown)
        if need == "drop":
            return ActAnswer(ready=a.ready)
        raise ValueError(f"act: unknown need {need!r}")

    def new_turn(self, turn: int) -> None:
        """R4.2(1): a new turn (public): hits and action counts start afresh (noted for
        the owner's pieces if they are not needed yet)."""
        if self._w is None:
            self._new_turn = turn
        else:
            self._w.turn = turn
            self._w.hits = {}
        self.actions = FRESH_TURN

    def receive(self, pieces: Sequence[Piece],
                hits: Sequence[tuple[int, object, int]] = ()) -> None:
        """R6.7.2: the asker's pieces a Conversion made the owner's, with everything."""
        for p in pieces:
            self.w.add(p)
            self.received.add(p.pid)
        for pid, weapon, n in hits:
            self.w.hits[(pid, weapon)] = n  # type: ignore[index]

    # ------------------------------------------------------------ detection

    def _own_now(self) -> tuple[Sequence[Piece], dict[int, Piece], Sequence[Piece]]:
        """The owner's pieces now (all, by pid, those that can hide), reveals that ended
        cleared (D-36)."""
        w = self._w
        if w is None:  # the owner's pieces are those of its half state
            by_pid: dict[int, Piece] = split_half(self.half)[0]
            return tuple(by_pid.values()), by_pid, own_detection(self.half)[1]
        w.clear_reveals()  # D-36
        # the owner's pieces only (those converted away went away)
        return w.own(), w.pieces, w.hideable()

    def _locked(self, sight: Sight, by_pid: dict[int, Piece]) -> tuple[tuple[int, ...], set[int]]:
        """R9.4(c): the asker's locks (by index) that their target ended, and the targets
        of the others."""
        if not sight.locks:
            return (), set()
        options = self.options
        released = tuple(i for i, lk in enumerate(sight.locks)
                         if not options.stealth_lock_on or lk.target not in by_pid
                         or not by_pid[lk.target].is_stealthy(options))
        return released, {lk.target for i, lk in enumerate(sight.locks) if i not in released}

    def _candidates(self, own: Sequence[Piece], locked: set[int], sight: Sight) -> list[Piece]:
        """R9.4(b): the owner's stealthy pieces an acquiring instance may lock: hidden from
        the asker (its new holder's range detection applied first) and not locked."""
        options = self.options
        return [p for p in own if p.is_stealthy(options) and p.pid not in locked
                and not seen_by(p, options, locked, sight.stealth_reach, sight.sub_reach)]

    def _acquire(self, sight: Sight, own: Sequence[Piece], locked: set[int]
                 ) -> list[int | None]:
        """R9.4(b): the target of each acquiring instance of ``sight``, in order (each
        added to ``locked``)."""
        return acquisitions((sq for _, _, sq in sight.acquiring),
                            lambda taken: self._candidates(own, taken, sight), locked,
                            self.options.stealth_lock_on)

    def detect(self, sight: Sight) -> Detection:
        """R9.3-R9.7, R9.4, R9.10: what the asker sees of the owner's pieces now, with the
        owner's part of the step's events and public consequences (engine.detection_parts:
        the owner's parts, then the asker's bits read off its sight)."""
        return assemble(self.detection_parts(tuple(sq for _, _, sq in sight.acquiring)),
                        sight)

    def detection_slots(self) -> tuple[Slot, ...]:
        """The slots a ``detect`` asked now would have (engine.detection_parts), with
        nothing taken or changed: the LAN's private detection asks the asker's bits about
        them ahead of the question (nothing of the owner's changes before it)."""
        own, by_pid = self._own_peek()
        unsure = [p for p in own if not seen_whatever(p, self.options)]
        return slots_for(self._start_unsure, unsure, by_pid, self.options)

    def _own_peek(self) -> tuple[Sequence[Piece], dict[int, Piece]]:
        """``_own_now``'s pieces with nothing changed (D-36 settled on copies)."""
        w = self._w
        if w is None:
            by_pid: dict[int, Piece] = split_half(self.half)[0]
            return tuple(by_pid.values()), by_pid
        by_pid = {pid: _reveal_settled(p) for pid, p in w.pieces.items()}
        return [by_pid[p.pid] for p in w.own()], by_pid

    def detection_parts(self, acquiring: Sequence[int], take: bool = True) -> DetectionParts:
        """Everything the answer to ``detect`` needs but what the asker keeps to itself
        (engine.detection_parts), ``acquiring`` the squares of its acquiring holders; the
        step's log and notes are taken, as ``detect`` takes them. ``take`` False: the
        same parts with nothing taken or changed (what a detection asked now would
        have: the LAN's private detection garbles them before the question comes)."""
        options, w = self.options, self._w
        own, by_pid = self._own_now()[:2] if take else self._own_peek()
        unsure = [p for p in own if not seen_whatever(p, options)]
        slots = slots_for(self._start_unsure, unsure, by_pid, options)
        logged = (tuple(w.log.take()) if take else tuple(w.log.entries)) \
            if w is not None else ()
        orders = ({e.key: w.log.orders.pop(e.key) if take else w.log.orders[e.key]
                   for e in logged if e.key in w.log.orders}
                  if w is not None and w.log.orders else None)
        if w is not None:
            turn = w.turn
            hits = w.hits_of(by_pid) if w.hits else ()
        elif self._new_turn is not None:
            turn, hits = self._new_turn, ()
        else:
            turn = self.half.turn
            hits = tuple(h for h in split_half(self.half)[2] if h[0] in by_pid)
        to_act = Side.BLACK if turn % 2 == 1 else Side.WHITE
        parts = DetectionParts(self.side, tuple(own), slots, tuple(acquiring), logged,
                               frozenset(self.entered),
                               frozenset(self.received | self.gone_over), hits,
                               self.actions if to_act is self.side else None,
                               self.projectiles_after, options, orders)
        if not take:
            return parts
        self.entered, self.received, self.gone_over = set(), set(), set()
        self.projectiles_after = None
        self._start_unsure = unsure  # the next step's start
        return parts


class _AsksNothing:
    """The asker of an owner conversation made before any question: the intents it is
    made for ask nothing back (``acted_conversation``)."""

    def __init__(self, side: Side) -> None:
        self._side = side

    @property
    def side(self) -> Side:
        return self._side

    def presence(self, cells: Sequence[int]) -> frozenset[int]:
        raise AssertionError("an intent resolved before its first detect asks no presence")

    def first_hit(self, cells: Sequence[int]) -> FirstHit | None:
        raise AssertionError("an intent resolved before its first detect asks no first hit")

    def ground(self, squares: Sequence[int]) -> tuple[tuple[int, int, bool], ...]:
        raise AssertionError("an intent resolved before its first detect asks no ground")


def acted_conversation(half: Position, intent: Intent) -> OwnerConversation:
    """The acting side's owner conversation of ``intent`` (``half``: its state before
    it) as it stands when the other side's first question comes, for an intent whose
    other side asks ``detect`` first (engine.half_resolution ``detect_first``): made as
    the intent is played, its ``detection_slots`` and ``detection_parts`` are those of
    that detect (nothing of the acting side's changes before it)."""
    assert half.viewer is not None
    return OwnerConversation(half, intent, _AsksNothing(half.viewer.other))


def start_slots(half: Position) -> tuple[Slot, ...]:
    """The slots of the first ``detect`` of an action asked of ``half``'s side before
    anything of its changes (``OwnerConversation.detection_slots`` at its start)."""
    assert half.viewer is not None
    by_pid = split_half(half)[0]
    unsure = [p for p in by_pid.values() if not seen_whatever(p, half.options)]
    return slots_for(unsure, unsure, by_pid, half.options)


def _reveal_settled(piece: Piece) -> Piece:
    """``piece`` with a reveal that ended cleared (D-36: it changed square or level)."""
    revealed = piece.revealed
    if revealed is not None and revealed.cell != piece.sq * 3 + piece.level:
        return piece.but(revealed=None)
    return piece
