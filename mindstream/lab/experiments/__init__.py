"""Experiment runners that reproduce the papers' measurements and write docs/results."""
