"""What the computer believes about the enemy pieces it cannot see.

The computer is told only what its side is told: its partial (half) state after every
action and the events its side saw (an ``Observation``). From those it keeps a list of
*ghosts*: enemy pieces it knows or supposes to be on the board but does not see, each
with where it was last located and how sure that is. Sources (docs/computer.md):

* **vanished from sight**: an enemy piece that turned hidden leaves a last-seen marker
  in the side's view (R9.10); the ghost takes its kind there, and its hand and articles
  from the previous view, where the piece was still visible;
* **the standard start** (R15.3, public rules): the enemy pieces a standard start hides
  (the AAAs) are ghosts at their start squares;
* **captures and hits**: a hidden collision or a kill of an unseen piece (``Captured``,
  ``Destroyed``) removes a ghost of that kind; a projectile that stopped where the view
  shows no piece hit an unseen one (``ProjectileRemoved``): a ghost stands there;
* **reveals**: a marker that goes away (the piece is seen again or left play) removes its
  ghost; an enemy piece seen without having been seen before uses up a ghost of its kind;
* **foiled actions**: a failed Reinforce shows an unseen piece on its square, a failed Doze
  one beside the Dozer (R4.13, D-12, D-33);
* **hidden entries and conversions**: an enemy reinforcement that entered unseen (its
  square's entry went away, nothing visible came) and an own piece converted out of
  sight become ghosts.

A ghost of ``kind`` last located at turn ``since`` may since have moved ``speed(kind)``
squares per enemy turn; ``radius`` gives the squares it may now stand within.
Nothing here reads anything but observations: there is no other input.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from wec.engine.board import SUB, Level, distance
from wec.engine.events import (
    Captured,
    Converted,
    Destroyed,
    DozeFoiled,
    Event,
    ProjectileRemoved,
    Reinforced,
    ReinforceFoiled,
)
from wec.engine.pieces import ArticleKind, Hand, Movement, PieceKind, Side, traits
from wec.engine.position import Piece, Position

_SPEED = {Movement.PAWN: 1, Movement.KING: 1, Movement.STEP: 1, Movement.SUB: 1,
          Movement.JET: 2, Movement.CHOPPER: 2, Movement.TANK: 8, Movement.CLERIC: 8,
          Movement.QUEEN: 8}
_PROJECTILE_LEVEL = {"rocket": Level.GROUND, "sam": Level.AIR, "torpedo": Level.SUB}


@dataclass(frozen=True, slots=True)
class Observation:
    """What one side was told of one step of the game: its partial state after it and the
    events it saw (none for the start)."""

    view: Position
    events: tuple[Event, ...] = ()


@dataclass(frozen=True, slots=True)
class Ghost:
    """An enemy piece believed on the board but unseen."""

    kind: PieceKind
    hand: Hand | None
    articles: tuple[ArticleKind, ...]
    sq: int
    level: Level
    since: int  # the turn it was last located (at ``sq``, give or take ``spread``)
    spread: int = 0
    marked: bool = False  # stands for a last-seen marker of the view
    pid: int = -1  # the identifier the side's marker or lock knows it by (-1: none)

    def radius(self, turn: int) -> int:
        """How far from ``sq`` it may stand at ``turn``: its speed per enemy turn since."""
        enemy_turns = max(0, (turn - self.since + 1) // 2)
        return min(9, self.spread + _SPEED[traits(self.kind).movement] * enemy_turns)


def _enemy_kinds(view: Position, enemy: Side) -> dict[PieceKind, int]:
    """Enemy pieces the view accounts for, by kind: visible ones and last-seen markers."""
    counts: dict[PieceKind, int] = {}
    for p in view.pieces:
        if p.side is enemy:
            counts[p.kind] = counts.get(p.kind, 0) + 1
    for m in view.last_seen:
        counts[m.kind] = counts.get(m.kind, 0) + 1
    return counts


def _markers(view: Position) -> list[tuple[PieceKind, int]]:
    return [(m.kind, m.cell) for m in view.last_seen]


def _marker_pid(view: Position, kind: PieceKind, cell: int) -> int:
    """The identifier a half state's marker keeps of its piece (-1: none kept)."""
    return next((m.pid for m in view.last_seen if m.kind is kind and m.cell == cell), -1)


