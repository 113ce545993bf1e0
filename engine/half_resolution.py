"""Resolving an intent on one side's half state, asking the other side about its pieces.

In a network game each machine holds only its side's half state (engine.knowledge:
its own pieces, the enemy pieces it sees, everything public, its own locks and
markers). Both machines resolve every intent, each on its own half state, with the
same code: ``resolve(half, intent, referee)``, where ``referee`` answers for the other
side's pieces from that side's half state alone (engine.half_referee; engine.questions
lists the closed set of questions). Each side is the authority on its own pieces: it
resolves what happens to them itself, and asks the other side what happens to the
other side's, in rule order; both sides reach the same public state
(``engine.encoding.public_state_hash``), each its own private part. See
docs/architecture.md, "Design note: half states and questions".

The steps (visibility is recomputed after each, R9.5, by the ``detect`` question, but
where no piece either side may not see changed and both sides know it: a projectile
phase that hit nothing, a quiet Fire, ``_Resolution._quiet_fire``):

* an action: the acting side's part (engine.sides ``act``: the Move and what it took,
  the firer, the article actions, the reinforcement, the Dozer's group), the weapon's
  effects (R6.5-R6.7, R6.12) and projectile launch (R6.8.2), then the settling that
  follows every action (R6.11.3 lock breaks, R6.8.5 collisions) and the game-end test
  (R12.2);
* the end of the turn (R4.2): the new turn's counters, the projectile phase (R6.8.4,
  R6.11.2, then collisions), the transport phase of the side to act (R8.4), each
  judged (R12.2).

The side that does not act is given the intent too (lockstep play); where it needs
what only the acting side knows of its own pieces (where a Move stopped, a Fire's
strength), it asks (``act``).
"""

from __future__ import annotations

from collections.abc import Sequence, Set
from dataclasses import replace
from operator import attrgetter

