"""A read-only client of the Prometheus HTTP API (stdlib only): time limits, retries with
back-off, basic auth or a bearer token from the environment, TLS verified by default.

API reference: https://prometheus.io/docs/prometheus/latest/querying/api/
"""

from __future__ import annotations

import base64
import json
import math
import os
import ssl
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpu_tui.core.errors import InputError, UsageError
from gpu_tui.core.fleet.url import PASSWORD_ENV, TOKEN_ENV, USER_ENV, check_url

TOKEN_FILE_ENV = "GPU_TUI_PROMETHEUS_TOKEN_FILE"
PASSWORD_FILE_ENV = "GPU_TUI_PROMETHEUS_PASSWORD_FILE"
MAX_RESPONSE_BYTES = 256 * 1024 * 1024
"""A fleet of 1,000 nodes × 8 GPUs answers a few MB per query; more than this is not Prometheus."""
MAX_POINTS_PER_SERIES = 11_000
"""Prometheus refuses a range query with more points than this per series."""


class PrometheusError(Exception):
    """The server could not be reached, refused, or answered something that is not the API.
    The message is one line, fit to show as it is."""


class QueryRejectedError(PrometheusError):
    """The server understood the request and rejected the query (``bad_data``): bad input."""


@dataclass(slots=True)
class Series:
    """One series of an instant vector: its labels and value (NaN/Inf kept as floats).

    Not frozen: a frozen dataclass costs three times as long to make, and a thousand nodes
    answer some 50,000 series a refresh. Nothing changes one once made."""

    labels: dict[str, str]
    value: float
    timestamp: float


@dataclass(frozen=True)
class RangeSeries:
    """One series of a range query: its labels and (timestamp, value) points."""

    labels: dict[str, str]
    points: list[tuple[float, float]]


@dataclass(frozen=True)
class Credentials:
    """What goes in the Authorization header; never printed, never taken from the command line."""

    header: str | None = None
    kind: str = "none"
    """``none``, ``bearer`` or ``basic`` (safe to show)."""

    @classmethod
    def from_environment(cls, env: Mapping[str, str] | None = None) -> Credentials:
        """A bearer token (``GPU_TUI_PROMETHEUS_TOKEN`` or ``..._TOKEN_FILE``), else basic auth
        (``GPU_TUI_PROMETHEUS_USER`` with ``..._PASSWORD`` or ``..._PASSWORD_FILE``)."""
        env = os.environ if env is None else env
        token = _secret(env, TOKEN_ENV, TOKEN_FILE_ENV)
        if token:
            return cls(f"Bearer {token}", "bearer")
        user = env.get(USER_ENV, "")
        password = _secret(env, PASSWORD_ENV, PASSWORD_FILE_ENV)
        if user:
            pair = base64.b64encode(f"{user}:{password or ''}".encode()).decode("ascii")
            return cls(f"Basic {pair}", "basic")
        if password:
            raise UsageError(f"{PASSWORD_ENV} is set but {USER_ENV} is not")
        return cls()


