"""sessionproof: prove whether a tool-calling agent survives whole multi-turn sessions."""

__version__ = "0.1.0"
