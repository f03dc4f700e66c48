"""The built-in `demo` domain and suite: a small orders / help-desk world.

Customers with addresses and payment methods, products with stocked variants, orders that move
from pending to shipped to delivered, refunds and support tickets; ten tools over them, a
policy for the agent, and a scripted scenario suite. Nothing is read until it is asked for.
"""

__all__: list[str] = []
