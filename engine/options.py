"""Game options (R13): one validated, immutable object; defaults = the standard game."""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any

from wec.engine.errors import FormatError
from wec.engine.pieces import Government, Side

MOVEMENT_SYSTEMS = ("wec", "standard_chess", "mass_destruction")
MDC_PAWN_MOVEMENTS = ("all_sides_and_forward", "all_forward", "all_but_directly_in_front")
ACTION_RESTRICTIONS = ("none", "one_action_per_piece", "move_only")
DOMINANCES = ("submersion", "stealth")
QUANTITIES = ("normal", "none")
RATE_WEAPONS = ("stunner", "flame", "conversion", "rocket", "sam", "torpedo")
DEFAULT_RATES = (("stunner", 2), ("flame", 4), ("conversion", 4), ("rocket", 4), ("sam", 4),
                 ("torpedo", 4))


@dataclass(frozen=True, slots=True)
class Options:
    """Every option of R13 under its snake_case name; the defaults are the standard game."""

    movement_system: str = "wec"  # O1
    mdc_pawn_movement: str = "all_sides_and_forward"  # O2, D-21
    action_restriction: str = "none"  # O3
    sub_jet_combat: bool = False  # O4, D-22
    government_black: Government = Government.MONARCHY  # O5
    government_white: Government = Government.MONARCHY  # O5
    tank_range: int = 7  # O6
    cleric_range: int = 7  # O7
    queen_tank_range: int = 7  # O8
    queen_cleric_range: int = 7  # O9
    flame_range: int = 1  # O10, D-23
    stunner_range: int = 9  # O11
    stun_duration: int = 3  # O12
    restricted_rocket_range: int = 0  # O13, D-24
    homing_range: int = 3  # O14
    stealth_invisibility: bool = True  # O15
    submersion_invisibility: bool = True  # O16
    stealth_lock_on: bool = True  # O17
    stealth_range_detection: bool = False  # O18, D-34
    stealth_detector_range: int = 3  # O19
    submersion_detector_range: int = 3  # O20
    reveal_on_fire: bool = True  # O21
    reveal_on_capture: bool = True  # O22
    dominance: str = "submersion"  # O23, D-37
    enemy_dozing: bool = True  # O24
    king_may_fly_or_go_sub: bool = True  # O25
    king_may_be_stealthy: bool = False  # O26
    transport_from_non_ground: bool = False  # O27
    rate_of_fire: tuple[tuple[str, int], ...] = field(default=DEFAULT_RATES)  # O28
    reinforcements: str = "normal"  # O29, D-42
    weapon_articles: str = "normal"  # O30, D-42
    xxx_boxes: str = "normal"  # O31, D-42
    competitive: bool = False  # O32

    def government(self, side: Side) -> Government:
        return self.government_black if side is Side.BLACK else self.government_white

    def rate(self, weapon: str) -> int:
        return dict(self.rate_of_fire)[weapon]


# name -> (option id, allowed values or (min, max) for ints, kind)
_CHOICES: dict[str, tuple[str, tuple[str, ...]]] = {
    "movement_system": ("O1", MOVEMENT_SYSTEMS),
    "mdc_pawn_movement": ("O2", MDC_PAWN_MOVEMENTS),
    "action_restriction": ("O3", ACTION_RESTRICTIONS),
    "dominance": ("O23", DOMINANCES),
    "reinforcements": ("O29", QUANTITIES),
    "weapon_articles": ("O30", QUANTITIES),
    "xxx_boxes": ("O31", QUANTITIES),
}
_RANGES: dict[str, tuple[str, int, int]] = {
    "tank_range": ("O6", 6, 8),
    "cleric_range": ("O7", 6, 8),
    "queen_tank_range": ("O8", 6, 8),
    "queen_cleric_range": ("O9", 6, 8),
    "flame_range": ("O10", 1, 3),
    "stunner_range": ("O11", 1, 9),
    "stun_duration": ("O12", 1, 9),
    "restricted_rocket_range": ("O13", 0, 2),
    "homing_range": ("O14", 1, 9),
    "stealth_detector_range": ("O19", 1, 9),
    "submersion_detector_range": ("O20", 1, 9),
}
_FLAGS: dict[str, str] = {
    "sub_jet_combat": "O4",
    "stealth_invisibility": "O15",
    "submersion_invisibility": "O16",
    "stealth_lock_on": "O17",
    "stealth_range_detection": "O18",
    "reveal_on_fire": "O21",
    "reveal_on_capture": "O22",
    "enemy_dozing": "O24",
    "king_may_fly_or_go_sub": "O25",
    "king_may_be_stealthy": "O26",
    "transport_from_non_ground": "O27",
    "competitive": "O32",
}
OPTION_NAMES: tuple[str, ...] = tuple(
    sorted([*_CHOICES, *_RANGES, *_FLAGS, "government", "rate_of_fire"]))


