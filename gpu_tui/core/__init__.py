"""The headless core: hardware discovery, peaks, sampling, benchmarks, the kitchen model.

Nothing here imports Textual, Rich widgets or (at module level) torch; a test enforces it.
"""
