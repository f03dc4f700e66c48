"""Recipe: your own tools as a Python toolkit, in a project directory.

Every method marked `@tool` is a tool: its typed signature becomes the JSON Schema and its
docstring the description (the `Args:` section describes each parameter). `write=True` marks a
tool that changes the DB; a `ToolError` subclass names the error class the agent sees.
"""

from __future__ import annotations

from pydantic import BaseModel

from sessionproof.domains import Toolkit, tool
from sessionproof.errors import ToolError


class Loan(BaseModel):
    """One book on loan."""

    loan_id: str
    title: str
    renewals: int


class LibraryDB(BaseModel):
    """Everything the tools act on; sessions start from data/state.json."""

    loans: dict[str, Loan] = {}


class NoSuchLoan(ToolError):
    """The loan does not exist."""

    error_class = "not_found"


class LibraryTools(Toolkit[LibraryDB]):
    """You are a library's loans desk. Look a loan up before renewing it."""

    def _loan(self, loan_id: str) -> Loan:
        loan = self.db.loans.get(loan_id)
        if loan is None:
            raise NoSuchLoan(f"no loan {loan_id}")
        return loan

    @tool()
    def get_loan(self, loan_id: str) -> Loan:
        """Look up a loan.

        Args:
            loan_id: The loan's id, like "L7".
        """
        return self._loan(loan_id)

    @tool(write=True)
    def renew_loan(self, loan_id: str) -> Loan:
        """Renew a loan for another three weeks.

        Args:
            loan_id: The loan's id.
        """
        loan = self._loan(loan_id)
        loan.renewals += 1
        return loan
