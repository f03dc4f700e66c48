"""The tau2-bench telecom domain: a carrier's agent and a user who holds their own phone.

Registered as domain `telecom` and suite `tau2-telecom[:SPLIT]`. The data under `data/` is
tau2-bench's (see data/SOURCE.md); `policy.md` is our own text.
"""

__all__: list[str] = []
