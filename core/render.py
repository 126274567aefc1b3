"""Rendering of roll records and odds, separate from the rules (the CLI and the TUI
share it). Plain-text forms never rely on colour: roles are spelled out or marked
(dropped dice in parentheses, negative dice with a minus sign), so a GM on a
``NO_COLOR`` or ``TERM=linux`` terminal reads the same facts.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from rich.console import Group
from rich.control import STRIP_CONTROL_CODES
from rich.text import Text

from gmdesk.core import systems
from gmdesk.core.dice import Descriptor, Die, RollRecord
from gmdesk.core.errors import GmdeskError
from gmdesk.core.systems.spec import SystemSpec
from gmdesk.core.text import reading, signed

ROLE_STYLE = {
    "positive": "bold green",
    "negative": "bold red",
    "hot": "bold red",
    "cold": "bold blue",
    "kept": "bold",
    "dropped": "dim strike",
    "reroll": "bold yellow",
    "up": "bold magenta",
    "possibility": "bold cyan",
    "die": "bold",
}

#: roles whose dice count against the roller: shown with a minus sign
NEGATIVE_ROLES = {"negative", "cold"}

#: roles shown without a label: kept dice plain, dropped dice in parentheses
UNLABELLED_ROLES = {"kept", "dropped", "die"}


class RolledDice(Protocol):
    """What :func:`dice_text` reads of a roll: its dice and its ``extra`` (a
    RollRecord, or a run of some of its dice)."""

    @property
    def dice(self) -> tuple[Die, ...]: ...

    @property
    def extra(self) -> Mapping[str, Any]: ...


def spec_of(system_id: str) -> SystemSpec | None:
    """The declaration of a record's system, or None for a system not installed (its
    records still show their value, outcome and dice)."""
    try:
        return systems.get_spec(system_id)
    except GmdeskError:
        return None


def extra_labels(system_id: str) -> tuple[tuple[str, str], ...]:
    """The record fields the breakdown shows for ``system_id``, in order, with their
    labels (its ``EXTRA_LABELS``; none for a system not installed)."""
    spec = spec_of(system_id)
    return spec.extra_labels if spec is not None else ()


def public_json(record: RollRecord | Mapping[str, Any]) -> dict[str, Any]:
    """The record as JSON with the GM's secrets removed (for the player view)."""
    return systems.public_json(record.to_json() if isinstance(record, RollRecord) else record)


def public_record(record: RollRecord) -> RollRecord:
    """The record as players may see it: the GM's secrets (a secret target number)
    removed; the record itself when its system keeps none."""
    if not systems.secret_params(record.system):
        return record
    return RollRecord.from_json(public_json(record))


def secret_note(record: RollRecord) -> str:
    """The GM's secrets as the GM's own line names them, ``" (vs target 17)"``, or ``""``."""
    secret = [
        f"{k} {record.params[k]}" for k in systems.secret_params(record.system) if record.params.get(k) is not None
    ]
    return f" (vs {', '.join(secret)})" if secret else ""


def signed_value(n: object) -> str:
    """A headline or breakdown number: ``+3``, ``−2``, ``+0`` (the typographic minus
    every text a GM or a player reads uses; ``--json`` carries the number itself)."""
    return signed(n, zero="+0")


def headline(record: RollRecord) -> str:
    """The record's value as a GM reads it: ``+3`` for a bonus, ``17`` for a total."""
    spec = spec_of(record.system)
    return signed_value(record.value) if spec is not None and spec.signed else reading(str(record.value))


def printed_faces(record: RolledDice) -> list[str] | None:
    """The faces as printed on dice whose faces are not their positions (a d6 faced
    −2 −1 0 0 +1 +2, recorded as positions 1..6 with the printed faces in
    ``extra["faces"]``); None for ordinary dice."""
    faces = record.extra.get("faces")
    if isinstance(faces, (list, tuple)) and len(faces) == len(record.dice):
        return [signed(f) for f in faces]
    return None


