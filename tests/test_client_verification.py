"""The replay's full integrity check in a worker process (issue 7 item 4,
client/verification.py): the worker replays a real generated game from its start and
reports the same verdict as ``Replay.verify`` in the viewer's own process, the first
bad step of an altered file included; it ends when cancelled or when the viewer stops
listening; and the 3D viewer, driven offscreen, shows "All N steps verified" in a
fraction of the wall time its per-frame slices took."""

from __future__ import annotations

import hashlib
import signal
import time
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgpack  # type: ignore[import-untyped]
import pytest

from wec.benchmarks.replay_bench import generate_match
from wec.client.app import WecApp
from wec.client.replay import ReplayScreen, integrity_text
from wec.client.settings import Settings
from wec.client.verification import PROGRESS, BackgroundVerification, verify_in_worker
from wec.engine.match import Match
from wec.engine.replay import Replay, Verification
from wec.engine.savegame import SNAPSHOT_INTERVAL, encode_save

ALTERED = "the file was altered or made by a different engine version"
STOP_SECONDS = 3.0  # a cancelled worker is gone within this
NOTICE_SECONDS = 1.5
"""An abandoned worker notices at its next report (every 0.1 s) and ends; checking the
rest of the game would take it longer."""


# ---------------------------------------------------------------- games and files


@pytest.fixture(scope="module")
def game() -> Match:
    """A random game of 200 turns with every action kind (about 900 steps): long enough
    that its full check takes the worker a few seconds, its start a small part."""
    return generate_match(turns=200, seed=3)


@pytest.fixture(scope="module")
def saved(game: Match) -> bytes:
    return encode_save(game)


def open_body(data: bytes) -> dict[str, Any]:
    return msgpack.unpackb(msgpack.unpackb(data, raw=False)[2], raw=False)


def seal(body: dict[str, Any]) -> bytes:
    """A version 2 save around ``body`` with a fresh checksum: the file still opens,
    only recomputing the game from its start shows what was altered."""
    packed = msgpack.packb(body, use_bin_type=True)
    return msgpack.packb(["wec-save", 2, packed, hashlib.sha256(packed).digest()],
                         use_bin_type=True)


def with_hash_flipped(data: bytes, step: int) -> bytes:
    body = open_body(data)
    body["steps"][step - 1]["hash"] = "0" * 64
    return seal(body)


def with_snapshot_renumbered(data: bytes, step: int) -> bytes:
    """The snapshot of ``step`` with other piece identifiers: the same state hash, so
    only the byte-for-byte comparison of the full check finds it."""
    body = open_body(data)
    at = next(i for i, (number, _) in enumerate(body["snapshots"]) if number == step)
    content = msgpack.unpackb(zlib.decompress(body["snapshots"][at][1]), raw=False)
    content["ids"]["pids"] = [pid + 1000 for pid in content["ids"]["pids"]]
    content["ids"]["next_pid"] += 1000
    body["snapshots"][at][1] = zlib.compress(msgpack.packb(content, use_bin_type=True))
    return seal(body)


def verified_in_process(data: bytes) -> Verification:
    replay = Replay.open(data)
    found = replay.verify(0)
    while not found.done:
        found = replay.verify(64)
    return found


def verdict(data: bytes, total: int) -> tuple[Verification, str | None]:
    worker = BackgroundVerification(data, total)
    try:
        found = worker.wait(120.0)
        assert worker.finished, f"no verdict after 120 s: {found}"
        return found, worker.failure
    finally:
        worker.cancel()


# ---------------------------------------------------------------- the worker


def test_the_worker_verifies_every_step_of_a_real_game(game: Match, saved: bytes) -> None:
    total = len(game.actions)
    assert total == Replay.open(saved).length > 800
    worker = BackgroundVerification(saved, total)
    progress = [worker.poll().checked]
    deadline = time.monotonic() + 120.0
    while not worker.finished and time.monotonic() < deadline:
        time.sleep(0.01)
        progress.append(worker.poll().checked)
    assert worker.failure is None
    assert worker.latest == Verification(total, total, None)
    assert integrity_text(worker.latest, total) == f"All {total} steps verified"
    assert progress == sorted(progress), "progress only goes forward"
    assert progress[0] == 0 and progress[-1] == total
    assert any(0 < checked < total for checked in progress), "progress shown on the way"
    worker.process.join(STOP_SECONDS)
    assert worker.process.exitcode == 0  # done: it ended by itself
    worker.cancel()


