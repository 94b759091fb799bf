"""The package's version, recorded in every dataset it writes."""

__version__ = "0.1.0"
