"""Shared test set-up. Import paths come from pyproject.toml (`pythonpath`)."""

from sim.paths import ROOT

__all__ = ["ROOT"]
