"""Fixtures for agent adapter tests: a fake provider on 127.0.0.1 and small tool specs."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from sessionproof.agents._openai import OpenAICompatAgent
from sessionproof.agents._retry import RetryPolicy
from sessionproof.records import ToolSpec

from .fakeprovider import FakeProvider

FAST = RetryPolicy(attempts=4, wait_initial=0.01, wait_max=0.05, wait_jitter=0.0)
"""Real backoff, only short."""

KEY = "sk-" + "test-SECRETKEY-" + "0123456789abcdef"
"""A fake key, built from parts (no key-shaped literal is committed)."""


@pytest.fixture
def fake() -> Iterator[FakeProvider]:
    server = FakeProvider().start()
    yield server
    server.stop()


def weather_tools() -> list[ToolSpec]:
    return [
        ToolSpec(
            name="get_weather",
            description="Get the weather for a city.",
            parameters={
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
                "additionalProperties": False,
            },
        ),
        ToolSpec(
            name="book_table",
            description="Book a table.",
            parameters={
                "type": "object",
                "properties": {"people": {"type": "integer"}},
                "required": ["people"],
            },
            write=True,
        ),
    ]


def compat_agent(fake: FakeProvider, **kw: object) -> OpenAICompatAgent:
    options: dict[str, object] = {
        "name": "openai-compat:fake@" + fake.url,
        "model": "fake-model",
        "api_key": KEY,
        "base_url": fake.url,
        "retry": FAST,
        "timeout_s": 5.0,
        "tool_mode": "native",
    }
    options.update(kw)
    return OpenAICompatAgent(**options)  # type: ignore[arg-type]
