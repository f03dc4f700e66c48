"""Discoverable tools on credit-card payments and limits: pay from checking, payment history,
credit-limit increase requests, approvals and denials. Checks, effects and ids as tau2's."""

from __future__ import annotations

from typing import Any

from ._db import BankingDB
from ._discoverable import TODAY, Discoverable, account_balance, balance_of, hex_id, param
from ._discoverable import records as listing


def pay_from_checking(
    db: BankingDB,
    user_id: str,
    checking_account_id: str,
    credit_card_account_id: str,
    amount: Any,
) -> str:
    """Pay a credit card balance from the customer's checking account."""
    if not user_id or not checking_account_id or not credit_card_account_id or amount is None:
        return (
            "Error: Missing required parameters "
            "(user_id, checking_account_id, credit_card_account_id, amount)."
        )
    try:
        amount = float(amount)
    except (TypeError, ValueError):
        return "Error: Invalid payment amount. Must be a positive number."
    if amount <= 0:
        return "Error: Payment amount must be a positive number."
    checking = db.rows("accounts").get(checking_account_id)
    if checking is None:
        return f"Error: Checking account '{checking_account_id}' not found."
    if checking.get("user_id") != user_id:
        return f"Error: Checking account '{checking_account_id}' does not belong to '{user_id}'."
    if checking.get("class") != "checking":
        return f"Error: Account '{checking_account_id}' is not a checking account."
    have = account_balance(checking)
    if amount > have:
        return (
            f"Error: Insufficient funds in checking account. Available balance: ${have:.2f}, "
            f"requested payment: ${amount:.2f}."
        )
    card = db.rows("credit_card_accounts").get(credit_card_account_id)
    if card is None:
        return f"Error: Credit card account '{credit_card_account_id}' not found."
    if card.get("user_id") != user_id:
        return (
            f"Error: Credit card account '{credit_card_account_id}' does not belong to '{user_id}'."
        )
    try:
        owed = balance_of(str(card.get("current_balance", "$0.00")))
    except ValueError:
        owed = 0.0
    if amount > owed:
        return f"Error: Payment amount (${amount:.2f}) exceeds credit card balance (${owed:.2f})."
    checking["current_holdings"] = f"{have - amount:.2f}"
    card["current_balance"] = f"${owed - amount:.2f}"
    return (
        f"Payment processed: ${amount:.2f} from {checking_account_id} to "
        f"{credit_card_account_id}.\n  - Checking balance: ${have - amount:.2f}\n"
        f"  - Card balance: ${owed - amount:.2f}"
    )


def _cli_id(account: str, user_id: str, amount: float) -> str:
    return "cli_" + hex_id(f"cli_request:{account}:{user_id}:{amount:.2f}", 12)


def _own_card(db: BankingDB, account: str, user_id: str) -> dict[str, Any] | str:
    card = db.rows("credit_card_accounts").get(account)
    if card is None:
        return f"Error: Credit card account '{account}' not found."
    if card.get("user_id") != user_id:
        return f"Error: Credit card account '{account}' does not belong to user '{user_id}'."
    return card


def submit_cli(
    db: BankingDB, credit_card_account_id: str, user_id: str, requested_increase_amount: Any
) -> str:
    """Submit a request to raise a card's limit by a whole number of dollars."""
    if not credit_card_account_id or not user_id or requested_increase_amount is None:
        return "Error: Missing required parameters."
    try:
        amount = float(requested_increase_amount)
    except (TypeError, ValueError):
        return "Error: Invalid requested_increase_amount. Must be a whole number."
    if not amount.is_integer():
        return "Error: Invalid requested_increase_amount. Must be a whole number of dollars."
    whole = int(amount)
    if whole <= 0:
        return "Error: Requested increase amount must be positive."
    card = _own_card(db, credit_card_account_id, user_id)
    if isinstance(card, str):
        return card
    rid = _cli_id(credit_card_account_id, user_id, whole)
    record = {
        "request_id": rid,
        "credit_card_account_id": credit_card_account_id,
        "user_id": user_id,
        "requested_increase_amount": whole,
        "submitted_at": TODAY,
        "status": "PENDING",
    }
    if not db.add("credit_limit_increase_requests", rid, record):
        return "Error: A similar request may already exist."
    return (
        f"Credit limit increase request submitted.\n  - Request ID: {rid}\n"
        f"  - Account: {credit_card_account_id}\n  - Increase: ${whole:,}\n  - Status: PENDING"
    )


def cli_history(db: BankingDB, credit_card_account_id: str) -> str:
    """A card's earlier credit-limit increase requests."""
    if not credit_card_account_id:
        return "Error: Missing required parameter: credit_card_account_id"
    found = listing(
        db, "credit_limit_increase_requests", credit_card_account_id=credit_card_account_id
    )
    return "\n".join(
        [
            "Credit limit increase history retrieved.",
            "",
            "Executed: get_credit_limit_increase_history_4829",
            f"For account {credit_card_account_id}:",
            found or "\nNo credit limit increase requests found for this account.",
        ]
    )


