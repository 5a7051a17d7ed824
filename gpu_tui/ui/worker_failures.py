"""A background task that fails is never swallowed: the person sees what went wrong.

Every ``@work`` in gpu-tui runs with ``exit_on_error=False`` (a failed task must not close the
app on someone's server), and Textual then drops the error silently. Widgets that start workers
mix in :class:`ReportsWorkerFailures`: a failure becomes a notification in plain words, and the
widget's :meth:`~ReportsWorkerFailures.worker_failed` puts it back where new work can start.
"""

from __future__ import annotations

from textual.dom import DOMNode
from textual.worker import Worker, WorkerState

NOTIFY_SECONDS = 15.0


def describe_failure(worker: Worker[object]) -> str:
    """One line: what failed, why, and that the rest goes on."""
    error = worker.error
    why = f"{type(error).__name__}: {error}" if error is not None else "no reason given"
    what = worker.group if worker.group != "default" else worker.name
    return f"A background task failed ({what}): {why}. The rest of gpu-tui keeps working."


class ReportsWorkerFailures(DOMNode):
    """Mix into a widget (or the app) whose ``@work`` methods may fail."""

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state is not WorkerState.ERROR:
            return
        # no markup: an exception's message may hold square brackets
        self.app.notify(
            describe_failure(event.worker), severity="error", timeout=NOTIFY_SECONDS, markup=False
        )
        self.worker_failed(event.worker)

    def worker_failed(self, worker: Worker[object]) -> None:
        """Return to a state where new work can start (override where there is state)."""
