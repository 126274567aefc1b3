"""gmdesk core: rules engines, session model, events and storage.

Pure Python. Nothing under ``core`` may import Textual (``tests/test_layering.py``
checks it in a fresh interpreter), so ``gmdesk roll`` and ``gmdesk odds`` start fast
and the rules can be used by any front end.
"""
