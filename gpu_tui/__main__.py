"""Entry point for ``python -m gpu_tui``."""

from gpu_tui.cli import main

raise SystemExit(main())
