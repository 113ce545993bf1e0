"""Display settings a player keeps between games (R14.5: display-only, never rules).

Stored as JSON in the user's config folder (``platformdirs.user_config_dir("wec")``, on
Linux ``$XDG_CONFIG_HOME/wec``; ``$WEC_CONFIG_DIR`` overrides it). A
missing or damaged file gives the defaults and is never overwritten until the player
changes a setting.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, fields
from pathlib import Path

import platformdirs

from wec.storage.files import write_atomically

DETAILS = ("simple", "detailed")
ANIMATION_SPEEDS = ("off", "fast", "full")
PALETTE_NAMES = ("manual", "colour-blind")


@dataclass
class Settings:
    detail: str = "detailed"            # model set (issue 6: simple and detailed shapes)
    lighting: bool = True               # per-pixel lighting, or flat colours
    last_seen_markers: bool = True      # R9.10 markers shown (R14.5)
    reinforcement_squares: bool = True  # R14.5 toggle
    hotseat_curtain: bool = True        # hide the board between hotseat turns
    animation_speed: str = "full"       # off, fast or full
    palette: str = "manual"             # the manual's colours, or colour-blind-safe
    smooth_edges: bool = True           # 4x multisampled window (read when it opens)
    volume: int = 80                    # sound effects, percent (0: silent)


def settings_path() -> Path:
    base = os.environ.get("WEC_CONFIG_DIR") or platformdirs.user_config_dir("wec")
    return Path(base) / "settings.json"


def saves_folder() -> Path:
    """Where the game keeps its saved games (``platformdirs.user_data_dir("wec")/saves``;
    on Linux ``$XDG_DATA_HOME/wec/saves``)."""
    return Path(platformdirs.user_data_dir("wec")) / "saves"


def load_settings(path: Path | None = None) -> tuple[Settings, str | None]:
    """The saved settings, or the defaults with a message saying why they were not read."""
    path = path or settings_path()
    if not path.exists():
        return Settings(), None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            raise ValueError("not an object")
        known = {f.name: f for f in fields(Settings)}
        values = {}
        for key, value in data.items():
            if key not in known:
                continue
            if type(value) is not type(getattr(Settings(), key)):
                raise ValueError(f"{key} has the wrong type")
            values[key] = value
        settings = Settings(**values)
        if settings.detail not in DETAILS:
            raise ValueError(f"detail must be one of {', '.join(DETAILS)}")
        if settings.palette not in PALETTE_NAMES:
            raise ValueError(f"palette must be one of {', '.join(PALETTE_NAMES)}")
        if not 0 <= settings.volume <= 100:
            raise ValueError("volume must be 0 to 100")
        if settings.animation_speed not in ANIMATION_SPEEDS:
            raise ValueError(f"animation_speed must be one of {', '.join(ANIMATION_SPEEDS)}")
        return settings, None
    except (OSError, ValueError) as problem:
        return Settings(), f"settings file {path} ignored ({problem}); using the defaults"


def save_settings(settings: Settings, path: Path | None = None) -> None:
    """Write atomically: a crash never leaves a half-written settings file."""
    path = path or settings_path()
    write_atomically(path, json.dumps(asdict(settings), indent=2, sort_keys=True)
                     .encode("utf-8"), make_folder=True)
