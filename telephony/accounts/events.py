"""Stored event tags of customers, users, tokens and mail. Tags are never renamed."""

from .. import mail

CUSTOMER_CREATED = "customer.created"
CUSTOMER_DELETED = "customer.deleted"
USER_CREATED = "user.created"
USER_UPDATED = "user.updated"
USER_DELETED = "user.deleted"
PASSWORD_CHANGED = "user.password_changed"
DEVICE_ADDED = "user.device_added"
CHALLENGE_ISSUED = "user.challenge_issued"
CHALLENGE_PASSED = "user.challenge_passed"
RESET_REQUESTED = "user.reset_requested"
RESET_USED = "user.reset_used"
TOKEN_ISSUED = "token.issued"
TOKEN_TOUCHED = "token.touched"
TOKEN_REVOKED = "token.revoked"
MAIL_SENT = mail.MAIL_SENT
MAIL_FAILED = mail.MAIL_FAILED
