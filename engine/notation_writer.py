"""Writing a game's history in WEC notation (R16.1, R16.3, R14.3): the steps of a turn
become a ``TurnRecord`` and its line, in the full history or in the censored copy of
one player.

The actions of one turn, each a ``Step`` ``(position before, intent, outcome)`` exactly
as ``engine.playout.play_turn`` hands them to its observer, plus the end of turn that
opened the turn (its projectile and transport phases, R4.2), are followed in the order
they happened; ``record_turn`` then puts their elements in R16.1's fixed order. Pieces
are described as they stand when each action or effect happens (R16.3), which is why
the pieces are followed through every event of a step. ``viewer`` writes the censored
copy of one player (R14.3). ``write_game`` and ``TurnRecorder`` do the same for a whole
game. The text itself is engine.notation_format's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from wec.engine import board
from wec.engine.board import Level
from wec.engine.dozing import coincident_of
from wec.engine.events import (
    Captured,
    Converted,
    Destroyed,
    Dozed,
    DozeFoiled,
    Event,
    Fell,
    Moved,
    ProjectileLaunched,
    ProjectileRemoved,
    ProjectileStepped,
    Reinforced,
    Stunned,
    TransportEnded,
    TransportStepped,
)
from wec.engine.fire import plan_fire
from wec.engine.formats import piece_order_key
from wec.engine.game import Outcome
from wec.engine.intents import Doze, Drop, EndTurn, Exchange, Fire, Intent, Move, PickUp, Reinforce
from wec.engine.notation_codes import CONVERTED, KILL_CODES, STUNNED, TAKE
from wec.engine.notation_format import format_turn
from wec.engine.notation_records import (
    DozedPiece,
    DozeRecord,
    DropRecord,
    ExchangeRecord,
    FireRecord,
    Loc,
    MoveRecord,
    PickupRecord,
    PieceRef,
    PieceResult,
    ProjectileGone,
    ProjectileMoved,
    ReinforceRecord,
    Result,
    Step,
    TransportRecord,
    TurnRecord,
)
from wec.engine.pieces import PieceKind, Side
from wec.engine.position import Piece, Position
from wec.engine.referee import PieceInfo

__all__ = ["TurnRecorder", "TurnSteps", "record_turn", "remaining_stunned_turns",
           "split_turns", "write_game", "write_turn"]


def remaining_stunned_turns(side: Side, stunned_until: int, turn: int) -> int:
    """R7.1: how many of its owner's turns after ``turn`` a piece stunned while the turn
    is below ``stunned_until`` still misses (Black plays odd turns, R4.1)."""
    first = turn + 1 if (turn + 1) % 2 == (1 if side is Side.BLACK else 0) else turn + 2
    return 0 if first >= stunned_until else (stunned_until - 1 - first) // 2 + 1


class _Scene:
    """A position's pieces followed through the events of one action or phase, so
    that each effect describes its piece as it stood at that moment (R16.3).

    Only what an effect later in the same step can see is followed: moves, takes,
    kills, stuns, conversions, falls, transport steps and reinforcements (article
    actions end their step with nothing after them)."""

    def __init__(self, position: Position) -> None:
        self.pieces: dict[int, Piece] = {p.pid: p for p in position.pieces}
        self.next_pid = position.next_pid

    def find(self, cell: int, side: Side, kind: PieceKind,
             test: Callable[[Piece], bool] | None = None,
             prefer: int | None = None) -> Piece | None:
        """The piece of ``side`` and ``kind`` at ``cell`` that passes ``test``: the
        preferred pid if it qualifies, else the first in canonical order (the order in
        which the engine resolves the pieces of one cell)."""
        here = [p for p in self.pieces.values()
                if p.cell == cell and p.side is side and p.kind is kind
                and (test is None or test(p))]
        for p in here:
            if p.pid == prefer:
                return p
        return min(here, key=piece_order_key) if here else None

    def find_or_any(self, cell: int, side: Side, kind: PieceKind,
                    test: Callable[[Piece], bool], prefer: int | None = None) -> Piece:
        """``find`` with ``test`` if one qualifies, else without it, else a stand-in built
        from what the event says (never expected: the engine's events name real pieces)."""
        return (self.find(cell, side, kind, test, prefer)
                or self.find(cell, side, kind, prefer=prefer)
                or Piece(-1, side, kind, board.cell_square(cell), board.cell_level(cell)))

    def put(self, piece: Piece) -> None:
        """Set where ``piece`` now stands and how (a stand-in, pid -1, is not kept)."""
        if piece.pid >= 0:
            self.pieces[piece.pid] = piece

    def remove(self, piece: Piece) -> None:
        """``piece`` left play."""
        self.pieces.pop(piece.pid, None)


@dataclass(slots=True)
class _Travel:
    """A piece moved by a transport article this turn: how it stood before its first
    transport movement, and the cell its last one left it in."""

    start: Piece
    to: int
    concealed: bool


def _piece_by_pid(position: Position, pid: int | None) -> Piece | None:
    """The piece ``pid`` of ``position``, or None."""
    return next((p for p in position.pieces if p.pid == pid), None)


def _concealed(viewer: Side | None, *positions: Position) -> frozenset[int]:
    """R14.3: the pieces concealed from ``viewer`` in a step: enemy pieces hidden from
    it in the position before or after the step (none for the full history)."""
    if viewer is None:
        return frozenset()
    return frozenset(p.pid for position in positions for p in position.pieces
                     if p.side is not viewer and p.hidden)


class _TurnBuilder:
    """Collects one turn's elements while its phases and actions are followed in the
    order they happened; ``record`` puts them in R16.1's fixed order."""

    def __init__(self, viewer: Side | None) -> None:
        self.viewer = viewer
        self.move: MoveRecord | None = None
        self.passenger: TransportRecord | None = None
        self.doze: DozeRecord | None = None
        self.fires: list[FireRecord] = []
        self.pickup: PickupRecord | None = None
        self.exchange: ExchangeRecord | None = None
        self.reinforce: ReinforceRecord | None = None
        self.drop: DropRecord | None = None
        self.results: list[Result] = []
        self.travels: dict[int, _Travel] = {}

    def record(self) -> TurnRecord:
        """The turn's records: the Move's passenger and Doze first, then every
        transport movement not concealed, then the rest in R16.1's order."""
        after_move: list[TransportRecord | DozeRecord] = []
        if self.passenger is not None:
            after_move.append(self.passenger)
        if self.doze is not None:
            after_move.append(self.doze)
        after_move += [TransportRecord(PieceRef.of(t.start), board.cell_level(t.to),
                                       Loc.of(board.cell_square(t.to)))
                       for t in self.travels.values() if not t.concealed]
        return TurnRecord(self.move, tuple(after_move), tuple(self.fires), self.pickup,
                          self.exchange, self.reinforce, self.drop, tuple(self.results))

    # ------------------------------------------------------------ steps

    def add_phase(self, step: Step) -> None:
        """The end of turn that opened this turn: its projectile and transport phases
        (R4.2) belong to this turn."""
        before, _, outcome = step
        hide = _concealed(self.viewer, before, outcome.position)
        self.follow(_Scene(before), outcome.events, outcome.position.turn, hide, None)

    def add_action(self, step: Step) -> None:
        """One action: its element from the position before it (R16.3), then its
        effects from its events."""
        before, intent, outcome = step
        after = outcome.position
        hide = _concealed(self.viewer, before, after)
        actor: int | None = None
        if isinstance(intent, Move):
            actor = after.actions.mover
            self.note_move(before, intent, actor, hide)
        elif isinstance(intent, Doze):
            actor = after.actions.mover
            foiled = any(isinstance(e, DozeFoiled) for e in outcome.events)
            self.note_doze(before, intent, actor, foiled, hide)
        elif isinstance(intent, Fire):
            actor = self.note_fire(before, after, intent, hide)
        elif isinstance(intent, PickUp | Drop):
            actor = after.actions.actors[-1]
            self.note_article_action(before, intent, actor, hide)
        elif isinstance(intent, Exchange):
            self.note_exchange(before, intent, after.actions.actors[-2:], hide)
        elif isinstance(intent, Reinforce):
            self.note_reinforce(before, intent, outcome, hide)
        self.follow(_Scene(before), outcome.events, before.turn, hide, actor)

    # ------------------------------------------------------------ action elements

    def note_move(self, before: Position, intent: Move, mover_pid: int | None,
                  hide: frozenset[int]) -> None:
        """The Move writes the destination asked for (R5.2.4); a concealed mover's Move
        is left out, which writes ``MV:-`` (R14.3)."""
        mover = _piece_by_pid(before, mover_pid)
        if mover is not None and mover.pid not in hide:
            self.move = MoveRecord(PieceRef.of(mover), board.cell_level(intent.to),
                                   Loc.of(board.cell_square(intent.to)))

    def note_doze(self, before: Position, intent: Doze, dozer_pid: int | None, foiled: bool,
                  hide: frozenset[int]) -> None:
        """A Doze is the Dozer's Move (R8.8): ``MV:`` the Dozer to its destination, then
        ``,DO>`` that destination, the coincident and every Ground piece of the
        selected squares, by square. A foiled Doze (R8.8.5) writes what was asked: the
        destination, and the pieces its player saw on the selected squares."""
        dozer = _piece_by_pid(before, dozer_pid)
        dest = board.offset(dozer.sq, intent.dir) if dozer is not None else None
        if dozer is None or dest is None or dozer.pid in hide:
            return
        self.move = MoveRecord(PieceRef.of(dozer), Level.GROUND, Loc.of(dest))
        coincident = coincident_of(before, dozer)
        seen = before.known_occupancy(dozer.side) if foiled else None
        dozed = sorted((p for p in before.pieces
                        if p.level is Level.GROUND and p.sq in intent.squares
                        and (seen is None or p in seen[p.cell])),
                       key=piece_order_key)
        group = ([coincident] if coincident is not None else []) + dozed
        shown = tuple(DozedPiece(p.kind, Loc.of(p.sq)) for p in group if p.pid not in hide)
        if shown:
            self.doze = DozeRecord(Loc.of(dest), shown)

    def note_fire(self, before: Position, after: Position, intent: Fire,
                  hide: frozenset[int]) -> int:
        """FI1, FI2 in the order fired; a directional Fire writes the adjacent square, a
        transport Fire its destination and path, an aimed one its target (R16.3).

        R9.8: a Fire reveals its firer where it fired, so the firer is judged on the
        state after the Fire (before it, when the Fire took it out of play), exactly as
        the censored event stream judges ``Fired`` (engine.censor)."""
        plan = plan_fire(before, intent)
        firer, target = plan.piece, plan.target
        if self._firer_concealed(firer, after) or (target is not None and target.pid in hide):
            return firer.pid
        if target is not None:
            fire = FireRecord(plan.weapon, PieceRef.of(firer), target=PieceRef.of(target))
        elif plan.dir is not None:
            adjacent = board.offset(firer.sq, plan.dir)
            assert adjacent is not None  # legality needs an adjacent square (R6.8.2)
            fire = FireRecord(plan.weapon, PieceRef.of(firer), Loc.of(adjacent))
        else:
            assert plan.dest is not None
            fire = FireRecord(plan.weapon, PieceRef.of(firer), Loc.of(plan.dest), plan.path)
        self.fires.append(fire)
        return firer.pid

    def _firer_concealed(self, firer: Piece, after: Position) -> bool:
        """Whether the viewer may not see the enemy ``firer`` after its Fire (R9.8)."""
        if self.viewer is None or firer.side is self.viewer:
            return False
        still = _piece_by_pid(after, firer.pid)
        return (still if still is not None else firer).hidden

    def note_article_action(self, before: Position, intent: PickUp | Drop, actor_pid: int,
                            hide: frozenset[int]) -> None:
        """A Pickup or a Drop, unless its piece is concealed from the viewer."""
        actor = _piece_by_pid(before, actor_pid)
        if actor is None or actor.pid in hide:
            return
        if isinstance(intent, PickUp):
            self.pickup = PickupRecord(PieceRef.of(actor), intent.article)
        else:
            self.drop = DropRecord(PieceRef.of(actor), intent.article)

    def note_exchange(self, before: Position, intent: Exchange, actors: tuple[int, ...],
                      hide: frozenset[int]) -> None:
        """An Exchange, unless one of its two pieces is concealed from the viewer."""
        giver, receiver = (_piece_by_pid(before, pid) for pid in actors)
        if giver is None or receiver is None or giver.pid in hide or receiver.pid in hide:
            return
        self.exchange = ExchangeRecord(PieceRef.of(giver), intent.give, intent.take,
                                       PieceRef.of(receiver))

    def note_reinforce(self, before: Position, intent: Reinforce, outcome: Outcome,
                       hide: frozenset[int]) -> None:
        """The reinforcement asked for, with its hand. The enemy's copy leaves out an
        entry whose piece is hidden from it, and a foiled one (R10.5: the enemy never
        learns the types of reinforcements that have not entered)."""
        side = before.side_to_act
        waiting = next((r for r in before.reinforcements
                        if r.side is side and r.sq == intent.sq and r.kind is intent.kind
                        and (intent.hand is None or r.hand is intent.hand)), None)
        entered = any(isinstance(e, Reinforced) for e in outcome.events)
        if self.viewer not in (None, side) and (not entered or before.next_pid in hide):
            return
        hand = waiting.hand if waiting is not None else intent.hand
        self.reinforce = ReinforceRecord(Loc.of(intent.sq), intent.kind, hand)

    # ------------------------------------------------------------ events

    def follow(self, scene: _Scene, events: Iterable[Event], turn: int,
               hide: frozenset[int], actor: int | None) -> None:
        """Results and transport movements from a step's events, in the order they
        happened; ``actor`` is the acting piece (it wins ties between twins)."""
        at = _Following(scene, turn, hide, actor)
        for event in events:
            match event:
                case Moved():
                    at.taker = self.moved(at, event)
                case Captured():
                    self.captured(at, event)
                case Dozed():
                    _shove(scene, event)
                case ProjectileLaunched():
                    self.results.append(
                        ProjectileMoved(event.projectile, Loc.of(event.sq), event.dir))
                case ProjectileStepped():
                    self.results.append(
                        ProjectileMoved(event.projectile, Loc.of(event.to), event.dir))
                case ProjectileRemoved():
                    self.results.append(ProjectileGone(event.projectile, Loc.of(event.sq)))
                case Destroyed():
                    self.destroyed(at, event)
                case Stunned():
                    self.stunned(at, event)
                case Converted():
                    self.converted(at, event)
                case TransportStepped():
                    self.transport_stepped(at, event)
                case TransportEnded():
                    self.transport_ended(at, event)
                case Fell():
                    self.fell(at, event)
                case Reinforced():
                    scene.put(Piece(scene.next_pid, event.side, event.kind, event.sq,
                                    Level.GROUND, event.hand))
                    scene.next_pid += 1
                case _:
                    pass  # no notation: hits, drops, article actions, turn and game end

    def moved(self, at: _Following, event: Moved) -> Piece:
        """The mover and its passenger arrive where the Move stopped; the passenger is
        written ``-TRA->`` from its cell to that stop (R8.7)."""
        mover = at.scene.find_or_any(event.frm, event.side, event.kind,
                                     lambda p: p.hand is event.hand, at.actor)
        if event.passenger is not None:
            passenger = at.scene.find(event.frm, event.side, event.passenger,
                                      lambda p: p.pid != mover.pid and p.transit is None)
            if passenger is not None:
                if passenger.pid not in at.hide:
                    self.passenger = TransportRecord(
                        PieceRef.of(passenger), board.cell_level(event.to),
                        Loc.of(board.cell_square(event.to)))
                at.scene.put(_placed(passenger, event.to))
        at.scene.put(_placed(mover, event.to))
        return mover

    def captured(self, at: _Following, event: Captured) -> None:
        """Takes by a Move, written with the taking piece's type. Pieces taken by the
        viewer's own Move are shown to it (the collision reveals them, R5.2.4)."""
        taker = at.taker
        for info in event.pieces:
            piece = at.scene.find_or_any(event.cell, info.side, info.kind, _described_by(info))
            mentions = [piece.pid]
            if taker is not None:
                mentions = [taker.pid] if taker.side is self.viewer else [taker.pid, piece.pid]
            if not at.hide.intersection(mentions):
                self.results.append(PieceResult(
                    TAKE, PieceRef.of(piece),
                    remaining_stunned_turns(piece.side, piece.stunned_until, at.turn),
                    piece.side, taker.kind if taker is not None else None))
            at.scene.remove(piece)

    def destroyed(self, at: _Following, event: Destroyed) -> None:
        """A kill, written with the code of its cause (KILL_CODES)."""
        info = event.piece
        code = KILL_CODES.get(event.cause)
        if code is None:
            raise ValueError(f"R16.2: no result code for a piece destroyed by {event.cause!r}")
        piece = at.scene.find_or_any(event.cell, info.side, info.kind, _described_by(info))
        self.effect(at, code, piece, piece.stunned_until)
        at.scene.remove(piece)

    def stunned(self, at: _Following, event: Stunned) -> None:
        """R7.3: the stunned piece drops its articles and leaves any transport; its
        Result describes it as the stun found it, with the new stun."""
        piece = at.scene.find_or_any(event.cell, event.side, event.kind,
                                     lambda p: p.pid not in at.stunned)
        at.stunned.add(piece.pid)
        self.effect(at, STUNNED, piece, event.until)
        at.scene.put(piece.but(stunned_until=event.until, articles=(), transit=None))

    def converted(self, at: _Following, event: Converted) -> None:
        """R6.7.2: Color is the side the conversion took the piece from."""
        piece = at.scene.find_or_any(event.cell, event.side.other, event.kind, lambda p: True)
        self.effect(at, CONVERTED, piece, piece.stunned_until)
        at.scene.put(piece.but(side=event.side))

    def effect(self, at: _Following, code: str, piece: Piece, stunned_until: int) -> None:
        """A Result on ``piece`` as the effect found it; Stun counts its owner's turns
        after the current one still stunned (R7.1)."""
        if piece.pid not in at.hide:
            self.results.append(PieceResult(
                code, PieceRef.of(piece),
                remaining_stunned_turns(piece.side, stunned_until, at.turn), piece.side))

    def transport_stepped(self, at: _Following, event: TransportStepped) -> None:
        """R8.3.1, R8.4: a rise on a Jump Pack or Scuba Fire, or a transit step."""
        piece = at.scene.find_or_any(event.frm, event.side, event.kind,
                                     lambda p: p.transit is not None, at.actor)
        self.travelled(at, piece, event.to)
        at.scene.put(_placed(piece, event.to))

    def transport_ended(self, at: _Following, event: TransportEnded) -> None:
        """An arrived or blocked Jump Pack or Scuba transport lands or surfaces next:
        that fall is the transport's last movement (R8.3.2, R8.4.2)."""
        piece = at.scene.find_or_any(event.cell, event.side, event.kind,
                                     lambda p: p.transit is not None, at.actor)
        if event.why in ("arrived", "blocked"):
            at.landing.add(piece.pid)
        at.scene.put(piece.but(transit=None))

    def fell(self, at: _Following, event: Fell) -> None:
        """A landing transport is a transport movement; a stunned flyer's fall or a
        passenger's fall from a destroyed carrier is not (R7.3)."""
        piece = at.scene.find_or_any(event.frm, event.side, event.kind,
                                     lambda p: p.pid in at.landing)
        if piece.pid in at.landing:
            at.landing.discard(piece.pid)
            self.travelled(at, piece, event.to)
        at.scene.put(piece.but(level=Level.GROUND, transit=None))

    def travelled(self, at: _Following, piece: Piece, to: int) -> None:
        """Note a transport movement: one ``-TRA->`` per piece and turn, from where it
        stood before its first to where its last left it."""
        travel = self.travels.get(piece.pid)
        if travel is None:
            self.travels[piece.pid] = _Travel(piece, to, piece.pid in at.hide)
        else:
            travel.to = to
            travel.concealed = travel.concealed or piece.pid in at.hide


@dataclass(slots=True)
class _Following:
    """What following one step's events needs: the scene, the turn (for stun counts),
    the pieces concealed from the viewer, the acting piece, the taker of the step's
    Move, transports about to land, and pieces already stunned by the step."""

    scene: _Scene
    turn: int
    hide: frozenset[int]
    actor: int | None
    taker: Piece | None = None
    landing: set[int] = field(default_factory=set)
    stunned: set[int] = field(default_factory=set)


def _shove(scene: _Scene, event: Dozed) -> None:
    """Every piece of a Doze one square on (R8.8.3); the Dozer's coincident may be
    another Dozer, so each piece moves once."""
    shoved: set[int] = set()
    for side, kind, frm, to in event.moved:
        piece = scene.find(frm, side, kind, lambda p: p.pid not in shoved)
        if piece is not None:
            shoved.add(piece.pid)
            scene.put(piece.but(sq=board.cell_square(to)))


def _described_by(info: PieceInfo) -> Callable[[Piece], bool]:
    """Whether a piece has the hand and articles an event's PieceInfo gives."""
    return lambda p: p.hand is info.hand and p.articles == info.articles


def _placed(piece: Piece, cell: int) -> Piece:
    """``piece`` moved to ``cell`` (square and level)."""
    return piece.but(sq=board.cell_square(cell), level=board.cell_level(cell))


def record_turn(actions: Sequence[Step], opening: Step | None = None,
                viewer: Side | None = None) -> TurnRecord:
    """The records of one turn.

    ``actions`` are the turn's steps in the order played (a final EndTurn step is
    allowed and ignored: its phases belong to the next turn). ``opening`` is the
    EndTurn step that started this turn, whose projectile and transport phases (R4.2)
    are part of it; without it the turn has no phase results. ``viewer`` gives that
    player's censored copy (R14.3, docs/notation.md)."""
    builder = _TurnBuilder(viewer)
    if opening is not None:
        builder.add_phase(opening)
    for i, step in enumerate(actions):
        if isinstance(step[1], EndTurn):
            if i != len(actions) - 1:
                raise ValueError("R4.11: only the last step of a turn may end it")
            break
        builder.add_action(step)
    return builder.record()


def write_turn(actions: Sequence[Step], opening: Step | None = None,
               viewer: Side | None = None) -> str:
    """The notation string of one turn (see ``record_turn`` for the arguments)."""
    return format_turn(record_turn(actions, opening, viewer))


@dataclass(frozen=True, slots=True)
class TurnSteps:
    """One turn's steps: the EndTurn step that opened it (None for the first turn
    recorded), its actions in the order played, and the EndTurn step that closed it
    (None when the game ended during the turn)."""

    opening: Step | None
    actions: tuple[Step, ...]
    closing: Step | None


def split_turns(steps: Iterable[Step]) -> list[TurnSteps]:
    """Cut a game's steps (every observer call, EndTurn included) into turns. A turn
    that started but saw no action is kept only if the game ended in its opening
    phases (it is then written ``MV:-`` with those results)."""
    turns: list[TurnSteps] = []
    opening: Step | None = None
    actions: list[Step] = []
    for step in steps:
        if isinstance(step[1], EndTurn):
            turns.append(TurnSteps(opening, tuple(actions), step))
            opening, actions = step, []
        else:
            actions.append(step)
    if actions or (opening is not None and opening[2].position.result is not None):
        turns.append(TurnSteps(opening, tuple(actions), None))
    return turns


def write_game(steps: Iterable[Step], viewer: Side | None = None) -> list[str]:
    """The history of a game, one string per turn in turn order (R16.1)."""
    return [write_turn(turn.actions, turn.opening, viewer) for turn in split_turns(steps)]


@dataclass
class TurnRecorder:
    """Records a game while it is played: pass ``recorder.observe`` as the observer of
    ``play_turn`` (or call it after each ``apply``), then ask for the notation."""

    steps: list[Step] = field(default_factory=list)

    def observe(self, before: Position, intent: Intent, outcome: Outcome) -> None:
        """Keep one step (the signature of ``play_turn``'s observer)."""
        self.steps.append((before, intent, outcome))

    def turns(self) -> list[TurnSteps]:
        """The steps so far, cut into turns."""
        return split_turns(self.steps)

    def notation(self, viewer: Side | None = None) -> list[str]:
        """The history so far, full or censored for ``viewer``."""
        return write_game(self.steps, viewer)