def opponent_dice_plain(record: RollRecord) -> str:
    """The opponent's dice of an opposed roll as a GM reads them (printed faces for
    custom faces, the negative dice with a minus), or ``""``."""
    opponent = record.extra.get("opponent")
    if not isinstance(opponent, Mapping):
        return ""
    dice = list(opponent.get("dice", ()) or ())
    faces = opponent.get("faces")
    if isinstance(faces, (list, tuple)) and len(faces) == len(dice):
        return " ".join(signed(f) for f in faces)
    out = []
    for d in dice:
        value = d.get("value") if isinstance(d, Mapping) else d
        out.append(f"\u2212{value}" if isinstance(d, Mapping) and d.get("role") in NEGATIVE_ROLES else str(value))
    return " ".join(out)


def _tail_groups(record: RolledDice) -> list[tuple[str, int]]:
    """Named groups at the end of the dice list: the opponent's dice (``vs``) and the
    damage dice of a two-way Test, when the record lists them there too."""
    groups: list[tuple[str, int]] = []
    opponent = record.extra.get("opponent")
    damage = record.extra.get("damage_dice", ())
    if not damage and not isinstance(opponent, Mapping):
        return groups  # (neither side's dice listed after the roller's: most rolls)
    opp = list(opponent.get("dice", ())) if isinstance(opponent, Mapping) else []
    dmg = list(damage or ())
    faces = [d.value for d in record.dice]
    n = len(faces)
    tail = [int(d.get("value", -1)) for d in opp] + [int(d.get("value", -1)) for d in dmg]
    # every die in the tail only when the roller's own side rolled none (it failed automatically)
    room = len(tail) < n or (len(tail) == n and _failed(record))
    if tail and room and faces[n - len(tail) :] == tail:
        if opp:
            groups.append(("vs", len(opp)))
        if dmg:
            groups.append(("damage", len(dmg)))
    return groups


class _Sink(Protocol):
    """What the dice texts are written into: a Rich Text, or a :class:`_PlainText`."""

    def append(self, text: str, style: str | None = None) -> Any: ...

    def append_text(self, text: Any) -> Any: ...

    def __bool__(self) -> bool: ...


#: what Rich's Text takes out of every string appended to it (its control codes)
_CONTROL_CODES: dict[int, None] = dict.fromkeys(STRIP_CONTROL_CODES)


class _PlainText:
    """The plain text a Rich Text built by the same appends would hold (its ``plain``),
    without the styles: the log line of every roll is drawn this way (building a Rich
    Text only to take its ``plain`` costs several times more). Control codes are taken
    out of each piece as Rich takes them out."""

    __slots__ = ("_parts", "_length")

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._length = 0

    def append(self, text: str, style: str | None = None) -> _PlainText:
        if not text.isprintable():  # (the control codes are not)
            text = text.translate(_CONTROL_CODES)
        self._parts.append(text)
        self._length += len(text)
        return self

    def append_clean(self, text: str) -> _PlainText:
        """Append ``text`` that holds no control code already (:func:`_clean`)."""
        self._parts.append(text)
        self._length += len(text)
        return self

    def append_text(self, text: _PlainText) -> _PlainText:
        self._parts.append(text.plain)
        self._length += text._length
        return self

    def __bool__(self) -> bool:
        return self._length > 0

    @property
    def plain(self) -> str:
        return "".join(self._parts)


def dice_text(record: RolledDice) -> Text:
    """Dice in the order rolled, grouped by role: ``positive 6 1 | negative −4 −2``;
    kept and plain dice unlabelled, dropped dice in parentheses: ``5 (2) 4 3 6``; a
    two-way Test's opponent and damage dice named: ``2 | vs 5 | damage 4``."""
    text = Text()
    _write_dice(record, text)
    return text


def _write_dice(record: RolledDice, text: _Sink, groups: list[tuple[str, int]] | None = None) -> None:
    """:func:`dice_text`, written into ``text`` (a Rich Text or a :class:`_PlainText`);
    ``groups``: the record's :func:`_tail_groups`, when known already."""
    if groups is None:
        groups = _tail_groups(record)
    if type(text) is _PlainText:
        text.append_clean(_dice_plain(record, groups, bool(text)))
        return
    own = len(record.dice) - sum(n for _, n in groups)
    labels: list[str | None] = [None] * own
    for name, n in groups:
        labels += [name] + [None] * (n - 1)
    last_group = None
    printed = printed_faces(record)
    for i, (die, label) in enumerate(zip(record.dice, labels, strict=False)):
        if label is not None:
            if text:
                text.append(" | ")
            text.append(f"{label} ", style="dim")
            last_group = label
        group = last_group if last_group in ("vs", "damage") else ("" if die.role in UNLABELLED_ROLES else die.role)
        if label is None:
            if last_group is None or group != last_group:
                if last_group is not None:
                    text.append(" | " if (group or last_group) else " ")
                if group:
                    text.append(f"{die.role} ", style="dim")
                last_group = group
            else:
                text.append(" ")
        face = f"−{die.value}" if die.role in NEGATIVE_ROLES else str(die.value)
        if printed is not None:
            face = printed[i]
        if die.role == "dropped":
            face = f"({face})"
        text.append(face, style=ROLE_STYLE.get(die.role, ""))


