"""Errors a command ends with as one line and no traceback: the user asked for something
impossible (exit 2), or the run could not do its job (exit 1)."""


class UsageError(ValueError):
    """Bad input from the user (a flag, a parameter value, a corrupt file, a missing interpreter).

    The CLI prints ``gpu-tui <command>: error: <message>`` and exits 2; the TUI shows the
    message. Never a traceback. Where the fix is on the command line, the CLI adds where its
    usage is explained (``try 'gpu-tui bench --help'``).
    """


class InputError(UsageError):
    """Bad input whose fix is outside gpu-tui's flags: a file that cannot be read or written,
    a port another program holds, a device the worker refused. Exit 2 as any usage error, but
    no pointer to ``--help``, which would not help."""


class RunError(RuntimeError):
    """A run that could not do its job (a server that does not answer): the CLI prints the
    message as the command's error line and exits 1."""
