"""A small lending-library world for fault, drift and guard tests."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from sessionproof.domains import Domain, ToolContext, Toolkit, tool
from sessionproof.errors import ToolError
from sessionproof.records import Event, EventKind
from sessionproof.records._internal import EventPayload, make_event

LoanKind = Literal["standard", "short_loan"]


class Book(BaseModel):
    """A book on the shelf."""

    model_config = ConfigDict(extra="forbid")

    id: str
    name: str
    status: Literal["available", "loaned"] = "available"
    borrower: str | None = None
    loan_kind: LoanKind | None = None
    shelf_note: str = ""


class LibraryDB(BaseModel):
    """The library's state."""

    model_config = ConfigDict(extra="forbid")

    books: dict[str, Book] = Field(
        default_factory=lambda: {
            "B1": Book(id="B1", name="Dune", shelf_note="top shelf"),
            "B2": Book(id="B2", name="Emma"),
        }
    )


class LibraryTools(Toolkit[LibraryDB]):
    """Read a book, lend a book, hand over to a human."""

    @tool()
    def get_book(self, book_id: str) -> Book:
        """Look a book up by id.

        Args:
            book_id: The book's id, e.g. "B1".
        """
        book = self.db.books.get(book_id)
        if book is None:
            raise ToolError(f"book {book_id!r} not found", "not_found")
        return book.model_copy()

    @tool(write=True)
    def lend_book(self, book_id: str, member: str, kind: LoanKind) -> Book:
        """Lend an available book to a member. Use "standard" unless asked otherwise.

        Args:
            book_id: The book's id, e.g. "B1".
            member: The member's card number.
            kind: "standard" or "short_loan".
        """
        book = self.db.books.get(book_id)
        if book is None:
            raise ToolError(f"book {book_id!r} not found", "not_found")
        if book.status != "available":
            raise ToolError(f"book {book_id} is already loaned", "policy_refusal")
        book.status, book.borrower, book.loan_kind = "loaned", member, kind
        return book.model_copy()

    @tool()
    def count_books(self, shelf_size: int = 10) -> int:
        """Count the books (a read with an integer parameter).

        Args:
            shelf_size: Books per shelf.
        """
        return len(self.db.books) * shelf_size // shelf_size

    @tool(write=True)
    def transfer_to_human_agents(self, summary: str) -> str:
        """Hand the member over to a librarian.

        Args:
            summary: What the member needs.
        """
        return "Transfer successful"


def make_domain() -> Domain[LibraryDB]:
    """A fresh library."""
    db = LibraryDB()
    return Domain("library", db, LibraryTools(db), policy="Lend books fairly.")


class Events:
    """Collects emitted events, like the engine's recorder (each must fit its kind)."""

    def __init__(self) -> None:
        self.items: list[Event] = []

    def __call__(self, kind: EventKind, payload: EventPayload) -> None:
        at = len(self.items)
        event = make_event(
            kind, payload, run_id="r", session_id="s", seq=at, turn=0, step=at, t_wall=0, t_mono=0
        )
        self.items.append(event)

    def of(self, kind: EventKind) -> list[dict[str, Any]]:
        """Payloads of one kind, in order, as the JSON objects the store holds."""
        return [e.payload.model_dump(mode="json") for e in self.items if e.kind is kind]


def context(
    events: Events,
    *,
    turn: int = 0,
    seed: int = 7,
    scenario_id: str = "s1",
    trial: int = 0,
    session_id: str = "sess",
) -> ToolContext:
    """A tool context for driving tool sources without the engine."""
    return ToolContext(
        run_id="run",
        session_id=session_id,
        scenario_id=scenario_id,
        trial=trial,
        arm="test",
        turn=turn,
        step=0,
        seed=seed,
        emit=events,
    )
