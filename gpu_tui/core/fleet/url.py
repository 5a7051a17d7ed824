"""The Prometheus URL, checked without loading the HTTP client (the TUI checks it at start-up)."""

from __future__ import annotations

import os
import urllib.parse

from gpu_tui.core.errors import UsageError

URL_ENV = "GPU_TUI_PROMETHEUS"
"""Where the TUI and ``gpu-tui fleet`` find the server when ``--prometheus`` is not given."""
TOKEN_ENV = "GPU_TUI_PROMETHEUS_TOKEN"
USER_ENV = "GPU_TUI_PROMETHEUS_USER"
PASSWORD_ENV = "GPU_TUI_PROMETHEUS_PASSWORD"


def check_url(url: str) -> str:
    """The base URL (no trailing slash) if it is a usable http(s) URL, else UsageError."""
    parts = urllib.parse.urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(f"not an http(s) URL of a Prometheus server: {url[:80]!r}")
    if parts.username or parts.password:
        raise UsageError(
            f"put no credentials in the Prometheus URL; use {USER_ENV} and {PASSWORD_ENV} "
            f"(or {TOKEN_ENV}) instead"
        )
    if parts.query or parts.fragment:
        raise UsageError(f"the Prometheus URL takes no ?query or #fragment: {url[:80]!r}")
    try:
        parts.port  # noqa: B018 — raises ValueError on a bad port
    except ValueError:
        raise UsageError(f"bad port in the Prometheus URL: {url[:80]!r}") from None
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/"), "", ""))


def configured_prometheus(given: str | None) -> str | None:
    """The server for the Fleet pane: ``--prometheus``, else ``$GPU_TUI_PROMETHEUS`` (checked:
    a bad value is a UsageError naming the variable), else None."""
    if given:
        return given
    from_env = os.environ.get(URL_ENV, "").strip()
    if not from_env:
        return None
    try:
        return check_url(from_env)
    except UsageError as error:
        raise UsageError(f"{URL_ENV}: {error}") from None
