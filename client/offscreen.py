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
print-pipe-types false
"""


def configure_offscreen(size: tuple[int, int] = (1024, 768)) -> None:
    """Make the next ShowBase open an offscreen EGL buffer of the given size."""
    from panda3d.core import loadPrcFileData

    os.environ.setdefault("EGL_PLATFORM", "surfaceless")
    loadPrcFileData("wec-offscreen", OFFSCREEN_PRC + f"win-size {size[0]} {size[1]}\n"
                    + model_cache_prc())


def model_cache_prc() -> str:
    """Where Panda3D keeps binary copies of the generated models between starts."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    folder = os.path.join(base, "wec", "models")
    os.makedirs(folder, exist_ok=True)
    from panda3d.core import Filename

    return f"model-cache-dir {Filename.fromOsSpecific(folder).getFullpath()}\n"
