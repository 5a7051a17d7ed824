"""``gpu-tui check``: is this GPU server healthy? Each check reads something, says what it should
be and why it matters, and gives a verdict a scheduler can act on."""
