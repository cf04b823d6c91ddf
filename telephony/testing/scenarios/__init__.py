"""Scenario files: reading them with line numbers, and running them (their model is
`domain.scenario_file`, its JSON Schema served by `api.scenario_schema`)."""

from .loading import BadScenario, Lines, load, parse

__all__ = ["BadScenario", "Lines", "load", "parse"]
