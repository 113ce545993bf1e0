"""Two half states resolving intents together, as two machines of a network game do
(engine.half_resolution), for the two-halves tests: each side resolves on its own half
state with the other side's ``HalfReferee`` (never the full state: no FullStateReferee
on the path), and the results are compared with the full-state resolution projected to
each side (engine.knowledge ``project``, engine.censor ``events_for``)."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

from wec.engine.board import GROUND
from wec.engine.censor import events_for
from wec.engine.encoding import encode_state
from wec.engine.errors import IllegalIntent
from wec.engine.game import apply, legal_intents
from wec.engine.half_referee import HalfReferee
from wec.engine.intents import EndTurn, Fire, Intent, Reinforce
from wec.engine.knowledge import project
from wec.engine.movement import all_legal_plans, move_of
from wec.engine.options import Options
from wec.engine.outcome import Outcome
from wec.engine.pieces import TRAITS, ArticleKind, Hand, PieceKind, Side, article_capacity
from wec.engine.playout import play_turn
from wec.engine.position import Position, Reinforcement
from wec.engine.setup import standard_position
from wec.engine.visibility import settle

A = ArticleKind
K = PieceKind


def stealth_only(position: Position) -> Position:
    """``position`` in a game with stealth only (O15 on, O16 and O18 off), settled anew
    (R9.7: every piece's ``hidden`` flag derived for these options). Until ``wec-fog/10``
    such a fog game made no base transfers: a Doze went whole, judged by labelled PSI,
    and a hidden Exchange's detect question named its acquiring holder's square."""
    return settle(position.evolve(options=replace(
        position.options, submersion_invisibility=False, stealth_range_detection=False)))


def in_stealth_only(cases: list[tuple[Position, Any, Outcome]],
                    keep: Any = lambda before, intent, full: True
                    ) -> list[tuple[Position, Any, Outcome]]:
    """``cases`` (full state before, intent, outcome) played in a game with stealth only
    (:func:`stealth_only`) where the intent is still legal and ``keep(before, intent,
    outcome)`` still holds, with their outcomes there."""
    out = []
    for before, intent, _ in cases:
        before = stealth_only(before)
        try:
            full = apply(before, intent)
        except IllegalIntent:
            continue
        if keep(before, intent, full):
            out.append((before, intent, full))
    return out


def halves_of(full: Position) -> dict[Side, Position]:
    """Each side's half state of the full state ``full``."""
    return {side: project(full, side) for side in Side}


def resolve_both(halves: dict[Side, Position], intent: Intent) -> dict[Side, Outcome]:
    """Each side resolves ``intent`` on its half state, asking the other side's half
    referee (the acting side first, as in lockstep play)."""
    actor = next(iter(halves.values())).side_to_act
    return {side: apply(halves[side], intent, HalfReferee(halves[side.other]))
            for side in (actor, actor.other)}


def half_bytes(half: Position) -> bytes:
    """A half state's canonical bytes with its identifiers (the piece handles the two
    machines share: pieces, locks, markers, projectile targets)."""
    handles = (tuple(p.pid for p in sorted(half.pieces, key=lambda p: p.pid)),
               tuple(sorted((lk.holder, lk.instance, lk.target) for lk in half.locks)),
               tuple(sorted((m.viewer.value, m.pid, m.kind.value, m.cell)
                            for m in half.last_seen)),
               tuple(sorted((pr.sq, pr.kind, pr.side.value, pr.target or -1)
                            for pr in half.projectiles)),
               half.actions, half.hits, half.next_pid, half.acquiring)
    return encode_state(half) + repr(handles).encode()


def half_key(half: Position) -> tuple[Any, ...]:
    """Every field of a half state, with its identifiers, for comparing two (quicker than
    their bytes, and stricter: the very pieces, not only what the format writes)."""
    return (half.turn, half.viewer, half.options, tuple(sorted(half.pieces, key=_pid)),
            half.ground_articles, half.ground_ready,
            tuple(sorted(half.reinforcements, key=repr)), half.turn_start_squares,
            tuple(sorted(half.locks, key=repr)), half.projectiles, half.hits, half.actions,
            half.result, tuple(sorted(half.last_seen, key=repr)), half.next_pid,
            half.acquiring)


def _pid(piece: Any) -> int:
    return int(piece.pid)


def unseen_in(half: Position, full: Position) -> list[str]:
    """What ``half`` holds of the enemy pieces hidden from its side in ``full`` (R9):
    pieces, and identifiers in its action records (locks and markers name pieces the
    side saw, R9.4, R9.10)."""
    side = half.viewer
    assert side is not None
    hidden = {p.pid for p in full.pieces if p.side is not side and p.hidden}
    held = [f"piece {p.pid}" for p in half.pieces if p.pid in hidden]
    present = {p.pid for p in half.pieces}
    a = half.actions
    held += [f"action record {pid}" for pid in (*a.actors, *a.firers, *a.transited,
                                                 *([a.mover] if a.mover is not None else []))
             if pid not in present]
    held += [f"hits of {h[0]}" for h in half.hits if h[0] not in present]
    enemy = [p for p in half.pieces if p.side is not side]
    if len(enemy) != sum(1 for p in full.pieces if p.side is not side and not p.hidden):
        held.append("a count of enemy pieces")
    return held


def category(intent: Intent, before: Position) -> str:
    """The kind of an intent, Fires by weapon and aim, the end of turn by its phases."""
    if isinstance(intent, Fire):
        if intent.dest is not None:
            return "fire: transport"
        if intent.target is not None:
            return ("fire: restricted rocket" if intent.weapon is A.ROCKET_LAUNCHER
                    else "fire: homing")
        return "fire: " + intent.weapon.value
    if isinstance(intent, EndTurn):
        parts = []
        if before.projectiles:
            parts.append("projectiles")
        if any(p.transit is not None and p.side is before.side_to_act.other
               for p in before.pieces):
            parts.append("transport")
        return "end turn" + (": " + ", ".join(parts) if parts else "")
    return type(intent).__name__.lower()


KINDS = ("move", "doze", "pickup", "drop", "exchange", "reinforce", "fire: flame",
         "fire: stunner", "fire: conversion", "fire: rocket_launcher", "fire: sam_launcher",
         "fire: torpedo_launcher", "fire: homing", "fire: restricted rocket", "fire: transport",
         "end turn", "end turn: projectiles", "end turn: transport")


def conceal(position: Position, rng: random.Random, share: float) -> Position:
    """The full state with a random share of the pieces that have room for it given a
    Stealth article (R9.2), settled by the rules: many more pieces hidden than in a
    random game, so that hidden collisions and effects on hidden pieces abound."""
    changed = []
    for p in position.pieces:
        if (rng.random() < share and not TRAITS[p.kind].primary and A.STEALTH not in p.articles
                and len(p.articles) < article_capacity(p.kind, (*p.articles, A.STEALTH))
                and p.transit is None):
            articles = (*p.articles, A.STEALTH)
            ready = (*p.ready, 0) if p.ready else ()
            changed.append(p.but(articles=articles, ready=ready))
        else:
            changed.append(p)
    return settle(position.evolve(pieces=tuple(changed)))


def with_reinforcement(position: Position, rng: random.Random) -> Position | None:
    """The full state with a reinforcement of the side to act waiting on an activation
    square where its piece stood at the turn start and has left (R10.3): a Ground square
    empty to its knowledge; where an enemy stands hidden, the Reinforce is foiled (D-12)."""
    side = position.side_to_act
    taken = {r.sq for r in position.reinforcements}
    occupied = {p.sq for p in position.pieces if p.level == GROUND
                and (p.side is side or not p.hidden)}
    empty = [sq for sq in range(100) if sq not in occupied and sq not in taken]
    hidden = sorted({p.sq for p in position.pieces if p.side is not side and p.hidden
                     and p.level == GROUND and p.sq not in taken})
    if not empty or position.actions.reinforce or position.result is not None:
        return None
    sq = rng.choice(hidden) if hidden and rng.random() < 0.5 else rng.choice(empty)
    kind = rng.choice([K.AAA, K.STEALTH_PAWN, K.DESTROYER, K.JET, K.TANK, K.SUB])
    hand = rng.choice([Hand.LEFT, Hand.RIGHT]) if TRAITS[kind].handed else None
    return position.evolve(
        reinforcements=(*position.reinforcements, Reinforcement(side, kind, sq, hand)),
        turn_start_squares=tuple(sorted({*position.turn_start_squares, sq})))


def collect(seed: int, count: int, options: Options | None = None, conceal_share: float = 0.0,
            extras: int = 2) -> list[tuple[Position, Intent, Outcome]]:
    """About ``count`` intents (full state before, intent, full-state outcome) of random
    games with every action kind: the actions ``engine.playout`` games make and, from the
    same positions, ``extras`` more legal intents of random kinds (so that every kind gets
    its share), and now and then a Reinforce of a reinforcement made to wait for it.
    ``conceal_share``: the start positions get more hidden pieces (``conceal``)."""
    rng = random.Random(seed)
    position = _start(options, rng, conceal_share)
    out: list[tuple[Position, Intent, Outcome]] = []

    def seen(before: Position, intent: Intent, outcome: Any) -> None:
        out.append((before, intent, outcome))
        if before.result is None:
            for state, extra in _extras(before, rng, extras):
                try:
                    out.append((state, extra, apply(state, extra)))
                except IllegalIntent:
                    continue

    while len(out) < count:
        position = play_turn(position, rng, seen)
        if position.result is not None:
            position = _start(options, rng, conceal_share)
    return out[:count]


def _start(options: Options | None, rng: random.Random, conceal_share: float) -> Position:
    position = standard_position(options)
    return conceal(position, rng, conceal_share) if conceal_share else position


def _extras(before: Position, rng: random.Random, extras: int
            ) -> list[tuple[Position, Intent]]:
    """A few more legal intents from ``before``, of random kinds; now and then a
    Reinforce, from ``before`` with a reinforcement waiting for it."""
    if not extras:
        return []
    if rng.random() < 0.06:
        ready = with_reinforcement(before, rng)
        if ready is not None:
            return [(ready, i) for i in legal_intents(ready) if isinstance(i, Reinforce)][:1]
    by_kind: dict[str, list[Intent]] = {}
    for intent in legal_intents(before):
        by_kind.setdefault(category(intent, before), []).append(intent)
    names = sorted(by_kind)
    rng.shuffle(names)
    names.sort(key=lambda name: name not in RARE)  # the rare kinds whenever there are some
    chosen = [(before, rng.choice(by_kind[name])) for name in names[:extras]]
    blind = _blind_moves(before)
    if blind:
        chosen.append((before, rng.choice(blind)))
    return chosen


def _blind_moves(before: Position) -> list[Intent]:
    """The Moves legal on what the mover knows whose route meets enemy pieces hidden from
    it (R4.13, R5.2.4: a hidden collision)."""
    side = before.side_to_act
    hidden = {p.cell for p in before.pieces if p.side is not side and p.hidden}
    if not hidden:
        return []
    return [move_of(before, plan) for plan in all_legal_plans(before)
            if hidden.intersection((*plan.route.path, plan.route.dest))]


RARE = ("fire: restricted rocket", "fire: homing", "fire: transport")


def compare(before: Position, intent: Intent, full: Outcome
            ) -> tuple[list[str], dict[Side, Outcome]]:
    """Each side's two-halves resolution of ``intent`` against the full-state ``full``:
    the mismatches (its half state against the projection of the full result, its events
    against ``events_for``), and the two outcomes."""
    outcomes = resolve_both(halves_of(before), intent)
    wrong = []
    for side, outcome in outcomes.items():
        if half_key(outcome.position) != half_key(project(full.position, side)):
            wrong.append(f"{side.value} half state")
        if outcome.events != events_for(side, full):
            wrong.append(f"{side.value} events")
    return wrong, outcomes
