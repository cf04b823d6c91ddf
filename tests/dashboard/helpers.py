"""Helpers of the dashboard tests: log in through the form, post a form and read the page it leads to."""

from __future__ import annotations

import re

BASE = "/_telephony/dashboard"


async def logged_in(client) -> str:
    """Log in through the form; the page's CSRF token."""
    response = await client.post(f"{BASE}/login", data={"email": "admin@example.com", "password": "change-me-now"})
    assert response.history[0].status == 303 and response.status == 200
    return csrf_of(await response.text())


def csrf_of(page: str) -> str:
    return re.search(r'name=csrf value="([0-9a-f]{64})"', page).group(1)


async def posted(client, path: str, **form) -> str:
    """Post a form: it must answer 303 to a page, whose text is returned."""
    response = await client.post(BASE + path, data=form, allow_redirects=False)
    assert response.status == 303, await response.text()
    page = await client.get(response.headers["Location"])
    assert page.status == 200 and page.content_type == "text/html"
    return await page.text()