def _secret(env: Mapping[str, str], name: str, file_name: str) -> str:
    if env.get(name):
        return env[name].strip()
    path = env.get(file_name)
    if not path:
        return ""
    try:
        return Path(path).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"{file_name}: cannot read {path}: {error}") from None


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """A redirect could carry the Authorization header to another host: refuse it."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


@dataclass
class PrometheusApi:
    """Instant and range queries against one server. Every request has a time limit; a server
    that is down, slow or answers 5xx is retried with back-off until ``retries`` run out."""

    url: str
    credentials: Credentials = field(default_factory=Credentials)
    timeout: float = 10.0
    retries: int = 2
    backoff: float = 0.25
    ca_file: str | None = None
    insecure: bool = False
    sleep: Callable[[float], None] = time.sleep

    def __post_init__(self) -> None:
        self.url = check_url(self.url)
        handlers: list[urllib.request.BaseHandler] = [_NoRedirect()]
        if self.url.startswith("https:"):
            handlers.append(urllib.request.HTTPSHandler(context=self._tls()))
        # Proxies from the environment still apply (http_proxy/https_proxy), as for curl.
        self._opener = urllib.request.build_opener(*handlers)

    def _tls(self) -> ssl.SSLContext:
        try:
            context = ssl.create_default_context(cafile=self.ca_file)
        except (OSError, ssl.SSLError) as error:
            raise InputError(f"--ca-file: cannot load {self.ca_file}: {error}") from None
        if self.insecure:
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
        return context

    def query(self, promql: str, at: float | None = None) -> list[Series]:
        """``/api/v1/query``: an instant vector (a scalar comes back as one unlabelled series)."""
        params = {"query": promql}
        if at is not None:
            params["time"] = f"{at:.3f}"
        data = self._get("/api/v1/query", params)
        kind, result = data.get("resultType"), data.get("result")
        if kind == "scalar" and isinstance(result, list):
            return [Series({}, _value(result[1]), float(result[0]))]
        if kind != "vector" or not isinstance(result, list):
            raise PrometheusError(f"expected a vector from {_short(promql)}, got {kind!r}")
        try:
            # The labels as parsed (each answer's own dicts); float() reads "NaN" and "+Inf".
            out = [
                Series(item["metric"], float(item["value"][1]), float(item["value"][0]))
                for item in result
            ]
        except (KeyError, TypeError, ValueError, IndexError):
            out = []
        if len(out) != len(result) or not all(isinstance(s.labels, dict) for s in out):
            raise PrometheusError("the server's answer is not a Prometheus vector")
        return out

    def query_range(
        self, promql: str, start: float, end: float, step: float | None = None
    ) -> list[RangeSeries]:
        """``/api/v1/query_range``; ``step`` defaults to what keeps each series near 240 points
        (and never over the server's limit of 11,000)."""
        span = max(end - start, 1.0)
        step = max(step or span / 240, span / (MAX_POINTS_PER_SERIES - 1), 0.001)
        data = self._get(
            "/api/v1/query_range",
            {"query": promql, "start": f"{start:.3f}", "end": f"{end:.3f}", "step": f"{step:.3f}"},
        )
        if data.get("resultType") != "matrix" or not isinstance(data.get("result"), list):
            raise PrometheusError(f"expected a matrix from {_short(promql)}")
        out = []
        for item in data["result"]:
            try:
                points = [(float(t), _value(v)) for t, v in item["values"]]
                out.append(RangeSeries(dict(item["metric"]), points))
            except (KeyError, TypeError, ValueError):
                raise PrometheusError("the server's answer is not a Prometheus matrix") from None
        return out

    def _get(self, path: str, params: dict[str, str]) -> dict[str, Any]:
        url = f"{self.url}{path}?{urllib.parse.urlencode(params)}"
        attempt = 0
        while True:
            try:
                return self._once(url)
            except QueryRejectedError:
                raise
            except PrometheusError:
                if attempt >= self.retries:
                    raise
                self.sleep(self.backoff * 2**attempt)
                attempt += 1

    def _once(self, url: str) -> dict[str, Any]:
        request = urllib.request.Request(url, headers={"Accept": "application/json"})
        if self.credentials.header:
            request.add_unredirected_header("Authorization", self.credentials.header)
        where = self.url
        try:
            with self._opener.open(request, timeout=self.timeout) as response:
                body = response.read(MAX_RESPONSE_BYTES + 1)
        except urllib.error.HTTPError as error:
            body = error.read(64 * 1024)
            document = _json_or_none(body)
            message = _api_error(document) or f"HTTP {error.code} {error.reason}"
            if error.code in (301, 302, 303, 307, 308):
                raise QueryRejectedError(
                    f"{where} redirects elsewhere; give the final URL"
                ) from None
            if error.code in (401, 403):
                raise QueryRejectedError(
                    f"{where} refused the credentials (HTTP {error.code}); see {TOKEN_ENV} or "
                    f"{USER_ENV}/{PASSWORD_ENV}"
                ) from None
            if error.code in (400, 422) and document is not None:
                raise QueryRejectedError(f"Prometheus rejected the query: {message}") from None
            raise PrometheusError(f"{where}: {message}") from None
        except urllib.error.URLError as error:
            reason = error.reason
            if isinstance(reason, ssl.SSLCertVerificationError):
                raise QueryRejectedError(
                    f"{where}: TLS certificate not trusted ({reason.verify_message}); "
                    "give its CA with --ca-file (or --insecure to skip the check)"
                ) from None
            raise PrometheusError(f"cannot reach {where}: {_reason(reason)}") from None
        except TimeoutError:
            raise PrometheusError(f"{where} did not answer within {self.timeout:g} s") from None
        except (OSError, ValueError) as error:
            raise PrometheusError(f"cannot reach {where}: {_reason(error)}") from None
        if len(body) > MAX_RESPONSE_BYTES:
            raise PrometheusError(f"{where} answered more than {MAX_RESPONSE_BYTES >> 20} MiB")
        document = _json_or_none(body)
        if not isinstance(document, dict) or "status" not in document:
            raise PrometheusError(f"{where} did not answer like a Prometheus server (not its JSON)")
        if document["status"] != "success" or not isinstance(document.get("data"), dict):
            raise PrometheusError(f"{where}: {_api_error(document) or 'the query failed'}")
        data: dict[str, Any] = document["data"]
        return data


def _json_or_none(body: bytes) -> Any:
    try:
        return json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return None


def _api_error(document: Any) -> str:
    if isinstance(document, dict) and document.get("error"):
        kind = document.get("errorType", "error")
        return f"{kind}: {str(document['error']).splitlines()[0][:300]}"
    return ""


def _reason(reason: object) -> str:
    if isinstance(reason, OSError) and reason.strerror:
        return reason.strerror
    return str(reason).splitlines()[0][:200] if str(reason) else type(reason).__name__


def _value(text: object) -> float:
    """A sample value as Prometheus writes it: a string, ``"NaN"`` and ``"+Inf"`` included."""
    value = float(str(text))
    return value if not math.isnan(value) else math.nan


def _short(promql: str) -> str:
    return promql if len(promql) <= 60 else promql[:57] + "..."
