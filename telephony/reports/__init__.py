"""Report schedules that run on time and deliver their reports by mail."""

from .planner import LEASE, ReportPlanner, ReportRuns

__all__ = ["LEASE", "ReportPlanner", "ReportRuns"]
