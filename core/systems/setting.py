"""One setting a session keeps, declared: its label, help, type and choices or range,
and the reading and checking of a value ("Skill chance threshold (4d2) must be a
whole number from 1 to 11 (got 'x')").

A dice system declares its own settings with it (``SETTINGS`` in its declaration,
:mod:`core.systems.spec`); the session gathers them with its own
(:mod:`core.session.settings`).
"""

from __future__ import annotations

from dataclasses import dataclass

from gmdesk.core.errors import GmdeskError

TYPE_CHECKING = False  # typing.TYPE_CHECKING, read as True by type checkers: a roll never loads typing
if TYPE_CHECKING:
    from typing import Any


class SettingError(GmdeskError):
    """A setting refused: one line naming it by its label and what it accepts;
    ``reason`` is the same without the label ("must be on or off (got 'x')")."""

    def __init__(self, message: str, reason: str = "") -> None:
        super().__init__(message)
        self.reason = reason or message


#: who goes first when initiatives are equal (the session setting "Initiative ties",
#: and what a system may declare as its default, ``INITIATIVE_TIES``): the first is
#: RULES.md's, the earlier entry first
INITIATIVE_TIES = ("keep order", "higher modifier", "PCs first", "roll off")


def _same_words(a: str, b: str) -> bool:
    """Two choices read alike: case, and dashes or underscores for spaces, aside
    ("roll-off" is "roll off", "pcs_first" is "PCs first")."""

    def norm(text: str) -> str:
        return " ".join(text.replace("-", " ").replace("_", " ").casefold().split())

    return norm(a) == norm(b)


_TRUE = ("on", "yes", "true", "1")
_FALSE = ("off", "no", "false", "0")


@dataclass(frozen=True)
class Setting:
    """One session setting: ``type`` is "int" (``lo``..``hi``), "bool" or "choice"
    (``choices``); ``system`` the dice system it belongs to."""

    key: str
    label: str
    help: str
    type: str
    default: Any
    system: str = ""
    choices: tuple[str, ...] = ()
    lo: int | None = None
    hi: int | None = None

    @property
    def title(self) -> str:
        """The label with its system: "Skill chance threshold (4d2)"."""
        return f"{self.label} ({self.system})" if self.system else self.label

    def accepts(self) -> str:
        """What the setting accepts, in words."""
        if self.type == "int":
            return f"a whole number from {self.lo} to {self.hi}"
        if self.type == "bool":
            return "on or off"
        return "one of " + ", ".join(self.choices)

    def parse(self, value: Any) -> Any:
        """The setting's value from what was typed (text) or given (a value);
        SettingError names the setting and what it accepts."""
        text = value.strip() if isinstance(value, str) else value
        if self.type == "int":
            if isinstance(text, bool):
                raise self._refuse(value)
            try:
                number = int(text)
            except (TypeError, ValueError):
                raise self._refuse(value) from None
            if isinstance(text, float) and text != number:
                raise self._refuse(value)
            if (self.lo is not None and number < self.lo) or (self.hi is not None and number > self.hi):
                raise self._refuse(value)
            return number
        if self.type == "bool":
            if isinstance(text, bool):
                return text
            if isinstance(text, str) and text.casefold() in _TRUE:
                return True
            if isinstance(text, str) and text.casefold() in _FALSE:
                return False
            raise self._refuse(value)
        if isinstance(text, str):
            for choice in self.choices:
                if text.casefold() == choice.casefold():
                    return choice
            for choice in self.choices:
                if _same_words(text, choice):
                    return choice
        raise self._refuse(value)

    def to_json(self) -> dict[str, Any]:
        """What ``gmdesk systems --json`` lists of the setting."""
        out: dict[str, Any] = {"key": self.key, "label": self.label, "type": self.type, "default": self.default}
        out["help"] = self.help
        if self.choices:
            out["choices"] = list(self.choices)
        if self.lo is not None or self.hi is not None:
            out["min"], out["max"] = self.lo, self.hi
        return out

    def show(self, value: Any) -> str:
        """A value as the GM reads it: "9", "on" / "off", "d20-open"."""
        if self.type == "bool":
            return "on" if value else "off"
        return str(value)

    def _refuse(self, value: Any) -> SettingError:
        reason = f"must be {self.accepts()} (got {value!r})"
        return SettingError(f"{self.title} {reason}", reason)
