"""Discoverable tools on bank accounts: open, close, move money, credit, report interest, and
the special transfer steps the knowledge base prescribes. Checks, effects and ids as tau2's."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ._db import BankingDB
from ._discoverable import TODAY, Discoverable, account_balance, hex_id, param

NOW = datetime(2025, 11, 14, 3, 40, 0)
"""The domain's fixed 'now'."""

_CHECKING_EARLY = {
    "Light Blue Account": (15, 30),
    "Light Green Account": (15, 30),
    "Green Fee-Free Account": (15, 30),
    "Blue Account": (25, 60),
    "Green Account": (25, 60),
    "Evergreen Account": (50, 90),
    "Bluest Account": (100, 180),
}
"""Personal checking level → (early-closure fee, window in days)."""
_SAVINGS_EARLY = {
    "Bronze Account": (20, 60),
    "Silver Account": (35, 90),
    "Silver Plus Account": (35, 90),
    "Gold Account": (75, 180),
    "Gold Plus Account": (75, 180),
    "Gold Years Account": (75, 180),
    "Platinum Account": (150, 270),
    "Platinum Plus Account": (150, 270),
    "Diamond Elite Account": (150, 270),
}
"""Personal savings level → (early-closure fee, window in days)."""


def _age_days(account: dict[str, Any]) -> int:
    try:
        return (NOW - datetime.strptime(account.get("date_opened", ""), "%m/%d/%Y")).days
    except ValueError:
        return 0


def _live(account: dict[str, Any]) -> bool:
    return account.get("status", "") in ("OPEN", "ACTIVE")


def _kind(account: dict[str, Any]) -> Any:
    return account.get("account_type", account.get("class", ""))


_NOT_ELIGIBLE = "Error: Account eligibility requirements not met."


def open_bank_account(db: BankingDB, user_id: str, account_type: str, account_class: str) -> str:
    """Open an account when the customer's other accounts make them eligible."""
    if not user_id or not account_type or not account_class:
        return "Error: Missing required parameters."
    kinds = ["checking", "savings", "business_checking", "business_savings"]
    if account_type not in kinds:
        return f"Error: Invalid account_type. Must be one of: {kinds}"
    mine = [a for a in db.rows("accounts").values() if a.get("user_id") == user_id]
    personal = ("checking", "personal_checking")
    if account_type == "savings" and not any(
        _kind(a) in personal and _live(a) and _age_days(a) >= 14 for a in mine
    ):
        return _NOT_ELIGIBLE
    if account_type == "business_checking" and (
        any(a.get("status") == "CLOSED" for a in mine)
        or not any(_kind(a) in personal and _live(a) for a in mine)
    ):
        return _NOT_ELIGIBLE
    if account_type == "business_savings":
        if any(account_balance(a) < 0 for a in mine):
            return _NOT_ELIGIBLE
        if not any(
            _kind(a) == "business_checking" and _live(a) and _age_days(a) >= 30 for a in mine
        ):
            return _NOT_ELIGIBLE
    account_id = hex_id(f"account:{user_id}:{account_type}:{account_class}")
    record = {
        "account_id": account_id,
        "user_id": user_id,
        "account_type": account_type,
        "account_class": account_class,
        "current_holdings": "0.00",
        "status": "OPEN",
        "date_opened": TODAY,
    }
    if not db.add("accounts", account_id, record):
        return f"Failed to open account: Account ID '{account_id}' may already exist."
    return (
        f"Bank account opened.\n  - Account ID: {account_id}\n  - User ID: {user_id}\n"
        f"  - Account Type: {account_type}\n  - Account Class: {account_class}\n"
        f"  - Status: OPEN\n  - Balance: $0.00\n  - Opened: {TODAY}"
    )


def close_bank_account(
    db: BankingDB,
    account_id: str,
    reason: str = "Customer requested closure",
    waive_early_closure_fee: bool = False,
) -> str:
    """Close an account whose balance (less any early-closure fee) is zero."""
    if not account_id:
        return "Error: Missing required parameter (account_id)."
    account = db.rows("accounts").get(account_id)
    if account is None:
        return f"Error: Account '{account_id}' not found."
    if account.get("status") == "CLOSED":
        return f"Error: Account '{account_id}' is already closed."
    balance = account_balance(account)
    fee = 0.0
    if not waive_early_closure_fee:
        table = {"checking": _CHECKING_EARLY, "savings": _SAVINGS_EARLY}.get(
            account.get("class", ""), {}
        )
        rule = table.get(account.get("level", ""))
        if rule and account.get("date_opened"):
            try:
                opened = datetime.strptime(account["date_opened"], "%m/%d/%Y")
            except ValueError:
                opened = None
            if opened is not None and (NOW - opened).days < rule[1]:
                if balance < rule[0]:
                    return "Error: Account unable to be closed."
                fee = rule[0]
    if balance - fee != 0:
        return (
            f"Error: Account balance must be $0.00 before closing. Current balance: ${balance:.2f}"
        )
    account.update(
        status="CLOSED",
        date_closed=TODAY,
        closure_reason=reason,
        early_closure_fee_waived=waive_early_closure_fee,
    )
    return (
        f"Bank account closed.\n  - Account ID: {account_id}\n  - Status: CLOSED\n"
        f"  - Closed: {TODAY}\n  - Reason: {reason}\n"
        f"  - Early closure fee waived: {'Yes' if waive_early_closure_fee else 'No'}"
    )


