"""Client benchmark: frame time of the 3D board beside an empty scene, and start-up time.

``wec bench client [--seconds S]`` calls :func:`run`. Everything is measured in one run,
offscreen at 1280x720 (real OpenGL through EGL, llvmpipe on a machine without a GPU):

(a) the full-board frame: the game's play screen (``WecApp.start_game(Options())``: the
    standard position, Black to act and viewing, camera home, HUD on), one frame being
    one ``taskMgr.step()`` (the play screen's per-frame task and the render). Nothing
    moves, so after its first frame the board is shown from its retained picture
    (``client.scene.RetainedFrames``); the table says how many frames drew it afresh;
(a') the same with the camera turning by TURN_DEGREES every frame (back and forth
    around home), so that every frame draws the whole board afresh: what orbiting,
    animations and pulsing highlights cost;
(b) the empty-scene frame: the same window, ShowBase and HUD with the board hidden;
(b') for information, the empty scene plus one window-sized opaque picture drawn as a
    textured card behind the HUD: what a finished image of the window costs when it is
    drawn (RetainedFrames' card, used where the window cannot be copied into); on a
    GPU next to nothing, on llvmpipe every pixel goes through the fragment pipeline.
    (a) copies its picture into the window instead (a memory copy on llvmpipe) in
    place of the window's clears, so it may cost less than (b);
    (a), (a'), (b) and (b') alternate in batches of BATCH_FRAMES frames (the first frame
    after each switch is not timed) so that a change in machine load affects all alike;
    mean and 95th percentile of each, their ratios, and frames per second;
(c) start-up: from starting a new Python process to the main menu's first rendered
    frame (``WecApp`` offscreen, as ``WecApp(offscreen=True)`` makes it but at 1280x720);
(d) the same to the board's first frame (``WecApp`` then ``app.start_game(Options())``);
(e) for information, full-board frames per second when frames follow each other as in
    a window, the next prepared while the last is drawn. Not finished frame by frame:
    on llvmpipe a frame nobody waits for may never be rasterised (the next frame's full
    clear discards what was queued), so this counts preparing frames more than drawing
    them; (a) and (a') are the drawn frame rates.

Each timed frame is finished (``glFinish`` once, after the frame's last display region
is drawn, see ``FrameFinish``), so a frame's time includes the GPU's (here llvmpipe's)
work instead of only the queuing of it, as a window's buffer swap makes it. Panda3D's
``gl-finish`` setting is not used for that: it finishes after every draw call, which on
llvmpipe rasterises the frame piecemeal, once per draw (about 240 times a frame here),
each time waking the rasteriser threads and waiting for them, work no real frame does
(it cost the orbit frame about 4 ms of CPU and a fifth of its time). Only where OpenGL
cannot be reached that way does the benchmark fall back to ``gl-finish`` (and says so);
the start-up processes (c) and (d) keep it (it can only make them slower). The CPU
time of the main thread is shown beside the process's: on llvmpipe the rest is the
rasteriser threads, which work while the main thread waits for them. The table shows
the mean and 95th percentile of each kind of frame. The goal figures are robust to
other processes on a shared machine: a ratio is the median over rounds of (mean of a
batch of board frames / mean of the empty-scene batch next to it in time), the frames
per second 1000 / the median batch mean. The CPU time of the process per frame is
shown too: it moves less with the other load than the wall-clock time does.

Goals: (a) at most 1.5x (b); at least 60 full-board frames per second, still and while
the camera orbits (a'); (c) and (d) within 2 seconds. (b') is shown for information.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, TextIO

FRAME_RATIO_GOAL = 1.5
FPS_GOAL = 60.0
FIRST_FRAME_GOAL = 2.0  # seconds
SIZE = (1280, 720)
BATCH_FRAMES = 5
TURN_DEGREES = 0.3
MODES = ("full", "moving", "empty", "floor")  # (a), (a'), (b), (b')
READY = "wec-first-frame"
REPO = Path(__file__).resolve().parent.parent
TIMING_PRC = "gl-finish true\nnotify-level-glgsg error\n"  # the start-up processes
QUIET_PRC = "notify-level-glgsg error\n"
GL_LIBRARY = "libGL.so.1"

# What the start-up process runs: the client as ``wec play`` starts it, offscreen.
STARTUP_SCRIPT = """
import os
from wec.client.offscreen import configure_offscreen
configure_offscreen(({width}, {height}))
from panda3d.core import loadPrcFileData
loadPrcFileData("wec-bench-timing", {timing!r})
from direct.showbase.ShowBase import ShowBase
from wec.client.app import WecApp
from wec.client.settings import Settings
app = WecApp(base=ShowBase(), settings=Settings(detail={detail!r}))
if {board}:
    from wec.engine.options import Options
    app.start_game(Options())
