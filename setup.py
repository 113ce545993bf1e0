"""Panda3D's app bundle: ``python setup.py build_apps`` (README, "Packaging").

Everything about the package itself is in pyproject.toml; this file only carries the
options of Panda3D's ``build_apps`` command, which setuptools reads from here.
The bundle holds two programs: ``wec-game`` (the game, wec/game.py) and ``wec`` (the
command line), the models, shaders, sounds and rules reference beside them, and the
Python runtime and Panda3D libraries for Linux x86-64 (``manylinux2014_x86_64``), taken
from PyPI at the versions constraints.txt pins.
"""

from __future__ import annotations

import ast
import os
import re
import sys
from pathlib import Path

from setuptools import setup

ROOT = Path(__file__).resolve().parent
# What the bundle needs at run time (the client's dependencies, not the test tools).
RUNTIME = ("panda3d", "msgpack", "platformdirs", "zeroconf", "ifaddr", "cryptography", "cffi",
           "pycparser")


def pinned_runtime() -> list[str]:
    """The runtime requirements at their pinned versions (constraints.txt)."""
    pins = {}
    for line in (ROOT / "constraints.txt").read_text("utf-8").splitlines():
        match = re.match(r"^([A-Za-z0-9_.-]+)==(\S+)$", line.strip())
        if match:
            pins[match.group(1).lower()] = line.strip()
    return [pins[name] for name in RUNTIME]


def command_modules() -> list[str]:
    """The modules of ``wec``'s sub-commands: the CLI imports them by name
    (wec.cli.COMMAND_MODULES), so the freezer cannot see them. Read from the source, not
    imported: this file also runs where the game's dependencies are not installed."""
    tree = ast.parse((ROOT / "wec" / "cli" / "__init__.py").read_text("utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "COMMAND_MODULES" for t in node.targets):
            return [f"wec.cli.commands.{name}" for name in ast.literal_eval(node.value)]
    raise RuntimeError("wec/cli/__init__.py names no COMMAND_MODULES")


def requirements_file() -> str:
    """build_apps reads a requirements file: write the pinned runtime into build/."""
    path = ROOT / "build" / "app-requirements.txt"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(pinned_runtime()) + "\n", encoding="utf-8")
    return str(path)


# build_apps turns each .egg into a .bam with Panda3D's egg2bam, installed beside this
# Python (panda3d_tools): make sure it is found.
os.environ["PATH"] = os.pathsep.join([str(Path(sys.executable).parent),
                                      os.environ.get("PATH", "")])

setup(
    options={
        "build_apps": {
            "gui_apps": {"wec-game": "wec/game.py"},
            "console_apps": {"wec": "wec/__main__.py"},
            "include_patterns": ["models/*/*.egg", "shaders/*.vert", "shaders/*.frag",
                                 "models/README.md", "sounds/*.wav", "docs/rules.md"],
            "include_modules": {"*": command_modules()},
            "plugins": ["pandagl", "p3headlessgl", "p3openal_audio"],
            "platforms": ["manylinux2014_x86_64"],
            "requirements_path": requirements_file(),
            "use_optimized_wheels": False,  # only PyPI is reachable from here
            "pypi_extra_indexes": [],
            # Panda3D's direct.showbase may import tkinter for its optional Tk loop.
            "exclude_modules": {"*": ["tkinter", "_tkinter"]},
        },
    },
)
