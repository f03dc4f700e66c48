"""Discoverable tools that unlock a debit card for use: activating a replacement, clearing a
fraud alert or velocity block, resetting a PIN, and a temporary 24-hour limit increase.
Checks, effects and texts' facts as tau2's."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ._db import BankingDB
from ._discoverable import TODAY, Discoverable, param

_ACTIVATOR = {
    "new_account": "activate_debit_card_8291",
    "first_card": "activate_debit_card_8291",
    "lost": "activate_debit_card_8292",
    "stolen": "activate_debit_card_8292",
    "fraud": "activate_debit_card_8292",
    "expired": "activate_debit_card_8293",
    "damaged": "activate_debit_card_8293",
    "upgrade": "activate_debit_card_8293",
    "bank_reissue": "activate_debit_card_8293",
}
"""A card's issue reason → the activation tool meant for it."""


def pin_problem(pin: str) -> str | None:
    """Why a PIN is refused (4 digits, not a run like 1234 or 4321, not one digit repeated)."""
    if not pin or not pin.isdigit() or len(pin) != 4:
        return "PIN must be exactly 4 digits."
    if pin in "0123456789" or pin in "9876543210":
        return "PIN cannot be sequential (e.g., 1234). Please choose a more secure PIN."
    if len(set(pin)) == 1:
        return "PIN cannot be all the same digit (e.g., 1111). Please choose a more secure PIN."
    return None


_KINDS = {
    "activate_debit_card_8291": (("new_account", "first_card"), "DEACTIVATED"),
    "activate_debit_card_8292": (("lost", "stolen", "fraud"), "DEACTIVATED"),
    "activate_debit_card_8293": (("expired", "damaged", "upgrade", "bank_reissue"), "GRACE_PERIOD"),
}
"""Activation tool → (the issue reasons it serves, what becomes of the account's other
active cards: deactivated at once, or a 24-hour grace period for a reissue)."""


def _activate(
    tool: str,
    db: BankingDB,
    card_id: str,
    last_4_digits: str,
    expiration_date: str,
    cvv: str,
    pin: str,
) -> str:
    if not all((card_id, last_4_digits, expiration_date, cvv, pin)):
        return (
            "Error: Missing required parameters. "
            "Required: card_id, last_4_digits, expiration_date, cvv, pin."
        )
    problem = pin_problem(pin)
    if problem:
        return f"Error: {problem}"
    if not cvv.isdigit() or len(cvv) != 3:
        return "Error: CVV must be exactly 3 digits."
    if not last_4_digits.isdigit() or len(last_4_digits) != 4:
        return "Error: Last 4 digits must be exactly 4 digits."
    cards = db.rows("debit_cards")
    card = cards.get(card_id)
    if card is None:
        return f"Error: Debit card '{card_id}' not found."
    serves, others = _KINDS[tool]
    reason = card.get("issue_reason", "new_account")
    if reason not in serves:
        right = _ACTIVATOR.get(reason, "unknown")
        return (
            f"Error: Wrong activation tool. This card has issue_reason='{reason}'. "
            f"Please use {right} instead of {tool}."
        )
    if card.get("status") == "ACTIVE":
        return f"Error: Debit card '{card_id}' is already active."
    if card.get("status") != "PENDING":
        return f"Error: Debit card '{card_id}' cannot be activated (status {card.get('status')})."
    if card.get("last_4_digits") != last_4_digits:
        return "Error: Card verification failed. The last 4 digits do not match our records."
    account_id = card.get("account_id")
    account = db.rows("accounts").get(account_id) if isinstance(account_id, str) else None
    if account is not None and account.get("status") != "OPEN":
        return f"Error: The linked checking account '{account_id}' is no longer open."
    card.update(status="ACTIVE", activated_date=TODAY)
    retired = []
    for other_id, other in cards.items():
        mine = other.get("account_id") == account_id
        if other_id != card_id and mine and other.get("status") == "ACTIVE":
            if others == "GRACE_PERIOD":
                other.update(
                    status="GRACE_PERIOD",
                    grace_period_ends=TODAY,
                    deactivation_reason=f"Reissued card activated ({reason})",
                )
            else:
                why = (
                    "New card activated"
                    if tool.endswith("8291")
                    else (f"Replacement card activated ({reason})")
                )
                other.update(status="DEACTIVATED", deactivated_date=TODAY, deactivation_reason=why)
            retired.append(other_id)
    text = f"Debit card {card_id} is active ({reason}) as of {TODAY}."
    if retired and others == "GRACE_PERIOD":
        text += f"\nThe previous card(s) {', '.join(retired)} keep working for 24 hours."
    elif retired:
        text += f"\nDeactivated: {', '.join(retired)}"
    return text


