"""User preferences (wec/preferences.py, R13.1): the player's preferred options are saved
in the user's configuration folder and restored; the standard defaults are always
restorable; a damaged file is refused with a clear message and never changed. Also the
folders of client/settings.py, which come from platformdirs too."""

from __future__ import annotations

import json
import os
from pathlib import Path

import platformdirs
import pytest

from wec.client.settings import saves_folder, settings_path
from wec.engine.options import Options, options_from_dict
from wec.engine.pieces import Government
from wec.storage.preferences import (
    LoadedPreferences,
    PreferencesError,
    load_preferences,
    preferences_path,
    read_preferences,
    restore_defaults,
    save_preferences,
    standard_defaults,
)

CHOSEN = options_from_dict({
    "movement_system": "mass_destruction", "mdc_pawn_movement": "all_forward",
    "government": {"black": "theocracy", "white": "democracy"}, "tank_range": 8,
    "stealth_range_detection": True, "rate_of_fire": {"stunner": 3}})
DEFAULTS_USED = "; using the standard defaults (R13.1)"


def unchanged_after(path: Path, action) -> object:
    """Run ``action`` and check it left ``path`` exactly as it was."""
    before, stamp = path.read_bytes(), path.stat().st_mtime_ns
    result = action()
    assert path.read_bytes() == before
    assert path.stat().st_mtime_ns == stamp
    return result


# ---------------------------------------------------------------- saving and loading

def test_saved_preferences_come_back(tmp_path):
    path = save_preferences(CHOSEN, tmp_path)
    assert path == tmp_path / "preferences.json"
    assert read_preferences(tmp_path) == CHOSEN
    assert load_preferences(tmp_path) == LoadedPreferences(CHOSEN, True, None)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["format"] == "wec-preferences/1"
    assert data["options"]["government"] == {"black": "theocracy", "white": "democracy"}
    assert data["options"]["rate_of_fire"] == {"conversion": 4, "flame": 4, "rocket": 4,
                                               "sam": 4, "stunner": 3, "torpedo": 4}
    assert (data["options"]["movement_system"], data["options"]["tank_range"]) == (
        "mass_destruction", 8)
    assert "competitive" not in data["options"]


def test_a_new_save_replaces_the_old_and_leaves_no_temporary_file(tmp_path):
    save_preferences(CHOSEN, tmp_path)
    save_preferences(Options(stun_duration=5), tmp_path)
    assert read_preferences(tmp_path) == Options(stun_duration=5)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["preferences.json"]


def test_competitive_mode_is_not_a_preference(tmp_path):
    """R14.1: every new game starts non-competitive, whatever the game saved from was."""
    save_preferences(Options(competitive=True, flame_range=2), tmp_path)
    assert read_preferences(tmp_path) == Options(flame_range=2)


def test_without_a_file_new_games_use_the_standard_defaults(tmp_path):
    assert read_preferences(tmp_path) is None
    assert load_preferences(tmp_path) == LoadedPreferences(Options(), False, None)
    assert standard_defaults() == Options()
    assert (standard_defaults().movement_system, standard_defaults().tank_range,
            standard_defaults().government_black) == ("wec", 7, Government.MONARCHY)


def test_the_standard_defaults_are_always_restorable(tmp_path):
    """R13.1: restoring forgets the saved preferences; the next game is standard."""
    save_preferences(CHOSEN, tmp_path)
    assert restore_defaults(tmp_path) == Options()
    assert not (tmp_path / "preferences.json").exists()
    assert load_preferences(tmp_path) == LoadedPreferences(Options(), False, None)
    assert restore_defaults(tmp_path) == Options()  # nothing saved: still fine


def test_a_forbidden_combination_is_not_saved(tmp_path):
    with pytest.raises(PreferencesError) as refused:
        save_preferences(Options(sub_jet_combat=True), tmp_path)
    assert str(refused.value) == (
        f"{tmp_path / 'preferences.json'}: not saved: options.sub_jet_combat: O4 "
        "sub_jet_combat may be true only with action_restriction move_only and "
        "movement_system standard_chess or mass_destruction (R5.6.1)")
    assert not (tmp_path / "preferences.json").exists()


