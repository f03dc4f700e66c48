"""Reports: terminal (rich), JSON, and later HTML."""

__all__: list[str] = []
