"""The 1d6x4 Character Descriptor Sheet: a text format gmdesk reads and writes.

A sheet is an optional header (the character's name and description), a column line
``Descriptor  Default  Current  Notes`` (Notes may be left out) and one row per
Descriptor::

    Character's name and brief description of the character
    Descriptor    Default    Current      Notes
    Descriptor 1   +1                    (Note 1)
    Descriptor 2   -2         -1         (Note 2)
    Descriptor 3   +5 (1)        (0)     (Note 3)

A row is an indentation (nesting: a row belongs to the nearest row above it that is
indented less), an optional ``*`` (a Sub-Ability), an optional quantity (``2 shovels``,
``20ft of thread``), the name, then up to two cells — the Default and the Current —
each a value ``+N``/``-N`` and/or a uses count ``(N)``/``(inf)`` — and finally Notes in
parentheses. A template is the same thing without a column line (and at most a
``Name:`` title line): every value in it is a Default Value.

Reading then writing a sheet gives back the same text byte for byte: every row keeps
the line it was read from (``Row.raw``) as long as its values are unchanged, blank
lines and the exact header are kept too. A row whose values change is written again in
the same layout — each value stays in the column it was in, new values go under the
column line's ``Default`` / ``Current`` headings, with the same offset the row's other
cell has (so the uses counts of the rules' examples stay lined up), and Notes stay
where they were unless the values push them right.

Sheets are immutable: every change returns a new :class:`Sheet` sharing the rows it
did not touch, so copies are free. Equality compares what the sheet says (header,
rows, values, nesting, notes), not the spacing.

How the text is read, where the rules leave it open:

* a tab is 4 columns wide (the rules' location sheet lines up that way);
* a sheet read with CRLF line endings is written with CRLF line endings (a sheet
  mixing both is written with CRLF throughout);
* a single value or uses cell counts as the Current only when it sits past the middle
  between the ``Default`` and ``Current`` headings *and* the name stops before the
  ``Default`` heading (so a long name pushing its Default to the right stays a
  Default); two cells are always Default then Current;
* a value followed by a uses count with at most two spaces between is one cell
  (``+5 (1)``); further apart they are two cells;
* in a sheet without a column line, a first line ending with ``:`` is a title (the way
  the rules label their templates: ``Medical Doctor:``);
* a name may contain anything, but a name ending in something that reads as a value
  (``Sword +1``) is read as the name plus a value.

Modules: ``descriptors`` (the Core Descriptors, the shipped templates, what kind of
descriptor a name is), ``row`` (one row), ``line`` (a row's line of text, read and
written), ``text`` (a whole sheet's text read into its parts and written back from
them), ``tree`` (the rows as a tree: nesting, paths, look-ups, kinds), ``sheet`` (the
Sheet: its rows' tree and its changes; read from text and written as text).
"""

from gmdesk.core.sheet.descriptors import (
    core_descriptions,
    core_descriptors,
    core_value_distribution,
    is_ability_name,
    is_core_name,
    is_expertise_name,
    is_item_or_ability_name,
    is_test_name,
    item_key,
    template,
    templates,
)
from gmdesk.core.sheet.row import INF, TAB, UNUSABLE_AT, Row, Uses, fmt_uses, fmt_value
from gmdesk.core.sheet.sheet import (
    KEEP,
    CannotUse,
    Sheet,
    generate_core,
    is_item_or_ability,
    new_sheet,
    parse_sheet,
    parse_template,
    write_sheet,
)

__all__ = [
    "item_key",
    "CannotUse",
    "INF",
    "KEEP",
    "Row",
    "Sheet",
    "TAB",
    "UNUSABLE_AT",
    "Uses",
    "core_descriptions",
    "core_descriptors",
    "core_value_distribution",
    "fmt_uses",
    "fmt_value",
    "generate_core",
    "is_ability_name",
    "is_core_name",
    "is_expertise_name",
    "is_item_or_ability",
    "is_item_or_ability_name",
    "is_test_name",
    "new_sheet",
    "parse_sheet",
    "parse_template",
    "template",
    "templates",
    "write_sheet",
]
