"""Lying peers are caught (issue 21): a FogGame that lies in each way we could think of
plays random games with fog of war on against an honest one; every lie is caught at
once (a Fault naming the signed message) or, at the latest, by the honest side's audit
at the end, with a report naming the turn, the side at fault and the signed messages
that prove it; the honest side's evidence record stays intact (net.evidence
``verify_record``). Real Ed25519 signatures, X25519 PSI and Merkle commitments.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from halves import collect
from test_net_fog import KEYS, Wire, fog_options, new_pair, random_intent

from wec.engine import board
from wec.engine.events import Captured, Destroyed, Stunned
from wec.engine.intents import Doze, EndTurn, Fire, Intent, Move
from wec.engine.outcome import Outcome
from wec.engine.pieces import TRAITS, ArticleKind, Side, article_capacity
from wec.engine.position import Piece, Position
from wec.engine.questions import ActAnswer, FirstHit, PieceInfo, WeaponAnswer
from wec.engine.setup import standard_position
from wec.net import fog_codec as codec
from wec.net import ot
from wec.net import private_sight as ps
from wec.net.doze_judge import asker_values
from wec.net.evidence import verify_record
from wec.net.fog_game import (
    MAX_QUESTIONS,
    PRE_RUN,
    ActionLog,
    FogGame,
    FogMessage,
    Refused,
    _owner_pieces,
)

LIAR = Side.WHITE


class Liar(FogGame):
    """An honest FogGame until ``lie_from`` actions have been played; then it lies once
    (``lied`` says when)."""

    lie_from = 6
    lied: int | None = None
    via_ahead = False  # a reach lie told through a run sent ahead (wec-fog/4)
    peer: FogGame

    def ready(self) -> bool:
        return self.lied is None and len(self.actions) >= self.lie_from


def _route(liar: Liar, act: ActionLog, k: int) -> tuple[int, ...]:
    """The honest mover's route of its PSI run ``k`` (a test liar peeks at it: the worst
    case, a program that somehow knows)."""
    return tuple(liar.peer.actions[act.n].psi[k][0])


def _held(conv: Any) -> set[int]:
    return {p.cell for p in _owner_pieces(conv) if p.side is conv.side}


class DeniesCapture(Liar):
    """Answers a route question (plain or PSI) as if its pieces were not there."""

    def _answer(self, act: ActionLog, conv: Any, k: int, q: list[Any]) -> Any:
        answer, extra = super()._answer(act, conv, k, q)
        if q[0] == "first_hit" and answer is not None and (self.ready() or self.lied == act.n):
            self.lied = act.n
            return codec.to_wire(None), {"open": []} if act.openable else {}
        return answer, extra

    def _items(self, act: ActionLog, conv: Any) -> dict[int, bytes]:
        items = super()._items(act, conv)
        k = len(act.answered)
        if (self.ready() or self.lied == act.n) and set(items) & set(_route(self, act, k)):
            self.lied = act.n
            return {}
        return items


class FalseFirstHit(Liar):
    """Claims pieces on a route cell where it has none (a phantom blocker)."""

    def _items(self, act: ActionLog, conv: Any) -> dict[int, bytes]:
        items = super()._items(act, conv)
        route = _route(self, act, len(act.answered))
        if (self.ready() or self.lied == act.n) and route[0] not in items:
            self.lied = act.n
            items[route[0]] = codec.cell_contents([PieceInfo(self.side, next(iter(TRAITS)),
                                                             None, ())])
        return items

    def _answer(self, act: ActionLog, conv: Any, k: int, q: list[Any]) -> Any:
        answer, extra = super()._answer(act, conv, k, q)
        if q[0] == "first_hit" and (self.ready() or self.lied == act.n) and answer is None:
            self.lied = act.n
            cells = q[2]
            info = PieceInfo(self.side, next(iter(TRAITS)), None, ())
            return codec.to_wire(FirstHit(0, cells[0], (info,))), extra
        return answer, extra


class DeniesWeaponHit(Liar):
    """Lets a Flame, a rocket's area, a Stunner or a projectile pass its pieces without
    effect (the scenarios are those where the truth destroys or stuns one of them: a
    hit that changes nothing anyone will ever see is no lie the rules could tell). A
    Stunner's line goes by transfer (``stun_ot``): its table then says the asker's first
    piece is hit wherever it stands, as if no piece of the liar's were on the line, and
    the liar's own piece is left unstunned."""

    skipped: set[tuple[int, int]]

    def _answer(self, act: ActionLog, conv: Any, k: int, q: list[Any]) -> Any:
        if q[0] == "stun_ot" and (self.ready() or self.lied == act.n):
            step = codec.from_wire(q[2])
            if set(step.cells) & _held(conv):
                self.lied = act.n
                self.skipped = {*getattr(self, "skipped", set()), (act.n, k)}
                table = [bytes([u < len(step.cells)]) for u in range(ot.STUN_LABELS.entries)]
                return ot.LabelSender(self._ot_choice, self._ot_chosen, codec.stun_run_id(
                    self.game_id, act.n, self.side.other, k), ot.STUN_LABELS).reply(
                        q[3], [table]), {}
        if q[0] in ("weapon", "collide") and (self.ready() or self.lied == act.n):
            args = codec.from_wire(q[1:])
            cells = set(args[1].cells) if q[0] == "weapon" else {p.cell for p in args[1]}
            if cells & _held(conv) and (q[0] == "collide" or args[1].kind != "convert"):
                self.lied = act.n
                if q[0] == "collide":
                    return codec.to_wire(frozenset()), {}
                return codec.to_wire(WeaponAnswer()), {}
        return super()._answer(act, conv, k, q)

    def _told(self, act: ActionLog, conv: Any, k: int, q: list[Any]) -> None:
        if (act.n, k) not in getattr(self, "skipped", set()):
            super()._told(act, conv, k, q)


