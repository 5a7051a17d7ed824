"""The Bench pane's parts: chooser, run progress, results table, plots and dialogs."""
