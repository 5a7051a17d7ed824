"""Every ending signal takes the one path: a handler inside ``handling``, ``Terminated`` outside
it, and 128 + the signal number as the exit status. (The fault tests send one signal to a real
run; this covers the others in-process.)"""

from __future__ import annotations

import os
import signal

import pytest

from gpu_tui.core import ending


@pytest.mark.parametrize("signum", ending.ENDING_SIGNALS)
def test_inside_handling_each_ending_signal_calls_the_handler(signum: int) -> None:
    before = signal.getsignal(signum)
    seen: list[int] = []
    with ending.handling(seen.append):
        os.kill(os.getpid(), signum)
    assert seen == [signum]
    assert signal.getsignal(signum) is before  # put back after the block


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_and_sighup_raise_terminated_where_the_program_was(signum: int) -> None:
    before = signal.getsignal(signum)
    ending.raise_on_termination()
    try:
        with pytest.raises(ending.Terminated) as raised:
            os.kill(os.getpid(), signum)
        assert raised.value.signum == signum
        assert str(raised.value) == signal.Signals(signum).name
    finally:
        signal.signal(signum, before)


def test_the_exit_status_is_128_plus_the_signal_number() -> None:
    assert [ending.exit_code(s) for s in ending.ENDING_SIGNALS] == [130, 143, 129]
