"""Panda3D configuration for rendering without a display (tests, screenshots, CI).

Real OpenGL through EGL and Mesa's llvmpipe: shaders run, unlike tinydisplay which
silently ignores them.
"""

from __future__ import annotations

import os

OFFSCREEN_PRC = """
load-display p3headlessgl
window-type offscreen
audio-library-name null
framebuffer-multisample 0
sync-video false
notify-level-device fatal
"""


def configure_offscreen(size: tuple[int, int] = (1024, 768)) -> None:
    """Make the next ShowBase open an offscreen EGL buffer of the given size."""
    from panda3d.core import loadPrcFileData

    os.environ.setdefault("EGL_PLATFORM", "surfaceless")
    loadPrcFileData("wec-offscreen", OFFSCREEN_PRC + f"win-size {size[0]} {size[1]}\n")
