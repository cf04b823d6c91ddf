"""The read models of accounts: what they are (`tables`), and what they answer inside the writer's
transaction (`in_transaction`) and to handlers (`for_handlers`)."""

from .for_handlers import (
    Login,
    PendingChallenge,
    api_keys_of,
    api_tokens_page,
    attachments_of_mail,
    challenge_of,
    customer_name_of,
    login_of,
    mail_of,
    reset_of,
    sealed_sip_password_of,
    user_id_of,
)
from .in_transaction import (
    a_sealed_secret,
    email_in_use,
    first_customer,
    live_customers,
    live_named_tokens,
    live_tokens,
    live_users,
    token_facts,
    token_known,
    token_name_in_use,
    user_email,
)
from .tables import Credentials, Customers, Outbox, Tokens, projections

__all__ = [
    "Credentials", "Customers", "Login", "Outbox", "PendingChallenge", "Tokens", "a_sealed_secret", "api_keys_of",
    "api_tokens_page", "attachments_of_mail", "challenge_of", "customer_name_of", "email_in_use", "first_customer",
    "live_customers", "live_named_tokens", "live_tokens", "live_users", "login_of", "mail_of", "projections",
    "reset_of", "sealed_sip_password_of", "token_facts", "token_known", "token_name_in_use", "user_email",
    "user_id_of",
]  # fmt: skip
