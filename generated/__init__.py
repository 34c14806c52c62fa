"""Generated."""
