"""The tau2-bench retail domain: orders, users, products, with tau2's tools and DB.

Registered as `retail`; `spec()` is its lazy factory. The data under `data/` is tau2-bench's
(see data/SOURCE.md).
"""

__all__: list[str] = []
