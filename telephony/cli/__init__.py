"""The `telephony` command line: one module per group of subcommands, `main` the entry point."""

from .main import main

__all__ = ["main"]
