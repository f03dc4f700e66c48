"""The price table: shipped with its date, overridden by a file and by flags, and a bad
entry named by its file and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from sessionproof.errors import ConfigError
from sessionproof.scoring._internal import (
    Price,
    load_price_file,
    parse_price_flag,
    price_table,
    shipped_prices,
)


def test_the_shipped_table_has_a_date_a_source_and_real_models() -> None:
    table = shipped_prices()
    assert table.as_of == "2026-12-06" and table.source and "openai" in table.source
    mini = table.price_for("openai", "gpt-4o-mini")
    assert mini == Price(input=0.15, output=0.60, cached_input=0.075)
    # A dated snapshot finds its base name; another provider serving that name does not.
    assert table.price_for("openai", "gpt-4o-mini-2024-07-18") == mini
    assert table.price_for("anthropic", "claude-sonnet-4-20250514") is not None
    assert table.price_for("openai-compat", "gpt-4o-mini") is None
    assert table.price_for("openai", "no-such-model") is None


def test_a_price_bills_cached_input_at_its_own_rate() -> None:
    price = Price(input=2.0, output=8.0, cached_input=0.5)
    # 1M input of which 400k cached, 100k output: 0.6*2 + 0.4*0.5 + 0.1*8.
    assert price.usd(1_000_000, 100_000, 400_000) == pytest.approx(1.2 + 0.2 + 0.8)
    assert Price(input=2.0, output=8.0).usd(1_000_000, 0, 400_000) == pytest.approx(2.0)


def test_a_user_file_and_flags_lay_over_the_shipped_table(tmp_path: Path) -> None:
    toml = tmp_path / "mine.toml"
    toml.write_text(
        '[models."openai:gpt-4o-mini"]\ninput = 1.0\noutput = 2.0\n\n'
        '[models."agent-m"]\ninput = 3.0\noutput = 4.0\ncached_input = 0.5\n'
    )
    js = tmp_path / "more.json"
    js.write_text('{"models": {"judge-m": {"input": 10, "output": 20}}}')
    table = price_table([toml, js], ["agent-m=5/6", "openai-compat:user-m=0.1/0.2/0.05"])
    assert table.as_of == "2026-12-06"  # the shipped table's date stays, overrides listed
    assert table.overridden_by == [
        str(toml),
        str(js),
        "--price agent-m",
        "--price openai-compat:user-m",
    ]
    assert table.price_for("openai", "gpt-4o-mini") == Price(input=1.0, output=2.0)
    assert table.price_for("anything", "agent-m") == Price(input=5.0, output=6.0)  # flag wins
    assert table.price_for("openai-compat", "judge-m") == Price(input=10, output=20)
    assert table.price_for("openai-compat", "user-m") == Price(
        input=0.1, output=0.2, cached_input=0.05
    )
    assert table.price_for("other", "user-m") is None
    assert table.price_for("openai", "gpt-4o") == shipped_prices().price_for("openai", "gpt-4o")


@pytest.mark.parametrize(
    ("text", "line", "says"),
    [
        (
            '[models."a"]\ninput = 1\noutput = 2\n\n[models."b"]\ninput = "cheap"\noutput = 1\n',
            6,
            "not a number",
        ),
        ('[models."a"]\ninput = 1\noutput = 2\n\n[models."b"]\ninput = 1\n', 5, "no output price"),
        ('[models."a"]\ninput = -1\noutput = 2\n', 2, "not negative"),
        ('[models."a"]\ninput = 1\noutput = 2\nbatch = 0.5\n', 4, "unknown field 'batch'"),
        ('[models."a"]\ninput = 1\noutput = = 2\n', 3, "not TOML"),
        ('title = "no models"\n', 1, "no `models` table"),
        ('[models]\n"a.b" = 3\n', 2, "not a table of prices"),
        ("[models.gpt-4.1]\ninput = 1\noutput = 2\n", 1, 'must be quoted: [models."gpt-4.1"]'),
    ],
)
def test_a_bad_toml_entry_names_the_file_and_its_line(
    tmp_path: Path, text: str, line: int, says: str
) -> None:
    path = tmp_path / "prices.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_price_file(path)
    message = str(caught.value)
    assert str(path) in message and f"line {line}" in message and says in message
    assert "\n" not in message


def test_a_bad_json_entry_names_the_file_and_its_line(tmp_path: Path) -> None:
    path = tmp_path / "prices.json"
    path.write_text(
        '{\n  "models": {\n    "ok": {"input": 1, "output": 2},\n    "bad": {"input": 1}\n  }\n}\n'
    )
    with pytest.raises(ConfigError, match=rf"{path}, line 4: 'bad': no output price"):
        load_price_file(path)
    path.write_text('{\n  "models": {\n    "ok": {"input": 1, "output": 2},\n  }\n}\n')
    with pytest.raises(ConfigError, match=rf"{path}, line 4: not JSON"):
        load_price_file(path)
    with pytest.raises(ConfigError, match="cannot be read"):
        load_price_file(tmp_path / "missing.toml")


@pytest.mark.parametrize(
    "flag", ["agent-m", "agent-m=1", "=1/2", "m=a/b", "m=1/2/3/4", "m=-1/2", "m=nan/1"]
)
def test_a_bad_price_flag_is_a_clear_error(flag: str) -> None:
    with pytest.raises(ConfigError, match="--price"):
        parse_price_flag(flag)
