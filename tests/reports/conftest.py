"""Fixtures of the report tests: a real SMTP server that receives the reports."""

from tests.test_mail_and_logs import smtp_server  # noqa: F401  (the fixture)
