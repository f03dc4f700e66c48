"""Discoverable tools on debit cards: Regulation E disputes, orders, activation of a
replacement, fraud alerts, PIN resets and temporary limits. Checks, effects and ids as tau2's
(quirks kept: an order reads a balance written with a dollar sign as 0)."""

from __future__ import annotations

from typing import Any

from ._db import BankingDB
from ._discoverable import TODAY, Discoverable, hex_id, param
from ._discoverable import records as listing

_CATEGORIES = [
    "unauthorized_transaction",
    "atm_cash_discrepancy",
    "atm_deposit_not_credited",
    "duplicate_charge",
    "incorrect_amount",
    "goods_services_not_received",
    "recurring_charge_after_cancellation",
    "card_present_fraud",
    "card_not_present_fraud",
]
_TXN_TYPES = [
    "pin_purchase",
    "signature_purchase",
    "online_purchase",
    "atm_withdrawal",
    "atm_deposit",
    "recurring_payment",
    "person_to_person",
]
_PIN_STATES = ["yes_shared", "yes_observed", "no", "unknown"]
_CARD_ACTIONS = ["keep_active", "freeze_pending_investigation", "close_and_reissue"]
_FRAUD = ("unauthorized_transaction", "card_present_fraud", "card_not_present_fraud")


def file_debit_dispute(
    db: BankingDB,
    transaction_id: str,
    account_id: str,
    card_id: str,
    user_id: str,
    dispute_category: str,
    transaction_date: str,
    discovery_date: str,
    disputed_amount: Any,
    transaction_type: str,
    card_in_possession: bool,
    pin_compromised: str,
    contacted_merchant: bool,
    police_report_filed: bool,
    written_statement_provided: bool,
    provisional_credit_eligible: bool,
    customer_max_liability_amount: Any,
    card_action: str,
) -> str:
    """File a Regulation E dispute of a debit card transaction."""
    needed = (transaction_id, account_id, card_id, user_id, dispute_category, transaction_date)
    if not all((*needed, discovery_date, disputed_amount, transaction_type)) or not all(
        (pin_compromised, card_action)
    ):
        return "Error: Missing required parameters."
    if customer_max_liability_amount is None:
        return "Error: customer_max_liability_amount is required."
    flags = (card_in_possession, contacted_merchant, police_report_filed)
    if any(f is None for f in (*flags, written_statement_provided)):
        return (
            "Error: card_in_possession, contacted_merchant, police_report_filed, and "
            "written_statement_provided are required boolean fields."
        )
    for value, allowed, name in (
        (dispute_category, _CATEGORIES, "dispute_category"),
        (transaction_type, _TXN_TYPES, "transaction_type"),
        (pin_compromised, _PIN_STATES, "pin_compromised"),
        (card_action, _CARD_ACTIONS, "card_action"),
    ):
        if value not in allowed:
            return f"Error: Invalid {name}. Must be one of: {allowed}"
    if disputed_amount <= 0:
        return "Error: disputed_amount must be a positive number."
    dispute_id = "dsp_" + hex_id(f"dispute:{user_id}:{transaction_id}", 12)
    fraud = dispute_category in _FRAUD
    record = {
        "dispute_id": dispute_id,
        "transaction_id": transaction_id,
        "account_id": account_id,
        "card_id": card_id,
        "user_id": user_id,
        "dispute_category": dispute_category,
        "transaction_date": transaction_date,
        "discovery_date": discovery_date,
        "disputed_amount": disputed_amount,
        "transaction_type": transaction_type,
        "card_in_possession": card_in_possession,
        "pin_compromised": pin_compromised,
        "contacted_merchant": contacted_merchant,
        "police_report_filed": police_report_filed,
        "written_statement_provided": written_statement_provided,
        "provisional_credit_eligible": provisional_credit_eligible,
        "provisional_credit_issued": provisional_credit_eligible,
        "provisional_credit_amount": disputed_amount if provisional_credit_eligible else None,
        "customer_max_liability_amount": customer_max_liability_amount,
        "card_action": card_action,
        "is_fraud_category": fraud,
        "pin_shared_voluntarily": pin_compromised == "yes_shared",
        "submitted_at": TODAY,
        "status": "OPEN",
    }
    if not db.add("debit_card_disputes", dispute_id, record):
        return "Error: Dispute may have already been filed for this transaction."
    lines = [
        f"Dispute ID: {dispute_id}",
        f"Transaction: {transaction_id}",
        f"Category: {dispute_category.replace('_', ' ').title()}",
        f"Disputed Amount: ${disputed_amount:.2f}",
        f"Card Action: {card_action.replace('_', ' ').title()}",
        f"Provisional credit: ${disputed_amount:.2f} within 10 business days (Regulation E)."
        if provisional_credit_eligible
        else "Provisional credit: not eligible.",
    ]
    if pin_compromised == "yes_shared":
        lines.append("Note: the PIN was shared voluntarily, which may change liability.")
    if fraud and not police_report_filed and disputed_amount > 500:
        lines.append("A police report is recommended for fraud over $500.")
    return "\n".join(lines)


