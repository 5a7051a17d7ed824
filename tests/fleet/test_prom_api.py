"""The Prometheus API client against a scripted server: garbage, errors, slowness, auth."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler

import pytest

from gpu_tui.core.errors import UsageError
from gpu_tui.core.fleet.prom_api import (
    Credentials,
    PrometheusApi,
    PrometheusError,
    QueryRejectedError,
    check_url,
)
from tests.fleet.harness import QuietServer, free_port

Reply = tuple[int, bytes, dict[str, str]]


@contextlib.contextmanager
def scripted(reply: Callable[[BaseHTTPRequestHandler], Reply]) -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            status, body, headers = reply(self)
            self.send_response(status)
            for key, value in headers.items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = QuietServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def ok(result: object, kind: str = "vector") -> Reply:
    body = {"status": "success", "data": {"resultType": kind, "result": result}}
    return 200, json.dumps(body).encode(), {"Content-Type": "application/json"}


def api(url: str, **kwargs: object) -> PrometheusApi:
    return PrometheusApi(url, retries=2, backoff=0.01, timeout=2, **kwargs)  # type: ignore[arg-type]


def test_a_vector_with_nan_and_inf_values_parses() -> None:
    result = [
        {"metric": {"gpu": "0"}, "value": [1.5, "42"]},
        {"metric": {"gpu": "1"}, "value": [1.5, "NaN"]},
        {"metric": {"gpu": "2"}, "value": [1.5, "+Inf"]},
    ]
    with scripted(lambda h: ok(result)) as url:
        series = api(url).query("x")
    assert [s.labels["gpu"] for s in series] == ["0", "1", "2"]
    assert series[0].value == 42
    assert series[0].timestamp == 1.5
    assert series[1].value != series[1].value
    assert series[2].value == float("inf")


def test_a_range_query_keeps_under_the_servers_point_limit() -> None:
    asked: list[str] = []

    def reply(handler: BaseHTTPRequestHandler) -> Reply:
        asked.append(handler.path)
        return ok([{"metric": {}, "values": [[1, "1"], [2, "2"]]}], "matrix")

    with scripted(reply) as url:
        (series,) = api(url).query_range("x", 0, 7 * 86400, step=1)
    assert series.points == [(1.0, 1.0), (2.0, 2.0)]
    step = float(asked[0].split("step=")[1].split("&")[0])
    assert 7 * 86400 / step < 11_000


def test_garbage_is_an_error_in_one_line() -> None:
    with (
        scripted(lambda h: (200, b"<html>login</html>", {})) as url,
        pytest.raises(PrometheusError, match="not its JSON") as caught,
    ):
        api(url).query("x")
    assert "\n" not in str(caught.value)


def test_a_rejected_query_is_bad_input_and_not_retried() -> None:
    calls: list[int] = []

    def reply(handler: BaseHTTPRequestHandler) -> Reply:
        calls.append(1)
        body = {"status": "error", "errorType": "bad_data", "error": "parse error\nat char 3"}
        return 400, json.dumps(body).encode(), {}

    with scripted(reply) as url, pytest.raises(QueryRejectedError, match="bad_data: parse error"):
        api(url).query("x(")
    assert len(calls) == 1


def test_a_5xx_is_retried_with_back_off_then_succeeds() -> None:
    calls: list[float] = []

    def reply(handler: BaseHTTPRequestHandler) -> Reply:
        calls.append(time.monotonic())
        return (503, b"busy", {}) if len(calls) < 3 else ok([])

    slept: list[float] = []
    with scripted(reply) as url:
        assert api(url, sleep=slept.append).query("x") == []
    assert slept == [0.01, 0.02]


def test_a_server_that_is_down_fails_after_the_retries() -> None:
    slept: list[float] = []
    url = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(PrometheusError, match=r"cannot reach .*refused"):
        api(url, sleep=slept.append).query("x")
    assert len(slept) == 2


def test_a_server_that_does_not_answer_hits_the_time_limit() -> None:
    given_up = threading.Event()

    def reply(handler: BaseHTTPRequestHandler) -> Reply:
        given_up.wait(10)  # answers only once the client has stopped waiting
        return ok([])

    started = time.monotonic()
    with scripted(reply) as url:
        with pytest.raises(PrometheusError, match="did not answer within"):
            PrometheusApi(url, timeout=0.3, retries=0).query("x")
        assert time.monotonic() - started < 1.4
        given_up.set()


def test_credentials_go_in_the_header_and_a_refusal_says_where_they_come_from() -> None:
    seen: list[str | None] = []

    def reply(handler: BaseHTTPRequestHandler) -> Reply:
        seen.append(handler.headers.get("Authorization"))
        return (401, b"no", {}) if len(seen) == 1 else ok([])

    credentials = Credentials.from_environment({"GPU_TUI_PROMETHEUS_TOKEN": "s3cret"})
    with scripted(reply) as url:
        with pytest.raises(QueryRejectedError, match="GPU_TUI_PROMETHEUS_TOKEN") as caught:
            api(url, credentials=credentials).query("x")
        assert "s3cret" not in str(caught.value)
        api(url, credentials=credentials).query("x")
    assert seen == ["Bearer s3cret", "Bearer s3cret"]


def test_a_redirect_is_refused_so_credentials_never_follow_it() -> None:
    def reply(handler: BaseHTTPRequestHandler) -> Reply:
        return 302, b"", {"Location": "http://example.invalid/"}

    with scripted(reply) as url, pytest.raises(QueryRejectedError, match="redirects"):
        api(url).query("x")


def test_credentials_from_files_and_basic_auth(tmp_path: object) -> None:
    from pathlib import Path

    secret = Path(str(tmp_path)) / "password"
    secret.write_text("pw\n")
    basic = Credentials.from_environment(
        {"GPU_TUI_PROMETHEUS_USER": "ops", "GPU_TUI_PROMETHEUS_PASSWORD_FILE": str(secret)}
    )
    assert basic.kind == "basic"
    assert basic.header == "Basic b3BzOnB3"
    assert Credentials.from_environment({}).header is None
    with pytest.raises(UsageError, match="cannot read"):
        Credentials.from_environment({"GPU_TUI_PROMETHEUS_TOKEN_FILE": "/nonexistent/token"})


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("prometheus:9090", "not an http"),
        ("ftp://host", "not an http"),
        ("http://user:pw@host:9090", "no credentials"),
        ("http://host:99999", "bad port"),
        ("http://host/?x=1", r"no \?query"),
    ],
)
def test_bad_urls_are_refused(url: str, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        check_url(url)


def test_a_good_url_loses_its_trailing_slash() -> None:
    assert check_url("https://prom.example:9090/prometheus/") == (
        "https://prom.example:9090/prometheus"
    )
