"""Small reusable widgets shared by the panes."""
