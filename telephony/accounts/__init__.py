"""Customers, users, tokens and the login family."""

from .decisions import (
    UserPlan,
    customer_exists,
    customer_opened,
    devices_remembered,
    issue_token,
    touch_token,
    user_created,
)
from .events import CUSTOMER_CREATED
from .models import USER_REFERENCES, User
from .projections import live_customers, live_named_tokens, live_users, token_known, user_email

__all__ = ["CUSTOMER_CREATED", "USER_REFERENCES", "User", "UserPlan", "customer_exists", "customer_opened",
           "devices_remembered", "issue_token", "live_customers", "live_named_tokens", "live_users", "token_known",
           "touch_token", "user_created", "user_email"]  # fmt: skip
