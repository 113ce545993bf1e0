"""Sound effects of the play screen: move, fire, hit, stun and game end (issue 18).

The WAV files are generated (``client/soundgen.py``) and shipped in ``sounds/``; they are
loaded once through Panda3D's audio manager (``loader.loadSfx``) and played at the
player's volume (Settings, 0 to 100). Which effect plays comes from the events the
player's own side saw of an action, so a sound never tells more than the board shows.
Without an audio device (``audio-library-name null``, as the tests run) Panda3D gives
silent sounds and everything else works the same; ``played`` records what was asked
for, so tests can hear it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from panda3d.core import Filename

from wec.client.resources import asset_folder
from wec.engine.events import (
    Captured,
    Converted,
    Destroyed,
    Dozed,
    Event,
    Fired,
    GameOver,
    Hit,
    Moved,
    Stunned,
    TransportStepped,
)

EFFECTS = ("move", "fire", "hit", "stun", "game_end")
VOLUMES = (0, 25, 50, 75, 100)


def effects_of(events: Iterable[Event]) -> list[str]:
    """The effects an action's events call for, each once, in a fixed order of
    importance (the game's end last)."""
    wanted: set[str] = set()
    for event in events:
        if isinstance(event, Moved | Dozed | TransportStepped):
            wanted.add("move")
        elif isinstance(event, Fired):
            wanted.add("fire")
        elif isinstance(event, Hit | Destroyed | Captured | Converted):
            wanted.add("hit")
        elif isinstance(event, Stunned):
            wanted.add("stun")
        elif isinstance(event, GameOver):
            wanted.add("game_end")
    return [name for name in EFFECTS if name in wanted]


class Sounds:
    """The effects, loaded once, played at ``volume`` percent (0: silent)."""

    def __init__(self, loader: Any, volume: int = 80) -> None:
        folder = asset_folder("sounds")
        self.volume = volume
        self.played: list[str] = []
        self.heard: list[tuple[str, float]] = []  # (effect, volume) actually played
        self.sounds: dict[str, Any] = {}
        self.problem = ""
        for name in EFFECTS:
            path = folder / f"{name}.wav"
            try:
                sound = loader.loadSfx(Filename.fromOsSpecific(str(path)))
            except Exception as failure:  # a missing file or codec: play on silently
                self.problem = f"sound {path.name} not loaded: {failure}"
                continue
            if sound is not None:
                self.sounds[name] = sound

    def set_volume(self, volume: int) -> None:
        self.volume = max(0, min(100, int(volume)))

    def play(self, name: str) -> None:
        self.played.append(name)
        sound = self.sounds.get(name)
        if sound is None or self.volume <= 0:
            return
        sound.setVolume(self.volume / 100.0)
        sound.play()
        self.heard.append((name, self.volume / 100.0))

    def play_events(self, events: Iterable[Event]) -> None:
        for name in effects_of(events):
            self.play(name)
