"""Determinized search over whole turns (docs/computer.md, "The search").

One decision:

1. **Worlds**: ``Settings.worlds`` full states are sampled from the side's view and belief
   (engine.worlds); the search never sees anything else.
2. **Candidate turns**: on the first ``Settings.generation_worlds`` worlds a beam search
   builds whole turns, an action at a time (a Move or Doze, up to two Fires, a Pick-up, an
   Exchange, a Reinforce, in any order): every legal action of the position is tried once
   at the root and ranked by the value function; deeper, a line tries only the actions
   the line itself made possible (new to the listing: a Fire from the mover's new
   square, a Pick-up there, a Reinforce from the square it left) and the best
   ``Settings.reuse`` actions of the root, so a turn costs about one listing, not one per
   action. The ``Settings.beam`` best lines go on; lines that made their Move are turns.
   Pruned: Drops (never better than keeping the article in this value function),
   transport Fires beyond a few destinations near the enemy primary piece.
3. **Evaluation**: each of the best ``Settings.candidates`` turns is played on every world,
   the turn ended (projectiles fly, transports step, R4.2), then the enemy answers: it
   takes what it can (``Settings.reply`` greedy actions among its captures and weapon
   Fires, judged by the same value function from its side) or, with no reply search, a
   static penalty for the best piece it could take by a Move. A turn's score is the mean
   over the worlds, leaning a fifth toward the worst world.
4. **Choice**: the best score, or for a beginner a draw weighted by score
   (``Settings.temperature``), and now and then (``Settings.forget``) a turn chosen
   without looking at the enemy's answer at all: the mistakes a beginner makes.

The work is counted in rule applications (``Work``): a level's budget is a number of them,
so a decision is the same on every machine and every run (docs/computer.md, "Budgets").
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from wec.computer.evaluation import WIN, evaluate, piece_at_stake
from wec.engine.board import distance
from wec.engine.errors import IllegalIntent
from wec.engine.game import apply, end_turn, legal_intents
from wec.engine.intents import Doze, Drop, EndTurn, Fire, Intent, Move
from wec.engine.pieces import ArticleKind, Side, traits
from wec.engine.position import FRESH_TURN, Position

_TRANSPORTS = frozenset({ArticleKind.BIKE, ArticleKind.JUMP_PACK, ArticleKind.SCUBA_SUIT})
_LINE_WEAPONS = frozenset({ArticleKind.FLAME, ArticleKind.STUNNER, ArticleKind.CONVERSION,
                           ArticleKind.ROCKET_LAUNCHER, ArticleKind.SAM_LAUNCHER,
                           ArticleKind.TORPEDO_LAUNCHER})
_WEAPON_LEVEL = {ArticleKind.ROCKET_LAUNCHER: 1, ArticleKind.SAM_LAUNCHER: 0,
                 ArticleKind.TORPEDO_LAUNCHER: 2}
NO_MOVE_PENALTY = 3.0

# the cost of rule calls in work units (one unit is about one ``apply``)
APPLY, LISTING, END, EVALUATE = 1.0, 5.0, 3.0, 0.15


class Random(Protocol):
    def random(self) -> float: ...


@dataclass(frozen=True, slots=True)
class Settings:
    """How one level searches (engine.levels)."""

    worlds: int
    generation_worlds: int
    beam: int
    depth: int
    reuse: int
    candidates: int
    reply: int
    counter: float
    threat: float
    temperature: float
    forget: float
    work: float
    transports: int = 2
    # the enemy's first answering action: its best (1), or the best ``branch`` tried,
    # each followed by its best next one (a Fire that stuns a defender, then the capture)
    branch: int = 1
    # turns that move the primary piece, added to the candidates however they rank
    # (ranked by what the turn's own actions win, a King stepping out of reach ranks low)
    escapes: int = 0


class Work:
    """The work budget of one decision, counted in rule applications."""

    __slots__ = ("limit", "spent")

    def __init__(self, limit: float) -> None:
        self.limit = limit
        self.spent = 0.0

    def spend(self, units: float) -> None:
        self.spent += units

    @property
    def left(self) -> float:
        return self.limit - self.spent


@dataclass(slots=True)
class Line:
    """A turn (or part of one) played on a world: its intents and where they lead."""

    intents: tuple[Intent, ...]
    position: Position
    score: float

    @property
    def done(self) -> bool:
        """The Move is made (R4.4), or the game is over."""
        return bool(self.position.actions.move) or self.position.result is not None


def _applied(position: Position, intent: Intent, work: Work) -> Position | None:
    work.spend(APPLY)
    try:
        return apply(position, intent).position
    except IllegalIntent:
        return None


def _enemy_primary_squares(position: Position, side: Side) -> list[int]:
    return [p.sq for p in position.pieces if p.side is not side and traits(p.kind).primary
            and not p.hidden]


def pruned(position: Position, intents: Sequence[Intent], settings: Settings) -> list[Intent]:
    """The actions worth trying: no End (a turn ends when its line is done), no Drop, and
    of each transport article's Fires only the beeline ones to the ``settings.transports``
    squares nearest the enemy primary piece."""
    side = position.side_to_act
    kings = _enemy_primary_squares(position, side)
    out: list[Intent] = []
    transports: dict[tuple[int, ArticleKind], list[Fire]] = {}
    for intent in intents:
        if isinstance(intent, EndTurn | Drop):
            continue
        if isinstance(intent, Fire) and intent.weapon in _TRANSPORTS:
            if intent.path == "beeline" and intent.dest is not None and kings:
                transports.setdefault((intent.frm, intent.weapon), []).append(intent)
            continue
        out.append(intent)
    for fires in transports.values():
        fires.sort(key=lambda f: (min(distance(f.dest or 0, k) for k in kings), f.dest))
        out.extend(f for f in fires[:settings.transports]
                   if min(distance(f.dest or 0, k) for k in kings) <= 1)
    return out


def _dedupe(lines: list[Line]) -> list[Line]:
    seen: set[frozenset[Intent]] = set()
    out = []
    for line in lines:
        key = frozenset(line.intents)
        if key not in seen:
            seen.add(key)
            out.append(line)
    return out


def candidate_turns(world: Position, side: Side, settings: Settings, work: Work) -> list[Line]:
    """Whole turns of ``side`` on ``world``, best first by the value function after the
    turn's own actions (see the module docstring)."""
    if world.result is not None:
        return []
    work.spend(LISTING)
    root_intents = legal_intents(world)
    root_set = set(root_intents)
    tried = pruned(world, root_intents, settings)
    children: list[Line] = []
    for intent in tried:
        if work.left <= 0 and not isinstance(intent, Move | Doze):
            continue  # out of work: the Moves still, every turn needs one
        child = _applied(world, intent, work)
        if child is None:
            continue
        work.spend(EVALUATE)
        children.append(Line((intent,), child, evaluate(child, side)))
    children.sort(key=lambda line: -line.score)
    best_moves = [c.intents[0] for c in children if isinstance(c.intents[0], Move | Doze)]
    reused = [c.intents[0] for c in children[:settings.reuse]]
    reused += [m for m in best_moves[:settings.reuse] if m not in reused]
    turns = [c for c in children if c.done]
    if world.actions.move or not best_moves:  # the turn may end as it is (R4.4)
        turns.append(Line((), world, evaluate(world, side)))
    frontier = _dedupe(children)[:settings.beam]
    for _depth in range(1, settings.depth):
        if work.left <= 0:
            break
        grown: list[Line] = []
        for line in frontier:
            if line.position.result is not None:
                continue
            work.spend(LISTING)
            now = legal_intents(line.position)
            fresh = [i for i in pruned(line.position, now, settings) if i not in root_set]
            now_set = set(now)
            again = [i for i in reused if i in now_set]
            for intent in (*fresh, *again):
                child = _applied(line.position, intent, work)
                if child is None:
                    continue
                work.spend(EVALUATE)
                grown.append(Line((*line.intents, intent), child, evaluate(child, side)))
        grown.sort(key=lambda line: -line.score)
        grown = _dedupe(grown)
        turns += [g for g in grown if g.done]
        frontier = grown[:settings.beam]
        if not frontier:
            break
    turns.sort(key=lambda line: -line.score)
    return _dedupe(turns)