def _clean(text: str) -> str:
    """``text`` without the control codes Rich takes out of what is appended to a Text."""
    return text if text.isprintable() else text.translate(_CONTROL_CODES)


def _dice_plain(record: RolledDice, groups: list[tuple[str, int]], started: bool) -> str:
    """What :func:`_write_dice` appends to a :class:`_PlainText` (``started``: whether
    that text holds anything already), each piece cleaned as the text cleans it: the
    same appends as plain strings, the one roll line every roll draws."""
    dice = record.dice
    printed = printed_faces(record)
    if not groups and printed is None:  # (most rolls: no group named, the faces as rolled)
        return _ungrouped_plain(dice)
    own = len(dice) - sum(n for _, n in groups)
    labels: list[str | None] = [None] * own
    for name, n in groups:
        labels += [name] + [None] * (n - 1)
    parts: list[str] = []
    add = parts.append
    last_group = None
    for i, (die, label) in enumerate(zip(dice, labels, strict=False)):
        role = die.role
        if label is not None:
            if started:
                add(" | ")
            add(_clean(f"{label} "))
            started = True
            last_group = label
        group = last_group if last_group in ("vs", "damage") else ("" if role in UNLABELLED_ROLES else role)
        if label is None:
            if last_group is None or group != last_group:
                if last_group is not None:
                    add(" | " if (group or last_group) else " ")
                    started = True
                if group:
                    add(_clean(f"{role} "))
                    started = True
                last_group = group
            else:
                add(" ")
                started = True
        if printed is not None:
            face = printed[i]
        else:
            face = f"−{die.value}" if role in NEGATIVE_ROLES else str(die.value)
        if role == "dropped":
            face = f"({face})"
        if not face.isprintable():
            face = face.translate(_CONTROL_CODES)
        if face:
            started = True
        add(face)
    return "".join(parts)


#: how each die reads in :func:`_ungrouped_plain`, by identity: (the die, the group
#: its role names, that group's label, its face), drawn once a die. A roll's dice are
#: mostly the few shared ones (:func:`core.dice.shared_die`); a die is immutable, and
#: held here, so an id is never another die's; at most :data:`_READINGS_KEPT` of them.
_DIE_READINGS: dict[int, tuple[Die, str, str, str]] = {}
_READINGS_KEPT = 4096


def _die_reading(die: Die) -> tuple[Die, str, str, str]:
    """How ``die`` reads (drawn afresh; kept in :data:`_DIE_READINGS` while there is room)."""
    role = die.role
    face = f"−{die.value}" if role in NEGATIVE_ROLES else str(die.value)
    if role == "dropped":
        face = f"({face})"
    group = "" if role in UNLABELLED_ROLES else role
    label = _clean(f"{role} ") if group else ""
    got = (die, group, label, face if face.isprintable() else face.translate(_CONTROL_CODES))
    if len(_DIE_READINGS) < _READINGS_KEPT:
        _DIE_READINGS[id(die)] = got
    return got


def _ungrouped_plain(dice: Sequence[Die]) -> str:
    """:func:`_dice_plain` of dice with no group named and no printed faces."""
    parts: list[str] = []
    add = parts.append
    last_group = None
    readings = _DIE_READINGS
    for die in dice:
        got = readings.get(id(die))
        _, own, label, face = got if got is not None and got[0] is die else _die_reading(die)
        group = last_group if last_group in ("vs", "damage") else own
        if last_group is None or group != last_group:
            if last_group is not None:
                add(" | " if (group or last_group) else " ")
            if group:  # (then the die's own: a "vs" or "damage" group goes on unlabelled)
                add(label)
            last_group = group
        else:
            add(" ")
        add(face)
    return "".join(parts)


