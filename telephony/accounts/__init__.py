"""Customers, users, tokens and the login family."""

from .decisions import UserPlan, customer_exists, user_created
from .events import CUSTOMER_CREATED
from .models import User

__all__ = ["CUSTOMER_CREATED", "User", "UserPlan", "customer_exists", "user_created"]
