"""Run every gmdesk benchmark in turn:
`python -m benchmarks [odds|cli|store|bestiary|tui|dialog|stall|serve|bytes ...]`."""

import importlib
import sys

ALL = ("odds", "cli", "store", "bestiary", "tui", "dialog", "stall", "serve", "bytes")

names = sys.argv[1:] or list(ALL)
for name in names:
    print(f"\n=== {name} ===", flush=True)
    importlib.import_module(f"benchmarks.bench_{name}").main()