#: what the dice of a roll that rolled none read as (a Test that failed automatically)
NO_DICE = "no dice"


def _failed(record: RolledDice) -> bool:
    """The roller's side failed automatically (rolled no dice of its own)."""
    extra = getattr(record, "extra", {}) or {}
    params = getattr(record, "params", {}) or {}
    return bool(extra.get("auto_fail") or params.get("auto_fail"))


def no_dice(record: RollRecord) -> str:
    """How a roll without dice reads: ``automatic failure: no dice`` for one that failed
    automatically (its side could not perform the Test), else ``no dice``."""
    return f"automatic failure: {NO_DICE}" if _failed(record) else NO_DICE


def dice_plain(record: RollRecord) -> str:
    """The dice as :func:`dice_text` shows them, or what a roll without dice reads as."""
    if not record.dice:
        return no_dice(record)
    text = _PlainText()
    _write_dice(record, text)
    return text.plain


def _told(record: RollRecord) -> list[Descriptor]:
    """The descriptors a line tells: one whose text is the outcome itself (a heal's
    "Healed +5 Vitality") is said once, as the outcome."""
    return [d for d in record.descriptors if d.text != record.outcome]


def taken_off(record: RollRecord, d: Descriptor) -> str:
    """What a wound takes off Vitality (``−4 Vitality``) where the record's system hurts
    Vitality by the descriptor's amount and its text does not say so itself (a blow
    named "Haymaker"; a text such as "Wound −6 Vitality" says it), else ""."""
    if not d.wound or not isinstance(d.amount, int) or isinstance(d.amount, bool) or d.amount <= 0:
        return ""
    spec = spec_of(record.system)
    if spec is None or not spec.harm.vitality.hurt_by_amount:
        return ""
    if re.search(rf"(?<!\d){d.amount}(?!\d)", d.text):
        return ""
    return f"−{d.amount} Vitality"


def descriptor_plain(record: RollRecord) -> str:
    if not record.descriptors:  # (a roll outside combat: nothing to tell)
        return ""
    parts = []
    for d in _told(record):
        who = "target" if d.applies_to == "target" else "roller"
        text = " ".join(filter(None, (d.text, taken_off(record, d))))
        parts.append(f"{text} ({who})" if d.wound else text)
    return "; ".join(parts)


#: the line :func:`record_line` drew last: ``(record, hide_secrets, line)``. A roll's
#: line is asked for twice in turn — for the summary its event saves, then by
#: ``gmdesk roll --save`` printing it — and a record never changes (one tuple,
#: replaced whole: threads read it safely)
_last_line: tuple[object, bool, str] = (None, False, "")


def record_line(record: RollRecord, hide_secrets: bool = False) -> str:
    """One plain line, as the desk's log tells the roll (both sides of an opposed roll,
    the fold, each group of dice named): ``SYSTEM [positive 6 1 | negative −4 −2] = +1
    Barely Successful → Backfoot (target)``, ``[… | vs …] = +1 Hit (Good vs
    Mediocre) → Hurt (target)``."""
    global _last_line
    last = _last_line
    if last[0] is record and last[1] == hide_secrets:
        return last[2]
    line = _record_line(record, hide_secrets)
    if type(record) is RollRecord:
        _last_line = (record, hide_secrets, line)
    return line


def _record_line(record: RollRecord, hide_secrets: bool) -> str:
    line = f"{record.system} [{log_dice_plain(record)}] = {headline(record)} {record.outcome}"
    notes = line_notes(record)
    if notes:
        line += f" {notes}"
    if not hide_secrets:
        line += secret_note(record)
    desc = descriptor_plain(record)
    if desc:
        line += f" → {desc}"
    return reading(line)


def roll_summary(summary: str, record: RollRecord | Mapping[str, Any]) -> str:
    """A roll event's saved summary (``Kara rolls at Bruno: <line>``) told as this
    gmdesk tells the roll: the words before the line kept, the line drawn again from
    the record (sessions saved by an earlier gmdesk read as new ones do); a summary
    of another shape as it was written, with its minus signs made typographic."""
    try:
        rec = record if isinstance(record, RollRecord) else RollRecord.from_trusted_json(dict(record))
    except (KeyError, TypeError, ValueError):
        return reading(summary)
    at = summary.find(f": {rec.system} [")
    if at < 0:
        return reading(summary)
    return reading(summary[:at]) + ": " + record_line(rec, hide_secrets=True)


