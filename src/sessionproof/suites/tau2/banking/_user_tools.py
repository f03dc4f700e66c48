"""The customer's own tools (tau2's banking user tools): applying for a card, referrals,
transactions, asking for a human, and the tools the agent gives them. They act on the same
DB as the agent's tools. A task lists which of the plain tools its customer holds
(`user_tools`); the given ones work only after the agent gave them
(`give_discoverable_user_tool`), and each call of one is logged, as tau2 logs it.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from typing import Any

from ....domains import ToolContext, Toolkit, tool
from ....errors import UnknownToolError
from ....records import ToolCall, ToolResult, ToolSpec
from ._db import BankingDB
from ._discoverable import TODAY, account_balance, hex_id
from ._registry import USER_DISCOVERABLE

CARD_TYPES = (
    "Bronze Rewards Card",
    "Business Bronze Rewards Card",
    "Business Gold Rewards Card",
    "Business Platinum Rewards Card",
    "Business Silver Rewards Card",
    "Crypto-Cash Back",
    "Diamond Elite Card",
    "EcoCard",
    "Gold Rewards Card",
    "Green Rewards Card",
    "Platinum Rewards Card",
    "Silver Rewards Card",
    "Silver Zoom Card",
)
"""The cards one may apply for."""

REWARD_RATES: dict[str, dict[str, float]] = {
    "Bronze Rewards Card": {"default": 1.0},
    "Silver Rewards Card": {"Travel": 4.0, "Software": 4.0, "default": 1.0},
    "Gold Rewards Card": {"default": 2.5},
    "Platinum Rewards Card": {"default": 10.0},
    "Business Bronze Rewards Card": {"default": 1.0},
    "Business Silver Rewards Card": {"Travel": 10.0, "Software": 10.0, "default": 1.0},
    "Green Rewards Card": {"Sustainable": 3.0, "default": 1.0},
    "Business Gold Rewards Card": {"Operations": 2.5, "default": 1.0},
    "Business Platinum Rewards Card": {
        "Travel": 4.0,
        "Software": 4.0,
        "Media": 4.0,
        "default": 1.5,
    },
    "Silver Zoom Card": {"Transportation": 3.0, "default": 1.0},
    "Diamond Elite Card": {"default": 5.0},
    "EcoCard": {"Green": 5.0, "default": 1.0},
    "Crypto-Cash Back": {"default": 2.0},
}
"""Card → category → cash back in percent (points per dollar); `default` for the rest."""


def _given(db: BankingDB, name: str) -> str | None:
    if db.find("user_discoverable_tools", tool_name=name):
        return None
    return (
        f"Error: Tool '{name}' has not been given to you by the agent. The agent must first "
        "use `give_discoverable_user_tool` to give this tool to you."
    )


def _log(db: BankingDB, name: str, args: dict[str, Any]) -> None:
    key = hex_id(f"user_discoverable_tool_call:{name}:{json.dumps(args, sort_keys=True)}")
    record = {"tool_name": name, "arguments": args, "called_at": TODAY, "status": "CALLED"}
    db.add("user_discoverable_tool_calls", key, record)


def cash_back_dispute(db: BankingDB, user_id: str, transaction_id: str) -> str:
    """Dispute the cash back of a transaction (resolved at once when the task says so)."""
    dispute_id = "dsp_" + hex_id(f"dispute:{user_id}:{transaction_id}", 12)
    settings = db.rows("task_config").get("dispute_settings", {})
    record: dict[str, Any] = {
        "dispute_id": dispute_id,
        "user_id": user_id,
        "transaction_id": transaction_id,
        "submitted_at": TODAY,
        "status": "SUBMITTED",
    }
    if settings.get("auto_resolve_disputes", False):
        record.update(status="RESOLVED", resolution="APPROVED")
    if not db.add("cash_back_disputes", dispute_id, record):
        return "Cash back dispute noted; one may already exist for this transaction."
    return f"Cash back dispute submitted. Dispute ID: {dispute_id}; status {record['status']}."


def referral_link(db: BankingDB, user_id: str, card_name: str) -> str:
    """Make a referral link for a card."""
    rid = hex_id(f"referral_link:{user_id}:{card_name}")
    record = {
        "referral_id": rid,
        "referrer_id": user_id,
        "referred_account_type": card_name,
        "referral_status": "NO_PROGRESS",
        "date": TODAY,
    }
    if not db.add("referrals", rid, record):
        return "A referral link for this card may have been made already."
    return f"Referral link made: https://rhobank.com/refer/{rid}"


def card_last_4(db: BankingDB, credit_card_account_id: str) -> str:
    """The last 4 digits of a credit card (derived from its account id, as tau2 does)."""
    if not db.find("credit_card_accounts", account_id=credit_card_account_id):
        return f"Error: Credit card account '{credit_card_account_id}' not found."
    digest = hex_id(f"card_last4:{credit_card_account_id}", 64)
    digits = "".join(c for c in digest if c.isdigit())[:4].ljust(4, "0")
    return f"Last 4 digits of card: {digits}"


def deposit_check(db: BankingDB, account_id: str, check_amount: Any) -> str:
    """Deposit a check into an open account."""
    try:
        amount = float(check_amount)
    except (TypeError, ValueError):
        return f"Error: Invalid check amount '{check_amount}'. Must be a number."
    if amount <= 0:
        return "Error: Check amount must be positive."
    account = db.rows("accounts").get(account_id)
    if account is None:
        return f"Error: Account '{account_id}' not found."
    if account.get("status") not in ("ACTIVE", "OPEN"):
        return f"Error: Account '{account_id}' is not active."
    before = account_balance(account)
    account["current_holdings"] = f"${before + amount:.2f}"
    return f"Check deposited: ${amount:.2f}; balance ${before:.2f} -> ${before + amount:.2f}."


GIVEN: dict[str, Callable[..., str]] = {
    "submit_cash_back_dispute_0589": cash_back_dispute,
    "get_referral_link": referral_link,
    "get_card_last_4_digits": card_last_4,
    "deposit_check_3847": deposit_check,
}
"""What each tool the agent can give does (their parameters: `_registry.USER_DISCOVERABLE`)."""


class BankingUserTools(Toolkit[BankingDB]):
    """The customer's tools, over the agent's DB; only the task's plain tools are listed."""

    def __init__(self, db: BankingDB, allowed: frozenset[str] | None = None) -> None:
        super().__init__(db)
        self.allowed = allowed
        """The plain tools this customer holds (None: all)."""

    def _listed(self, name: str) -> bool:
        return self.allowed is None or name in self.allowed

    async def list_tools(self, ctx: ToolContext) -> list[ToolSpec]:
        """The task's tools, with the list of given tools always there."""
        return [s for s in self.specs() if self._listed(s.name)]

    async def call_tool(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        """Run one of the customer's tools; one they do not hold is unknown."""
        if not self._listed(call.name):
            from ....domains._internal import result_from_exception

            return result_from_exception(call, UnknownToolError(call.name, []), 0.0)
        return await super().call_tool(call, ctx)

    @tool(write=True)
    def apply_for_credit_card(
        self,
        card_type: str,
        customer_name: str,
        annual_income: float,
        rho_bank_subscription: bool = False,
    ) -> str:
        """Apply for a credit card.

        Args:
            card_type: The card, e.g. 'Gold Rewards Card'.
            customer_name: Your full legal name.
            annual_income: Your yearly income in USD.
            rho_bank_subscription: Whether you have a Rho-Bank+ subscription.
        """
        if card_type not in CARD_TYPES:
            return f"Error: Invalid card_type '{card_type}'. Must be one of: {list(CARD_TYPES)}"
        income = float(annual_income)
        seed = f"credit_card:{card_type}:{customer_name}:{income}:{rho_bank_subscription}"
        app_id = hex_id(seed)
        record = {
            "application_id": app_id,
            "card_type": card_type,
            "customer_name": customer_name,
            "annual_income": income,
            "rho_bank_subscription": rho_bank_subscription,
            "status": "PENDING",
            "date": TODAY,
        }
        if not self.db.add("credit_card_applications", app_id, record):
            return f"Failed to submit application: Record ID '{app_id}' may already exist."
        return "Application submitted; a decision comes by email within 5-7 business days."

    @tool(write=True)
    def submit_referral(self, user_id: str, account_type: str) -> str:
        """Refer someone to open an account.

        Args:
            user_id: Your user id (the referrer).
            account_type: The account you refer them to.
        """
        rid = hex_id(f"referral:{user_id}:{account_type}")
        record = {
            "referral_id": rid,
            "referrer_id": user_id,
            "referred_account_type": account_type,
            "referral_status": "NO_PROGRESS",
            "date": TODAY,
        }
        if not self.db.add("referrals", rid, record):
            return f"Failed to submit referral: Record ID '{rid}' may already exist."
        return f"Referral submitted. Referral ID: {rid} (share it with the person you refer)."

    @tool(write=True)
    def submit_transaction(
        self, user_id: str, credit_card_type: str, merchant_name: str, amount: float, category: str
    ) -> str:
        """Make a purchase with one of your credit cards.

        Args:
            user_id: Your user id.
            credit_card_type: The card used, e.g. 'Gold Rewards Card'.
            merchant_name: Where you bought.
            amount: The amount in USD, e.g. 127.43.
            category: The purchase's category, e.g. 'Groceries' or 'Travel'.
        """
        rates = REWARD_RATES.get(credit_card_type)
        if rates is None:
            return (
                f"Error: Unknown credit card type '{credit_card_type}'. "
                f"Available types: {list(REWARD_RATES)}"
            )
        seed = f"transaction:{user_id}:{credit_card_type}:{merchant_name}:{amount:.2f}:{category}"
        txn = "txn_" + hex_id(seed, 12)
        rate = rates.get(category, rates["default"])
        points = int(amount * rate)
        record = {
            "transaction_id": txn,
            "user_id": user_id,
            "credit_card_type": credit_card_type,
            "merchant_name": merchant_name,
            "transaction_amount": f"${amount:.2f}",
            "transaction_date": TODAY,
            "category": category,
            "status": "COMPLETED",
            "rewards_earned": f"{points} points",
        }
        if not self.db.add("credit_card_transaction_history", txn, record):
            return f"Failed to submit transaction: Record ID '{txn}' may already exist."
        return f"Transaction {txn} recorded: ${amount:.2f} at {merchant_name}, {points} points."

    @tool(write=True)
    def request_human_agent_transfer(self) -> str:
        """Ask to be transferred to a human agent (each request is counted)."""
        number = len(self.db.rows("human_transfer_requests")) + 1
        rid = f"transfer_request_{number}"
        record = {
            "request_id": rid,
            "request_number": number,
            "requested_at": TODAY,
            "status": "PENDING",
        }
        self.db.add("human_transfer_requests", rid, record)
        return f"Transfer request #{number} submitted; the agent will process it."

    @tool(write=True)
    def call_discoverable_user_tool(
        self, discoverable_tool_name: str, arguments: str = "{}"
    ) -> str:
        """Use a tool the agent gave you.

        Args:
            discoverable_tool_name: The tool's name, as the agent gave it.
            arguments: Its arguments as a JSON object text, e.g. '{"user_id": "abc123"}'.
        """
        run = GIVEN.get(discoverable_tool_name)
        if run is None:
            return f"Error: Unknown discoverable tool '{discoverable_tool_name}'."
        try:
            args = json.loads(arguments, parse_int=float)
        except json.JSONDecodeError as exc:
            return f"Error: Invalid JSON in arguments: {exc}"
        if not isinstance(args, dict):
            return "Error: Invalid arguments: expected a JSON object"
        params = USER_DISCOVERABLE[discoverable_tool_name][1]
        for name in params:
            if name not in args:
                return f"Error: Missing required parameter: {name}"
        for name in args:
            if name not in params:
                return f"Error: Unexpected parameter: {name}"
        refused = _given(self.db, discoverable_tool_name)
        if refused:
            return refused
        _log(self.db, discoverable_tool_name, args)
        inspect.signature(run).bind(self.db, **args)
        return run(self.db, **args)

    @tool()
    def list_discoverable_user_tools(self) -> str:
        """The tools the agent has given you."""
        given = [rec["tool_name"] for _, rec in self.db.find("user_discoverable_tools")]
        if not given:
            return "No tools have been given to you yet by the agent."
        return "Tools given to you by the agent: " + ", ".join(given)
