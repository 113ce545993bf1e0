"""A lock acquired where its holder's square stays with its side (R9.4(b); issue 21,
``wec-fog/9``).

An Anti-Stealth instance that comes under a piece's control locks onto the nearest of
the enemy's stealthy pieces its side does not see (R9.4(b)). The enemy answers the
detection (engine.half_referee ``detect``), so the half referee's question names the
holder's square. That square is shown by the rules for a Pick-up (the article leaves a
public square), a reinforcement (it enters at a public square) and a conversion (the
enemy knew where its piece was), but not for an Exchange between pieces the enemy does
not see (R4.9, net.fog_codec ``public_form``: such an Exchange travels as nothing).

So the detection of an Exchange its enemy does not see asks its acquisitions by label
transfer (net.ot, on the game's base transfers): one 1-out-of-128 transfer per slot,
keyed by square, whose table is the owner's ``lock_targets`` (engine.half_referee: the
piece an instance acquiring at each square would lock). The acquiring side reads the
entry at its holder's square (``NO_SQUARE`` for a slot it does not use) and tells the
target: the owner learns the target, which it learns anyway (its piece is seen or
locked: the owner answers detection), never the square. There are always two slots
(an Exchange makes at most two acquisitions, a swap of two Anti-Stealth instances) and
the second table is made once the first target is known (the second acquisition cannot
lock the first's target), so the messages are the same whether the Exchange moved an
Anti-Stealth instance or not.

The owner then answers the detection with, for each target, the first square whose
entry is that target (``square_for``): ``detect`` locks the same pieces from there.

The lock records of a detection name no holder either (``public_sight``): the owner
needs only the targets, and a holder's identifier would tell which of the acting side's
unseen pieces carries Anti-Stealth.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from wec.engine.intents import Exchange, Intent
from wec.engine.pieces import Side
from wec.engine.position import Lock
from wec.engine.questions import Sight
from wec.net import ot
from wec.net.errors import ProtocolError

# one transfer per slot, 7 bits of choice (squares 0..99; 100 up: no square), 4-byte
# entries (a target's identifier plus one; 0: no target)
LOCK_LABELS = ot.LabelFormat(transfers=1, bits=7, size=4)
LOCK_SLOTS = 2  # R4.9(b): a swap of two Anti-Stealth instances acquires twice
NO_SQUARE = 100


class LockJudgeError(ProtocolError):
    """A lock transfer that cannot be what an honest side sends (a target no square's
    entry holds, more acquisitions than an Exchange makes)."""


def by_transfer(form: Intent, hidden: bool, actor: Side, asker: Side) -> bool:
    """Whether ``asker``'s detections in an action make their acquisitions by transfer:
    the action (its public form ``form``, ``hidden`` when the other side does not see
    its actor) is an Exchange of ``asker``'s the other side does not see. Public facts,
    so both sides (and the audit) agree."""
    return hidden and actor is asker and isinstance(form, Exchange)


def public_sight(sight: Sight) -> Sight:
    """What travels of ``sight`` in a hidden Exchange's detect question: the locks'
    targets only (holder and instance 0, not told); no acquiring holder (their squares
    go by transfer, one query a slot); no reach (the owner asks it by transfer,
    net.ot)."""
    locks = tuple(Lock(0, 0, lk.target) for lk in sight.locks)
    return replace(sight, locks=locks, acquiring=(), stealth_reach=0, sub_reach=0)


def lock_values(sight: Sight) -> tuple[int, ...]:
    """The choice of each slot: its acquisition's holder square, else ``NO_SQUARE``."""
    squares = [sq for _, _, sq in sight.acquiring]
    if len(squares) > LOCK_SLOTS:
        raise LockJudgeError(f"{len(squares)} acquisitions in one Exchange (R4.9: at most "
                             f"{LOCK_SLOTS})")
    return tuple(squares + [NO_SQUARE] * (LOCK_SLOTS - len(squares)))


def lock_table(targets: Sequence[int | None]) -> list[bytes]:
    """The transfer's table of the owner's ``lock_targets`` (100 squares): each square's
    target plus one, 0 for none and for the squares from 100 up."""
    if len(targets) != 100:
        raise ValueError("a lock table has 100 squares")
    entries = [(0 if t is None else t + 1).to_bytes(LOCK_LABELS.size, "little")
               for t in targets]
    return entries + [bytes(LOCK_LABELS.size)] * (LOCK_LABELS.entries - 100)


def target_of(entry: bytes) -> int | None:
    """The target an entry names (None: no target)."""
    value = int.from_bytes(entry, "little")
    return None if value == 0 else value - 1


def square_for(targets: Sequence[int | None], target: int) -> int:
    """A square whose entry is ``target``: ``detect`` asked there locks it."""
    for sq, t in enumerate(targets):
        if t == target:
            return sq
    raise LockJudgeError(f"R9.4(b): piece {target} is the lock target of no square")


__all__ = ["LOCK_LABELS", "LOCK_SLOTS", "NO_SQUARE", "LockJudgeError", "by_transfer", "lock_table",
           "lock_values", "public_sight", "square_for", "target_of"]
