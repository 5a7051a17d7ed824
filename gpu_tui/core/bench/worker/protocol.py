"""Worker side of the protocol: JSON lines out, and a stop flag set from stdin ("stop").

Messages (one JSON object per line, field ``type``): ``hello``, ``status``, ``environment``,
``progress``, ``result``, ``skip``, ``warning``, ``error`` (one benchmark failed; the run goes on),
``fatal`` (the run cannot go on) and ``done``. Stdin carries the plan line, then "stop".
"""

from __future__ import annotations

import json
import math
import sys
import threading
import time
from typing import IO, Any

PROTOCOL_VERSION = 1
HEARTBEAT_SECONDS = 0.5


class Cancelled(Exception):  # noqa: N818 - a request, not an error
    """The caller asked the worker to stop (or went away)."""


def _clean(value: Any) -> Any:
    """JSON has no NaN/inf: unknown numbers become null rather than invalid JSON."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    return value


class Channel:
    """Thread-safe writer of protocol lines plus the stop flag the timing loops poll."""

    def __init__(self, out: IO[str] | None = None) -> None:
        self._out = out if out is not None else sys.stdout
        self._lock = threading.Lock()
        self.stop = threading.Event()
        self.last_sent = time.monotonic()

    def send(self, message_type: str, /, **fields: Any) -> None:
        line = json.dumps(_clean({"type": message_type, **fields}), default=str)
        with self._lock:
            self._out.write(line + "\n")
            self._out.flush()
            self.last_sent = time.monotonic()

    def check(self) -> None:
        if self.stop.is_set():
            raise Cancelled

    def heartbeat_due(self) -> bool:
        return time.monotonic() - self.last_sent >= HEARTBEAT_SECONDS

    def listen(self, source: IO[str], *, stop_at_end: bool = False) -> threading.Thread:
        """Watch ``source`` for "stop"; with ``stop_at_end`` its end is a stop too. A caller
        that died is also noticed at the next write (BrokenPipeError)."""

        def run() -> None:
            for line in source:
                if line.strip() == "stop":
                    self.stop.set()
                    return
            if stop_at_end:
                self.stop.set()

        thread = threading.Thread(target=run, name="bench-stop-listener", daemon=True)
        thread.start()
        return thread