def _hidden_own(game: FogGame) -> list[Piece]:
    seen = codec.surely_seen(game.half)
    return [p for p in game.half.pieces if p.side is game.side and p.pid not in seen
            and p.transit is None]


class ChangesPiece(Liar):
    """Between two commitments, gives a hidden piece of its own an article it never
    picked up."""

    def _commit(self) -> Any:
        if self.ready():
            for p in _hidden_own(self):
                arts = (*p.articles, ArticleKind.ANTI_FLAME)
                if len(arts) <= article_capacity(p.kind, arts):
                    self.lied = len(self.actions) - 1
                    changed = p.but(articles=arts)
                    self._half = self._half.evolve(pieces=tuple(
                        changed if q is p else q for q in self._half.pieces))
                    break
        return super()._commit()


class MovesIllegally(Liar):
    """Moves a hidden piece of its own to a free cell far away, then commits."""

    def _commit(self) -> Any:
        if self.ready():
            taken = {p.cell for p in self._half.pieces}
            for p in _hidden_own(self):
                free = [c for c in range(board.CELLS) if c not in taken
                        and board.cell_level(c) == p.level
                        and board.distance(c // 3, p.sq) >= 4]
                if free:
                    self.lied = len(self.actions) - 1
                    to = free[len(free) // 2]
                    changed = p.but(sq=to // 3)
                    self._half = self._half.evolve(pieces=tuple(
                        changed if q is p else q for q in self._half.pieces))
                    break
        return super()._commit()


class RevealsIllegalMove(Liar):
    """Plays honestly but reveals, for its Move (of a hidden piece, in the scenarios), an
    illegal one."""

    def reveal(self) -> FogMessage:
        for a in self.actions:
            if a.actor is self.side and isinstance(a.intent, Move):
                self.lied = a.n
                a.intent = Move(a.intent.frm, (a.intent.frm + 3 * 9) % board.CELLS)
                break
        return super().reveal()


class ClaimsCapture(Liar):
    """Its Move claims to have taken the peer's primary piece (a claimed win)."""

    def _answer(self, act: ActionLog, conv: Any, k: int, q: list[Any]) -> Any:
        if q[0] == "act" and q[1] == "move" and self.ready():
            self.lied = act.n
            king = next(p for p in act.start.pieces if p.side is not self.side
                        and TRAITS[p.kind].primary)
            return codec.to_wire(ActAnswer(king.cell, (PieceInfo.of(king),), king.kind)), {}
        return super()._answer(act, conv, k, q)


class ForgesHash(Liar):
    """Reports a public state hash it does not have (e.g. a result in its favour)."""

    def _send(self, kind: str, payload: Any) -> None:
        if kind == "done" and self.ready():
            self.lied = payload["n"]
            payload = {**payload, "hash": "0" * 64}
        super()._send(kind, payload)


class DeniesPresence(Liar):
    """Answers a presence run (R1.6, oblivious transfer) as if none of its pieces stood
    anywhere, when the cell asked holds one (it peeks at the cell: the worst case)."""

    def _presence_reply(self, act: ActionLog, back: bool, k: int, q: list[Any],
                        cells: set[int] | frozenset[int]) -> bytes:
        peer = self.peer.actions[act.n]
        asked = peer.backs.questions[k] if back else peer.mine.questions[k]
        if (self.ready() or self.lied == act.n) \
                and set(codec.from_wire(asked[1])) & set(cells):
            self.lied = act.n
            cells = frozenset()
        return super()._presence_reply(act, back, k, q, cells)


class ProbesPresence(Liar):
    """Asks a presence run (R1.6) about another cell than the one its piece enters (it
    probes where the peer's hidden pieces are)."""

    def _send(self, kind: str, payload: Any) -> None:
        q = payload.get("q") if isinstance(payload, dict) else None
        if kind in ("ask", "back") and q and q[0] == "presence_ot" and self.ready():
            n, i = payload["n"], payload["i" if kind == "ask" else "j"]
            self.lied = n
            probe = ot.PresenceReceiver(self._ot_pairs, codec.presence_run_id(
                self.game_id, n, self.side, kind == "back", i))
            asked = self.actions[n].mine.questions[i] if kind == "ask" \
                else self.actions[n].backs.questions[i]
            other = (codec.from_wire(asked[1])[0] + 3) % board.CELLS
            self._presence_receivers = {(n, kind == "back", i): probe}
            payload = {**payload, "q": ["presence_ot", probe.query(other)]}
        super()._send(kind, payload)


class AsksPresenceBack(Liar):
    """Asks back a presence question (R1.6) that its own resolution implies, as every
    side did until ``wec-fog/25``: each such question has us answer about the cell it
    names once more, beyond what the protocol asks of us."""

    def _implied_presence(self, act: ActionLog, rank: int, cells: tuple[int, ...]
                          ) -> frozenset[int] | None:
        answer = super()._implied_presence(act, rank, cells)
        if answer is not None and self.ready():
            self.lied = act.n
            return None
        return answer


class MisstatesDozeGround(Liar):
    """Judges its Doze (R8.8.4-5, net.doze_judge) with a query made from a Ground
    summary without its pieces beside the Dozer's square (it hides how crowded the
    destinations are)."""

    def _send(self, kind: str, payload: Any) -> None:
        q = payload.get("q") if isinstance(payload, dict) else None
        if kind == "ask" and q and q[0] == "doze_ot" and self.ready():
            n, i = payload["n"], payload["i"]
            question = codec.from_wire(q[1])
            true = self.actions[n].mine_args[i][1][0].asker_ground
            false = tuple(entry for entry in true if entry[0] == question.sq)
            if false != true:
                self.lied = n
                receiver = ot.LabelReceiver(self._ot_pairs, codec.doze_run_id(
                    self.game_id, n, self.side, i))
                payload = {**payload, "q": [q[0], q[1], receiver.query(asker_values(
                    question, false)), *q[3:]]}
        super()._send(kind, payload)


class LiesDozeVerdict(Liar):
    """Tells the other side the opposite of its Doze's private verdict (``judged``)."""

    def _send(self, kind: str, payload: Any) -> None:
        if kind == "judged" and self.ready():
            self.lied = payload["n"]
            payload = {**payload, "foiled": not payload["foiled"]}
        super()._send(kind, payload)


class LiesReach(Liar):
    """Replies to the peer's reach run (R9.3(b), R9.6: the owner asks which of its
    squares our detectors reach) as if its detectors reached every square, so that the
    owner shows it hidden pieces its true detectors do not reach (it peeks at the
    owner's squares to lie only where the truth differs: the worst case)."""

    def _reach_items(self, act: ActionLog, j: int, sight: Any) -> dict[int, int]:
        items = super()._reach_items(act, j, sight)
        asked = _squares_asked(self.peer, act.n, j)
        if (self.ready() or self.lied == act.n) and any(items[sq] != 3 for sq in asked):
            self.lied = act.n
            self.via_ahead = self.via_ahead or j >= PRE_RUN
            items = dict.fromkeys(range(100), 3)
        return items


class ForgesInputQuery(Liar):
    """Tells its true bits in its masked tables, but asks the input labels of the
    detection's evaluation with the stealth reach bit of every position flipped (the
    owner's label swaps then hand it the labels of the opposite reach: it evaluates the
    owner's pieces as if its detectors reached where they do not). It keeps the forged
    query's receiver to read the labels, as such a program would."""

    def _sight_reply(self, act: ActionLog, j: int, i: int, queries: list[bytes],
                     sight: Any) -> list[bytes]:
        replies = super()._sight_reply(act, j, i, queries, sight)
        if len(replies) == 3 and self.ready():
            self.lied = act.n
            run = self._sight_askers[(act.n, i)]
            forged = ot.LabelReceiver(run.bases.pairs, ps.sub_run(run.run_id, b"inputs"),
                                      ps.INPUT_LABELS)
            replies[2] = forged.query([(mask >> bit & 1) ^ (bit == 0) for mask in run.masks
                                       for bit in range(ps.INPUTS)])
            run._inputs = forged
        return replies


def _squares_asked(owner: FogGame, n: int, j: int) -> tuple[int, ...]:
    """The squares of ``owner``'s reach run ``j`` of action ``n``: asked back, or sent
    ahead (``PRE_RUN`` on: by the detect question it serves)."""
    if j < PRE_RUN:
        return tuple(owner.actions[n].backs.questions[j][1])
    k = j - PRE_RUN
    sent = owner._first_reach_mine.get(n) if k == 0 else owner.actions[n].pre_mine.get(k)
    assert sent is not None
    return sent[0]


class ProbesReach(Liar):
    """Asks the peer's detector reach at squares where it has no piece, in the padding
    positions of its detection queries (it would probe where the peer's hidden detectors
    reach; the peer's masks hide what it reads, net.private_sight, but the query is not
    the protocol's): in a run asked back (``back`` ``reach``) and in the queries it sends
    ahead (``reach`` in its answers and dones)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.probed: set[tuple[int, int]] = set()

    def _probe(self, n: int, j: int) -> bytes | None:
        squares = list(_squares_asked(self, n, j))
        extra = [sq for sq in range(100) if sq not in squares]
        probe = squares + extra[:ps.SLOTS - len(squares)]
        if len(probe) == len(squares):
            return None
        return ps.reach_receiver(self._bases(), codec.reach_run_id(
            self.game_id, n, self.side, j)).query_slots(probe)

    def _send(self, kind: str, payload: Any) -> None:
        q = payload.get("q") if isinstance(payload, dict) else None
        if kind == "back" and q and q[0] == "reach" and self.ready():
            query = self._probe(payload["n"], payload["j"])
            if query is not None:
                self.lied = payload["n"]
                payload = {**payload, "q": ["reach", query, q[2]]}
        elif kind in ("answer", "done") and "reach" in payload and self.ready():
            # a query sent ahead: it lies once the peer's detect uses it (its table)
            n, k = (payload["n"], payload["i"] + 1) if kind == "answer" \
                else (payload["n"] + 1, 0)
            query = self._probe(n, PRE_RUN + k)
            if query is not None:
                self.probed.add((n, k))
                payload = {**payload, "reach": [query, payload["reach"][1]]}
        super()._send(kind, payload)

    def _their_question(self, act: ActionLog, payload: dict[str, Any]) -> None:
        super()._their_question(act, payload)
        if "reach" in payload and (act.n, payload["i"]) in self.probed and self.lied is None:
            self.lied = act.n
            self.via_ahead = True


def _liar_side(cls: type[Liar], before: Position, intent: Intent, out: Outcome) -> Side | None:
    """The side that lies in this scenario, or None when the scenario gives this lie no
    occasion (a capture to deny, a weapon reaching the liar's pieces...)."""
    actor = before.side_to_act
    other = actor.other
    hidden = {s: any(p.side is s and p.hidden and p.transit is None for p in before.pieces)
              for s in Side}
    captured = any(isinstance(e, Captured) for e in out.events)
    if cls is DeniesCapture:
        return other if isinstance(intent, Move) and captured else None
    if cls is FalseFirstHit:
        return other if isinstance(intent, Move) and not captured else None
    if cls is DeniesWeaponHit:
        hit = any(getattr(e, "side", None) is other
                  or getattr(getattr(e, "piece", None), "side", None) is other
                  for e in out.events if isinstance(e, Destroyed | Stunned))
        return other if isinstance(intent, Fire) and hit else None
    if cls in (ChangesPiece, MovesIllegally):
        if isinstance(intent, EndTurn) and out.position.result is None:
            return other if hidden[other] else actor if hidden[actor] else None
        return None
    if cls is RevealsIllegalMove:
        mover = isinstance(intent, Move) and any(
            p.cell == intent.frm and p.side is actor and p.hidden for p in before.pieces)
        return actor if mover else None
    if cls is ClaimsCapture:
        return actor if isinstance(intent, Move) else None
    if cls is DeniesPresence:  # turn-start transports ask the actor, reinforcements the other
        return actor if isinstance(intent, EndTurn) else other
    if cls in (ProbesPresence, AsksPresenceBack):
        return other if isinstance(intent, EndTurn) else actor
    if cls in (MisstatesDozeGround, LiesDozeVerdict):
        return actor if isinstance(intent, Doze) else None
    if cls in (LiesReach, ProbesReach, ForgesInputQuery):  # both detect after every step
        return actor
    return actor  # ForgesHash


LIARS = [DeniesCapture, FalseFirstHit, DeniesWeaponHit, ChangesPiece, MovesIllegally,
         RevealsIllegalMove, ClaimsCapture, ForgesHash, DeniesPresence, ProbesPresence,
         AsksPresenceBack, MisstatesDozeGround, LiesDozeVerdict, LiesReach, ProbesReach,
         ForgesInputQuery]
SCENARIOS = collect(2101, 500, conceal_share=0.5) + collect(2102, 300)


def _lie(cls: type[Liar], before: Position, intent: Intent, side: Side, seed: int = 0,
         lie_from: int = 0) -> tuple[Wire, Liar]:
    """A pair on ``before`` whose ``side`` is a ``cls`` liar (peeking at its honest peer,
    lying from action ``lie_from`` on), with ``intent`` played over the wire."""
    games = new_pair(before, {side: cls}, seed=seed)
    lying = games[side]
    assert isinstance(lying, Liar)
    lying.peer = games[side.other]
    lying.lie_from = lie_from
    wire = Wire(games)
    wire.run()
    wire.play(before.side_to_act, intent)
    return wire, lying


def _play(wire: Wire, rng: random.Random, turns: int) -> None:
    """Random play from each side's own half state for ``turns`` turns."""
    games = wire.games
    while games[Side.BLACK].half.turn <= turns and games[Side.BLACK].result is None:
        g = games[games[Side.BLACK].half.side_to_act]
        for step in range(8):
            events = wire.play(g.side, random_intent(g.half, rng, step))
            if isinstance(events and events[0], Refused) and g.half.actions.move:
                wire.play(g.side, EndTurn())
            if g.half.side_to_act is not g.side:
                break


def _refused_at_once(wire: Wire, honest: Side, reason: str) -> None:
    """The ``honest`` side stopped the game at once with a fault whose reason holds
    ``reason``, naming the signed message, and its record stays intact."""
    fault = wire.faults()[honest]
    assert fault and reason in fault[0].reason, fault
    assert fault[0].proof
    _honest_record_intact(wire.games[honest])


def _honest_record_intact(game: FogGame) -> None:
    record = game.log.record()
    assert verify_record(record, KEYS[Side.WHITE].public_key,
                         KEYS[Side.BLACK].public_key).ok


class TampersOnce(FogGame):
    """An honest FogGame that, once, sends what ``tamper`` makes of one of its own
    messages: valid and signed, but of the wrong shape, at the wrong time, repeated or
    left out (the hostile peer of the refused-at-once tests; ``how`` names the way)."""

    how = ""
    tampered = False

    def tamper(self, kind: str, payload: dict[str, Any]) -> list[tuple[str, Any]] | None:
        """The messages to send instead of ``kind`` / ``payload`` (none: left out), or
        None to send it as it is."""
        return None

    def _send(self, kind: str, payload: Any) -> None:
        if not self.tampered and isinstance(payload, dict):
            instead = self.tamper(kind, payload)
            if instead is not None:
                self.tampered = True
                for k, p in instead:
                    super()._send(k, p)
                return
        super()._send(kind, payload)


def tampering(cls: type[TampersOnce], how: str) -> type[TampersOnce]:
    """``cls`` tampering the ``how`` way."""
    return type(cls.__name__.lstrip("_"), (cls,), {"how": how})


def refused_at_once(wire: Wire, honest: Side, reason: str) -> None:
    """The ``honest`` side stopped the game at once (a fault, not the audit), naming
    ``reason`` and the signed message as proof; its record stays intact."""
    faults = wire.faults()[honest]
    assert faults and reason in faults[0].reason and faults[0].proof, faults
    _honest_record_intact(wire.games[honest])


def audit_names_the_liar(wire: Wire, lying: Liar, side: Side, reason: str) -> None:
    """The honest side's audit of ``side`` (``lying``) is not clean, names the liar,
    the turn, the lie (``reason``) and the signed messages, and its record stays
    intact."""
    verdict = wire.games[side.other].audit(lying.reveal())
    assert not verdict.clean, type(lying).__name__
    assert verdict.culprit == side.value and verdict.turn is not None and verdict.proof, \
        verdict.report()
    assert reason in verdict.report()["reason"], verdict.report()
    _honest_record_intact(wire.games[side.other])


@pytest.mark.parametrize("liar", LIARS, ids=[cls.__name__ for cls in LIARS])
def test_every_lie_is_caught_with_proof(liar: type[Liar]) -> None:
    """Positions of random games (many pieces concealed) where the lie has an occasion:
    the liar lies in the first action (or its first commitment after it); the honest
    side catches it at once or at the audit, naming turn, culprit and proof."""
    caught = at_once = 0
    for before, intent, out in SCENARIOS:
        side = _liar_side(liar, before, intent, out)
        if side is None:
            continue
        wire, lying = _lie(liar, before, intent, side, seed=caught,
                           lie_from=1 if liar in (ChangesPiece, MovesIllegally) else 0)
        games = wire.games
        if lying.lied is None and liar is not RevealsIllegalMove:
            continue  # e.g. the capture was of a piece the liar could not deny
        honest = games[side.other]
        reveal = lying.reveal()
        assert lying.lied is not None
        verdict = honest.audit(reveal)
        assert not verdict.clean, (liar.__name__, intent)
        assert verdict.culprit == side.value, verdict.report()
        assert verdict.turn is not None and verdict.proof, verdict.report()
        json.dumps(verdict.report())
        fault = wire.faults()[honest.side]
        if fault:
            assert fault[0].proof
            at_once += 1
        _honest_record_intact(honest)
        caught += 1
        if caught >= 8:
            break
    print(f"{liar.__name__}: {caught} lies caught, {at_once} of them at once")
    assert caught >= 5


@pytest.mark.parametrize("liar", [LiesReach, ProbesReach], ids=["LiesReach", "ProbesReach"])
def test_reach_lies_through_runs_sent_ahead_are_caught(liar: type[Liar]) -> None:
    """Most detections take the owner's reach query sent ahead with its answer (or its
    done) and the table with the detect question: a false table, or a query sent ahead
    that probes squares without the owner's pieces, is caught by the audit like one
    asked back, naming the culprit and the signed message."""
    caught = 0
    for before, _intent, _out in SCENARIOS:
        games = new_pair(before, {Side.BLACK: liar}, seed=caught)
        lying = games[Side.BLACK]
        assert isinstance(lying, Liar)
        lying.peer = games[Side.WHITE]
        lying.lie_from = 0
        wire = Wire(games)
        wire.run()
        rng = random.Random(caught)
        for _ in range(12):  # a few actions, until the lie (it may stop the game at once)
            g = games[games[Side.BLACK].half.side_to_act]
            if lying.via_ahead or any(wire.faults().values()) or g.result is not None:
                break
            events = wire.play(g.side, random_intent(g.half, rng, 0))
            if isinstance(events and events[0], Refused):
                wire.play(g.side, EndTurn())
        if not lying.via_ahead:
            continue
        honest = games[Side.WHITE]
        verdict = honest.audit(lying.reveal())
        assert not verdict.clean and verdict.culprit == Side.BLACK.value, verdict.report()
        assert "reach" in (verdict.reason or ""), verdict.reason
        assert verdict.proof, verdict.report()
        _honest_record_intact(honest)
        caught += 1
        if caught >= 3:
            break
    assert caught == 3


def test_a_forged_input_query_is_named_by_the_audit() -> None:
    """The asker's input query picks, by its mask bits, the labels of its true bits: a
    query made of other bits evaluates the owner's pieces on a sight it does not have,
    and nothing in the protocol shows it. The audit remakes the query from the peer's
    revealed seed and names it (not its tables, which were true), with the proof."""
    caught = 0
    for before, intent, out in SCENARIOS:
        side = _liar_side(ForgesInputQuery, before, intent, out)
        assert side is not None
        wire, lying = _lie(ForgesInputQuery, before, intent, side, seed=caught)
        if lying.lied is None:
            continue  # no detection of the liar's in the action (a hidden Exchange's)
        honest = wire.games[side.other]
        verdict = honest.audit(lying.reveal())
        assert not verdict.clean and verdict.culprit == side.value, verdict.report()
        assert "input query" in (verdict.reason or ""), verdict.reason
        assert verdict.turn is not None and verdict.proof, verdict.report()
        _honest_record_intact(honest)
        caught += 1
        if caught >= 4:
            break
    assert caught == 4


def test_a_peer_that_refuses_to_reveal_is_named() -> None:
    games = new_pair(standard_position(fog_options()))
    wire = Wire(games)
    wire.run()
    _play(wire, random.Random(3), 3)
    verdict = games[Side.BLACK].unrevealed()
    assert not verdict.clean and verdict.culprit == "white" and verdict.proof
    _honest_record_intact(games[Side.BLACK])


class RepeatsPresence(Liar):
    """Sends its presence questions of one ``kind`` (``ask``: its resolution's, ``back``:
    its owner side's) twice, freshly signed, under one number (a second answer under one
    key would let it compare the two replies)."""

    kind = "ask"

    def _implied_presence(self, act: ActionLog, rank: int, cells: tuple[int, ...]
                          ) -> frozenset[int] | None:
        # its owner side asks back what its resolution implies (``AsksPresenceBack``):
        # since wec-fog/25 an honest side asks back only a presence question its own
        # resolution does not ask (none in the random games here)
        if self.kind == "back":
            return None
        return super()._implied_presence(act, rank, cells)

    def _send(self, kind: str, payload: Any) -> None:
        q = payload.get("q") if isinstance(payload, dict) else None
        super()._send(kind, payload)
        if kind == self.kind and q and q[0] == "presence_ot" and self.ready():
            self.lied = payload["n"]
            super()._send(kind, payload)


@pytest.mark.parametrize("kind,reason", [("ask", "was due"),
                                         ("back", "asked twice under one number")])
def test_a_presence_question_repeated_under_its_number_is_refused_at_once(kind: str,
                                                                          reason: str) -> None:
    """A valid, signed copy at the wrong time: the honest side stops the game at once,
    naming the repeat and the signed message."""
    repeats = type("Repeats", (RepeatsPresence,), {"kind": kind})
    refused = 0
    for before, intent, _out in SCENARIOS + collect(2103, 600, conceal_share=0.7):
        for side in Side:
            wire, lying = _lie(repeats, before, intent, side, seed=refused)
            if lying.lied is None:
                continue
            _refused_at_once(wire, side.other, reason)
            refused += 1
        if refused >= 3:
            break
    assert refused >= 3, refused


def test_a_presence_question_asked_back_that_the_peers_own_resolution_implies_is_named() -> None:
    """Since ``wec-fog/25`` a side's owner side takes the answer of its own resolution's
    presence question of the same rank and cells (R1.6: a transit step, a landing, a
    reinforcement) and never asks it back. A peer that asks it back all the same has
    us answer about that cell once more: we cannot tell during the game (the cell
    goes by oblivious transfer), and the audit names the action, the rule and the
    signed question."""
    named = 0
    for before, intent, out in SCENARIOS:
        side = _liar_side(AsksPresenceBack, before, intent, out)
        if side is None:
            continue
        wire, lying = _lie(AsksPresenceBack, before, intent, side, seed=named)
        if lying.lied is None:
            continue
        assert not any(wire.faults().values())
        audit_names_the_liar(wire, lying, side, f"action {lying.lied}: the peer asked back "
                             "about cells its rules do not need (R1.6 presence)")
        named += 1
        if named >= 3:
            break
    assert named >= 3, named


class ClaimsToSeeAll(Liar):
    """Adds to its opening the list of our pieces it claims to see (``sees``, as until
    ``wec-fog/13``, when such a claim made us send the intents of our
    hidden pieces whole: a hidden Move's route, R9)."""

    def _send(self, kind: str, payload: Any) -> None:
        if kind == "commit":
            theirs = {p.pid for p in self.half.pieces if p.side is not self.side}
            payload = {**payload, "sees": sorted(theirs)}
            self.lied = 0
        super()._send(kind, payload)


def test_an_opening_that_claims_to_see_our_pieces_is_refused_at_once() -> None:
    """Since ``wec-fog/14`` our public forms go by what we know alone (net.fog_codec
    ``surely_seen``), and an opening carries the commitment alone: a claim of what the
    peer sees is refused before any intent of ours goes out, with the opening as proof."""
    games = new_pair(standard_position(fog_options()), {Side.WHITE: ClaimsToSeeAll})
    wire = Wire(games)
    wire.run()
    fault = wire.faults()[Side.BLACK]
    assert fault and fault[0].reason == "an opening carries the commitment alone (wec-fog/14)"
    assert fault[0].proof
    assert not games[Side.BLACK].actions
    _honest_record_intact(games[Side.BLACK])


class RepeatsReach(Liar):
    """Asks a second reach run for one detection, under a new number and about other
    squares (two replies would tell it the reach at twice as many squares)."""

    def _send(self, kind: str, payload: Any) -> None:
        q = payload.get("q") if isinstance(payload, dict) else None
        super()._send(kind, payload)
        if kind == "back" and q and q[0] == "reach" and self.ready():
            n, j = payload["n"], payload["j"]
            self.lied = n
            query = ps.reach_receiver(self._bases(), codec.reach_run_id(
                self.game_id, n, self.side, j + 100)).query_slots(list(range(40, 88)))
            super()._send(kind, {**payload, "j": j + 100, "q": ["reach", query, q[2]]})


def test_a_second_reach_run_for_one_detection_is_refused_at_once() -> None:
    """A valid, signed reach query at the wrong time: the honest side stops the game at
    once, naming it, and its record stays intact."""
    refused = 0
    for before, intent, _out in SCENARIOS[:60]:
        side = before.side_to_act
        wire, lying = _lie(RepeatsReach, before, intent, side, seed=refused)
        if lying.lied is None:
            continue
        _refused_at_once(wire, side.other, "a second reach question for one detection")
        refused += 1
        if refused >= 3:
            break
    assert refused >= 3, refused


class FloodsQuestions(Liar):
    """Once its resolution asks its first question of an action, sends ``count`` more
    valid, signed presence runs (``ask``, or ``back`` while our resolution waits), each
    under the next number: every one would cost us a PSI reply."""

    kind = "ask"
    count = MAX_QUESTIONS + 20

    def _send(self, kind: str, payload: Any) -> None:
        super()._send(kind, payload)
        q = payload.get("q") if isinstance(payload, dict) else None
        if kind == self.kind and q and self.ready():
            n = payload["n"]
            self.lied = n
            number = "i" if kind == "ask" else "j"
            for extra in range(payload[number] + 1, payload[number] + 1 + self.count):
                query = ot.presence_query(self._ot_pairs, codec.presence_run_id(
                    self.game_id, n, self.side, kind == "back", extra), extra % 300)
                super()._send(kind, {"n": n, number: extra, "q": ["presence_ot", query]})


@pytest.mark.parametrize("kind", ["ask", "back"])
def test_a_flood_of_valid_questions_is_cut_at_the_bound(kind: str) -> None:
    """Valid, signed questions beyond any action's need: the honest side answers up to
    the bound, then stops the game naming the flood (the peer is the culprit) and its
    record stays intact."""
    floods = type("Floods", (FloodsQuestions,), {"kind": kind})
    for before, intent, _out in SCENARIOS:
        side = before.side_to_act.other  # the peer's owner side asks back, or it asks
        wire, lying = _lie(floods, before, intent, side)
        games = wire.games
        if lying.lied is None:
            continue
        fault = wire.faults()[side.other]
        what = "questions" if kind == "ask" else "questions asked back"
        assert fault and fault[0].reason == (f"more than {MAX_QUESTIONS} {what} in one "
                                             "action (a flood)"), fault
        assert fault[0].proof
        answered = [m for m in wire.received[side] if m.kind == ("answer" if kind == "ask"
                                                                  else "back_answer")]
        assert len(answered) <= MAX_QUESTIONS
        _honest_record_intact(games[side.other])
        return
    raise AssertionError("no scenario gave the flood an occasion")


def test_a_peer_that_stops_answering_mid_action_and_reveals_is_named() -> None:
    """The peer stops answering in the middle of our action (the game then ends on a
    ``protocol`` time claim, net.game_clock) yet reveals: every question of its was
    answered, so the audit names it, with our last message as the proof."""
    games = new_pair(standard_position(fog_options()))
    wire = Wire(games)
    wire.run()
    _play(wire, random.Random(4), 2)
    me = games[Side.BLACK].half.side_to_act
    ours, theirs = games[me], games[me.other]
    step = ours.play(random_intent(ours.half, random.Random(5), 0))
    assert step.send and ours.busy  # our intent goes out; the peer never answers it
    verdict = ours.audit(theirs.reveal())
    assert not verdict.clean and verdict.culprit == me.other.value, verdict.report()
    assert verdict.reason == (f"the peer stopped answering in action {len(ours.actions) - 1}: "
                              "every question of its was answered, and its next message "
                              "never came")
    assert verdict.proof == (len(ours.log.record().entries) - 2,)  # ours, then its reveal
    _honest_record_intact(ours)


class RepeatsBaseTransfer(Liar):
    """Sends its opening's base transfer message (``ot``: its queries, or ``ot_reply``:
    its seeds) twice, freshly signed: a second reply would give the peer's queries two
    answers, a second query set two seeds of a pair."""

    kind = "ot"

    def _send(self, kind: str, payload: Any) -> None:
        super()._send(kind, payload)
        if kind == self.kind:
            self.lied = 0
            super()._send(kind, payload)


@pytest.mark.parametrize("kind,reason", [("ot", "a second base transfer"),
                                         ("ot_reply", "a base transfer reply not asked for")])
def test_a_base_transfer_sent_twice_is_refused_at_once(kind: str, reason: str) -> None:
    repeats = type("Repeats", (RepeatsBaseTransfer,), {"kind": kind})
    games = new_pair(standard_position(fog_options()), {Side.WHITE: repeats})
    wire = Wire(games)
    wire.run()
    fault = wire.faults()[Side.BLACK]
    assert fault and fault[0].reason == reason, fault
    assert fault[0].proof
    _honest_record_intact(games[Side.BLACK])
