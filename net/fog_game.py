"""One machine's side of a fog-of-war game over the wire (issue 21), sans-IO.

``FogGame`` holds this side's half state only (engine.knowledge) and plays the game
with the peer's ``FogGame`` through ``FogMessage`` values it returns and receives; it
does no I/O (like net.lockstep.Lockstep: every call returns a ``FogStep``: messages to
send, events to show). Helper code wraps the messages in lockstep frames over the
encrypted session (net.session); this module never sees a socket or a clock.

API (stable; additions keep it backwards compatible)::

    g = FogGame(game_id=..., side=Side.WHITE, half=my_half, identity=me,
                peer_key=their_public_key, seed=new_seed())
    g.opening() -> list[FogMessage]        # our signed commitment to the start
    g.play(intent) -> FogStep              # our intent (Refused event if illegal)
    g.receive(message) -> FogStep          # a peer message
    g.half, g.public_hash, g.busy, g.turn, g.result
    g.prepare() -> None                    # idle work once a step is sent (no message)
    g.preparing() -> Iterator[None]        # the same in slices, for an event loop
    g.reveal() -> FogMessage               # at the end: seed, start half, our intents
    g.audit(their_reveal) -> AuditVerdict  # net.audit: replay on the full state
    g.unrevealed() -> AuditVerdict         # the peer refuses to reveal
    g.record() -> bytes; FogGame.restore(record, identity) -> FogGame

How an intent travels. Both machines resolve every intent, each on its own half state
(engine.half_resolution ``resolve``), asking the other about the pieces it does not see
(engine.questions); the other answers from its own half state
(engine.half_referee ``OwnerConversation``). The engine resolves synchronously through
callbacks; here a resolution runs as a resumable computation (net.resumable, a
greenlet): at a question without an answer it sends the question and waits, handing
control back; when the answer comes it carries on from there. The owner's conversation
runs the same way, question after question, and so do the questions it asks back
(``presence``). Every question and answer is kept (``ActionLog``), so a resolution run
afresh (a restore on another thread) replays to the same point by *deterministic
re-execution*: the conversation answers from the answers received so far.

An intent of ours goes out as its *public form* (net.fog_codec ``public_form``): the
intent itself when the peer sees the acting piece, else only what
the rules show (a hidden Move is just "a Move").

Per action the messages are (``kind``):

* ``intent``: the public form and whether the actor is hidden (acting side);
* ``ask`` / ``answer``: a question of one side's resolution and the owner's answer; a
  hidden mover's route question is a first-hit PSI run (net.psi: the query and the
  owner's reply; the mover learns the first hit, the owner nothing), followed by
  ``took`` (the cell where the Move took the owner's pieces, public by its Captured);
  the run carries a Doze transfer (``wec-fog/8``): a hidden
  Dozer's Doze is sent as a hidden Move, and its run asks the Dozer's own cell and, by
  five 1-out-of-128 transfers, the owner's Ground at its destinations
  (net.doze_judge ``hidden_tables``), whose reply ``doze_reply`` comes just before the
  run's answer (apart, so that the answer keeps its size class); a Move asks that
  transfer for nothing, so the owner cannot tell the two apart;
  a visible mover's route answer carries Merkle openings of the cells up to the hit
  against the owner's commitment of the turn, checked at once (when no Fire has been
  made this turn, so that the cells are still as committed: the count is public);
* ``ask`` ``presence_ot``: a presence question (R1.6: a cell our piece enters) as a
  1-out-of-512 oblivious transfer of the owner's table of held cells (net.ot), on the
  game's base transfers: the owner learns nothing, we learn whether it holds the cell;
* ``ask`` ``stun_ot``: a Stunner's line (R6.6.1: the first cell holding any piece is
  hit): the line and, by a 1-out-of-16 label transfer at the place of our first piece on
  it (``net.ot`` ``STUN_LABELS``), the owner's table of "a first piece of the asker's
  there is hit" (it comes before the owner's first); each side asks the other, so each
  learns its own piece's fate and neither the other's place (since ``wec-fog/14``; the
  question named our first piece's place, ``limit``, before);
* ``ask`` ``doze_ot``: our Doze judged privately (R8.8.4-5,
  net.doze_judge), about its public form (since ``wec-fog/8`` the selected squares
  holding only our unseen pieces are left out, and a second transfer, whose reply comes
  with the table's, judges their destinations): ten 1-out-of-32 oblivious transfers of the
  owner's table of verdict shares (net.ot ``LabelReceiver``, on the game's base
  transfers; since ``wec-fog/6``); we learn the verdict alone, the owner nothing, and
  ``judged`` then tells it (public: the Doze moves or it does not);
* ``back`` / ``back_answer``: a question the owner's rules ask back (R1.6 presence, the
  same transfer; a detection's queries when none went ahead);
* ``ot`` / ``ot_reply`` in the opening: the base transfers (net.ot) every transfer above
  stands on, once per game; made in every fog game since ``wec-fog/10`` (before, only
  when O16 or O18 was on);
* ``reach`` in an ``answer`` or a ``done``: the owner's detection queries sent ahead for
  the next question should it be a ``detect`` (net.private_sight ``OwnerRun.queries``:
  its slots' squares and identifiers at 48 positions, by transfer; its pieces cannot
  change before that question); the ``detect`` question then carries the asker's masked
  tables and input query (``reach`` in the ``ask``), and the answer is the input labels,
  the garbled material and the clear part: the asker learns what the rules show it, the
  owner nothing of the asker's sight (since ``wec-fog/15``; until then the owner
  answered from the asker's Sight, its reach read by transfer). A detection takes two
  messages instead of four (the rule of which messages carry queries:
  ``FogGame._reach_follows``, public facts only; a ``done`` carries them only when the other
  side acts next, since ``wec-fog/13``: our own next intent may change which of our
  pieces can hide). In the acting side's Exchange the other side does not see, its
  acquiring holders' squares stay secret too: their distances to the owner's positions
  come masked in the reach transfer's wide table (since ``wec-fog/16``; until then the
  reach went unmasked there, for lock tables);
* ``done``: the sender's resolution finished: its public state hash and, when the
  action began a turn, its signed commitment to its pieces for the new turn
  (net.commitment: one leaf per cell, fresh salts from the seed). The turn hash
  (``public_hash``) covers the public state and both commitments.

Every message is signed and chained (net.evidence): the record proves who said what.
A Fire is sent whole: with O21 on (R9.8) it reveals its firer anyway, and fog-of-war
games with O21 off are refused in the lobby (net.game_fog ``fog_problem``; docs/network.md,
"Fog of war over the wire").
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any, NamedTuple, TypeGuard

import msgpack  # type: ignore[import-untyped]

from wec.engine.board import GROUND, Level
from wec.engine.detection_parts import DetectionParts, Slot
from wec.engine.encoding import public_state_hash
from wec.engine.errors import IllegalIntent
from wec.engine.fire import plan_fire
from wec.engine.half_referee import OwnerConversation, acted_conversation, start_slots
from wec.engine.half_resolution import (
    MOVE_COLLIDE_OP,
    collide_implied,
    collision_effects_asked,
    detect_first,
    doze_collide_follows,
    firer_shown,
    implied_collide_after,
    launches_projectile,
    move_collide_follows,
    next_settle_collide,
    opens_with_new_turn,
    resolve,
)
from wec.engine.intents import Doze, EndTurn, Fire, Intent, Move
from wec.engine.outcome import Outcome
from wec.engine.pieces import ArticleKind, PieceKind, Side
from wec.engine.position import Piece, Position, Projectile, Result
from wec.engine.questions import (
    ActAnswer,
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
from wec.engine.sides import Summary, flame_cells
from wec.engine.transit_schedule import (
    Travel,
    bound_after,
    step_due,
    travels_after,
    travels_at_start,
)
from wec.engine.visibility import seen_whatever
from wec.net import fog_codec as codec
from wec.net import ot
from wec.net import private_sight as ps
from wec.net.audit import AuditVerdict, audit_game, unrevealed
from wec.net.commitment import (
    Commitment,
    CommitmentError,
    Opening,
    SignedCommitment,
    check_opening,
    opening_size,
)
from wec.net.doze_judge import (
    NO_DOZE,
    DozeJudgeError,
    asker_values,
    hidden_tables,
    hidden_values,
    hidden_verdict,
    owner_tables,
    tie_of,
    verdict_with_hidden,
)
from wec.net.errors import ProtocolError, with_article
from wec.net.evidence import BadSignature, Entry, EvidenceError, EvidenceLog
from wec.net.garble import GarbleError
from wec.net.identity import Identity
from wec.net.ot import OtError
from wec.net.private_sight import reach_table
from wec.net.psi import (
    FirstHitAsker,
    FirstHitOwner,
    FirstHitQuery,
    FirstHitReply,
    PsiError,
    run_secret,
)
from wec.net.resumable import Resumable, wait_until
from wec.net.sight_places import PrivateSightError

# the fog protocol's version (records; agreed in the lobby: net.game_fog fog_protocol).
# 2: the detection's reach by oblivious transfer (net.ot) and the opening's base
# transfers (2026-11-26); 3: the reach's keys by a fixed-key AES hash (2026-11-26);
# 4: the owner's reach query sent ahead with its answer, the table with the detect
# question (2026-11-26, session 13: a detection in two messages instead of four);
# 5: presence questions by oblivious transfer when the base transfers are made
# (``presence_ot``, net.ot; session 15); 6: a Doze judged by oblivious transfer
# (session 16); 7: at the peer's End of turn our finish waits for its transport-phase
# question, and the I/O layer's ``settle`` is an input of the record (session 17);
# 8: a Doze that moves only pieces the peer does not see goes as a hidden Move, every
# hidden Move's first-hit run carries a Doze transfer, and a Doze's form leaves out the
# squares of ours the peer does not see, judged by that transfer (net.doze_judge;
# session 18); 9: a detect question names no lock holder, and in a hidden Exchange
# its acquisitions go by lock transfers, no square named (net.lock_judge); a Doze's
# form names no Dozer's square the peer does not see (session 19); 10: the base
# transfers are made in every fog game, stealth only (O15 on, O16 and O18 off) too, so
# presence, the Doze and the lock go by transfer there as well, and the labelled PSI
# paths of presence and the Doze are gone (session 20); 11: the transport phase keeps
# to the schedule its side's Fires announced, phantom steps for a travel that ended
# early, every step the same number of presence questions, and entry keys sequenced
# within their operation (engine.transit_schedule; session 20); 12: every action that
# may doze a Bike rider adds a step to its side's Bike travels, and a traveller
# converted keeps travelling on its new side's schedule (session 21); 13: a reach query
# names only the squares of the owner's pieces that can hide, and a done carries one only
# when the other side acts next (session 21); 14: public forms go by what the acting side
# knows alone (an actor the other side sees whatever its detectors and locks goes whole,
# any other as hidden), the opening names no piece seen, the events a detection shows
# are numbered among themselves (no gap counts those left out) and go without their
# subject, and a Stunner's line goes by transfer, naming no first piece (session 23);
# 15: the answer to detect is evaluated privately (net.private_sight): the owner's
# queries ahead name its slots' squares and identifiers, the detect question carries the
# asker's masked tables and input query (and no more its Sight's seen, asked or locks),
# the answer the input labels, the garbled material and the clear part; a detection whose
# acquisitions go by lock tables (a hidden Exchange's) reads the reach unmasked (session 25);
# 16: a hidden Exchange's detections are private too: its holders' distances come masked
# in the reach transfer's wide table, the lock tables are gone (session 28);
# 17: the owner's first-hit table of a hidden Move is the one of the peer's k-th
# first-hit run of the game, not of the action's number (``FIRST_HIT_OWNER``): the same
# messages, other bytes in its answer, so a record of 16 would not replay (session 29);
# 18: a Fire that launches a projectile carries its strength: the other side's question
# for it is implied by the intent (``implied_questions``), answered unasked; a
# detection's answer is padded to 48 KiB, not 64 (net.fog_codec ``SIZE_CLASSES``: one
# session frame, not two) (session 30); 19: an End of turn's projectile phase that hits
# nothing asks no detect (engine.half_resolution: no piece changed, a public fact), and
# the transport question goes alone before the transport step's detect (session 31);
# 20: each side logs its own dozed pieces, each a Dozed of its own (engine.sides
# ``shove``): the other side is shown them through its detection as it sees them, and a
# projectile Fire while none homes implies both sides' first collide
# (``collide_implied``): never sent, each answered unasked (session 32); 21: a PickUp's
# or an Exchange's intent carries the acting side's detection queries for the other
# side's first question, its detect (engine.half_resolution ``detect_first``); 22: a
# Move's collide right after the other side's act("move") is implied when projectiles
# fly and none homes (``move_collide_follows``), answered unasked (session 33); 23: an
# End of turn's notice of the new turn is implied on both sides (``opens_with_new_turn``),
# and so is its first collide while projectiles fly and none homes (``collide_implied``),
# and every collide's collision_effects (``collision_effects_asked``), each answered
# unasked; the side not ending the turn finishes without waiting for a transport
# question not sure to come (``_transport_sure``) (session 34); 24: in such an End every
# later collide is implied as well (``next_settle_collide``: both sides ask the same
# ones), each answered unasked once both sides' answers to the one before are known
# (session 35), and a Doze's collide right after the other side's doze question while
# projectiles fly and none homes (``doze_collide_follows``), answered unasked as a Move's;
# 25: our owner side's presence question is implied by our own resolution's of the same
# rank when it asks the same cells (``_implied_presence``: a transit step, a landing, a
# risen piece), never asked back; and a message that lets both our owner side and our
# resolution go on has the owner side's answers sent in a step of their own, our
# resolution's step in the next (``settle``, an input of the record), so a record of 24
# does not replay (session 39); 26: a projectile Fire by a firer the other side sees
# whatever its detectors, whose projectile hits nothing, asks no detect on either side:
# the acting side names the firer with its strength (``ActAnswer.shown``), and the
# other side takes the firer's part from the intent (engine.half_resolution
# ``_quiet_fire``) (session 41); 27: a later collide of a settling asks only about the
# projectiles on the squares the collide before it hit (engine.half_resolution
# ``settle_candidates``), and none is asked when none is left there; the detection
# queries its answer carried come in an ``ahead`` message where the acting side's pieces
# alone were hit (``_send_ahead``) (session 43)
FORMAT = "wec-fog/27"
# questions (and, apart, questions asked back) the peer may send in one action: random
# games ask at most 6 and 4; beyond the bound a flood of valid questions, each answered
# by a private run (PSI or oblivious transfer), would hold our CPU
MAX_QUESTIONS = 512
# what stops the game when the peer's message makes it raise (FogGame.receive, settle)
_FAULTS = (ProtocolError, IllegalIntent, ValueError, TypeError, AttributeError, KeyError,
           IndexError, AssertionError)
# reach runs of each role made ahead between actions: the first (more were measured no
# better on loopback, where the next intent comes as soon as the random player picks it)
AHEAD_RUNS = 1
# between actions, the labels and pads of the detection runs of the next action's
# questions 1..PADS_AHEAD (net.private_sight ``RunPads``: 2-3 ms each). In 300 actions
# of a random game, of the detections that went by queries sent ahead 41 were of the
# first question (its run comes whole with the done), 105 of the second, 79 of the
# third and 39 of the later ones (throwaway /tmp/s26/qcount.py). 2 until session 29;
# 4 since, with the idle time the first-hit tables no longer take (FIRST_HIT_OWNER): an
# End of turn's second detection (question 4) finds its pads too, and the End came out
# faster in five alternated pairs of 25 s bench games (median 24.6-29.8 against
# 30.4-34.0 ms, p95 37.9-47.0 against 46.3-53.3 ms)
PADS_AHEAD = 4
# between actions, our asker side of the detection runs of our next action's questions
# 1..ASKER_AHEAD (net.private_sight ``AskerRun.parts``: the reach transfer's columns and
# the input query with its keys, 0.5-0.7 ms each, none of it hanging on the peer's
# queries): without them 81 of 188 detect questions made them on the path in a 15 s
# ``wec bench net`` game, and 51 of 96 with 0.3 s between actions (session 29; 1..4 as
# PADS_AHEAD)
ASKER_AHEAD = 4
# between actions, the transfers of our detection queries that our answers to the next
# action's questions 1..OWNER_AHEAD send ahead (net.private_sight ``OwnerTransfers``:
# 0.5-0.6 ms each); until session 30 only the first's, and the answers' queries took
# 0.44 ms on the path on average in a 15 s bench game
OWNER_AHEAD = 4
# reach runs sent ahead (``reach`` in an answer or a ``done``) are numbered from here on,
# by the detect question they serve; a run asked back (``back`` ``reach``) by its j below
PRE_RUN = MAX_QUESTIONS
# our first-hit table for the peer's k-th first-hit run of the game (a hidden Move's
# route, R5.2.4): keyed by that ordinal, which both sides know (each run is a
# ``first_hit_psi`` question), rather than by the action, so that one table made in idle
# time waits for the next hidden Move whenever it comes. Keyed by the action until
# session 29, a table was begun for every action of the peer's (210 X25519 calls, some
# 20 ms of idle work, nearly always for nothing), and in a 20 s bench game 8 of 12 hidden
# Moves found theirs not finished and made the rest on the path (4 not begun). The
# table's secret is ours alone (the audit compares the run's result in the clear).
FIRST_HIT_OWNER = "first-hit owner"

KINDS = ("commit", "ot", "ot_reply", "intent", "ask", "answer", "took", "judged", "back",
         "back_answer", "done", "reveal", "doze_reply", "ahead")
_QUESTIONS = ("first_hit", "presence", "detect", "weapon", "collide", "collision_effects",
              "homing", "doze", "transport_phase", "act", "new_turn", "receive")
_NOTICES = ("new_turn", "receive")  # nothing can be asked back while they are handled
# questions whose answer carries our reach query for a detect that may come next: every
# question but a notice (no answer), a detect (never followed by one) and a Doze's
# transfer (our pieces move by the verdict that comes later, ``judged``); a rule of public
# facts (the questions' kinds), so whether an answer carries one tells nothing. The one
# sent with a first-hit PSI reply serves only if the Move took nothing (``took`` tells)
_NO_REACH_AHEAD = ("detect", "doze_ot", "stun_ot", *_NOTICES)


def implied_questions(form: Intent) -> list[list[Any]]:
    """The questions the side that does not act asks first in its resolution of an
    intent whose public form is ``form``, known to both sides from the form alone: they
    never travel (since ``wec-fog/18``). The acting side answers them with its intent,
    one round trip off the other side's chain. A Fire that launches a projectile
    (engine.half_resolution ``launches_projectile``) asks the acting piece's strength
    (and a homing target), which the projectile shows both sides (R6.2.2, R9.1): the
    answer tells what the rules show, only sooner."""
    if isinstance(form, Fire) and launches_projectile(form):
        return [["act", "strength"]]
    return []


# what our owner side sends (its answers to the peer's resolution, and what it asks back
# of it): in a step's messages they go before the rest (our resolution's questions and
# notices, our done), an intent first of all. The peer's resolution waits on them, and
# they are cheap to take (but for a detection's answer); our questions then wait behind
# them instead (session 30)
_OWNER_KINDS = frozenset(("answer", "doze_reply", "back", "ahead"))


# our resolution's questions the peer answers at once from its pieces (no private run, no
# detection), and the notices it needs before any of them (``_NOTICES_FIRST``): in a
# step's messages they go before our owner side's answers (session 35). Behind the
# answers such a question waited for the peer's own resolution, which an answer sets
# going (in a Doze the Dozer's collide waited behind the other side's detect question,
# made first: 2.9 ms)
_QUICK_QUESTIONS = frozenset(("collide", "act", "homing"))
# what the peer must have before any later question of ours: where our hidden Move's
# first-hit run took its pieces, the Doze's verdict (in the order we told them)
_NOTICES_FIRST = frozenset(("took", "judged"))


def _may_go_on(act: ActionLog) -> bool:
    """Whether our resolution of ``act``, begun, has an answer to every question it
    asked (it waits on nothing: resumed, it goes on), the last not a Doze's or a hidden
    Move's first-hit run: their answers have us tell the verdict or the take
    (``judged``, ``took``), which the peer needs before anything else."""
    s = act.mine
    last = len(s.questions) - 1
    return last >= 0 and len(s.answers) > last and s.questions[last][0] != "doze" \
        and last not in act.psi


def _send_order(item: tuple[str, Any]) -> int:
    """A step's messages in the order they go (``sorted`` keeps each stream's own)."""
    kind, payload = item
    if kind == "intent":
        return 0
    question = payload.get("q") if kind == "ask" else None
    quick = isinstance(question, list) and bool(question) and question[0] in _QUICK_QUESTIONS
    if kind in _NOTICES_FIRST or quick:
        return 1
    return 2 if kind in _OWNER_KINDS else 3


def _collide_after_first_implied(act: ActionLog, questions: Sequence[Any],
                                 answers: Sequence[Any]) -> bool:
    """Whether the resolution of ``act`` by the side that does not act (its
    ``questions`` and ``answers`` so far, on either side; never the acting side's, whose
    Doze asks ``doze`` first too) asks next the collide implied after its first
    question: its ``act("move")`` in a Move (engine.half_resolution
    ``move_collide_follows``) or its ``doze`` in a Doze it sees
    (``doze_collide_follows``, since ``wec-fog/24``)."""
    if not questions or not answers:
        return False
    if isinstance(act.form, Doze):
        return not act.hidden and questions[0][0] == "doze" \
            and doze_collide_follows(act.form, act.start.projectiles)
    if not isinstance(act.form, Move) or list(questions[0]) != ["act", "move"]:
        return False
    moved = answers[0] if isinstance(answers[0], ActAnswer) else codec.from_wire(answers[0])
    return isinstance(moved, ActAnswer) and move_collide_follows(
        act.form, act.start.projectiles, moved, act.actor)


def _implied_notices(act: ActionLog) -> list[list[Any]]:
    """The notices both sides' resolutions of ``act`` tell first, known to both from its
    public form: an End of turn's new turn (engine.half_resolution
    ``opens_with_new_turn``, R4.11). Never sent (since ``wec-fog/23``): each side
    records the peer's as its question 0."""
    if not opens_with_new_turn(act.form):
        return []
    return [["new_turn", *codec.to_wire((act.start.turn + 1,))]]


