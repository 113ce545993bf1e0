"""The files a Peer keeps of its network games, in its state dir (net.peer).

- ``games/<game id>.jsonl``: the journal of each game (net.game_journal). At start the
  newest unfinished one is read back as the game under way, so a killed process resumes
  it; the last few finished ones answer a peer's late Resume.
- ``saves/<name>.wecsave``: a save (net.lockstep's SaveNow), named here: by our player
  when we asked, else ``<peer>-<game id>-turn<turn>``; never over an existing file (a
  number is added), with ``<name>.wecsave.json`` beside it naming the peer, our side and
  the save's SHA-256, by which an invitation to resume finds it. The peer names nothing
  on this machine (issue 20 hole 4).
- ``desync/``: the report of a desync (net.desync).

A file that cannot be written or read is reported as an ErrorEvent: the game goes on.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from wec.engine.errors import SaveError, WecError
from wec.engine.formats import position_to_dict
from wec.engine.loading import load_position
from wec.engine.match import Match
from wec.engine.pieces import Side
from wec.engine.savegame import decode_save, encode_save
from wec.net.desync import DesyncReport, write_report
from wec.net.errors import MalformedMessage, NetError
from wec.net.game_fog import fog_game_from_header
from wec.net.game_journal import Journal, journal_says_finished
from wec.net.lobby import LobbyError, SavedGame
from wec.net.lockstep import Lockstep, SaveNow
from wec.net.lockstep_fog import Audited, FogLockstep, FogSaveNow
from wec.net.messages import FileName
from wec.net.peer_events import AuditWritten, DesyncWritten, ErrorEvent, Saved
from wec.net.peer_state import MAX_GAME_ADDRESSES, Game, PeerState
from wec.storage.files import write_atomically
from wec.storage.fog_saves import (
    FogSave,
    decode_fog_save,
    encode_fog_save,
    is_fog_save,
    resume_key,
    write_new_fog_save,
)
from wec.storage.saves import write_new_save

log = logging.getLogger("wec.net.peer")

SAVE_INFO_FORMAT = "wec-peer-save/1"
SAVE_SUFFIX = ".wecsave"
KEPT_FINISHED_GAMES = 5  # finished games read back at start (to answer a late Resume)


class GameFiles:
    """Journals read back, saves written and found, desync reports written."""

    def __init__(self, state: PeerState) -> None:
        self._state = state
        self.state_dir = state.config.state_dir

    # ------------------------------------------------------------ folders

    def games_dir(self) -> Path:
        return self.state_dir / "games"

    def saves_dir(self) -> Path:
        return self.state_dir / "saves"

    def save_path(self, file_name: str) -> Path:
        """Where our save ``file_name`` is; only a bare name is allowed."""
        if "/" in file_name or "\\" in file_name or file_name.startswith("."):
            raise LobbyError(f"{file_name!r} is not a bare file name")
        return self.saves_dir() / file_name

    # ------------------------------------------------------------ saves

    def write_save(self, event: SaveNow | FogSaveNow, name: str | None = None) -> None:
        """Write a save of the game and its info file beside it, under ``name`` (our
        player's choice, checked by :func:`save_stem`) or the game's own name, never over
        an existing file. A fog-of-war game saves our half only (wec.storage.fog_saves)."""
        game = self._state.game
        if game is None:
            return
        content: Match | FogSave
        if isinstance(event, FogSaveNow):
            data_of = event.save
            content = FogSave(Side(data_of["side"]), data_of["game"],
                              data_of["public_hash"], data_of["steps"], data_of["half"],
                              data_of["record"])
            turn = content.turn
            data = encode_fog_save(content)
            key = resume_key(content).hex()  # both halves' saves share it
        else:
            content = event.match
            turn = event.match.current.turn
            data = encode_save(event.match)
            key = hashlib.sha256(data).hexdigest()
        stem = name or f"{_safe(game.peer_name)}-{game.game_id.hex()[:8]}-turn{turn}"
        digest = key
        info = {"format": SAVE_INFO_FORMAT, "peer_name": game.peer_name,
                "peer_key": base64.b64encode(game.peer_key).decode("ascii"),
                "our_side": game.lockstep.our_side.value, "sha256": digest}
        try:
            path = self._write_new(stem, content)
            write_atomically(path.with_name(path.name + ".json"),
                             (json.dumps(info, indent=1) + "\n").encode("utf-8"),
                             replace=False)
        except (OSError, SaveError, ValueError) as exc:
            self._state.emit(ErrorEvent(f"the save {stem}{SAVE_SUFFIX} was not written: "
                                        f"{exc}"))
            return
        self._state.emit(Saved(path.name, str(path), digest, event.asked_by_us))

    def _write_new(self, stem: str, match: Match | FogSave) -> Path:
        """A new save file ``<stem>.wecsave`` (or ``<stem>-2.wecsave``, ...: the first name
        free for the save and its info file) holding ``match`` (wec.storage.saves), or
        one side's half of a fog-of-war game (wec.storage.fog_saves)."""
        folder = self.saves_dir()
        folder.mkdir(parents=True, exist_ok=True)
        for number in range(1, 1000):
            path = folder / (f"{stem}{SAVE_SUFFIX}" if number == 1
                             else f"{stem}-{number}{SAVE_SUFFIX}")
            if path.exists() or path.with_name(path.name + ".json").exists():
                continue
            try:
                if isinstance(match, FogSave):
                    write_new_fog_save(path, match)
                else:
                    write_new_save(path, match)
            except FileExistsError:
                continue  # another writer took the name meanwhile
            return path
        raise OSError(f"no free file name for the save {stem}{SAVE_SUFFIX}")

    def saved_games(self, peer_key: bytes | None = None) -> Iterator[tuple[Path, dict[str, Any]]]:
        """Our saves (and their info), optionally only those played against ``peer_key``."""
        folder = self.saves_dir()
        if not folder.is_dir():
            return
        for info_path in sorted(folder.glob("*.json")):
            if not info_path.with_name(info_path.name[:-len(".json")]).is_file():
                continue  # an info file without its save
            try:
                info = json.loads(info_path.read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError):
                continue
            if not isinstance(info, dict) or info.get("format") != SAVE_INFO_FORMAT:
                continue
            if peer_key is not None and info.get("peer_key") != \
                    base64.b64encode(peer_key).decode("ascii"):
                continue
            yield info_path.with_name(info_path.name[:-len(".json")]), info

    def find_save(self, digest: bytes, peer_key: bytes) -> SavedGame | None:
        """Our save against ``peer_key`` whose SHA-256 is ``digest`` (an invitation to
        resume names the save so), or None."""
        for path, info in self.saved_games(peer_key):
            if info.get("sha256") != digest.hex():
                continue
            try:
                data = path.read_bytes()
                if is_fog_save(data):
                    fog = decode_fog_save(data)
                    if resume_key(fog) != digest:
                        continue
                    return SavedGame(None, fog.side, fog=fog)
                if hashlib.sha256(data).digest() != digest:
                    continue
                return SavedGame(decode_save(data), Side(info["our_side"]))
            except (OSError, WecError, ValueError, KeyError) as exc:
                self._state.emit(ErrorEvent(f"the save {path.name} cannot be resumed: {exc}"))
        return None

    # ------------------------------------------------------------ desync reports

    def write_desync(self, report: DesyncReport) -> None:
        """Write the report of a desync for the players to send in."""
        try:
            path = write_report(self.state_dir / "desync", report)
        except OSError as exc:
            self._state.emit(ErrorEvent(f"the desync report was not written: {exc}"))
            return
        self._state.emit(DesyncWritten(str(path)))

    # ------------------------------------------------------------ audits

    def write_audit(self, game: Game, audit: Audited) -> None:
        """After the end-of-game audit of a fog-of-war game: on an inconsistency, the
        report (``audit/audit-<game>.json``: the verdict, the turn, the action, the
        signed messages that prove it); when the audit rebuilt the whole game, the game
        as a plain save for Replays (``<peer>-<game>-audited.wecsave``)."""
        verdict = audit.proof
        if not audit.clean:
            report: dict[str, Any] = {"format": "wec-audit/1", "game": game.game_id.hex(),
                                      "our_side": game.lockstep.our_side.value,
                                      "summary": audit.summary, "turn": audit.turn,
                                      "action": audit.action}
            if hasattr(verdict, "report"):
                report["verdict"] = verdict.report()
            try:
                path = write_atomically(
                    self.state_dir / "audit" / f"audit-{game.game_id.hex()[:16]}.json",
                    (json.dumps(report, indent=1, sort_keys=True, default=_jsonable)
                     + "\n").encode("utf-8"), make_folder=True)
            except OSError as exc:
                self._state.emit(ErrorEvent(f"the audit report was not written: {exc}"))
            else:
                self._state.emit(AuditWritten(str(path), audit.summary))
        match = audited_match(verdict)
        if match is None:
            return
        stem = f"{_safe(game.peer_name)}-{game.game_id.hex()[:8]}-audited"
        try:
            path = self._write_new(stem, match)
        except (OSError, SaveError, ValueError) as exc:
            self._state.emit(ErrorEvent(f"the audited game was not saved: {exc}"))
            return
        self._state.emit(Saved(path.name, str(path), hashlib.sha256(
            path.read_bytes()).hexdigest(), True))

    # ------------------------------------------------------------ journals

    def restore_games(self) -> None:
        """Read back the games in the journal folder: the newest unfinished one becomes
        the game under way, finished ones answer a late Resume."""
        state = self._state
        folder = self.games_dir()
        if not folder.is_dir():
            return
        journals = sorted(folder.glob("*.jsonl"), key=lambda p: p.stat().st_mtime)
        recent = set(journals[-KEPT_FINISHED_GAMES:])
        for path in journals:
            try:
                if path not in recent and journal_says_finished(path):
                    continue  # long over: not read again
                game = self._restore_game(path)
            except (OSError, ValueError, KeyError, WecError, NetError) as exc:
                log.error("journal %s cannot be read: %s", path, exc)
                state.emit(ErrorEvent(f"the game journal {path.name} cannot be read: {exc}"))
                continue
            if game.finished:
                state.finished_games[game.game_id] = game
            else:
                if state.game is not None:
                    state.finished_games[state.game.game_id] = state.game
                state.game = game

    def _restore_game(self, path: Path) -> Game:
        """One game replayed from its journal (with the addresses noted in it)."""
        header, records, notes = Journal.read(path)
        game_id = bytes.fromhex(header["game"])
        journal = Journal(path)
        side = Side(header["our_side"])
        lockstep: Lockstep
        if "fog" in header:  # issue 21: our half only, replayed on the fog protocol
            fog_game, opened = fog_game_from_header(
                header["fog"], game_id, side, self._state.identity,
                base64.b64decode(header["peer_key"]))
            lockstep = FogLockstep.restore_fog(game_id, fog_game, side, records,
                                               opened=opened, record=journal.record,
                                               move_time=int(header.get("move_time", 0)))
        else:
            match = decode_save(base64.b64decode(header["start"]))
            lockstep = Lockstep.restore(game_id, match, side, records,
                                        record=journal.record,
                                        move_time=int(header.get("move_time", 0)))
        game = Game(game_id, base64.b64decode(header["peer_key"]), header["peer_name"],
                    lockstep, journal, header.get("start_title", ""))
        for note in notes:
            address = note.get("address")
            if isinstance(address, list) and len(address) == 2:
                game.address_notes += 1
                found = (str(address[0]), int(address[1]))
                if found not in game.addresses:
                    game.addresses.append(found)
        del game.addresses[:-MAX_GAME_ADDRESSES]
        return game


def audited_match(verdict: Any) -> Match | None:
    """The audited full game of an AuditVerdict (its full start and every intent), or
    None when the audit could not rebuild it."""
    start = getattr(verdict, "start", None)
    history = getattr(verdict, "history", ()) or ()
    if start is None:
        return None
    try:
        # the start as a position file holds it (engine order of a read position), so
        # that the save replays to the same positions when it is opened
        match = Match.begin(load_position(position_to_dict(start)))
        for intent in history:
            match = match.play(intent)
        decode_save(encode_save(match))  # it must open in Replays
    except (WecError, ValueError):
        return None
    return match


def _jsonable(value: Any) -> Any:
    if isinstance(value, bytes):
        return value.hex()
    return repr(value)


def _safe(name: str) -> str:
    """A display name as part of a file name."""
    return re.sub(r"[^A-Za-z0-9_-]+", "_", name).strip("_")[:24] or "peer"


def save_stem(file_name: str) -> str:
    """Our player's name for a save, without its ``.wecsave``; ValueError when it is not
    a bare file name (letters, digits, '.', '_', '-', space; no folders, no hidden
    files)."""
    stem = file_name[:-len(SAVE_SUFFIX)] if file_name.endswith(SAVE_SUFFIX) else file_name
    try:
        FileName().load(f"{stem}{SAVE_SUFFIX}", "save name")
    except MalformedMessage as exc:
        raise ValueError(exc.reason) from None
    return stem


__all__ = ["KEPT_FINISHED_GAMES", "SAVE_INFO_FORMAT", "SAVE_SUFFIX", "GameFiles", "save_stem"]
