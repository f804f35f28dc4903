"""sim layer: see DESIGN.md."""
