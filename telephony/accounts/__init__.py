"""Customers, users and their SIP clients, tokens and the login family."""

from ..domain.sip_clients import Registration
from .auth import authenticate_token
from .decisions import (
    UserPlan,
    clients_of,
    customer_exists,
    customer_opened,
    devices_remembered,
    issue_token,
    touch_token,
    user_created,
)
from .login import checked_login
from .models import USER_REFERENCES, User
from .projections import customer_name_of, live_customers, live_named_tokens, live_users, token_known, user_email
from .registrations import USER_FEEDS, Registrations

__all__ = ["authenticate_token", "checked_login", "USER_FEEDS", "USER_REFERENCES", "Registration",
           "Registrations", "User", "UserPlan", "clients_of", "customer_name_of", "customer_exists", "customer_opened",
           "devices_remembered", "issue_token", "live_customers", "live_named_tokens", "live_users", "token_known",
           "touch_token", "user_created", "user_email"]  # fmt: skip
