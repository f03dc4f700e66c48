"""The package version (a leaf module, so any part can read it without importing the rest)."""

__version__ = "0.1.0"
"""sessionproof's version (PEP 440; pyproject.toml says the same)."""
