"""The tau domains name their tools without building the tools' schemas."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from sessionproof.domains import get_domain


@pytest.mark.parametrize("name", ["retail", "airline", "taubench-retail", "taubench-airline"])
def test_a_domain_names_its_tools_as_its_specs_do(name: str) -> None:
    spec = get_domain(name)
    assert spec.tool_names() == frozenset(t.name for t in spec.tools())
    assert len(spec.tool_names()) > 5


def test_naming_a_tau_domains_tools_builds_no_json_schema() -> None:
    # In a fresh process, so no other test has built the toolkit's specs already.
    code = """
import json
from pydantic import BaseModel
built = []
schema = BaseModel.model_json_schema.__func__
def counted(cls, *args, **kwargs):
    built.append(cls.__name__)
    return schema(cls, *args, **kwargs)
BaseModel.model_json_schema = classmethod(counted)
from sessionproof.domains import get_domain
spec = get_domain("retail")
names = spec.tool_names()
before = len(built)
specs = spec.tools()
print(json.dumps([before, len(built), sorted(names), sorted(s.name for s in specs)]))
"""
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    before, after, names, listed = json.loads(done.stdout.strip().splitlines()[-1])
    assert before == 0  # importing the domain and naming its tools built none
    assert after >= len(names)  # listing the tools built each one's parameters schema
    assert names == listed
