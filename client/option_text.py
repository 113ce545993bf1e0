"""The R13 options as the options screen shows them (issue 18): a human name, a
one-line explanation, the option's id and rule numbers (the screen's tooltip), and a
human name for each value. The engine's ``option_specs`` lists the options; this only
names them."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class OptionText:
    title: str
    explanation: str
    rules: str
    values: dict[str, str] = field(default_factory=dict)


QUANTITY = {"normal": "Normal", "none": "None"}

OPTION_TEXT: dict[str, OptionText] = {
    "movement_system": OptionText(
        "Movement system", "How Pawns, Tanks, Clerics, Choppers and the Queen move.",
        "R5.3-R5.5", {"wec": "WEC", "standard_chess": "Standard Chess",
                      "mass_destruction": "Mass Destruction Chess"}),
    "mdc_pawn_movement": OptionText(
        "MDC pawn moves", "The squares a pawn steps to under Mass Destruction Chess.",
        "R5.5.1", {"all_sides_and_forward": "Sides and forward",
                   "all_forward": "Forward three", "all_but_directly_in_front":
                   "All but straight ahead"}),
    "action_restriction": OptionText(
        "Action limit", "Each piece acting once a turn, or Moves only (no Fire, Pick-up, "
        "Drop, Exchange, Reinforce).", "R4.12",
        {"none": "None", "one_action_per_piece": "One action per piece",
         "move_only": "Move only"}),
    "sub_jet_combat": OptionText(
        "Subs and Jets capture", "Sub and Jet moves capture (needs Move only and a chess "
        "movement system).", "R5.6"),
    "government": OptionText(
        "Government", "Each side's primary and secondary pieces (Monarchy: King and "
        "Queen) and their defences.", "R11",
        {"monarchy": "Monarchy", "dictatorship": "Dictatorship", "theocracy": "Theocracy",
         "democracy": "Democracy"}),
    "tank_range": OptionText(
        "Tank range", "How long a Tank's path is; it lands only on the last square.",
        "R5.3.5"),
    "cleric_range": OptionText(
        "Cleric range", "How long a Cleric's path is; it lands only on the last square.",
        "R5.3.6"),
    "queen_tank_range": OptionText(
        "Queen's straight range", "How long the Queen's Tank-like paths are.", "R5.3.8"),
    "queen_cleric_range": OptionText(
        "Queen's diagonal range", "How long the Queen's Cleric-like paths are.", "R5.3.8"),
    "flame_range": OptionText(
        "Flame reach", "How many squares a Flame burns in its direction.", "R6.5.1"),
    "stunner_range": OptionText(
        "Stunner reach", "How far a Stunner looks for the first piece to stun.", "R6.6.1"),
    "stun_duration": OptionText(
        "Stun length", "How many of its own turns a stunned piece misses.", "R7.1"),
    "restricted_rocket_range": OptionText(
        "Jet and Sub rocket reach", "How far a Jet's or Sub's own rocket reaches (0: "
        "only straight below or above).", "R6.12"),
    "homing_range": OptionText(
        "Homing range", "How far away a SAM or Torpedo may lock on to its target.",
        "R6.11.1"),
    "stealth_invisibility": OptionText(
        "Stealth hides pieces", "Pieces with Stealth are unseen by the enemy unless "
        "detected.", "R9.2"),
    "submersion_invisibility": OptionText(
        "Submerged pieces hidden", "Pieces at the Sub level are unseen unless near an "
        "enemy Torpedo Launcher.", "R9.6"),
    "stealth_lock_on": OptionText(
        "Anti-Stealth locks on", "A newly held Anti-Stealth locks on to the nearest hidden "
        "stealthy enemy.", "R9.4"),
    "stealth_range_detection": OptionText(
        "Anti-Stealth sees nearby", "Stealthy enemies within the detector range of an "
        "Anti-Stealth are seen.", "R9.3(b)"),
    "stealth_detector_range": OptionText(
        "Stealth detector range", "How near Anti-Stealth detection reaches (when on).",
        "R9.3(b)"),
    "submersion_detector_range": OptionText(
        "Sub detector range", "How near a Torpedo Launcher must be to see a submerged "
        "enemy.", "R9.6"),
    "reveal_on_fire": OptionText(
        "Firing reveals", "A piece that fires is seen by the enemy until it moves.", "R9.8"),
    "reveal_on_capture": OptionText(
        "Capturing reveals", "A stealthy piece that captures is seen until it moves.",
        "R9.8"),
    "dominance": OptionText(
        "Stealth or submersion first", "Whether a detected submerged piece is seen even "
        "when stealthy (Submersion).", "R9.7",
        {"submersion": "Submersion", "stealth": "Stealth"}),
    "enemy_dozing": OptionText(
        "Dozers push enemies", "A Dozer may push enemy pieces as well as its own.",
        "R8.8.2"),
    "king_may_fly_or_go_sub": OptionText(
        "King may fly or dive", "The King may be carried up or down, or use a Jump Pack or "
        "Scuba Suit.", "R8.7.2"),
    "king_may_be_stealthy": OptionText(
        "King may be stealthy", "The King may carry Stealth.", "R9.9"),
    "transport_from_non_ground": OptionText(
        "Transport from Air or Sub", "Jump Packs and Scuba Suits work for pieces carried "
        "in the Air or at the Sub level.", "R8, D-32"),
    "rate_of_fire": OptionText(
        "Reload (own turns)", "Own turns between two shots of one weapon.", "R6.3",
        {"stunner": "Stunner", "flame": "Flame", "conversion": "Conversion",
         "rocket": "Rocket", "sam": "SAM", "torpedo": "Torpedo"}),
    "reinforcements": OptionText(
        "Reinforcements", "Whether each side has reinforcements waiting off the board.",
        "R10.2", QUANTITY),
    "weapon_articles": OptionText(
        "Weapon articles", "Whether weapons lie on the board at the start.", "R15.2",
        QUANTITY),
    "xxx_boxes": OptionText(
        "XXX boxes", "Whether XXX boxes lie on the board at the start.", "R2.6, R15.2",
        QUANTITY),
    "competitive": OptionText(
        "Competitive", "One-way: no undo, no option changes, each side's history "
        "censored.", "R14.3"),
}


def value_label(name: str, value: object) -> str:
    """A value as the screen shows it: ``all_sides_and_forward`` -> ``Sides and
    forward``; numbers as they are."""
    text = OPTION_TEXT[name].values.get(str(value)) if name in OPTION_TEXT else None
    return text if text is not None else str(value)


def value_of(name: str, label: str) -> str:
    """The value behind a label shown by ``value_label``."""
    for value, text in OPTION_TEXT[name].values.items() if name in OPTION_TEXT else ():
        if text == label:
            return value
    return label
