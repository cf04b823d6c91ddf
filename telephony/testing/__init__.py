"""Testing against telephony: scenario files and their runner, the pytest plugin's parts (its entry
point is `telephony.testing.plugin`), and the operator routes they publish."""

from .scenarios import ROUTES as SCENARIO_ROUTES

__all__ = ["SCENARIO_ROUTES"]