def _param_value(value: Any) -> str:
    if value is True:
        return "yes"
    if value is False:
        return "no"
    if isinstance(value, (list, tuple)):
        return ",".join(signed(v) if isinstance(v, int) else str(v) for v in value)
    return str(value)


def provenance(record: RollRecord, hide_secrets: bool = False) -> list[str]:
    """Where the roll's parameters came from (``record.extra["from"]``, written when a
    character's field filled them), one line each in the system's parameter order:
    ``Skill value 13 — Quinn's Fire Combat``; nothing for a roll typed in full."""
    origins = record.extra.get("from")
    if not isinstance(origins, Mapping) or not origins:
        return []
    spec = spec_of(record.system)
    secrets = set(spec.secret_params if spec is not None and hide_secrets else ())
    order = [p.name for p in spec.params] if spec is not None else []
    names = [n for n in order if n in origins] + [n for n in origins if n not in order]
    out = []
    for name in names:
        if name in secrets or not origins[name]:
            continue
        param = spec.param(name) if spec is not None else None
        label = param.label if param is not None else name.replace("_", " ")
        value = record.params.get(name)
        shown = f"{label} {_param_value(value)}" if value is not None and value != "" else label
        out.append(f"{shown} — {origins[name]}")
    return out


def render_record(record: RollRecord, hide_secrets: bool = False) -> Group:
    """The full breakdown: dice by role, the system's numbers, outcome, descriptors."""
    head = Text()
    head.append(f"{record.system}  ", style="dim")
    head.append(headline(record), style="bold")
    head.append("  ")
    head.append(record.outcome, style="bold underline")
    lines: list[Text] = [head, Text("dice: ") + (log_dice_text(record) if record.dice else Text(no_dice(record)))]
    spec = spec_of(record.system)
    for key, label in spec.breakdown_params if spec is not None else ():
        if record.params.get(key):
            lines.append(Text(f"{label}: {record.params[key]}"))
    lines += [Text(line) for line in provenance(record, hide_secrets)]
    secrets = spec.secret_params if spec is not None and hide_secrets else ()
    for key, label in spec.extra_labels if spec is not None else ():
        if key in record.extra and key not in secrets and record.extra[key] is not None:
            value = record.extra[key]
            shown = (
                "yes"
                if value is True
                else "no"
                if value is False
                else signed_value(value)
                if spec is not None and key in spec.signed_extras
                else str(value)
            )
            lines.append(Text(f"{label}: {shown}"))
    opponent = record.extra.get("opponent")
    if isinstance(opponent, Mapping):
        dice = opponent_dice_plain(record)
        total = opponent.get("total", opponent.get("level", ""))
        if opponent.get("level_name"):
            total = f"{total} ({opponent['level_name']})"
        lines.append(Text(f"Opponent: [{dice}] → {total}"))
    for d in _told(record):
        who = "target" if d.applies_to == "target" else "roller"
        t = Text("→ ")
        t.append(d.text, style="bold" if d.wound else "")
        if taken := taken_off(record, d):
            t.append(f" {taken}", style="bold")
        extra = (
            f" ({who}"
            + (f", {d.column}" if d.column and d.column not in ("descriptor",) else "")
            + (f", row {signed(d.row, zero='+0')}" if isinstance(d.row, int) else "")
            + ")"
        )
        t.append(extra, style="dim")
        lines.append(t)
    return Group(*lines)


# ------------------------------------------------------------------ the roll log line


def opponent_brief(record: RollRecord) -> str:
    """The other side of an opposed roll in a few words, for the one-line log: the
    system's own ``opponent_brief`` (both ladder levels, ``(Good vs Superb +1)``), else
    ``vs`` and the opponent's total (``vs 11``); "" for a roll without one."""
    opp = record.extra.get("opponent")
    if opp is None or not isinstance(opp, Mapping):
        return ""
    if opp.get("auto_fail") and not opp.get("dice"):  # why the other side failed
        return f"vs automatic failure: {opp['auto_fail']}"
    spec = spec_of(record.system)
    brief = spec.opponent_brief if spec is not None else None
    if brief is not None:
        return str(brief(record) or "")
    total = opp.get("total")
    return "" if total is None else f"vs {total}"


