"""gmdesk core: rules engines, session model, events and storage.

Pure Python. Nothing under ``core`` may import Textual (``tests/test_layering.py``
checks it in a fresh interpreter), so ``gmdesk roll`` and ``gmdesk odds`` start fast
and the rules can be used by any front end.
"""

if __name__ != "gmdesk.core":  # `import core` from the repository root: a second copy of every module
    raise ImportError("gmdesk's core is imported as gmdesk.core (from the installed package), never as core")
