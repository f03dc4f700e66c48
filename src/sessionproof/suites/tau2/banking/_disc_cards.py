"""Discoverable tools on credit cards: disputes, replacements, closures, statement credits
and flags. Checks, effects and ids as tau2's."""

from __future__ import annotations

from typing import Any

from ._db import BankingDB
from ._discoverable import TODAY, Discoverable, hex_id, param
from ._discoverable import records as listing

_DISPUTE_REASONS = [
    "unauthorized_fraudulent_charge",
    "duplicate_charge",
    "incorrect_amount",
    "goods_services_not_received",
    "goods_services_not_as_described",
    "canceled_subscription_still_charging",
    "refund_never_processed",
]


def file_dispute(
    db: BankingDB,
    transaction_id: str,
    card_action: str,
    card_last_4_digits: str,
    full_name: str,
    user_id: str,
    phone: str,
    email: str,
    address: str,
    contacted_merchant: bool,
    purchase_date: str,
    issue_noticed_date: str,
    dispute_reason: str,
    resolution_requested: str,
    eligible_for_provisional_credit: bool,
    partial_refund_amount: float | None = None,
) -> str:
    """File a formal dispute of a credit card transaction (one per user and transaction)."""
    if not transaction_id or not user_id:
        return "Error: Missing required parameters."
    if card_action not in ("keep_active", "cancel_and_reissue"):
        return "Error: Invalid card_action. Must be one of: ['keep_active', 'cancel_and_reissue']"
    if dispute_reason not in _DISPUTE_REASONS:
        return f"Error: Invalid dispute_reason. Must be one of: {_DISPUTE_REASONS}"
    if resolution_requested not in ("full_refund", "partial_refund"):
        return (
            "Error: Invalid resolution_requested. Must be one of: ['full_refund', 'partial_refund']"
        )
    if resolution_requested == "partial_refund" and partial_refund_amount is None:
        return "Error: partial_refund_amount is required for a partial refund."
    dispute_id = "dsp_" + hex_id(f"dispute:{user_id}:{transaction_id}", 12)
    record = {
        "dispute_id": dispute_id,
        "transaction_id": transaction_id,
        "user_id": user_id,
        "card_action": card_action,
        "card_last_4_digits": card_last_4_digits,
        "full_name": full_name,
        "phone": phone,
        "email": email,
        "address": address,
        "contacted_merchant": contacted_merchant,
        "purchase_date": purchase_date,
        "issue_noticed_date": issue_noticed_date,
        "dispute_reason": dispute_reason,
        "resolution_requested": resolution_requested,
        "partial_refund_amount": partial_refund_amount,
        "eligible_for_provisional_credit": eligible_for_provisional_credit,
        "provisional_credit_given": eligible_for_provisional_credit,
        "submitted_at": TODAY,
        "status": "SUBMITTED",
    }
    if not db.add("transaction_disputes", dispute_id, record):
        return "Error: Dispute may have already been filed for this transaction."
    lines = [
        "Dispute filed; the case is reviewed within 10 business days.",
        f"Dispute ID: {dispute_id}",
        f"Transaction: {transaction_id}",
        f"Reason: {dispute_reason.replace('_', ' ').title()}",
        f"Resolution Requested: {resolution_requested.replace('_', ' ').title()}",
    ]
    if partial_refund_amount:
        lines.append(f"Partial Refund Amount: ${partial_refund_amount:.2f}")
    lines.append(
        "Provisional credit: eligible, applied within 2 business days."
        if eligible_for_provisional_credit
        else "Provisional credit: not eligible now."
    )
    return "\n".join(lines)


def _card_exists(db: BankingDB, account_id: str) -> bool:
    return bool(db.find("credit_card_accounts", account_id=account_id))


