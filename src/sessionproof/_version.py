"""The package version (a leaf module, so any part can read it without importing the rest)."""

__version__ = "0.1.0"
