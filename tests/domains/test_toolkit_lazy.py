"""A toolkit class is checked when defined; its schemas are built when first needed."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest
from pydantic import BaseModel

from sessionproof.domains import Toolkit, tool


class Receipt(BaseModel):
    """A return model that counts how often its JSON Schema is generated."""

    schemas: ClassVar[int] = 0

    total: int

    @classmethod
    def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
        Receipt.schemas += 1
        return super().model_json_schema(*args, **kwargs)


class DB(BaseModel):
    paid: int = 0


def _till() -> type[Toolkit[DB]]:
    class Till(Toolkit[DB]):
        @tool(write=True)
        def pay(self, amount: int) -> Receipt:
            """Pay an amount.

            Args:
                amount: in cents
            """
            self.db.paid += amount
            return Receipt(total=self.db.paid)

        @tool()
        def paid(self) -> int:
            """What has been paid."""
            return self.db.paid

    return Till


def test_defining_a_toolkit_or_naming_its_tools_builds_no_schema() -> None:
    before = Receipt.schemas
    till = _till()
    assert till.tool_names() == ["pay", "paid"]
    assert till.tool_names(write=True) == ["pay"]
    assert till.tool_names(write=False) == ["paid"]
    assert Receipt.schemas == before  # nothing built yet
    spec = till.spec("pay")
    assert Receipt.schemas == before + 1
    assert spec.output_schema is not None and "total" in spec.output_schema["properties"]
    assert spec.parameters["properties"]["amount"] == {"type": "integer", "description": "in cents"}
    assert till.spec("pay") is spec  # built once per tool
    assert [s.name for s in till.specs()] == till.tool_names()
    assert Receipt.schemas == before + 1
    assert till(DB()).invoke("pay", {"amount": 3}).total == 3


def test_a_toolkit_without_what_its_schema_needs_still_fails_when_defined() -> None:
    with pytest.raises(TypeError, match="needs a docstring"):

        class NoDoc(Toolkit[DB]):
            @tool()
            def undocumented(self, x: int) -> int:
                return x

    with pytest.raises(TypeError, match="has no type annotation"):

        class NoHint(Toolkit[DB]):
            @tool()
            def untyped(self, x) -> int:  # type: ignore[no-untyped-def]
                """Untyped."""
                return 1


def test_a_subclass_reuses_what_was_read_of_its_inherited_tools(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import docstring_parser

    reads: list[str] = []
    parse = docstring_parser.parse

    def counted(text: str, *args: Any, **kwargs: Any) -> Any:
        reads.append(text.splitlines()[0])
        return parse(text, *args, **kwargs)

    monkeypatch.setattr(docstring_parser, "parse", counted)
    till = _till()
    assert sorted(reads) == ["Pay an amount.", "What has been paid."]

    class Refunds(till):  # type: ignore[valid-type,misc]
        @tool(write=True)
        def refund(self, amount: int) -> int:
            """Refund an amount."""
            self.db.paid -= amount
            return int(self.db.paid)

    assert sorted(reads) == ["Pay an amount.", "Refund an amount.", "What has been paid."]
    assert Refunds.tool_names() == ["pay", "paid", "refund"]
    assert Refunds.spec("pay").parameters == till.spec("pay").parameters
    assert Refunds(DB(paid=5)).invoke("refund", {"amount": 2}) == 3
