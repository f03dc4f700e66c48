"""The agent's discoverable tools: internal tools the knowledge base names, which the agent
unlocks (`unlock_discoverable_agent_tool`) and then calls by name with JSON arguments
(`call_discoverable_agent_tool`). Semantics (checks, effects on the DB, reply texts' facts)
follow tau2-bench's banking_knowledge; the texts are our own wording of the same facts.

This module holds the shared parts and the lookups; `_registry.DISCOVERABLE` lists every
tool. A task whose reference actions need a tool not there is left out at load (`_suite`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ._db import BankingDB

TODAY = "11/14/2025"
"""The banking domain's fixed date (every task is set on this day)."""


def hex_id(seed: str, length: int = 16) -> str:
    """tau2's deterministic record id: the first `length` hex digits of sha256(seed)."""
    return hashlib.sha256(seed.encode()).digest()[: length // 2].hex()


@dataclass(frozen=True)
class Discoverable:
    """One discoverable tool: whether it changes the DB, what it does, its parameters."""

    write: bool
    description: str
    params: tuple[tuple[str, str, str], ...]
    """(name, type, description) of each parameter; a type ending in ", optional" marks
    one with a default."""
    run: Callable[..., str]


def records(db: BankingDB, table: str, **equal: Any) -> str:
    """The matching records in tau2's listing layout; empty text when there is none."""
    found = db.find(table, **equal)
    if not found:
        return ""
    lines = [f"Found {len(found)} record(s) in '{table}':\n"]
    for i, (rid, rec) in enumerate(found, 1):
        lines.append(f"{i}. Record ID: {rid}")
        lines.extend(f"   {k}: {v}" for k, v in rec.items())
        lines.append("")
    return "\n".join(lines)


def all_user_accounts(db: BankingDB, user_id: str) -> str:
    """Every bank and credit-card account of a customer."""
    if not user_id:
        return "Error: Missing required parameter: user_id"
    bank = records(db, "accounts", user_id=user_id)
    cards = records(db, "credit_card_accounts", user_id=user_id)
    return "\n".join(
        [
            "User accounts retrieved successfully.",
            "",
            "Executed: get_all_user_accounts_by_user_id_3847",
            f"Accounts for user {user_id}:",
            "",
            "Bank Accounts:",
            bank or "  No bank accounts found.",
            "\nCredit Card Accounts:",
            cards or "  No credit card accounts found.",
        ]
    )


def _date_key(record: dict[str, Any]) -> datetime:
    text = str(record.get("date", ""))
    for fmt in ("%m/%d/%Y %H:%M:%S", "%m/%d/%Y"):
        try:
            return datetime.strptime(text, fmt)
        except ValueError:
            continue
    return datetime.min


def bank_transactions(db: BankingDB, account_id: str) -> str:
    """A bank account's transactions, most recent first (a stable sort: same-day records
    keep their stored order)."""
    if not account_id:
        return "Error: Missing required parameter: account_id"
    if account_id not in db.rows("accounts"):
        return f"Error: Account '{account_id}' not found."
    found = db.find("bank_account_transaction_history", account_id=account_id)
    found.sort(key=lambda item: _date_key(item[1]), reverse=True)
    parts = [
        "Bank account transactions retrieved successfully.",
        "",
        "Executed: get_bank_account_transactions_9173",
        f"Transactions for account {account_id}:",
    ]
    if not found:
        parts.append("\nNo transactions found for this account.")
        return "\n".join(parts)
    lines = [f"Found {len(found)} record(s) in 'bank_account_transaction_history':\n"]
    for i, (rid, rec) in enumerate(found, 1):
        lines.append(f"{i}. Record ID: {rid}")
        lines.extend(f"   {k}: {v}" for k, v in rec.items())
        lines.append("")
    parts.append("\n".join(lines))
    return "\n".join(parts)


def debit_cards_of(db: BankingDB, account_id: str) -> str:
    """The debit cards of a checking account, newest issue date first, as JSON."""
    if not account_id:
        return "Error: Missing required parameter 'account_id'."
    account = db.rows("accounts").get(account_id)
    if account is None:
        return f"Error: Account '{account_id}' not found."
    if str(account.get("class", "")).lower() not in ("checking", "business_checking"):
        return (
            f"Error: Account '{account_id}' is not a checking account. "
            "Debit cards are only available for checking accounts."
        )
    cards = []
    for card_id, card in db.rows("debit_cards").items():
        if card.get("account_id") != account_id:
            continue
        info: dict[str, Any] = {"card_id": card_id, **card}
        if "last_4_digits" in info and "card_number_last_4" not in info:
            info["card_number_last_4"] = info.pop("last_4_digits")
        if "issue_date" in info and "date_issued" not in info:
            info["date_issued"] = info.pop("issue_date")
        elif "created_date" in info and "date_issued" not in info:
            info["date_issued"] = info.pop("created_date")
        cards.append(info)
    if not cards:
        return f"No debit cards found for account '{account_id}'."
    cards.sort(key=lambda c: c.get("date_issued") or "", reverse=True)
    return json.dumps(cards, indent=2)


_CLOSE_REASONS = (
    "lost",
    "stolen",
    "fraud_suspected",
    "damaged",
    "no_longer_needed",
    "account_closing",
)


def close_debit_card(db: BankingDB, card_id: str, reason: str) -> str:
    """Close an ACTIVE or PENDING debit card for good."""
    if not card_id or not reason:
        return "Error: Missing required parameters. Required: card_id, reason."
    if reason.lower() not in _CLOSE_REASONS:
        return f"Error: Invalid reason. Must be one of: {list(_CLOSE_REASONS)}"
    reason = reason.lower()
    card = db.rows("debit_cards").get(card_id)
    if card is None:
        return f"Error: Debit card '{card_id}' not found."
    before = card.get("status")
    if before not in ("ACTIVE", "PENDING"):
        return (
            f"Error: Debit card '{card_id}' cannot be closed (status {before}); "
            "only ACTIVE or PENDING cards can be."
        )
    card.update(status="CLOSED", closed_date=TODAY, closure_reason=reason)
    lines = [
        "Debit Card Closed Successfully",
        f"Card ID: {card_id}",
        f"Previous Status: {before}",
        "New Status: CLOSED",
        f"Closure Reason: {reason.replace('_', ' ').title()}",
        f"Closure Date: {TODAY}",
    ]
    if reason in ("lost", "stolen", "fraud_suspected"):
        lines.append("The card is deactivated now; pending transactions may still post.")
    lines.append("A closed card cannot be reactivated; a new one is ordered the usual way.")
    return "\n".join(lines)


def freeze_debit_card(db: BankingDB, card_id: str) -> str:
    """Freeze an ACTIVE debit card (reversible)."""
    if not card_id:
        return "Error: Missing required parameter: card_id."
    card = db.rows("debit_cards").get(card_id)
    if card is None:
        return f"Error: Debit card '{card_id}' not found."
    if card.get("status") == "FROZEN":
        return f"Error: Debit card '{card_id}' is already frozen."
    if card.get("status") != "ACTIVE":
        return (
            f"Error: Debit card '{card_id}' cannot be frozen (status {card.get('status')}); "
            "only ACTIVE cards can be."
        )
    card.update(status="FROZEN", frozen_date=TODAY)
    return (
        f"Debit Card Frozen Successfully\nCard ID: {card_id}\nStatus: FROZEN\n"
        f"Frozen Date: {TODAY}\nNew purchases and recurring payments are declined until it "
        "is unfrozen."
    )


def unfreeze_debit_card(db: BankingDB, card_id: str) -> str:
    """Unfreeze a FROZEN debit card whose checking account is still open."""
    if not card_id:
        return "Error: Missing required parameter: card_id."
    card = db.rows("debit_cards").get(card_id)
    if card is None:
        return f"Error: Debit card '{card_id}' not found."
    if card.get("status") == "ACTIVE":
        return f"Error: Debit card '{card_id}' is already active."
    if card.get("status") != "FROZEN":
        return (
            f"Error: Debit card '{card_id}' cannot be unfrozen (status {card.get('status')}); "
            "only FROZEN cards can be."
        )
    account_id = card.get("account_id")
    account = db.rows("accounts").get(account_id) if isinstance(account_id, str) else None
    if account is not None and account.get("status") != "OPEN":
        return f"Error: The linked checking account '{account_id}' is not open."
    card.update(status="ACTIVE", unfrozen_date=TODAY)
    return (
        f"Debit Card Unfrozen Successfully\nCard ID: {card_id}\nStatus: ACTIVE\n"
        f"Unfrozen Date: {TODAY}\nThe card works again at once."
    )


def dispute_history(db: BankingDB, user_id: str) -> str:
    """A user's credit-card transaction disputes."""
    if not user_id:
        return "Error: Missing required parameter: user_id"
    found = records(db, "transaction_disputes", user_id=user_id)
    return "\n".join(
        [
            "User transaction dispute history retrieved successfully.",
            "",
            "Executed: get_user_dispute_history_7291",
            f"Transaction dispute history for user {user_id}:",
            found or "\nNo transaction disputes found for this user.",
        ]
    )


def pending_replacements(db: BankingDB, credit_card_account_id: str) -> str:
    """Replacement-card orders of a credit card account."""
    if not credit_card_account_id:
        return "Error: Missing required parameter: credit_card_account_id"
    found = records(db, "credit_card_orders", credit_card_account_id=credit_card_account_id)
    return "\n".join(
        [
            "Pending replacement orders check completed.",
            "",
            "Executed: get_pending_replacement_orders_5765",
            f"Replacement orders for credit card account {credit_card_account_id}:",
            found or "\nNo pending replacement orders found for this credit card account.",
        ]
    )


def param(name: str, what: str, kind: str = "string") -> tuple[str, str, str]:
    """One parameter's (name, type, description)."""
    return (name, kind, what)


_p = param


def balance_of(value: Any) -> float:
    """A balance stored as a number or as text such as '$2,850.00'."""
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        return float(value.replace("$", "").replace(",", ""))
    return 0.0


def account_balance(account: dict[str, Any]) -> float:
    """An account's balance (`current_holdings`, else `balance`)."""
    return balance_of(account.get("current_holdings", account.get("balance", 0)))


BASIC: dict[str, Discoverable] = {
    "get_all_user_accounts_by_user_id_3847": Discoverable(
        False,
        "List every account of a customer: checking, savings and credit cards.",
        (_p("user_id", "the customer's id"),),
        all_user_accounts,
    ),
    "get_bank_account_transactions_9173": Discoverable(
        False,
        "List a bank account's transactions, most recent first.",
        (_p("account_id", "the bank account's id"),),
        bank_transactions,
    ),
    "get_debit_cards_by_account_id_7823": Discoverable(
        False,
        "List the debit cards of a checking account: status, issue reason, expiry.",
        (_p("account_id", "the checking account's id"),),
        debit_cards_of,
    ),
    "get_user_dispute_history_7291": Discoverable(
        False,
        "List the credit-card transaction disputes a customer has filed.",
        (_p("user_id", "the customer's id"),),
        dispute_history,
    ),
    "get_pending_replacement_orders_5765": Discoverable(
        False,
        "Show the replacement-card orders of a credit card account.",
        (_p("credit_card_account_id", "the credit card account's id"),),
        pending_replacements,
    ),
    "close_debit_card_4721": Discoverable(
        True,
        "Close a debit card for good.",
        (
            _p("card_id", "the debit card's id"),
            _p(
                "reason",
                "lost, stolen, fraud_suspected, damaged, no_longer_needed or account_closing",
            ),
        ),
        close_debit_card,
    ),
    "freeze_debit_card_3892": Discoverable(
        True,
        "Freeze a debit card for now; it can be unfrozen later.",
        (_p("card_id", "the debit card's id"),),
        freeze_debit_card,
    ),
    "unfreeze_debit_card_3893": Discoverable(
        True,
        "Unfreeze a frozen debit card.",
        (_p("card_id", "the debit card's id"),),
        unfreeze_debit_card,
    ),
}
"""Account, card and dispute lookups and the debit-card status changes, by name."""
