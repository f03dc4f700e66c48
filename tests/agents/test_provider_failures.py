"""Each provider adapter declares how its SDK's exceptions read (class, retryable, wait); the
retry policy asks the adapter. And agents built directly register their key as a secret."""

from __future__ import annotations

from collections.abc import Callable

import anthropic
import httpx
import openai
import pytest

from sessionproof._secrets import secret_values
from sessionproof.agents import ProviderFailure, RetryPolicy
from sessionproof.agents._anthropic import AnthropicAgent
from sessionproof.agents._internal import call_with_retries
from sessionproof.agents._openai import OpenAICompatAgent
from sessionproof.agents._spec import NO_KEY
from sessionproof.errors import InfraError
from sessionproof.records import ErrorClass

from .conftest import FAST

URL = "http://127.0.0.1:9/v1/chat/completions"


def _response(status: int, **headers: str) -> httpx.Response:
    return httpx.Response(status, headers=headers, request=httpx.Request("POST", URL))


def _status(sdk: type[Exception], status: int, message: str = "x", **headers: str) -> Exception:
    body = {"error": {"message": message}}
    made: Exception = sdk(message, response=_response(status, **headers), body=body)  # type: ignore[call-arg]
    return made


def _openai() -> OpenAICompatAgent:
    return OpenAICompatAgent(
        name="t", model="m", api_key="k" * 12, base_url="http://127.0.0.1:9/v1"
    )


def _anthropic() -> AnthropicAgent:
    return AnthropicAgent(name="t", model="m", api_key="k" * 12, base_url="http://127.0.0.1:9")


async def test_openai_adapter_reads_its_sdk_errors() -> None:
    agent = _openai()
    limited = agent.classify_failure(_status(openai.RateLimitError, 429, **{"retry-after": "3"}))
    assert limited == ProviderFailure(
        kind="status",
        error_class=ErrorClass.rate_limited,
        retryable=True,
        status=429,
        retry_after_s=3.0,
        message="x",
    )
    bad = agent.classify_failure(_status(openai.BadRequestError, 400, "no such field"))
    assert bad is not None and bad.error_class is ErrorClass.validation_error
    assert not bad.retryable and bad.message == "no such field"
    conflict = agent.classify_failure(_status(openai.ConflictError, 409))
    assert conflict is not None and conflict.retryable
    rejected = agent.classify_failure(
        _status(openai.InternalServerError, 500, "The model produced output that is wrong")
    )
    assert rejected is not None and rejected.model_output and not rejected.retryable
    assert rejected.error_class is ErrorClass.malformed_output
    timeout = agent.classify_failure(openai.APITimeoutError(httpx.Request("POST", URL)))
    assert timeout is not None and timeout.kind == "timeout" and timeout.retryable
    assert timeout.error_class is ErrorClass.timeout
    # Another SDK's errors, or anything else, are not this adapter's to read.
    assert agent.classify_failure(_status(anthropic.RateLimitError, 429)) is None
    assert agent.classify_failure(ValueError("x")) is None
    await agent.aclose()


async def test_anthropic_adapter_reads_its_sdk_errors() -> None:
    agent = _anthropic()
    overloaded = agent.classify_failure(_status(anthropic.InternalServerError, 529, "busy"))
    assert overloaded is not None and overloaded.retryable
    assert overloaded.error_class is ErrorClass.unavailable and overloaded.status == 529
    auth = agent.classify_failure(_status(anthropic.AuthenticationError, 401))
    assert auth is not None and auth.error_class is ErrorClass.auth_expired
    assert not auth.retryable
    assert agent.classify_failure(_status(openai.RateLimitError, 429)) is None
    await agent.aclose()


class Flaky(Exception):
    """A failure only a custom adapter knows how to read."""


def _classifier(retryable: bool) -> Callable[[BaseException], ProviderFailure | None]:
    def classify(exc: BaseException) -> ProviderFailure | None:
        if not isinstance(exc, Flaky):
            return None
        return ProviderFailure(
            kind="status",
            error_class=ErrorClass.unavailable,
            retryable=retryable,
            status=503,
            message=str(exc),
        )

    return classify


async def test_the_retry_policy_asks_the_adapter() -> None:
    tries: list[int] = []

    async def once_flaky() -> str:
        tries.append(1)
        if len(tries) == 1:
            raise Flaky("try again")
        return "ok"

    result, attempts = await call_with_retries(
        once_flaky, provider="own", policy=FAST, classify=_classifier(True)
    )
    assert (result, attempts, len(tries)) == ("ok", 2, 2)

    tries.clear()
    with pytest.raises(InfraError, match=r"own: HTTP 503 after 1 attempt: try again") as info:
        await call_with_retries(
            once_flaky, provider="own", policy=FAST, classify=_classifier(False)
        )
    assert len(tries) == 1 and info.value.__context__ is None


async def test_a_failure_the_adapter_does_not_know_propagates_unchanged() -> None:
    async def broken() -> str:
        raise KeyError("bug in my code")

    with pytest.raises(KeyError, match="bug in my code"):
        await call_with_retries(broken, provider="own", policy=FAST, classify=_classifier(True))


async def test_retry_after_beyond_the_cap_from_a_declared_failure() -> None:
    def classify(exc: BaseException) -> ProviderFailure | None:
        return ProviderFailure(
            kind="status",
            error_class=ErrorClass.rate_limited,
            retryable=True,
            status=429,
            retry_after_s=600.0,
        )

    async def limited() -> str:
        raise Flaky("quota")

    with pytest.raises(InfraError, match="asks to wait 600 s"):
        await call_with_retries(
            limited, provider="own", policy=RetryPolicy(max_retry_after=5), classify=classify
        )


async def test_agents_built_directly_register_their_key() -> None:
    openai_key = "sk-" + "direct" * 5
    anthropic_key = "sk-ant-" + "direct" * 5
    compat = OpenAICompatAgent(name="n", model="m", api_key=openai_key, base_url="http://h/v1")
    claude = AnthropicAgent(name="n", model="m", api_key=anthropic_key)
    known = secret_values()
    assert openai_key in known and anthropic_key in known
    # The placeholder sent to key-less local servers is no secret (it would be redacted
    # from every trace that mentions it).
    keyless = OpenAICompatAgent(name="n", model="m", api_key=NO_KEY, base_url="http://h/v1")
    assert NO_KEY not in secret_values()
    for agent in (compat, claude, keyless):
        await agent.aclose()
