"""reflection layer: see DESIGN.md."""