def _hit_cells(answer: Any) -> frozenset[int]:
    """A collide's answer (the cells of the answering side's pieces hit), decoded."""
    return answer if isinstance(answer, frozenset) else codec.from_wire(answer)


def _effects_questions(collide: Sequence[Any], hit: Any) -> list[list[Any]]:
    """The ``collision_effects`` questions that follow the ``collide`` question (as it
    travels) answered ``hit`` (engine.half_resolution ``collision_effects_asked``), as
    they would travel: never sent, the side that answered the collide answers them
    unasked (since ``wec-fog/23``)."""
    return [["collision_effects", *codec.to_wire(args)]
            for args in collision_effects_asked(codec.from_wire(collide[1]), _hit_cells(hit))]


def _implied_effects(questions: Sequence[Any], answers: Sequence[Any], i: int
                     ) -> list[Any] | None:
    """Question ``i`` of a resolution whose ``questions`` and ``answers`` so far are given,
    as implied by its last collide's answer (``_effects_questions``), or None when no
    effects question is due there."""
    j = i - 1
    while j >= 0 and questions[j][0] == "collision_effects":
        j -= 1
    if j < 0 or questions[j][0] != "collide" or j >= len(answers):
        return None
    implied = _effects_questions(questions[j], answers[j])
    at = i - j - 1
    return implied[at] if at < len(implied) else None


def _settle_collides_implied(act: ActionLog) -> bool:
    """Whether every collide of ``act`` is implied: an End whose first collide is
    (``collide_implied``); each later one follows from both sides' answers to the one
    before (engine.half_resolution ``next_settle_collide``, since ``wec-fog/24``)."""
    return isinstance(act.form, EndTurn) and collide_implied(act.form, act.start.projectiles)


def _collides(questions: Sequence[Any]) -> list[int]:
    """The indices of the ``collide`` questions among ``questions``, in order."""
    return [i for i, q in enumerate(questions) if q[0] == "collide"]


def _later_collide_implied(act: ActionLog, questions: Sequence[Any]) -> bool:
    """Whether the last of our ``questions`` of ``act``, a collide, is implied after the
    first (``_settle_collides_implied``): never sent, the peer answers it unasked."""
    return _settle_collides_implied(act) and len(_collides(questions)) > 1


def _ahead_came(act: ActionLog, i: int) -> bool:
    """Whether the peer's queries for our question ``i``, sent apart, have come."""
    return i in act.pre_theirs


def _first_collide_answered(act: ActionLog) -> bool:
    """Whether the peer's answer to our resolution's first collide of ``act`` has come."""
    ours = _collides(act.mine.questions)
    return bool(ours) and ours[0] < len(act.mine.answers)


def _next_collide(collide: Sequence[Any], answers: Sequence[Any]) -> list[Any] | None:
    """The collide that follows ``collide`` (as it travels) in an End's settling, both
    sides' ``answers`` to it given (``next_settle_collide``), as it would travel; None
    when the settling is over."""
    hit = frozenset().union(*(_hit_cells(a) for a in answers))
    following = next_settle_collide(codec.from_wire(collide[1]), codec.from_wire(collide[2]),
                                    hit)
    return None if following is None else ["collide", *codec.to_wire(following)]


def _same_collides(act: ActionLog, rank: int) -> None:
    """Both sides ask the same collides in an End whose collides are implied: ours and the
    peer's of rank ``rank``, when both are recorded, are one question (AssertionError:
    our own program is at fault, the peer's question was ours to record)."""
    ours, theirs = _collides(act.mine.questions), _collides(act.theirs)
    if rank < len(ours) and rank < len(theirs) \
            and act.mine.questions[ours[rank]] != act.theirs[theirs[rank]]:
        raise AssertionError(f"our collide {rank} of the End is not the peer's, as "
                             "next_settle_collide says")


def _record_implied(act: ActionLog, at: int, q: list[Any], refusal: str) -> None:
    """The peer's implied question ``q`` recorded as its question ``at``, no message its
    proof, for our owner side to answer unasked. Something there already was recorded
    here before (a re-execution, a restore: proof -1) and stays; a question the peer sent
    there all the same is refused with ``refusal`` (it is never sent)."""
    if at < len(act.theirs):
        if act.theirs_proof[at] != -1:
            raise FogError(refusal)
        return
    act.theirs.append(q)
    act.theirs_proof.append(-1)  # no message of the peer's carries it


def _collide_after_first_question(act: ActionLog) -> list[Any]:
    """The implied collide of ``_collide_after_first_implied``, as it would travel."""
    return ["collide", *codec.to_wire((MOVE_COLLIDE_OP, tuple(act.start.projectiles)))]


def _next_actor(act: ActionLog) -> Side:
    """Who acts after ``act`` (public: an End of turn hands over, R4.11)."""
    return act.actor.other if isinstance(act.form, EndTurn) else act.actor


# each message kind's fields (wec-fog/25): those it must carry, and those it may; a peer's
# message with a field missing or one the protocol does not have is refused as such,
# naming it ("an answer message without its 'i' field"), not by whatever our handling of
# it would have tripped on (a KeyError, until session 40). The opening's commitment has
# a check of its own (it carries the commitment alone); the reveal is read by the audit
_FIELDS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "ot": (frozenset({"q"}), frozenset()),
    "ot_reply": (frozenset({"a"}), frozenset()),
    "intent": (frozenset({"n", "form", "hidden"}), frozenset({"reach"})),
    "ask": (frozenset({"n", "i", "q"}), frozenset({"reach"})),
    "answer": (frozenset({"n", "i", "a"}), frozenset({"reach", "open"})),
    "took": (frozenset({"n", "i", "cell"}), frozenset()),
    "judged": (frozenset({"n", "i", "foiled"}), frozenset()),
    "doze_reply": (frozenset({"n", "i", "a"}), frozenset()),
    "ahead": (frozenset({"n", "i", "reach"}), frozenset()),
    "back": (frozenset({"n", "j", "q"}), frozenset()),
    "back_answer": (frozenset({"n", "j", "a"}), frozenset()),
    "done": (frozenset({"n", "hash", "commit"}), frozenset({"turn", "reach"})),
}
# the fields of one type whatever the kind: the numbers of an action, a question or a
# question asked back, the flags and texts read as they are, and the list of openings
_FIELD_TYPES: dict[str, tuple[type, str]] = {
    "n": (int, "a number"), "i": (int, "a number"), "j": (int, "a number"),
    "turn": (int, "a number"), "hidden": (bool, "a yes or no"),
    "foiled": (bool, "a yes or no"), "hash": (str, "a text"), "open": (list, "a list")}


def _fields_problem(kind: str, payload: dict[Any, Any]) -> str | None:
    """What is wrong with the fields of a peer's ``kind`` message (None: nothing): a
    field it must carry and does not, one the protocol does not have, or a number, flag
    or text (``_FIELD_TYPES``) of another type."""
    if kind not in _FIELDS:
        return None
    must, may = _FIELDS[kind]
    missing = sorted(must - payload.keys())
    if missing:
        return f"{with_article(kind)} message without its {missing[0]!r} field"
    extra = sorted(map(repr, payload.keys() - must - may))
    if extra:
        return f"{with_article(kind)} message with a field the protocol does not have ({extra[0]})"
    for name, (kind_of, what) in _FIELD_TYPES.items():  # (a number out of turn is
        # named by the check of its turn)
        if name in payload and type(payload[name]) is not kind_of:
            return f"{with_article(kind)} message whose {name!r} is not {what}"
    return None


def _is(cls: type) -> Callable[[Any], bool]:
    return lambda value: type(value) is cls