def test_a_failed_save_keeps_the_old_preferences(tmp_path, monkeypatch):
    """The rename is the last step: if it fails, the old file is untouched and the
    temporary file is gone."""
    path = save_preferences(CHOSEN, tmp_path)

    def refuse(source: object, target: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(PreferencesError) as refused:
        unchanged_after(path, lambda: save_preferences(Options(), tmp_path))
    assert str(refused.value) == f"{path}: cannot write: No space left on device"
    monkeypatch.undo()
    assert read_preferences(tmp_path) == CHOSEN
    assert sorted(p.name for p in tmp_path.iterdir()) == ["preferences.json"]


def test_saving_creates_the_folder(tmp_path):
    folder = tmp_path / "deep" / "wec"
    save_preferences(CHOSEN, folder)
    assert read_preferences(folder) == CHOSEN


# ---------------------------------------------------------------- damaged files

@pytest.mark.parametrize("content, problem", [
    (b"{\"format\": \"wec-preferences/1\", ", "not valid JSON: line 1 column 33: Expecting "
                                               "property name enclosed in double quotes"),
    (b"\xff\xfe\x00binary", "not a text file (expected wec-preferences/1 JSON)"),
    (b"[1, 2]", "not a wec preferences file (expected an object with \"format\": "
                "\"wec-preferences/1\")"),
    (b"{\"format\": \"wec-position/1\", \"turn\": 1}",
     "not a wec preferences file (format 'wec-position/1')"),
    (b"{\"format\": \"wec-preferences/2\", \"options\": {}}",
     "format 'wec-preferences/2' is not readable by this version of wec (it reads "
     "wec-preferences/1)"),
    (b"{\"format\": \"wec-preferences/1\", \"options\": {}, \"extra\": 1}",
     "expected exactly the fields format and options (got extra, format, options)"),
    (b"{\"format\": \"wec-preferences/1\", \"options\": {\"tank_range\": 9}}",
     "options.tank_range: O6 tank_range must be a whole number 6..8 (got 9)"),
    (b"{\"format\": \"wec-preferences/1\", \"options\": {\"colour\": \"red\"}}",
     "options.colour: unknown option (known: action_restriction, cleric_range, competitive, "
     "dominance, enemy_dozing, flame_range, government, homing_range, king_may_be_stealthy, "
     "king_may_fly_or_go_sub, mdc_pawn_movement, movement_system, queen_cleric_range, "
     "queen_tank_range, rate_of_fire, reinforcements, restricted_rocket_range, "
     "reveal_on_capture, reveal_on_fire, stealth_detector_range, stealth_invisibility, "
     "stealth_lock_on, stealth_range_detection, stun_duration, stunner_range, "
     "sub_jet_combat, submersion_detector_range, submersion_invisibility, tank_range, "
     "transport_from_non_ground, weapon_articles, xxx_boxes)"),
    (b"{\"format\": \"wec-preferences/1\", \"options\": {\"competitive\": true}}",
     "options.competitive: not a preference (R14.1: every new game starts non-competitive)"),
    (b"{\"format\": \"wec-preferences/1\", \"options\": {\"sub_jet_combat\": true}}",
     "options.sub_jet_combat: O4 sub_jet_combat may be true only with action_restriction "
     "move_only and movement_system standard_chess or mass_destruction (R5.6.1)"),
])
def test_a_damaged_file_is_refused_and_left_untouched(tmp_path, content, problem):
    path = tmp_path / "preferences.json"
    path.write_bytes(content)
    with pytest.raises(PreferencesError) as refused:
        unchanged_after(path, lambda: read_preferences(tmp_path))
    assert str(refused.value) == f"{path}: {problem}"
    loaded = unchanged_after(path, lambda: load_preferences(tmp_path))
    assert loaded == LoadedPreferences(Options(), False, f"{path}: {problem}{DEFAULTS_USED}")


def test_a_huge_file_is_not_read(tmp_path):
    path = tmp_path / "preferences.json"
    path.write_bytes(b" " * (1024 * 1024 + 1))
    assert load_preferences(tmp_path).problem == (
        f"{path}: not a wec preferences file (1048577 bytes){DEFAULTS_USED}")


def test_a_folder_in_place_of_the_file_is_refused(tmp_path):
    (tmp_path / "preferences.json").mkdir()
    assert load_preferences(tmp_path).problem == (
        f"{tmp_path / 'preferences.json'}: cannot read: Is a directory{DEFAULTS_USED}")


def test_saving_over_a_damaged_file_replaces_it(tmp_path):
    """Only reading leaves a damaged file alone; the player's next save replaces it."""
    (tmp_path / "preferences.json").write_text("{oops", encoding="utf-8")
    save_preferences(CHOSEN, tmp_path)
    assert load_preferences(tmp_path) == LoadedPreferences(CHOSEN, True, None)


# ---------------------------------------------------------------- folders

def test_the_folder_comes_from_platformdirs_unless_overridden(tmp_path, monkeypatch):
    monkeypatch.delenv("WEC_CONFIG_DIR", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    assert platformdirs.user_config_dir("wec") == str(tmp_path / "config" / "wec")
    assert preferences_path() == tmp_path / "config" / "wec" / "preferences.json"
    monkeypatch.setenv("WEC_CONFIG_DIR", str(tmp_path / "mine"))
    assert preferences_path() == tmp_path / "mine" / "preferences.json"
    save_preferences(CHOSEN)
    assert read_preferences(tmp_path / "mine") == CHOSEN
    assert preferences_path(tmp_path / "given") == tmp_path / "given" / "preferences.json"


def test_client_settings_folders_come_from_platformdirs(tmp_path, monkeypatch):
    """client/settings.py: settings in the user config folder (WEC_CONFIG_DIR overrides
    it), saved games in the user data folder."""
    monkeypatch.delenv("WEC_CONFIG_DIR", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert settings_path() == tmp_path / "config" / "wec" / "settings.json"
    assert saves_folder() == tmp_path / "data" / "wec" / "saves"
    monkeypatch.setenv("WEC_CONFIG_DIR", str(tmp_path / "mine"))
    assert settings_path() == tmp_path / "mine" / "settings.json"
