"""Bundled scenarios: start boards a player loads by name (docs/scenarios.md).

Each scenario is a wec-position/1 file in this package (``NAME.json``), built by
``make_scenarios.py`` with the board editor and valid by its R14.4 checks. The position
format admits no fields of its own beyond the position, so the descriptions live here.

    scenario_names()                 -> ["standard", "open_information", ...]
    scenario_description("air_war")  -> one paragraph for the player
    load_scenario("air_war")         -> the start Position
"""

from __future__ import annotations

import json
from importlib import resources

from wec.engine.errors import FormatError, WecError
from wec.engine.loading import load_position
from wec.engine.position import Position

# name -> one paragraph for the player, in the order the scenarios are offered.
DESCRIPTIONS: dict[str, str] = {
    "standard": (
        "The standard game: the setup of R15 with every option at its R13 default. Each "
        "side has 28 pieces on its two home rows, 68 articles lie on the six middle rows, "
        "and reinforcements wait on the enemy's back row. Stealthy pieces and submerged "
        "Subs are hidden from the enemy until found."),
    "open_information": (
        "The standard setup with stealth invisibility (O15) and submersion invisibility "
        "(O16) turned off: every piece is always visible to both players, so nothing can "
        "hide and Anti-Stealth and Torpedo detection no longer matter. A good first game, "
        "and a game of pure calculation."),
    "ground_war": (
        "The standard setup without any piece that can fly or dive: no Jets, no Choppers "
        "and no Subs, on the board or as reinforcements, and no transport articles (Bike, "
        "Jump Pack, Scuba Suit). All fighting happens on the Ground, where Tanks, Clerics, "
        "Pawns and the government pieces decide the game."),
    "air_war": (
        "A battle for the sky. Each side has four Jets, two Choppers and two AAA behind a "
        "line of SAM-Torpedo Pawns, with its King, Queen, a Stealth Pawn and an XXX Pawn. "
        "SAM Launchers, Anti-SAM, Jump Packs and an XXX box lie in the middle, and two more "
        "Jets wait as reinforcements on the enemy's back row."),
    "submarine_duel": (
        "A hunt under the surface. Each side starts with four Subs already submerged, "
        "hidden from the enemy until a Torpedo Launcher comes within range, two Destroyers "
        "to find them, two Dozers, a row of SAM-Torpedo Pawns and its King and Queen. "
        "Torpedo Launchers, Anti-Torpedo and Scuba Suits lie in the middle, and two more "
        "Subs wait as reinforcements."),
    "king_hunt": (
        "A short, sharp game: each King stands forward (White's on (4,5), Black's on "
        "(7,6)) with only a Flame Pawn and a Conversion Pawn in front of it, while Tanks, "
        "Clerics, Choppers and the Queen wait on the home row. There are no articles and "
        "no reinforcements: the first side to take or convert the enemy King wins."),
}


class ScenarioError(WecError):
    """A scenario that does not exist, or a bundled file that does not read."""


def scenario_names() -> list[str]:
    """Every bundled scenario, in the order they are offered."""
    return list(DESCRIPTIONS)


def scenario_description(name: str) -> str:
    """The paragraph that tells a player what scenario ``name`` is."""
    _check_known(name)
    return DESCRIPTIONS[name]


def load_scenario(name: str) -> Position:
    """The start position of scenario ``name``, read from the package."""
    _check_known(name)
    text = resources.files(__name__).joinpath(f"{name}.json").read_text(encoding="utf-8")
    try:
        return load_position(json.loads(text))
    except (json.JSONDecodeError, FormatError) as exc:
        raise ScenarioError(f"scenario {name}: the bundled file does not read: {exc}") from None


def _check_known(name: str) -> None:
    if name not in DESCRIPTIONS:
        raise ScenarioError(f"unknown scenario {name!r} (known: {', '.join(DESCRIPTIONS)})")
