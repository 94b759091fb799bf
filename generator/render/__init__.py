"""Rendering: tables through headless Chromium, charts through matplotlib / seaborn / plotly."""
