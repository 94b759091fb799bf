"""Table themes (CSS) and chart styles."""
