"""The engine's error types: every refusal names what to fix."""

from __future__ import annotations


class WecError(Exception):
    """Base of every error the engine raises on purpose."""


class IllegalIntent(WecError):
    """An intent the rules forbid; ``rule`` is the RULES.md number it breaks (e.g. R5.2.2)."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"{rule}: {message}")
        self.rule = rule
        self.detail = message


# Why the rules refuse something: (rule number, message); built where a refusal is
# checked, raised only when a person will read it.
Reason = tuple[str, str]


def refuse(reason: Reason | None) -> None:
    """Raise IllegalIntent for ``reason``; do nothing when there is none."""
    if reason is not None:
        raise IllegalIntent(*reason)


class FormatError(WecError):
    """A position, intent or option that is not well formed; the message names the field."""


class MatchError(WecError):
    """A match operation refused (engine.match): Undo, an option change or the editor in
    competitive mode, a second switch, an undo past the start; ``rule`` is the RULES.md
    number (R14.2, R14.3)."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"{rule}: {message}")
        self.rule = rule
        self.detail = message


class SaveError(WecError):
    """A saved game refused (engine.savegame, wec.storage.saves): not a wec save, made by a newer
    wec, truncated, corrupted, invalid content or a step whose replay differs; the
    message says which and where, and the file is left as it was."""


class EditorError(WecError):
    """The board editor refused (engine.editor, R14.4): an edit it cannot make, or a board
    that is not a valid start position; ``problems`` holds every problem, one line each,
    each naming the constraint and the square (e.g. "R14.4(d): White has no legal Move")."""

    def __init__(self, problems: list[str] | tuple[str, ...]) -> None:
        self.problems = tuple(problems)
        count = len(self.problems)
        head = self.problems[0] if count == 1 else (
            f"not a valid start board ({count} problems): " + "; ".join(self.problems))
        super().__init__(head)


class ReplayIntegrityError(SaveError):
    """A replay whose recomputation differs from the file (engine.replay, issue 7 item 4):
    an intent the rules refuse, a state hash, a snapshot or a notation line that is not
    what replaying the game from its start gives. ``step`` (1-based) and ``turn`` name
    the first bad step found; ``str()`` names both ("step 12 (turn 4): ...")."""

    def __init__(self, step: int, turn: int, message: str) -> None:
        super().__init__(f"step {step} (turn {turn}): {message}")
        self.step = step
        self.turn = turn
        self.detail = message


class ReplayRefused(SaveError):
    """A replay the rules do not allow: R14.3, the full history of a competitive game is
    revealed only when the game ends."""
