"""`ServeConfig` is a typed config like the others: a bad value is one `ConfigError` line at
construction, before any server starts or anything is stored."""

from __future__ import annotations

import pytest

from sessionproof import runs
from sessionproof.errors import ConfigError


@pytest.mark.parametrize(
    ("settings", "says"),
    [
        ({"port": 70000}, "invalid serve configuration: port: Input should be less than"),
        ({"port": -1}, "invalid serve configuration: port: Input should be greater than"),
        ({"faults": "lots"}, "fault spec 'lots'"),
        ({"scenario": None}, "invalid serve configuration: scenario:"),
        ({"prot": 8080}, "invalid serve configuration: prot: Extra inputs are not permitted"),
    ],
)
def test_a_bad_serve_option_is_one_config_error_line(
    settings: dict[str, object], says: str
) -> None:
    fields: dict[str, object] = {"suite": "demo", "scenario": "s"} | settings
    with pytest.raises(ConfigError) as caught:
        runs.ServeConfig(**fields)
    assert says in str(caught.value) and "\n" not in str(caught.value)


def test_a_serve_config_is_frozen() -> None:
    config = runs.ServeConfig(suite="demo", scenario="s", port=8080)
    assert (config.port, config.guard, config.store) == (8080, False, None)
    with pytest.raises(ConfigError, match="invalid serve configuration: scenario: Field required"):
        runs.ServeConfig.model_validate({"suite": "demo"})
    with pytest.raises(ConfigError, match="invalid run configuration: trials"):
        runs.RunConfig.model_validate({"trials": 0})
