"""Schema generation from typed, docstringed toolkit methods."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ConfigDict

from sessionproof.domains import Toolkit, tool
from sessionproof.errors import ToolArgumentError, UnknownToolError


class Note(BaseModel):
    model_config = ConfigDict(extra="forbid")

    title: str
    body: str = ""


class DB(BaseModel):
    model_config = ConfigDict(extra="forbid")

    notes: list[Note] = []


class Notes(Toolkit[DB]):
    @tool(write=True)
    def add_note(self, title: str, tags: list[str] | None = None) -> Note:
        """Add a note.

        Args:
            title: the note's title
            tags: optional labels
        """
        note = Note(title=title)
        self.db.notes.append(note)
        return note

    @tool()
    def count(self) -> int:
        """How many notes there are."""
        return len(self.db.notes)


def test_schema_comes_from_signature_and_docstring() -> None:
    spec = Notes.spec("add_note")
    assert spec.write and not Notes.spec("count").write
    params = spec.parameters
    assert params["required"] == ["title"]
    assert params["properties"]["title"] == {"type": "string", "description": "the note's title"}
    assert params["additionalProperties"] is False
    assert "title" in spec.output_schema["properties"]  # type: ignore[index]
    assert spec.openai()["function"]["name"] == "add_note"


def test_invoke_validates_and_names_problems() -> None:
    kit = Notes(DB())
    assert kit.invoke("add_note", {"title": "a"}).title == "a"
    with pytest.raises(ToolArgumentError, match="title"):
        kit.invoke("add_note", {})
    with pytest.raises(ToolArgumentError, match="colour: Extra inputs"):
        kit.invoke("add_note", {"title": "a", "colour": "red"})
    with pytest.raises(UnknownToolError, match="available tools: add_note, count"):
        kit.invoke("delete", {})


def test_a_tool_without_docstring_or_annotation_is_refused() -> None:
    with pytest.raises(TypeError, match="docstring"):

        class NoDoc(Toolkit[DB]):
            @tool()
            def x(self) -> int:
                return 1

    with pytest.raises(TypeError, match="annotation"):

        class NoType(Toolkit[DB]):
            @tool()
            def y(self, a) -> int:  # type: ignore[no-untyped-def]
                """Y."""
                return 1