def test_a_flipped_hash_is_reported_at_the_first_bad_step_as_in_process(
        game: Match, saved: bytes) -> None:
    step = next(n for n in range(40, len(game.actions))
                if n % SNAPSHOT_INTERVAL not in (0, SNAPSHOT_INTERVAL - 1))
    turn = game.actions[step - 1].turn
    altered = with_hash_flipped(saved, step)
    expected = verified_in_process(altered)
    found, failure = verdict(altered, len(game.actions))
    assert failure is None and found.error is not None and expected.error is not None
    assert (found.checked, found.error.step, found.error.turn, str(found.error)) == (
        expected.checked, expected.error.step, expected.error.turn, str(expected.error))
    assert (found.checked, found.error.step, found.error.turn) == (step - 1, step, turn)
    assert str(found.error) == f"step {step} (turn {turn}): state hash differs: {ALTERED}"
    assert integrity_text(found, len(game.actions)) == (
        f"Step {step} (turn {turn}) fails the integrity check")


def test_a_renumbered_snapshot_is_reported_at_its_step_as_in_process(
        game: Match, saved: bytes) -> None:
    turn = game.actions[23].turn
    altered = with_snapshot_renumbered(saved, 24)
    expected = verified_in_process(altered)
    found, failure = verdict(altered, len(game.actions))
    assert failure is None and found.error is not None and expected.error is not None
    assert (found.checked, found.error.step, str(found.error)) == (
        expected.checked, expected.error.step, str(expected.error))
    assert (found.checked, found.error.step, found.error.turn) == (23, 24, turn)
    assert str(found.error) == (f"step 24 (turn {turn}): snapshot differs from the "
                                f"replayed position: {ALTERED}")


def test_a_file_the_worker_cannot_open_is_no_verdict() -> None:
    """Not a judgement on the game: the viewer then checks in its own frames."""
    found, failure = verdict(b"not a save", 5)
    assert found == Verification(0, 5, None)
    assert failure is not None
    assert failure.startswith("cannot open the save: SaveError: not a wec saved game")


def started(worker: BackgroundVerification) -> Verification:
    """The worker's first report with steps checked and some left."""
    deadline = time.monotonic() + 60.0
    while time.monotonic() < deadline:
        found = worker.poll()
        if found.checked > 0 or worker.finished:
            return found
        time.sleep(0.01)
    raise AssertionError("the worker reported nothing for 60 s")


def test_cancel_ends_the_worker_at_once(game: Match, saved: bytes) -> None:
    worker = BackgroundVerification(saved, len(game.actions))
    found = started(worker)
    assert 0 < found.checked < found.total and worker.process.is_alive()
    asked = time.monotonic()
    worker.cancel()
    assert not worker.process.is_alive()
    assert time.monotonic() - asked < STOP_SECONDS
    assert worker.process.exitcode == -signal.SIGTERM  # stopped, not finished
    assert worker.poll() == found  # nothing more arrives
    worker.cancel()  # twice is harmless


def test_the_worker_stops_when_the_viewer_stops_listening(saved: bytes) -> None:
    """The viewer's end of the report pipe closes (the viewer crashed or forgot to
    cancel): the worker's next report fails and it returns on its own, exit code 0."""
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    source, feed = context.Pipe(duplex=False)
    reader, writer = context.Pipe(duplex=False)
    process = context.Process(target=verify_in_worker, args=(source, writer), daemon=True)
    process.start()
    source.close()
    writer.close()
    try:
        feed.send_bytes(saved)
        feed.close()
        assert reader.poll(60.0)
        kind, checked, total = reader.recv()
        assert kind == PROGRESS and checked < total
        reader.close()
        process.join(NOTICE_SECONDS)
        assert process.exitcode == 0
    finally:
        if process.is_alive():
            process.kill()
            process.join()


def viewer_that_dies(data: bytes, total: int, told: Any) -> None:
    """A viewer process: starts the check, says its worker's pid once the worker has
    reported, then waits to be killed."""
    worker = BackgroundVerification(data, total)
    while worker.poll().checked == 0 and not worker.finished:
        time.sleep(0.01)
    told.send(worker.process.pid)
    time.sleep(600)


