"""The banking agent's tools: account lookups and writes, the discoverable-tool gateway, and
the knowledge-base search tools of each retrieval configuration.

Names, parameters, effects on the DB and reply facts follow tau2-bench's banking_knowledge
(replies are our wording). Tools answer failures with an "Error: ..." text, as tau2's do.
A discoverable tool's call is logged in `agent_discoverable_tools` (one record per tool
name) when the tool writes, or when the task's reference actions call it (tau2 v1.0.1's
allowlist: extra cautious reads no longer change the DB and zero the reward).
"""

from __future__ import annotations

import inspect
import json

from ....domains import Toolkit, tool
from ....errors import ToolError
from ._db import BankingDB
from ._discoverable import hex_id
from ._kb import KnowledgeBase, format_hits
from ._registry import DISCOVERABLE, USER_DISCOVERABLE, describe

TRANSFER_REASONS = (
    "fraud_or_security_concern",
    "account_closure_request",
    "deceased_account_holder",
    "legal_or_regulatory_matter",
    "account_ownership_dispute",
    "complex_billing_dispute",
    "abusive_customer_behavior",
    "third_party_inquiry",
    "technical_system_error",
    "unconfirmed_external_communication",
    "customer_demands_after_unavailable_offer_refusal",
    "kb_search_unsuccessful_customer_requests_transfer",
    "specialized_department_required",
    "accessibility_or_special_needs",
    "customer_frustrated_demands_human",
    "supervisor_request_service_complaint",
    "customer_requests_human_no_specific_reason",
    "request_completed_customer_wants_human_followup",
    "other",
)
"""The reason codes a transfer may carry (the knowledge base explains which applies)."""


def _listing(db: BankingDB, table: str, **equal: str) -> str:
    found = db.find(table, **equal)
    if not found:
        return f"No records found in '{table}'."
    lines = [f"Found {len(found)} record(s) in '{table}':\n"]
    for i, (rid, rec) in enumerate(found, 1):
        lines.append(f"{i}. Record ID: {rid}")
        lines.extend(f"   {k}: {v}" for k, v in rec.items())
        lines.append("")
    return "\n".join(lines)


