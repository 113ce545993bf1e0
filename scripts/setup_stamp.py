"""The set-up stamp of .venv (used by scripts/setup): is the environment ready as asked?

``check EXTRAS``  exit 0 when .venv was set up from the same pyproject.toml,
                  constraints.txt and Python, with every extra asked for (or one that
                  includes it, as ``test`` includes ``client``); exit 1 otherwise.
``extras EXTRAS`` print the extras to install: those asked for plus those already there.
``write EXTRAS``  record that .venv now holds EXTRAS for the current inputs.

Standard library only: it runs before anything is installed.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STAMP = ROOT / ".venv" / ".wec-setup"
INPUTS = ("pyproject.toml", "constraints.txt")
SELF_EXTRA = re.compile(r"^wec\[([^\]]+)\]$")


def inputs_hash() -> str:
    digest = hashlib.sha256(sys.version.encode())
    for name in INPUTS:
        digest.update(name.encode() + b"\0" + (ROOT / name).read_bytes())
    return digest.hexdigest()


def included_extras(names: set[str]) -> set[str]:
    """``names`` and every extra they include through ``wec[...]`` requirements."""
    table = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    optional = table["project"].get("optional-dependencies", {})
    done: set[str] = set()
    todo = list(names)
    while todo:
        name = todo.pop()
        if name in done:
            continue
        done.add(name)
        for requirement in optional.get(name, []):
            match = SELF_EXTRA.match(requirement.replace(" ", ""))
            if match:
                todo.extend(match.group(1).split(","))
    return done


def recorded() -> tuple[str, set[str]]:
    try:
        data = json.loads(STAMP.read_text("utf-8"))
        return str(data["inputs"]), set(data["extras"])
    except (OSError, ValueError, KeyError, TypeError):
        return "", set()


def parse(text: str) -> set[str]:
    return {name.strip() for name in text.split(",") if name.strip()}


def main(argv: list[str]) -> int:
    command, asked = argv[0], parse(argv[1] if len(argv) > 1 else "")
    inputs, extras = recorded()
    if command == "check":
        ready = inputs == inputs_hash() and asked <= included_extras(extras)
        return 0 if ready and (ROOT / ".venv" / "bin" / "wec").exists() else 1
    if command == "extras":
        print(",".join(sorted(asked | extras)))  # pip never removes what is there
        return 0
    if command == "write":
        STAMP.write_text(json.dumps({"inputs": inputs_hash(), "extras": sorted(asked)}),
                         "utf-8")
        return 0
    print(f"setup_stamp.py: unknown command {command!r}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
