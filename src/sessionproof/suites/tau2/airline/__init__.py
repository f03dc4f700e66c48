"""The tau2-bench airline domain: flights, users, reservations, with tau2's tools.

Registered as `airline`; `spec()` is its lazy factory. The DB is tau-bench's airline JSON
with `user_id` added to each user, which is what tau2-bench's airline DB holds (see
data/SOURCE.md).
"""

__all__: list[str] = []
