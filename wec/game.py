"""The game's own program: ``wec play`` with the arguments given. The app bundle made by
Panda3D's build_apps starts here (setup.py), and so does ``python -m wec.game``."""

from __future__ import annotations

import sys

from wec.cli import main


def serve_worker_process() -> None:
    """In an app bundle, a worker process (the replay viewer's full check, started with
    multiprocessing's spawn) is this same program started with ``--multiprocessing-fork``:
    run the worker and exit instead of starting the game. Python does this by itself only
    on Windows (``multiprocessing.freeze_support``)."""
    if getattr(sys, "frozen", False):
        from multiprocessing import spawn

        spawn.freeze_support()  # returns at once unless started as a worker


def start() -> int:
    """Open the game (``wec play [FILE] [--offscreen-check PNG]``)."""
    serve_worker_process()
    return main(["play", *sys.argv[1:]])


if __name__ == "__main__":
    raise SystemExit(start())