def running(pid: int) -> bool:
    """The process exists and is not a zombie (a dead process nobody reaped yet)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_the_worker_ends_when_the_viewer_process_is_killed(game: Match,
                                                           saved: bytes) -> None:
    """The viewer killed outright (no cancel, no exit handlers): the worker, in its own
    session, finds its pipe closed at its next report and ends."""
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    told, tell = context.Pipe(duplex=False)
    viewer = context.Process(target=viewer_that_dies, args=(saved, len(game.actions), tell))
    viewer.start()
    tell.close()
    try:
        assert told.poll(60.0), "the viewer process never started its worker"
        worker_pid = told.recv()
        assert running(worker_pid)
        viewer.kill()
        deadline = time.monotonic() + NOTICE_SECONDS
        viewer.join(NOTICE_SECONDS)
        while running(worker_pid) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not running(worker_pid)
    finally:
        if viewer.is_alive():
            viewer.kill()
            viewer.join()


# ---------------------------------------------------------------- the viewer


@pytest.fixture
def app(panda_base: Any, tmp_path: Path) -> Iterator[WecApp]:
    made = WecApp(base=panda_base, settings=Settings(), settings_file=tmp_path / "s.json")
    made.save_dir = tmp_path / "saves"
    yield made
    made.close()


FRAME_SECONDS = 1 / 15
"""Frames are paced as a window at llvmpipe's ~15 fps shows them (the offscreen buffer
would otherwise render flat out, which no window does)."""


def paced_frames(app: WecApp, count: int) -> None:
    assert app.pointer is not None
    for _ in range(count):
        due = time.perf_counter() + FRAME_SECONDS
        app.pointer.step(1)
        time.sleep(max(0.0, due - time.perf_counter()))


def frames_until_verified(app: WecApp, screen: ReplayScreen, seconds: float) -> int:
    """Render paced frames until the viewer's check is done; how many it took."""
    frames = 0
    begun = time.perf_counter()
    while not (screen.verification is not None and screen.verification.done):
        assert time.perf_counter() - begun < seconds, (
            f"still {screen.integrity.getText()!r} after {seconds} s")
        paced_frames(app, 1)
        frames += 1
    return frames


def test_the_viewer_checks_a_file_in_a_worker_and_a_replay_without_bytes_in_its_frames(
        app: WecApp, tmp_path: Path, game: Match, saved: bytes) -> None:
    # How much faster the worker is is measured by `wec bench replay` ("full verify in
    # the background process"), not here.
    total = len(game.actions)
    # A Replay without its file's bytes is checked in the viewer's frames, a few steps
    # at a time.
    in_frames = app.open_replay(Replay.open(saved))
    assert isinstance(in_frames, ReplayScreen) and in_frames.background is None
    paced_frames(app, 2)
    first = in_frames.verification
    assert first is not None and 0 < first.checked < total
    paced_frames(app, 5)
    later = in_frames.verification
    assert later is not None and first.checked < later.checked < total
    assert in_frames.integrity.getText() == f"Verifying {later.checked} / {total}"
    in_frames.leave()

    # A save opened from its file is checked by a worker process while the frames only
    # read its progress.
    path = tmp_path / "game.wecsave"
    path.write_bytes(saved)
    screen = app.open_replay(path)
    assert isinstance(screen, ReplayScreen) and screen.background is not None
    worker = screen.background.process
    frames_until_verified(app, screen, 120.0)
    assert screen.error is None
    assert screen.integrity.getText() == f"All {total} steps verified"
    worker.join(STOP_SECONDS)
    assert worker.exitcode == 0


def test_leaving_the_viewer_ends_its_worker(app: WecApp, tmp_path: Path,
                                            saved: bytes) -> None:
    path = tmp_path / "game.wecsave"
    path.write_bytes(saved)
    screen = app.open_replay(path)
    assert isinstance(screen, ReplayScreen) and screen.background is not None
    worker = screen.background.process
    assert app.pointer is not None
    app.pointer.step(2)
    assert worker.is_alive()
    asked = time.monotonic()
    app.pointer.key("escape")
    assert app.screen.frame.getName() == "main-menu"
    assert screen.background is None and not worker.is_alive()
    assert time.monotonic() - asked < STOP_SECONDS


def test_a_tampered_save_stops_the_viewer_at_the_bad_step_the_worker_found(
        app: WecApp, tmp_path: Path, game: Match, saved: bytes) -> None:
    """The renumbered snapshot (same hash) is found only by the full check: the viewer
    stops there and shows the panel, as for a bad step found in its own process."""
    turn = game.actions[23].turn
    path = tmp_path / "tampered.wecsave"
    path.write_bytes(with_snapshot_renumbered(saved, 24))
    screen = app.open_replay(path)
    assert isinstance(screen, ReplayScreen) and screen.background is not None
    assert app.pointer is not None
    app.pointer.key("end")
    if screen.error is None:  # same hashes: shown in full until the check ends (the
        # worker's process may have ended it already on a fast turn of the scheduler)
        assert screen.index == len(game.actions)
    else:
        assert screen.index == 23
    frames_until_verified(app, screen, 120.0)
    assert screen.error is not None and (screen.error.step, screen.error.turn) == (24, turn)
    assert screen.limit == 23 and screen.index == 23 and not screen.playing
    assert screen.integrity.getText() == (f"Step 24 (turn {turn}) fails the integrity "
                                          "check: the replay stops before it")
    assert screen.integrity_panel is not None
    assert f"stops before step 24 (turn {turn})" in screen.integrity_panel.text
    assert screen.replay.view(23, None) == game.position_at(23)