def escapes(world: Position, side: Side, lines: Sequence[Line], count: int) -> list[Line]:
    """The best ``count`` of ``lines`` (best first) whose Move is made by ``side``'s
    primary piece on ``world``: the turns that step the King out of a threat, which the
    value function after the turn's own actions ranks below any that wins something."""
    primary = {p.sq * 3 + p.level for p in world.pieces
               if p.side is side and traits(p.kind).primary}
    found: list[Line] = []
    for line in lines:
        if any(isinstance(i, Move) and i.frm in primary for i in line.intents):
            found.append(line)
            if len(found) >= count:
                break
    return found


def play_line(world: Position, intents: Sequence[Intent], work: Work) -> tuple[Position, float]:
    """``intents`` played on ``world`` as far as they go, and the turn ended: the position
    the enemy starts from, and a penalty when the Move could not be made."""
    position = world
    for intent in intents:
        after = _applied(position, intent, work)
        if after is None:
            break
        position = after
        if position.result is not None:
            return position, 0.0
    penalty = 0.0
    if not position.actions.move:
        penalty = NO_MOVE_PENALTY
    work.spend(END)
    try:
        position = end_turn(position).position
    except IllegalIntent:  # the Move is still owed: the line fell short
        return position, NO_MOVE_PENALTY * 2
    return position, penalty


