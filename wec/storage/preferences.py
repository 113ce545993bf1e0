"""The player's preferred game options (R13.1): saved, loaded, and the standard defaults
always restorable.

The preferences are one JSON file, ``preferences.json``, in the user's configuration
folder: ``platformdirs.user_config_dir("wec")`` (on Linux ``$XDG_CONFIG_HOME/wec``),
or the folder named by ``$WEC_CONFIG_DIR``, or a ``folder`` given to each function::

    {"format": "wec-preferences/1", "options": {...the position-format options...}}

The options are those of a new game, so competitive mode (O32) is never among them
(R14.1: every new game starts non-competitive). A save is atomic: the text goes to a
temporary file beside the old one, is forced to disk and then replaces it in one rename,
so a crash leaves the old preferences or the new ones, never a mix. A damaged file is
never changed by reading it: ``read_preferences`` refuses it with a ``PreferencesError``
that says what is wrong, and ``load_preferences`` falls back to the standard defaults
and keeps that reason for the player to read.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import platformdirs

from wec.engine.errors import FormatError, WecError
from wec.engine.options import Options, check_combination, options_from_dict, options_to_dict
from wec.storage.files import write_atomically

PREFERENCES_FORMAT = "wec-preferences/1"
FILE_NAME = "preferences.json"
FOLDER_VARIABLE = "WEC_CONFIG_DIR"
# A real preferences file is about 1 kB; anything far bigger is some other file.
MAX_BYTES = 1024 * 1024

Folder = str | os.PathLike[str] | None


class PreferencesError(WecError):
    """Preferences that cannot be read or written; the message names the file."""


@dataclass(frozen=True, slots=True)
class LoadedPreferences:
    """What a new game starts from: the saved preferences, or the standard defaults
    (R13.1); ``problem`` says why a preferences file was not used (None when there is
    none or it was read)."""

    options: Options
    saved: bool
    problem: str | None = None


def standard_defaults() -> Options:
    """R13.1: the original defaults of every option (the standard game)."""
    return Options()


def preferences_folder(folder: Folder = None) -> Path:
    """Where the preferences live: ``folder`` if given, else ``$WEC_CONFIG_DIR``, else
    the platform's user configuration folder for wec."""
    if folder is not None:
        return Path(folder)
    return Path(os.environ.get(FOLDER_VARIABLE) or platformdirs.user_config_dir("wec"))


def preferences_path(folder: Folder = None) -> Path:
    return preferences_folder(folder) / FILE_NAME


# ---------------------------------------------------------------- saving

def save_preferences(options: Options, folder: Folder = None) -> Path:
    """Keep ``options`` as the player's preferred options, atomically; the file written.
    Competitive mode is not kept (R14.1). A PreferencesError if it cannot be written
    (then the old file is as it was)."""
    path = preferences_path(folder)
    try:
        check_combination(options)
    except FormatError as exc:
        raise PreferencesError(f"{path}: not saved: {exc}") from None
    text = json.dumps(_preferences_data(options), indent=2, sort_keys=True) + "\n"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, text.encode("utf-8"))
    except OSError as exc:
        raise PreferencesError(f"{path}: cannot write: {exc.strerror or exc}") from None
    return path


def _preferences_data(options: Options) -> dict[str, Any]:
    data = options_to_dict(replace(options, competitive=False))
    del data["competitive"]
    return {"format": PREFERENCES_FORMAT, "options": data}


def restore_defaults(folder: Folder = None) -> Options:
    """R13.1: forget the saved preferences, so new games use the standard defaults
    again; those defaults. A PreferencesError if the file cannot be removed."""
    path = preferences_path(folder)
    try:
        path.unlink(missing_ok=True)
    except OSError as exc:
        raise PreferencesError(f"{path}: cannot remove: {exc.strerror or exc}") from None
    return standard_defaults()


# ---------------------------------------------------------------- reading

def read_preferences(folder: Folder = None) -> Options | None:
    """The saved preferences, None when none are saved; a PreferencesError naming the
    file and the problem when the file is damaged (the file is only read)."""
    path = preferences_path(folder)
    try:
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size > MAX_BYTES:
                raise PreferencesError(f"{path}: not a wec preferences file ({size} bytes)")
            raw = handle.read()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise PreferencesError(f"{path}: cannot read: {exc.strerror or exc}") from None
    return _options_of(path, raw)


def _options_of(path: Path, raw: bytes) -> Options:
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise PreferencesError(f"{path}: not a text file (expected {PREFERENCES_FORMAT} "
                               "JSON)") from None
    except json.JSONDecodeError as exc:
        raise PreferencesError(f"{path}: not valid JSON: line {exc.lineno} column "
                               f"{exc.colno}: {exc.msg}") from None
    if not isinstance(data, dict) or not isinstance(data.get("format"), str):
        raise PreferencesError(f"{path}: not a wec preferences file (expected an object with "
                               f"\"format\": \"{PREFERENCES_FORMAT}\")")
    fmt = data["format"]
    if fmt != PREFERENCES_FORMAT:
        if fmt.startswith("wec-preferences/"):
            raise PreferencesError(f"{path}: format {fmt!r} is not readable by this version "
                                   f"of wec (it reads {PREFERENCES_FORMAT})")
        raise PreferencesError(f"{path}: not a wec preferences file (format {fmt!r})")
    if sorted(data) != ["format", "options"]:
        raise PreferencesError(f"{path}: expected exactly the fields format and options (got "
                               f"{', '.join(sorted(data))})")
    options_data = data["options"]
    if isinstance(options_data, dict) and "competitive" in options_data:
        raise PreferencesError(f"{path}: options.competitive: not a preference (R14.1: every "
                               "new game starts non-competitive)")
    try:
        return options_from_dict(options_data)
    except FormatError as exc:
        raise PreferencesError(f"{path}: {exc}") from None


def load_preferences(folder: Folder = None) -> LoadedPreferences:
    """The options a new game starts with: the saved preferences if they read, else the
    standard defaults (R13.1) with the reason the file was not used. Never raises for a
    damaged file, and never changes it."""
    try:
        saved = read_preferences(folder)
    except PreferencesError as exc:
        return LoadedPreferences(standard_defaults(), False,
                                 f"{exc}; using the standard defaults (R13.1)")
    if saved is None:
        return LoadedPreferences(standard_defaults(), False)
    return LoadedPreferences(saved, True)