def line_notes(record: RollRecord) -> str:
    """What a one-line roll says after its outcome: the fold of a folded roll
    (``(positive fold)``: the Outcome is not the dice's Number), then the other side of
    an opposed roll (:func:`opponent_brief`); "" for a plain roll."""
    notes = []
    fold = record.extra.get("fold")
    if isinstance(fold, str) and fold:
        notes.append(f"({fold} fold)")
    other = opponent_brief(record)
    if other:
        notes.append(other)
    return " ".join(notes)


def log_dice_plain(record: RollRecord) -> str:
    """:func:`log_dice_text` as plain text, or what a roll without dice reads as (the
    same appends, into a :class:`_PlainText`: no Rich Text is built)."""
    if not record.dice:
        return no_dice(record)
    extra = record.extra
    opponent = extra.get("opponent")
    if not extra.get("damage_dice") and (opponent is None or not isinstance(opponent, Mapping)):
        # no other side's dice nor damage dice: the dice as dice_text writes them,
        # unless the system names the roller's own (what _write_log_dice decides)
        spec = spec_of(record.system)
        labels_of = spec.dice_labels if spec is not None else None
        if labels_of is None or not (labels_of(record) or {}).get("own"):
            return _dice_plain(record, [], False)
    text = _PlainText()
    _write_log_dice(record, text, _PlainText)
    return text.plain


@dataclass(frozen=True)
class _DiceRun:
    dice: tuple[Die, ...]
    extra: Mapping[str, Any]


def _dice_run(dice: Sequence[Die], faces: object, text: _Sink) -> _Sink:
    """Some dice as :func:`dice_text` shows them (``faces``: their printed faces),
    written into ``text``."""
    extra = {"faces": faces} if isinstance(faces, (list, tuple)) and len(faces) == len(dice) else {}
    _write_dice(_DiceRun(tuple(dice), extra), text)
    return text


def log_dice_text(record: RollRecord) -> Text:
    """Every die of a roll, each group named by what it did, as the system's
    ``dice_labels`` names them: an attack ``attack 4 | defense 2 | damage 6`` (a
    mutual melee ``attack 4 | vs 2 | damage 6``, a two-way Test outside combat
    ``4 | vs 2``), the opponent's dice of an opposed roll or a contest after ``vs``;
    any other roll as :func:`dice_text`."""
    text = Text()
    _write_log_dice(record, text, Text)
    return text


def _write_log_dice(record: RollRecord, text: _Sink, new: Callable[[], _Sink]) -> None:
    """:func:`log_dice_text`, written into ``text``; ``new`` makes the text of each run
    of dice (a Rich Text, or a :class:`_PlainText` for the plain line)."""
    groups = _tail_groups(record)
    opp = record.extra.get("opponent")
    opp_dice = [Die.from_json(d) for d in opp.get("dice", ())] if isinstance(opp, Mapping) else []
    spec = spec_of(record.system)
    labels_of = spec.dice_labels if spec is not None else None
    labels: Mapping[str, str] = (labels_of(record) or {}) if labels_of is not None else {}
    if not groups and not opp_dice and not labels.get("own"):
        _write_dice(record, text, groups)
        return
    dice = list(record.dice)
    own = len(dice) - sum(n for _, n in groups)
    if labels.get("own"):
        text.append(f"{labels['own']} ", style="dim")
    if own:
        text.append_text(_dice_run(dice[:own], record.extra.get("faces"), new()))
    else:  # the roller's side rolled none: say so where its dice would be
        text.append(no_dice(record))
    at = own
    for name, n in groups:
        label = labels.get(name, name)
        text.append(" | ")
        text.append(f"{label} ", style="dim")
        text.append_text(_dice_run(dice[at : at + n], None, new()))
        at += n
    if opp_dice and not any(name == "vs" for name, _ in groups):
        text.append(" | ")
        text.append("vs ", style="dim")
        text.append_text(_dice_run(opp_dice, opp.get("faces") if isinstance(opp, Mapping) else None, new()))


def log_descriptors(record: RollRecord, targeted: bool) -> str:
    """The descriptors for a log line that already says ``roller → target``: what lands
    on the target needs no "(target)"; a wound the roller takes says "(roller)"."""
    if not targeted:
        return descriptor_plain(record)
    return "; ".join(f"{d.text} (roller)" if d.applies_to != "target" and d.wound else d.text for d in _told(record))