def activate_new(
    db: BankingDB, card_id: str, last_4_digits: str, expiration_date: str, cvv: str, pin: str
) -> str:
    """Activate a first card of a checking account."""
    return _activate(
        "activate_debit_card_8291", db, card_id, last_4_digits, expiration_date, cvv, pin
    )


def activate_replacement(
    db: BankingDB, card_id: str, last_4_digits: str, expiration_date: str, cvv: str, pin: str
) -> str:
    """Activate a card issued after a loss, theft or fraud; other active cards of its
    account are deactivated."""
    return _activate(
        "activate_debit_card_8292", db, card_id, last_4_digits, expiration_date, cvv, pin
    )


def activate_reissue(
    db: BankingDB, card_id: str, last_4_digits: str, expiration_date: str, cvv: str, pin: str
) -> str:
    """Activate a reissued card (expired, damaged, upgrade, bank reissue); the old one gets
    a 24-hour grace period."""
    return _activate(
        "activate_debit_card_8293", db, card_id, last_4_digits, expiration_date, cvv, pin
    )


def clear_fraud_alert(db: BankingDB, card_id: str, reason: str) -> str:
    """Clear a velocity block ('velocity_clear') or a customer-side fraud alert
    ('customer_verified'); an alert the bank raised is not ours to clear."""
    if not card_id:
        return "Error: Missing required parameter: card_id."
    if not reason:
        return "Error: Missing required parameter: reason."
    if reason not in ("customer_verified", "velocity_clear"):
        return (
            f"Error: Invalid reason '{reason}'. Must be one of: customer_verified, velocity_clear"
        )
    card = db.rows("debit_cards").get(card_id)
    if card is None:
        return f"Error: Debit card '{card_id}' not found."
    if reason == "velocity_clear":
        if not card.get("velocity_blocked", False):
            return f"Error: Debit card '{card_id}' does not have an active velocity block."
        card.update(velocity_blocked=False, velocity_cleared_date=TODAY)
        return f"Velocity block cleared on {card_id} ({TODAY}); monitoring continues."
    if not card.get("fraud_alert_active", False):
        return f"Error: Debit card '{card_id}' does not have an active fraud alert."
    if card.get("alert_source") == "bank_initiated":
        return (
            "Error: BANK_INITIATED_ALERT - the bank's fraud detection raised this alert; "
            "customer service cannot clear it. Transfer the customer to the security team "
            "with transfer_to_human_agents."
        )
    card.update(fraud_alert_active=False, alert_source=None, fraud_alert_cleared_date=TODAY)
    return f"Fraud alert cleared on {card_id} ({TODAY}); transactions process normally."


def reset_pin(db: BankingDB, card_id: str, last_4_digits: str, new_pin: str) -> str:
    """Set a new PIN on an ACTIVE card and unlock it."""
    if not all((card_id, last_4_digits, new_pin)):
        return "Error: Missing required parameters. Required: card_id, last_4_digits, new_pin."
    if not last_4_digits.isdigit() or len(last_4_digits) != 4:
        return "Error: Last 4 digits must be exactly 4 digits."
    problem = pin_problem(new_pin)
    if problem:
        return f"Error: {problem}"
    card = db.rows("debit_cards").get(card_id)
    if card is None:
        return f"Error: Debit card '{card_id}' not found."
    if card.get("last_4_digits") != last_4_digits:
        return "Error: Card verification failed. The last 4 digits do not match our records."
    if card.get("status") != "ACTIVE":
        return f"Error: Cannot reset PIN. Card status is {card.get('status')}."
    card.update(pin_last_changed=TODAY, pin_locked=False, pin_attempts_remaining=3)
    return f"PIN reset on {card_id} ({TODAY}); the card is unlocked and the new PIN works now."


_DEFAULT_ATM = {
    "blue account": 500,
    "green account": 600,
    "light blue account": 400,
    "green fee-free account": 500,
    "evergreen account": 750,
    "bluest account": 1500,
    "dark green account": 300,
    "gold years account": 600,
    "purple account": 1000,
}
"""A checking level's default daily ATM limit, when the card sets none."""