app.base.taskMgr.step()
print({ready!r}, flush=True)
os._exit(0)
"""


def batch_means(samples: list[float]) -> list[float]:
    """The mean of each batch of BATCH_FRAMES consecutive samples."""
    return [statistics.mean(samples[i:i + BATCH_FRAMES])
            for i in range(0, len(samples), BATCH_FRAMES)]


def round_ratios(numerator: list[float], denominator: list[float]) -> list[float]:
    """Per round, a batch of ``numerator`` frames over the batch of ``denominator``
    frames measured next to it."""
    return [a / b for a, b in zip(batch_means(numerator), batch_means(denominator),
                                  strict=True)]


def percentile(samples: list[float], fraction: float) -> float:
    """The nearest-rank percentile (``fraction`` 0.95 for the 95th)."""
    ordered = sorted(samples)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


def scene_counts(root: Any, camera: Any = None) -> dict[str, int]:
    """GeomNodes, Geoms, vertices and triangles under ``root``: what a frame draws. Of a
    level-of-detail switch only the model shown from ``camera`` counts (the nearest one
    when no camera is given)."""
    from panda3d.core import LODNode

    counts = {"geom_nodes": 0, "geoms": 0, "vertices": 0, "triangles": 0}
    stack = [root]
    while stack:
        path = stack.pop()
        node = path.node()
        if node.isGeomNode():
            counts["geom_nodes"] += 1
            for index in range(node.getNumGeoms()):
                geom = node.getGeom(index)
                counts["geoms"] += 1
                counts["vertices"] += geom.getVertexData().getNumRows()
                counts["triangles"] += sum(p.getNumFaces() for p in geom.getPrimitives())
        children = path.getChildren()
        if isinstance(node, LODNode) and children.getNumPaths():
            shown = _shown_lod_child(path, node, camera)
            children = [children[shown]] if shown is not None else []
        stack.extend(children)
    return counts


def _shown_lod_child(path: Any, node: Any, camera: Any) -> int | None:
    """Which child of a level-of-detail switch a frame shows from ``camera`` (distance
    measured in the switch's coordinates, as Panda3D does)."""
    if camera is None:
        return 0
    distance = (camera.getPos(path) - node.getCenter()).length()
    for index in range(node.getNumSwitches()):
        if node.getOut(index) <= distance < node.getIn(index):
            return index
    return None


def frame_times(base: Any, seconds: float, detail: str) -> dict[str, Any]:
    """(a), (a') and (b) on ``base``'s window, alternating, for about ``seconds`` each,
    each frame finished (``gl-finish``) before the next; then (e) the pipelined rate."""
    from panda3d.core import loadPrcFileData, unloadPrcFile

    from wec.client.app import WecApp
    from wec.client.settings import Settings
    from wec.engine.options import Options

    app = WecApp(base=base, settings=Settings(detail=detail))
    try:
        play = app.start_game(Options())
        board, camera = play.scene.root, play.camera
        home = camera.orbit
        base.taskMgr.step()  # the camera in place
        counts = scene_counts(board, base.cam)
        samples: dict[str, list[float]] = {mode: [] for mode in MODES}
        cpu: dict[str, list[float]] = {mode: [] for mode in MODES}
        main_cpu: dict[str, list[float]] = {mode: [] for mode in MODES}
        pictures = {"drawn": 0, "frames": 0}
        floor = _window_picture(base)
        finish = FrameFinish.install(base)
        timing = loadPrcFileData("wec-bench-timing",
                                 QUIET_PRC if finish is not None else TIMING_PRC)
        try:
            deadline = time.perf_counter() + len(MODES) * seconds
            while not samples["floor"] or time.perf_counter() < deadline:
                for mode in MODES:
                    if mode == "floor":
                        floor.unstash()
                    _time_batch(base, play, mode, home, samples[mode], cpu[mode],
                                main_cpu[mode], pictures)
                    floor.stash()
        finally:
            unloadPrcFile(timing)
            if finish is not None:
                finish.remove()
            floor.removeNode()
        board.show()
        camera.set_orbit(home)
        pipelined = pipelined_frame_seconds(base, 2 * BATCH_FRAMES)
    finally:
        app.close()
    return {**{mode: samples[mode] for mode in MODES},
            **{f"{mode}_cpu": cpu[mode] for mode in MODES},
            **{f"{mode}_main_cpu": main_cpu[mode] for mode in MODES},
            "finish": "once a frame" if finish is not None else "gl-finish",
            "pipelined": pipelined, "afresh": pictures["drawn"],
            "afresh_of": pictures["frames"], **counts}


class FrameFinish:
    """Finishes every frame of ``base``'s window once: a draw callback on its last display
    region draws the region as usual, then calls ``glFinish`` (the window's GL context is
    current there; Panda3D has no call for it)."""

    def __init__(self, region: Any, gl: Any) -> None:
        from panda3d.core import PythonCallbackObject

        self.region = region
        self.gl = gl
        region.setDrawCallback(PythonCallbackObject(self._draw))

    @classmethod
    def install(cls, base: Any) -> FrameFinish | None:
        """The finisher, or None where OpenGL cannot be called directly (not OpenGL on a
        system with a shared GL library)."""
        import ctypes

        window = base.win
        if (not sys.platform.startswith("linux")
                or window.getPipe().getInterfaceName() != "OpenGL"):
            return None
        try:
            gl = ctypes.CDLL(GL_LIBRARY)
            gl.glFinish.restype = None
        except (OSError, AttributeError):
            return None
        regions = [window.getDisplayRegion(index)
                   for index in range(window.getNumDisplayRegions())]
        active = [region for region in regions if region.isActive()]
        if not active:
            return None
        return cls(max(active, key=lambda region: region.getSort()), gl)

    def _draw(self, data: Any) -> None:
        data.upcall()
        self.gl.glFinish()

    def remove(self) -> None:
        self.region.clearDrawCallback()


def _window_picture(base: Any) -> Any:
    """(b')'s card: an opaque window-sized texture (one texel a pixel) over the whole
    window, behind the HUD; stashed."""
    from panda3d.core import ATSNone, CardMaker, SamplerState, Texture

    width, height = base.win.getXSize(), base.win.getYSize()
    texture = Texture("wec-bench-floor")
    texture.setAutoTextureScale(ATSNone)
    texture.setup2dTexture(width, height, Texture.TUnsignedByte, Texture.FRgba8)
    texture.setRamImage(bytes(4 * width * height))
    texture.setMinfilter(SamplerState.FT_nearest)
    texture.setMagfilter(SamplerState.FT_nearest)
    maker = CardMaker("wec-bench-floor")
    maker.setFrameFullscreenQuad()
    card = base.render2d.attachNewNode(maker.generate())
    card.setTexture(texture)
    card.setBin("background", -100)
    card.setDepthTest(False)
    card.setDepthWrite(False)
    card.stash()
    return card


def _time_batch(base: Any, play: Any, mode: str, home: Any, wall: list[float],
                cpu: list[float], main_cpu: list[float], pictures: dict[str, int]) -> None:
    """BATCH_FRAMES timed frames of one mode, after one untimed frame to switch to it."""
    board, camera, retained = play.scene.root, play.camera, play.scene.retained
    if mode in ("empty", "floor"):
        board.hide()
    else:
        board.show()
    camera.set_orbit(home)
    base.taskMgr.step()  # the first frame after the switch is not timed
    drawn = retained.pictures_drawn + retained.frames_drawn_directly
    for index in range(BATCH_FRAMES):
        if mode == "moving":  # back and forth around home: a new view every frame
            camera.set_orbit(home.turned(TURN_DEGREES * (1 if index % 2 == 0 else -1)))
        start, used, own = time.perf_counter(), time.process_time(), time.thread_time()
        base.taskMgr.step()
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - used)
        main_cpu.append(time.thread_time() - own)
    if mode == "full":
        pictures["drawn"] += retained.pictures_drawn + retained.frames_drawn_directly - drawn
        pictures["frames"] += BATCH_FRAMES


