"""Campaigns: what outlives one evening's session. :mod:`bestiary` is the library of
reusable stat blocks beside the sessions (``bestiary.json`` in the saves directory),
:mod:`statblock` one stat block, :mod:`bestiary_db` the bestiary's TinyDB storage,
:mod:`copies` numbered copies of a stat block joining a session (``gmdesk bestiary``
is :mod:`gmdesk.cli.bestiary`)."""