def temporary_limit(db: BankingDB, card_id: str, limit_type: str, new_limit: Any) -> str:
    """Raise an ACTIVE card's daily ATM or purchase limit for 24 hours, to at most 150%."""
    if not card_id:
        return "Error: Missing required parameter: card_id."
    if not limit_type:
        return "Error: Missing required parameter: limit_type."
    if limit_type not in ("atm", "purchase"):
        return f"Error: Invalid limit_type '{limit_type}'. Must be 'atm' or 'purchase'."
    if new_limit is None:
        return "Error: Missing required parameter: new_limit."
    try:
        asked = float(new_limit)
    except (TypeError, ValueError):
        return f"Error: new_limit must be an integer, got '{new_limit}'."
    if not asked.is_integer():
        return f"Error: new_limit must be an integer, got '{asked}'."
    wanted = int(asked)
    if wanted <= 0:
        return "Error: new_limit must be a positive amount."
    card = db.rows("debit_cards").get(card_id)
    if card is None:
        return f"Error: Debit card '{card_id}' not found."
    if card.get("status") != "ACTIVE":
        return f"Error: Debit card '{card_id}' is not active (status {card.get('status')})."
    account = db.rows("accounts").get(card.get("account_id", ""))
    if account is None:
        return f"Error: Could not find linked account for debit card '{card_id}'."
    if account.get("status") != "OPEN":
        return f"Error: The linked account is not in good standing ({account.get('status')})."
    if account.get("date_opened"):
        try:
            opened = datetime.strptime(account["date_opened"], "%m/%d/%Y")
            age = (datetime.strptime(TODAY, "%m/%d/%Y") - opened).days
        except ValueError:
            age = None
        if age is not None and age < 60:
            return f"Error: Account must be at least 60 days old. Account age: {age} days."
    field = "daily_atm_limit" if limit_type == "atm" else "daily_purchase_limit"
    current = card.get(field)
    if limit_type == "atm" and current is None:
        level = str(account.get("level", "")).lower()
        if "light green" in level:
            return (
                "Error: Light Green Account (teen checking) cards have a fixed $150 daily "
                "ATM limit that cannot be changed."
            )
        current = _DEFAULT_ATM.get(level)
        if current is None:
            return f"Error: No default ATM limit known for '{account.get('level')}'."
    if current is None:
        return "Error: The card has no such limit configured; it is set by account policy."
    ceiling = int(current * 1.5)
    if wanted > ceiling:
        return f"Error: Requested limit ${wanted} exceeds the maximum of ${ceiling} (150%)."
    if wanted <= current:
        return f"Error: Requested limit ${wanted} is not higher than the current ${current}."
    card[field] = wanted
    card[f"temporary_{limit_type}_limit_increase"] = True
    card[f"original_{limit_type}_limit"] = current
    card[f"temporary_{limit_type}_limit_expires"] = TODAY
    return (
        f"Temporary limit granted on {card_id}: ${current} -> ${wanted} for 24 hours.\n"
        "A third-party ATM may still apply its own lower limits."
    )


_CARD = param("card_id", "the debit card")

_ACTIVATION = (
    _CARD,
    param("last_4_digits", "the card number's last 4 digits"),
    param("expiration_date", "MM/YY"),
    param("cvv", "the 3-digit CVV"),
    param("pin", "the 4-digit PIN the customer chooses"),
)

PINS: dict[str, Discoverable] = {
    "activate_debit_card_8291": Discoverable(
        True,
        "Activate a NEW debit card (a checking account's first card: issue reason "
        "new_account or first_card).",
        _ACTIVATION,
        activate_new,
    ),
    "activate_debit_card_8292": Discoverable(
        True,
        "Activate a REPLACEMENT debit card (issued after a loss, theft or fraud).",
        _ACTIVATION,
        activate_replacement,
    ),
    "activate_debit_card_8293": Discoverable(
        True,
        "Activate a REISSUED debit card (expired, damaged, upgrade or bank reissue).",
        _ACTIVATION,
        activate_reissue,
    ),
    "clear_debit_card_fraud_alert_4892": Discoverable(
        True,
        "Clear a fraud alert or a velocity block on a debit card.",
        (_CARD, param("reason", "'customer_verified' or 'velocity_clear'")),
        clear_fraud_alert,
    ),
    "reset_debit_card_pin_6284": Discoverable(
        True,
        "Reset a forgotten debit card PIN.",
        (
            _CARD,
            param("last_4_digits", "the card number's last 4 digits"),
            param("new_pin", "the new 4-digit PIN"),
        ),
        reset_pin,
    ),
    "request_temporary_debit_card_limit_increase_8374": Discoverable(
        True,
        "Raise a debit card's daily ATM or purchase limit for 24 hours.",
        (_CARD, param("limit_type", "'atm' or 'purchase'"), param("new_limit", "USD", "integer")),
        temporary_limit,
    ),
}
"""The debit-card activation, alert, PIN and limit tools, by name."""
