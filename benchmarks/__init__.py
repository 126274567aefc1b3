"""gmdesk benchmarks: `python -m benchmarks` runs them all and prints tables."""
