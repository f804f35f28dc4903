"""memory layer: see DESIGN.md."""
