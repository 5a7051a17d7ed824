"""The Monitor's path: read the host and the GPUs each tick (sampler, readers, /proc),
and keep the history the graphs draw (series, windows)."""