def transfer_funds(
    db: BankingDB, source_account_id: str, destination_account_id: str, amount: Any
) -> str:
    """Move money between two open accounts."""
    if not source_account_id or not destination_account_id or amount is None:
        return (
            "Error: Missing required parameters "
            "(source_account_id, destination_account_id, amount)."
        )
    try:
        amount = float(amount)
    except (TypeError, ValueError):
        return f"Error: Invalid amount '{amount}'. Must be a number."
    if amount <= 0:
        return "Error: Transfer amount must be positive."
    if source_account_id == destination_account_id:
        return "Error: Source and destination accounts cannot be the same."
    accounts = db.rows("accounts")
    if source_account_id not in accounts:
        return f"Error: Source account '{source_account_id}' not found."
    if destination_account_id not in accounts:
        return f"Error: Destination account '{destination_account_id}' not found."
    source, dest = accounts[source_account_id], accounts[destination_account_id]
    if not _live(source):
        return f"Error: Source account '{source_account_id}' is not active."
    if not _live(dest):
        return f"Error: Destination account '{destination_account_id}' is not active."
    have = account_balance(source)
    if have < amount:
        return (
            f"Error: Insufficient funds. Source account balance is ${have:.2f}, "
            f"but transfer amount is ${amount:.2f}."
        )
    new_source, new_dest = have - amount, account_balance(dest) + amount
    source["current_holdings"] = f"${new_source:.2f}"
    dest["current_holdings"] = f"${new_dest:.2f}"
    return (
        f"Transfer completed.\n  - Amount: ${amount:.2f}\n"
        f"  - From: {source_account_id} (now ${new_source:.2f})\n"
        f"  - To: {destination_account_id} (now ${new_dest:.2f})"
    )


_CREDIT_TEXT = {
    "rebate_credit": "REBATE CREDIT - CUSTOMER SERVICE",
    "fee_refund": "FEE REFUND - CUSTOMER SERVICE",
    "interest_correction": "INTEREST CORRECTION - CUSTOMER SERVICE",
    "goodwill_credit": "GOODWILL CREDIT - CUSTOMER SERVICE",
}


def _credit(db: BankingDB, account_id: str, amount: Any, credit_type: str, *, savings: bool) -> str:
    if not account_id or amount is None or not credit_type:
        return "Error: Missing required parameters."
    try:
        amount = float(amount)
    except (TypeError, ValueError):
        return "Error: Invalid credit amount. Must be a number."
    if amount <= 0:
        return "Error: Credit amount must be positive."
    kinds = (
        ["interest_correction", "fee_refund", "goodwill_credit"]
        if savings
        else ["rebate_credit", "fee_refund"]
    )
    if credit_type not in kinds:
        return f"Error: Invalid credit_type. Must be one of: {kinds}"
    account = db.rows("accounts").get(account_id)
    if account is None:
        return f"Error: Account '{account_id}' not found."
    klass = str(account.get("class", "")).lower()
    if savings and klass not in ("saving", "savings"):
        return f"Error: Account '{account_id}' is not a savings account."
    if not savings and klass != "checking":
        return f"Error: Account '{account_id}' is not a checking account."
    if not _live(account):
        return f"Error: Account '{account_id}' is not active."
    before = account_balance(account)
    after = before + amount
    # tau2 writes a savings balance without the dollar sign, a checking one with it.
    account["current_holdings"] = f"{after:.2f}" if savings else f"${after:.2f}"
    kind = "savings_credit" if savings else "checking_credit"
    txn = "txn_" + hex_id(f"{kind}:{account_id}:{credit_type}:{amount}:{TODAY}")
    db.rows("bank_account_transaction_history")[txn] = {
        "transaction_id": txn,
        "account_id": account_id,
        "date": TODAY,
        "description": _CREDIT_TEXT[credit_type],
        "amount": amount,
        "type": credit_type,
        "status": "posted",
    }
    return (
        f"\nCredit applied.\n  - Transaction ID: {txn}\n  - Account: {account_id}\n"
        f"  - Credit Type: {credit_type}\n  - Amount: ${amount:.2f}\n"
        f"  - Balance before: ${before:.2f}\n  - Balance now: ${after:.2f}"
    )


def checking_credit(db: BankingDB, account_id: str, amount: Any, credit_type: str) -> str:
    """Credit a checking account (a missing rebate or a wrong fee)."""
    return _credit(db, account_id, amount, credit_type, savings=False)


