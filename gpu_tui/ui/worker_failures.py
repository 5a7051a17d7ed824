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


def report_failure(node: DOMNode, event: Worker.StateChanged) -> bool:
    """Notify the person when ``event`` says a worker failed; True when it did."""
    if event.state is not WorkerState.ERROR:
        return False
    # no markup: an exception's message may hold square brackets
    node.app.notify(
        describe_failure(event.worker), severity="error", timeout=NOTIFY_SECONDS, markup=False
    )
    return True


class ReportsWorkerFailures(DOMNode):
    """Mix into a widget whose ``@work`` methods may fail (the app calls
    :func:`report_failure` itself)."""

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if report_failure(self, event):
            self.worker_failed(event.worker)

    def worker_failed(self, worker: Worker[object]) -> None:
        """Return to a state where new work can start (override where there is state)."""