def pipelined_frame_seconds(base: Any, frames: int) -> float:
    """Seconds per frame when frames follow each other as in a window (the next frame
    is prepared while the last one is drawn), with the last one read back so that every
    frame is really drawn."""
    from panda3d.core import PNMImage

    def read_back() -> None:
        base.win.getScreenshot(PNMImage())

    base.taskMgr.step()
    read_back()
    start = time.perf_counter()
    for _ in range(frames):
        base.taskMgr.step()
    read_back()
    return (time.perf_counter() - start) / frames


def first_frame_seconds(board: bool, detail: str) -> float:
    """Seconds from starting a new Python process to its first rendered frame of the
    main menu (``board`` False) or of the board."""
    script = STARTUP_SCRIPT.format(width=SIZE[0], height=SIZE[1], timing=TIMING_PRC,
                                   detail=detail, board=board, ready=READY)
    start = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-c", script], cwd=REPO, text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert child.stdout is not None
    line = child.stdout.readline()
    elapsed = time.perf_counter() - start
    _, errors = child.communicate(timeout=120)
    if line.strip() != READY:
        last = errors.strip().splitlines()[-1:] or [f"exit status {child.returncode}"]
        raise RuntimeError(f"the start-up process rendered no frame: {last[0]}")
    return elapsed


