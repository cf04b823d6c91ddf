"""Scenario files: their model and JSON Schema, reading them with line numbers, and running them."""

from .loading import BadScenario, Lines, load, parse
from .model import Scenario
from .schema import ROUTES

__all__ = ["ROUTES", "BadScenario", "Lines", "Scenario", "load", "parse"]
