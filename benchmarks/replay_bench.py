"""Replay benchmark (issue 7 item 3): opening and seeking a generated 1,000-turn game.

``wec bench replay [--seconds S]`` calls :func:`run`. The game is a random game from
the standard start with every action kind, kept going for ``turns`` turns (about 4,700
steps for 1,000 turns): each turn tries up to 3 other actions (Fire while the board is
busy, Pick-up, Drop, Exchange, Reinforce), then the Move or Doze, then ends. An action
whose outcome would end the game (R12) or leave fewer than ``MIN_PIECES`` pieces is
drawn again, and a turn whose end of turn would end it is played again from its start
(or the turn before). Generating takes some 20 s, so the save is cached in the
temporary folder under a name made of the generator version, the game's size and seed
and a digest of the engine's sources (a changed engine makes a new game).

Figures, all measured in this run:

(a) open: ``Replay.open`` of the save's bytes, median and worst of the repeats;
(b) seek: ``position(i)`` for random targets on a fresh replay each time (nothing
    cached but what the seek itself computes), median and worst;
(c) step back: from each of random targets, ``position(i - 1)`` after ``position(i)``,
    median and worst, each compared with the state hash recorded for ``i - 1`` and
    with the hash of the same index reached by a full replay from the start (exact);
(d) yardstick: decoding one snapshot (decompress, read the position, hash it), the
    smallest unit of work of a seek; and, when python-chess is installed, parsing one
    PGN of a 100-move random chess game;
(e) full verify in the background process: the replay viewer's integrity check (issue
    7 item 4, client.verification) from starting the worker process (spawn) until its
    verdict, the game replayed from the start; ``Replay.verify`` in-process costs
    about the same CPU, but the viewer used to run it a few ms per frame.

Goals: open <= 500 ms, seek worst <= 50 ms, every step back exact.
"""

from __future__ import annotations

import hashlib
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from wec.client.verification import BackgroundVerification
from wec.engine import game, standard_position
from wec.engine.article_actions import legal_article_intents
from wec.engine.dozing import legal_dozes
from wec.engine.encoding import state_hash
from wec.engine.fire import legal_fires
from wec.engine.game import apply
from wec.engine.intents import EndTurn, Intent
from wec.engine.match import Match
from wec.engine.movement import all_legal_plans, move_of
from wec.engine.playout import MAX_EXTRA_ACTIONS
from wec.engine.position import Position
from wec.engine.reinforcement import legal_reinforcements
from wec.engine.replay import Replay
from wec.engine.savegame import decode_snapshot, encode_save, expand_snapshot, read_content

GENERATOR_VERSION = 1
TURNS = 1000
SEED = 20260101
OPEN_GOAL_MS = 500.0
SEEK_GOAL_MS = 50.0
EXTRA_ACTION_CHANCE = 0.9  # how often a turn tries each of its 3 other-action slots
# An action that would leave fewer pieces is drawn again: a board that stays busy keeps
# the game going (few pieces soon leave a King nowhere safe) and its positions heavy.
MIN_PIECES = 40
# Below this many pieces nobody fires any more: projectiles and transports already on
# their way resolve in later turns, out of reach of the redraws.
CEASEFIRE_PIECES = 56
REDRAWS = 12  # tries to find an action that does not end the game
TURN_RETRIES = 8  # tries to play a turn whose end of turn does not end the game
MAX_BACKTRACKS = 200  # turns played again, in all, when a turn cannot be kept going


# ---------------------------------------------------------------- generating

def generate_match(turns: int = TURNS, seed: int = SEED) -> Match:
    """A random game of ``turns`` turns from the standard start (see the module
    docstring); deterministic for a given seed. When no retry of a turn keeps the game
    going (a projectile already on its way to a King), the turn before is played again,
    and so on back; the game ends early only if ``MAX_BACKTRACKS`` run out."""
    rng = random.Random(seed)
    played = [Match.begin(standard_position())]  # the match at the start of each turn
    last_turn = played[0].current.turn + turns
    backtracks = 0
    while played[-1].current.turn < last_turn:
        after = _play_turn_keeping_game(played[-1], rng)
        if after.current.result is None:
            played.append(after)
        elif backtracks < MAX_BACKTRACKS and len(played) > 1:
            backtracks += 1
            played.pop()
        else:
            return after
    return played[-1]


