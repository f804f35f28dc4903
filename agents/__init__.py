"""agents layer: see DESIGN.md."""