def _renderer(base: Any) -> str:
    return str(base.win.getGsg().getDriverRenderer())


def run(seconds: float, out: TextIO, base: Any = None, startup_runs: int | None = None,
        detail: str = "detailed") -> dict[str, Any]:
    """Measure (a)-(d), print a table with the goals to ``out`` and return the figures.

    ``seconds``: time spent on (a) and on (b) each. ``base``: a ShowBase to measure
    frames on (its window's size is used); None makes an offscreen one at 1280x720 and
    destroys it afterwards. ``startup_runs``: new processes started for (c) and for (d)
    each, the median reported (default 3, 1 when ``seconds`` is under 1)."""
    seconds = max(float(seconds), 0.01)
    runs = startup_runs if startup_runs is not None else (3 if seconds >= 1 else 1)
    menu = [first_frame_seconds(False, detail) for _ in range(max(1, runs))]
    board = [first_frame_seconds(True, detail) for _ in range(max(1, runs))]
    own = base is None
    if own:
        from wec.client.offscreen import configure_offscreen

        configure_offscreen(SIZE)
        from panda3d.core import loadPrcFileData

        loadPrcFileData("wec-bench-quiet", "print-pipe-types false\n")
        from direct.showbase.ShowBase import ShowBase

        base = ShowBase()
    try:
        frames = frame_times(base, seconds, detail)
        size = (base.win.getXSize(), base.win.getYSize())
        renderer = _renderer(base)
    finally:
        if own:
            base.destroy()
    full_ms = [s * 1000 for s in frames["full"]]
    moving_ms = [s * 1000 for s in frames["moving"]]
    empty_ms = [s * 1000 for s in frames["empty"]]
    full_mean, empty_mean = statistics.mean(full_ms), statistics.mean(empty_ms)
    moving_mean = statistics.mean(moving_ms)
    floor_ms = [s * 1000 for s in frames["floor"]]
    floor_mean = statistics.mean(floor_ms)
    ratios = round_ratios(full_ms, empty_ms)
    frame_ratio = statistics.median(ratios)
    fps = 1000.0 / statistics.median(batch_means(full_ms))
    figures: dict[str, Any] = {
        "seconds": seconds,
        "size": size,
        "renderer": renderer,
        "detail": detail,
        "cpus": os.cpu_count() or 1,
        "load": os.getloadavg()[0],
        "full_frames": len(full_ms),
        "full_mean_ms": full_mean,
        "full_p95_ms": percentile(full_ms, 0.95),
        "full_cpu_ms": 1000 * statistics.mean(frames["full_cpu"]),
        "full_afresh": frames["afresh"],
        "moving_frames": len(moving_ms),
        "moving_mean_ms": moving_mean,
        "moving_p95_ms": percentile(moving_ms, 0.95),
        "moving_cpu_ms": 1000 * statistics.mean(frames["moving_cpu"]),
        "moving_main_cpu_ms": 1000 * statistics.mean(frames["moving_main_cpu"]),
        "finish": frames["finish"],
        "moving_ratio": statistics.median(round_ratios(moving_ms, empty_ms)),
        "moving_fps": 1000.0 / statistics.median(batch_means(moving_ms)),
        "moving_fps_pass": 1000.0 / statistics.median(batch_means(moving_ms)) >= FPS_GOAL,
        "floor_frames": len(floor_ms),
        "floor_mean_ms": floor_mean,
        "floor_p95_ms": percentile(floor_ms, 0.95),
        "floor_ratio": statistics.median(round_ratios(floor_ms, empty_ms)),
        "empty_frames": len(empty_ms),
        "empty_mean_ms": empty_mean,
        "empty_p95_ms": percentile(empty_ms, 0.95),
        "empty_cpu_ms": 1000 * statistics.mean(frames["empty_cpu"]),
        "frame_ratio_rounds": ratios,
        "frame_ratio": frame_ratio,
        "frame_ratio_goal": FRAME_RATIO_GOAL,
        "frame_ratio_pass": frame_ratio <= FRAME_RATIO_GOAL,
        "fps": fps,
        "fps_goal": FPS_GOAL,
        "fps_pass": fps >= FPS_GOAL,
        "pipelined_fps": 1.0 / frames["pipelined"],
        "startup_runs": len(menu),
        "menu_first_frame_s": statistics.median(menu),
        "menu_first_frame_max_s": max(menu),
        "menu_first_frame_pass": statistics.median(menu) <= FIRST_FRAME_GOAL,
        "board_first_frame_s": statistics.median(board),
        "board_first_frame_max_s": max(board),
        "board_first_frame_pass": statistics.median(board) <= FIRST_FRAME_GOAL,
        "first_frame_goal": FIRST_FRAME_GOAL,
        "geom_nodes": frames["geom_nodes"],
        "geoms": frames["geoms"],
        "vertices": frames["vertices"],
        "triangles": frames["triangles"],
    }
    _report(figures, out)
    return figures