def threatening(position: Position, intents: Sequence[Intent]) -> list[Intent]:
    """The side to act's captures (Moves onto enemy pieces it sees) and weapon Fires whose
    line reaches an enemy piece it sees before any of its own: what a greedy answer looks
    at (aimed Fires, at a piece, all)."""
    side = position.side_to_act
    cells: dict[int, int] = {}  # cell: ENEMY if it holds an enemy piece the side sees
    for p in position.pieces:
        cell = p.sq * 3 + p.level
        if p.side is side:
            cells[cell] = cells.get(cell, 0) | _OWN
        elif not p.hidden:
            cells[cell] = cells.get(cell, 0) | _ENEMY
    out: list[Intent] = []
    flame_range = position.options.flame_range
    for intent in intents:
        if isinstance(intent, Move):
            if cells.get(intent.to, 0) & _ENEMY:
                out.append(intent)
        elif isinstance(intent, Fire):
            if intent.weapon in _TRANSPORTS:
                continue
            if intent.dir is None or _line_holds(intent, cells, flame_range):
                out.append(intent)
    return out


_OWN, _ENEMY = 1, 2


def _line_holds(fire: Fire, cells: dict[int, int], flame_range: int) -> bool:
    """Whether a directional Fire's line reaches an enemy piece (at the level it acts on:
    the weapon's for projectiles, the firer's for the others): a Flame anywhere in its
    range (it passes through pieces, R6.5), a Conversion beside the firer (R6.7), the
    others at the first piece in their first squares (R6.6, R6.8)."""
    assert fire.dir is not None
    level = _WEAPON_LEVEL.get(fire.weapon, fire.frm % 3)
    flame = fire.weapon is ArticleKind.FLAME
    reach = flame_range if flame else 1 if fire.weapon is ArticleKind.CONVERSION else 4
    row, col = divmod(fire.frm // 3, 10)
    dr, dc = fire.dir
    for _ in range(reach):
        row, col = row + dr, col + dc
        if not (0 <= row < 10 and 0 <= col < 10):
            return False
        found = cells.get((row * 10 + col) * 3 + level, 0)
        if found & _ENEMY:
            return True
        if found and not flame:
            return False
    return False


def answered(position: Position, side: Side, actions: int, work: Work,
             counter: float = 0.0, branch: int = 1) -> float:
    """The value for ``side`` after the enemy (to act in ``position``) answers with up to
    ``actions`` greedy actions among its captures and Fires (with ``branch``, its best
    ``branch`` first actions each tried, ``_branching_answer``); with ``counter``, plus that
    share of the best capture or Fire ``side`` would have next (its threats, and its
    recapture of what the answer took)."""
    enemy = side.other
    current = position
    greedy = actions
    if branch > 1 and actions > 1 and current.result is None:
        current, greedy = _branching_answer(position, enemy, actions, branch, work), 0
    for _ in range(greedy):
        if current.result is not None or work.left <= -work.limit:
            break
        current = _greedy_step(current, enemy, work) or current
    value = evaluate(current, side)
    if counter > 0 and current.result is None and work.left > -work.limit:
        ours = current.evolve(turn=current.turn + 1, actions=FRESH_TURN, hits=())
        after = _greedy_step(ours, side, work)
        if after is not None:
            value += counter * max(0.0, evaluate(after, side) - value)
    return value


def _branching_answer(position: Position, mover: Side, actions: int, branch: int,
                      work: Work) -> Position:
    """``mover``'s answer of up to ``actions`` captures and Fires: its ``branch`` best
    first actions by the value function (even those worth nothing by themselves), each
    followed greedily, and the line it values most kept (or no action at all). It sees a
    Fire that stuns or clears a defender before the capture of the primary piece."""
    work.spend(LISTING)
    firsts: list[tuple[float, int, Position]] = []
    for n, intent in enumerate(threatening(position, legal_intents(position))):
        after = _applied(position, intent, work)
        if after is None:
            continue
        work.spend(EVALUATE)
        firsts.append((evaluate(after, mover), n, after))
    firsts.sort(key=lambda f: (-f[0], f[1]))
    best, best_value = position, evaluate(position, mover)
    for _value, _n, after in firsts[:branch]:
        line = after
        for _ in range(actions - 1):
            if line.result is not None or work.left <= -work.limit:
                break
            line = _greedy_step(line, mover, work) or line
        value = evaluate(line, mover)
        if value > best_value:
            best, best_value = line, value
    return best


def _greedy_step(position: Position, mover: Side, work: Work) -> Position | None:
    """The side to act's best capture or Fire for ``mover`` by the value function, or
    None when none beats doing nothing."""
    work.spend(LISTING)
    best: Position | None = None
    best_value = evaluate(position, mover)
    for intent in threatening(position, legal_intents(position)):
        after = _applied(position, intent, work)
        if after is None:
            continue
        work.spend(EVALUATE)
        value = evaluate(after, mover)
        if value > best_value:
            best, best_value = after, value
    return best


def static_threat(position: Position, side: Side, work: Work) -> float:
    """What ``side`` stands to lose to the enemy's best capture by a Move (the enemy to
    act in ``position``): the worth of the best piece it may take, and a little of the
    others."""
    if position.result is not None:
        return 0.0
    work.spend(LISTING)
    enemy_side = position.side_to_act
    at: dict[int, float] = {}
    for p in position.pieces:
        if p.side is side and not p.hidden:
            cell = p.sq * 3 + p.level
            at[cell] = at.get(cell, 0.0) + piece_at_stake(p)
    if enemy_side is side:
        return 0.0
    taken = sorted({i.to for i in legal_intents(position) if isinstance(i, Move) and i.to in at},
                   key=lambda c: -at[c])
    if not taken:
        return 0.0
    values = [at[c] for c in taken]
    return min(WIN, values[0]) * 0.8 + 0.1 * sum(values[1:])


def score_turn(worlds: Sequence[Position], intents: Sequence[Intent], side: Side,
               settings: Settings, careful: bool, work: Work) -> float:
    """The turn's score over the worlds: the mean, leaning a fifth toward the worst."""
    values = []
    for world in worlds:
        position, penalty = play_line(world, intents, work)
        if position.result is not None or not careful:
            value = evaluate(position, side)
        elif settings.reply > 0:
            value = answered(position, side, settings.reply, work, settings.counter,
                             settings.branch)
        else:
            value = evaluate(position, side) - settings.threat * static_threat(position, side,
                                                                               work)
        values.append(value - penalty)
    return leaning_to_worst(values)


def leaning_to_worst(values: Sequence[float]) -> float:
    """A turn's score over the worlds: the mean, leaning a fifth toward the worst world
    (a turn that loses badly on one plausible world is not a good turn)."""
    mean = sum(values) / len(values)
    return 0.8 * mean + 0.2 * min(values)


def choose(scored: Sequence[tuple[float, int]], temperature: float, rng: Random) -> int:
    """The index of the chosen turn: the best, or with a temperature a draw weighted by
    ``exp(score / temperature)`` (a beginner's uneven judgement)."""
    best = max(scored)
    if temperature <= 0:
        return best[1]
    weights = [math.exp(max(-50.0, (s - best[0]) / temperature)) for s, _ in scored]
    total = sum(weights)
    x = rng.random() * total
    for w, (_s, index) in zip(weights, scored, strict=True):
        x -= w
        if x <= 0:
            return index
    return scored[-1][1]
