"""Shipping the game (README, "Packaging"): the wheel made by ``python -m build`` installs
into a fresh virtual environment and runs the game from there; the app bundle made by
Panda3D's ``build_apps`` starts the game offscreen. Both are built from a copy of this
checkout, so the checkout itself is never written to.

These tests install from PyPI into a new virtual environment, at the versions
constraints.txt pins (pip's cache makes later runs quick).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
import venv
import zipfile
from pathlib import Path

import pytest
from panda3d.core import PNMImage

ROOT = Path(__file__).resolve().parents[1]
OLD_TOP_LEVEL = ("engine", "net", "client", "benchmarks", "tests")


def _copy_checkout(target: Path) -> Path:
    """The checkout's files (tracked and new, not ignored) copied to ``target``; the
    links of wec/ stay links."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others",
                             "--exclude-standard"], cwd=ROOT, check=True,
                            capture_output=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source, copy = ROOT / name, target / name
        if not source.exists() and not source.is_symlink():
            continue  # deleted in the working tree
        copy.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():
            copy.symlink_to(os.readlink(source))
        else:
            shutil.copy2(source, copy)
    return target


def _run(command: list[str], cwd: Path, env: dict[str, str] | None = None,
         timeout: float = 600) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)
    assert done.returncode == 0, (command, done.stdout[-2000:], done.stderr[-2000:])
    return done


def _offscreen_env(home: Path) -> dict[str, str]:
    """No display, a home of its own (settings, caches), EGL without a window system."""
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("XDG_", "DISPLAY", "WAYLAND"))}
    env.update(HOME=str(home), EGL_PLATFORM="surfaceless", PYTHONNOUSERSITE="1")
    return env


def _picture(path: Path, size: tuple[int, int]) -> PNMImage:
    image = PNMImage()
    assert image.read(str(path)), path
    assert (image.getXSize(), image.getYSize()) == size
    return image


def _assert_a_board(path: Path, size: tuple[int, int]) -> None:
    """A drawn board: many tones (squares, pieces, labels), not a blank picture."""
    image = _picture(path, size)
    greys = {round(image.getBright(x, y), 2) for x in range(0, size[0], 37)
             for y in range(0, size[1], 29)}
    assert len(greys) > 20, f"{path} is nearly uniform: {sorted(greys)[:10]}"


def _assert_the_main_menu(path: Path, size: tuple[int, int]) -> None:
    """The main menu: its yellow title across the top third, on the dark background."""
    image = _picture(path, size)
    yellow = sum(1 for x in range(0, size[0], 2) for y in range(0, size[1] // 3, 2)
                 if image.getRed(x, y) > 0.7 and image.getGreen(x, y) > 0.6
                 and image.getBlue(x, y) < 0.4)
    assert yellow > 300, f"{path}: no title drawn ({yellow} yellow samples)"
    assert image.getBright(5, size[1] - 5) < 0.15  # the dark background


def test_the_build_requires_the_setuptools_that_is_installed_and_pinned() -> None:
    """scripts/setup builds without isolation, offline: the setuptools pyproject.toml
    asks for is the one constraints.txt pins and the one .venv holds."""
    from importlib.metadata import version

    required = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))[
        "build-system"]["requires"]
    pins = [line for line in (ROOT / "constraints.txt").read_text("utf-8").splitlines()
            if line.startswith("setuptools==")]
    assert required == pins == [f"setuptools=={version('setuptools')}"]


def test_every_installed_distribution_is_pinned_at_its_installed_version() -> None:
    """constraints.txt is the lock: every package of .venv (but wec) at its version."""
    from importlib.metadata import distributions

    pins = {}
    for line in (ROOT / "constraints.txt").read_text("utf-8").splitlines():
        if line and not line.startswith("#"):
            name, _, pinned = line.partition("==")
            pins[name.lower().replace("_", "-")] = pinned
    installed = {d.metadata["Name"].lower().replace("_", "-"): d.version
                 for d in distributions() if d.metadata["Name"].lower() != "wec"}
    unpinned = sorted(set(installed) - set(pins))
    differing = sorted(f"{name} {installed[name]} (pinned {pins[name]})"
                       for name in installed if name in pins and pins[name] != installed[name])
    assert unpinned == [] and differing == []