def _play_turn_keeping_game(match: Match, rng: random.Random) -> Match:
    """One random turn that does not end the game, if some try finds one."""
    played = match
    for _ in range(TURN_RETRIES):
        played = _random_turn(match, rng)
        if played.current.result is None:
            return played
    return played


def _random_turn(match: Match, rng: random.Random) -> Match:
    """Up to 3 other actions (each slot mostly taken when one is legal), the Move, the
    end of turn: about five steps a turn, a heavy game to replay."""
    for _ in range(MAX_EXTRA_ACTIONS):
        if rng.random() < EXTRA_ACTION_CHANCE:
            intent = _lasting(match.current, rng, _other_intents)
            if intent is not None:
                match = match.play(intent)
    intent = _lasting(match.current, rng, _move_intents)
    if intent is not None:
        match = match.play(intent)
    if match.current.result is None:
        match = match.play(EndTurn())
    return match


def _other_intents(position: Position, rng: random.Random) -> list[Intent]:
    """The legal intents of one random kind among Fire (while ``CEASEFIRE_PIECES``
    pieces are left), Pick-up, Drop, Exchange and Reinforce that has any."""
    kinds: list[Callable[[], list[Intent]]] = [lambda: list(legal_article_intents(position)),
                                               lambda: list(legal_reinforcements(position))]
    if len(position.pieces) >= CEASEFIRE_PIECES:
        kinds.append(lambda: list(legal_fires(position)))
    rng.shuffle(kinds)
    for listed in kinds:
        found = listed()
        if found:
            return found
    return []


def _move_intents(position: Position, rng: random.Random) -> list[Intent]:
    moves: list[Intent] = [move_of(position, plan) for plan in all_legal_plans(position)]
    return moves + list(legal_dozes(position))


def _lasting(position: Position, rng: random.Random,
             listed: Callable[[Position, random.Random], list[Intent]]) -> Intent | None:
    """A random intent of ``listed`` whose outcome does not end the game (R12) nor
    bring the board under ``MIN_PIECES`` pieces, or the last one drawn when none of a
    few does."""
    intents = listed(position, rng)
    chosen: Intent | None = None
    floor = min(len(position.pieces), MIN_PIECES)
    for _ in range(min(REDRAWS, len(intents))):
        chosen = rng.choice(intents)
        after = apply(position, chosen).position
        if after.result is None and len(after.pieces) >= floor:
            return chosen
    return chosen


def cached_save(turns: int = TURNS, seed: int = SEED,
                folder: Path | None = None) -> tuple[bytes, float]:
    """The generated game's save bytes (from the cache when it holds them) and the
    seconds spent generating (0 when cached)."""
    folder = folder or Path(tempfile.gettempdir()) / "wec-bench-replay"
    path = folder / f"game-g{GENERATOR_VERSION}-t{turns}-s{seed}-{_engine_digest()}.wecsave"
    if path.exists():
        data = path.read_bytes()
        try:
            read_content(data)
            return data, 0.0
        except Exception:  # a damaged or outdated cache entry is made again
            pass
    started = time.perf_counter()
    data = encode_save(generate_match(turns, seed))
    elapsed = time.perf_counter() - started
    folder.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".tmp")
    temporary.write_bytes(data)
    temporary.replace(path)
    return data, elapsed


def _engine_digest() -> str:
    """A digest of the engine's sources: the cached game is valid for this engine only."""
    digest = hashlib.sha256()
    for source in sorted(Path(game.__file__).parent.glob("*.py")):
        digest.update(source.name.encode())
        digest.update(source.read_bytes())
    return digest.hexdigest()[:16]


# ---------------------------------------------------------------- measuring

def _ms(seconds: float) -> float:
    return seconds * 1000.0


def _timed(call: Any) -> tuple[float, Any]:
    started = time.perf_counter()
    value = call()
    return time.perf_counter() - started, value


def measure_open(data: bytes, seconds: float) -> list[float]:
    """Seconds per ``Replay.open``, repeated for about ``seconds`` (at least 3 times)."""
    times: list[float] = []
    deadline = time.perf_counter() + seconds
    while len(times) < 3 or time.perf_counter() < deadline:
        times.append(_timed(lambda: Replay.open(data))[0])
    return times


