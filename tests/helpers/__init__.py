"""Running gpu-tui as a user does, and a real Prometheus server: shared by the tests and by the
measurement scripts in ``scripts/``, which put the checkout on ``sys.path`` to import them."""
