"""The scenario models' field descriptions come from their attribute docstrings, as
pydantic's `use_attribute_docstrings` gives them, without its per-class frame walk."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from pydantic import BaseModel
from pydantic._internal._docs_extraction import extract_docstrings_from_cls

from sessionproof.records import (
    Action,
    Criteria,
    ExpectedCall,
    ForbiddenAction,
    Scenario,
    UserSpec,
)
from sessionproof.records._field_docs import describe_fields

MODELS = (Action, ForbiddenAction, ExpectedCall, Criteria, UserSpec, Scenario)


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_every_field_has_the_description_pydantic_reads_from_its_docstring(
    model: type[BaseModel],
) -> None:
    # pydantic's own reader (by `inspect`: every class name is unique in the module) is the
    # reference; every field of these models is documented.
    expected = extract_docstrings_from_cls(model, use_inspect=True)
    assert set(expected) == set(model.model_fields)
    assert {n: f.description for n, f in model.model_fields.items()} == expected
    properties = model.model_json_schema()["properties"]
    for name, text in expected.items():
        assert properties[name]["description"] == text


def test_a_scenario_still_validates_and_dumps_as_before() -> None:
    scenario = Scenario.model_validate(
        {"id": "s1", "domain": "demo", "user": {"turns": ["hi"]}, "criteria": {"ordered": True}}
    )
    assert scenario.criteria.ordered is True
    assert json.loads(scenario.model_dump_json())["criteria"]["ordered"] is True
    with pytest.raises(ValueError, match="a user needs"):
        Scenario.model_validate({"id": "s1", "domain": "demo", "user": {}})


def test_importing_the_records_walks_no_frames_for_docstrings() -> None:
    # pydantic's reader walked the interpreter's frames and tokenized each class again.
    code = """
import pydantic._internal._fields as fields
read = []
original = fields.extract_docstrings_from_cls
def counted(cls, *args, **kwargs):
    read.append(cls.__name__)
    return original(cls, *args, **kwargs)
fields.extract_docstrings_from_cls = counted
from sessionproof.records import Scenario
assert Scenario.model_fields["id"].description
print(len(read))
"""
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.split() == ["0"]


def test_only_top_level_classes_of_one_module_are_described() -> None:
    class Nested(BaseModel):
        x: int
        """An x."""

    with pytest.raises(ValueError, match="not a top-level class"):
        describe_fields(Nested)