@dataclass(slots=True)
class Belief:
    """The ghosts of one side, updated from its observations in order."""

    side: Side
    ghosts: list[Ghost] = field(default_factory=list)
    previous: Position | None = None
    observed: int = 0

    @classmethod
    def from_history(cls, side: Side, history: Iterable[Observation]) -> Belief:
        belief = cls(side)
        for observation in history:
            belief.update(observation)
        return belief

    # ------------------------------------------------------------ updating

    def update(self, observation: Observation) -> None:
        """Take in one observation (the side's next view and the events it saw)."""
        view = observation.view
        if view.viewer is not None and view.viewer is not self.side:
            raise ValueError(f"an observation of {view.viewer.title}'s view given to "
                             f"{self.side.title}'s computer")
        self.observed += 1
        previous = self.previous
        if previous is None:
            self._start(view)
        else:
            self._markers_changed(previous, view)
            self._events(previous, view, observation.events)
            self._entries(previous, view, observation.events)
            self._sightings(previous, view, observation.events)
        self.previous = view

    def _start(self, view: Position) -> None:
        """The first view: its markers, and what a standard start hides (R15.3)."""
        for kind, cell in _markers(view):
            self.ghosts.append(Ghost(kind, None, (), cell // 3, Level(cell % 3), view.turn,
                                     spread=2, marked=True, pid=_marker_pid(view, kind, cell)))
        if view.turn <= 2:
            self.ghosts.extend(_standard_hidden(view, self.side))

    def _markers_changed(self, previous: Position, view: Position) -> None:
        before = _markers(previous)
        now = _markers(view)
        remaining = list(now)
        kept: list[tuple[PieceKind, int]] = []
        for marker in before:
            if marker in remaining:
                remaining.remove(marker)
                kept.append(marker)
            else:  # seen again or left play: its ghost goes
                self._remove_marked(marker)
        enemy = self.side.other
        for kind, cell in remaining:  # newly hidden, last seen at ``cell``
            source = next((p for p in previous.pieces if p.side is enemy and p.kind is kind
                           and p.sq * 3 + p.level == cell), None)
            hand = source.hand if source else None
            articles = source.articles if source else ()
            self.ghosts.append(Ghost(kind, hand, articles, cell // 3, Level(cell % 3),
                                     view.turn, marked=True,
                                     pid=_marker_pid(view, kind, cell)))

    def _remove_marked(self, marker: tuple[PieceKind, int]) -> None:
        kind, cell = marker
        marked = [g for g in self.ghosts if g.marked and g.kind is kind]
        if not marked:
            return
        self.ghosts.remove(min(marked, key=lambda g: (distance(g.sq, cell // 3), g.since)))

    def _remove_unmarked(self, kind: PieceKind, near: int) -> bool:
        found = [g for g in self.ghosts if not g.marked and g.kind is kind]
        if not found:
            return False
        self.ghosts.remove(min(found, key=lambda g: distance(g.sq, near)))
        return True

    def _pin(self, sq: int, levels: tuple[Level, ...], turn: int, spread: int) -> None:
        """An unseen enemy piece stands at ``sq`` (or within ``spread``) on one of
        ``levels``: the nearest ghost that may be there moves there; or a new one."""
        able = [g for g in self.ghosts if any(may_hide_at(g.kind, g.articles, lv, True)
                                              for lv in levels)
                and distance(g.sq, sq) <= g.radius(turn) + spread]
        if able:
            ghost = min(able, key=lambda g: (distance(g.sq, sq), -g.since))
            level = next(lv for lv in levels if may_hide_at(ghost.kind, ghost.articles, lv, True))
            index = self.ghosts.index(ghost)
            self.ghosts[index] = replace(ghost, sq=sq, level=level, since=turn, spread=spread)
            return
        level = levels[0]
        kind = PieceKind.SUB if level is SUB else PieceKind.AAA
        self.ghosts.append(Ghost(kind, None, (), sq, level, turn, spread=spread))

    def _events(self, previous: Position, view: Position, events: tuple[Event, ...]) -> None:
        enemy = self.side.other
        seen_cells = {p.sq * 3 + p.level for p in previous.pieces} | {
            p.sq * 3 + p.level for p in view.pieces}
        for event in events:
            if isinstance(event, Captured | Destroyed):
                infos = event.pieces if isinstance(event, Captured) else (event.piece,)
                for info in infos:
                    if info.side is not enemy:
                        continue
                    visible = any(p.side is enemy and p.kind is info.kind
                                  and p.sq * 3 + p.level == event.cell for p in previous.pieces)
                    if not visible:  # an unseen piece left play here
                        self._remove_unmarked(info.kind, event.cell // 3)
            elif isinstance(event, ReinforceFoiled) and event.side is self.side:
                self._pin(event.sq, (Level.GROUND,), view.turn, 0)
            elif isinstance(event, DozeFoiled) and event.side is self.side:
                self._pin(event.sq, (Level.GROUND,), view.turn, 2)
            elif isinstance(event, ProjectileRemoved) and event.why == "hit":
                level = _PROJECTILE_LEVEL.get(event.projectile, Level.GROUND)
                if event.sq * 3 + level not in seen_cells:
                    self._pin(event.sq, (level,), view.turn, 0)
            elif isinstance(event, Converted) and event.side is enemy and not any(
                    p.side is enemy and p.sq * 3 + p.level == event.cell for p in view.pieces):
                # an own piece converted out of sight (a stealthy one): now an enemy ghost
                source = next((p for p in previous.pieces if p.side is self.side
                               and p.sq * 3 + p.level == event.cell
                               and p.kind is event.kind), None)
                self.ghosts.append(Ghost(event.kind, source.hand if source else None,
                                         source.articles if source else (),
                                         event.cell // 3, Level(event.cell % 3), view.turn))

    def _entries(self, previous: Position, view: Position, events: tuple[Event, ...]) -> None:
        """Enemy reinforcements that entered unseen (R10.5: the square is public)."""
        enemy = self.side.other
        waiting = [r.sq for r in view.reinforcements if r.side is enemy]
        entered_seen = [e.sq for e in events if isinstance(e, Reinforced) and e.side is enemy]
        for r in previous.reinforcements:
            if r.side is not enemy:
                continue
            if r.sq in waiting:
                waiting.remove(r.sq)
            elif r.sq in entered_seen:
                entered_seen.remove(r.sq)
            else:  # gone from its square and nothing seen entering: a stealthy piece
                self.ghosts.append(Ghost(PieceKind.AAA, None, (), r.sq, Level.GROUND,
                                         view.turn))

    def _sightings(self, previous: Position, view: Position, events: tuple[Event, ...]) -> None:
        """An enemy piece seen that nothing accounted for was an unmarked ghost."""
        enemy = self.side.other
        before = _enemy_kinds(previous, enemy)
        now = _enemy_kinds(view, enemy)
        explained: dict[PieceKind, int] = {}
        for e in events:
            if (isinstance(e, Reinforced) and e.side is enemy) or (
                    isinstance(e, Converted) and e.side is enemy):
                explained[e.kind] = explained.get(e.kind, 0) + 1
        for kind, count in now.items():
            extra = count - before.get(kind, 0) - explained.get(kind, 0)
            if extra <= 0:
                continue
            near = [p.sq for p in view.pieces if p.side is enemy and p.kind is kind]
            for _ in range(extra):
                if not any(not g.marked and g.kind is kind for g in self.ghosts):
                    break
                candidates = [g for g in self.ghosts if not g.marked and g.kind is kind]
                best = min(candidates, key=lambda g: min((distance(g.sq, q) for q in near),
                                                         default=0))
                self.ghosts.remove(best)

    # ------------------------------------------------------------ reading

    def ghosts_at(self, turn: int) -> list[tuple[Ghost, int]]:
        """Each ghost with how far from its last place it may stand at ``turn``."""
        return [(g, g.radius(turn)) for g in self.ghosts]


def may_hide_at(kind: PieceKind, articles: tuple[ArticleKind, ...], level: Level,
                stealth: bool) -> bool:
    """Whether a piece of ``kind`` carrying ``articles`` could stand unseen at ``level``
    (O15 ``stealth``: stealthy pieces hide at any level; O16: any piece at Sub)."""
    t = traits(kind)
    if level not in t.native:
        return False
    if level is SUB:
        return True
    return stealth and ArticleKind.STEALTH in t.inherent + articles and not t.primary


def _standard_hidden(view: Position, side: Side) -> list[Ghost]:
    """The enemy pieces a standard start hides from ``side``, when ``view`` is (still)
    the standard start as far as ``side``'s own pieces go (R15, public rules)."""
    from wec.engine.setup import standard_position
    from wec.engine.visibility import settle

    start = standard_position(view.options)
    start = settle(start)

    def own(pieces: Iterable[Piece]) -> list[tuple[str, int]]:
        return sorted((p.kind.value, p.sq * 3 + p.level) for p in pieces if p.side is side)

    if own(start.pieces) != own(view.pieces):
        return []
    enemy = side.other
    seen = _enemy_kinds(view, enemy)
    ghosts = []
    for kind in dict.fromkeys(p.kind for p in start.pieces if p.side is enemy and p.hidden):
        total = sum(1 for p in start.pieces if p.side is enemy and p.kind is kind)
        hidden = [p for p in start.pieces if p.side is enemy and p.kind is kind and p.hidden]
        unseen = max(0, min(len(hidden), total - seen.get(kind, 0)))
        ghosts += [Ghost(p.kind, p.hand, p.articles, p.sq, p.level, 1) for p in hidden[:unseen]]
    return ghosts
