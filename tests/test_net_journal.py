"""A game's journal (net.game_journal): every input of the Lockstep, one JSON line each,
read back as written (a restarted peer replays it into the same game)."""

from __future__ import annotations

import json
from pathlib import Path

from wec.net.game_journal import Journal
from wec.net.messages import Chat


def test_each_input_is_one_standard_json_line_and_reads_back(tmp_path: Path) -> None:
    """A message goes as its msgpack bytes in base64 and a plain value as itself, each
    line the JSON a standard encoder writes (the message's line is put together without
    the encoder's scan of its base64 text, since session 26), and ``read`` gives back
    the header, the inputs in order and the notes."""
    path = tmp_path / "game.jsonl"
    journal = Journal.create(path, {"side": "white"})
    inputs = [("recv", Chat("hello, é \" \\ there")), ("play", {"intent": [1, 2]}),
              ("recv", Chat("x" * 500)), ("skip", 3)]
    for kind, item in inputs:
        journal.record(kind, item)
    journal.note(address="127.0.0.1")
    journal.close()
    header, records, notes = Journal.read(path)
    assert header["side"] == "white"
    assert records == inputs
    assert notes == [{"address": "127.0.0.1"}]
    for line in path.read_text(encoding="utf-8").splitlines()[1:]:
        assert line == json.dumps(json.loads(line), sort_keys=True)
