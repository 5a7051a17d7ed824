"""The JSON Schemas of the --json outputs (see gpu_tui.core.json_schemas)."""