def order_replacement(
    db: BankingDB,
    credit_card_account_id: str,
    user_id: str,
    shipping_address: str,
    reason: str,
    expedited_shipping: bool = False,
) -> str:
    """Order a replacement card; the old card is closed at once."""
    if not credit_card_account_id or not user_id or not shipping_address or not reason:
        return (
            "Error: Missing required parameters "
            "(credit_card_account_id, user_id, shipping_address, reason)."
        )
    reasons = ["fraud_suspected", "lost", "stolen", "damaged", "expired", "other"]
    if reason not in reasons:
        return f"Error: Invalid reason. Must be one of: {reasons}"
    if not _card_exists(db, credit_card_account_id):
        return f"Error: Credit card account '{credit_card_account_id}' not found."
    order_id = "ccord_" + hex_id(
        f"credit_card_order:{credit_card_account_id}:{user_id}:{reason}", 12
    )
    record = {
        "order_id": order_id,
        "credit_card_account_id": credit_card_account_id,
        "user_id": user_id,
        "shipping_address": shipping_address,
        "reason": reason,
        "expedited_shipping": expedited_shipping,
        "order_date": TODAY,
        "status": "ORDERED",
        "old_card_cancelled": True,
    }
    if not db.add("credit_card_orders", order_id, record):
        return "Error: Order may have already been placed for this card replacement."
    db.update("credit_card_accounts", credit_card_account_id, {"status": "CLOSED"})
    db.update("credit_card_accounts", credit_card_account_id, {"closed_date": TODAY})
    days = "2-3" if expedited_shipping else "7-10"
    return (
        f"Order ID: {order_id}\nCard Account: {credit_card_account_id}\n"
        f"Reason: {reason.replace('_', ' ').title()}\nShipping Address: {shipping_address}\n"
        f"Delivery: {days} business days\nThe old card is cancelled; the new one keeps the "
        "account number with a new card number and CVV."
    )


_CLOSURE_REASONS = [
    "annual_fee",
    "not_using_card",
    "found_better_card",
    "unhappy_with_rewards",
    "simplifying_finances",
    "negative_experience",
    "other",
]


def log_closure_reason(
    db: BankingDB, credit_card_account_id: str, user_id: str, closure_reason: str
) -> str:
    """Record why a customer wants to close a credit card (one record per card and user)."""
    if not credit_card_account_id or not user_id or not closure_reason:
        return "Error: Missing required parameters."
    if closure_reason not in _CLOSURE_REASONS:
        return f"Error: Invalid closure_reason. Must be one of: {_CLOSURE_REASONS}"
    rid = "clsr_" + hex_id(f"closure_reason:{credit_card_account_id}:{user_id}", 12)
    db.add(
        "credit_card_closure_reasons",
        rid,
        {
            "record_id": rid,
            "credit_card_account_id": credit_card_account_id,
            "user_id": user_id,
            "closure_reason": closure_reason,
            "logged_at": TODAY,
            "status": "LOGGED",
        },
    )
    return f"Closure reason '{closure_reason}' logged for account {credit_card_account_id}."


def _history(db: BankingDB, table: str, account: str, head: str, tool: str, none: str) -> str:
    if not account:
        return "Error: Missing required parameter: credit_card_account_id"
    found = listing(db, table, credit_card_account_id=account)
    return "\n".join([head, "", f"Executed: {tool}", f"For account {account}:", found or none])


def closure_history(db: BankingDB, credit_card_account_id: str) -> str:
    """Earlier closure-reason records of a credit card."""
    return _history(
        db,
        "credit_card_closure_reasons",
        credit_card_account_id,
        "Closure reason history retrieved successfully.",
        "get_closure_reason_history_8293",
        "\nNo closure reason records found for this credit card account.",
    )


_CREDIT_REASONS = [
    "goodwill_adjustment",
    "promotional_credit",
    "annual_fee_reversal",
    "late_fee_reversal",
    "interest_charge_reversal",
    "dispute_resolution",
    "price_match",
    "retention_offer",
    "error_correction",
    "other",
]