def measure_seeks(data: bytes, targets: list[int]) -> list[float]:
    """Seconds per seek to each target, each on a freshly opened replay."""
    times = []
    for target in targets:
        replay = Replay.open(data)
        times.append(_timed(lambda replay=replay, target=target: replay.position(target))[0])
    return times


def measure_steps_back(data: bytes, targets: list[int],
                       truth: dict[int, str]) -> tuple[list[float], int]:
    """Seconds per step back after a seek, and how many steps back were exact: the
    position's hash equals both the recorded one and the full replay's."""
    times, exact = [], 0
    for target in targets:
        replay = Replay.open(data)
        replay.position(target)
        elapsed, position = _timed(lambda replay=replay, target=target:
                                   replay.position(target - 1))
        times.append(elapsed)
        if state_hash(position) == replay.state_hash(target - 1) == truth[target - 1]:
            exact += 1
    return times, exact


def full_replay_hashes(data: bytes, wanted: set[int]) -> dict[int, str]:
    """The state hash at each wanted index, from a full replay from the start (the
    replay's own verification, which never uses a snapshot)."""
    replay = Replay.open(data)
    hashes = {}
    verification = replay.verify(0)
    for index in sorted(wanted):
        verification = replay.verify(index - verification.checked)
        if verification.error is not None:
            raise verification.error
        hashes[index] = state_hash(replay.position(index))
    return hashes


def measure_background_verify(data: bytes, length: int) -> float:
    """Seconds from starting the viewer's verifying process on the save to its verdict
    (all ``length`` steps verified; anything else is an error of the benchmark)."""
    started = time.perf_counter()
    worker = BackgroundVerification(data, length)
    try:
        found = worker.wait(600.0)
    finally:
        worker.cancel()
    elapsed = time.perf_counter() - started
    if worker.failure is not None or found.error is not None or found.checked != length:
        raise RuntimeError(f"background verification: {worker.failure or found.error or found}")
    return elapsed


def snapshot_yardstick(data: bytes, seconds: float) -> list[float]:
    """Seconds to decode one snapshot and hash it (the smallest unit of a seek)."""
    content = read_content(data)
    blobs = list(content.snapshots.values())
    times: list[float] = []
    deadline = time.perf_counter() + seconds
    index = 0
    while len(times) < 5 or time.perf_counter() < deadline:
        blob = blobs[index % len(blobs)]
        index += 1
        times.append(_timed(lambda blob=blob: state_hash(
            decode_snapshot(expand_snapshot(blob, "yardstick"), "yardstick")))[0])
    return times


def chess_yardstick(seconds: float, seed: int) -> list[float] | None:
    """Seconds to parse one PGN of a 100-move random chess game, or None without
    python-chess."""
    try:
        import chess
        import chess.pgn
    except ImportError:
        return None
    import io

    rng = random.Random(seed)
    board = chess.Board()
    while board.fullmove_number <= 100 and not board.is_game_over():
        board.push(rng.choice(list(board.legal_moves)))
    text = str(chess.pgn.Game.from_board(board))
    times: list[float] = []
    deadline = time.perf_counter() + seconds
    while len(times) < 5 or time.perf_counter() < deadline:
        times.append(_timed(lambda: chess.pgn.read_game(io.StringIO(text)))[0])
    return times