def _verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def _mean_p95(mean: float, p95: float) -> str:
    return f"{mean:7.2f} ms mean {p95:7.2f} ms p95"


def _report(f: dict[str, Any], out: TextIO) -> None:
    width, height = f["size"]
    rows = [
        ("(a) full-board frame", _mean_p95(f["full_mean_ms"], f["full_p95_ms"]),
         f"standard position, Black's view, camera home, HUD; {f['full_frames']} frames "
         f"({f['full_afresh']} drawn afresh, the others from the retained picture), "
         f"{f['full_cpu_ms']:.1f} ms CPU each"),
        ("(a') full board, camera moving", _mean_p95(f["moving_mean_ms"], f["moving_p95_ms"]),
         f"the same, the camera turning {TURN_DEGREES:g} degrees a frame: every frame "
         f"drawn afresh; {f['moving_frames']} frames, {f['moving_cpu_ms']:.1f} ms CPU each "
         f"({f['moving_main_cpu_ms']:.1f} ms on the main thread)"),
        ("(b) empty-scene frame", _mean_p95(f["empty_mean_ms"], f["empty_p95_ms"]),
         f"same window and HUD, board hidden; {f['empty_frames']} frames, "
         f"{f['empty_cpu_ms']:.1f} ms CPU each"),
        ("(b') floor: one window picture", _mean_p95(f["floor_mean_ms"], f["floor_p95_ms"]),
         f"the empty scene plus one opaque window-sized textured card; "
         f"{f['floor_frames']} frames"),
        ("(c) first frame, main menu", f"{f['menu_first_frame_s']:7.2f} s",
         f"new process to the menu's first frame; median of {f['startup_runs']} "
         f"(max {f['menu_first_frame_max_s']:.2f} s)"),
        ("(d) first frame, board", f"{f['board_first_frame_s']:7.2f} s",
         f"new process, start_game, to the board's first frame; median of "
         f"{f['startup_runs']} (max {f['board_first_frame_max_s']:.2f} s)"),
        ("(e) full board, pipelined", f"{f['pipelined_fps']:7.1f} frames/s",
         "frames back to back as in a window, the last one read back"),
    ]
    name_width = max(len(r[0]) for r in rows)
    value_width = max(len(r[1]) for r in rows)
    print(f"wec client benchmark: {width}x{height} offscreen on {f['renderer']}, "
          f"{f['detail']} models, {f['seconds']:g} s per frame measurement, frames "
          f"finished {f['finish']} (load average {f['load']:.2f} on {f['cpus']} CPUs)",
          file=out)
    for name, value, note in rows:
        print(f"  {name:<{name_width}}  {value:<{value_width}}   {note}", file=out)
    print(f"  board scene: {f['geoms']} Geoms on {f['geom_nodes']} GeomNodes, "
          f"{f['vertices']} vertices, {f['triangles']} triangles", file=out)
    print("goals:", file=out)
    print(f"  full-board / empty-scene frame = {f['frame_ratio']:6.2f}x   "
          f"(goal <= {FRAME_RATIO_GOAL:g}x)   {_verdict(f['frame_ratio_pass'])}", file=out)
    print(f"  full-board frames per second   = {f['fps']:6.1f}    "
          f"(goal >= {FPS_GOAL:g})    {_verdict(f['fps_pass'])}", file=out)
    print(f"  camera moving frames per second = {f['moving_fps']:6.1f}    "
          f"(goal >= {FPS_GOAL:g})    {_verdict(f['moving_fps_pass'])}   "
          f"({f['moving_ratio']:.2f}x the empty scene)", file=out)
    print(f"  floor, one window-sized picture: {f['floor_ratio']:.2f}x the empty scene "
          f"(for information)", file=out)
    print(f"  first frame, main menu         = {f['menu_first_frame_s']:6.2f} s  "
          f"(goal <= {FIRST_FRAME_GOAL:g} s)   {_verdict(f['menu_first_frame_pass'])}",
          file=out)
    print(f"  first frame, board             = {f['board_first_frame_s']:6.2f} s  "
          f"(goal <= {FIRST_FRAME_GOAL:g} s)   {_verdict(f['board_first_frame_pass'])}",
          file=out)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--detail", choices=["simple", "detailed"], default="detailed")
    args = parser.parse_args(argv)
    run(seconds=args.seconds, out=sys.stdout, detail=args.detail)


if __name__ == "__main__":
    main()