def _all(check: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda value: type(value) is tuple and all(map(check, value))


def _hit(value: Any) -> bool:  # a Conversion's hit: (pid, article, charges)
    return type(value) is tuple and len(value) == 3 and type(value[0]) is int \
        and type(value[1]) is ArticleKind and type(value[2]) is int


_INT = _is(int)
# the arguments of each question the owner side answers by the engine
# (engine.questions ``Conversation``; a collision_effects is never sent, and refused
# before), as decoded from the peer's message: a question whose
# arguments are not these is refused as it comes, saying so, before any of our code reads
# them (until session 40 some went through and stopped the game with whatever they broke:
# "breaks the resolution (ValueError: act: unknown need None)")
_QUESTION_ARGS: dict[str, tuple[tuple[str, str, Callable[[Any], bool]], ...]] = {
    "first_hit": (("op", "a number", _INT), ("cells", "cell numbers", _all(_INT))),
    "presence": (("cells", "cell numbers", _all(_INT)),),
    "detect": (("sight", "a Sight", _is(Sight)),),
    "weapon": (("op", "a number", _INT), ("step", "a WeaponStep", _is(WeaponStep))),
    "collide": (("op", "a number", _INT),
                ("projectiles", "Projectiles", _all(_is(Projectile)))),
    "homing": (("queries", "HomingQueries", _all(_is(HomingQuery))),),
    "doze": (("question", "a DozeQuestion", _is(DozeQuestion)),),
    "transport_phase": (("op", "a number", _INT),
                        ("projectiles", "Projectiles", _all(_is(Projectile)))),
    "act": (("need", "move, strength or drop", lambda need: need in ("move", "strength",
                                                                      "drop")),),
    "new_turn": (("turn", "a number", _INT),),
    "receive": (("pieces", "Pieces", _all(_is(Piece))),
                ("hits", "hits (piece, article, charges)", _all(_hit))),
}
# what our resolution takes as the answer to each question it asked that is read as the
# engine's value (the rest are runs of their own, checked there): an answer of another
# type is refused as it comes
_ANSWER_TYPES: dict[str, tuple[str, Callable[[Any], bool]]] = {
    "first_hit": ("a FirstHit or nothing", lambda a: a is None or type(a) is FirstHit),
    "weapon": ("a WeaponAnswer", _is(WeaponAnswer)),
    "collide": ("a set of slots", lambda a: type(a) is frozenset and all(map(_INT, a))),
    "collision_effects": ("nothing", lambda a: a is None),
    "homing": ("HomingAnswers", _all(_is(HomingAnswer))),
    "doze": ("a yes or no", _is(bool)),
    "transport_phase": ("nothing", lambda a: a is None),
    "act": ("an ActAnswer", _is(ActAnswer)),
}


def _question_args_problem(name: str, args: Any) -> str | None:
    """What is wrong with the arguments of the peer's ``name`` question (None:
    nothing)."""
    spec = _QUESTION_ARGS.get(name)
    if spec is None:
        return None
    if type(args) is not tuple or len(args) != len(spec):
        return (f"{with_article(name)} question with {len(args) if type(args) is tuple else 'no'} "
                f"arguments where it has {len(spec)} ({', '.join(n for n, _, _ in spec)})")
    for (arg, what, check), value in zip(spec, args, strict=True):
        if not check(value):
            return f"{with_article(name)} question whose {arg} is not {what} (engine.questions)"
    return None


class FogError(ProtocolError):
    """A peer message that breaks the fog protocol (fatal: the game stops and is
    audited)."""


class _Unsigned(FogError):
    """A peer message whose signature fails (found by the later check)."""


class OwnLimit(FogError):
    """A limit of this program met on our side (net.private_sight's runs), not the
    peer's doing: the game stops all the same (the peer learns it from our reveal), and
    our audit does not name the peer for it."""


# ---------------------------------------------------------------- messages and steps


@dataclass(frozen=True)
class FogMessage:
    """One signed message: ``kind``, a padded msgpack ``body`` (net.fog_codec) and the
    sender's evidence ``entry`` (net.evidence, 193 bytes) signing both."""

    kind: str
    body: bytes
    entry: bytes

    def signed(self) -> bytes:
        """The bytes the entry signs."""
        data: bytes = msgpack.packb([self.kind, self.body], use_bin_type=True)
        return data

    def to_wire(self) -> dict[str, Any]:
        """msgpack-ready (str and bytes only)."""
        return {"kind": self.kind, "body": self.body, "entry": self.entry}

    @classmethod
    def from_wire(cls, data: Any) -> FogMessage:
        if not isinstance(data, dict) or set(data) != {"kind", "body", "entry"} \
                or data["kind"] not in KINDS or not isinstance(data["body"], bytes) \
                or not isinstance(data["entry"], bytes):
            raise FogError("not a fog message")
        return cls(data["kind"], data["body"], data["entry"])

    @property
    def size(self) -> int:
        return len(self.kind) + len(self.body) + len(self.entry)


@dataclass(frozen=True)
class Applied:
    """An intent resolved on our half state: ``index`` the game's action number,
    ``intent`` ours whole or the peer's public form (``hidden``: its actor is hidden
    from us), ``outcome`` our engine outcome (our half afterwards, our events)."""

    index: int
    side: Side
    intent: Intent
    hidden: bool
    outcome: Outcome


@dataclass(frozen=True)
class TurnHash:
    """Both sides committed to the turn ``turn``: the turn hash both compare."""

    turn: int
    public_hash: str


@dataclass(frozen=True)
class Refused:
    """Our intent is illegal on what we know (R4.13): nothing was sent."""

    rule: str
    text: str


@dataclass(frozen=True)
class Fault:
    """The peer broke the protocol or was caught lying at once; the game cannot go on
    and should be audited. ``proof``: indices in our evidence record."""

    reason: str
    index: int | None
    proof: tuple[int, ...]
    ours: bool = False  # a limit of our own program met (OwnLimit), not the peer's fault


FogEvent = Applied | TurnHash | Refused | Fault


@dataclass(frozen=True)
class FogStep:
    send: tuple[FogMessage, ...] = ()
    events: tuple[FogEvent, ...] = ()


# ---------------------------------------------------------------- per action state


@dataclass
class _Script:
    """One side of one conversation: the questions asked (wire form) and the answers
    (decoded), with the evidence indices of the answers (proof)."""

    questions: list[Any] = field(default_factory=list)
    answers: list[Any] = field(default_factory=list)
    proof: list[int] = field(default_factory=list)


class TheirReach(NamedTuple):
    """A detection run the peer's owner side asked us (``back`` ``reach``, or sent
    ahead): its reach and identifier queries (net.private_sight ``OwnerRun.queries``)."""

    question: int  # our detect question it serves (in ActionLog.mine)
    query: list[bytes]
    proof: int  # its evidence index


class _SentAhead(NamedTuple):
    """Our detection queries sent ahead: our slots' squares, the queries, the slots."""

    squares: tuple[int, ...]
    queries: list[bytes]
    slots: tuple[Slot, ...]


class _Foreseen:
    """Our owner side of the run our first answer of the next action sends the queries
    of (``PRE_RUN + 1``), made between actions on our slots as they stand: the peer's
    action most often leaves our pieces as they are (a Fire that hits nothing, a Move
    that takes nothing), and then its queries, their transfers' keys and the garbling on
    the parts a detection asked at once would have (``peek``) are ready when the answer
    goes. Used only for the same slots (``FogGame._reach_ahead``): the queries and the
    material are the same bytes as made then (the run hangs on our seed, its number and
    the slots alone). Until session 38 the side that does not act made it all after its
    answer, on its path: it has no idle time in most actions."""

    def __init__(self, run: ps.OwnerRun) -> None:
        self.run = run
        self.queries = list(run.queries())  # once per run (net.ot)

    def parts(self) -> list[Callable[[], object]]:
        return self.run.parts()

    @property
    def made(self) -> bool:
        return self.run.made


# runs made ahead (FogGame.preparing): reach transfers, first-hit tables and queries
Prepared = (ps.OwnerTransfers | ps.AskerRun | FirstHitOwner | FirstHitAsker | ps.RunPads
            | _Foreseen)


class SightRead(NamedTuple):
    """What our owner side read of the peer's bits at its detect question (the audit
    compares it with the peer's true sight: net.private_sight ``claimed_bits``)."""

    j: int  # the run's number (PRE_RUN on: sent ahead)
    placed: tuple[Slot | None, ...]  # our slots at their positions
    masked: list[int]  # the five bits of each position XOR the peer's mask (13 bits with
    # its holders' distances, in its Exchange we do not see)
    input_query: bytes
    proof: int  # the evidence index of the message that brought the peer's tables
    distance_query: bytes | None = None  # its query for the distance wires' labels


# the sizes of a detection run's messages: the owner's queries, the asker's masked
# tables and input query (net.private_sight)
SIGHT_QUERIES = (ot.QUERY_SIZE, ps.PID_LABELS.query_size)
SIGHT_REPLIES = (ot.REPLY_SIZE, ps.PID_LABELS.reply_size, ps.INPUT_LABELS.query_size)
# in the asker's Exchange the owner does not see: and its holders' distances, masked, with
# the query for their labels (net.private_sight ``AskerRun.reply(..., hidden=True)``)
HIDDEN_SIGHT_REPLIES = (*SIGHT_REPLIES, ot.WIDE_REPLY_SIZE, ps.DIST_LABELS.query_size)


def _sight_replies(act: ActionLog, asker: Side) -> tuple[int, ...]:
    """The sizes of ``asker``'s tables for a detection run in this action."""
    return HIDDEN_SIGHT_REPLIES if _holders_hidden(act, asker) else SIGHT_REPLIES


def _sized(value: Any, sizes: Sequence[int]) -> TypeGuard[list[bytes]]:
    """Whether ``value`` is a list of byte strings of ``sizes``."""
    return isinstance(value, list) and len(value) == len(sizes) and all(
        type(v) is bytes and len(v) == n for v, n in zip(value, sizes, strict=True))


@dataclass
class ActionLog:
    """Everything one action went through on this machine (the audit reads it)."""

    n: int
    actor: Side
    intent: Intent  # ours whole, or the peer's public form
    form: Intent
    hidden: bool
    start: Position  # our half before
    openable: bool  # no Fire yet this turn: the non-acting side's cells are as committed
    # our transport schedule before (engine.transit_schedule: our phase keeps to it)
    travels: tuple[Travel, ...]
    intent_proof: int = -1
    # our bound of the peer's transport schedule before (engine.transit_schedule
    # ``bound_after``): with no step due, our End asks no transport phase
    peer_bound: tuple[Travel, ...] = ()
    mine: _Script = field(default_factory=_Script)  # our resolution's questions
    # our first-hit PSI runs by question: [cells, secret, query, reply]
    psi: dict[int, list[Any]] = field(default_factory=dict)
    theirs: list[Any] = field(default_factory=list)  # the peer's questions (wire form)
    theirs_proof: list[int] = field(default_factory=list)
    answered: list[Any] = field(default_factory=list)  # our answers to them (wire form)
    took: dict[int, int | None] = field(default_factory=dict)
    # the ordinal in the game of each of the peer's first-hit runs here, by question:
    # our table's run (``FIRST_HIT_OWNER``)
    first_hit_ordinals: dict[int, int] = field(default_factory=dict)
    # a hidden Move's Doze transfer (wec-fog/8): our reply to the peer's, made with our
    # answer and sent just before it; the peer's reply to ours, kept for its answer
    doze_out: dict[int, bytes] = field(default_factory=dict)
    doze_replies: dict[int, bytes] = field(default_factory=dict)
    judged: dict[int, bool] = field(default_factory=dict)  # the peer's Doze verdicts told
    # our first piece's fate on each Stunner line our resolution asked about, in order
    # (R6.6.1): our owner side applies it at the peer's question of the same line
    own_stun: list[bool] = field(default_factory=list)
    backs: _Script = field(default_factory=_Script)  # what our owner side asked back
    their_backs: list[Any] = field(default_factory=list)  # what the peer's asked us back
    outcome: Outcome | None = None
    # our resolution's outcome while its finish (``done``, the event) waits for the
    # peer's transport-phase question (FogGame._finish_waits); then ``outcome``
    resolved: Outcome | None = None
    peer_hash: str | None = None
    peer_done_proof: int = -1
    back_obj: Any = None
    # in memory only, to spare re-executions the codec: our questions as the engine
    # asked them, and the peer's questions decoded (both remade by a restore's replay)
    mine_args: list[tuple[str, tuple[Any, ...]]] = field(default_factory=list)
    theirs_args: dict[int, Any] = field(default_factory=dict)
    route_askers: dict[int, FirstHitAsker] = field(default_factory=dict)  # first-hit runs
    # our resolution and our owner side, waiting where they need the peer (net.resumable)
    mine_run: Resumable[Outcome] | None = None
    owner_run: Resumable[None] | None = None
    backs_in: int = 0  # back messages of the peer's received (the next one's j)
    # the peer's reach queries by their j: which detect question of ours each serves,
    # the query and its evidence index (the audit checks them)
    their_reach: dict[int, TheirReach] = field(default_factory=dict)
    # reach runs sent ahead (wec-fog/4), by the detect question they would serve: the
    # peer's queries (from its answer to the question before: query, evidence index),
    # ours (our squares, the query) and the peer's tables for ours (table, index)
    pre_theirs: dict[int, tuple[list[bytes], int]] = field(default_factory=dict)
    pre_mine: dict[int, _SentAhead] = field(default_factory=dict)
    pre_tables: dict[int, tuple[list[bytes], int]] = field(default_factory=dict)
    # what our owner side read of the peer's bits at its detect questions, by question
    sight_read: dict[int, SightRead] = field(default_factory=dict)
    # both sides' first collide known from public facts (engine.half_resolution
    # ``collide_implied``): ours not asked yet, the peer's not recorded yet
    collide_implied: bool = False
    peer_collide_due: bool = False
    # our owner side waits for the peer's answer to our collide before it can record the
    # peer's next one (``_their_next_collide``)
    next_collide_due: bool = False
    # likewise before it can tell whether the peer's detect follows its first collide, for
    # which it sends its queries apart (``_send_ahead``)
    ahead_due: bool = False
    # our resolution's next step, left for :meth:`FogGame.settle` so that our owner side's
    # answer to the same message went out first (``FogGame._after``): the evidence index
    # of that message (the proof should our resolution find it breaks the rules)
    continues: int | None = None


# ---------------------------------------------------------------- the game


class FogGame:
    """This side of a fog-of-war game (see the module docstring)."""

    def __init__(self, *, game_id: bytes, side: Side, half: Position, identity: Identity,
                 peer_key: bytes, seed: bytes,
                 start_bounds: Mapping[Side, Sequence[Travel]] | None = None) -> None:
        """``start_bounds``: each side's bound of the other's transport schedule as the
        record begins (engine.transit_schedule ``bound_after``), none in a start position
        (R14.4(b)); a game begun from a position in play (a test's) gives both sides the
        same, the schedules its pieces in transit keep (``travels_at_start``)."""
        if half.viewer is not side:
            raise ValueError("a FogGame holds its own side's half state")
        if len(seed) != 32:
            raise ValueError("the game seed has 32 bytes")
        self.game_id, self.side, self.identity = game_id, side, identity
        self.peer_key, self.seed = peer_key, seed
        self.start = half
        self._half = half
        # our transport schedule (engine.transit_schedule): the steps our Fires announced
        self.travels = travels_at_start(half, side)
        # our bound of the peer's schedule (engine.transit_schedule ``bound_after``)
        self.start_bounds = {s: tuple((start_bounds or {}).get(s, ())) for s in Side}
        self.peer_bound = self.start_bounds[side]
        self.log = EvidenceLog(game_id, side.value, identity, peer_key)
        self.actions: list[ActionLog] = []
        self.commitments: dict[int, Commitment] = {}
        self.signed: dict[tuple[Side, int], SignedCommitment] = {}
        self.signed_proof: dict[tuple[Side, int], int] = {}
        self.peer_opened = False
        self.opened = False
        self.fault: Fault | None = None
        self.revealed = False
        self.verdict: AuditVerdict | None = None  # the audit's, once given (nothing after)
        self._inputs: list[Any] = []
        self._out: list[tuple[str, Any]] = []
        # what a receive made before the message (``_settle_due``), in its order, to go
        # first: as it would have had the I/O layer settled before the message came
        self._ahead: list[tuple[str, Any]] = []
        self._events: list[FogEvent] = []
        self._hashed: set[int] = set()
        self._turns_done: set[int] = set()
        # computed values kept in memory only (never recorded: a restore recomputes them)
        self._hash_memo: dict[int, tuple[Position, str]] = {}
        # our owner side's detection run asked back (``back`` ``reach``), kept for the
        # peer's tables (net.private_sight)
        self._owner_runs_back: dict[tuple[int, int], ps.OwnerRun] = {}
        # our detect questions' runs (net.private_sight), kept for the answer
        self._sight_askers: dict[tuple[int, int], ps.AskerRun] = {}
        # runs made ahead by preparing(), by (role, action, question number); the roles:
        # "asker" our hidden Move's first-hit PSI query, "sight owner"/"sight asker" our
        # part of a detection run about our pieces / the peer's (net.private_sight); and
        # FIRST_HIT_OWNER our first-hit table, by (role, ordinal, 0) instead
        self._prepared: dict[tuple[str, int, int], Prepared] = {}
        # the peer's first-hit runs so far (public: each is a ``first_hit_psi``
        # question); our table for the next one is made ahead whatever the action
        self._first_hit_runs = 0
        # the reach's oblivious transfers (net.ot): our seed pairs as their receiver,
        # our choice bits as their sender and the seeds they gave us (the base
        # transfers of the opening: ``ot`` and ``ot_reply``)
        self._ot_pairs = ot.seed_pairs(seed, game_id)
        self._ot_choice = ot.choice_bits(seed, game_id)
        self._ot_chosen: tuple[bytes, ...] | None = None
        # our presence transfer waiting for its reply, by (action, asked back, number)
        self._presence_receivers: dict[tuple[int, bool, int], ot.PresenceReceiver] = {}
        self._ot_replied = False
        # detection queries sent ahead with a ``done`` for the next action's first
        # question, by that action's number: the peer's (queries, evidence index) and ours;
        # and our owner side's runs of queries sent ahead, by (action, question), kept for
        # the tables (in memory)
        self._first_reach_theirs: dict[int, tuple[list[bytes], int]] = {}
        self._first_reach_mine: dict[int, _SentAhead] = {}
        self._owner_runs_ahead: dict[tuple[int, int], ps.OwnerRun] = {}
        # our commitment of the next turn made ahead on our pieces as they stand (the
        # turn's end then hashes only the cells that changed since)
        self._commit_ahead: Commitment | None = None

    # ------------------------------------------------------------ state

    @property
    def half(self) -> Position:
        return self._half

    @property
    def turn(self) -> int:
        return self._half.turn

    @property
    def result(self) -> Result | None:
        return self._half.result

    @property
    def exchanged(self) -> int:
        """Our intents played and the peer's messages received so far: it grows with every
        step of the exchange (what a stalled exchange is timed by, net.game_clock)."""
        return len(self._inputs)

    @property
    def busy(self) -> bool:
        """A resolution waits for answers, or a commitment of the turn is missing."""
        act = self.actions[-1] if self.actions else None
        if act is not None and (act.outcome is None or act.peer_hash is None):
            return True
        return not self.bases_done or self._turn_roots() is None

    @property
    def bases_done(self) -> bool:
        """The peer opened and both base transfers (net.ot) are done on our side: we
        replied to its queries and have its reply to ours. No action starts before:
        our replies to its questions stand on our chosen seeds, and ours to its base
        queries must be on the wire before our intent, so that the peer holds its
        chosen seeds when our questions come (in 2026-11-28 runs through a delaying
        proxy a side played on the peer's commitment alone, and the peer's answers
        made before our base reply faulted it: "an input transfer before the base
        transfers")."""
        return self.peer_opened and self._ot_replied and self._ot_chosen is not None

    def _turn_roots(self) -> tuple[bytes, bytes] | None:
        t = self._half.turn
        black, white = self.signed.get((Side.BLACK, t)), self.signed.get((Side.WHITE, t))
        if black is None or white is None:
            return None
        return black.root, white.root

    @property
    def public_hash(self) -> str:
        """The turn hash both sides compare: the public state and both commitments of the
        turn (empty string while a commitment is missing)."""
        roots = self._turn_roots()
        if roots is None:
            return ""
        return hashlib.sha256(b"wec-fog turn hash v1" + self._state_hash(self._half).encode()
                              + roots[0] + roots[1]).hexdigest()

    # ------------------------------------------------------------ commands

    def opening(self) -> list[FogMessage]:
        """The signed commitment to our pieces of the start. It names none of the peer's
        pieces we see (until ``wec-fog/14`` it did, and a board with pieces hidden from the
        start told the peer what our detectors found): the peer's public forms go by what
        it knows alone (net.fog_codec ``surely_seen``)."""
        if self.opened:
            raise ValueError("opening() once per game")
        self._inputs.append(["open"])
        self.opened = True
        signed = self._commit()
        self._send("commit", {"commit": signed.to_bytes()})
        # the base transfers every later transfer stands on (net.ot)
        self._send("ot", {"q": ot.base_queries(self.seed, self.game_id)})
        self._turn_check()
        return list(self._flush().send)

    def hides(self, intent: Intent) -> bool:
        """Whether ``intent`` (ours, to play now) is a Move of a piece the peer may not
        see (net.fog_codec ``public_form``): its route is then resolved by private set
        intersection (R5.2.4)."""
        if not isinstance(intent, Move):
            return False
        return codec.public_form(intent, self._half)[1]

    def play(self, intent: Intent) -> FogStep:
        """Our own intent: checked on our half state (R4.13) and resolved over the wire."""
        if self.fault is not None:
            return FogStep(events=(Refused("fault", "the game stopped: " + self.fault.reason),))
        if not self.bases_done:
            return FogStep(events=(Refused("busy", "the game is still opening: the base "
                                                   "transfers with the peer are under way"),))
        if self.busy:
            return FogStep(events=(Refused("busy", "the previous action is still resolving"),))
        if self._half.side_to_act is not self.side:
            return FogStep(events=(Refused("R4.1", f"it is {self._half.side_to_act.title}'s "
                                                   "turn"),))
        form, hidden = codec.public_form(intent, self._half)
        act = ActionLog(len(self.actions), self.side, intent, form, hidden, self._half,
                        self._half.actions.fire == 0, self.travels,
                        peer_bound=self.peer_bound)
        self._begin(act)
        for q in [*_implied_notices(act), *implied_questions(form)]:  # the peer's first
            act.theirs.append(q)  # questions, never sent
            act.theirs_proof.append(-1)  # no message of the peer's carries it
        act.collide_implied = act.peer_collide_due = collide_implied(form, act.start.projectiles)
        try:
            self._run_mine(act)
        except IllegalIntent as exc:
            self.actions.pop()
            self._out.clear()
            return FogStep(events=(Refused(exc.rule, exc.detail),))
        self._inputs.append(["play", codec.to_wire(intent)])
        payload: dict[str, Any] = {"n": act.n, "form": codec.to_wire(form), "hidden": hidden}
        if detect_first(form):
            payload["reach"] = self._intent_reach(act)
        self._out.insert(0, ("intent", payload))
        self._after(act)
        return self._flush()

    @property
    def finish_due(self) -> bool:
        """Whether :meth:`settle` has something to make: a finish, or our resolution's
        step left until our owner side's answer is out."""
        return self._finish_due() is not None or self._continuation_due() is not None

    def settle(self) -> FogStep:
        """What waited until a step's messages were out: our finish that waited for the
        peer's question (:meth:`_finish_waits`), or our resolution's step on the
        message whose answer by our owner side went out first (:meth:`_after`). The I/O
        layer calls this after it wrote a step's messages (nothing to do most times).
        Recorded as an input when it makes something; a message received makes what is
        still due first."""
        if self._finish_due() is None and self._continuation_due() is None:
            return FogStep()
        self._inputs.append(["settle"])
        shown = len(self._events)
        try:
            self._settle_due()
        except _FAULTS as exc:
            self._failed(exc, shown, self._last_index())
        return self._flush()

    def receive(self, message: FogMessage) -> FogStep:
        """A message of the peer's. After the verdict nothing is taken: the record is
        final, and a message the peer signs afresh would otherwise run the last action
        again from its start (its resolutions were let go, :meth:`close`)."""
        if self.verdict is not None:
            return FogStep()
        self._inputs.append(["recv", message.to_wire()])
        shown = len(self._events)
        try:
            self._settle_due()  # before the message, as a restore makes it
            self._ahead = sorted(self._out, key=_send_order)
            self._out.clear()
            shown = len(self._events)
            self._accept(message)
            if self.fault is None:
                self._handle(message)
            if self.fault is None and (self._events or not self.busy):
                self._check_signatures()
        except _FAULTS as exc:
            self._failed(exc, shown, self._last_index())
        return self._flush()

    def _failed(self, exc: Exception, shown: int, proof: int) -> None:
        """The game stopped by ``exc``, raised on the peer's message at evidence index
        ``proof``: nothing of the step shown since event ``shown`` stands, but the
        fault."""
        if isinstance(exc, ProtocolError):
            reason = exc.reason
        elif isinstance(exc, IllegalIntent):
            reason = str(exc)
        else:
            reason = f"the peer's message breaks the resolution ({type(exc).__name__}: {exc})"
        del self._events[shown:]
        # the proof: the peer's message in our record (none for one not signed)
        self._fail(reason, *(() if isinstance(exc, _Unsigned) else (proof,)),
                   ours=isinstance(exc, OwnLimit))

    def reveal(self) -> FogMessage:
        """At the game's end (any way): our seed, our start half state and all our
        intents, signed."""
        self._inputs.append(["reveal"])
        self.revealed = True
        mine = [[a.n, codec.to_wire(a.intent)] for a in self.actions if a.actor is self.side]
        self._send("reveal", {"seed": self.seed, "intents": mine,
                              "start": codec.pack(codec.position_to_wire(self.start))})
        return self._flush().send[0]

    def audit(self, their_reveal: FogMessage, peer_stopped: bool = False) -> AuditVerdict:
        """Replay the whole game on the full state (net.audit); then :meth:`close`.
        ``peer_stopped``: the peer's reveal came while our game went on (it stopped the
        game: net.lockstep_fog ``PEER_STOPPED``)."""
        self._settle_signatures()
        verdict = self.verdict = audit_game(self, their_reveal, peer_stopped)
        self.close()
        return verdict

    def unrevealed(self) -> AuditVerdict:
        """The verdict when the peer does not reveal at the end: it is the culprit; then
        :meth:`close`."""
        self._settle_signatures()
        verdict = self.verdict = unrevealed(self)
        self.close()
        return verdict

    def close(self) -> None:
        """Let go of the resolutions still waiting: the last action's owner side waits
        for a question that will not come, on a stack of its own (net.resumable), and a
        greenlet's frames are out of the collector's sight, so the game they hold was
        never freed (every fog game played stayed in the process's memory, some 50 MB
        per 100 turns). Called at the verdict, and by a host that drops the game; a
        message that still comes makes them afresh (deterministic re-execution)."""
        for act in self.actions:
            act.owner_run = act.mine_run = None

    def _settle_signatures(self) -> None:
        """Before a verdict: the signatures not checked yet (a game that stopped inside
        an action), a bad one a fault the verdict names."""
        if self.fault is None:
            try:
                self._check_signatures()
            except _Unsigned as exc:
                self._fail(exc.reason)

    def prepare(self) -> None:
        """Idle work, to call once the messages of a step are sent: all of
        :meth:`preparing` at once."""
        for _ in self.preparing():
            pass

    def preparing(self) -> Iterator[None]:
        """The idle work in slices of about a millisecond, yielding between them, so that
        the I/O layer reads the peer's next message meanwhile instead of after all of it
        (net.game_host runs one slice per turn of its event loop). No message, no event,
        no input recorded, nothing that changes a byte of what is sent later (a restore
        never calls it and re-makes the same messages); a slice left undone is made when
        it is needed, and the work stops when a message made it moot (the run's object
        was taken or replaced).

        Between actions, first the finished action's owner side let go (it waits on a
        stack of its own for a question that no longer comes), then the signatures of
        the peer's messages taken since the last check (they are checked at the latest
        when an event is shown: :meth:`_check_signatures`); during an action they come
        after the first run due (the table our next question needs as soon as the answer
        comes). Then the keys
        of our reach queries sent ahead whose table has not come yet (a query is made
        from a run's first part; the second, 0.2-0.3 ms, waited for the table's finish
        on the path until session 16). (Until session 36, in a process's first game, the
        PSI's 363 fixed points came next, one a slice of 0.2-1 ms; they are a SHA-512
        each now, net.psi ``fixed_element``.)

        Our owner side's next reach transfer (net.ot): the peer's resolution asks
        ``detect`` at the end of each step, and we then ask its reach at our squares
        (``back`` ``reach``): the run's columns and keys (256 + 336 hashes and a
        transposition) need only the run's id, not the squares, so the query is then a
        few XORs and the finish a table lookup. And while our resolution waits on a
        ``detect`` answer, the peer's owner side asks our detectors' reach: our reply's
        columns (128 hashes) need only the run's id; the reply then costs one
        transposition and its 672 keys.

        Between actions (the last one finished on both sides) the same work is made for
        the next action's first runs: their ids are known ahead (the action's number,
        question 0), and the time a player takes to choose is idle time, so the first
        detection of the next action finds both sides' parts made; then the labels and
        pads of our garbling for the peer's questions 1..``PADS_AHEAD`` (net.private_sight
        ``RunPads``), after the runs made for earlier actions are let go, one a slice
        (:meth:`_stale_runs_dropped`). Last, our commitment of the next turn
        (:meth:`_commit_prepared`)."""
        if self.fault is not None:
            return
        last = self.actions[-1] if self.actions else None
        under_way = last is not None and (last.outcome is None or last.peer_hash is None)
        if not under_way:
            if last is not None and (last.owner_run is not None or last.mine_run is not None):
                # the finished action's owner side, waiting for a question that no longer
                # comes, let go now rather than as the next action begins (:meth:`_begin`:
                # 0.1-0.3 ms on both sides' paths); a message that still comes for it
                # makes it afresh, as after :meth:`close`
                last.owner_run = last.mine_run = None
                yield
            yield from self._signatures_checked()
        # our detection run whose queries we asked back: its tables come with the peer's
        # next message, and the parts it garbles are known (since session 38; until then
        # garbled on the path when they came, 3-5 ms: every Doze's, a Stunner's)
        for asked, back in list(self._owner_runs_back.items()):
            if not back.made and self.fault is None and last is not None \
                    and asked[0] == last.n and asked[1] >= len(last.backs.answers):
                for make in back.parts():
                    if self._owner_runs_back.get(asked) is not back:
                        break
                    make()
                    yield
        # our detection runs sent ahead (taken from the runs made ahead when the queries
        # went out, often before their second part was made), the newest first (the
        # peer's next question): the tables may come with the peer's next message, and
        # the answer then is a lookup and the input labels' swaps
        for pre in reversed(list(self._owner_runs_ahead)):
            sent = self._owner_runs_ahead.get(pre)
            if sent is not None and not sent.made and self.fault is None:
                for make in sent.parts():
                    if self._owner_runs_ahead.get(pre) is not sent:
                        break  # void now (its question answered otherwise)
                    make()
                    yield
        due = self._runs_due(last)
        # during an action the first run due is the table our resolution's next question
        # needs as soon as the answer comes: it goes before the peer's signatures
        urgent, rest = (due[:1], due[1:]) if under_way else ([], due)
        for key in urgent:
            if not self._current(last):
                return
            yield from self._made_ahead(key)
        if under_way:
            yield from self._signatures_checked()
        yield from self._stale_runs_dropped()
        for key in rest:
            if not self._current(last):
                return
            yield from self._made_ahead(key)
        if self._current(last) and self._half.result is None:
            yield from self._commit_prepared()

    def _current(self, last: ActionLog | None) -> bool:
        """Whether idle work begun after action ``last`` is still worth going on with."""
        return self.fault is None and (self.actions[-1] if self.actions else None) is last

    def _made_ahead(self, key: tuple[str, int, int]) -> Iterator[None]:
        """The run made ahead ``key``, one part a slice, while it is still the one kept."""
        made = self._prepared_run(*key)
        slices: Sequence[Callable[[], object]]
        if isinstance(made, FirstHitOwner):  # from its first part not made (a table
            # made whole waits, kept, for the next hidden Move: no slice at all)
            slices = [partial(made.prepare, parts)
                      for parts in range(made.parts_made + 1, made.parts + 1)]
        else:
            slices = made.parts()
        yield from _in_slices(partial(lambda k, m: self._prepared.get(k) is m, key, made),
                              slices)

    def _signatures_checked(self) -> Iterator[None]:
        """The peer's signatures not checked yet, four a slice (0.5 ms)."""
        while self.log.unchecked:
            try:
                self.log.check_signatures(limit=4)
            except EvidenceError:
                return  # named by the next _check_signatures, where a restore meets it too
            yield

    def _commit_prepared(self) -> Iterator[None]:
        """Our commitment of the next turn, made ahead on our pieces as they stand (the
        first time in a turn in three slices, :meth:`Commitment.build_steps`, about a
        millisecond in all; then only the cells changed since, one slice): the End of
        turn, on the path of both sides' messages, then re-hashes only what its
        resolution changed. The same bytes as without it (net.commitment)."""
        turn = self._half.turn + 1
        ahead = self._commit_ahead
        if ahead is not None and ahead.turn == turn:
            self._commit_ahead = self._commitment(turn)
            yield
            return
        contents = codec.own_contents(self._half.pieces, self.side)
        for made in Commitment.build_steps(self.seed, turn, contents):
            if made is not None:
                self._commit_ahead = made
            yield

    def _commitment(self, turn: int) -> Commitment:
        """Our commitment of ``turn`` to our pieces as they stand, from the one made
        ahead when there is one."""
        return Commitment.build(self.seed, turn,
                                codec.own_contents(self._half.pieces, self.side),
                                ahead=self._commit_ahead)

    def _runs_due(self, act: ActionLog | None) -> list[tuple[str, int, int]]:
        """The runs worth making ahead (see :meth:`preparing`), most urgent first:
        during an action, our next question back (while the peer's owner side may still
        ask) and our next reach reply (while our resolution waits on a ``detect``);
        between actions, the next action's first ``AHEAD_RUNS`` of each and our first-hit
        table for the peer's next first-hit run (a hidden Move's route comes with its
        intent: 210 X25519 calls, made once and kept until a hidden Move uses it,
        ``FIRST_HIT_OWNER``; it is also due, last, during an action, so that the gaps of
        a chain of messages go on with it); when we act next and have a piece the peer
        does not see, our own route query's scalars (30 scalars and their inverses: some
        7 ms, the most of a query), so that a hidden Move's intent goes out at once; and
        when the peer acts next and may Doze, our side of the Doze judgement (the items
        of all 242 values: as many X25519 calls, about 14 ms that a Doze otherwise waits
        for). The reach runs sent ahead (wec-fog/4) come first: the query our next
        answer carries, the table our next detect question would carry, and the query our
        ``done`` carries for the next action (when the peer acts next); between actions,
        the table for the query the peer's ``done`` brought (when we act next) and the
        query of our first answer."""
        half = self._half
        if (act is None or (act.outcome is not None and act.peer_hash is not None)) \
                and half.result is None:
            n = len(self.actions)
            due = []
            # the table of our first question if it detects (the peer's query came with
            # its done), the query our first answer sends ahead, then runs asked back
            if self._ot_chosen is not None and (n in self._first_reach_theirs
                                                or half.side_to_act is not self.side):
                # (when the peer acts, its Pick-up's or Exchange's intent brings the
                # query: ``_intent_reach``)
                due.append(("sight asker", n, PRE_RUN))
            if half.side_to_act is self.side or self._ot_chosen is None:
                due.append(("sight owner", n, PRE_RUN + 1))
            # the query our done sends ahead for the action after (the peer acts next
            # after its own action but an End, and after our End): made during the
            # action only in idle time, which the side that does not act often has none
            # of (until session 38 it was made on the path of most actions, 0.3-0.5 ms)
            due.append(("sight owner", n + 1, PRE_RUN))
            if half.side_to_act is not self.side and self._ot_chosen is not None:
                # when the peer acts, our first answer's run itself, on our slots as they
                # stand (``_Foreseen``: its input transfer needs the base transfers' seeds)
                due.append(("foreseen", n, PRE_RUN + 1))
            due += [(role, n, j) for j in range(AHEAD_RUNS) for role in self._reach_roles()]
            # (and the pads of our first run asked back: a Doze's, a Stunner's detection)
            due += [("sight pads", n, j) for j in range(AHEAD_RUNS)]
            # a hidden Move's route is its first question
            due += self._first_hit_run(n, half.side_to_act)
            due += self._detection_runs(n)
            # then the same for the action after it, whose runs hang on their ids alone:
            # an action that ends the turn is often followed at once by the next side's
            # first (a player who waited for it; the bench's random one), with no idle
            # time between them (since session 31)
            due.append(("sight owner", n + 1, PRE_RUN + 1))
            due += [(role, n + 1, j) for j in range(AHEAD_RUNS) for role in self._reach_roles()]
            due += self._detection_runs(n + 1)
            if half.side_to_act is self.side:
                # last, the run our intent sends the queries of when the peer's first
                # question is its detect (a PickUp or an Exchange: ``_intent_reach``)
                due += [("sight owner", n, PRE_RUN), ("sight pads", n, PRE_RUN)]
            return self._foreseen_instead(due)
        if act is None:
            return []
        due = []
        s = act.mine
        pending = len(s.answers)
        done_query = ("sight owner", act.n + 1, PRE_RUN)
        if _next_actor(act) is not self.side and (
                act.resolved is not None or self._waits_on_last_question(act)):
            # our finish is next (it waits, or the answer we wait for ends our
            # resolution): the query our done sends ahead goes first
            due.append(done_query)
        if act.outcome is None and pending < len(s.questions) and self._ot_chosen is not None:
            # the table of our next question if it detects (the answer we wait for
            # brings the peer's query, and our resolution asks at once)
            due.append(("sight asker", act.n, PRE_RUN + pending + 1))
        if act.peer_hash is None:  # the query our next answer sends ahead
            due.append(("sight owner", act.n, PRE_RUN + len(act.theirs) + 1))
        if act.peer_hash is None:
            due.append(("sight owner", act.n, len(act.backs.questions)))
        if act.outcome is None and pending < len(s.questions) \
                and s.questions[pending][0] == "detect" \
                and all(r.question != pending for r in act.their_reach.values()) \
                and self._ot_chosen is not None:
            due.append(("sight asker", act.n, act.backs_in))
        if act.outcome is None and done_query not in due \
                and _next_actor(act) is not self.side:  # the query our done sends ahead
            due.append(done_query)
        # last, the first-hit runs (a hidden Move's route is its first question): our
        # route query's scalars when we act next and the peer does not see one of our
        # pieces, and our table for the peer's next run until it is whole (210 X25519
        # calls, some 20 ms). Made between actions alone, tables were often late: in a
        # 20 s bench game 8 of 12 hidden Moves found theirs not whole (4 not begun), and
        # made the rest on the path (session 29)
        due += self._first_hit_run(act.n + 1, _next_actor(act))
        return self._foreseen_instead(due)

    def _foreseen_instead(self, due: list[tuple[str, int, int]]) -> list[tuple[str, int, int]]:
        """``due`` with the transfers and pads of a run made whole ahead (``_Foreseen``:
        it takes them, or makes them itself) replaced by that run, at the first place
        either comes: it goes on being made during the action until its answer takes it
        or finds our slots changed."""
        foreseen = {key[1:] for key in (*self._prepared, *due) if key[0] == "foreseen"}
        if not foreseen:
            return due
        kept: list[tuple[str, int, int]] = []
        for key in due:
            if key[0] in ("sight owner", "sight pads", "foreseen") and key[1:] in foreseen:
                key = ("foreseen", key[1], key[2])
                if key in kept:
                    continue
            kept.append(key)
        return kept

    def _detection_runs(self, n: int) -> list[tuple[str, int, int]]:
        """Between actions, the runs of action ``n``'s later detections: the pads of our
        runs for the peer's questions (a run sent ahead whose detect comes before idle
        time garbles on them), our side of our own detect questions' runs (their queries
        come with the peer's answers, and our resolution asks at once), and the
        transfers of the queries our answers to the peer's questions 2.. send ahead
        (each answer sends one, 0.5-0.9 ms on the path when not made)."""
        due = [("sight pads", n, PRE_RUN + k) for k in range(1, PADS_AHEAD + 1)]
        if self._ot_chosen is not None:
            due += [("sight asker", n, PRE_RUN + k) for k in range(1, ASKER_AHEAD + 1)]
        due += [("sight owner", n, PRE_RUN + k) for k in range(2, OWNER_AHEAD + 1)]
        return due

    def _first_hit_run(self, n: int, actor: Side) -> list[tuple[str, int, int]]:
        """Our sides of first-hit runs worth making ahead (``actor`` acts in action
        ``n``): when we act and one of our pieces is unseen by the peer, our route
        query's scalars for action ``n``; and our table for the peer's next run, kept
        until a hidden Move uses it."""
        half = self._half
        mine = [("asker", n, 0)] if actor is self.side and any(
            p.side is self.side and not seen_whatever(p, half.options)
            for p in half.pieces) else []
        return [*mine, (FIRST_HIT_OWNER, self._first_hit_runs, 0)]

    def _waits_on_last_question(self, act: ActionLog) -> bool:
        """Whether the answer our resolution waits for ends it: at our End of turn the
        detection after the peer's transport phase (R4.2(3), R8.4) is the last question
        when the game goes on (engine.half_resolution ``_end_turn``; public facts)."""
        s = act.mine
        pending = len(s.answers)
        return (act.actor is self.side and isinstance(act.form, EndTurn)
                and act.outcome is None and pending == len(s.questions) - 1
                and s.questions[pending][0] == "detect"
                and any(q[0] == "transport_phase" for q in s.questions[:pending]))

    def _prepared_run(self, role: str, n: int, j: int) -> Prepared:
        """The run ``role``/``n``/``j`` made ahead so far (perhaps in part), or a new one
        (the runs of earlier actions go in :meth:`_stale_runs_dropped`)."""
        made = self._prepared.get((role, n, j))
        if made is None:
            made = self._prepared[(role, n, j)] = self._new_run(role, n, j)
        return made

    def _stale_runs_dropped(self) -> Iterator[None]:
        """The runs made ahead for actions before the one under way (none will be used
        now), one a slice: freeing a run's labels and pads takes 0.25 ms, and until
        session 36 the 10-30 of an action were freed at once as the next run was made, a
        slice of 1-4 ms that a peer's message coming meanwhile waited behind."""
        current = self.actions[-1].n if self.actions else 0
        while True:
            stale = next((k for k in self._prepared
                          if k[0] != FIRST_HIT_OWNER and k[1] < current), None)
            if stale is None:
                return
            del self._prepared[stale]
            yield

    def _take_prepared(self, role: str, n: int, j: int) -> Prepared:
        """The run to use now: the one made ahead (taken: one use per run) or a new one."""
        made = self._prepared.pop((role, n, j), None)
        return made if made is not None else self._new_run(role, n, j)

    def _reach_roles(self) -> tuple[str, ...]:
        """Our roles in a detection's reach run that can be made now (replying needs the
        seeds of the opening's base transfers)."""
        return ("sight owner", "sight asker") if self._ot_chosen is not None \
            else ("sight owner",)

    def _bases(self) -> ps.Bases:
        """Our part of the game's base transfers (net.private_sight); the seeds we chose
        are empty until the peer's base transfer reply came."""
        return ps.Bases(self._ot_pairs, self._ot_choice, self._ot_chosen or ())

    def _sight_run_id(self, n: int, owner: Side, j: int) -> bytes:
        """Detection run ``j`` of action ``n`` about ``owner``'s pieces (the same on both
        sides)."""
        return codec.reach_run_id(self.game_id, n, owner, j)

    def _new_run(self, role: str, n: int, j: int) -> Prepared:
        if role == FIRST_HIT_OWNER:  # the first-hit table of the peer's run ``n``
            return FirstHitOwner(codec.FIRST_HIT_SHAPE, run_secret(
                self.seed, codec.run_id(self.game_id, n, role, j)))
        if role == "asker":  # our hidden Move's route query
            return FirstHitAsker(codec.FIRST_HIT_SHAPE, run_secret(
                self.seed, codec.run_id(self.game_id, n, role, j)))
        if role == "sight owner":  # we receive the peer's masked bits about our slots
            return ps.OwnerTransfers(self._bases(), self._sight_run_id(n, self.side, j))
        if role == "foreseen":  # our owner side of that run on our slots as they stand
            run = self._sight_owner(n, j, start_slots(self._half))
            run.peek = partial(_start_parts, self._half)
            return _Foreseen(run)
        if role == "sight pads":  # the labels and pads of our garbling of that run
            return ps.RunPads(self.seed, self._sight_run_id(n, self.side, j),
                              self._half.options)
        if self._ot_chosen is None:
            raise FogError("a reach question before the base transfers of the game")
        # our side of a detection run of ours: its parts that need no sight made ahead
        run_id = self._sight_run_id(n, self.side.other, j)
        return ps.AskerRun(self.seed, run_id, self._bases(), None,
                           reach=ps.reach_sender(self._bases(), run_id))

    # ------------------------------------------------------------ record

    def record(self) -> bytes:
        """What restores this side: the game, the start, the seed and every input."""
        data: bytes = msgpack.packb({
            "format": FORMAT, "game": self.game_id, "side": self.side.value,
            "peer": self.peer_key, "seed": self.seed,
            "start": codec.pack(codec.position_to_wire(self.start)),
            "bounds": {s.value: [[t.pid, t.steps, t.lands, t.most] for t in bound]
                       for s, bound in self.start_bounds.items() if bound},
            "inputs": self._inputs}, use_bin_type=True)
        return data

    @classmethod
    def restore(cls, record: bytes, identity: Identity) -> FogGame:
        """The game ``record`` describes, replayed (Ed25519 signatures and the PSI and
        salt secrets are deterministic, so every message is re-made byte for byte)."""
        raw = msgpack.unpackb(record, raw=False)
        if not isinstance(raw, dict) or raw.get("format") != FORMAT:
            raise ValueError(f"not a {FORMAT} record")
        half = codec.position_from_wire(codec.unpack(raw["start"]))
        game = cls(game_id=raw["game"], side=Side(raw["side"]), half=half, identity=identity,
                   peer_key=raw["peer"], seed=raw["seed"],
                   start_bounds={Side(s): [Travel(*t) for t in bound]
                                 for s, bound in raw.get("bounds", {}).items()})
        for item in raw["inputs"]:
            if item[0] == "open":
                game.opening()
            elif item[0] == "play":
                game.play(codec.from_wire(item[1]))
            elif item[0] == "recv":
                game.receive(FogMessage.from_wire(item[1]))
            elif item[0] == "reveal":
                game.reveal()
            elif item[0] == "settle":
                game.settle()
        game._events.clear()
        return game

    # ------------------------------------------------------------ plumbing

    def _begin(self, act: ActionLog) -> None:
        """A new action under way: the last one's waiting owner side (it waits for a
        question that no longer comes) is let go."""
        if self.actions:
            self.actions[-1].owner_run = self.actions[-1].mine_run = None
        self.actions.append(act)

    def _send(self, kind: str, payload: Any) -> None:
        self._out.append((kind, payload))

    def _flush(self) -> FogStep:
        sent = []
        ahead, self._ahead = self._ahead, []
        for kind, payload in [*ahead, *sorted(self._out, key=_send_order)]:
            body = codec.pack(payload)
            signed: bytes = msgpack.packb([kind, body], use_bin_type=True)
            entry = self.log.seal(signed)
            sent.append(FogMessage(kind, body, entry.to_bytes()))
        self._out.clear()
        events, self._events = tuple(self._events), []
        return FogStep(tuple(sent), events)

    def _accept(self, message: FogMessage) -> None:
        """The message into our evidence record; its signature is checked later
        (:meth:`_check_signatures`)."""
        try:
            entry = Entry.from_bytes(message.entry)
            self.log.accept(entry, message.signed(), signature_later=True)
        except EvidenceError as exc:
            raise FogError(f"evidence: {exc.reason}") from None

    def _check_signatures(self) -> None:
        """Every message received so far checked against the peer's Ed25519 key, before
        anything is shown or the action ends (an event, the action over): a message is
        handled as soon as it comes (the session's authenticated encryption tells it is
        the peer's), but no result stands on one whose signature, the third party's proof,
        fails. Idle time has checked most of them already (:meth:`preparing`); where and
        when this runs depends on the messages only, so a restore meets the same."""
        try:
            self.log.check_signatures()
        except BadSignature as exc:
            # what follows it proves nothing (our later entries acknowledge it): the
            # record keeps what came before, which still verifies
            self.log.drop_from(exc.index)
            self._out.clear()
            raise _Unsigned(f"evidence: {exc.reason} (the peer's message is not signed by "
                            "its key; the record keeps the messages before it)") from None

    def _fail(self, reason: str, *proof: int, ours: bool = False) -> None:
        if self.fault is None:
            n = self.actions[-1].n if self.actions else None
            self.fault = Fault(reason, n, tuple(proof), ours)
            self._events.append(self.fault)

    def _state_hash(self, position: Position) -> str:
        """``public_state_hash(position)``, computed once per position object (the
        ``done`` message, the check of the peer's and the turn hash all need it; about
        2 ms each)."""
        memo = self._hash_memo.get(id(position))
        if memo is not None and memo[0] is position:
            return memo[1]
        if len(self._hash_memo) >= 8:
            self._hash_memo.clear()
        digest = public_state_hash(position)
        self._hash_memo[id(position)] = (position, digest)
        return digest

    def _last_index(self) -> int:
        return len(self.log) - 1

    def _commit(self) -> SignedCommitment:
        turn = self._half.turn
        commitment = self._commitment(turn)
        self._commit_ahead = None
        self.commitments = {turn: commitment}  # only the turn's is opened
        signed = SignedCommitment.sign(self.identity, self.game_id, turn, self.side.value,
                                       commitment.root)
        self.signed[(self.side, turn)] = signed
        return signed

    def _take_commit(self, data: bytes, turn: int) -> None:
        try:
            signed = SignedCommitment.from_bytes(data)
        except CommitmentError as exc:
            raise FogError(exc.reason) from None
        other = self.side.other
        if (signed.game_id != self.game_id or signed.side != other.value or signed.turn != turn
                or not signed.verify(self.peer_key)):
            raise FogError(f"the {other.value} commitment of turn {turn} is not signed for "
                           "this game, side and turn")
        self.signed[(other, turn)] = signed
        self.signed_proof[(other, turn)] = self._last_index()

    # ------------------------------------------------------------ the peer's messages

    def _handle(self, message: FogMessage) -> None:
        payload = codec.unpack(message.body)
        if not isinstance(payload, dict):
            raise FogError("a fog message body is a map")
        kind = message.kind
        problem = _fields_problem(kind, payload)
        if problem is not None:
            raise FogError(problem)
        if kind == "commit":
            if self.peer_opened:
                raise FogError("a second opening commitment")
            if set(payload) != {"commit"}:
                raise FogError("an opening carries the commitment alone (wec-fog/14)")
            self._take_commit(payload["commit"], self._half.turn)
            self.peer_opened = True
            self._turn_check()
            return
        if kind == "reveal":
            return  # kept in the evidence record; read by audit()
        if kind in ("ot", "ot_reply"):
            self._base_transfer(kind, payload)
            return
        if kind == "intent":
            self._their_intent(payload)
            return
        n = payload.get("n")
        if not self.actions or n != self.actions[-1].n:
            raise FogError(f"{with_article(kind)} message for action {n}, not the action under way")
        act = self.actions[-1]
        if kind == "ask":
            self._their_question(act, payload)
        elif kind == "took":
            i = payload["i"]
            if i in act.took or not 0 <= i < len(act.theirs):
                raise FogError("a took notice for no first-hit run")
            cell = payload["cell"]
            if cell is not None and (type(cell) is not int or not 0 <= cell < 300):
                raise FogError("a took notice names no cell")
            act.took[i] = cell
        elif kind == "doze_reply":
            i, reply = payload["i"], payload["a"]
            s = act.mine
            if act.actor is not self.side or i not in act.psi or i != len(s.answers) \
                    or i in act.doze_replies:
                raise FogError("a Doze transfer's reply for no first-hit run of ours waiting")
            if type(reply) is not bytes or len(reply) != ot.HIDDEN_DOZE_LABELS.reply_size:
                raise FogError(f"a Doze transfer's reply has "
                               f"{ot.HIDDEN_DOZE_LABELS.reply_size} bytes")
            act.doze_replies[i] = reply
        elif kind == "judged":
            i, foiled = payload["i"], payload["foiled"]
            if i in act.judged or not 0 <= i < len(act.theirs) \
                    or act.theirs[i][0] != "doze_ot" or type(foiled) is not bool:
                raise FogError("a Doze verdict for no Doze judgement")
            act.judged[i] = foiled
        elif kind == "answer":
            self._their_answer(act, payload)
        elif kind == "ahead":
            self._their_ahead(act, payload)
        elif kind == "back":
            self._their_back(act, payload)
        elif kind == "back_answer":
            j = payload["j"]
            if j != len(act.backs.answers) or j >= len(act.backs.questions):
                raise FogError("an answer asked back out of turn")
            asked = act.backs.questions[j]
            if asked[0] == "sight":
                sizes = _sight_replies(act, self.side.other)
                if not _sized(payload["a"], sizes):
                    raise FogError("a detection run's reply is not its tables "
                                   f"({' and '.join(map(str, sizes))} bytes)")
                act.backs.answers.append(list(payload["a"]))
            else:
                act.backs.answers.append(_presence_found(self, act, True, j, asked,
                                                         payload["a"]))
            act.backs.proof.append(self._last_index())
        elif kind == "done":
            self._their_done(act, payload)
        else:
            raise FogError(f"unexpected {kind} message")
        self._after(act, asked=kind == "ask", answers_first=True)

    def _base_transfer(self, kind: str, payload: dict[str, Any]) -> None:
        """The base transfers (net.ot), once per game: we reply to the peer's queries
        with our seed pairs (``ot``), and take our seeds from its replies to ours
        (``ot_reply``)."""
        try:
            if kind == "ot":
                if self._ot_replied:
                    raise FogError("a second base transfer")
                self._ot_replied = True
                self._send("ot_reply", {"a": ot.base_replies(self.seed, self.game_id,
                                                             payload["q"])})
            else:
                if self._ot_chosen is not None or not self.opened:
                    raise FogError("a base transfer reply not asked for")
                self._ot_chosen = ot.base_finish(self.seed, self.game_id, payload["a"])
        except OtError as exc:
            raise FogError(f"the base transfer: {exc.reason}") from None

    def _their_intent(self, payload: dict[str, Any]) -> None:
        if not self.bases_done:
            raise FogError("an intent before the base transfers of the game were done (a "
                           "side plays only once it replied to the peer's base queries and "
                           "has the peer's reply to its own)")
        if self.busy:
            raise FogError("an intent while the previous action is still resolving")
        if self._half.side_to_act is self.side:
            raise FogError("an intent of the peer's on our turn (R4.1)")
        n = payload["n"]
        if n != len(self.actions):
            raise FogError(f"intent number {n} where {len(self.actions)} was due")
        form = codec.from_wire(payload["form"])
        hidden = payload["hidden"]
        if not isinstance(form, Intent) or type(hidden) is not bool:
            raise FogError("an intent message without an intent")
        problem = codec.form_problem(form)
        if problem is not None:
            raise FogError(problem)
        act = ActionLog(n, self.side.other, form, form, hidden, self._half,
                        self._half.actions.fire == 0, self.travels,
                        intent_proof=self._last_index(), peer_bound=self.peer_bound)
        for q in implied_questions(form):  # our first questions: asked by the intent
            act.mine.questions.append(q)
            act.mine_args.append((q[0], tuple(q[1:])))
        for q in _implied_notices(act):  # the peer's first notice, never sent
            act.theirs.append(q)
            act.theirs_proof.append(-1)
        act.collide_implied = act.peer_collide_due = collide_implied(form, act.start.projectiles)
        if detect_first(form):  # our first question: its detection queries came with it
            query = self._query_ahead(act, payload, "intent")
            assert query is not None
            self._first_reach_theirs = {n: (query, act.intent_proof)}
        elif payload.get("reach") is not None:
            raise FogError("a reach query sent ahead with an intent whose first question "
                           "is not a detect, where none is due")
        self._begin(act)
        self._after(act)

    def _their_implied(self, act: ActionLog, q: list[Any]) -> None:
        """The peer's implied first collide (the same as ours: ``collide_implied``),
        recorded as its question, answered unasked by our owner side. It comes first, just
        after the strength the acting side's intent answers (``implied_questions``), or
        just after an End's implied notice of the new turn (``_implied_notices``)."""
        before = [t[0] for t in _implied_notices(act)] + implied_collide_after(
            act.form, act.actor is not self.side)
        if not act.peer_collide_due or [t[0] for t in act.theirs] != before:
            raise FogError("the peer's implied collide after other questions of its own")
        act.peer_collide_due = False
        act.theirs.append(q)
        act.theirs_proof.append(-1)  # no message of the peer's carries it

    def _their_question(self, act: ActionLog, payload: dict[str, Any]) -> None:
        i = payload["i"]
        if act.peer_collide_due:
            raise FogError(f"question {i} where the peer's implied collide was due (it is "
                           "never sent: R6.8.5, both sides know it)")
        if i != len(act.theirs):
            raise FogError(f"question {i} where {len(act.theirs)} was due")
        if i >= MAX_QUESTIONS:
            raise FogError(f"more than {MAX_QUESTIONS} questions in one action (a flood)")
        q = payload["q"]
        if not isinstance(q, list) or not q or q[0] not in (
                *_QUESTIONS, "first_hit_psi", "presence_ot", "doze_ot", "stun_ot"):
            raise FogError("not a question of engine.questions")
        if q[0] == "collide" and _settle_collides_implied(act):
            raise FogError(f"question {i}, a collide, in an End of turn whose collides are "
                           "all implied (R6.8.5: both sides know them, they are never "
                           "sent)")
        if q[0] == "collision_effects":
            # (before session 40 one was refused as out of turn where our answer to the
            # collide had implied one, and answered where it had not: an honest peer
            # sends none, wec-fog/23)
            raise FogError(f"question {i}, a collision_effects, which is never sent (R6.8.5: "
                           "our answer to the collide before it implies it, both sides "
                           "know it)")
        if q[0] == "first_hit_psi":
            _check_first_hit_run(act, q)
        if q[0] == "stun_ot":
            _check_stun_line(act, q)
        if q[0] == "weapon" and len(q) == 3 and _is_stun_step(codec.from_wire(q[2])):
            raise FogError("a Stunner question naming the asker's first piece on its line "
                           "(R6.6.1: it goes by transfer, stun_ot)")
        if q[0] == "detect":
            _check_detect_form(act, q, self.side.other)
        if q[0] in _QUESTION_ARGS:
            args = codec.from_wire(q[1:])
            problem = _question_args_problem(q[0], args)
            if problem is not None:
                raise FogError(problem)
            if q[0] == "act" and act.actor is not self.side:
                raise FogError("an act question where we do not act (it asks the acting "
                               "side's piece)")
            act.theirs_args[i] = args
        table = payload.get("reach")
        if q[0] == "detect" and self._our_query_ahead(act, i) is not None:
            sizes = _sight_replies(act, self.side.other)
            if not _sized(table, sizes):
                raise FogError("a detect question without its tables for our detection "
                               "queries sent ahead, of the sizes the action sets "
                               "(R9.3-R9.7)")
            act.pre_tables[i] = (list(table), self._last_index())
        elif table is not None:
            raise FogError("a reach table for no query of ours (R9.3(b), R9.6)")
        if q[0] == "first_hit_psi":
            act.first_hit_ordinals[i] = self._first_hit_runs
            self._first_hit_runs += 1
        act.theirs.append(q)
        act.theirs_proof.append(self._last_index())

    def _their_answer(self, act: ActionLog, payload: dict[str, Any]) -> None:
        s = act.mine
        i = payload["i"]
        if i != len(s.answers) or i >= len(s.questions):
            raise FogError(f"answer {i} where {len(s.answers)} was due")
        proof = self._last_index()
        kind = self._sent_kind(act, i)
        query = self._query_ahead(act, payload, kind, self._reach_follows(
            act, act.mine.questions, i, kind, payload["a"], self.side))
        if query is not None:
            act.pre_theirs[i + 1] = (query, proof)
        answer: Any
        if i in act.psi:
            cells, secret = act.psi[i][0], act.psi[i][1]
            asker = act.route_askers.pop(i, None)
            if asker is None or asker.cells != tuple(cells):  # not kept: the same again
                asker = FirstHitAsker(codec.FIRST_HIT_SHAPE, secret)
                asker.query(cells)
            reply_bytes = payload["a"]
            doze_reply = act.doze_replies.get(i)
            if doze_reply is None:
                raise FogError("an answer to our first-hit run before its Doze transfer's "
                               "reply (wec-fog/8)")
            try:
                reply = FirstHitReply.from_bytes(reply_bytes, codec.FIRST_HIT_SHAPE)
                hit = asker.finish(reply)
            except PsiError as exc:
                raise FogError(f"the first-hit reply: {exc.reason}") from None
            act.psi[i][3] = reply_bytes
            answer = None if hit is None else FirstHit(
                hit.index, hit.cell, codec.infos_from_contents(hit.label))
            if s.questions[i][0] == "doze":  # our hidden Dozer's Doze
                if hit is not None:
                    raise FogError("the first-hit reply names a piece of the peer's where our "
                                   "Dozer stands (R1.6: one side per level)")
                answer = self._hidden_doze_verdict(act, i, doze_reply)
            self._send("took", {"n": act.n, "i": i, "cell": None if hit is None else hit.cell})
        elif s.questions[i][0] == "presence":
            answer = _presence_found(self, act, False, i, s.questions[i], payload["a"])
        elif s.questions[i][0] == "doze" and act.actor is self.side:
            answer = self._doze_verdict(act, i, payload["a"])
            self._send("judged", {"n": act.n, "i": i, "foiled": answer})
        elif s.questions[i][0] == "weapon" and _is_stun(act, i):
            answer = self._stun_outcome(act, i, payload["a"])
        elif s.questions[i][0] == "detect":
            answer = self._sight_answer(act, i, payload["a"])
        else:
            answer = codec.from_wire(payload["a"])
            name, args = s.questions[i][0], s.questions[i][1:]
            expected = _ANSWER_TYPES.get(name)
            if expected is not None and not expected[1](answer):
                raise FogError(f"the answer to our {name} question is not {expected[0]} "
                               "(engine.questions)")
            if name == "first_hit" and act.openable:
                self._check_openings(act, tuple(args[1]), answer, payload.get("open"), proof)
            if name == "act" and args[0] == "move":
                self._check_taken(act, answer, proof)
            if name == "act":
                self._check_shown(act, answer, args[0])
        s.answers.append(answer)
        s.proof.append(proof)

    def _stun_outcome(self, act: ActionLog, i: int, reply: Any) -> WeaponAnswer:
        """The peer's table read at our first piece on the Stunner's line (R6.6.1): the
        engine's answer (whether the peer's pieces stopped it before ours; nothing to tell
        when we have none there), and our own piece's fate noted for our owner side,
        which applies it when the peer asks its own question of the same line."""
        step = _stun_question(act, i)
        value = _stun_value(step)
        if type(reply) is not bytes or len(reply) != ot.STUN_LABELS.reply_size:
            raise FogError(f"a Stunner table's reply has {ot.STUN_LABELS.reply_size} bytes")
        receiver = _stun_receiver(self, act.n, i)
        receiver.query([value])
        hit = bool(receiver.finish(reply)[0][0] & 1)
        if value == len(step.cells) and hit:
            raise FogError("a Stunner table that hits a piece of ours where we have none "
                           "(R6.6.1)")
        act.own_stun.append(hit)
        return WeaponAnswer() if value == len(step.cells) else WeaponAnswer(blocked=not hit)

    def _stun_table(self, act: ActionLog, conv: OwnerConversation, k: int, q: list[Any]
                    ) -> bytes:
        """Our reply to the peer's Stunner line (R6.6.1): for each place its first piece
        may have on the line, whether the Stunner hits it (it comes before our first), by
        label transfer at the peer's place (net.ot ``STUN_LABELS``): the peer learns its
        own piece's fate, we nothing of its place. Our own piece's fate we learn from our
        own question of the line (``_told``)."""
        if self._ot_chosen is None:
            raise FogError("a Stunner transfer before the base transfers of the game")
        step = _stun_step(q)
        hits = conv.stun_table(step)
        table = [bytes([hits[u] if u < len(hits) else 0]) for u in range(ot.STUN_LABELS.entries)]
        try:
            return ot.LabelSender(self._ot_choice, self._ot_chosen, codec.stun_run_id(
                self.game_id, act.n, self.side.other, k), ot.STUN_LABELS).reply(q[3], [table])
        except OtError as exc:
            raise FogError(f"the Stunner query: {exc.reason}") from None

    def _hidden_doze_reply(self, act: ActionLog, conv: OwnerConversation, k: int,
                           query: bytes, tie: bytes | None = None) -> bytes:
        """Our reply to the Doze transfer of the peer's hidden Move (net.doze_judge
        ``hidden_tables``): per transfer, a share at each square without a Ground piece
        of ours, noise where one stands. A hidden Move asks it for nothing, a hidden
        Dozer's Doze for its destinations: we cannot tell which (R9.1)."""
        if self._ot_chosen is None:
            raise FogError("a Doze transfer before the base transfers of the game")
        ground = {p.sq for p in _owner_pieces(conv) if p.level is GROUND}
        try:
            tables = hidden_tables(ground, run_secret(self.seed, codec.run_id(
                self.game_id, act.n, "hidden doze owner", k)), tie)
            return ot.LabelSender(self._ot_choice, self._ot_chosen, codec.hidden_doze_run_id(
                self.game_id, act.n, self.side.other, k), ot.HIDDEN_DOZE_LABELS).reply(
                    query, tables)
        except OtError as exc:
            raise FogError(f"the Doze query: {exc.reason}") from None

    def _doze_transfer(self, act: ActionLog, conv: OwnerConversation, k: int,
                       question: DozeQuestion, query: bytes, hidden_query: bytes
                       ) -> list[bytes]:
        """Our reply to the peer's Doze judgement by oblivious transfer (net.ot
        ``LabelSender``): our table of verdict shares, one transfer per slot, and, tied
        to it, our reply to the transfer of the squares its public form leaves out
        (``wec-fog/8``; both 8-byte entries: 2,560 and 5,120 bytes, one message)."""
        if self._ot_chosen is None:
            raise FogError("a Doze transfer before the base transfers of the game")
        intent = Doze(question.sq, question.squares, question.dir)
        try:
            secret = run_secret(self.seed, codec.run_id(self.game_id, act.n, "doze owner", k))
            tie = tie_of(secret)
            tables = owner_tables(question, conv.doze_ground(intent), act.start.options,
                                  secret, tie)
            hidden = self._hidden_doze_reply(act, conv, k, hidden_query, tie)
            return [ot.LabelSender(self._ot_choice, self._ot_chosen, codec.doze_run_id(
                self.game_id, act.n, self.side.other, k)).reply(query, tables), hidden]
        except OtError as exc:
            raise FogError(f"the Doze query: {exc.reason}") from None
        except DozeJudgeError as exc:
            raise FogError(f"the Doze: {exc}") from None

    def _hidden_doze_verdict(self, act: ActionLog, i: int, reply: bytes | None) -> bool:
        """Our hidden Dozer's verdict from the peer's table (net.doze_judge
        ``hidden_tables``): the entry of each destination, XORed."""
        question = act.mine_args[i][1][0] if i < len(act.mine_args) \
            else codec.from_wire(act.mine.questions[i][1])
        if reply is None:
            raise FogError("a hidden Doze without the base transfers of the game")
        try:
            return hidden_verdict(_hidden_labels(self, act.n, i, hidden_values(
                Doze(question.sq, question.squares, question.dir)), reply))
        except OtError as exc:
            raise FogError(f"the Doze table: {exc.reason}") from None
        except DozeJudgeError as exc:
            raise FogError(f"the Doze table: {exc} (R8.8.4)") from None

    def _doze_verdict(self, act: ActionLog, i: int, reply: Any) -> bool:
        """Our Doze's verdict from the owner's table (net.doze_judge): the query made
        again from the run's secret and our Ground summary in the question."""
        question = act.mine_args[i][1][0] if i < len(act.mine_args) \
            else codec.from_wire(act.mine.questions[i][1])
        # the table's reply, the hidden squares' one
        if not isinstance(reply, list) or len(reply) != 2:
            raise FogError("a Doze table without its transfer of the squares left out "
                           "(wec-fog/8)")
        reply, hidden_reply = reply
        if not isinstance(reply, bytes) or not isinstance(hidden_reply, bytes):
            raise FogError("a Doze table is not bytes")
        try:
            truth, public = _doze_public(act, question)
            receiver = _doze_receiver(self, act.n, i)
            receiver.query(asker_values(public, question.asker_ground, truth))
            hidden = _hidden_labels(self, act.n, i, hidden_values(
                truth, Doze(public.sq, public.squares, public.dir)), hidden_reply)
            return verdict_with_hidden(public, receiver.finish(reply), hidden)
        except OtError as exc:
            raise FogError(f"the Doze table: {exc.reason}") from None
        except DozeJudgeError as exc:
            raise FogError(f"the Doze table: {exc} (R8.8.4)") from None

    def _check_openings(self, act: ActionLog, cells: tuple[int, ...], answer: Any,
                        openings: Any, proof: int) -> None:
        """A visible mover's route (R5.2.4): the cells up to the first hit are opened
        against the owner's commitment of the turn; empty before it, the taken pieces
        at it."""
        signed = self.signed[(self.side.other, self._half.turn)]
        upto = len(cells) if answer is None else answer.index + 1
        if not isinstance(openings, list) or len(openings) != upto:
            raise FogError(f"the route answer opens {len(openings or [])} cells, not {upto}")
        for k, data in enumerate(openings):
            try:
                opening = Opening.from_bytes(data)
            except CommitmentError as exc:
                raise FogError(exc.reason) from None
            problem = check_opening(signed, opening, self.peer_key, cells[k])
            if problem is not None:
                raise FogError(problem)
            expected = (codec.cell_contents(answer.pieces)
                        if answer is not None and k == answer.index else b"")
            if opening.contents != expected:
                raise FogError(f"the opening of cell {cells[k]} contradicts the route answer "
                               f"(R5.2.4)")

    def _check_taken(self, act: ActionLog, answer: Any, proof: int) -> None:
        """What the peer's Move took must be our pieces at its stop (R5.1.3): checked on
        our own pieces at once (a claimed capture of a primary piece is a claimed win)."""
        if not isinstance(answer, ActAnswer):
            raise FogError("the answer about the Move is not one")
        if answer.stop is None:
            if answer.taken:
                raise FogError("the Move took pieces without stopping")
            return
        mine = sorted((PieceInfo.of(p) for p in act.start.pieces
                       if p.side is self.side and p.cell == answer.stop),
                      key=PieceInfo.sort_key)
        if tuple(mine) != tuple(answer.taken) or not mine:
            raise FogError(f"the peer's Move claims to take pieces we do not hold at cell "
                           f"{answer.stop} (R5.1.3)")

    def _check_shown(self, act: ActionLog, answer: ActAnswer, need: str) -> None:
        """The firer the peer names with its Fire's strength (``ActAnswer.shown``, since
        ``wec-fog/26``) must be the piece we see fire, and one we see whatever our
        detectors (engine.half_resolution ``firer_shown``): the name has our resolution
        take the firer's part from the intent and ask no detection after the Fire
        (R9.5). Checked on our own half at once, as is a name in any other ``act`` answer
        (``need``: a Move's, a Drop's, a Flame's strength), which no rule gives; a name
        withheld where it is due only costs a detection, which the audit names."""
        if answer.shown is None:
            return
        form = act.form
        named = f"the peer names its firer {answer.shown}"
        if need != "strength" or not isinstance(form, Fire) or not launches_projectile(form):
            raise FogError(f"{named} in an answer about no projectile Fire (R6.8.2)")
        try:
            firer = plan_fire(act.start, form).piece
        except IllegalIntent:
            raise FogError(f"{named}, but we see no piece that fires at cell {form.frm} "
                           "(R9.8)") from None
        if firer.pid != answer.shown:
            raise FogError(f"{named}, but the piece we see fire is {firer.pid} (R6.1.1)")
        if firer_shown(form, firer, self._half.options) is None:
            raise FogError(f"{named}, a piece that may hide from us (R9.7): its Fire "
                           "is not shown whole")

    def _their_back(self, act: ActionLog, payload: dict[str, Any]) -> None:
        q = payload["q"]
        if not isinstance(q, list) or len(q) != (3 if q and q[0] == "reach" else 2) \
                or q[0] not in ("presence_ot", "reach"):
            raise FogError("only presence and detection runs are asked back over the wire")
        if act.outcome is not None or act.back_obj is None:
            raise FogError("a question asked back while our resolution does not wait")
        if act.backs_in >= MAX_QUESTIONS:
            raise FogError(f"more than {MAX_QUESTIONS} questions asked back in one action "
                           "(a flood)")
        act.backs_in += 1
        if q[0] == "reach":
            if not _sized(q[1:], SIGHT_QUERIES):
                raise FogError("a reach question asked back without its queries "
                               f"({' and '.join(map(str, SIGHT_QUERIES))} bytes)")
            self._reply_reach(act, payload["j"], q[1:])
            return
        j = payload["j"]
        if type(j) is not int or any(back[2] == j for back, _ in act.their_backs):
            raise FogError("a presence question asked twice under one number")
        answer = self._presence_reply(act, True, j, q, act.back_obj.occupied())
        act.their_backs.append(([*q, j], self._last_index()))
        self._send("back_answer", {"n": act.n, "j": j, "a": answer})

    def _implied_presence(self, act: ActionLog, rank: int, cells: tuple[int, ...]
                          ) -> frozenset[int] | None:
        """Our owner side's presence question ``rank`` answered by our own resolution's,
        or None: asked back (``_implied_presence``)."""
        return _implied_presence(act, rank, cells)

    def _reply_reach(self, act: ActionLog, j: int, queries: list[bytes]) -> None:
        """Detection (R9.3-R9.7): the peer's owner side asks back, by oblivious transfer,
        our bits about its slots (net.private_sight): our reply is masked, so it reads
        nothing."""
        s = act.mine
        pending = len(s.answers)
        if pending >= len(s.questions) or s.questions[pending][0] != "detect":
            raise FogError("a reach question while our resolution does not detect")
        if self._ot_chosen is None:
            raise FogError("a reach question before the base transfers of the game")
        if type(j) is not int or j in act.their_reach or not 0 <= j < PRE_RUN:
            # one run per id: a repeated j would have us answer twice with one key (the
            # numbers from PRE_RUN on are the runs sent ahead)
            raise FogError("a reach question asked twice under one number")
        if any(r.question == pending for r in act.their_reach.values()):
            # one run per detection: a second query would read the reach at more squares
            raise FogError("a second reach question for one detection")
        act.their_reach[j] = TheirReach(pending, queries, self._last_index())
        sight = act.mine_args[pending][1][0] if pending < len(act.mine_args) \
            else codec.from_wire(s.questions[pending][1])
        reply = self._sight_reply(act, j, pending, queries, sight)
        self._send("back_answer", {"n": act.n, "j": j, "a": reply})

    def _sight_reply(self, act: ActionLog, j: int, i: int, queries: list[bytes],
                     sight: Any) -> list[bytes]:
        """Our reply to the peer's detection run ``j`` for our detect question ``i``:
        the masked tables and the input query (net.private_sight ``AskerRun``, kept for
        the answer); in our Exchange the peer does not see, our holders' distances too."""
        run = self._take_prepared("sight asker", act.n, j)
        assert isinstance(run, ps.AskerRun)
        run.sight = self._claimed(act, j, sight)
        try:
            replies = list(run.reply(queries[0], queries[1], _holders_hidden(act, self.side)))
        except (OtError, PrivateSightError) as exc:
            raise FogError(f"the detection's queries: {exc}") from None
        self._sight_askers = {key: kept for key, kept in self._sight_askers.items()
                              if key[0] >= act.n}
        self._sight_askers[(act.n, i)] = run
        return replies

    def _claimed(self, act: ActionLog, j: int, sight: Any) -> Any:
        """``sight`` with the reach our reply to run ``j`` tells (``_reach_items``)."""
        stealth = sub = 0
        for sq, bits in self._reach_items(act, j, sight).items():
            if sq < 100:
                stealth |= (bits & 1) << sq
                sub |= (bits >> 1 & 1) << sq
        return replace(sight, stealth_reach=stealth, sub_reach=sub)

    def _sight_answer(self, act: ActionLog, i: int, answer: Any) -> Detection:
        """Our detect question ``i`` answered (net.private_sight): the input labels, the
        garbled material and the clear part, evaluated on our own bits (in our Exchange
        the peer does not see, with the distance labels' reply fourth)."""
        hidden = _holders_hidden(act, self.side)
        if not isinstance(answer, list) or len(answer) != 3 + hidden \
                or not all(type(part) is bytes for part in answer) \
                or len(answer[0]) != ps.INPUT_LABELS.reply_size \
                or (hidden and len(answer[3]) != ps.DIST_LABELS.reply_size):
            raise FogError("a detection's answer is not the input labels "
                           f"({ps.INPUT_LABELS.reply_size} bytes), the material and the "
                           "clear part" + (f", and the distance labels "
                                           f"({ps.DIST_LABELS.reply_size} bytes)"
                                           if hidden else ""))
        run = self._sight_askers.pop((act.n, i), None)
        if run is None:  # not kept (a restore): made again from our seeds
            found = [(j, r) for j, r in act.their_reach.items() if r.question == i]
            if not found:  # the owner answers without the asker's tables: it has none
                raise FogError("an answer to our detect before its detection run (R9.3-R9.7: "
                               "the owner has no tables of ours to answer from)")
            j, asked = found[0]
            sight = act.mine_args[i][1][0]
            run = ps.AskerRun(self.seed, self._sight_run_id(act.n, self.side.other, j),
                              self._bases(), self._claimed(act, j, sight))
            run.reply(asked.query[0], asked.query[1], hidden)
        try:
            return run.finish(answer[0], answer[1], ps.clear_from_wire(answer[2]),
                              act.start.options, *answer[3:])
        except (OtError, PrivateSightError, GarbleError) as exc:
            raise FogError(f"the detection's answer: {exc}") from None

    # ------------------------------------------------------------ reach runs sent ahead

    def _sent_kind(self, act: ActionLog, i: int) -> str:
        """The kind our question ``i`` went out as (a private run for some)."""
        name: str = act.mine.questions[i][0]
        if i in act.psi:
            return "first_hit_psi"
        if name == "presence":
            return "presence_ot"
        if name == "doze" and act.actor is self.side:
            return "doze_ot"
        if name == "weapon" and _is_stun(act, i):
            return "stun_ot"
        return name

    def _reach_follows(self, act: ActionLog, questions: Sequence[Any], k: int, kind: str,
                       answer: Any, asker: Side) -> bool:
        """Whether the answer ``answer`` (wire form) to ``asker``'s question ``k`` of
        ``questions`` (gone out as ``kind``) carries the owner's detection queries for
        the asker's next question, should it be a detect: not after the kinds of
        ``_NO_REACH_AHEAD``, and since ``wec-fog/26`` not where the next question is
        never a detect (engine.half_resolution ``_settle``, ``_end_turn``):

        * a projectile Fire's strength (``implied_questions``): a homing or a collide
          question follows it;
        * the side that does not act's first question, ``act("move")`` or ``doze``, when
          the collide implied after it follows (``_collide_after_first_implied``);
        * a collide that hits the owner's pieces: its effects follow (then another
          collide, or the detect: the effects' last answer carries the queries);
        * the first collide of a step that stays still when nothing is hit (an End's
          projectile phase; a Fire whose acting side named its firer, ``ActAnswer.shown``,
          asked by the side that does not act, or implied, ``collide_implied``): if it
          hit nothing on either side no detect follows; where both sides' first collides
          are one implied question and the acting side's own pieces were hit, the other
          side sends them apart once it knows (``ahead``: ``_send_ahead``, since
          ``wec-fog/27``). (The acting side's own collide, when it is asked, may be
          answered before the name reaches the side that does not act: a quick question
          goes before the answers, ``_send_order``; an implied one is answered as the
          resolution that read the name reaches its own.)

        Public facts alone (the questions, the answers, the name), so both sides agree;
        where a detect comes all the same (a later step's first collide; the side that
        does not act, when a first collide hit its own pieces alone), the asker asks the
        queries back (``back``)."""
        if kind in _NO_REACH_AHEAD:
            return False
        question = questions[k]
        form = act.form
        if k == 0 and asker is not act.actor and _collide_after_first_implied(
                act, questions[:1], [answer]):
            return False
        if kind == "act":
            return not (question[1] == "strength" and isinstance(form, Fire)
                        and launches_projectile(form))
        if kind != "collide":
            return True
        if codec.from_wire(answer):
            return False
        first = not any(q[0] == "collide" for q in questions[:k])
        return not (first and (isinstance(form, EndTurn) or (
            (asker is not act.actor or collide_implied(form, act.start.projectiles))
            and self._firer_named(act))))

    def _first_collides_alike(self, act: ActionLog) -> bool:
        """Whether both sides' first collides of ``act`` are one implied question, which
        neither sends: an End's whose collides are all implied
        (``_settle_collides_implied``), or a projectile Fire's whose firer the acting side
        named (``_firer_named``: its collide, asked after the launch alone, is implied
        when no projectile homes, ``collide_implied``)."""
        return _settle_collides_implied(act) or (
            collide_implied(act.form, act.start.projectiles) and self._firer_named(act))

    def _detect_follows_first_collide(self, act: ActionLog, collide: Sequence[Any],
                                      asker: Side) -> bool:
        """Whether, where both sides' first collides are one (``_first_collides_alike``),
        the acting side's next question after the other side's empty answer to its first
        collide ``collide`` is its detect: the collide hit its own pieces (its answer to the
        other side's first collide, the same collide: both sides' answers together are the
        cells hit) and no later collide follows (``_next_collide``, since ``wec-fog/27``).
        Public to both: the other side knows it once the acting side's answer to its own
        first collide has come (with the intent), and then sends its queries apart
        (``_send_ahead``). Until ``wec-fog/27`` the later collide's answer carried them; a
        settling that asks none would have had the acting side ask them back, a round
        trip more."""
        ours = asker is self.side
        theirs_first = _collides(act.theirs if ours else act.mine.questions)[0]
        told = act.answered[theirs_first] if ours else act.mine.answers[theirs_first]
        return bool(_hit_cells(told)) and _next_collide(collide, (told,)) is None

    def _firer_named(self, act: ActionLog) -> bool:
        """Whether the acting side named the firer of its projectile Fire with its
        strength (``ActAnswer.shown``): our answer if we act, the peer's if it does."""
        form = act.form
        if not isinstance(form, Fire) or not launches_projectile(form):
            return False
        if act.actor is self.side:
            strength = codec.from_wire(act.answered[0]) if act.answered else None
        else:
            strength = act.mine.answers[0] if act.mine.answers else None
        return isinstance(strength, ActAnswer) and strength.shown is not None

    def _query_ahead(self, act: ActionLog, payload: dict[str, Any], kind: str,
                     due: bool | None = None) -> list[bytes] | None:
        """The peer's detection queries sent ahead with its answer to a question of
        ``kind`` (or its ``done``), checked present exactly where the rule puts them
        (``due``; by default, unless the kind is one of ``_NO_REACH_AHEAD``)."""
        query = payload.get("reach")
        if not (kind not in _NO_REACH_AHEAD if due is None else due):
            if query is not None:
                raise FogError(f"a reach query sent ahead with the {kind} message, where "
                               "none is due")
            return None
        if not _sized(query, SIGHT_QUERIES):
            raise FogError(f"{with_article(kind)} message without the detection queries it "
                           "sends ahead "
                           f"({' and '.join(map(str, SIGHT_QUERIES))} bytes)")
        return list(query)

    def _our_query_ahead(self, act: ActionLog, k: int) -> _SentAhead | None:
        """Our detection queries sent ahead for the peer's question ``k`` (with our
        answer to question ``k - 1``, or for question 0 with our ``done`` of the action
        before)."""
        if k == 0:  # (or with our intent: ``_intent_reach``)
            return self._first_reach_mine.get(act.n)
        if act.theirs[k - 1][0] == "first_hit_psi" and act.took.get(k - 1) is not None:
            return None  # the Move took our pieces: the slots of the queries are void
        return act.pre_mine.get(k)

    def _intent_reach(self, act: ActionLog) -> list[bytes]:
        """Our detection queries for the peer's first question of our intent, its detect
        (engine.half_resolution ``detect_first``), sent with the intent: about our pieces
        as the intent leaves them (nothing of ours changes before that question). Its
        garbling is made in the idle time until the question comes (``peek``)."""
        conv = acted_conversation(act.start, act.intent)
        queries = self._reach_ahead(act, 0, conv.detection_slots(), first_of=act.n)
        run = self._owner_runs_ahead.get((act.n, 0))
        if run is not None:
            run.peek = partial(conv.detection_parts, (), False)
        return queries

    def _void_runs_dropped(self, act: ActionLog, k: int) -> None:
        """The runs sent ahead for the peer's questions of ``act`` before ``k`` (and of
        earlier actions) let go: those questions are answered, and each run serves its
        own question only. Dropped, so that idle time garbles the one a detect may still
        use first, not them (in 2026-11-27 runs a third of the detections found their run
        not made yet, behind a void one, and garbled it on the path: 5-7 ms). Done as
        each question is answered (since session 43; until then only as the next queries
        went out, which an answer with none after a void run left to idle time)."""
        self._owner_runs_ahead = {key: kept for key, kept in self._owner_runs_ahead.items()
                                  if key[0] > act.n or (key[0] == act.n and key[1] >= k)}

    def _reach_ahead(self, act: ActionLog, k: int, slots: Sequence[Slot],
                     first_of: int | None = None) -> list[bytes]:
        """Our detection queries for the peer's question ``k`` should it be a detect
        (net.private_sight ``OwnerRun.queries``), sent ahead of it: about our slots as
        they stand once the question before is answered (nothing of ours changes until
        the next question). ``k`` 0: the first question of the next action, sent with
        our ``done``; with ``first_of``, the first question of that action, sent with our
        intent. With the queries already at the peer, its detect question carries its
        masked tables (a detection in two messages: the question, the answer; asked back
        it takes four)."""
        n = first_of if first_of is not None else act.n + 1 if k == 0 else act.n
        foreseen = self._prepared.pop(("foreseen", n, PRE_RUN + k), None)
        if isinstance(foreseen, _Foreseen) and foreseen.run.slots == tuple(slots):
            run, queries = foreseen.run, foreseen.queries
        else:  # none, or our slots changed since (its transfers are made again)
            run = self._sight_owner(n, PRE_RUN + k, slots)
            queries = list(run.queries())
        self._void_runs_dropped(act, k)
        self._owner_runs_ahead[(n, k)] = run
        sent = _SentAhead(tuple(s.sq for s in slots), queries, tuple(slots))
        if k == 0:
            self._first_reach_mine = {n: sent}
        else:
            act.pre_mine[k] = sent
        return queries

    def _sight_owner(self, n: int, j: int, slots: Sequence[Slot]) -> ps.OwnerRun:
        """Our side of detection run ``j`` of action ``n`` about our ``slots`` (its reach
        transfer made ahead, perhaps)."""
        transfers = self._take_prepared("sight owner", n, j)
        assert isinstance(transfers, ps.OwnerTransfers)
        pads = self._prepared.pop(("sight pads", n, j), None)  # made between actions
        try:
            return ps.OwnerRun(self.seed, self._sight_run_id(n, self.side, j), self._bases(),
                               slots, self._half.options, transfers=transfers,
                               pads=pads if isinstance(pads, ps.RunPads) else None)
        except PrivateSightError as exc:
            raise OwnLimit(f"our detection: {exc}") from None

    def _reach_table(self, act: ActionLog, i: int, sight: Any) -> list[bytes] | None:
        """Our reply to the peer's detection queries sent ahead of our detect question
        ``i``, if it sent them (net.private_sight: masked, it reads nothing)."""
        pre = act.pre_theirs.get(i) if i else self._first_reach_theirs.get(act.n)
        if pre is None or (i - 1 in act.psi
                           and isinstance(act.mine.answers[i - 1], FirstHit)):
            return None  # none, or our Move took pieces of the peer's: asked back
        if self._ot_chosen is None:
            raise FogError("a reach question before the base transfers of the game")
        query, proof = pre
        j = PRE_RUN + i
        act.their_reach[j] = TheirReach(i, query, proof)
        return self._sight_reply(act, j, i, query, sight)

    def _finish_ahead(self, act: ActionLog, k: int, slots: Sequence[Slot]
                      ) -> tuple[ps.OwnerRun, list[bytes], int]:
        """Our run for the peer's detect question ``k`` whose tables came with it, for
        the queries we sent ahead."""
        pre = self._our_query_ahead(act, k)
        assert pre is not None
        if tuple(slots) != pre.slots:
            raise AssertionError("owner side not deterministic: our slots changed since "
                                 "the detection queries sent ahead")
        tables, proof = act.pre_tables[k]
        run = self._owner_runs_ahead.pop((act.n, k), None)
        if run is None:  # not kept: made again (the same seeds)
            run = self._sight_owner(act.n, PRE_RUN + k, slots)
            run.queries()
        s = act.backs
        s.questions.append(["sight", list(pre.squares), pre.queries, k, PRE_RUN + k])
        s.answers.append(tables)
        s.proof.append(proof)
        return run, tables, PRE_RUN + k

    def _reach_items(self, act: ActionLog, j: int, sight: Any) -> dict[int, int]:
        """Every square's two reach bits (1: in stealth reach, 2: in submersion reach) of
        ``sight``: what our reply to detection run ``j`` tells (net.private_sight's
        table, of which each position gets a masked copy)."""
        return reach_table(sight)

    def _presence_reply(self, act: ActionLog, back: bool, k: int, q: list[Any],
                        cells: set[int] | frozenset[int]) -> bytes:
        """Our reply to the peer's presence run ``k`` (R1.6; ``back``: asked back by its
        owner side): the query's cell stays unknown to us. By oblivious transfer of our
        table of held cells (net.ot)."""
        if self._ot_chosen is None:
            raise FogError("a presence question before the base transfers of the game")
        sender = ot.PresenceSender(self._ot_choice, self._ot_chosen, codec.presence_run_id(
            self.game_id, act.n, self.side.other, back, k))
        try:
            return sender.reply(q[1], cells)
        except OtError as exc:
            raise FogError(f"the presence query: {exc.reason}") from None

    def _their_done(self, act: ActionLog, payload: dict[str, Any]) -> None:
        if act.peer_hash is not None:
            raise FogError("a second done for one action")
        act.peer_hash = str(payload["hash"])
        act.peer_done_proof = self._last_index()
        if _next_actor(act) is self.side:
            query = self._query_ahead(act, payload, "done")
            assert query is not None
            self._first_reach_theirs = {act.n + 1: (query, self._last_index())}
        elif payload.get("reach") is not None:
            raise FogError("a reach query sent ahead with the done of an action the peer "
                           "acts after, where none is due")
        if payload.get("commit") is not None:
            act_turn = payload.get("turn")
            if type(act_turn) is not int:
                raise FogError("a commitment without its turn")
            self._take_commit(payload["commit"], act_turn)

    # ------------------------------------------------------------ progress

    def _after(self, act: ActionLog, asked: bool = False, answers_first: bool = False
               ) -> None:
        """Run what can run now: our resolution, our owner side, the action's end.
        ``asked``: the message was a question of the peer's (a waiting finish then
        goes after our answer is out, :meth:`settle`). ``answers_first``: a message of
        the action under way, after which our owner side's answers may go out before
        our resolution's step (:meth:`settle` makes it; since session 39)."""
        if self.fault is not None:
            return
        if act.outcome is None and act.resolved is None:
            if answers_first and _may_go_on(act):
                # the message let both our owner side and our resolution go on: an answer
                # of our owner side goes out first, on its own, and our resolution's step
                # (a detect question's tables, a detection evaluated, our finish: 1-3 ms)
                # waits for :meth:`settle`, made once the answer is written
                sent = len(self._out)
                self._run_owner(act)
                if any(kind in _OWNER_KINDS for kind, _ in self._out[sent:]):
                    act.continues = self._last_index()
                    self._check_end(act)
                    return
            self._run_mine(act)
        self._run_owner(act)
        if act.resolved is not None and not self._finish_waits(act) and not asked:
            self._finish(act)
        self._check_end(act)

    def _check_end(self, act: ActionLog) -> None:
        """The action's end once both sides are done: the peer's public state hash
        against ours; then whether a turn hash is due."""
        if act.outcome is not None and act.peer_hash is not None and act.n not in self._hashed:
            self._hashed.add(act.n)
            ours = self._state_hash(act.outcome.position)
            if act.peer_hash != ours:
                self._fail(f"desync: after action {act.n} the peer's public state hash "
                           f"{act.peer_hash[:12]} differs from ours {ours[:12]}",
                           act.peer_done_proof)
                return
        self._turn_check()

    def _turn_check(self) -> None:
        t = self._half.turn
        if t not in self._turns_done and self._turn_roots() is not None and not self.busy:
            self._turns_done.add(t)
            self._events.append(TurnHash(t, self.public_hash))

    def _run_mine(self, act: ActionLog) -> None:
        """Our resolution, carried on from the question it waits on (made afresh, and
        replayed from the answers so far, when there is none this thread can resume);
        once it is over, its finish (:meth:`_finish`), unless that waits."""
        if act.mine_run is None or not act.mine_run.usable():
            conv = _WireConversation(self, act)
            act.mine_run = Resumable(partial(resolve, act.start, act.intent,
                                             _WireReferee(conv), act.travels,
                                             step_due(act.peer_bound)))
        done, outcome = act.mine_run.resume()
        if not done:
            return
        assert outcome is not None
        act.mine_run = None
        act.back_obj = None
        act.resolved = outcome
        if not self._finish_waits(act):
            self._finish(act)

    def _finish_waits(self, act: ActionLog) -> bool:
        """Whether our finish of the peer's End of turn waits for the questions the peer
        is sure to ask us still: its transport phase (R4.2(3), R8.4; asked after its
        projectile step whenever the game goes on) and the detection after it (asked
        after every step when pieces can hide, and always after the transport step:
        engine.half_resolution ``_end_turn``), the last question of its resolution.
        Neither needs anything of our finish. Finishing first (1-3 ms live: the state
        hash, our commitment of the turn, the reach query sent ahead, the signatures)
        held the next question up on the path of every End; made after our answer to
        the last one, it runs while the peer finishes. The peer asks the transport phase
        only when its bound of our schedule has a step due (engine.transit_schedule
        ``bound_after``): sure when ours has one (the bound takes every step ours takes).
        When ours has none the finish waits for nothing: waiting for a question that
        does not come held our done until the peer's, one message more on the path of
        most Ends (until session 34). The rule reads public facts and our own schedule
        only: the action's kind, the result, the questions come."""
        outcome = act.resolved
        if outcome is None or act.actor is self.side or not isinstance(act.form, EndTurn) \
                or outcome.position.result is not None or act.peer_hash is not None \
                or not self._transport_sure(act):
            return False
        names = [q[0] for q in act.theirs]
        return "transport_phase" not in names \
            or "detect" not in names[names.index("transport_phase") + 1:]

    def _transport_sure(self, act: ActionLog) -> bool:
        """Whether the peer's End ``act`` is sure to ask our transport phase (when the
        game goes on): our schedule has a step due at our turn start, so the peer's
        bound of it has one too (engine.transit_schedule ``bound_after``)."""
        return step_due(act.travels)

    def _finish(self, act: ActionLog) -> None:
        """Our resolution's outcome taken: our half state, the ``done`` (our public state
        hash, our commitment of a new turn, the reach query for the next action when the
        peer acts next) and the event."""
        outcome = act.resolved
        assert outcome is not None
        act.resolved = None
        act.outcome = outcome
        self._half = outcome.position
        self.travels = travels_after(act.travels, act.start, act.intent, self.side,
                                     act.hidden, outcome.position)
        self.peer_bound = bound_after(act.peer_bound, act.start, act.form, self.side.other,
                                      act.hidden, outcome.events)
        payload: dict[str, Any] = {"n": act.n, "hash": self._state_hash(outcome.position),
                                   "commit": None}
        if outcome.position.turn != act.start.turn:
            payload["commit"] = self._commit().to_bytes()
            payload["turn"] = outcome.position.turn
        if _next_actor(act) is not self.side:
            # the peer acts next: our slots at its action's start (when we act, our own
            # intent may change which of our pieces can hide, before the peer's first
            # question: that detection's queries are asked back)
            payload["reach"] = self._reach_ahead(act, 0, start_slots(outcome.position))
            run = self._owner_runs_ahead.get((act.n + 1, 0))
            if run is not None:  # its material garbled in idle time
                run.peek = partial(_start_parts, outcome.position)
        self._send("done", payload)
        self._events.append(Applied(act.n, act.actor, act.intent, act.hidden, outcome))

    def _finish_due(self) -> ActionLog | None:
        """The action whose finish no longer waits but is not made yet (after our answer
        to the question it waited for)."""
        act = self.actions[-1] if self.actions else None
        if act is None or act.resolved is None or self.fault is not None \
                or self._finish_waits(act):
            return None
        return act

    def _continuation_due(self) -> ActionLog | None:
        """The action whose resolution's step waits for :meth:`settle` (:meth:`_after`)."""
        act = self.actions[-1] if self.actions else None
        if act is None or act.continues is None or self.fault is not None:
            return None
        return act

    def _settle_due(self) -> None:
        """What waits for :meth:`settle`, made now: before anything else an input does
        (so a restore, which replays the inputs, makes it at the same point). Our
        resolution's step first; a fault there names the message it went on from."""
        act = self._continuation_due()
        if act is not None:
            proof, act.continues = act.continues, None
            assert proof is not None
            shown = len(self._events)
            try:
                self._run_mine(act)
                self._run_owner(act)
                self._check_end(act)
                if self.fault is None and (self._events or not self.busy):
                    self._check_signatures()
            except _FAULTS as exc:
                self._failed(exc, shown, proof)
                return
        act = self._finish_due()
        if act is None:
            return
        self._finish(act)
        self._check_end(act)
        if self.fault is None:
            try:  # before the event stands (as after a message)
                self._check_signatures()
            except _Unsigned as exc:
                self._events.clear()
                self._fail(exc.reason)

    def _judge_their_doze(self, act: ActionLog, conv: OwnerConversation, k: int,
                          q: list[Any]) -> Any:
        """The peer's Doze judged privately (net.doze_judge): our table of verdict shares
        from our Ground pieces at its squares; our pieces move once it tells the verdict
        (``judged``), before any later question."""
        question = _doze_question(q)
        if question.dozer_side is self.side or act.actor is self.side:
            raise FogError("a Doze judgement asked of the Dozer's own side")
        form = act.form
        if not isinstance(form, Doze) or question.dozer_side is not act.actor \
                or (question.sq, question.squares, question.dir) != (form.sq, form.squares,
                                                                     form.dir):
            # each table answers "would this Doze be foiled": one about other squares
            # would probe our Ground pieces there
            raise FogError("a Doze judgement about another Doze than the peer's intent (R8.8)")
        if any(other[0] == "doze_ot" for other in act.theirs[:k]):
            raise FogError("a second Doze judgement in one action (R8.8: one Doze)")
        answer: Any
        if k < len(act.answered):
            answer = act.answered[k]
        else:
            if not isinstance(q[2], bytes):
                raise FogError("a Doze query is not bytes")
            size = ot.HIDDEN_DOZE_LABELS.query_size
            if len(q) != 4 or type(q[3]) is not bytes or len(q[3]) != size:
                raise FogError(f"a Doze judgement without its transfer of the squares "
                               f"left out ({size} bytes)")
            return self._doze_transfer(act, conv, k, question, q[2], q[3])
        return answer  # our pieces move once the peer tells the verdict (``_told``)

    def _items(self, act: ActionLog, conv: OwnerConversation) -> dict[int, bytes]:
        """The first-hit PSI items: each cell holding our pieces, labelled with its
        contents (what ``first_hit`` would answer)."""
        return codec.own_contents(_owner_pieces(conv), self.side)

    def _run_owner(self, act: ActionLog) -> None:
        """Our side answering the peer's resolution, carried on from where it waits
        (made afresh when there is none this thread can resume: it then replays the
        questions answered so far)."""
        if len(act.answered) == len(act.theirs) and not act.next_collide_due \
                and not act.ahead_due:
            return
        if act.owner_run is None or not act.owner_run.usable():
            act.owner_run = Resumable(partial(self._owner_side, act))
        act.owner_run.resume()

    def _owner_side(self, act: ActionLog) -> None:
        """The peer's questions one after the other on one owner conversation, each
        answered once (a question answered before, in a replay, only moves the
        conversation on); waits for the next question without end (the action's end
        drops it)."""
        asker = _WireAsker(self, act)
        conv = _ActorConversation(act.start, act.intent, asker, self, act) \
            if act.actor is self.side else OwnerConversation(act.start, act.intent, asker,
                                                             act.travels)
        k = 0
        while True:
            wait_until(partial(_asked, act, k))
            q = act.theirs[k]
            answer, extra = self._answer(act, conv, k, q)
            if k == len(act.answered):
                act.answered.append(answer)
                self._void_runs_dropped(act, k + 1)
                if k in act.doze_out:  # its own message: the answer keeps its size class
                    self._send("doze_reply", {"n": act.n, "i": k, "a": act.doze_out.pop(k)})
                if q[0] not in _NOTICES:
                    payload = {"n": act.n, "i": k, "a": answer, **extra}
                    if self._reach_follows(act, act.theirs, k, q[0], answer,
                                           self.side.other):
                        # our squares stay as they are until the next question
                        payload["reach"] = self._reach_ahead(act, k + 1,
                                                             conv.detection_slots())
                        run = self._owner_runs_ahead.get((act.n, k + 1))
                        if run is not None:  # its material garbled in idle time
                            run.peek = partial(conv.detection_parts, (), False)
                    self._send("answer", payload)
            self._told(act, conv, k, q)
            if k == 0 and act.actor is self.side:
                self._their_collide_after_first(act)
            if q[0] == "collide":
                self._their_effects(act, k)
                self._send_ahead(act, conv, k)
            k += 1
            self._their_next_collide(act, k)

    def _send_ahead(self, act: ActionLog, conv: OwnerConversation, k: int) -> None:
        """After our empty answer to the peer's first collide ``k`` of its action, where
        both sides' first collides are one (``_first_collides_alike``): once the peer's
        answer to ours has come (with its intent), our detection queries for its next
        question, when that is its detect (``_detect_follows_first_collide``: the collide
        hit its pieces and no later collide follows), in an ``ahead`` message of their
        own (since ``wec-fog/27``). Our answer went without them, at once: whether they
        are due needs the peer's answer, and holding ours for it held every such action
        up (session 43: 0.3-0.6 ms on the median End and Fire). The later collide
        that carried them until then is no longer asked (engine.half_resolution
        ``settle_candidates``)."""
        if act.actor is self.side or k != _collides(act.theirs)[0] \
                or _hit_cells(act.answered[k]) or not self._first_collides_alike(act):
            return
        act.ahead_due = True
        wait_until(partial(_first_collide_answered, act))
        act.ahead_due = False
        if not self._detect_follows_first_collide(act, act.theirs[k], act.actor):
            return
        queries = self._reach_ahead(act, k + 1, conv.detection_slots())
        run = self._owner_runs_ahead.get((act.n, k + 1))
        if run is not None:  # its material garbled in idle time
            run.peek = partial(conv.detection_parts, (), False)
        self._send("ahead", {"n": act.n, "i": k + 1, "reach": queries})

    def _ahead_due(self, act: ActionLog, i: int) -> bool:
        """Whether the peer's queries for our question ``i`` of our action come in an
        ``ahead`` message (``_send_ahead``): ``i`` follows our first collide, which the
        peer answered empty, where both first collides are one, and our detect follows."""
        if act.actor is not self.side or not self._first_collides_alike(act):
            return False
        ours = _collides(act.mine.questions)
        if not ours or i != ours[0] + 1 or len(act.mine.answers) <= ours[0] \
                or _hit_cells(act.mine.answers[ours[0]]):
            return False
        return self._detect_follows_first_collide(act, act.mine.questions[ours[0]], self.side)

    def _their_ahead(self, act: ActionLog, payload: dict[str, Any]) -> None:
        """The peer's detection queries for our question ``i``, sent apart
        (``_send_ahead``): only where the rule puts them, once."""
        i = payload["i"]
        if not self._ahead_due(act, i):
            raise FogError(f"detection queries sent ahead for our question {i} where none "
                           "are due (wec-fog/27: only after the peer's empty answer to our "
                           "first collide, when that collide hit our pieces and no later "
                           "collide follows)")
        if i in act.pre_theirs:
            raise FogError(f"detection queries sent ahead for our question {i} a second "
                           "time (wec-fog/27: once)")
        query = self._query_ahead(act, payload, "ahead", True)
        assert query is not None
        act.pre_theirs[i] = (query, self._last_index())

    def _their_collide_after_first(self, act: ActionLog) -> None:
        """After our answer to the peer's ``act("move")`` in our Move, or to its ``doze`` in
        our Doze: the collide its resolution asks next, when both sides know it
        (engine.half_resolution ``move_collide_follows``, ``doze_collide_follows``),
        recorded as the peer's question 1 and answered unasked: one round trip off the
        peer's chain (since ``wec-fog/22``; a Doze's since ``wec-fog/24``)."""
        if not _collide_after_first_implied(act, act.theirs, act.answered):
            return
        first = "doze" if isinstance(act.form, Doze) else 'act("move")'
        _record_implied(act, 1, _collide_after_first_question(act),
                        f"the peer asked the collide that follows its {first} in our "
                        f"{type(act.form).__name__}, which is implied (R6.8.5: both sides "
                        "know it, it is never sent)")

    def _their_effects(self, act: ActionLog, k: int) -> None:
        """After our answer to the peer's collide ``k``: the ``collision_effects`` its
        resolution asks next, one per cell of ours hit (``_effects_questions``), recorded
        as its questions and answered unasked: one round trip off the peer's chain per
        cell (since ``wec-fog/23``)."""
        for m, q in enumerate(_effects_questions(act.theirs[k], act.answered[k])):
            at = k + 1 + m
            _record_implied(act, at, q, f"the peer asked question {at}, the "
                            "collision_effects that follow our answer to its collide, "
                            "which are implied (R6.8.5: both sides know them, they are "
                            "never sent)")

    def _their_next_collide(self, act: ActionLog, k: int) -> None:
        """Before the peer's question ``k``, in an End whose collides are all implied
        (``_settle_collides_implied``): when ``k`` comes right after a collide of the
        peer's that we answered and the effects that answer implies, the collide its
        settling asks next, if any (``_next_collide``), recorded as its question ``k``
        and answered unasked: one round trip off each side's chain per collide after the
        first (since ``wec-fog/24``). It needs the peer's answer to our own collide of
        the same rank (both sides ask the same collides, one for one): our owner side
        waits for it here (``next_collide_due``), after the effects' answers went."""
        if k == 0 or not _settle_collides_implied(act):
            return
        c = k - 1
        while c > 0 and act.theirs[c][0] == "collision_effects":
            c -= 1
        if act.theirs[c][0] != "collide" \
                or k != c + 1 + len(_effects_questions(act.theirs[c], act.answered[c])):
            return
        rank = len(_collides(act.theirs[:c]))

        def ours_answered() -> bool:
            ours = _collides(act.mine.questions)
            return rank < len(ours) and ours[rank] < len(act.mine.answers)

        act.next_collide_due = True
        wait_until(ours_answered)
        act.next_collide_due = False
        ours = _collides(act.mine.questions)[rank]
        q = _next_collide(act.theirs[c], (act.answered[c], act.mine.answers[ours]))
        if q is None:
            return
        _record_implied(act, k, q, f"the peer asked question {k} where the collide that "
                        "follows both sides' answers to its collide was due, which is "
                        "implied (R6.8.5: both sides know it, it is never sent)")
        _same_collides(act, rank + 1)

    def _told(self, act: ActionLog, conv: OwnerConversation, k: int, q: list[Any]) -> None:
        """After a PSI run's answer: what the peer tells of its outcome (``took``: where
        the hidden Move took our pieces; ``judged``: the Doze's verdict) moves our pieces
        before any later question, which must not come first."""
        name = q[0]
        if name == "stun_ot":
            # our own first piece's fate, from our resolution's question of the same line
            m = sum(1 for other in act.theirs[:k] if other[0] == "stun_ot")
            wait_until(lambda: m < len(act.own_stun))
            conv.stun_applied(q[1], _stun_step(q), act.own_stun[m])
            return
        if name not in ("first_hit_psi", "doze_ot"):
            return
        told = act.took if name == "first_hit_psi" else act.judged
        wait_until(lambda: k in told or k + 1 < len(act.theirs))
        if k not in told:
            raise FogError("a question after a first-hit run without its took notice"
                           if name == "first_hit_psi"
                           else "a question after a Doze judgement without its verdict")
        if name == "first_hit_psi":
            cell = act.took[k]
            if cell is not None:
                conv.first_hit(q[1], (cell,))
        else:
            conv.doze_judged(_doze_question(q), act.judged[k])

    def _answer(self, act: ActionLog, conv: OwnerConversation, k: int, q: list[Any]
                ) -> tuple[Any, dict[str, Any]]:
        name = q[0]
        if name == "first_hit_psi":
            query_bytes = q[2]
            if k < len(act.answered):
                answer = act.answered[k]
            else:
                query = FirstHitQuery.from_bytes(query_bytes, codec.FIRST_HIT_SHAPE)
                # made ahead, perhaps
                owner = self._take_prepared(FIRST_HIT_OWNER, act.first_hit_ordinals[k], 0)
                assert isinstance(owner, FirstHitOwner)
                answer = owner.reply(query, self._items(act, conv)).to_bytes(codec.FIRST_HIT_SHAPE)
                if len(q) == 4:  # the Doze transfer's reply goes just before (_owner_side)
                    act.doze_out[k] = self._hidden_doze_reply(act, conv, k, q[3])
            return answer, {}  # the capture applies once the mover tells (``_told``)
        if name == "doze_ot":
            return self._judge_their_doze(act, conv, k, q), {}
        if name == "stun_ot":
            if k < len(act.answered):
                return act.answered[k], {}
            return self._stun_table(act, conv, k, q), {}
        if name == "presence_ot":
            if k < len(act.answered):
                return act.answered[k], {}
            return self._presence_reply(act, False, k, q, conv.occupied()), {}
        args: Any = act.theirs_args.get(k)
        if args is None:
            args = act.theirs_args[k] = codec.from_wire(q[1:])
        if name == "detect":
            return self._answer_detect(act, conv, k, args[0]), {}
        result = getattr(conv, name)(*args)
        extra: dict[str, Any] = {}
        if name == "first_hit" and act.openable and k == len(act.answered):
            cells = args[1]
            upto = len(cells) if result is None else result.index + 1
            commitment = self.commitments[act.start.turn]
            extra["open"] = [commitment.open(c).to_bytes() for c in cells[:upto]]
        if k < len(act.answered):  # answered already: a re-execution only needs the call
            return act.answered[k], extra
        return codec.to_wire(result), extra

    def _answer_detect(self, act: ActionLog, conv: OwnerConversation, k: int, sight: Any
                       ) -> Any:
        """The peer's detect question ``k`` answered privately (net.private_sight): our
        parts of the answer (engine.half_referee ``detection_parts``) garbled on the
        masked bits its tables gave us; it evaluates them on its own bits. We read
        nothing of its sight; its detect question names only its acquiring holders'
        squares (public, R9.4(a)), or none in its Exchange we do not see (their
        distances to our positions come masked, a fourth table)."""
        parts = conv.detection_parts(tuple(sq for _, _, sq in sight.acquiring))
        if k < len(act.answered):  # answered already: a re-execution only moves on
            return act.answered[k]
        run, tables, j = _WireAsker(self, act).sight(k, parts)
        # the tables' sizes follow the action (checked as they came, ``_sight_replies``)
        hidden = _holders_hidden(act, self.side.other)
        distance_query = tables[4] if hidden else None
        try:
            masked = run.masked(tables[0], tables[1], tables[3] if hidden else None)
        except (OtError, PrivateSightError) as exc:
            raise FogError(f"the peer's detection tables: {exc}") from None
        act.sight_read[k] = SightRead(j, run.placed, masked, tables[2],
                                      act.backs.proof[_back_of(act, k)], distance_query)
        try:
            run.take_input_query(tables[2])
        except OtError as exc:
            raise FogError(f"the peer's input query: {exc}") from None
        try:
            reply, material, clear, *distances = run.garble_masked(parts, masked, tables[2],
                                                                   distance_query)
        except OtError as exc:
            raise FogError(f"the peer's distance query: {exc}") from None
        except (PrivateSightError, GarbleError) as exc:  # ours, not the peer's
            raise OwnLimit(f"our detection cannot be evaluated privately (a limit of "
                           f"net.private_sight, docs/network.md): {exc}") from None
        return [reply, material, ps.clear_to_wire(clear), *distances]


def _start_parts(half: Position) -> Any:
    """The parts of a detection about our pieces asked before anything of ours changes
    in the next action (the peer acts it: engine.half_referee ``detection_parts``)."""
    return OwnerConversation(half, EndTurn(), None).detection_parts(  # type: ignore[arg-type]
        (), False)


def _back_of(act: ActionLog, k: int) -> int:
    """The index in ``act.backs`` of the detection run of the peer's question ``k``."""
    return next(j for j, q in enumerate(act.backs.questions)
                if q[0] == "sight" and q[3] == k)


def _holders_hidden(act: ActionLog, asker: Side) -> bool:
    """Whether ``asker``'s acquiring holders stand at squares the other side must not
    learn in this action: it is ``asker``'s Exchange the other side does not see (R4.9,
    net.fog_codec ``public_form``; public facts, so both sides and the audit agree).
    Its detections then send their distances, masked (net.private_sight)."""
    return ps.holders_hidden(act.form, act.hidden, act.actor, asker)


def _check_detect_form(act: ActionLog, q: list[Any], peer: Side) -> None:
    """The peer's detect question names its acquiring holders' squares alone (R9.4(a)),
    none in its Exchange we do not see. (What its Sight tells is its own: it is
    evaluated privately, net.private_sight.)"""
    try:
        sight = codec.from_wire(q[1]) if len(q) == 2 else None
    except codec.WireError:
        sight = None
    hidden = _holders_hidden(act, peer)
    if not isinstance(sight, Sight) or sight != ps.question_sight(sight, hidden):
        raise FogError("a detect question that names more than its acquiring holders' "
                       "squares (R9.4(a); its sight is evaluated privately" +
                       (", and in its Exchange we do not see its holders' squares go "
                        "masked" if hidden else "") + ")")


def _doze_public(act: ActionLog, question: DozeQuestion) -> tuple[Doze, DozeQuestion]:
    """Our Doze (its question ``question``) and the question of its public form (the
    squares of ours the peer does not see left out: net.fog_codec ``public_form``)."""
    truth = Doze(question.sq, question.squares, question.dir)
    form = act.form
    assert isinstance(form, Doze)
    return truth, DozeQuestion(form.sq, form.squares, form.dir, question.dozer_side, ())


def _check_first_hit_run(act: ActionLog, q: list[Any]) -> None:
    """The peer's first-hit run (R5.2.4): only for a Move it hid (a hidden Dozer's Doze
    included), once per action, with its Doze transfer."""
    if not act.hidden or act.form != codec.HIDDEN_MOVE \
            or any(other[0] == "first_hit_psi" for other in act.theirs):
        raise FogError("a first-hit run for no hidden Move of the peer's (R5.2.4: one per "
                       "Move)")
    form = ot.HIDDEN_DOZE_LABELS
    if len(q) != 4 or type(q[3]) is not bytes or len(q[3]) != form.query_size:
        raise FogError(f"a hidden Move's first-hit run without its Doze transfer "
                       f"({form.query_size} bytes)")
    if type(q[1]) is not int:
        raise FogError("a hidden Move's first-hit run whose op is not a number")


def _doze_receiver(game: FogGame, n: int, i: int) -> ot.LabelReceiver:
    """Our side of the Doze transfer asked as question ``i`` of action ``n`` (made again
    when the table comes: deterministic from our seeds and the run's id)."""
    return ot.LabelReceiver(game._ot_pairs, codec.doze_run_id(game.game_id, n, game.side, i))


def _stun_receiver(game: FogGame, n: int, i: int) -> ot.LabelReceiver:
    """Our side of the Stunner line's transfer asked as question ``i`` of action ``n``
    (made again when the table comes: deterministic from our seeds and the run's id)."""
    return ot.LabelReceiver(game._ot_pairs, codec.stun_run_id(game.game_id, n, game.side, i),
                            ot.STUN_LABELS)


def _is_stun(act: ActionLog, i: int) -> bool:
    """Whether our question ``i`` of ``act`` is a Stunner's line (a ``weapon`` question
    of kind ``stun``)."""
    return _is_stun_step(_stun_question(act, i))


def _is_stun_step(step: Any) -> bool:
    return isinstance(step, WeaponStep) and step.kind == "stun"


def _stun_question(act: ActionLog, i: int) -> WeaponStep:
    """The step of our ``weapon`` question ``i`` (as the engine asked it)."""
    if i < len(act.mine_args) and act.mine_args[i][0] == "weapon":
        step = act.mine_args[i][1][1]
    else:
        step = codec.from_wire(act.mine.questions[i][2])
    assert isinstance(step, WeaponStep)
    return step


def _stun_value(step: WeaponStep) -> int:
    """Our choice in a Stunner line's transfer: the index of our first piece on its cells
    (their number: none)."""
    if len(step.cells) >= ot.STUN_LABELS.entries:
        raise ValueError("a Stunner line longer than its transfer's table")
    return step.limit


def _stun_step(q: list[Any]) -> WeaponStep:
    """The Stunner line of a ``stun_ot`` question (FogError if it is not one)."""
    step = codec.from_wire(q[2]) if len(q) == 4 else None
    if not isinstance(step, WeaponStep) or step.kind != "stun" or step.limit != 0 \
            or type(q[1]) is not int or type(q[3]) is not bytes \
            or len(q[3]) != ot.STUN_LABELS.query_size \
            or len(step.cells) >= ot.STUN_LABELS.entries:
        raise FogError("a Stunner question without its line, or naming a first piece "
                       "(R6.6.1: it goes by transfer)")
    return step


def _check_stun_line(act: ActionLog, q: list[Any]) -> None:
    """The peer's Stunner question must be about its action's Stunner line (R6.6.1: the
    Fire travels whole, so the line is public), and the only one of the action: a table
    about another line would tell the peer one bit of our pieces there."""
    step = _stun_step(q)
    form = act.form
    if not isinstance(form, Fire) or form.weapon is not ArticleKind.STUNNER \
            or form.dir is None or step.cells != flame_cells(
                form.frm, form.dir, act.start.options.stunner_range):
        raise FogError("a Stunner question about another line than the action's Fire "
                       "(R6.6.1)")
    if any(other[0] == "stun_ot" for other in act.theirs):
        raise FogError("a second Stunner question in one action (R6.6.1: one Fire)")


def _doze_question(q: list[Any]) -> DozeQuestion:
    question = codec.from_wire(q[1])
    if not isinstance(question, DozeQuestion) or question.asker_ground:
        raise FogError("a Doze judgement without its Doze, or with a Ground summary")
    return question


def _presence_query(game: FogGame, act: ActionLog, back: bool, i: int,
                    cells: Sequence[int]) -> list[Any]:
    """Our presence question ``i`` (``back``: asked back by our owner side) about the
    one cell our piece enters, as it goes on the wire."""
    if len(cells) != 1:
        raise ValueError("a presence transfer asks one cell")
    receiver = _presence_receiver(game, act, back, i)
    query = receiver.query(cells[0])
    game._presence_receivers = {(act.n, back, i): receiver}
    return ["presence_ot", query]


def _presence_receiver(game: FogGame, act: ActionLog, back: bool, i: int
                       ) -> ot.PresenceReceiver:
    """Our side of presence transfer ``i`` (deterministic: the run's id and our seeds)."""
    return ot.PresenceReceiver(game._ot_pairs, codec.presence_run_id(
        game.game_id, act.n, game.side, back, i))


def _presence_found(game: FogGame, act: ActionLog, back: bool, i: int, asked: list[Any],
                    reply: Any) -> frozenset[int]:
    """The answer of presence run ``i`` (R1.6): the asked cell if the peer's reply holds
    it (the peer never learns the cell; we learn only this bit)."""
    cells = codec.from_wire(asked[1])
    receiver = game._presence_receivers.get((act.n, back, i))
    if receiver is None:  # not kept (a restore): made again, the same
        receiver = _presence_receiver(game, act, back, i)
        receiver.query(cells[0])
    if not isinstance(reply, bytes):
        raise FogError("a presence reply is not bytes")
    try:
        held = receiver.finish(reply)
    except OtError as exc:
        raise FogError(f"the presence reply: {exc.reason}") from None
    return frozenset(cells) if held else frozenset()


def _implied_presence(act: ActionLog, rank: int, cells: tuple[int, ...]
                      ) -> frozenset[int] | None:
    """The answer of our owner side's presence question ``rank`` of ``act`` about
    ``cells`` without asking it back (since ``wec-fog/25``): our own resolution moves the
    same pieces of ours in the same order (a transit step, a landing, a risen piece:
    R1.6, R4.13, R8.4), so its presence question of the same rank asks the same cells
    of the same peer pieces, and the peer's answer to it is this one's. Waits until our
    resolution asked that question and got its answer, or asked other cells (None), or
    ended without it (None): then the question goes back as before. The peer's audit
    knows which are implied from both resolutions on the truth (net.audit)."""
    s = act.mine
    wire = ["presence", codec.to_wire(cells)]

    def ours() -> int | None:
        found = -1
        for i, q in enumerate(s.questions):
            if q[0] == "presence":
                found += 1
                if found == rank:
                    return i
        return None

    def decided() -> bool:
        i = ours()
        if i is None:
            return act.resolved is not None or act.outcome is not None
        return s.questions[i] != wire or i < len(s.answers)

    wait_until(decided)
    i = ours()
    if i is None or s.questions[i] != wire:
        return None
    answer = s.answers[i]
    assert isinstance(answer, frozenset)
    return answer


def _in_slices(current: Callable[[], bool], slices: Sequence[Callable[[], object]]
               ) -> Iterator[None]:
    """Run ``slices`` one per step, stopping as soon as the work is no longer
    ``current`` (a message took or replaced the run's object)."""
    for make in slices:
        if not current():
            return
        make()
        yield


def _asked(act: ActionLog, k: int) -> bool:
    """Whether the peer's question ``k`` has come."""
    return k < len(act.theirs)


def _may_doze(half: Position) -> bool:
    """The side to act may Doze next, as far as the other side sees (R8.8: a Dozer of
    its at Ground, before its Move of the turn): a Dozer it cannot see is not counted
    (its Doze is judged all the same, with the table made then)."""
    side = half.side_to_act
    return not half.actions.move and any(
        p.kind is PieceKind.DOZER and p.side is side and p.level is Level.GROUND
        for p in half.pieces)


def _hidden_doze_receiver(game: FogGame, n: int, i: int) -> ot.LabelReceiver:
    """Our side of the hidden squares' transfer of our question ``i`` of action ``n`` (a
    hidden Move's first-hit run or a Doze judgement; made again from our seed when the
    reply comes)."""
    return ot.LabelReceiver(game._ot_pairs, codec.hidden_doze_run_id(
        game.game_id, n, game.side, i), ot.HIDDEN_DOZE_LABELS)


def _hidden_labels(game: FogGame, n: int, i: int, values: Sequence[int], reply: bytes
                   ) -> list[bytes]:
    """The entries of the hidden squares' transfer of our question ``i`` at ``values``."""
    receiver = _hidden_doze_receiver(game, n, i)
    receiver.query(values)
    return receiver.finish(reply)


def _owner_pieces(conv: OwnerConversation) -> list[Piece]:
    """The owner's pieces as its conversation stands."""
    if conv._w is not None:
        return list(conv._w.pieces.values())
    return [p for p in conv.half.pieces if p.side is conv.side]


# ---------------------------------------------------------------- engine adapters


class _WireReferee:
    """The peer as engine.questions ``Referee`` for one run of our resolution."""

    def __init__(self, conv: _WireConversation) -> None:
        self.conv = conv

    def converse(self, intent: object, asker: Any) -> _WireConversation:
        self.conv.action.back_obj = asker
        return self.conv


class _WireConversation:
    """The peer's owner side as a ``Conversation``: answers from the script of the
    action so far, or sends the next question and waits for its answer."""

    def __init__(self, game: FogGame, act: ActionLog) -> None:
        self.game, self.action = game, act
        self.i = 0

    def _call(self, name: str, *args: Any) -> Any:
        s = self.action.mine
        i = self.i
        self.i += 1
        asked = self.action.mine_args
        if i < len(s.questions):
            # the question asked again by a re-execution: the same call (compared as the
            # engine made it; through the codec only when that differs)
            if (i >= len(asked) or asked[i] != (name, args)) and i not in self.action.psi \
                    and s.questions[i] != [name, *codec.to_wire(args)]:
                raise AssertionError(f"resolution not deterministic at question {i}: {name}")
            wait_until(lambda: i < len(s.answers))
            return s.answers[i]
        wire = [name, *codec.to_wire(args)]
        s.questions.append(wire)
        asked.append((name, args))
        if name == "new_turn" and i == 0 and opens_with_new_turn(self.action.form):
            # known to both sides (engine.half_resolution ``opens_with_new_turn``): never
            # sent; the peer's own is recorded with its intent or ours (``_implied_notices``)
            if [wire] != _implied_notices(self.action):
                raise AssertionError("resolution not as opens_with_new_turn says at "
                                     "question 0")
            s.answers.append(None)
            s.proof.append(-1)
            return None
        effects = _implied_effects(s.questions, s.answers, i) \
            if name == "collision_effects" else None
        if effects is not None:
            # known to the peer once it answered our collide (engine.half_resolution
            # ``collision_effects_asked``): never sent, the peer answers it unasked
            if wire != effects:
                raise AssertionError(f"resolution not as collision_effects_asked says at "
                                     f"question {i}")
            wait_until(lambda: i < len(s.answers))
            return s.answers[i]
        if name == "collide" and self.action.collide_implied:
            # known to both sides (engine.half_resolution ``collide_implied``): never
            # sent, its answer comes unasked; the peer's own first collide is the same
            # question, which our owner side answers unasked
            self.action.collide_implied = False
            self.game._their_implied(self.action, wire)
            wait_until(lambda: i < len(s.answers))
            return s.answers[i]
        if name == "collide" and _later_collide_implied(self.action, s.questions):
            # a later collide of an End's settling (engine.half_resolution
            # ``next_settle_collide``): never sent, the peer answers it unasked once it
            # knows both sides' answers to the one before
            _same_collides(self.action, len(_collides(s.questions)) - 1)
            wait_until(lambda: i < len(s.answers))
            return s.answers[i]
        if name == "collide" and i == 1 and self.action.actor is not self.game.side \
                and _collide_after_first_implied(self.action, s.questions, s.answers):
            # the collide right after a Move's act("move") or a Doze's doze question
            # (engine.half_resolution ``move_collide_follows``, ``doze_collide_follows``):
            # never sent, the acting side answers it unasked
            if wire != _collide_after_first_question(self.action):
                raise AssertionError("resolution not as move_collide_follows or "
                                     "doze_collide_follows says at question 1")
            wait_until(lambda: i < len(s.answers))
            return s.answers[i]
        send = wire
        table: list[bytes] | None = None  # a detect's tables for the queries sent ahead
        ours_hidden = self.action.hidden and self.action.actor is self.game.side
        hidden_doze = name == "doze" and ours_hidden
        if (name == "first_hit" and ours_hidden) or hidden_doze:
            # a hidden mover's route: a first-hit PSI run, the route never sent, and a
            # Doze transfer with it. A hidden Dozer's Doze is the same
            # pair (net.doze_judge): the run asks the Dozer's own cell (no piece of the
            # peer's can stand there, R1.6), the transfer its destinations
            if hidden_doze:
                doze = args[0]
                cells: tuple[int, ...] = (doze.sq * 3 + GROUND,)
                values = hidden_values(Doze(doze.sq, doze.squares, doze.dir))
            else:
                cells, values = tuple(args[1]), NO_DOZE
            made = self.game._take_prepared("asker", self.action.n, i)  # made ahead, perhaps
            assert isinstance(made, FirstHitAsker)
            asker, secret = made, made.secret
            query = asker.query(cells).to_bytes(codec.FIRST_HIT_SHAPE)
            self.action.psi[i] = [cells, secret, query, b""]
            self.action.route_askers[i] = asker  # kept for its reply
            send = ["first_hit_psi", 0 if hidden_doze else args[0], query,
                    _hidden_doze_receiver(self.game, self.action.n, i).query(values)]
        elif name == "presence":
            # the cell our piece enters never leaves: the owner answers by oblivious
            # transfer
            send = _presence_query(self.game, self.action, False, i, args[0])
        elif name == "weapon" and args[1].kind == "stun":
            # where our first piece on the Stunner's line stands never leaves either: the
            # owner's table of "does the Stunner hit a first piece of the asker's there"
            # is read by label transfer at ours (R6.6.1; since wec-fog/14)
            step = args[1]
            send = ["stun_ot", args[0], codec.to_wire(replace(step, limit=0)),
                    _stun_receiver(self.game, self.action.n, i).query([_stun_value(step)])]
        elif name == "detect":
            # what we see of the peer's pieces is evaluated privately (net.private_sight):
            # the question names our acquiring holders' squares alone (public, R9.4(a)),
            # none in our Exchange the peer does not see (their distances go masked with
            # our tables), and carries our masked tables for the peer's queries sent
            # ahead (else it asks them back)
            hidden = _holders_hidden(self.action, self.game.side)
            send = ["detect", codec.to_wire(ps.question_sight(args[0], hidden))]
            if self.game._ahead_due(self.action, i):  # they come apart, at once
                wait_until(partial(_ahead_came, self.action, i))
            table = self.game._reach_table(self.action, i, args[0])
        elif name == "doze" and self.action.actor is self.game.side:
            # our Ground summary never leaves: the owner's table judges it privately
            # as its public form: the squares of ours the peer does not see are asked
            # apart, by the transfer of hidden squares (net.doze_judge)
            q = args[0]
            truth, public = _doze_public(self.action, q)
            send = ["doze_ot", codec.to_wire(public),
                    _doze_receiver(self.game, self.action.n, i).query(
                        asker_values(public, q.asker_ground, truth)),
                    _hidden_doze_receiver(self.game, self.action.n, i).query(
                        hidden_values(truth, Doze(public.sq, public.squares, public.dir)))]
        elif name == "doze" and self.action.actor is not self.game.side:
            # the acting side judged its own Doze: our Ground summary is not needed
            q = args[0]
            send = ["doze", codec.to_wire(replace(q, asker_ground=()))]
        self.game._send("ask", {"n": self.action.n, "i": i, "q": send,
                                **({} if table is None else {"reach": table})})
        if name in _NOTICES:
            s.answers.append(None)
            s.proof.append(-1)
            return None
        wait_until(lambda: i < len(s.answers))
        return s.answers[i]

    def first_hit(self, op: int, cells: Sequence[int]) -> Any:
        return self._call("first_hit", op, tuple(cells))

    def presence(self, cells: Sequence[int]) -> Any:
        return self._call("presence", tuple(cells))

    def detect(self, sight: Any) -> Any:
        return self._call("detect", sight)

    def weapon(self, op: int, step: Any) -> Any:
        return self._call("weapon", op, step)

    def collide(self, op: int, projectiles: Sequence[Any]) -> Any:
        return self._call("collide", op, tuple(projectiles))

    def collision_effects(self, op: int, slot: int, cell: int) -> None:
        self._call("collision_effects", op, slot, cell)

    def homing(self, queries: Sequence[Any]) -> Any:
        return self._call("homing", tuple(queries))

    def doze(self, question: Any) -> Any:
        return self._call("doze", question)

    def transport_phase(self, op: int, projectiles: Sequence[Any]) -> None:
        self._call("transport_phase", op, tuple(projectiles))

    def act(self, need: str) -> Any:
        return self._call("act", need)

    def new_turn(self, turn: int) -> None:
        self._call("new_turn", turn)

    def receive(self, pieces: Sequence[Any], hits: Sequence[Any] = ()) -> None:
        self._call("receive", tuple(pieces), tuple(hits))


class _WireAsker:
    """The peer's resolution as the ``Asker`` of our owner side: ``presence`` goes over
    the wire (``back``); the acting side's own route and Doze come from our resolution
    of the same intent (no question needed: it asked them already)."""

    def __init__(self, game: FogGame, act: ActionLog) -> None:
        self.game, self.act = game, act
        self.j = 0
        self.presences = 0  # presence questions of ours so far, implied ones too

    @property
    def side(self) -> Side:
        return self.game.side.other

    def presence(self, cells: Sequence[int]) -> frozenset[int]:
        """R1.6 for our piece entering ``cells``: implied by our own resolution's
        question of the same rank when it asked the same (``_implied_presence``), else
        asked back."""
        implied = self.game._implied_presence(self.act, self.presences, tuple(cells))
        self.presences += 1
        if implied is not None:
            return implied
        s = self.act.backs
        while self.j < len(s.questions) and s.questions[self.j][0] == "sight":
            self.j += 1  # detection runs are kept by their detect question
        j = self.j
        self.j += 1
        wire = ["presence", codec.to_wire(tuple(cells))]
        if j < len(s.questions):
            if s.questions[j] != wire:
                raise AssertionError("owner side not deterministic")
        else:
            s.questions.append(wire)
            self.game._send("back", {"n": self.act.n, "j": j,
                                     "q": _presence_query(self.game, self.act, True, j,
                                                          tuple(cells))})
        wait_until(lambda: j < len(s.answers))
        answer = s.answers[j]
        if not isinstance(answer, frozenset):
            raise FogError("a presence answer is not a set of cells")
        return answer

    def sight(self, k: int, parts: DetectionParts
              ) -> tuple[ps.OwnerRun, list[bytes], int]:
        """Our detection run for the peer's detect question ``k`` about the slots of our
        ``parts`` (net.private_sight), the peer's tables for it and the run's number: the
        queries sent ahead when its question brought the tables, else asked back now
        (``back`` ``reach``; the run garbles ``parts`` in the idle time until its tables
        come, since session 38: on the path before). One run per detect question: kept
        by question number, so replays reuse it."""
        slots = parts.slots
        s = self.act.backs
        game, n = self.game, self.act.n
        for j, q in enumerate(s.questions):
            if q[0] == "sight" and q[3] == k:
                tables = self._back_answer(j)
                run = game._owner_runs_back.get((n, q[4]))
                if run is None or run.slots != tuple(slots):  # made again (the same seeds)
                    run = game._sight_owner(n, q[4], slots)
                    run.queries()
                return run, tables, q[4]  # type: ignore[return-value]
        if k in self.act.pre_tables:  # the tables came with the question
            return game._finish_ahead(self.act, k, slots)
        j = len(s.questions)
        run = game._sight_owner(n, j, slots)
        queries = list(run.queries())
        run.peek = lambda: parts  # known already
        game._owner_runs_back = {(n, j): run}
        s.questions.append(["sight", [slot.sq for slot in slots], queries, k, j])
        game._send("back", {"n": n, "j": j, "q": ["reach", *queries]})
        return run, self._back_answer(j), j  # type: ignore[return-value]

    def _back_answer(self, j: int) -> tuple[int, int]:
        s = self.act.backs
        wait_until(lambda: j < len(s.answers))
        return s.answers[j]  # type: ignore[no-any-return]

    def first_hit(self, cells: Sequence[int]) -> FirstHit | None:
        """Our own route's first hit: the answer our resolution got (waited for)."""
        s = self.act.mine
        found: list[FirstHit | None] = []

        def answered() -> bool:
            for q, a in zip(s.questions, s.answers, strict=False):
                if q[0] == "first_hit" and tuple(q[2]) == tuple(cells):
                    found.append(a)
                    return True
            return False

        wait_until(answered)
        return found[0]

    def ground(self, squares: Sequence[int]) -> Summary:
        raise AssertionError("the acting side's Doze is judged by its own resolution")


class _ActorConversation(OwnerConversation):
    """The acting side's owner conversation: its own Doze's verdict is the one its
    resolution got (the peer judged it on the truth), never asked again."""

    def __init__(self, half: Position, intent: object, asker: Any, game: FogGame,
                 act: ActionLog) -> None:
        self._game, self._act = game, act
        super().__init__(half, intent, asker)

    def _judge_doze(self, intent: Doze, own: Summary) -> bool:
        s = self._act.mine
        verdicts: list[bool] = []

        def answered() -> bool:
            verdicts.extend(bool(a) for q, a in zip(s.questions, s.answers, strict=False)
                            if q[0] == "doze")
            return bool(verdicts)

        wait_until(answered)
        return verdicts[0]


__all__ = ["Applied", "AuditVerdict", "EndTurn", "Fault", "FogError", "FogGame",
           "FogMessage", "FogStep", "OwnLimit", "Refused", "TurnHash", "opening_size"]
