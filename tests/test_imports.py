"""The engine stays pure: no panda3d, net, client, cryptography or asyncio; no I/O or clock.
The import contract (layers and no cycles) holds, and nothing imports the old top-level
names (engine, net, client, benchmarks): everything is under ``wec.``."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FORBIDDEN_LOADED = ("panda3d", "direct", "net", "client", "cryptography", "asyncio", "zeroconf",
                    "wec.net", "wec.client", "wec.cli", "wec.storage", "wec.benchmarks",
                    "socket", "random")
# Modules whose import would bring I/O, a clock or unseeded randomness into the rules.
FORBIDDEN_IMPORTS = {"os", "io", "sys", "time", "datetime", "random", "secrets", "socket",
                     "pathlib", "threading", "asyncio", "subprocess", "shutil", "tempfile",
                     "panda3d", "direct", "net", "client", "cryptography", "zeroconf",
                     "wec.net", "wec.client", "wec.cli", "wec.storage", "wec.benchmarks",
                     "uuid", "logging"}
OLD_TOP_LEVEL = {"engine", "net", "client", "benchmarks"}


def test_importing_engine_loads_none_of_the_forbidden_modules():
    code = ("import json, sys; import wec.engine; "
            "print(json.dumps(sorted(sys.modules)))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT / "tests", check=True,
                          capture_output=True, text=True)
    loaded = set(json.loads(done.stdout))
    assert "wec.engine" in loaded
    assert sorted(m for m in loaded if any(m == f or m.startswith(f + ".")
                                           for f in FORBIDDEN_LOADED)) == []


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
                          if any(n == f or n.startswith(f + ".") for f in FORBIDDEN_IMPORTS)]
    assert offenders == []


def _project_sources() -> list[Path]:
    """Every Python file of the repository once (wec/engine and the other links into the
    top-level folders are skipped: they are the same files)."""
    folders = ("engine", "net", "client", "benchmarks", "wec", "tests", "scripts")
    return sorted(path for folder in folders for path in (ROOT / folder).rglob("*.py")
                  if not (ROOT / folder / path.relative_to(ROOT / folder).parts[0])
                  .is_symlink())


def test_nothing_imports_the_old_top_level_packages():
    """Installed, only ``wec`` exists: ``import engine`` would work in a checkout (its
    root is on the path) and fail everywhere else."""
    offenders = []
    for path in _project_sources():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            offenders += [f"{path.relative_to(ROOT)}:{node.lineno}: {n}" for n in names
                          if n.split(".")[0] in OLD_TOP_LEVEL]
    assert offenders == []


def test_the_import_contract_holds():
    """pyproject's [tool.importlinter]: engine <- storage <- net <- client <- cli, and no
    cycle between sibling modules or packages (import-linter reads every import, lazy
    ones and TYPE_CHECKING ones included)."""
    done = subprocess.run([str(Path(sys.executable).with_name("lint-imports"))], cwd=ROOT,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:]
    assert "Contracts: 2 kept, 0 broken." in done.stdout


def test_the_engine_is_acyclic_and_its_package_file_loads_nothing():
    """Issue 17: the engine's modules form no import cycle (pyproject's acyclic contract
    covers wec.engine: nothing skips it), no function imports a module lazily to hide one,
    and importing one module of the engine loads only what it imports (the package's
    public names load on first use)."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    acyclic = next(c for c in contracts if c["type"] == "acyclic_siblings")
    assert "wec.engine" not in acyclic.get("skip_descendants", [])
    lazy = []
    for path in sorted((ROOT / "engine").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lazy += [f"{path.name}:{inner.lineno}" for inner in ast.walk(node)
                         if path.name != "__init__.py" and _imports_the_engine(inner)]
    assert lazy == []
    code = ("import json, sys; import wec.engine.board; "
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith('wec.engine'))))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT / "tests", check=True,
                          capture_output=True, text=True)
    assert json.loads(done.stdout) == ["wec.engine", "wec.engine.board"]


def _imports_the_engine(node: ast.AST) -> bool:
    if isinstance(node, ast.ImportFrom):
        return node.level > 0 or (node.module or "").startswith("wec.engine")
    if isinstance(node, ast.Import):
        return any(alias.name.startswith("wec.engine") for alias in node.names)
    return False
