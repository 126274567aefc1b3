"""The ``gmdesk`` command line, a front end beside the terminal app.

It stands on :mod:`gmdesk.core` beside the terminal app (:mod:`gmdesk.tui`) and uses
core's public API only: no private name across files, never Textual.

Modules, one job each: ``main`` (the command line read and dispatched), ``common``
(what every command shares: one-line failures, the saves directory, a system's
declaration), ``frontend`` (the desk, ``view`` and ``serve``, handed to the terminal
app the entry point gives), ``rolls`` (``roll`` and ``odds``), ``roll_save`` (``roll
… --save``), ``systems`` (``systems``), ``sessions`` (``new``, ``list``, ``export``,
``import-sheet``, ``export-sheet``), ``log`` (``log``), ``check`` (``check``,
``repair``), ``fields`` (reading ``FIELD=VALUE``), ``chars`` (``char``) and
``bestiary`` (``bestiary``). The ``gmdesk`` entry point is ``gmdesk/__main__.py``.
"""