def test_the_wheel_installs_into_a_fresh_environment_and_plays(tmp_path: Path) -> None:
    checkout = _copy_checkout(tmp_path / "checkout")
    _run([sys.executable, "-m", "build", "--no-isolation", "--wheel", "--outdir",
          str(tmp_path / "dist"), str(checkout)], cwd=checkout)
    (wheel,) = (tmp_path / "dist").glob("wec-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    top = {name.split("/")[0] for name in names}
    assert {t for t in top if not t.endswith(".dist-info")} == {"wec"}
    assert sum(n.startswith("wec/models/") and n.endswith(".egg") for n in names) == sum(
        1 for _ in (ROOT / "models").glob("*/*.egg"))
    assert sorted(n for n in names if n.startswith("wec/shaders/")) == sorted(
        f"wec/shaders/{p.name}" for p in (ROOT / "shaders").iterdir())
    assert "wec/storage/scenarios/standard.json" in names
    assert sorted(n for n in names if n.startswith("wec/sounds/")) == sorted(
        f"wec/sounds/{p.name}" for p in (ROOT / "sounds").glob("*.wav"))
    assert "wec/docs/rules.md" in names  # the Help screen's rules reference

    environment = tmp_path / "env"
    venv.EnvBuilder(with_pip=True).create(environment)
    python = environment / "bin" / "python"
    _run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", "-c",
          str(ROOT / "constraints.txt"), f"{wheel}[client]"], cwd=tmp_path)
    site = Path(_run([str(python), "-c", "import sysconfig; print(sysconfig.get_path("
                      "'purelib'))"], cwd=tmp_path).stdout.strip())
    assert [name for name in OLD_TOP_LEVEL if (site / name).exists()] == []

    wec = str(environment / "bin" / "wec")
    away = tmp_path / "elsewhere"  # not the checkout: nothing found by accident
    away.mkdir()
    env = _offscreen_env(tmp_path / "home")
    assert _run([wec, "--version"], away, env).stdout.startswith("wec ")
    start = _run([wec, "position", "standard"], away, env).stdout
    (away / "start.json").write_text(start, encoding="utf-8")
    assert "wec-position/1" in start
    assert "--join NAME" in _run([wec, "peer", "--help"], away, env).stdout
    shot = _run([wec, "shot", "start.json", "--side", "white", "--out", "white.png",
                 "--size", "640x360"], away, env)
    assert "640x360 PNG of White's view" in shot.stdout
    _assert_a_board(away / "white.png", (640, 360))


@pytest.fixture(scope="module")
def app_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``python setup.py build_apps`` on a copy of the checkout: the Linux bundle."""
    checkout = _copy_checkout(tmp_path_factory.mktemp("bundle") / "checkout")
    _run([sys.executable, "setup.py", "build_apps"], cwd=checkout, timeout=900)
    return checkout / "build" / "manylinux2014_x86_64"


def test_the_app_bundle_carries_its_programs_and_assets(app_bundle: Path) -> None:
    assert (app_bundle / "wec-game").is_file() and os.access(app_bundle / "wec-game", os.X_OK)
    assert (app_bundle / "wec").is_file()
    bams = sorted(p.relative_to(app_bundle / "models").as_posix()
                  for p in (app_bundle / "models").glob("*/*.egg.bam"))
    eggs = sorted(p.relative_to(ROOT / "models").as_posix() + ".bam"
                  for p in (ROOT / "models").glob("*/*.egg"))
    assert bams == eggs
    assert sorted(p.name for p in (app_bundle / "shaders").iterdir()) == sorted(
        p.name for p in (ROOT / "shaders").iterdir())
    assert sorted(p.name for p in (app_bundle / "sounds").iterdir()) == sorted(
        p.name for p in (ROOT / "sounds").glob("*.wav"))
    assert (app_bundle / "docs" / "rules.md").is_file()


def test_the_app_bundle_starts_the_game_offscreen(app_bundle: Path, tmp_path: Path) -> None:
    env = _offscreen_env(tmp_path / "home")
    cli = str(app_bundle / "wec")
    assert _run([cli, "--version"], tmp_path, env).stdout.startswith("wec ")
    assert "--join NAME" in _run([cli, "peer", "--help"], tmp_path, env).stdout
    (tmp_path / "start.json").write_text(_run([cli, "position", "standard"], tmp_path,
                                              env).stdout, encoding="utf-8")
    game = str(app_bundle / "wec-game")
    menu = _run([game, "--offscreen-check", "menu.png"], tmp_path, env).stdout
    assert "PNG of the MainMenu" in menu and "(GLSL yes)" in menu
    _assert_the_main_menu(tmp_path / "menu.png", (1024, 768))
    board = _run([game, "start.json", "--offscreen-check", "board.png"], tmp_path, env)
    assert "PNG of the PlayScreen" in board.stdout and "(GLSL yes)" in board.stdout
    _assert_a_board(tmp_path / "board.png", (1024, 768))
