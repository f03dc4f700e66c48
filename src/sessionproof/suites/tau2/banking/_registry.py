"""Every discoverable agent tool this package implements, and how unlocking shows one."""

from __future__ import annotations

from ._disc_accounts import ACCOUNTS
from ._disc_cards import CARDS
from ._disc_debit import DEBIT
from ._disc_extra import EXTRA
from ._disc_limits import LIMITS
from ._disc_pins import PINS
from ._discoverable import BASIC, Discoverable

DISCOVERABLE: dict[str, Discoverable] = {
    **BASIC,
    **ACCOUNTS,
    **CARDS,
    **LIMITS,
    **DEBIT,
    **PINS,
    **EXTRA,
}
"""Tool name → the tool."""


USER_DISCOVERABLE: dict[str, tuple[str, tuple[str, ...]]] = {
    "submit_cash_back_dispute_0589": (
        "Submit a cash back dispute for a transaction.",
        ("user_id", "transaction_id"),
    ),
    "get_referral_link": (
        "Make a referral link for a credit card, to share with a friend.",
        ("user_id", "card_name"),
    ),
    "get_card_last_4_digits": (
        "Look up the last 4 digits of a credit card.",
        ("credit_card_account_id",),
    ),
    "deposit_check_3847": ("Deposit a check into an account.", ("account_id", "check_amount")),
}
"""The customer's own discoverable tools, which the agent gives them: name → (what it does,
its parameters). The customer runs them on their side (tau2's user tools)."""


def describe(name: str) -> str:
    """What unlocking a tool shows the agent: its description and parameters."""
    tool = DISCOVERABLE[name]
    lines = []
    for pname, kind, what in tool.params:
        optional = kind.endswith(", optional")
        base = kind.removesuffix(", optional")
        lines.append(f"  - {pname}: {base} ({'optional' if optional else 'required'}) - {what}")
    params = "\n".join(lines) or "  (no parameters)"
    return f"Tool: {name}\nDescription: {tool.description}\nParameters:\n{params}"