class BankingTools(Toolkit[BankingDB]):
    """The agent's banking tools with no knowledge-base search (tau2's no-knowledge set)."""

    def __init__(
        self,
        db: BankingDB,
        read_log: frozenset[str] = frozenset(),
        kb: KnowledgeBase | None = None,
    ) -> None:
        super().__init__(db)
        self.kb = kb
        """The knowledge base the search and read tools use."""
        self.unlocked: set[str] = set()
        self.read_log = read_log
        """Read-only discoverable tools whose calls are logged (the task's reference reads)."""

    def state_hash(self) -> str:
        """The DB's hash."""
        return self.db.digest()

    @tool()
    def transfer_to_human_agents(self, summary: str, reason: str = "other") -> str:
        """Hand the customer to a human agent. Look the right reason code up in the
        knowledge base first.

        Args:
            summary: What the customer needs and what was tried.
            reason: The transfer's reason code (see the knowledge base), e.g. 'other'.
        """
        if reason not in TRANSFER_REASONS:
            # The agent reads tau2's "Error: ..." text; raised, so that the call is a failed
            # one and does not end the session as a transfer.
            raise ToolError(
                f"Invalid transfer reason '{reason}'. "
                f"Must be one of: {', '.join(TRANSFER_REASONS)}",
                "validation_error",
            )
        return f"Transfer successful (reason: {reason}). A human agent will assist you shortly."

    @tool()
    def get_current_time(self) -> str:
        """The current time, for verification records."""
        return "The current time is 2025-11-14 03:40:00 EST."

    @tool()
    def get_user_information_by_id(self, user_id: str) -> str:
        """A customer's record (date of birth, email, phone, address) by user id.

        Args:
            user_id: The customer's id.
        """
        return _listing(self.db, "users", user_id=user_id)

    @tool()
    def get_user_information_by_name(self, customer_name: str) -> str:
        """A customer's record by full name (case-sensitive).

        Args:
            customer_name: The customer's full name.
        """
        return _listing(self.db, "users", name=customer_name)

    @tool()
    def get_user_information_by_email(self, email: str) -> str:
        """A customer's record by email.

        Args:
            email: The customer's email address.
        """
        return _listing(self.db, "users", email=email)

    @tool(write=True)
    def change_user_email(self, user_id: str, new_email: str) -> str:
        """Change a customer's email address.

        Args:
            user_id: The customer's id.
            new_email: The new email address.
        """
        if not self.db.update("users", user_id, {"email": new_email}):
            return f"Error: User with ID '{user_id}' not found."
        return f"Email updated successfully.\n  - User ID: {user_id}\n  - New Email: {new_email}"

    @tool()
    def get_referrals_by_user(self, user_id: str) -> str:
        """The referrals a customer has made.

        Args:
            user_id: The referring customer's id.
        """
        return _listing(self.db, "referrals", referrer_id=user_id)

    @tool()
    def get_credit_card_transactions_by_user(self, user_id: str) -> str:
        """A customer's credit card transactions.

        Args:
            user_id: The customer's id.
        """
        return _listing(self.db, "credit_card_transaction_history", user_id=user_id)

    @tool()
    def get_credit_card_accounts_by_user(self, user_id: str) -> str:
        """A customer's credit card accounts: type, opening date, balance, reward points.

        Args:
            user_id: The customer's id.
        """
        return _listing(self.db, "credit_card_accounts", user_id=user_id)

    @tool(write=True)
    def log_verification(
        self,
        name: str,
        user_id: str,
        address: str,
        email: str,
        phone_number: str,
        date_of_birth: str,
        time_verified: str,
    ) -> str:
        """Record that a customer's identity was verified (two of date of birth, email,
        phone number and address confirmed).

        Args:
            name: The customer's full name.
            user_id: The customer's id.
            address: The customer's address.
            email: The customer's email.
            phone_number: The customer's phone number.
            date_of_birth: Date of birth, MM/DD/YYYY.
            time_verified: When, e.g. '2025-11-14 03:40:00 EST'.
        """
        suffix = time_verified.replace(" ", "_").replace(":", "").replace("-", "")
        record = {
            "name": name,
            "user_id": user_id,
            "address": address,
            "email": email,
            "phone_number": phone_number,
            "date_of_birth": date_of_birth,
            "time_verified": time_verified,
        }
        if not self.db.add("verification_history", f"{user_id}_{suffix}", record):
            return "Failed to log verification: Record may already exist."
        return (
            f"Verification logged successfully.\n  - User: {name} (ID: {user_id})\n"
            f"  - Verified at: {time_verified}"
        )

    @tool(write=True)
    def unlock_discoverable_agent_tool(self, agent_tool_name: str) -> str:
        """Unlock an internal tool the knowledge base names; then call it with
        call_discoverable_agent_tool.

        Args:
            agent_tool_name: The tool's name as the knowledge base gives it.
        """
        if agent_tool_name not in DISCOVERABLE:
            return f"Error: Unknown agent tool '{agent_tool_name}'. This tool is not available."
        self.unlocked.add(agent_tool_name)
        return (
            f"Tool unlocked: {agent_tool_name}\n\n{describe(agent_tool_name)}\n\n"
            f"Call it with call_discoverable_agent_tool(agent_tool_name='{agent_tool_name}', "
            "arguments='<JSON object>')."
        )

    @tool(write=True)
    def call_discoverable_agent_tool(self, agent_tool_name: str, arguments: str = "{}") -> str:
        """Call an internal tool unlocked before.

        Args:
            agent_tool_name: The unlocked tool's name.
            arguments: Its arguments as a JSON object text, e.g. '{"user_id": "abc123"}'.
        """
        found = DISCOVERABLE.get(agent_tool_name)
        if found is None:
            return f"Error: Unknown agent tool '{agent_tool_name}'. This tool is not available."
        if agent_tool_name not in self.unlocked:
            return (
                f"Error: Tool '{agent_tool_name}' has not been unlocked. "
                "Unlock it with unlock_discoverable_agent_tool first."
            )
        try:
            # Every JSON number is a float, as in tau2: 33 and 33.0 are the same value.
            args = json.loads(arguments, parse_int=float)
        except json.JSONDecodeError as exc:
            return f"Error: Invalid JSON in arguments: {exc}"
        if not isinstance(args, dict):
            return "Error: Invalid arguments: expected a JSON object"
        try:
            inspect.signature(found.run).bind(self.db, **args)
        except TypeError as exc:
            return f"Error: Invalid arguments: {exc}"
        reply = found.run(self.db, **args)
        if found.write or agent_tool_name in self.read_log:
            record = {"tool_name": agent_tool_name, "status": "CALLED"}
            self.db.add(
                "agent_discoverable_tools", hex_id(f"agent_discoverable_tool:{agent_tool_name}"),
                record,
            )  # fmt: skip
        return reply

    @tool(write=True)
    def give_discoverable_user_tool(
        self, discoverable_tool_name: str, arguments: str = "{}"
    ) -> str:
        """Give the customer a tool of their own that the knowledge base says they use
        themselves; they then run it with the arguments you pass.

        Args:
            discoverable_tool_name: The customer tool's name, as the knowledge base gives it.
            arguments: Its arguments as a JSON object text (the customer may fill in the rest).
        """
        found = USER_DISCOVERABLE.get(discoverable_tool_name)
        if found is None:
            return f"Error: Unknown discoverable tool '{discoverable_tool_name}'."
        try:
            args = json.loads(arguments)
        except json.JSONDecodeError as exc:
            return f"Error: Invalid JSON in arguments: {exc}"
        if not isinstance(args, dict):
            return "Error: Invalid arguments: expected a JSON object"
        for name in args:
            if name not in found[1]:
                return f"Error: Unexpected parameter: {name}"
        record = {"tool_name": discoverable_tool_name, "status": "GIVEN"}
        key = hex_id(f"user_discoverable_tool:{discoverable_tool_name}")
        self.db.add("user_discoverable_tools", key, record)
        shown = json.dumps(args, indent=2) if args else "(no arguments)"
        return (
            f"Tool given to user: {discoverable_tool_name}\nDescription: {found[0]}\n"
            f"Arguments: {shown}\n\nThe user can now run it with call_discoverable_user_tool."
        )

    @tool()
    def list_discoverable_agent_tools(self) -> str:
        """The internal tools whose calls are on record."""
        listing = _listing(self.db, "agent_discoverable_tools")
        if listing.startswith("No records"):
            return "No agent tools have been called yet. Search the knowledge base to find some."
        return f"Your called agent tools:\n{listing}"

    @tool()
    def get_document(self, doc_id: str) -> str:
        """Read one knowledge-base document in full by its id (as a search lists it).

        Args:
            doc_id: The document's id, e.g. 'doc_credit_cards_gold_rewards_card_001'.
        """
        kb = self.kb
        doc = kb.by_id.get(doc_id) if kb is not None else None
        if doc is None:
            return f"Error: Document '{doc_id}' not found."
        return f"{doc.title}\nID: {doc.id}\n\n{doc.content}"


class Bm25Tools(BankingTools):
    """Banking tools with BM25 search (tau2's `bm25` configuration)."""

    @tool()
    def KB_search(self, query: str) -> str:
        """Search the knowledge base (BM25); the 10 best documents with their content.

        Args:
            query: What to search for, in words.
        """
        assert self.kb is not None
        return format_hits(self.kb.bm25(query), "No relevant documents found.")


class GrepTools(BankingTools):
    """Banking tools with a regex search (tau2's `grep_only` configuration)."""

    @tool()
    def grep(self, pattern: str) -> str:
        """Search every document for a regular expression (case-insensitive); documents
        ranked by number of matches, with their content.

        Args:
            pattern: The regex, e.g. 'credit.*card' or 'fee|charge'.
        """
        assert self.kb is not None
        return format_hits(self.kb.grep(pattern), f"No matches found for pattern: {pattern}")


class Bm25GrepTools(Bm25Tools):
    """Banking tools with both searches (tau2's `bm25_grep` configuration)."""

    grep = GrepTools.grep
