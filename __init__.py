"""gmdesk: a game master's desk in the terminal.

The repository root is the ``gmdesk`` package: ``gmdesk.core`` (rules, sessions and
storage; no Textual), ``gmdesk.tui`` (the Textual app) and ``gmdesk.saves`` (the
example sessions). ``gmdesk.__main__`` is the command-line entry point above both.
"""
