"""The calls module."""
