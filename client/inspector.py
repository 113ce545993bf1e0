"""What is on a square, level by level, as the viewing side knows it (the play screen's
inspector, issue 18): every piece and article on Air, Ground and Sub, stuns and
cooldowns in the piece's own turns, projectiles, last-seen markers and reinforcement
squares. Everything comes from the side's view (its partial state), so nothing hidden
from it can appear here.
"""

from __future__ import annotations

from collections.abc import Mapping

from wec.client.narration import article_name, direction_words, own_turns_left
from wec.engine import board
from wec.engine.board import AIR, GROUND, SUB
from wec.engine.pieces import ArticleKind, Side, describe_kind
from wec.engine.position import Piece, Position

WEAPONS = (ArticleKind.FLAME, ArticleKind.STUNNER, ArticleKind.CONVERSION,
           ArticleKind.ROCKET_LAUNCHER, ArticleKind.SAM_LAUNCHER, ArticleKind.TORPEDO_LAUNCHER)
LEVEL_NAMES = {AIR: "Air", GROUND: "Ground", SUB: "Sub"}
PROJECTILE_NAMES = {"rocket": "Rocket", "sam": "SAM", "torpedo": "Torpedo"}


def piece_title(piece: Piece) -> str:
    """``White Chopper (right-handed)``."""
    hand = f" ({piece.hand.value}-handed)" if piece.hand else ""
    return f"{piece.side.title} {describe_kind(piece.kind)}{hand}"


def stun_text(piece: Piece, turn: int) -> str | None:
    """``stunned: misses 3 more of its turns`` (R7.1, in the piece's own turns), or None."""
    if not piece.stunned(turn):
        return None
    left = own_turns_left(piece.side, turn, piece.stunned_until)
    return f"stunned: misses {left} more of its turns"


def weapon_texts(piece: Piece, turn: int) -> list[str]:
    """One line per weapon type the piece holds (inherent and carried, R6.2): ready, or
    how many of its own turns it still waits (R6.3.2; several instances: the soonest)."""
    waits: dict[ArticleKind, list[int]] = {}
    for index, ability in enumerate(piece.abilities()):
        if ability in WEAPONS:
            left = own_turns_left(piece.side, turn, piece.ready_at(index))
            waits.setdefault(ability, []).append(left)
    lines = []
    for weapon, lefts in waits.items():
        count = f" x{len(lefts)}" if len(lefts) > 1 else ""
        ready = sum(1 for left in lefts if left == 0)
        if ready == len(lefts):
            lines.append(f"{article_name(weapon)}{count}: ready")
        elif ready:
            lines.append(f"{article_name(weapon)}{count}: {ready} ready, the others in "
                         f"{min(x for x in lefts if x)} of its turns")
        else:
            lines.append(f"{article_name(weapon)}{count}: ready in {min(lefts)} of its turns")
    return lines


def piece_lines(piece: Piece, view: Position) -> list[str]:
    """A piece and what matters about it now, indented under its title."""
    lines = [piece_title(piece)]
    if piece.articles:
        lines.append("   carries " + ", ".join(article_name(a) for a in piece.articles))
    stun = stun_text(piece, view.turn)
    if stun:
        lines.append("   " + stun)
    lines.extend("   " + text for text in weapon_texts(piece, view.turn))
    if piece.transit is not None:
        lines.append(f"   travelling by {article_name(piece.transit.article)} to "
                     f"{board.describe_square(piece.transit.dest)}")
    if view.viewer is not None and piece.side is view.viewer:
        lines.extend("   " + text for text in own_secrecy(piece, view))
    return lines


def own_secrecy(piece: Piece, view: Position) -> list[str]:
    """What makes an own piece hard to see (R9.2, R9.6): stealthy, submerged. Never
    whether the enemy sees it now: that would tell where its hidden detectors stand."""
    notes = []
    if piece.is_stealthy(view.options):
        notes.append("stealthy (R9.2)")
    if piece.level is SUB and view.options.submersion_invisibility:
        notes.append("submerged (R9.6)")
    return notes


def square_lines(view: Position, sq: int,
                 marker_turns: Mapping[tuple[str, int], int] | None = None) -> list[str]:
    """Everything on square ``sq`` in ``view``, level by level from Air down to Sub."""
    lines: list[str] = []
    for level in (AIR, GROUND, SUB):
        cell = board.cell(sq, level)
        here: list[str] = []
        for piece in view.pieces:
            if piece.cell == cell:
                here.extend(piece_lines(piece, view))
        if level is GROUND and view.ground_articles[sq]:
            here.append("Articles on the ground: "
                        + ", ".join(article_name(a) for a in view.ground_articles[sq]))
        for shot in view.projectiles:
            if shot.cell == cell:
                strength = f" (strength {shot.strength})" if shot.strength > 1 else ""
                heading = ("homing" if shot.target is not None
                           else direction_words(shot.dir))
                here.append(f"{shot.side.title} {PROJECTILE_NAMES[shot.kind]}{strength}, "
                            f"{heading}")
        for marker in view.last_seen:
            if marker.cell == cell:
                when = (marker_turns or {}).get((marker.kind.value, marker.cell))
                seen = f", seen on turn {when}" if when is not None else ""
                here.append(f"Last seen: {marker.viewer.other.title} "
                            f"{describe_kind(marker.kind)}{seen} (R9.10)")
        if here:
            lines.append(f"{LEVEL_NAMES[level]}:")
            lines.extend("  " + text for text in here)
    lines.extend(_reinforcement_lines(view, sq))
    return lines or ["Nothing here that you know of."]


def _reinforcement_lines(view: Position, sq: int) -> list[str]:
    lines = []
    own = [r for r in view.reinforcements if r.sq == sq
           and (view.viewer is None or r.side is view.viewer)]
    if own:
        kinds = ", ".join(describe_kind(r.kind) + (f" ({r.hand.value})" if r.hand else "")
                          for r in own if r.kind is not None)
        who = own[0].side.title if view.viewer is None else "Your"
        lines.append(f"{who} reinforcements wait here: {kinds} (R10)")
    enemy = [r for r in view.reinforcements if r.sq == sq and view.viewer is not None
             and r.side is not view.viewer]
    if enemy:
        lines.append(f"{enemy[0].side.title} reinforcement square: what waits is secret "
                     "(R10.5)")
    return lines


def title_of(sq: int) -> str:
    return f"Square {board.describe_square(sq)}"


def side_name(side: Side | None) -> str:
    return side.title if side is not None else "Everyone"
