"""One retry library (tenacity): the provider transport retries keep the waits, attempt
counts and retry reports they had on stamina, and nothing imports stamina any more."""

from __future__ import annotations

import ast
import random
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from sessionproof._retrying import RetryDetails, set_on_retry_hooks
from sessionproof.agents._retry import ProviderFailure, RetryPolicy, call_with_retries
from sessionproof.errors import InfraError
from sessionproof.records import ErrorClass

ROOT = Path(__file__).resolve().parents[2]


class Flaky(Exception):
    """A failure the test's classifier reads (with an optional Retry-After)."""

    def __init__(self, retry_after: float | None = None, retryable: bool = True) -> None:
        super().__init__(f"flaky {retry_after}")
        self.retry_after = retry_after
        self.retryable = retryable


def classify(exc: BaseException) -> ProviderFailure | None:
    if not isinstance(exc, Flaky):
        return None
    return ProviderFailure(
        kind="status",
        error_class=ErrorClass.unavailable,
        retryable=exc.retryable,
        status=503,
        retry_after_s=exc.retry_after,
        message="down",
    )


@pytest.fixture
def reported() -> list[RetryDetails]:
    seen: list[RetryDetails] = []
    set_on_retry_hooks([seen.append])
    yield seen
    set_on_retry_hooks(None)


def _script(*failures: Flaky | None) -> object:
    queue = list(failures)
    calls = 0

    async def call() -> str:
        nonlocal calls
        calls += 1
        item = queue.pop(0) if queue else None
        if item is not None:
            raise item
        return f"ok after {calls}"

    return call


async def test_backoff_doubles_from_wait_initial_and_caps_at_wait_max(
    reported: list[RetryDetails], monkeypatch: pytest.MonkeyPatch
) -> None:
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    monkeypatch.setattr("asyncio.sleep", sleep)
    policy = RetryPolicy(attempts=5, wait_initial=0.5, wait_max=1.5, wait_jitter=0.0)
    fn = _script(Flaky(), Flaky(), Flaky(), Flaky())
    result, attempts = await call_with_retries(fn, provider="p", policy=policy, classify=classify)  # type: ignore[arg-type]
    assert (result, attempts) == ("ok after 5", 5)
    assert slept == [0.5, 1.0, 1.5, 1.5]
    assert [d.retry_num for d in reported] == [1, 2, 3, 4]
    assert [d.wait_for for d in reported] == slept
    assert [d.waited_so_far for d in reported] == [0.0, 0.5, 1.5, 3.0]
    assert all(isinstance(d.caused_by, Flaky) for d in reported)


async def test_jitter_and_retry_after_and_giving_up(
    reported: list[RetryDetails], monkeypatch: pytest.MonkeyPatch
) -> None:
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    monkeypatch.setattr("asyncio.sleep", sleep)
    random.seed(7)
    expected_jitter = random.uniform(0, 0.25)
    random.seed(7)
    policy = RetryPolicy(attempts=3, wait_initial=0.1, wait_max=30.0, wait_jitter=0.25)
    # A Retry-After is waited exactly; jitter is added to the backoff only.
    fn = _script(Flaky(), Flaky(retry_after=2.5), Flaky())
    with pytest.raises(InfraError, match="after 3 attempts"):
        await call_with_retries(fn, provider="p", policy=policy, classify=classify)  # type: ignore[arg-type]
    assert slept == [pytest.approx(0.1 + expected_jitter), 2.5]
    assert [d.retry_num for d in reported] == [1, 2]
    # Not retryable, or asking for more than max_retry_after: no retry at all.
    for failure in (Flaky(retryable=False), Flaky(retry_after=500.0)):
        reported.clear()
        with pytest.raises(InfraError):
            await call_with_retries(
                _script(failure),  # type: ignore[arg-type]
                provider="p",
                policy=policy,
                classify=classify,
            )
        assert reported == []


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names


def test_one_retry_library() -> None:
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    names = {d.split(">")[0].split("=")[0].split("[")[0].strip() for d in deps["dependencies"]}
    assert "tenacity" in names and "stamina" not in names
    users = [
        path
        for folder in ("src", "tests", "benchmarks")
        for path in (ROOT / folder).rglob("*.py")
        if "stamina" in _imports(path)
    ]
    assert users == []


def test_the_cli_loads_no_retry_library_at_start_up() -> None:
    code = (
        "import sys, sessionproof.cli; print('tenacity' in sys.modules, 'stamina' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"},
    )
    assert out.stdout.split() == ["False", "False"]