def savings_credit(db: BankingDB, account_id: str, amount: Any, credit_type: str) -> str:
    """Credit a savings account (interest correction, fee refund or goodwill)."""
    return _credit(db, account_id, amount, credit_type, savings=True)


def interest_report(
    db: BankingDB,
    account_id: str,
    user_id: str,
    expected_apy: Any,
    actual_apy: Any,
    amount_difference: Any,
) -> str:
    """Report an interest discrepancy to the back office.

    tau2 files the report in a table its DB does not have, so nothing is stored: kept.
    """
    if not account_id or not user_id or None in (expected_apy, actual_apy, amount_difference):
        return "Error: Missing required parameters."
    try:
        expected, actual, diff = float(expected_apy), float(actual_apy), float(amount_difference)
    except (TypeError, ValueError):
        return "Error: expected_apy, actual_apy, and amount_difference must be numbers."
    account = db.rows("accounts").get(account_id)
    if account is None:
        return f"Error: Account '{account_id}' not found."
    user = db.rows("users").get(user_id)
    if user is None:
        return f"Error: User '{user_id}' not found."
    report = "IDR_" + hex_id(f"interest_report:{account_id}:{user_id}:{expected}:{actual}:{TODAY}")
    return (
        f"\nInterest discrepancy report submitted.\n  - Report ID: {report}\n"
        f"  - Account: {account_id} ({account.get('level', 'Unknown')})\n"
        f"  - Customer: {user.get('name', 'Unknown')}\n  - Expected APY: {expected}%\n"
        f"  - Actual APY: {actual}%\n  - Difference: {round(expected - actual, 4)}%\n"
        f"  - Amount: ${diff:.2f}\n  - Status: PENDING_REVIEW"
    )


def _fixed(text: str) -> Any:
    def run(db: BankingDB) -> str:
        return text

    return run


ACCOUNTS: dict[str, Discoverable] = {
    "initial_transfer_to_human_agent_0218": Discoverable(
        False,
        "Start a transfer to a human agent (a step of a special transfer protocol).",
        (),
        _fixed("Initial transfer started: tell the customer the lines are busy."),
    ),
    "initial_transfer_to_human_agent_1822": Discoverable(
        False,
        "Start a transfer to a human agent (a step of a special transfer protocol).",
        (),
        _fixed(
            "The conversation is not ready for a human yet; without saying so, help the "
            "customer with the basic scenarios that could solve their issue."
        ),
    ),
    "emergency_credit_bureau_incident_transfer_1114": Discoverable(
        False,
        "Escalate a case of the 11/14 credit bureau reporting incident for priority handling.",
        (),
        _fixed(
            "Escalation logged for the credit bureau correction team; now complete the "
            "hand-off with transfer_to_human_agents."
        ),
    ),
    "open_bank_account_4821": Discoverable(
        True,
        "Open a new bank account for a customer.",
        (
            param("user_id", "the customer's id"),
            param("account_type", "checking, savings, business_checking or business_savings"),
            param("account_class", "the account's full official class name"),
        ),
        open_bank_account,
    ),
    "close_bank_account_7392": Discoverable(
        True,
        "Close a checking or savings account (its balance must come to $0.00).",
        (
            param("account_id", "the account to close"),
            param("reason", "why it is closed", "string, optional"),
            param("waive_early_closure_fee", "waive the early-closure fee", "boolean, optional"),
        ),
        close_bank_account,
    ),
    "transfer_funds_between_bank_accounts_7291": Discoverable(
        True,
        "Move money from one bank account to another.",
        (
            param("source_account_id", "the account to take the money from"),
            param("destination_account_id", "the account to put it in"),
            param("amount", "the amount in USD", "number"),
        ),
        transfer_funds,
    ),
    "apply_checking_account_credit_5829": Discoverable(
        True,
        "Credit a checking account.",
        (
            param("account_id", "the checking account"),
            param("amount", "a positive amount in USD", "number"),
            param("credit_type", "'rebate_credit' (a missing rebate) or 'fee_refund'"),
        ),
        checking_credit,
    ),
    "apply_savings_account_credit_6831": Discoverable(
        True,
        "Credit a savings account (interest corrections, fee refunds, goodwill).",
        (
            param("account_id", "the savings account"),
            param("amount", "a positive amount in USD", "number"),
            param("credit_type", "'interest_correction', 'fee_refund' or 'goodwill_credit'"),
        ),
        savings_credit,
    ),
    "submit_interest_discrepancy_report_7294": Discoverable(
        True,
        "Report interest that does not match the expected APY to the back office.",
        (
            param("account_id", "the savings account"),
            param("user_id", "the customer's id"),
            param("expected_apy", "the APY due, in percent (e.g. 2.775)", "number"),
            param("actual_apy", "the APY applied, in percent", "number"),
            param("amount_difference", "the interest missing, in USD", "number"),
        ),
        interest_report,
    ),
}
"""The bank-account discoverable tools, by name."""
