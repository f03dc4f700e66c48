"""The discoverable tools no task's reference uses but the knowledge base may lead an agent
to: a PIN change, a block on recurring payments, ATM deposit images, and the example tool.
Checks and effects as tau2's; the deposit images are tau2's sample scans, told in our words."""

from __future__ import annotations

from typing import Any

from ._db import BankingDB
from ._disc_pins import pin_problem
from ._discoverable import TODAY, Discoverable, param


def change_pin(db: BankingDB, card_id: str, current_pin: str, new_pin: str) -> str:
    """Change the PIN of an ACTIVE card when the customer knows the current one."""
    if not all((card_id, current_pin, new_pin)):
        return "Error: Missing required parameters. Required: card_id, current_pin, new_pin."
    if not current_pin.isdigit() or len(current_pin) != 4:
        return "Error: Current PIN must be exactly 4 digits."
    problem = pin_problem(new_pin)
    if problem:
        return f"Error: {problem}"
    if current_pin == new_pin:
        return "Error: New PIN must be different from current PIN."
    card = db.rows("debit_cards").get(card_id)
    if card is None:
        return f"Error: Debit card '{card_id}' not found."
    if card.get("status") != "ACTIVE":
        return f"Error: Cannot change PIN. Card status is {card.get('status')}."
    card["pin_last_changed"] = TODAY
    return f"PIN changed on {card_id} ({TODAY}); the new PIN works now."


def recurring_block(db: BankingDB, card_id: str, block_recurring: bool) -> str:
    """Block (or allow again) every recurring charge on an ACTIVE debit card."""
    if not card_id:
        return "Error: Missing required parameter: card_id"
    card = db.rows("debit_cards").get(card_id)
    if not card:
        return f"Error: Debit card '{card_id}' not found."
    status = str(card.get("status", "")).upper()
    if status != "ACTIVE":
        return f"Error: Cannot update recurring block settings for a card with status '{status}'."
    card["recurring_blocked"] = block_recurring
    state = "blocked" if block_recurring else "allowed again"
    return f"Recurring payments {state} on {card_id}, within 24 hours."


_SCANS: dict[str, tuple[str, str, str]] = {
    "btxn_834027370c20": (
        "ATM #3921 (Cedar Lane Branch, Austin, TX)",
        "a personal check #7284 from First Texas Bank to Derek Yamamoto for $875.00 "
        "(memo 'October rent refund', dated 11/03/2025, endorsed for deposit only) and "
        "$260.00 in cash (2 x $100, 3 x $20): $1,135.00 in all",
        "The ATM recorded $385.00: a discrepancy of $750.00, confirmed by the images.",
    ),
    "btxn_test_deposit_001": (
        "ATM #3921 (742 Oak Avenue, Portland, OR)",
        "a personal check #4821 from First National Bank to Linda Patterson for $875.00 "
        "(memo 'October rent refund', dated 11/05/2025, endorsed for deposit only) and "
        "$260.00 in cash (2 x $100, 3 x $20): $1,135.00 in all",
        "The ATM recorded $385.00: a discrepancy of $750.00, confirmed by the images.",
    ),
    "btxn_test_atm_dep_partial": (
        "ATM #5847",
        "a personal check #7392 for $500.00 and no cash: $500.00 in all",
        "The ATM recorded $500.00: the deposit matches, no discrepancy.",
    ),
}
"""Transaction → (ATM, what the envelope held, the verification note)."""


def deposit_images(db: BankingDB, transaction_id: str) -> str:
    """What the images of a Rho-Bank ATM deposit show."""
    if not transaction_id:
        return "Error: Missing required parameter: transaction_id"
    txn: dict[str, Any] | None = db.rows("bank_account_transaction_history").get(transaction_id)
    if txn is None:
        return f"Error: Transaction '{transaction_id}' not found."
    if txn.get("type") != "atm_deposit":
        return f"Error: Transaction '{transaction_id}' is not an ATM deposit."
    described = str(txn.get("description", "")).upper()
    if "RHO-BANK" not in described and "RHOBANK" not in described:
        return (
            f"Error: Transaction '{transaction_id}' is from a third-party ATM: no deposit images; "
            "a dispute goes to the ATM network as a chargeback request."
        )
    date = txn.get("date", "Unknown")
    scan = _SCANS.get(transaction_id)
    if scan is None:
        amount = abs(txn.get("amount", 0) or 0)
        return (
            f"ATM deposit images for {transaction_id} ({txn.get('description', '')}, {date}, "
            f"${amount:.2f} recorded): not available (older than 90 days or never captured). "
            "A dispute proceeds on the customer's statement and the ATM journal, and may take "
            "longer."
        )
    atm, contents, note = scan
    return f"ATM deposit images for {transaction_id} at {atm}, {date}: {contents}. {note}"


def example_tool(db: BankingDB) -> str:
    """The knowledge base's placeholder tool."""
    return "Example tool executed successfully."


EXTRA: dict[str, Discoverable] = {
    "change_debit_card_pin_6285": Discoverable(
        True,
        "Change a debit card PIN when the customer knows the current one.",
        (
            param("card_id", "the debit card"),
            param("current_pin", "the current 4-digit PIN"),
            param("new_pin", "the new 4-digit PIN"),
        ),
        change_pin,
    ),
    "set_debit_card_recurring_block_7382": Discoverable(
        True,
        "Block or allow every recurring payment on a debit card.",
        (
            param("card_id", "the debit card"),
            param("block_recurring", "true to block, false to allow", "boolean"),
        ),
        recurring_block,
    ),
    "get_atm_deposit_images_8473": Discoverable(
        False,
        "See the envelope and check images of a Rho-Bank ATM deposit.",
        (param("transaction_id", "the ATM deposit transaction"),),
        deposit_images,
    ),
    "example_agent_tool_0000": Discoverable(
        True, "An example discoverable tool (a placeholder).", (), example_tool
    ),
}
"""The discoverable tools no task's reference uses, by name."""
