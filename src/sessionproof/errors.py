"""Named error types, and the one way a pydantic validation error becomes message text. A leaf
module: imports nothing of ours."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pydantic import ValidationError


class SessionproofError(Exception):
    """Base of every error sessionproof raises on purpose; the CLI prints these as one line."""


class ConfigError(SessionproofError):
    """A flag, spec string or option the user gave cannot be used."""


class InputFileError(SessionproofError):
    """A file the user gave is missing or malformed (path and position in the message)."""


class ForeignJSONError(InputFileError):
    """Text from a foreign file (a whole document or one line of it) is not usable JSON: not
    JSON at all, or nested deeper than sessionproof reads (the message says which)."""


class UnknownSuiteError(ConfigError):
    """No suite of that name exists."""


class UnknownDomainError(ConfigError):
    """No domain of that name exists."""


class ModelSpecError(ConfigError):
    """A `--model` spec string cannot be parsed or resolved."""


class InfraError(SessionproofError):
    """The model provider or harness could not go on (retries exhausted, server down).

    A session that meets one ends as `infra_error`, never as an agent failure.
    """


class StoreError(SessionproofError):
    """The trace store cannot be opened, or a run id does not exist."""


# The taxonomy's class names (`records.ErrorClass`; records and errors are siblings that do
# not import each other, and a test keeps the two lists equal).
_ERROR_CLASS_NAMES = frozenset(
    {
        "timeout",
        "rate_limited",
        "server_error",
        "unavailable",
        "auth_expired",
        "not_found",
        "validation_error",
        "malformed_output",
        "truncated_output",
        "empty_result",
        "schema_mismatch",
        "policy_refusal",
        "unknown",
    }
)


class ToolError(Exception):
    """Raised by a domain tool for an expected failure the agent should see.

    `error_class` names the taxonomy class (a string from `ErrorClass`). A subclass sets its
    own as a class attribute (`class NotFound(ToolError): error_class = "not_found"`), checked
    when the subclass is defined; an `error_class` given to the constructor wins over it.
    """

    error_class: str = "validation_error"

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        if "error_class" in cls.__dict__:
            _check_error_class(cls.__dict__["error_class"], f"{cls.__qualname__}.error_class")

    def __init__(self, message: str, error_class: str | None = None) -> None:
        super().__init__(message)
        if error_class is not None:
            self.error_class = error_class


def _check_error_class(value: object, where: str) -> None:
    if not isinstance(value, str) or value not in _ERROR_CLASS_NAMES:
        raise ConfigError(
            f"{where} is {value!r}, not an error class; use one of: "
            + ", ".join(sorted(_ERROR_CLASS_NAMES))
        )


class UnknownToolError(ToolError):
    """The agent asked for a tool the domain does not have."""

    def __init__(self, name: str, known: list[str]) -> None:
        super().__init__(
            f"unknown tool {name!r}; available tools: {', '.join(sorted(known))}",
            "validation_error",
        )
        self.name = name


class ToolArgumentError(ToolError):
    """The arguments of a call do not fit the tool's parameters."""

    def __init__(self, message: str) -> None:
        super().__init__(message, "validation_error")


class DuplicateSessionError(StoreError):
    """A session with the same (run, scenario, trial, arm) key, or the same session id, is
    already in the store; sessions are written once and never overwritten."""


class StoreLockedError(StoreError):
    """Another process holds the store file open for writing (DuckDB allows one writer)."""


class StatisticsInputError(SessionproofError, ValueError):
    """Counts or trial tables handed to a statistic cannot be right (more successes than
    trials, k below 1, a confidence outside (0, 1), no data where some is needed)."""


def exception_text(exc: BaseException) -> str:
    """`str(exc)`, or the exception's type name when that is empty or itself raises.

    Tools and agents are other people's code: an exception whose `__str__` fails must not
    turn a classified tool failure into a crash of the session.
    """
    try:
        text = str(exc)
    except Exception:
        return f"{type(exc).__name__} (its message cannot be shown)"
    return text or type(exc).__name__


def validation_problems(exc: ValidationError, prefix: str = "") -> list[tuple[str, str]]:
    """(dotted field path, message) of every problem in a pydantic validation error, the
    paths under `prefix` (a problem with the whole value has the path `prefix`, maybe "")."""
    out = []
    for err in exc.errors():
        path = ".".join(str(p) for p in err["loc"])
        if prefix:
            path = f"{prefix}.{path}" if path else prefix
        out.append((path, err["msg"]))
    return out


def describe_validation(
    exc: ValidationError, *, prefix: str = "", whole: str = "(top level)", limit: int | None = 1
) -> str:
    """A validation error as one line: its first `limit` problems (None: all) as
    `path: message` joined by "; " (`whole` names the path of the value itself), then how
    many more there were."""
    problems = validation_problems(exc, prefix)
    shown = problems if limit is None else problems[:limit]
    text = "; ".join(f"{path or whole}: {msg}" for path, msg in shown)
    more = len(problems) - len(shown)
    return text + (f" (and {more} more problems)" if more else "")
