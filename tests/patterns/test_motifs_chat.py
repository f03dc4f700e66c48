"""A production chat log with outcomes through the motif analysis (issue 38 item 6): the real
tau2 airline trajectories rewritten as an OpenAI chat-completions JSONL log, no task, no
domain, no scenario id, one outcome per line, go through `patterns FILE` and through
`import --label-from` then `patterns RUN`, with task-signature control and every tested motif
given its effect, interval and q-value."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sessionproof.cli._internal import app

FIXTURE = (
    Path(__file__).resolve().parents[1]
    / "fixtures"
    / "tau"
    / ("gpt-4.1_airline_default_gpt-4.1_1trials.json")
)
runner = CliRunner()


def _ok(*args: str) -> dict[str, Any]:
    done = runner.invoke(app, list(args))
    assert done.exit_code == 0, done.output
    out: dict[str, Any] = json.loads(done.stdout)
    return out


def _openai(message: dict[str, Any]) -> dict[str, Any]:
    """One tau2 message in OpenAI chat-completions form."""
    if message["role"] == "tool":
        return {"role": "tool", "tool_call_id": message["id"], "content": message["content"]}
    out: dict[str, Any] = {"role": message["role"], "content": message.get("content")}
    if message.get("tool_calls"):
        out["tool_calls"] = [
            {
                "id": call["id"],
                "type": "function",
                "function": {"name": call["name"], "arguments": json.dumps(call["arguments"])},
            }
            for call in message["tool_calls"]
        ]
    return out


def _chat_log(path: Path) -> tuple[int, int]:
    """The fixture's trajectories as a chat log: an `outcome` word and a `feedback` thumb per
    line, nothing that names a task. (passed, failed)."""
    sims = json.loads(FIXTURE.read_text(encoding="utf-8"))["simulations"]
    lines, passed = [], 0
    for n, sim in enumerate(sims):
        ok = sim["reward_info"]["reward"] == 1
        passed += ok
        lines.append(
            {
                "id": f"conv-{n}",
                "messages": [_openai(m) for m in sim["messages"]],
                "outcome": "success" if ok else "failure",
                "feedback": {"thumb": "up" if ok else "down"},
            }
        )
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return passed, len(sims) - passed


@pytest.mark.slow
def test_a_labelled_chat_log_gets_the_adjusted_motif_analysis(tmp_path: Path) -> None:
    log = tmp_path / "chat.jsonl"
    passed, failed = _chat_log(log)
    assert passed and failed  # both outcomes, else there is nothing to contrast
    text = log.read_text(encoding="utf-8")
    assert "task_id" not in text and '"domain"' not in text

    from_file = _ok("patterns", str(log), "--json")
    store = tmp_path / "p.duckdb"
    imported = _ok(
        "import", str(log), "--store", str(store), "--label-from", "feedback.thumb", "--json"
    )
    assert imported["format"] == "openai"
    assert imported["judged"] == imported["sessions"] == passed + failed
    from_run = _ok("patterns", imported["run_id"], "--store", str(store), "--json")
    thumbs = _ok("patterns", str(log), "--label-from", "feedback.thumb", "--json")

    for mined in (from_file, from_run, thumbs):
        assert mined["failures"] == failed
        assert mined["motif_control"] == "task-signature"
        tested = [m for m in mined["motifs"] if m["odds_ratio"] is not None]
        assert tested and all(m["ci"] and m["q_value"] is not None for m in tested)
        for m in mined["motifs"]:
            assert m["control"] == "task-signature"
            assert 0 <= m["failed"] <= failed and 0 <= m["passed"] <= passed
    # The same sessions and labels by either road: the same counts per motif.
    counts = {m["name"]: (m["failed"], m["passed"]) for m in from_run["motifs"]}
    for other in (from_file, thumbs):
        assert counts == {m["name"]: (m["failed"], m["passed"]) for m in other["motifs"]}


@pytest.mark.slow
def test_an_unlabelled_line_is_left_out_and_counted(tmp_path: Path) -> None:
    log = tmp_path / "chat.jsonl"
    passed, failed = _chat_log(log)
    lines = log.read_text(encoding="utf-8").splitlines()
    bare = json.loads(lines[0])
    bare["id"] = "no-label"
    del bare["outcome"]
    log.write_text("\n".join([*lines, json.dumps(bare)]) + "\n", encoding="utf-8")
    mined = _ok("patterns", str(log), "--json")
    # Neither a failure nor a pass: said apart.
    assert (mined["sessions"], mined["failures"], mined["left_out"]) == (passed + failed, failed, 1)
