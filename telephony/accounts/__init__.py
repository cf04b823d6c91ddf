"""Customers, users, tokens and the login family."""
