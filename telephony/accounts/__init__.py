"""Customers, users, tokens and the login family."""

from .decisions import UserPlan, customer_exists, user_created
from .events import CUSTOMER_CREATED
from .models import USER_REFERENCES, User
from .projections import live_customers, live_users, user_email

__all__ = ["CUSTOMER_CREATED", "USER_REFERENCES", "User", "UserPlan", "customer_exists", "live_customers",
           "live_users", "user_created", "user_email"]  # fmt: skip
