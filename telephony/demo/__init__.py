"""Demo mode (`telephony serve --demo`): a generated company with ninety days of history made by the
product's own engine, then live traffic at a steady rate, all drawn from one seed."""

from .marker import MARKER_FILE, Mark, NotADemoDir
from .plan import PASSWORD, Plan, plan_for
from .start import DEFAULT_RATE, DEFAULT_SEED, MAX_RATE, Demo, context, prepare, run

__all__ = ["DEFAULT_RATE", "DEFAULT_SEED", "MAX_RATE", "MARKER_FILE", "PASSWORD", "Demo", "Mark", "NotADemoDir", "Plan",
           "context", "plan_for", "prepare", "run"]  # fmt: skip