def payment_history(db: BankingDB, credit_card_account_id: str, months: Any) -> str:
    """A card's last `months` payments, newest first, and the on-time streak."""
    if not credit_card_account_id or months is None:
        return "Error: Missing required parameters (credit_card_account_id, months)."
    try:
        months = int(months)
    except (TypeError, ValueError):
        return "Error: Invalid months value. Must be a positive integer."
    if months <= 0:
        return "Error: months must be a positive integer."
    paid = [
        p
        for p in db.rows("payment_history").values()
        if p.get("credit_card_account_id") == credit_card_account_id
    ]
    if not paid:
        return f"No payment history found for account '{credit_card_account_id}'."
    paid.sort(key=lambda p: p.get("payment_date") or "", reverse=True)
    paid = paid[:months]
    streak = 0
    for p in paid:
        if p.get("status") != "ON_TIME":
            break
        streak += 1
    lines = [
        f"Payment history for account '{credit_card_account_id}' (last {months} months):",
        f"Consecutive on-time payments: {streak}",
    ]
    lines += [
        f"\n  - Payment Date: {p.get('payment_date')}\n    Amount: {p.get('amount')}\n"
        f"    Status: {p.get('status')}"
        for p in paid
    ]
    return "\n".join(lines)


def approve_cli(
    db: BankingDB, credit_card_account_id: str, user_id: str, new_credit_limit: Any
) -> str:
    """Raise a card's limit when the customer has no open dispute, the card no replacement
    under way, and the account is in good standing."""
    if not credit_card_account_id or not user_id or new_credit_limit is None:
        return "Error: Missing required parameters."
    card = _own_card(db, credit_card_account_id, user_id)
    if isinstance(card, str):
        return card
    blocked = any(
        d.get("user_id") == user_id and d.get("status") in ("SUBMITTED", "UNDER_REVIEW", "PENDING")
        for d in db.rows("transaction_disputes").values()
    ) or any(
        o.get("credit_card_account_id") == credit_card_account_id
        and o.get("status") in ("PENDING", "PROCESSING", "SHIPPED")
        for o in db.rows("credit_card_orders").values()
    )
    standing = str(card.get("account_status", "")).upper()
    if blocked or standing in ("PAST_DUE", "DELINQUENT", "COLLECTIONS", "CLOSED"):
        return "Error: Credit limit increase request cannot be approved at this time."
    try:
        before = balance_of(str(card.get("credit_limit", "$0.00")))
    except ValueError:
        before = 0.0
    after = float(new_credit_limit)
    card["credit_limit"] = f"${after:.2f}"
    rid = _cli_id(credit_card_account_id, user_id, after - before)
    db.add(
        "credit_limit_increase_requests",
        rid,
        {
            "request_id": rid,
            "credit_card_account_id": credit_card_account_id,
            "user_id": user_id,
            "previous_limit": f"${before:.2f}",
            "new_limit": f"${after:.2f}",
            "increase_amount": f"${after - before:.2f}",
            "decision_date": TODAY,
            "status": "APPROVED",
        },
    )
    return (
        f"Credit limit increase approved.\n  - Account: {credit_card_account_id}\n"
        f"  - Limit: ${before:.2f} -> ${after:.2f}\n  - Effective: {TODAY}"
    )


_DENIALS = [
    "insufficient_account_age",
    "cooldown_period_active",
    "pending_disputes",
    "pending_replacement_card",
    "past_due_balance",
    "high_utilization",
    "insufficient_payment_history",
    "requested_amount_exceeds_limit",
    "other",
]


def deny_cli(db: BankingDB, credit_card_account_id: str, user_id: str, denial_reason: str) -> str:
    """Record a denied credit-limit increase."""
    if not credit_card_account_id or not user_id or not denial_reason:
        return "Error: Missing required parameters."
    if denial_reason not in _DENIALS:
        return f"Error: Invalid denial_reason. Must be one of: {', '.join(_DENIALS)}"
    if credit_card_account_id not in db.rows("credit_card_accounts"):
        return f"Error: Credit card account '{credit_card_account_id}' not found."
    rid = _cli_id(credit_card_account_id, user_id, 0.0)
    db.add(
        "credit_limit_increase_requests",
        rid,
        {
            "request_id": rid,
            "credit_card_account_id": credit_card_account_id,
            "user_id": user_id,
            "denial_reason": denial_reason,
            "decision_date": TODAY,
            "status": "DENIED",
        },
    )
    return f"Credit limit increase denied ({denial_reason}) for {credit_card_account_id}."


_ACCOUNT = param("credit_card_account_id", "the card's account")
_USER = param("user_id", "the customer's id")

LIMITS: dict[str, Discoverable] = {
    "pay_credit_card_from_checking_9182": Discoverable(
        True,
        "Pay a credit card balance from the customer's checking account.",
        (
            param("user_id", "the customer's id"),
            param("checking_account_id", "the checking account to debit"),
            param("credit_card_account_id", "the card to pay"),
            param("amount", "a positive amount in USD", "number"),
        ),
        pay_from_checking,
    ),
    "submit_credit_limit_increase_request_7392": Discoverable(
        True,
        "Ask for a credit limit increase on a card.",
        (_ACCOUNT, _USER, param("requested_increase_amount", "whole dollars", "integer")),
        submit_cli,
    ),
    "get_credit_limit_increase_history_4829": Discoverable(
        False,
        "Earlier credit limit increase requests of a card.",
        (_ACCOUNT,),
        cli_history,
    ),
    "get_payment_history_6183": Discoverable(
        False,
        "A card's recent payments and its on-time streak.",
        (_ACCOUNT, param("months", "how many months back", "integer")),
        payment_history,
    ),
    "approve_credit_limit_increase_5847": Discoverable(
        True,
        "Approve and apply a credit limit increase.",
        (_ACCOUNT, _USER, param("new_credit_limit", "the new total limit in USD", "integer")),
        approve_cli,
    ),
    "deny_credit_limit_increase_5848": Discoverable(
        True,
        "Deny a credit limit increase request.",
        (_ACCOUNT, _USER, param("denial_reason", ", ".join(_DENIALS))),
        deny_cli,
    ),
}
"""The payment and credit-limit discoverable tools, by name."""
