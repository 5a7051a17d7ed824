"""Errors that mean "the user asked for something impossible": shown as one line, exit code 2."""


class UsageError(ValueError):
    """Bad input from the user (a flag, a parameter value, a corrupt file, a missing interpreter).

    The CLI prints ``gpu-tui: <message>`` and exits 2; the TUI shows the message. Never a traceback.
    """
