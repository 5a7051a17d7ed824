"""Fleet: many machines' GPUs read through Prometheus; this machine's readings exported to it."""
