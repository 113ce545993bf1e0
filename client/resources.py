"""Where the client's assets are: the generated models (``models/``), the GLSL shaders
(``shaders/``), the generated sound effects (``sounds/``) and the player's rules
reference (``docs/rules.md``), wherever the game was installed from.

- From a checkout or an installed wheel they are package data of ``wec``, found with
  ``importlib.resources`` (a checkout's ``wec/models`` links to the top-level folder).
- In an app bundle made by Panda3D's ``build_apps`` the Python code is frozen into the
  executable and the assets are copied beside it, as Panda3D's own model path expects
  (``$MAIN_DIR``); ``build_apps`` also turns each ``.egg`` into a ``.egg.bam``, which
  ``model_file`` then picks.
"""

from __future__ import annotations

import sys
from importlib import resources
from pathlib import Path

ASSET_FOLDERS = ("models", "shaders", "sounds", "docs")


def is_app_bundle() -> bool:
    """True in a frozen build_apps executable (its modules have no files)."""
    return bool(getattr(sys, "frozen", False))


def asset_folder(name: str) -> Path:
    """The folder of one kind of asset: ``models``, ``shaders``, ``sounds`` or ``docs``."""
    if name not in ASSET_FOLDERS:
        raise ValueError(f"unknown asset folder {name!r}; expected one of {ASSET_FOLDERS}")
    if is_app_bundle():
        return Path(sys.executable).resolve().parent / name
    return Path(str(resources.files("wec").joinpath(name)))


def model_file(folder: Path, stem: str) -> Path:
    """A model's file: ``stem.egg`` as generated, or the ``stem.egg.bam`` build_apps
    made of it (an app bundle carries only the latter)."""
    egg = folder / f"{stem}.egg"
    if egg.is_file():
        return egg
    bam = folder / f"{stem}.egg.bam"
    return bam if bam.is_file() else egg


def rules_file() -> Path:
    """The player's rules reference shown by the Help screen (``docs/rules.md``)."""
    return asset_folder("docs") / "rules.md"