def options_from_dict(data: Any, where: str = "options") -> Options:
    """Validate a position-format options object; unknown keys and bad values are refused."""
    if not isinstance(data, dict):
        raise FormatError(f"{where}: expected an object of options")
    values: dict[str, Any] = {}
    for key in sorted(data):
        value = data[key]
        if key in _CHOICES:
            oid, allowed = _CHOICES[key]
            if value not in allowed:
                raise FormatError(f"{where}.{key}: {oid} {key} must be one of "
                                  f"{', '.join(allowed)} (got {value!r})")
            values[key] = value
        elif key in _RANGES:
            oid, low, high = _RANGES[key]
            if type(value) is not int or not low <= value <= high:
                raise FormatError(f"{where}.{key}: {oid} {key} must be a whole number "
                                  f"{low}..{high} (got {value!r})")
            values[key] = value
        elif key in _FLAGS:
            if type(value) is not bool:
                raise FormatError(f"{where}.{key}: {_FLAGS[key]} {key} must be true or false "
                                  f"(got {value!r})")
            values[key] = value
        elif key == "government":
            values.update(_parse_government(value, f"{where}.government"))
        elif key == "rate_of_fire":
            values["rate_of_fire"] = _parse_rates(value, f"{where}.rate_of_fire")
        else:
            raise FormatError(f"{where}.{key}: unknown option (known: {', '.join(OPTION_NAMES)})")
    options = replace(Options(), **values)
    check_combination(options, where)
    return options


def check_combination(options: Options, where: str = "options") -> None:
    """R5.6.1, D-22: Sub/Jet combat needs Move-only actions and a non-WEC movement system."""
    if options.sub_jet_combat and (options.action_restriction != "move_only"
                                   or options.movement_system == "wec"):
        raise FormatError(f"{where}.sub_jet_combat: O4 sub_jet_combat may be true only with "
                          "action_restriction move_only and movement_system standard_chess or "
                          "mass_destruction (R5.6.1)")


def _parse_government(value: Any, where: str) -> dict[str, Government]:
    allowed = ", ".join(g.value for g in Government)
    if not isinstance(value, dict) or sorted(value) != ["black", "white"]:
        raise FormatError(f"{where}: O5 government must be {{\"black\": G, \"white\": G}} "
                          f"with G one of {allowed}")
    out = {}
    for side in ("black", "white"):
        try:
            out[f"government_{side}"] = Government(value[side])
        except ValueError:
            raise FormatError(f"{where}.{side}: O5 government must be one of {allowed} "
                              f"(got {value[side]!r})") from None
    return out


def _parse_rates(value: Any, where: str) -> tuple[tuple[str, int], ...]:
    if not isinstance(value, dict):
        raise FormatError(f"{where}: O28 rate_of_fire must be an object of weapon: rate")
    rates = dict(DEFAULT_RATES)
    for weapon in sorted(value):
        if weapon not in rates:
            raise FormatError(f"{where}.{weapon}: unknown weapon "
                              f"(known: {', '.join(RATE_WEAPONS)})")
        rate = value[weapon]
        if type(rate) is not int or not 1 <= rate <= 9:
            raise FormatError(f"{where}.{weapon}: O28 rate of fire must be a whole number 1..9 "
                              f"(got {rate!r})")
        rates[weapon] = rate
    return tuple((w, rates[w]) for w in RATE_WEAPONS)


def options_to_dict(options: Options) -> dict[str, Any]:
    """Every option, explicit, in the position-format shape (sorted keys)."""
    out: dict[str, Any] = {}
    for f in fields(Options):
        name = f.name
        if name.startswith("government_"):
            continue
        value = getattr(options, name)
        out[name] = dict(value) if name == "rate_of_fire" else value
    out["government"] = {"black": options.government_black.value,
                         "white": options.government_white.value}
    return dict(sorted(out.items()))


def option_specs() -> list[tuple[str, str, str, tuple[Any, ...]]]:
    """Every option as (name, option id, kind, allowed values) in option-id order, for
    screens that offer them: kind ``choice`` (allowed names), ``range`` (min, max),
    ``flag`` (), ``government`` (allowed names) or ``rates`` (weapons)."""
    specs: list[tuple[str, str, str, tuple[Any, ...]]] = []
    specs += [(name, oid, "choice", allowed) for name, (oid, allowed) in _CHOICES.items()]
    specs += [(name, oid, "range", (low, high)) for name, (oid, low, high) in _RANGES.items()]
    specs += [(name, oid, "flag", ()) for name, oid in _FLAGS.items()]
    specs.append(("government", "O5", "government", tuple(g.value for g in Government)))
    specs.append(("rate_of_fire", "O28", "rates", RATE_WEAPONS))
    return sorted(specs, key=lambda spec: int(spec[1][1:]))
