"""The base of every use case's typed configuration: pydantic, validated once, and a bad value
is one clear `ConfigError` line (never a pydantic traceback)."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import (
    BaseModel,
    ConfigDict,
    ModelWrapValidatorHandler,
    ValidationError,
    model_validator,
)

from ..errors import ConfigError


def one_line(exc: ValidationError, what: str) -> str:
    """The first problem of `exc` as one line naming its field, and how many more there are."""
    errors = exc.errors()
    first = errors[0]
    field = ".".join(str(p) for p in first["loc"]) or "(config)"
    more = f" (and {len(errors) - 1} more problems)" if len(errors) > 1 else ""
    return f"invalid {what} configuration: {field}: {first['msg']}{more}"


class TypedConfig(BaseModel):
    """A frozen pydantic configuration whose invalid values raise `ConfigError` in one line.

    Subclasses name what they configure in `KIND` (`run`, `rerun`, ...), which the error
    line starts with. Each takes its fields as plain keywords (`**data: Any`): pydantic
    coerces what the CLI and Python callers give (a `str` path, a tuple of arms) and checks
    every value itself.
    """

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True, frozen=True)

    KIND: ClassVar[str] = "a"

    def __init__(self, **data: Any) -> None:
        """Validate; a bad value raises `ConfigError` naming the field."""
        super().__init__(**data)

    @model_validator(mode="wrap")
    @classmethod
    def _one_config_error(cls, data: Any, handler: ModelWrapValidatorHandler[Any]) -> Any:
        # Around all validation, so `model_validate` and a config nested in another (a dict
        # given for `RunConfig.export`) say it in one line too.
        try:
            return handler(data)
        except ValidationError as exc:
            raise ConfigError(one_line(exc, cls.KIND)) from None
