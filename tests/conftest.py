"""Shared fixtures. ``panda_base``: one offscreen Panda3D ShowBase per test process
(Panda3D allows a single ShowBase), rendering with real OpenGL through EGL/llvmpipe."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(scope="session")
def panda_base() -> Iterator[Any]:
    from client.offscreen import configure_offscreen

    configure_offscreen()
    from direct.showbase.ShowBase import ShowBase

    base = ShowBase()
    gsg = base.win.getGsg()
    assert gsg.getSupportsGlsl(), f"no GLSL on {gsg.getDriverRenderer()}: not real OpenGL"
    yield base
    base.destroy()
