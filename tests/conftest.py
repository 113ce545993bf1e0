"""Shared fixtures. ``panda_base``: one offscreen Panda3D ShowBase per test process
(Panda3D allows a single ShowBase), rendering with real OpenGL through EGL/llvmpipe.
``private_user_folders`` (automatic): the tests never read or write the player's real
settings, preferences, saves, boards or keys: the XDG folders that platformdirs
follows point into the session's temporary directory."""

from __future__ import annotations

import os
import weakref
from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(scope="session", autouse=True)
def private_user_folders(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    home = tmp_path_factory.mktemp("user")
    saved = {name: os.environ.get(name) for name in _USER_FOLDERS}
    for name, folder in _USER_FOLDERS.items():
        os.environ[name] = str(home / folder)
    yield
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


# The model cache (XDG_CACHE_HOME) stays shared: it holds only Panda3D's binary copies
# of the generated models, and keeps each test process's first frame fast.
_USER_FOLDERS = {"XDG_CONFIG_HOME": "config", "XDG_DATA_HOME": "data",
                 "XDG_STATE_HOME": "state"}


@pytest.fixture(scope="session")
def panda_base() -> Iterator[Any]:
    from wec.client.offscreen import configure_offscreen

    configure_offscreen()
    from direct.showbase.ShowBase import ShowBase

    base = ShowBase()
    gsg = base.win.getGsg()
    assert gsg.getSupportsGlsl(), f"no GLSL on {gsg.getDriverRenderer()}: not real OpenGL"
    yield base
    base.destroy()


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Before each test, what earlier tests left alive is frozen (gc.freeze, after a
    collection of the young generations: a few ms), as the client and ``wec peer``
    freeze their heap at a game's start (net.peer_config ``freeze_heap``). A test worker
    hosts many peers over its life; without it, a full pass of Python's collector over
    everything earlier tests left (0.6 s and more measured in a worker) can fall inside a
    test whose peers time out after 1 s of silence. Objects a test creates are
    collected as usual. But cyclic garbage an earlier test left in the old generation
    would stay frozen for the worker's life: every ``FULL_EVERY`` tests the heap is
    unfrozen and fully collected first, between tests, where no peer waits (a worker
    grew to 6.6 GB without it)."""
    import gc

    global _tests_run
    _tests_run += 1
    if _tests_run % FULL_EVERY == 0:
        gc.unfreeze()
        gc.collect()
    else:
        gc.collect(1)
    gc.freeze()


FULL_EVERY = 40
_tests_run = 0


# Every fog game a test makes, closed when the test ends. A game's last action keeps its
# resolutions waiting on stacks of their own (net.resumable greenlets), whose frames the
# collector cannot see: a game dropped without ``FogGame.close`` (the product's hosts
# close theirs) stays in memory for the worker's life. Thousands of test games a worker
# reached 16 GB and were killed by the kernel (session 28).
_FOG_GAMES: list[weakref.ref[Any]] = []  # weak: a test may check that a game is freed


def pytest_configure(config: pytest.Config) -> None:
    from wec.net.fog_game import FogGame

    made = FogGame.__init__

    def registered(self: Any, *args: Any, **kwargs: Any) -> None:
        made(self, *args, **kwargs)
        _FOG_GAMES.append(weakref.ref(self))

    FogGame.__init__ = registered  # type: ignore[method-assign]


def pytest_runtest_teardown(item: pytest.Item) -> None:
    close_fog_games()


def close_fog_games() -> None:
    """Close the fog games made so far (a test that makes many may call it between
    them)."""
    while _FOG_GAMES:
        game = _FOG_GAMES.pop()()
        if game is not None:
            game.close()
