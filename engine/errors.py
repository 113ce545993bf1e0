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
    """A saved game refused (engine.savegame, wec.saves): not a wec save, made by a newer
    wec, truncated, corrupted, invalid content or a step whose replay differs; the
    message says which and where, and the file is left as it was."""
