"""The resource registry: each resource declared once and served by one set of handlers."""

from .agents import agent_logged

__all__ = ["agent_logged"]
