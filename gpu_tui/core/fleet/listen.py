"""``--listen HOST:PORT`` for ``gpu-tui export``: parsed, checked, and loopback unless asked."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

from gpu_tui.core.errors import UsageError

DEFAULT_PORT = 9400
"""dcgm-exporter's port, so scrape configs written for it work unchanged."""
DEFAULT_LISTEN = f"127.0.0.1:{DEFAULT_PORT}"


@dataclass(frozen=True)
class ListenAddress:
    """Where the exporter listens."""

    host: str
    port: int

    @property
    def loopback(self) -> bool:
        """Only this machine can connect (127.0.0.0/8, ::1 or ``localhost``)."""
        if self.host == "localhost":
            return True
        try:
            return ipaddress.ip_address(self.host).is_loopback
        except ValueError:
            return False  # a host name: it may resolve to any interface

    def url(self, port: int | None = None) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port if port is None else port}/metrics"


def parse_listen(text: str) -> ListenAddress:
    """``HOST:PORT``, ``[IPv6]:PORT`` or a bare ``PORT`` (loopback); port 0 picks a free one."""
    text = text.strip()
    if text.isdigit():
        host, port_text = "127.0.0.1", text
    elif text.startswith("["):
        host, _, rest = text[1:].partition("]")
        if not rest.startswith(":"):
            raise UsageError(f"--listen: expected [IPv6]:PORT, got {text!r}")
        port_text = rest[1:]
    else:
        host, sep, port_text = text.rpartition(":")
        if not sep or not host:
            raise UsageError(f"--listen: expected HOST:PORT (e.g. {DEFAULT_LISTEN}), got {text!r}")
        if ":" in host:
            raise UsageError("--listen: write an IPv6 address in brackets, e.g. [::1]:9400")
    if not port_text.isdigit() or not 0 <= int(port_text) <= 65535:
        raise UsageError(f"--listen: the port must be a number from 0 to 65535, got {port_text!r}")
    if not host:
        raise UsageError(f"--listen: no host in {text!r}")
    return ListenAddress(host, int(port_text))