def statement_credit(
    db: BankingDB, user_id: str, credit_card_account_id: str, amount: Any, reason: str
) -> str:
    """Credit a credit card's statement (recorded as a negative transaction)."""
    if not user_id or not credit_card_account_id or amount is None or not reason:
        return (
            "Error: Missing required parameters (user_id, credit_card_account_id, amount, reason)."
        )
    if amount <= 0:
        return "Error: Credit amount must be positive."
    if reason not in _CREDIT_REASONS:
        return f"Error: Invalid reason. Must be one of: {_CREDIT_REASONS}"
    if not _card_exists(db, credit_card_account_id):
        return f"Error: Credit card account '{credit_card_account_id}' not found."
    seed = f"transaction:{user_id}:STATEMENT_CREDIT:{reason}:{amount:.2f}:Statement Credit"
    txn = "txn_" + hex_id(seed, 12)
    record = {
        "transaction_id": txn,
        "user_id": user_id,
        "credit_card_account_id": credit_card_account_id,
        "credit_card_type": "N/A",
        "merchant_name": "Rho-Bank Statement Credit",
        "transaction_amount": f"-${amount:.2f}",
        "transaction_date": TODAY,
        "category": "Statement Credit",
        "status": "COMPLETED",
        "rewards_earned": "0 points",
        "credit_reason": reason,
    }
    if not db.add("credit_card_transaction_history", txn, record):
        return f"Error: Failed to apply statement credit. Transaction ID '{txn}' may already exist."
    return (
        f"Statement credit applied.\n  - Transaction ID: {txn}\n"
        f"  - Account: {credit_card_account_id}\n  - Amount: ${amount:.2f}\n"
        f"  - Reason: {reason.replace('_', ' ').title()}\n  - Date: {TODAY}"
    )


def account_flag(
    db: BankingDB,
    credit_card_account_id: str,
    user_id: str,
    flag_type: str,
    expiration_date: str,
    reason: str,
) -> str:
    """Put a flag (fee waiver, promotional APR, bonus) on a credit card account."""
    if not all((credit_card_account_id, user_id, flag_type, expiration_date, reason)):
        return (
            "Error: Missing required parameters "
            "(credit_card_account_id, user_id, flag_type, expiration_date, reason)."
        )
    kinds = ["annual_fee_waived", "promotional_apr", "rewards_bonus", "other"]
    if flag_type not in kinds:
        return f"Error: Invalid flag_type. Must be one of: {kinds}"
    reasons = ["retention_offer", "loyalty_benefit", "promotional", "error_correction", "other"]
    if reason not in reasons:
        return f"Error: Invalid reason. Must be one of: {reasons}"
    if not _card_exists(db, credit_card_account_id):
        return f"Error: Credit card account '{credit_card_account_id}' not found."
    seed = f"account_flag:{credit_card_account_id}:{flag_type}:{expiration_date}"
    flag_id = "ccflag_" + hex_id(seed, 12)
    record = {
        "flag_id": flag_id,
        "credit_card_account_id": credit_card_account_id,
        "user_id": user_id,
        "flag_type": flag_type,
        "effective_date": TODAY,
        "expiration_date": expiration_date,
        "reason": reason,
        "applied_at": TODAY,
        "status": "ACTIVE",
    }
    if not db.add("credit_card_account_flags", flag_id, record):
        return f"Error: Failed to apply account flag. Flag ID '{flag_id}' may already exist."
    return (
        f"Account flag applied.\n  - Flag ID: {flag_id}\n  - Account: {credit_card_account_id}\n"
        f"  - Flag: {flag_type.replace('_', ' ').title()}\n  - From {TODAY} to {expiration_date}"
    )


def close_card_account(db: BankingDB, credit_card_account_id: str, user_id: str) -> str:
    """Close a credit card account for good."""
    if not credit_card_account_id or not user_id:
        return "Error: Missing required parameters (credit_card_account_id, user_id)."
    if not _card_exists(db, credit_card_account_id):
        return f"Error: Credit card account '{credit_card_account_id}' not found."
    changes = {"status": "CLOSED", "closed_date": TODAY, "closed_by": user_id}
    if not db.update("credit_card_accounts", credit_card_account_id, changes):
        return f"Error: Failed to close credit card account '{credit_card_account_id}'."
    return f"Credit card account {credit_card_account_id} closed."


