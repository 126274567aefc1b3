"""gmdesk: a game master's desk in the terminal.

The repository root is the ``gmdesk`` package: ``gmdesk.core`` (rules, sessions and
storage; no Textual), ``gmdesk.tui`` (the Textual app) and ``gmdesk.saves`` (the
example sessions). ``gmdesk.__main__`` is the command-line entry point above both.
"""

import os as _os

# In the README's install (setuptools' strict editable mode) this file is read through a
# link under build/, the tree of links that mypy and an IDE read. gmdesk's modules and
# data are loaded from the checkout itself, the folder the link points into, so a module
# or table added since the install imports at once. Anywhere else (a wheel, a plain
# checkout) the folder is this file's own and nothing changes. (pytest also imports this
# file as a lone module ``__init__``, the root folder's: no package path to set then.)
if "__path__" in globals():
    __path__[:] = [_os.path.dirname(_os.path.realpath(__file__))]
