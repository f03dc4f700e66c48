"""A pydantic validation error reads the same wherever it is reported: `path: message`, the
value itself named, and how many more problems there were."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel, ConfigDict, ValidationError

from sessionproof.domains import get_domain
from sessionproof.errors import InputFileError, ToolArgumentError, describe_validation
from sessionproof.importers._internal import first_problem
from sessionproof.suites import load_suite


class _Point(BaseModel):
    model_config = ConfigDict(extra="forbid")

    x: int
    y: int


def _error(value: object) -> ValidationError:
    with pytest.raises(ValidationError) as info:
        _Point.model_validate(value)
    return info.value


def test_one_line_with_paths_prefix_and_the_count_of_the_rest() -> None:
    exc = _error({"x": "a", "y": "b", "z": 1})
    assert describe_validation(exc).startswith("x: Input should be a valid integer")
    assert describe_validation(exc).endswith(" (and 2 more problems)")
    assert describe_validation(exc, prefix="p", limit=2).startswith("p.x: ")
    assert "; p.y: " in describe_validation(exc, prefix="p", limit=2)
    everything = describe_validation(exc, limit=None)
    assert everything.count("; ") == 2 and "more problems" not in everything
    assert describe_validation(_error(3), whole="(point)").startswith("(point): ")
    assert first_problem(exc, "p") == (
        "p.x",
        "Input should be a valid integer, unable to "
        "parse string as an integer (and 2 more problems)",
    )


def test_a_suite_file_names_the_first_problem_and_counts_the_rest(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text("- id: s\n  domain: demo\n  user: {turns: [hi]}\n  a: 1\n  b: 2\n")
    # The field's own line is named too (suite files point at the line of the field at fault).
    pattern = r": a \(line 4\): Extra inputs .* \(and 1 more problems\)$"
    with pytest.raises(InputFileError, match=pattern):
        load_suite(str(path))


def test_tool_argument_errors_list_every_problem() -> None:
    domain = get_domain("demo").create()
    with pytest.raises(ToolArgumentError) as info:
        domain.toolkit.invoke("cancel_order", {"order_id": 5, "nope": 1})
    text = str(info.value)
    assert text.startswith("invalid arguments for cancel_order: ")
    assert "order_id: " in text and "; " in text and "more problems" not in text