def debit_disputes(db: BankingDB, user_id: str) -> str:
    """A user's debit card disputes."""
    if not user_id:
        return "Error: Missing required parameter: user_id"
    found = listing(db, "debit_card_disputes", user_id=user_id)
    return "\n".join(
        [
            "Debit card dispute history retrieved successfully.",
            "",
            "Executed: get_debit_dispute_status_7483",
            f"Debit card disputes of user {user_id}:",
            found or "\nNo debit card disputes found for this user.",
        ]
    )


_DELIVERY = {
    "STANDARD": "7-10 business days",
    "EXPEDITED": "3-5 business days",
    "RUSH": "1-2 business days",
}
_LONG_MONTHS = ("01", "03", "05", "07", "08", "10", "12")


def _digits(seed: str, length: int, keep: int) -> str:
    return "".join(c for c in hex_id(seed, length) if c.isdigit())[:keep].zfill(keep)


def order_debit_card(
    db: BankingDB,
    account_id: str,
    user_id: str,
    delivery_option: str,
    delivery_fee: Any,
    card_design: str,
    design_fee: Any,
    shipping_address: str,
    excess_replacement_fee: Any = None,
) -> str:
    """Order a debit card for an open checking account with no active card; fees are
    charged to the account, and the new card waits (PENDING) to be activated."""
    try:
        delivery = float(delivery_fee) if delivery_fee is not None else None
        design = float(design_fee) if design_fee is not None else None
    except (TypeError, ValueError):
        return "Error: delivery_fee and design_fee must be numbers."
    try:
        excess = float(excess_replacement_fee or 0)
    except (TypeError, ValueError):
        excess = 0.0
    given = (account_id, user_id, delivery_option, card_design, shipping_address)
    if not all(given) or delivery is None or design is None:
        return "Error: Missing required parameters."
    option, style = delivery_option.upper(), card_design.upper()
    if option not in _DELIVERY:
        return f"Error: Invalid delivery_option. Must be one of: {list(_DELIVERY)}"
    if style not in ("CLASSIC", "PREMIUM", "CUSTOM"):
        return "Error: Invalid card_design. Must be one of: ['CLASSIC', 'PREMIUM', 'CUSTOM']"
    account = db.rows("accounts").get(account_id)
    if account is None:
        return f"Error: Account '{account_id}' not found."
    if account.get("class") != "checking":
        return f"Error: Debit cards can only be ordered for checking accounts ('{account_id}')."
    if account.get("status") != "OPEN":
        return f"Error: Account must be OPEN. '{account_id}' is {account.get('status')}."
    if account.get("user_id") != user_id:
        return f"Error: Account '{account_id}' does not belong to user '{user_id}'."
    try:
        have = float(str(account.get("current_holdings", "0")).replace(",", ""))
    except ValueError:
        have = 0.0  # tau2 does not strip a dollar sign here
    if have < 25.0:
        return f"Error: Account must have a minimum balance of $25. Current balance: ${have:.2f}"
    orders = db.rows("debit_card_orders").values()
    if any(o.get("account_id") == account_id and o.get("status") == "PENDING" for o in orders):
        return f"Error: There is already a pending debit card order for account '{account_id}'."
    cards = db.rows("debit_cards")
    mine = [c for c in cards.values() if c.get("account_id") == account_id]
    if any(c.get("status") == "ACTIVE" for c in mine):
        return f"Error: Account '{account_id}' already has an active debit card."
    total = delivery + design + excess
    if total > 0 and have < total:
        return f"Error: Insufficient funds for fees. Total fees: ${total:.2f}."
    order_id = "dcord_" + hex_id(f"debit_card_order:{account_id}:{user_id}:{option}", 12)
    record = {
        "order_id": order_id,
        "account_id": account_id,
        "user_id": user_id,
        "delivery_option": option,
        "card_design": style,
        "shipping_address": shipping_address,
        "delivery_fee": delivery,
        "design_fee": design,
        "excess_replacement_fee": excess,
        "total_fee": total,
        "order_date": TODAY,
        "expected_delivery": _DELIVERY[option],
        "status": "PENDING",
    }
    if not db.add("debit_card_orders", order_id, record):
        return "Error: Failed to create debit card order. Order may already exist."
    if total > 0:
        account["current_holdings"] = f"{have - total:.2f}"
        parts = [f"Delivery ${delivery}"] if delivery > 0 else []
        parts += [f"Design ${design}"] if design > 0 else []
        parts += [f"Excess Replacement ${excess:.0f}"] if excess > 0 else []
        fee_id = f"btxn_dcfee_{order_id[-8:]}"
        db.add(
            "bank_account_transaction_history",
            fee_id,
            {
                "transaction_id": fee_id,
                "account_id": account_id,
                "date": TODAY,
                "description": f"DEBIT CARD ORDER FEE - {', '.join(parts)}",
                "amount": -total,
                "type": "debit_card_fee",
                "status": "posted",
            },
        )
    card_id = "dbc_" + hex_id(f"debit_card:{account_id}:{user_id}:{TODAY}", 12)
    month, _, year = TODAY.split("/")
    day = "31" if month in _LONG_MONTHS else "28" if month == "02" else "30"
    linked = mine  # the account's cards before this one
    closed = next((c for c in linked if c.get("status") == "CLOSED"), None)
    if closed is not None:
        why = closed.get("closure_reason", "first_card")
        reason = why if why in ("lost", "stolen", "fraud") else "first_card"
        reason = "fraud" if why == "fraud_suspected" else reason
    else:
        reason = "first_card" if linked else "new_account"
    name = db.rows("users").get(user_id, {}).get("name", "CARDHOLDER").upper()
    db.add(
        "debit_cards",
        card_id,
        {
            "card_id": card_id,
            "account_id": account_id,
            "user_id": user_id,
            "cardholder_name": name,
            "last_4_digits": _digits(f"card_details:{card_id}:last4", 8, 4),
            "cvv": _digits(f"card_details:{card_id}:cvv", 6, 3),
            "status": "PENDING",
            "issue_date": TODAY,
            "expiration_date": f"{month}/{day}/{int(year) + 4}",
            "card_design": style,
            "issue_reason": reason,
        },
    )
    fees = f"Total fees: ${total:.2f}, charged to {account_id}" if total > 0 else "No fees"
    return (
        f"Debit card ordered.\nOrder ID: {order_id}\nCard ID: {card_id}\n"
        f"Account: {account_id}\nDelivery: {option} ({_DELIVERY[option]})\nDesign: {style}\n"
        f"{fees}\nThe card arrives PENDING; the customer calls to activate it."
    )


