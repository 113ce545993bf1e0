"""The engine stays pure: no panda3d, net, client, cryptography or asyncio; no I/O or clock."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FORBIDDEN_LOADED = ("panda3d", "direct", "net", "client", "cryptography", "asyncio", "zeroconf",
                    "wec", "socket", "random")
# Modules whose import would bring I/O, a clock or unseeded randomness into the rules.
FORBIDDEN_IMPORTS = {"os", "io", "sys", "time", "datetime", "random", "secrets", "socket",
                     "pathlib", "threading", "asyncio", "subprocess", "shutil", "tempfile",
                     "panda3d", "direct", "net", "client", "cryptography", "zeroconf", "wec",
                     "uuid", "logging"}


def test_importing_engine_loads_none_of_the_forbidden_modules():
    code = ("import json, sys; import engine; "
            "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True,
                          capture_output=True, text=True)
    loaded = set(json.loads(done.stdout))
    assert "engine" in loaded
    assert sorted(loaded.intersection(FORBIDDEN_LOADED)) == []


def test_engine_sources_import_nothing_impure():
    offenders = []
    for path in sorted((ROOT / "engine").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            offenders += [f"{path.name}: {n}" for n in names
                          if n.split(".")[0] in FORBIDDEN_IMPORTS]
    assert offenders == []