def run(seconds: float, out: TextIO, turns: int = TURNS, seed: int = SEED,
        cache: Path | None = None) -> dict[str, Any]:
    """Generate (or load) the game, measure (a)-(d), print a table to ``out`` and
    return the figures."""
    data, generated_s = cached_save(turns, seed, cache)
    replay = Replay.open(data)
    rng = random.Random(seed)
    length = replay.length
    count = max(8, min(60, int(seconds * 15)))
    seek_targets = sorted(rng.randrange(1, length + 1) for _ in range(count))
    back_targets = sorted(rng.randrange(1, length + 1) for _ in range(max(4, count // 2)))
    opens = measure_open(data, seconds / 4)
    seeks = measure_seeks(data, seek_targets)
    truth = full_replay_hashes(data, {t - 1 for t in back_targets})
    backs, exact = measure_steps_back(data, back_targets, truth)
    background = measure_background_verify(data, length)
    snapshot = snapshot_yardstick(data, seconds / 8)
    pgn = chess_yardstick(seconds / 8, seed)
    figures: dict[str, Any] = {
        "seconds": seconds, "seed": seed, "turns": turns,
        "game_turns": len(replay.turn_starts), "steps": length, "save_bytes": len(data),
        "snapshots": len(read_content(data).snapshots), "generated_s": generated_s,
        "open_ms": _ms(statistics.median(opens)), "open_worst_ms": _ms(max(opens)),
        "opens": len(opens),
        "seek_ms": _ms(statistics.median(seeks)), "seek_worst_ms": _ms(max(seeks)),
        "seeks": len(seeks),
        "back_ms": _ms(statistics.median(backs)), "back_worst_ms": _ms(max(backs)),
        "steps_back": len(backs), "steps_back_exact": exact,
        "background_verify_ms": _ms(background),
        "snapshot_ms": _ms(statistics.median(snapshot)),
        "pgn_ms": _ms(statistics.median(pgn)) if pgn else None,
    }
    figures["open_pass"] = figures["open_worst_ms"] <= OPEN_GOAL_MS
    figures["seek_pass"] = figures["seek_worst_ms"] <= SEEK_GOAL_MS
    figures["back_pass"] = exact == len(backs)
    figures["seek_per_snapshot"] = figures["seek_ms"] / figures["snapshot_ms"]
    figures["open_per_snapshot"] = figures["open_ms"] / figures["snapshot_ms"]
    if figures["pgn_ms"]:
        figures["open_per_pgn"] = figures["open_ms"] / figures["pgn_ms"]
        figures["seek_per_pgn"] = figures["seek_ms"] / figures["pgn_ms"]
    _report(figures, out)
    return figures


def _verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def _report(f: dict[str, Any], out: TextIO) -> None:
    made = f"generated in {f['generated_s']:.1f} s" if f["generated_s"] else "cached"
    print(f"wec replay benchmark: {f['game_turns']} turns, {f['steps']} steps, "
          f"{f['save_bytes'] / 1e6:.2f} MB save with {f['snapshots']} snapshots ({made}); "
          f"{f['seconds']:g} s budget, seed {f['seed']}", file=out)
    print(f"  open       median {f['open_ms']:8.1f} ms  worst {f['open_worst_ms']:8.1f} ms"
          f"  ({f['opens']} opens)      goal <= {OPEN_GOAL_MS:.0f} ms   "
          f"{_verdict(f['open_pass'])}", file=out)
    print(f"  seek       median {f['seek_ms']:8.1f} ms  worst {f['seek_worst_ms']:8.1f} ms"
          f"  ({f['seeks']} targets)    goal <= {SEEK_GOAL_MS:.0f} ms    "
          f"{_verdict(f['seek_pass'])}", file=out)
    print(f"  step back  median {f['back_ms']:8.1f} ms  worst {f['back_worst_ms']:8.1f} ms"
          f"  {f['steps_back_exact']}/{f['steps_back']} exact (hash = recorded = full "
          f"replay)   {_verdict(f['back_pass'])}", file=out)
    print(f"  full verify in the background process  {f['background_verify_ms']:8.1f} ms"
          f"  (start to verdict, {f['steps']} steps)", file=out)
    print("yardsticks:", file=out)
    print(f"  decode + hash one snapshot     {f['snapshot_ms']:8.2f} ms", file=out)
    if f["pgn_ms"]:
        print(f"  python-chess: parse 100-move PGN {f['pgn_ms']:6.2f} ms", file=out)
    print("ratios:", file=out)
    print(f"  open / snapshot decode         = {f['open_per_snapshot']:7.1f}x", file=out)
    print(f"  seek / snapshot decode         = {f['seek_per_snapshot']:7.1f}x", file=out)
    if f["pgn_ms"]:
        print(f"  open / chess PGN parse         = {f['open_per_pgn']:7.1f}x", file=out)
        print(f"  seek / chess PGN parse         = {f['seek_per_pgn']:7.1f}x", file=out)