DEBIT: dict[str, Discoverable] = {
    "file_debit_card_transaction_dispute_6281": Discoverable(
        True,
        "File a Regulation E dispute of a debit card transaction.",
        (
            param("transaction_id", "the disputed transaction"),
            param("account_id", "the checking account of the card"),
            param("card_id", "the debit card"),
            param("user_id", "the customer's id"),
            param("dispute_category", ", ".join(_CATEGORIES)),
            param("transaction_date", "MM/DD/YYYY"),
            param("discovery_date", "MM/DD/YYYY, when the customer noticed"),
            param("disputed_amount", "in USD", "number"),
            param("transaction_type", ", ".join(_TXN_TYPES)),
            param("card_in_possession", "the customer still has the card", "boolean"),
            param("pin_compromised", ", ".join(_PIN_STATES)),
            param("contacted_merchant", "the merchant was contacted", "boolean"),
            param("police_report_filed", "a police report exists", "boolean"),
            param("written_statement_provided", "a written statement was given", "boolean"),
            param("provisional_credit_eligible", "provisional credit is due", "boolean"),
            param(
                "customer_max_liability_amount", "USD the customer may owe; -1 unlimited", "number"
            ),
            param("card_action", ", ".join(_CARD_ACTIONS)),
        ),
        file_debit_dispute,
    ),
    "get_debit_dispute_status_7483": Discoverable(
        False,
        "A customer's debit card disputes and their status.",
        (param("user_id", "the customer's id"),),
        debit_disputes,
    ),
    "order_debit_card_5739": Discoverable(
        True,
        "Order a new debit card for a checking account.",
        (
            param("account_id", "the checking account"),
            param("user_id", "the customer's id"),
            param("delivery_option", "STANDARD, EXPEDITED or RUSH"),
            param("delivery_fee", "USD", "number"),
            param("card_design", "CLASSIC, PREMIUM or CUSTOM"),
            param("design_fee", "USD", "number"),
            param("shipping_address", "where to send the card"),
            param("excess_replacement_fee", "USD, past the replacement limit", "number, optional"),
        ),
        order_debit_card,
    ),
}
"""The debit-card dispute and order tools, by name."""