def update_rewards(db: BankingDB, transaction_id: str, new_rewards_earned: str) -> str:
    """Correct the rewards recorded on a credit card transaction."""
    if not transaction_id or not new_rewards_earned:
        return "Error: Missing required parameters."
    changes = {"rewards_earned": new_rewards_earned}
    if not db.update("credit_card_transaction_history", transaction_id, changes):
        return f"Error: Transaction '{transaction_id}' not found."
    return f"Rewards of transaction {transaction_id} set to {new_rewards_earned}."


CARDS: dict[str, Discoverable] = {
    "update_transaction_rewards_3847": Discoverable(
        True,
        "Correct the rewards earned on a credit card transaction.",
        (
            param("transaction_id", "the transaction"),
            param("new_rewards_earned", "the corrected value, e.g. '6300 points'"),
        ),
        update_rewards,
    ),
    "file_credit_card_transaction_dispute_4829": Discoverable(
        True,
        "File a formal dispute of a credit card transaction.",
        (
            param("transaction_id", "the disputed transaction"),
            param("card_action", "'keep_active' or 'cancel_and_reissue' (a record only)"),
            param("card_last_4_digits", "the card's last 4 digits"),
            param("full_name", "the cardholder's legal name"),
            param("user_id", "the customer's id"),
            param("phone", "contact phone"),
            param("email", "contact email"),
            param("address", "contact address"),
            param("contacted_merchant", "whether the merchant was contacted", "boolean"),
            param("purchase_date", "MM/DD/YYYY"),
            param("issue_noticed_date", "MM/DD/YYYY"),
            param("dispute_reason", ", ".join(_DISPUTE_REASONS)),
            param("resolution_requested", "'full_refund' or 'partial_refund'"),
            param("eligible_for_provisional_credit", "provisional credit due", "boolean"),
            param("partial_refund_amount", "for a partial refund", "number, optional"),
        ),
        file_dispute,
    ),
    "order_replacement_credit_card_7291": Discoverable(
        True,
        "Order a replacement credit card; the old card is cancelled.",
        (
            param("credit_card_account_id", "the card's account"),
            param("user_id", "the customer's id"),
            param("shipping_address", "where to send the card"),
            param("reason", "fraud_suspected, lost, stolen, damaged, expired or other"),
            param("expedited_shipping", "2-3 days instead of 7-10", "boolean, optional"),
        ),
        order_replacement,
    ),
    "log_credit_card_closure_reason_4521": Discoverable(
        True,
        "Record why a customer wants to close a credit card.",
        (
            param("credit_card_account_id", "the card's account"),
            param("user_id", "the customer's id"),
            param("closure_reason", ", ".join(_CLOSURE_REASONS)),
        ),
        log_closure_reason,
    ),
    "get_closure_reason_history_8293": Discoverable(
        False,
        "Earlier closure requests of a credit card account.",
        (param("credit_card_account_id", "the card's account"),),
        closure_history,
    ),
    "apply_statement_credit_8472": Discoverable(
        True,
        "Credit a credit card statement.",
        (
            param("user_id", "the customer's id"),
            param("credit_card_account_id", "the card's account"),
            param("amount", "in USD, e.g. 25.00", "number"),
            param("reason", ", ".join(_CREDIT_REASONS)),
        ),
        statement_credit,
    ),
    "apply_credit_card_account_flag_6147": Discoverable(
        True,
        "Flag a credit card account (fee waiver, promotional APR, rewards bonus, other).",
        (
            param("credit_card_account_id", "the card's account"),
            param("user_id", "the customer's id"),
            param("flag_type", "annual_fee_waived, promotional_apr, rewards_bonus or other"),
            param("expiration_date", "MM/DD/YYYY"),
            param(
                "reason",
                "retention_offer, loyalty_benefit, promotional, error_correction or other",
            ),
        ),
        account_flag,
    ),
    "close_credit_card_account_7834": Discoverable(
        True,
        "Close a credit card account for good.",
        (param("credit_card_account_id", "the card's account"), param("user_id", "the id")),
        close_card_account,
    ),
}
"""The credit-card discoverable tools (limits in `_disc_limits`), by name."""
