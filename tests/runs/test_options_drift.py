"""`run_suite` and `arun_suite` take exactly `RunConfig`'s fields (typed keywords generated from
one list, `RunSettings`): a field added to `RunConfig` alone fails here, and every field,
including the ones the hand-written signature once lacked, reaches the stored run."""

from __future__ import annotations

import typing
from pathlib import Path

import pytest

import sessionproof
from sessionproof.errors import ConfigError
from sessionproof.runs import OtlpExport, RunConfig, RunSettings
from sessionproof.store import Store

_BY_POSITION = {"suite", "model"}
"""`RunConfig` fields `run_suite` takes as its first two arguments (`suite`, `agent`)."""


def _keys(typed: type) -> set[str]:
    return set(typed.__required_keys__) | set(typed.__optional_keys__)  # type: ignore[attr-defined]


def test_run_settings_are_exactly_run_config_s_fields() -> None:
    assert _keys(RunSettings) == set(RunConfig.model_fields) - _BY_POSITION


@pytest.mark.parametrize("function", [sessionproof.run_suite, sessionproof.arun_suite])
def test_run_suite_accepts_every_run_config_field(function: typing.Any) -> None:
    hints = typing.get_type_hints(function, include_extras=True)
    unpacked = hints["options"]
    assert typing.get_origin(unpacked) is typing.Unpack
    (settings,) = typing.get_args(unpacked)
    accepted = _keys(settings) | {"suite", "agent"}
    missing = set(RunConfig.model_fields) - _BY_POSITION - accepted
    assert not missing, f"run_suite does not take {sorted(missing)}"


def test_the_fields_the_old_signature_lacked_reach_the_stored_run(tmp_path: Path) -> None:
    store = tmp_path / "s.duckdb"
    done = sessionproof.run_suite(
        "demo",
        "oracle",
        limit=2,
        store=store,
        perturb="missing_arg",
        reading="gold-prefix",
        executor="local",
        max_sessions=1,
        rpm=600.0,
        tpm=100000.0,
    )
    assert done.arms == ["perturb=missing_arg"]
    assert {s.arm for s in done.sessions} == {"perturb=missing_arg"}
    with Store.open(store, read_only=True) as db:
        options = db.get_run(done.run_id).options
    assert options["reading"] == "gold-prefix"
    assert options["rpm"] == 600.0 and options["tpm"] == 100000.0


@pytest.mark.parametrize(
    ("options", "says"),
    [
        ({"trails": 2}, "invalid run configuration: trails: Extra inputs are not permitted"),
        ({"rpm": 0}, "invalid run configuration: rpm: Input should be greater than 0"),
        ({"reading": "sideways"}, "--reading must be own or gold-prefix"),
        ({"export": {"endpoint": " "}}, "invalid live export configuration: endpoint"),
        ({"export": {"endpoint": "http://127.0.0.1:1", "compat": "jaeger"}}, "--otel-compat"),
    ],
)
def test_a_bad_option_is_one_config_error_line(options: dict[str, object], says: str) -> None:
    with pytest.raises(ConfigError) as caught:
        sessionproof.run_suite("demo", "oracle", limit=1, **options)  # type: ignore[arg-type]
    assert says in str(caught.value)
    assert "\n" not in str(caught.value)


def test_resume_refuses_a_setting_the_run_keeps(tmp_path: Path) -> None:
    store = tmp_path / "s.duckdb"
    first = sessionproof.run_suite("demo", "oracle", limit=1, store=store)
    with pytest.raises(ConfigError, match="--trials"):
        sessionproof.run_suite(resume=first.run_id, store=store, trials=3)
    with pytest.raises(ConfigError, match="--arm"):
        sessionproof.run_suite(resume=first.run_id, store=store, arms=["baseline"])


def test_a_live_export_s_headers_stay_out_of_its_repr() -> None:
    export = OtlpExport(endpoint="http://127.0.0.1:4318", headers={"authorization": "Bearer s3"})
    assert "s3" not in repr(export) and "s3" not in repr(RunConfig(export=export))


def test_the_live_export_knows_the_compat_values_telemetry_knows() -> None:
    from sessionproof.runs._live import Compat
    from sessionproof.telemetry._compat import COMPATS

    assert typing.get_args(Compat) == COMPATS


def test_resume_through_run_suite_takes_or_refuses_every_field() -> None:
    from sessionproof._api import _RESUME_MAY_CHANGE
    from sessionproof.runs._internal import RESUME_KEEPS

    kept = {"arms" if name == "arm" else name for name in RESUME_KEEPS}
    unhandled = set(RunConfig.model_fields) - kept - _RESUME_MAY_CHANGE
    assert not unhandled, f"resume would silently ignore {sorted(unhandled)}"


def test_a_live_export_s_header_is_a_secret_once_configured() -> None:
    from sessionproof.store._internal import scrub_text

    OtlpExport(endpoint="http://127.0.0.1:4318", headers={"x-key": "hdr-8c1f2e-secret"})
    assert "hdr-8c1f2e-secret" not in scrub_text("sent hdr-8c1f2e-secret to the collector")
