"""A Stunner's line over the wire (R6.6.1; issue 21, ``wec-fog/14``).

The Stunner hits the first cell of its line holding any piece, of either side. Each
side resolves the Fire and asks the other about its pieces; until session 23 each
question named the place of the asker's own first piece on the line (``limit``), so a
side learned where a hidden enemy piece stood on it (a third of the Stunner Fires of
random games with pieces concealed had a side's first piece hidden from the other). Now
each side reads the other's table by label transfer at its own place (``stun_ot``): it
learns whether its own first piece is hit, the other side nothing of its place.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from halves import collect, half_key
from test_net_audit import Liar, _honest_record_intact
from test_net_fog import Wire, finish_and_audit, new_pair

from wec.engine.intents import Fire
from wec.engine.knowledge import project
from wec.engine.pieces import ArticleKind, Side
from wec.engine.position import Position
from wec.engine.questions import WeaponStep
from wec.net import fog_codec as codec
from wec.net import ot
from wec.net.fog_game import ActionLog


def _first_hidden_on_line(before: Position, intent: Fire) -> bool:
    """Whether a side's first piece on the Stunner's line is hidden from the other."""
    from wec.engine.sides import flame_cells
    cells = flame_cells(intent.frm, intent.dir,  # type: ignore[arg-type]
                        before.options.stunner_range)
    for side in Side:
        occupied = {p.sq * 3 + p.level: p for p in before.pieces
                    if p.side is side and p.transit is None}
        first = next((c for c in cells if c in occupied), None)
        if first is not None and occupied[first].pid not in {
                p.pid for p in project(before, side.other).pieces}:
            return True
    return False


def _stun_fires(count: int, hidden_first: bool = True) -> list[tuple[Position, Fire, Any]]:
    found = []
    for seed in (2301, 2302, 2303, 2304):
        for before, intent, out in collect(seed, 1500, conceal_share=0.5):
            if isinstance(intent, Fire) and intent.weapon is ArticleKind.STUNNER \
                    and before.result is None \
                    and (not hidden_first or _first_hidden_on_line(before, intent)):
                found.append((before, intent, out))
                if len(found) >= count:
                    return found
    return found


STUNS = _stun_fires(12)


def test_no_stunner_question_names_the_askers_first_piece_and_both_halves_follow() -> None:
    """In Stunner Fires where one side's first piece on the line is hidden from the
    other, every Stunner question travels as ``stun_ot`` (its line, no place: ``limit``
    0, and the transfer query), both halves are the full state's afterwards, and the
    game audits clean on both sides."""
    assert len(STUNS) >= 10
    for before, intent, out in STUNS:
        games = new_pair(before, seed=11)
        wire = Wire(games)
        wire.run()
        wire.play(before.side_to_act, intent)
        assert not any(wire.faults().values())
        asked = [codec.unpack(m.body)["q"] for side in Side for m in wire.received[side]
                 if m.kind == "ask"]
        stuns = [q for q in asked if q[0] == "stun_ot"]
        assert len(stuns) == 2  # each side asks the other about its pieces on the line
        for q in stuns:
            step = codec.from_wire(q[2])
            assert isinstance(step, WeaponStep) and step.kind == "stun" and step.limit == 0
            assert len(q[3]) == ot.STUN_LABELS.query_size
        assert not any(q[0] == "weapon" and codec.from_wire(q[2]).kind == "stun"
                       for q in asked)
        full = out.position
        for side in Side:
            assert half_key(games[side].half) == half_key(project(full, side))
        verdicts = finish_and_audit(wire)
        assert all(v.clean for v in verdicts.values()), verdicts


class NamesItsFirstPiece(Liar):
    """Asks its Stunner question the old way: the line with the place of its first piece
    on it (``limit``), not by transfer."""

    def _send(self, kind: str, payload: Any) -> None:
        if kind == "ask" and payload["q"][0] == "stun_ot":
            q = payload["q"]
            step = codec.from_wire(q[2])
            payload = {**payload, "q": ["weapon", q[1], codec.to_wire(step)]}
            self.lied = 0
        super()._send(kind, payload)


class ProbesTheLine(Liar):
    """Asks the other side's table at another place than its first piece's (at the
    line's start): it learns whether the other side has a piece there."""

    def _send(self, kind: str, payload: Any) -> None:
        if kind == "ask" and payload["q"][0] == "stun_ot":
            q = payload["q"]
            probe = ot.LabelReceiver(self._ot_pairs, codec.stun_run_id(
                self.game_id, payload["n"], self.side, payload["i"]), ot.STUN_LABELS)
            query = probe.query([0])
            if query != q[3]:
                self.lied = payload["n"]
                payload = {**payload, "q": [*q[:3], query]}
        super()._send(kind, payload)

    def _stun_outcome(self, act: ActionLog, i: int, reply: Any) -> Any:
        return super()._stun_outcome(act, i, reply) if self.lied != act.n else \
            _read_at_zero(self, act, i, reply)


def _read_at_zero(liar: Liar, act: ActionLog, i: int, reply: bytes) -> Any:
    """The prober's reading of the table it asked at place 0 (as if its piece were
    there), noted as its own piece's fate as an honest side notes it."""
    from wec.engine.questions import WeaponAnswer
    receiver = ot.LabelReceiver(liar._ot_pairs, codec.stun_run_id(
        liar.game_id, act.n, liar.side, i), ot.STUN_LABELS)
    receiver.query([0])
    hit = bool(receiver.finish(reply)[0][0] & 1)
    act.own_stun.append(hit)
    return WeaponAnswer(blocked=not hit)


def test_a_side_that_probes_the_line_at_another_place_is_named_by_the_audit() -> None:
    """The probe goes unseen during the game (the query is random-looking); the audit
    remakes the query from the prober's revealed seed and its true first piece and names
    it, with the question as proof."""
    caught = 0
    rng = random.Random(3)
    for before, intent, _ in rng.sample(STUNS, len(STUNS)):
        liar = before.side_to_act
        games = new_pair(before, {liar: ProbesTheLine})
        wire = Wire(games)
        wire.run()
        wire.play(liar, intent)
        prober = games[liar]
        assert isinstance(prober, ProbesTheLine)
        if prober.lied is None or any(wire.faults().values()):
            continue
        verdict = finish_and_audit(wire)[liar.other]
        assert not verdict.clean and verdict.culprit == liar.value, verdict
        assert "weapon" in verdict.reason or "stun" in verdict.reason, verdict.reason
        caught += 1
    assert caught >= 3


class AsksAnotherLine(Liar):
    """Asks its Stunner question about the line the other way from the firer (a table
    there would tell it one bit of the other side's pieces on that line)."""

    def _send(self, kind: str, payload: Any) -> None:
        if kind == "ask" and payload["q"][0] == "stun_ot":
            from dataclasses import replace

            from wec.engine.sides import flame_cells
            q = payload["q"]
            step = codec.from_wire(q[2])
            form = self.actions[payload["n"]].form
            back = (-form.dir[0], -form.dir[1])
            cells = flame_cells(form.frm, back, len(step.cells))
            payload = {**payload, "q": [q[0], q[1], codec.to_wire(replace(step, cells=cells)),
                                        q[3]]}
            self.lied = 0
        super()._send(kind, payload)


@pytest.mark.parametrize(("cls", "reason"), [
    (NamesItsFirstPiece, "a Stunner question naming the asker's first piece on its line "
                         "(R6.6.1: it goes by transfer, stun_ot)"),
    (AsksAnotherLine, "a Stunner question about another line than the action's Fire "
                      "(R6.6.1)")])
def test_a_stunner_question_that_names_a_place_or_another_line_is_refused_at_once(
        cls: type[Liar], reason: str) -> None:
    """The old question (the line with the asker's first piece's place) and a question
    about another line than the action's (the Fire travels whole, so its line is public)
    are refused before anything is answered, with the question as proof."""
    before, intent, _ = STUNS[0]
    liar = before.side_to_act
    games = new_pair(before, {liar: cls})
    wire = Wire(games)
    wire.run()
    wire.play(liar, intent)
    fault = wire.faults()[liar.other]
    assert fault and fault[0].reason == reason and fault[0].proof, fault
    _honest_record_intact(games[liar.other])
