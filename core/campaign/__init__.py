"""Campaigns: what outlives one evening's session. :mod:`bestiary` is the library of
reusable stat blocks beside the sessions (``bestiary.json`` in the saves directory),
:mod:`bestiary_db` its TinyDB storage, :mod:`bestiary_cli` ``gmdesk bestiary``."""