from wec.engine import board
from wec.engine.articles import ArticleTable
from wec.engine.board import GROUND
from wec.engine.censor import censored
from wec.engine.detection_parts import DetectionParts, assemble
from wec.engine.dozing import legal_dozes
from wec.engine.ending import game_end
from wec.engine.errors import IllegalIntent
from wec.engine.events import (
    ArticleDropped,
    Dozed,
    GameOver,
    HomingBroken,
    ProjectileLaunched,
    ProjectileRemoved,
    ProjectileStepped,
    TurnEnded,
)
from wec.engine.fire import PROJECTILE, TRANSPORTS, plan_fire
from wec.engine.intents import (
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
from wec.engine.knowledge import actions_seen, enemy_actions
from wec.engine.movement import has_legal_move
from wec.engine.options import Options
from wec.engine.outcome import EventLog, Outcome
from wec.engine.pieces import TRAITS, ArticleKind, PieceKind, Side, describe_kind
from wec.engine.position import (
    FRESH_TURN,
    ActionCounts,
    Lock,
    Marker,
    Piece,
    Position,
    Projectile,
    Result,
)
from wec.engine.questions import (
    ActAnswer,
    Conversation,
    Detection,
    DozeQuestion,
    Dropping,
    Entry,
    FirstHit,
    HomingQuery,
    JudgePoint,
    Loss,
    PieceInfo,
    Referee,
    Shown,
    Sight,
    WeaponStep,
)
from wec.engine.sides import (
    SideWorking,
    Summary,
    act,
    area_hits,
    arrivals,
    collision_effects,
    collision_hits,
    collision_slot,
    convert_at,
    doze_squares,
    dozed_movers,
    flame_cells,
    ground_summary,
    homing_broken,
    homing_step,
    planned,
    shove,
    split_half,
    stun_first,
    transit_phase,
)
from wec.engine.transit_schedule import Travel
from wec.engine.visibility import seen_whatever

A = ArticleKind
_PID = attrgetter("pid")
_KEY = attrgetter("key")

# The questions a resolution asks, with their answers, in order: (name, question, answer).
Transcript = list[tuple[str, object, object]]


def resolve(half: Position, intent: Intent, referee: Referee,
            travels: Sequence[Travel] = (), peer_due: bool = True) -> Outcome:
    """Resolve ``intent`` of the side to act on ``half`` (either side's half state),
    asking ``referee`` (the other side's, engine.half_referee) about the other side's
    pieces. The outcome's position is the side's half state afterwards, its events the
    side's own stream (R14.3) and ``questions`` the transcript of what it asked. The
    acting side checks the intent on what it knows (R4.13): IllegalIntent naming the
    rule. The side that does not act takes the intent as legal (its legality depends on
    pieces it cannot see; the acting side checked it). ``travels``: the side's transport
    schedule (engine.transit_schedule), which its transport phase keeps to.
    ``peer_due`` False: the other side has no transport step due at its next turn start,
    as both sides know (engine.transit_schedule ``bound_after``), so an End of this
    side's turn asks no transport phase, and its step changes no piece."""
    return _Resolution(half, intent, referee, travels, peer_due).run()


class _Back:
    """The resolving side answering what the other side asks back (engine.questions
    ``Asker``), from its own pieces as they stand in the resolution."""

    def __init__(self, resolution: _Resolution) -> None:
        self.resolution = resolution

    @property
    def side(self) -> Side:
        return self.resolution.side

    def _mine(self) -> list[Piece]:
        r = self.resolution
        return [p for p in r.w.pieces.values() if p.side is r.side]

    def occupied(self) -> frozenset[int]:
        """The cells holding the resolving side's pieces as they stand (what a presence
        question is answered from; a private run of it needs the whole set)."""
        return frozenset(p.sq * 3 + p.level for p in self._mine())

    def presence(self, cells: Sequence[int]) -> frozenset[int]:
        occupied = self.occupied()
        answer = frozenset(c for c in cells if c in occupied)
        self.resolution.transcript.append(("asked back: presence", tuple(cells), answer))
        return answer

    def first_hit(self, cells: Sequence[int]) -> FirstHit | None:
        mine = self._mine()
        occupied = {p.sq * 3 + p.level for p in mine}
        answer = None
        for i, c in enumerate(cells):
            if c in occupied:
                here = [p for p in mine if p.sq * 3 + p.level == c]
                infos = sorted((PieceInfo.of(p) for p in here), key=PieceInfo.sort_key)
                answer = FirstHit(i, c, tuple(infos))
                break
        self.resolution.transcript.append(("asked back: first_hit", tuple(cells), answer))
        return answer

    def ground(self, squares: Sequence[int]) -> Summary:
        answer = ground_summary(self.resolution.w, squares)
        self.resolution.transcript.append(("asked back: ground", tuple(squares), answer))
        return answer


class _Asking:
    """The other side's Conversation, each question and answer written down."""

    def __init__(self, conversation: Conversation, transcript: Transcript) -> None:
        self.c = conversation
        self.t = transcript

    def first_hit(self, op: int, cells: Sequence[int]) -> FirstHit | None:
        answer = self.c.first_hit(op, cells)
        self.t.append(("first_hit", tuple(cells), answer))
        return answer

    def presence(self, cells: Sequence[int]) -> frozenset[int]:
        answer = self.c.presence(cells)
        self.t.append(("presence", tuple(cells), answer))
        return answer

    def detect(self, sight: Sight) -> Detection:
        answer = self.c.detect(sight)
        self.t.append(("detect", sight, answer))
        return answer

    def weapon(self, op: int, step: WeaponStep) -> object:
        answer = self.c.weapon(op, step)
        self.t.append(("weapon", step, answer))
        return answer

    def collide(self, op: int, projectiles: Sequence[Projectile]) -> frozenset[int]:
        answer = self.c.collide(op, projectiles)
        self.t.append(("collide", tuple(projectiles), answer))
        return answer

    def collision_effects(self, op: int, slot: int, cell: int) -> None:
        self.c.collision_effects(op, slot, cell)
        self.t.append(("collision_effects", cell, None))

    def homing(self, queries: Sequence[HomingQuery]) -> tuple[object, ...]:
        answer = self.c.homing(queries)
        self.t.append(("homing", tuple(queries), answer))
        return answer

    def doze(self, question: DozeQuestion) -> bool:
        answer = self.c.doze(question)
        self.t.append(("doze", question, answer))
        return answer

    def transport_phase(self, op: int, projectiles: Sequence[Projectile]) -> None:
        self.c.transport_phase(op, projectiles)
        self.t.append(("transport_phase", tuple(projectiles), None))

    def act(self, need: str) -> ActAnswer:
        answer = self.c.act(need)
        self.t.append(("act", need, answer))
        return answer


def round_trips(outcome: Outcome) -> int:
    """How many network round trips the side's questions of ``outcome`` take at most
    (over the LAN the questions both sides know it asks next, ``collide_implied`` and
    the others below, are implied: answered unasked, no round trip of their own): each
    question is one, except the notices that want no answer but the step's end (a Flame
    or restricted rocket reaching the other side's cells, the other side's transport
    phase, collision effects), which travel with the next question. The questions a
    side was asked back are left out: they are the acting side's own questions of its
    action asked again by its referee (first hits, presence, the Doze's Ground summary),
    counted in the acting side's outcome."""
    count = 0
    for name, question, _ in outcome.questions:
        if name.startswith("asked back") or name in ("transport_phase", "collision_effects"):
            continue
        if name == "weapon" and getattr(question, "kind", None) == "area":
            continue
        count += 1
    return count


class _Resolution:
    """One intent resolved on one side's half state."""

    def __init__(self, half: Position, intent: Intent, referee: Referee,
                 travels: Sequence[Travel] = (), peer_due: bool = True) -> None:
        side = half.viewer
        if side is None:
            raise ValueError("resolve takes a half state (viewer set); the full state "
                             "resolves with engine.game.apply")
        if half.result is not None:
            raise IllegalIntent("R12", f"the game is over: {half.result.winner.title} won "
                                       f"({half.result.reason})")
        self.half, self.side, self.intent = half, side, intent
        self.travels = tuple(travels)
        self.peer_due = peer_due
        self.options = half.options
        self.acting = half.side_to_act is side
        own, self.seen, own_hits, self.seen_hits = split_half(half)
        self.w = SideWorking(side, own, half.locks, own_hits, half.turn, half.options,
                             self._presence)
        self.w.start_from(half)
        self.ground = ArticleTable(half.ground_articles, half.ground_ready)
        self.projectiles = list(half.projectiles)
        self.actions = half.actions
        self.result: Result | None = half.result
        self.reinforcements = half.reinforcements
        self.next_pid = half.next_pid
        self.markers = list(half.last_seen)
        self.starts = half.turn_start_squares
        self.acquiring: list[tuple[int, int]] = []
        self.transcript: Transcript = []
        self.log = EventLog()
        self.strength: ActAnswer | None = None
        self.ask = _Asking(referee.converse(intent, _Back(self)), self.transcript)
        # the step being resolved
        self.op = 0
        self.touched = False  # the other side's pieces may have changed in the step
        self.launched = False  # projectiles appeared or moved in the step
        self.hit = False  # a projectile hit pieces in the step (R6.8.5)
        self.step_seen: dict[int, Piece] = {}
        self.step_own: set[int] = set()
        self.step_next_pid = self.next_pid
        self.step_locks: tuple[Lock, ...] = ()
        self.step_reach = (0, 0)
        # the first collide, known to both sides before it is asked (``collide_implied``)
        self.collide_implied = collide_implied(intent, half.projectiles)
        # in an End whose first collide is implied, every later one is too
        # (``next_settle_collide``): the one due next, once a collide hit
        self.settle_implied = self.collide_implied and isinstance(intent, EndTurn)
        self.settle_next: tuple[int, tuple[Projectile, ...]] | None = None

    # ------------------------------------------------------------ running

    def run(self) -> Outcome:
        if isinstance(self.intent, EndTurn):
            self._end_turn()
        else:
            self._begin_step()
            self._action()
            if self._quiet_fire():
                self._end_step(still=True, shown=() if self.acting else self._firer_shown())
            else:
                self._end_step()
        return Outcome(self._half_after(), tuple(self.log), questions=tuple(self.transcript))

    def _presence(self, cells: Sequence[int]) -> frozenset[int]:
        return self.ask.presence(cells)

    def _next_op(self) -> int:
        self.op += 1
        return self.op

    @property
    def actor(self) -> Side:
        return Side.BLACK if self.w.turn % 2 == 1 else Side.WHITE

    # ------------------------------------------------------------ steps

    def _begin_step(self) -> None:
        self.op = 0
        self.touched = not self.acting  # the acting side's own pieces change in its action
        self.launched = False
        self.hit = False
        self.step_seen = self.seen  # never changed in place
        self.step_own = set(self.w.pieces)
        self.step_next_pid = self.next_pid
        self.step_locks = tuple(self.w.locks)
        self.step_reach = self.w.reach()

    def _end_step(self, final_judge: bool = True, still: bool = False,
                  shown: Sequence[Entry] = ()) -> None:
        """R9.5: the side's view after the step (``detect``), then the step's entries of
        both sides merged in rule order and played: events, articles dropped (R7.4),
        primary pieces lost and the game-end test (R12.2). ``still``: no piece of either
        side changed in the step but those the other side sees whole, and both sides
        know it; the view stands as it was, and ``shown`` are the other side's entries
        (``_firer_shown``)."""
        w, options = self.w, self.options
        mine = w.log.take()
        w.clear_reveals()  # D-36
        by_pid = w.pieces  # the side's own pieces
        acquiring = [(pid, i) for pid, i in self.acquiring if pid in by_pid]
        self.acquiring = []
        locks = []
        if options.stealth_lock_on:
            for lk in w.locks:  # R9.4(c): the holder's part; R9.4(a): acquiring anew
                holder = by_pid.get(lk.holder)
                if (holder is not None and lk.instance < holder.abilities().count(A.ANTI_STEALTH)
                        and (lk.holder, lk.instance) not in acquiring):
                    locks.append(lk)
        reach = w.reach()
        theirs: Sequence[Entry] = shown
        seen = self.seen
        in_play: Set[int] = self.seen.keys()
        # With pieces that can hide (O15, O16) the side asks after every step: whether
        # its reach or its locks changed depends on its own hidden detectors, and the
        # other side sees whether the question comes (issue 21: the question's presence
        # must tell it nothing).
        hiding = options.stealth_invisibility or options.submersion_invisibility
        if not still and (hiding or self.touched or acquiring or reach != self.step_reach
                          or tuple(locks) != self.step_locks):
            answer = self.ask.detect(Sight(
                tuple(locks), tuple((pid, i, by_pid[pid].sq) for pid, i in acquiring),
                reach[0], reach[1], tuple(self.step_seen),
                tuple(sorted({m.pid for m in self.markers} | {lk.target for lk in locks}))))
            theirs = answer.entries
            locks = [lk for i, lk in enumerate(locks) if i not in answer.released]
            locks += [Lock(pid, i, target) for (pid, i), target in zip(acquiring, answer.acquired,
                                                                       strict=True)
                      if target is not None]
            if answer.seen != tuple(seen.values()):
                seen = {p.pid: p for p in answer.seen}
            self.seen_hits = answer.hits
            in_play = set(answer.in_play)
            if answer.acted is not None:
                a = self.actions
                b = answer.acted
                self.actions = ActionCounts(a.move, a.fire, a.pickup, a.drop, a.exchange,
                                            a.reinforce, b.actors, b.firers, b.mover,
                                            b.transited)
            if answer.projectiles is not None:
                self.projectiles = list(answer.projectiles)
            self._mark(seen, in_play)
        w.locks = locks
        judge = _Judge(self.side, self.step_own, by_pid, self.step_seen, seen, in_play,
                       self.step_next_pid)
        entries = sorted([*mine, *theirs], key=_KEY) if theirs or len(mine) > 1 else mine
        self._play(entries, judge, final_judge)
        self.seen = seen

    def _quiet_fire(self) -> bool:
        """R9.5: whether this Fire's step asks no ``detect`` on either side (since
        ``wec-fog/26``): it launched a projectile that hit nothing (R6.8.2, R6.8.5), by a
        firer the other side sees whatever its detectors (``firer_shown``). No piece of
        either side changed but the firer, which the other side sees whole: what each
        side sees cannot have changed, and the side that does not act takes the firer's
        part from the intent (``_firer_shown``). Both sides know it: the hits are public
        (R9.1: each side sees the projectiles), and the acting side names the firer in
        its answer to the strength question (``ActAnswer.shown``), which the other side
        checks against the piece it sees. In the standard game most Fires are such."""
        intent = self.intent
        if not isinstance(intent, Fire) or not launches_projectile(intent) or self.hit:
            return False
        if self.acting:
            firer = planned(self.half, intent, plan_fire).piece
            return firer_shown(intent, firer, self.options) is not None
        return self._strength().shown is not None

    def _firer_shown(self) -> tuple[Entry, ...]:
        """The firer's part of a quiet Fire (``_quiet_fire``), as the acting side's
        detection would have shown it to this side: the acting side's own rules for it
        (engine.sides ``act``: its fire reveal, R9.8, its instances' ready turn, R6.3.2,
        its Fired event, the action records, R4.3) played on the firer alone, which this
        side sees whole. The firer named by the acting side must be the one this side's
        own plan of the Fire finds, seen whatever (net.fog_game checks it as the answer
        comes)."""
        intent = self.intent
        assert isinstance(intent, Fire)
        named = self._strength().shown
        try:
            firer = planned(self.half, intent, plan_fire).piece
        except IllegalIntent as exc:
            raise AssertionError(f"R9.8: the acting side names its firer {named}, which "
                                 f"this side does not see ({exc})") from None
        assert firer.pid == named and seen_whatever(firer, self.options), \
            f"R9.8: the acting side names its firer {named}, not a piece seen whatever"
        w = SideWorking(self.actor, {firer.pid: firer}, (), (), self.w.turn, self.options,
                        self._presence)
        acted = act(w, self.half, intent, self._first_hit, self._judge_doze)
        after = w.pieces[firer.pid]
        parts = DetectionParts(self.actor, (after,), (), (), tuple(w.log.take()),
                               frozenset(), frozenset(), (), acted.actions, None,
                               self.options, w.log.orders or None)
        entries = assemble(parts, Sight((), (), 0, 0, (), ())).entries
        self.seen = {**self.seen, firer.pid: after}
        self.actions = enemy_actions(acted.actions)
        return entries

    def _mark(self, seen: dict[int, Piece], in_play: Set[int]) -> None:
        """R9.10: a marker where an enemy piece was last seen, from the moment it becomes
        hidden until it is seen again, leaves play or changes sides."""
        if self.step_seen.keys() <= seen.keys():  # none newly hidden
            if all(m.pid in in_play and m.pid not in seen for m in self.markers):
                return
            self.markers = [m for m in self.markers if m.pid in in_play and m.pid not in seen]
            return
        kept = [m for m in self.markers if m.pid in in_play and m.pid not in seen]
        marked = {m.pid for m in kept}
        for pid in sorted(self.step_seen):
            old = self.step_seen[pid]
            if pid not in seen and pid in in_play and pid not in marked:
                kept.append(Marker(self.side, pid, old.kind, old.cell))
        self.markers = kept

    def _play(self, entries: Sequence[Entry], judge: _Judge, final_judge: bool) -> None:
        losses: list[tuple[Side, PieceKind, str]] = []
        start = len(self.log)
        for e in entries:
            if isinstance(e, Shown):
                event = e.event
                if e.subject is not None and e.key[2] == self._rank:
                    event = censored(e.event, e.subject, judge)  # type: ignore[arg-type]
                if isinstance(event, Dozed) and len(self.log) > start \
                        and isinstance(self.log[-1], Dozed):
                    # one piece's Dozed after another's: the step's one Doze (engine.sides
                    # shove logs each piece apart, in the full state's order)
                    event = replace(event, moved=(*self.log[-1].moved, *event.moved))
                    self.log.pop()
                if event is not None:
                    self.log.append(event)  # type: ignore[arg-type]
            elif isinstance(e, Dropping):
                placed = self.ground.place_dropped(e.sq, e.side, e.articles, e.ready)
                self.log.extend(ArticleDropped(article, sq) for article, sq in placed)
            elif isinstance(e, Loss):
                losses.append((e.side, e.kind, e.how))
            elif isinstance(e, JudgePoint):
                self._judge(losses)
                losses = []
        if final_judge:
            self._judge(losses)

    @property
    def _rank(self) -> int:
        return 0 if self.side is Side.BLACK else 1

    def _judge(self, losses: list[tuple[Side, PieceKind, str]]) -> None:
        """R12.2 over the primary pieces lost since the last test (engine.ending)."""
        if self.result is not None:
            return
        result = game_end(self.actor, losses)
        if result is not None:
            self.result = result
            self.log.append(GameOver(result.winner, result.reason))

    # ------------------------------------------------------------ the action

    def _action(self) -> None:
        intent = self.intent
        if self.acting:
            acted = act(self.w, self.half, intent, self._first_hit, self._judge_doze)
            self.actions = acted.actions
            self.acquiring += list(acted.acquiring)
        else:
            self.actions = _counted(self.actions, intent)
        if isinstance(intent, Move):
            if self.acting:
                assert acted.plan is not None
                self._move(acted.stop, acted.taken, acted.plan.piece.kind)
            else:
                self._moved()
        elif isinstance(intent, Fire):
            self._fire(intent, acted.strength if self.acting else None,
                       acted.target if self.acting else None)
        elif isinstance(intent, Doze):
            self._doze(intent)
        elif isinstance(intent, Reinforce):
            if self.acting:
                self._reinforced(intent, acted.entered)
            else:
                self._reinforce_seen(intent)
        elif isinstance(intent, PickUp | Drop | Exchange):
            if self.acting:
                assert acted.ground is not None
                self.ground = ArticleTable(*acted.ground)
            else:
                self._articles_seen(intent)
            return  # nothing moved: nothing to settle
        self._settle()

    def _first_hit(self, cells: Sequence[int]) -> FirstHit | None:
        hit = self.ask.first_hit(0, cells)
        if hit is not None:
            self.touched = True
        return hit

    def _judge_doze(self, intent: Doze, own: Summary) -> bool:
        self.touched = True
        return self.ask.doze(DozeQuestion(intent.sq, intent.squares, intent.dir, self.side, own))

    def _strength(self) -> ActAnswer:
        """The acting piece's Fire strength (and homing target), asked once when needed."""
        if self.strength is None:
            self.strength = self.ask.act("strength")
        return self.strength

    # Move (R5)

    def _move(self, stop: int | None, taken: Sequence[PieceInfo], taker: PieceKind) -> None:
        """The acting side's Move: its capture judged (R12.2)."""
        if taken and stop is not None:
            self._capture_judge(stop, taken, taker)

    def _moved(self) -> None:
        """The other side's Move: where it took this side's pieces (R5.2.4, R5.1.3)."""
        answer = self.ask.act("move")
        if answer.stop is None:
            return
        for p in self.w.own():
            if p.sq * 3 + p.level == answer.stop:
                del self.w.pieces[p.pid]
                self.w._forget(p.pid)  # R9.4(c)
        self._capture_judge(answer.stop, answer.taken, answer.taker)

    def _capture_judge(self, stop: int, taken: Sequence[PieceInfo],
                       taker: PieceKind | None) -> None:
        """R12.2 after a Move that took pieces (engine.movement ``judge``)."""
        if self.result is not None:
            return
        result = capture_result(self.actor, stop, taken, taker)
        if result is not None:
            self.result = result
            self.w.log.at(0, 2)
            self.w.log.emit(GameOver(result.winner, result.reason))

    # Fire (R6, R8.1)

    def _fire(self, intent: Fire, strength: int | None, target: int | None) -> None:
        weapon = intent.weapon
        if weapon in TRANSPORTS:
            return  # the traveller's own side set it off (engine.sides act)
        actor, frm = self.actor, intent.frm
        op = self._next_op()
        if weapon is A.FLAME or weapon is A.STUNNER:
            assert intent.dir is not None
            reach = (self.options.flame_range if weapon is A.FLAME
                     else self.options.stunner_range)
            cells = flame_cells(frm, intent.dir, reach)
            if weapon is A.FLAME:
                self._area(op, weapon, cells, strength)
            else:
                self._stun(op, cells, strength)
            return
        if weapon is A.CONVERSION:
            assert intent.dir is not None
            cell = flame_cells(frm, intent.dir, 1)[0]
            if self.acting:
                assert strength is not None
                answer = self.ask.weapon(op, WeaponStep("convert", A.CONVERSION, strength,
                                                        (cell,), actor))
                self.touched = True
                for p in answer.joined:  # type: ignore[attr-defined]
                    self.w.add(p)
                    self.acquiring += [(p.pid, i) for i in
                                       range(p.abilities().count(A.ANTI_STEALTH))]
                for pid, hit, n in answer.hits:  # type: ignore[attr-defined]
                    self.w.hits[(pid, hit)] = n
            elif any(p.sq * 3 + p.level == cell for p in self.w.own()):
                n = self._strength().strength
                assert n is not None
                gone = convert_at(self.w, op, n, cell, actor)
                self.ask.c.receive(gone, self.w.hits_of([p.pid for p in gone]))
            return
        if intent.target is not None and weapon is A.ROCKET_LAUNCHER:  # R6.12.2
            self._area(op, weapon, ((intent.target // 3) * 3 + GROUND,), strength)
            return
        # R6.8.2: a projectile on the adjacent square, at its own level
        assert launches_projectile(intent)
        if strength is None:
            answer = self._strength()
            strength, target = answer.strength, answer.target
        assert strength is not None
        d = intent.dir if intent.target is None else board.sign_step(frm // 3,
                                                                      intent.target // 3)
        assert d is not None
        sq = board.offset(frm // 3, d)
        assert sq is not None
        kind = PROJECTILE[weapon]
        self.projectiles.append(Projectile(kind, actor, sq, strength, d, target))
        self.w.log.at(op, 0)
        self.w.log.emit(ProjectileLaunched(kind, actor, sq, strength, d, intent.target))
        self.launched = True

    def _area(self, op: int, weapon: ArticleKind, cells: tuple[int, ...],
              strength: int | None) -> None:
        """R6.5.1, R6.12.2: every piece of both sides in ``cells`` is hit."""
        if self.w.first_at(cells) is not None:
            n = strength if strength is not None else self._strength().strength
            assert n is not None
            area_hits(self.w, op, weapon, n, cells)
        self.ask.weapon(op, WeaponStep("area", weapon, strength or 0, cells, self.actor))
        self.touched = True

    def _stun(self, op: int, cells: tuple[int, ...], strength: int | None) -> None:
        """R6.6.1: the first cell holding any piece, of either side, is hit."""
        first = self.w.first_at(cells)
        limit = first if first is not None else len(cells)
        answer = self.ask.weapon(op, WeaponStep("stun", A.STUNNER, strength or 0, cells,
                                                self.actor, limit))
        self.touched = True
        if first is not None and not answer.blocked:  # type: ignore[attr-defined]
            n = strength if strength is not None else self._strength().strength
            assert n is not None
            stun_first(self.w, op, n, cells, first)

    # Doze (R8.8)

    def _doze(self, intent: Doze) -> None:
        """R8.8: the acting side judged its Doze as it acted (asking this side) and shoved
        its own pieces (engine.sides act); the side that does not act asks, and shoves its
        own Ground pieces of the selected squares along (O24). Each piece's ``Dozed``
        comes from its own side: the other side's through ``detect``, as it sees them."""
        if not self.acting:
            squares = doze_squares(intent)
            foiled = self.ask.doze(DozeQuestion(intent.sq, intent.squares, intent.dir,
                                                self.actor, ground_summary(self.w, squares)))
            if not foiled:
                shove(self.w, intent, dozed_movers(self.w, intent), self.actor)
        self.touched = True

    # Reinforce (R10)

    def _reinforced(self, intent: Reinforce, entered: Piece | None) -> None:
        if entered is None:
            return
        waiting = list(self.reinforcements)
        for r in waiting:
            if (r.side is self.side and r.sq == intent.sq and r.kind is entered.kind
                    and (intent.hand is None or r.hand is intent.hand)):
                waiting.remove(r)
                break
        self.reinforcements = tuple(waiting)
        self.next_pid += 1

    def _reinforce_seen(self, intent: Reinforce) -> None:
        """The other side's Reinforce: foiled exactly when this side's pieces stand at
        Ground of the square (R4.13, D-12); else one of its waiting reinforcements
        there enters."""
        cell = intent.sq * 3 + GROUND
        if any(p.sq * 3 + p.level == cell for p in self.w.own()):
            return
        waiting = list(self.reinforcements)
        for r in waiting:
            if r.side is not self.side and r.sq == intent.sq:
                waiting.remove(r)
                break
        self.reinforcements = tuple(waiting)
        self.next_pid += 1

    # Pick-up, Drop, Exchange (R4.7-R4.9)

    def _articles_seen(self, intent: PickUp | Drop | Exchange) -> None:
        """The other side's article action: the ground changes (public)."""
        if isinstance(intent, PickUp):
            self.ground.take(intent.at // 3, intent.article)
        elif isinstance(intent, Drop):
            ready = self.ask.act("drop").ready
            self.ground.put(intent.frm // 3, intent.article, ready or 0)

    # ------------------------------------------------------------ settling

    def _settle(self) -> None:
        """What follows every action and step by itself (engine.effects ``settle``):
        homing locks break (R6.11.3) and projectiles hit the pieces at their cells
        (R6.8.5), until nothing changes."""
        if self.result is not None:
            return
        hit: frozenset[int] | None = None  # after an action or step: anywhere
        while self.projectiles:
            self._break_homing(self._next_op())
            if not self.projectiles:
                return
            hit = self._collide(self._next_op(), self._next_op(), hit)
            if not hit:
                return

    def _break_homing(self, op: int) -> None:
        w = self.w
        asked: list[int] = []
        queries: list[HomingQuery] = []
        for i, proj in enumerate(self.projectiles):
            if proj.target is None or proj.target in w.members:
                continue
            if self.touched:
                asked.append(i)
                queries.append(HomingQuery("lock", proj.target, proj.sq, proj.level, proj.side))
        answers = dict(zip(asked, self.ask.homing(queries), strict=True)) if queries else {}
        w.log.at(op, 0)
        for i, proj in enumerate(self.projectiles):
            if proj.target is None:
                continue
            if proj.target in w.members:
                broken = homing_broken(w.pieces.get(proj.target), proj.level, proj.side)
            elif i in answers:
                broken = answers[i].broken  # type: ignore[attr-defined]
            else:
                continue
            if broken:
                self.projectiles[i] = Projectile(proj.kind, proj.side, proj.sq, proj.strength,
                                                 proj.dir)
                w.log.emit(HomingBroken(proj.kind, proj.side, proj.sq, proj.dir))

    def _collide(self, op: int, effects_op: int, after: Set[int] | None = None
                 ) -> frozenset[int]:
        """R6.8.5: every projectile at a cell holding pieces of either side hits them all
        and is removed; then the hits take effect, cell by cell. The cells hit (empty:
        none, and the settling is over).

        ``after``: in settling, the cells the collide before hit; only the projectiles on
        their squares may hit now (``settle_candidates``): the hits' effects change pieces
        on those squares alone (R6.4, R7.3: a piece destroyed or stunned there, its
        passengers falling to the same square's Ground), and every other projectile's
        cell was just found empty. The others are not asked about; none left, nothing is
        asked (since ``wec-fog/27``)."""
        w = self.w
        projectiles = settle_candidates(self.projectiles, after)
        if not projectiles:
            return frozenset()
        mine, overcome = collision_hits(w, op, projectiles)
        theirs: frozenset[int] = frozenset()
        if self.touched or self.launched:
            if self.collide_implied:  # asked first, or just after the strength
                assert [t[0] for t in self.transcript] == implied_collide_after(
                    self.intent, self.acting), "an implied collide after other questions"
                self.collide_implied = False
            elif self.settle_implied:
                assert (op, tuple(projectiles)) == self.settle_next, \
                    "a later collide of an End not as next_settle_collide says"
            theirs = self.ask.collide(op, projectiles)
            self.touched = self.touched or bool(theirs)
        occupied = mine | theirs
        if self.settle_implied:
            self.settle_next = next_settle_collide(op, projectiles, occupied)
        if not occupied:
            return frozenset()
        assert effects_op == op + 1, "a collide's effects not the next operation"
        self.hit = True
        for cell in sorted(occupied):
            for rank, proj in enumerate(arrivals(projectiles, {cell})):
                w.log.at(op, collision_slot(cell, rank, False))
                w.log.emit(ProjectileRemoved(proj.kind, proj.side, proj.sq, "hit"))
        self.projectiles = [p for p in self.projectiles if p.sq * 3 + p.level not in occupied]
        w.doomed = set(overcome)
        for cell in sorted(occupied):
            for rank in sorted((self._rank, 1 - self._rank)):
                if rank == self._rank and cell in mine:
                    collision_effects(w, effects_op, cell, cell, overcome)
                elif rank != self._rank and cell in theirs:
                    self.ask.collision_effects(effects_op, cell, cell)
        w.doomed = set()
        return occupied

    # ------------------------------------------------------------ the end of the turn

    def _end_turn(self) -> None:
        """R4.4, R4.11, R4.2: the turn ends once the Move is made; the new turn's
        counters, the projectile phase, the transport phase of the side to act, each
        step judged (R12.2)."""
        if self.acting:
            refuse_early_end(self.half)
        turn = self.w.turn + 1
        self.w.turn = turn
        self.w.hits = {}
        self.seen_hits = ()
        self.actions = FRESH_TURN
        self.ask.c.new_turn(turn)
        self.log.append(TurnEnded(turn))
        if self.projectiles:
            self._begin_step()
            # nothing acts in this step but the projectiles: the other side's pieces
            # change only where they are hit (``collide``), and only then is it asked
            # what this side sees of them
            self.touched = False
            self._projectile_phase(self._next_op())
            self._settle()
            # a projectile phase that hit nothing changed no piece of either side (a
            # public fact: every projectile shows, R9.1), so what each side sees cannot
            # have changed (R9.5): nothing to ask
            self._end_step(still=not self.hit)
        if self.result is None:
            if self.actor is not self.side:
                # with no transport step due to the other side (a public fact), its phase
                # moves nothing: no piece of either side changes and what this side sees
                # cannot have changed (R9.5), so there is nothing to ask
                if self.peer_due:
                    self._begin_step()
                    self.touched = True
                    self.ask.transport_phase(self._next_op(), self.projectiles)
                    self._end_step(final_judge=False)
            elif self.w.in_transit() or any(t.steps > 0 for t in self.travels):
                # the schedule's phantom steps too (engine.transit_schedule)
                self._begin_step()
                self._own_transport_phase()
                self._end_step(final_judge=False)
        self.starts = self._turn_start_squares() if self.actor is self.side else ()

    def _turn_start_squares(self) -> tuple[int, ...]:
        """R10.3: the side's activation squares where one of its pieces stands at Ground
        as its turn starts (engine.reinforcement ``turn_start_squares``)."""
        side = self.side
        squares = sorted({r.sq for r in self.reinforcements if r.side is side})
        if not squares:
            return ()
        held = {p.sq for p in self.w.own() if p.level is GROUND}
        return tuple(sq for sq in squares if sq in held)

    def _projectile_phase(self, op: int) -> None:
        """R6.8.4, R6.11.2: every projectile steps at once (homing ones toward their
        target's square); those leaving the board are removed."""
        w = self.w
        queries: list[HomingQuery] = []
        asked: list[int] = []
        for i, proj in enumerate(self.projectiles):
            if (proj.target is not None and proj.target not in w.members
                    and proj.target not in self.seen):
                asked.append(i)
                queries.append(HomingQuery("step", proj.target, proj.sq, proj.level, proj.side))
        answers = dict(zip(asked, self.ask.homing(queries), strict=True)) if queries else {}
        moved = []
        w.log.at(op, 0)
        for i, proj in enumerate(self.projectiles):
            d = proj.dir
            if proj.target is not None:
                if i in answers:
                    step = answers[i].dir  # type: ignore[attr-defined]
                else:
                    target = w.pieces.get(proj.target) or self.seen.get(proj.target)
                    step = homing_step(target, proj.sq)
                if step is not None:
                    d = step
            nxt = board.offset(proj.sq, d)
            if nxt is None:
                w.log.emit(ProjectileRemoved(proj.kind, proj.side, proj.sq, "left_board"))
                continue
            moved.append(Projectile(proj.kind, proj.side, nxt, proj.strength, d, proj.target))
            w.log.emit(ProjectileStepped(proj.kind, proj.side, proj.sq, nxt, d))
        self.projectiles = moved
        self.launched = True

    def _own_transport_phase(self) -> None:
        op, moved = transit_phase(self.w, self._next_op(), self.projectiles, self.travels)
        self.op = op
        for pid in moved:
            a = self.actions
            self.actions = ActionCounts(a.move, a.fire, a.pickup, a.drop, a.exchange,
                                        a.reinforce, a.actors, a.firers, a.mover,
                                        (*a.transited, pid))

    # ------------------------------------------------------------ the result

    def _half_after(self) -> Position:
        w, half = self.w, self.half
        if not w.pieces.version and self.seen is split_half(half)[1]:
            pieces = half.pieces  # nothing of either side changed
        else:
            pieces = tuple(sorted((*w.own(), *self.seen.values()), key=_PID))
        own_hits = self.w.hits_now()
        hits = (tuple(sorted((*own_hits, *self.seen_hits), key=lambda h: (h[0], h[1].value)))
                if own_hits and self.seen_hits else own_hits or self.seen_hits)
        ground, ground_ready = self.ground.packed()
        a = self.actions
        if (a is not half.actions or pieces is not half.pieces) and (
                a.actors or a.transited or a.mover is not None):
            present = _Present(w, self.seen)
            if ((a.mover is not None and a.mover not in present)
                    or not all(pid in present for pid in a.actors)
                    or not all(pid in present for pid in a.transited)):
                a = actions_seen(a, present)
        return self.half.evolve(
            turn=self.w.turn, pieces=pieces, ground_articles=ground, ground_ready=ground_ready,
            locks=tuple(self.w.locks), projectiles=tuple(self.projectiles), hits=hits,
            actions=a, result=self.result, reinforcements=self.reinforcements,
            next_pid=self.next_pid, last_seen=tuple(self.markers), acquiring=(),
            turn_start_squares=self.starts)


class _Present:
    """The pieces of a half state after an intent: the side's own in play and the other
    side's it sees (a set, read lazily)."""

    __slots__ = ("seen", "w")

    def __init__(self, w: SideWorking, seen: dict[int, Piece]) -> None:
        self.w, self.seen = w, seen

    def __contains__(self, pid: object) -> bool:
        p = self.w.pieces.get(pid)  # type: ignore[call-overload]
        return (p is not None and p.side is self.w.side) or pid in self.seen


class _Judge:
    """engine.censor's judgement of this side's own entries (about its pieces, always
    shown, or the other side's pieces it saw: a Doze's) at the end of a step."""

    def __init__(self, side: Side, own: set[int], own_after: dict[int, Piece],
                 before: dict[int, Piece], after: dict[int, Piece], in_play: Set[int],
                 next_pid: int) -> None:
        self.side = side
        self.own, self.own_after, self.before, self.after = own, own_after, before, after
        self.in_play, self.next_pid = in_play, next_pid

    def __call__(self, pid: int, after_only: bool = False) -> bool:
        if pid in self.own or pid in self.own_after:
            return True
        now = pid in self.after or pid in self.in_play
        entered = pid >= self.next_pid
        if entered and not now:
            return False
        if after_only and now:
            return pid in self.after
        then_ok = entered or pid in self.before
        return then_ok and (not now or pid in self.after)


def collide_implied(intent: Intent, projectiles: Sequence[Projectile]) -> bool:
    """Whether both sides' first ``collide`` (R6.8.5) in resolving ``intent`` is known to
    both from public facts alone, ``projectiles`` those in flight before it, none homing
    (R6.11: no homing question comes before it):

    * a Fire that launches a projectile with no homing target (R6.11.1). Nothing is
      asked before it but the acting piece's strength (the side that does not act,
      ``launches_projectile``);
    * an End of turn while projectiles fly and one of them stays on the board in the
      projectile phase (R6.8.4; else nothing is left to collide). Nothing is asked
      before it but the new turn's notice (``opens_with_new_turn``), and every
      projectile steps along its own direction, which both sides see.

    Its cells are the projectiles', which both sides see (R9.1); net.fog_game answers it
    unasked. The resolution asserts the order (``implied_collide_after``)."""
    if any(p.target is not None for p in projectiles):
        return False
    if isinstance(intent, EndTurn):
        return any(board.offset(p.sq, p.dir) is not None for p in projectiles)
    return isinstance(intent, Fire) and launches_projectile(intent) and intent.target is None


def collision_effects_asked(op: int, hit: Set[int]) -> list[tuple[int, int, int]]:
    """The ``collision_effects`` (R6.8.5) a side's resolution asks right after its
    ``collide(op, ...)`` was answered ``hit`` (the cells of the other side's pieces that
    projectiles hit), in order, and nothing between: one per cell, in cell order, at the
    operation after the collide's (``_settle``). The other side knows them once it gave
    that answer: net.fog_game answers them unasked (since ``wec-fog/23``)."""
    return [(op + 1, cell, cell) for cell in sorted(hit)]


def next_settle_collide(op: int, projectiles: Sequence[Projectile], hit: Set[int]
                        ) -> tuple[int, tuple[Projectile, ...]] | None:
    """The ``collide`` (R6.8.5) a side's resolution asks next in settling, right after
    the effects of ``collide(op, projectiles)``, ``hit`` the cells of either side's pieces
    that collide hit (both sides' answers together), while no projectile homes (R6.11.3:
    no homing check asks anything between): ``(op + 3, the projectiles at the other
    cells)`` (the operations after the collide's are its effects' and the next homing
    check's), or None when nothing was hit or no projectile is left (the settling is
    over).

    In an End whose first collide is implied (``collide_implied``) both sides ask that
    same collide, so each knows both answers once it has the other's and gave its own,
    and with them the next collide, the same on both sides, and so on: net.fog_game
    answers each unasked (since ``wec-fog/24``). The resolution asserts it."""
    if not hit:
        return None
    left = settle_candidates(projectiles, hit)
    return (op + 3, tuple(left)) if left else None


def settle_candidates(projectiles: Sequence[Projectile], hit: Set[int] | None
                      ) -> list[Projectile]:
    """The projectiles a collide asks about (R6.8.5): all of them after an action or a
    step (``hit`` None), and in settling, after a collide that hit the cells ``hit``,
    those on the squares of those cells (but at the cells hit: those projectiles are
    gone), the only ones whose cells may hold pieces now: a hit's effects change pieces
    on its own square alone (R6.4; R7.3, R8.4.2: a passenger or a stunned flyer falls to
    that square's Ground). Asking about the others would ask the other side about cells
    both sides know were just found empty (since ``wec-fog/27``; until then every later
    collide of a settling asked about them all, a round trip on the path of most
    actions whose projectile hit)."""
    if hit is None:
        return list(projectiles)
    squares = {cell // 3 for cell in hit}
    return [p for p in projectiles if p.sq in squares and p.cell not in hit]


def implied_collide_after(intent: Intent, acting: bool) -> list[str]:
    """What a side's resolution of ``intent`` asks before the implied first collide
    (``collide_implied``), by kind of question: the strength of the acting piece (the
    side that does not act, in a Fire), or nothing (an End's notice of the new turn is
    told, not asked)."""
    return [] if acting or isinstance(intent, EndTurn) else ["act"]


def opens_with_new_turn(intent: Intent) -> bool:
    """Whether both sides' resolutions of ``intent`` begin with the notice of the new
    turn (``new_turn``, R4.11), before anything else: an End of turn. A fact of the form:
    net.fog_game never sends it (since ``wec-fog/23``)."""
    return isinstance(intent, EndTurn)


def capture_result(actor: Side, stop: int, taken: Sequence[PieceInfo],
                   taker: PieceKind | None) -> Result | None:
    """R12.2: the game's end after ``actor``'s Move took ``taken`` at ``stop`` (``taker``:
    the mover's kind, given when it took a primary piece), or None."""
    if taker is None:
        return None
    how = f"taken at {board.describe_cell(stop)} by a {describe_kind(taker)}"
    return game_end(actor, [(i.side, i.kind, how) for i in taken if TRAITS[i.kind].primary])


# the step's operation of the collide that follows a Move's act("move") on the side that
# does not act: the first (1) is the homing check (``_break_homing``), which asks nothing
MOVE_COLLIDE_OP = 2


def move_collide_follows(intent: Intent, projectiles: Sequence[Projectile],
                         moved: ActAnswer, actor: Side) -> bool:
    """Whether the side that does not act asks ``collide`` (R6.8.5) about the projectiles
    in flight (``projectiles``, before the action) right after its ``act("move")`` in
    resolving ``intent`` (its public form will do), ``moved`` that question's answer: a
    Move while projectiles are in flight and none homes (no homing question comes
    between, R6.11.3) whose capture did not end the game (R12.2). The question is then
    ``collide(MOVE_COLLIDE_OP, projectiles)``, known to both sides (the projectiles show,
    R9.1), and the acting side knows its answer once it answered ``act("move")``:
    net.fog_game sends it unasked."""
    if not isinstance(intent, Move) or not projectiles \
            or any(p.target is not None for p in projectiles):
        return False
    return moved.stop is None or capture_result(actor, moved.stop, moved.taken,
                                                moved.taker) is None


def doze_collide_follows(intent: Intent, projectiles: Sequence[Projectile]) -> bool:
    """Whether the side that does not act asks ``collide`` (R6.8.5) about the projectiles
    in flight (``projectiles``, before the action) right after its ``doze`` question in
    resolving ``intent`` (its public form): a Doze (R8.8) while projectiles are in flight
    and none homes (no homing question comes between, R6.11.3; a Doze ends no game and
    moves no projectile). The question is ``collide(MOVE_COLLIDE_OP, projectiles)``, as
    after a Move, known to both sides (the projectiles show, R9.1), and the acting side
    knows its answer once it answered the ``doze`` question (its verdict: its own pieces
    as the Doze left them): net.fog_game sends it unasked (since ``wec-fog/24``)."""
    return isinstance(intent, Doze) and bool(projectiles) \
        and all(p.target is None for p in projectiles)


def detect_first(intent: Intent) -> bool:
    """Whether the side that does not act asks ``detect`` (R9.5) first in its resolution
    of ``intent`` (its public form will do): a PickUp or an Exchange (R7) asks nothing
    before it and is not followed by settling, as it moves nothing. A fact of the form
    alone: net.fog_game sends the acting side's detection queries for it with the
    intent."""
    return isinstance(intent, PickUp | Exchange)


def firer_shown(intent: Fire, firer: Piece, options: Options) -> int | None:
    """``firer``'s identifier when its Fire ``intent`` is quiet unless its projectile
    hits (``_Resolution._quiet_fire``): a Fire that launches a projectile (R6.8.2) by a
    piece the other side sees whatever its detectors and locks (engine.visibility
    ``seen_whatever``: it cannot hide, or a reveal shows it, R9.7, R9.8); else None.
    The acting side tells it in its answer to the strength question
    (``ActAnswer.shown``): the other side sees the piece, so the name tells it nothing
    the rules do not show."""
    if launches_projectile(intent) and seen_whatever(firer, options):
        return firer.pid
    return None


def launches_projectile(intent: Fire) -> bool:
    """Whether ``intent`` launches a projectile (R6.8.2): a Fire of neither a transport
    (R8.1), a Flame or a Stunner (R6.5.1, R6.6.1), a Conversion (R6.7.1) nor a targeted
    restricted rocket (R6.12.2). The side that does not act then always asks the acting
    piece's strength first (``act("strength")``): it shows on the projectile both sides
    see (R6.2.2, R9.1). A fact of the intent alone, so both sides (and net.fog_game, which
    sends that answer with the intent) agree on it."""
    weapon = intent.weapon
    return (weapon not in TRANSPORTS
            and weapon not in (A.FLAME, A.STUNNER, A.CONVERSION)
            and not (intent.target is not None and weapon is A.ROCKET_LAUNCHER))


def _counted(actions: ActionCounts, intent: Intent) -> ActionCounts:
    """R4.3: the acting side's public action counts after ``intent``."""
    a = actions
    return ActionCounts(a.move + isinstance(intent, Move | Doze), a.fire + isinstance(intent, Fire),
                        a.pickup + isinstance(intent, PickUp), a.drop + isinstance(intent, Drop),
                        a.exchange + isinstance(intent, Exchange),
                        a.reinforce + isinstance(intent, Reinforce), a.actors, a.firers,
                        a.mover, a.transited)


def refuse_early_end(position: Position) -> None:
    """R4.4: the turn ends once the Move is made (or none is possible)."""
    if not position.actions.move and (has_legal_move(position) or legal_dozes(position)):
        raise IllegalIntent("R4.4", f"{position.side_to_act.title} must make a Move before "
                                    "ending the turn")
