"""Report schedules that run on time and deliver their reports by mail."""

from .planner import ReportPlanner, ReportRuns

__all__ = ["ReportPlanner", "ReportRuns"]
