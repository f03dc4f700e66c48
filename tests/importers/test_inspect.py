"""inspect_ai eval logs → sessions, read through inspect's own reader. The log is made here by
running inspect_ai itself on a tiny task with its offline `mockllm` model: a sample whose
first tool call fails and is retried (scored C), and one that answers without tools (I)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from sessionproof.errors import InputFileError
from sessionproof.importers import detect_format, import_file
from sessionproof.importers._internal import LabelRule
from sessionproof.records import (
    ErrorClass,
    TerminationReason,
    ToolCallEvent,
    ToolResultEvent,
    UserMessageEvent,
)
from sessionproof.runs import score
from sessionproof.suites._score_report import ScoreReport

pytest.importorskip("inspect_ai")  # scripts/test.sh installs it (the `inspect` extra)

pytestmark = pytest.mark.slow  # inspect_ai takes seconds to import and run


def _eval_log(log_dir: Path) -> Path:
    from inspect_ai import Task, eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput, ModelUsage, get_model
    from inspect_ai.scorer import includes
    from inspect_ai.solver import generate, use_tools
    from inspect_ai.tool import Tool, ToolError, tool

    @tool
    def lookup() -> Tool:
        async def execute(order: str) -> str:
            """Find an order.

            Args:
                order: The order id.
            """
            if order == "missing":
                raise ToolError("order missing not found")
            return f"order {order}: shipped"

        return execute

    def used(output: ModelOutput) -> ModelOutput:
        # Usage given, so mockllm need not count tokens (its tokenizer would be downloaded).
        output.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)
        return output

    model = "mockllm/model"
    outputs = [
        used(ModelOutput.for_tool_call(model, "lookup", {"order": "missing"})),
        used(ModelOutput.for_tool_call(model, "lookup", {"order": "A1"})),
        used(ModelOutput.from_content(model, "Your order A1 has shipped.")),
        used(ModelOutput.from_content(model, "I cannot tell.")),
    ]
    task = Task(
        dataset=[
            Sample(id="s1", input="Where is order A1?", target="shipped"),
            Sample(id="s2", input="Where is order B2?", target="shipped"),
        ],
        solver=[use_tools(lookup()), generate()],
        scorer=includes(),
    )
    (log,) = eval(
        task,
        model=get_model(model, custom_outputs=outputs),
        log_dir=str(log_dir),
        display="none",
        max_samples=1,  # the scripted outputs are consumed in sample order
    )
    assert log.status == "success", log.error
    return Path(log.location)


@pytest.fixture(scope="module")
def eval_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real `.eval` log written by inspect_ai."""
    return _eval_log(tmp_path_factory.mktemp("inspect"))


@pytest.fixture(scope="module")
def json_file(eval_file: Path) -> Path:
    """The same log in inspect's `.json` form, written by inspect_ai."""
    from inspect_ai.log import read_eval_log, write_eval_log

    path = eval_file.with_suffix(".json")
    write_eval_log(read_eval_log(str(eval_file)), str(path), format="json")
    return path


def test_samples_become_sessions(eval_file: Path) -> None:
    assert detect_format(eval_file.read_bytes()) == "inspect"
    result = import_file(eval_file, "auto", run_id="r")
    assert result.format == "inspect" and result.errors == []
    by_id = {i.session.session_id: i for i in result.sessions}
    assert sorted(by_id) == ["s1", "s2"]
    s1 = by_id["s1"].session
    assert s1.model == "mockllm/model" and s1.termination is TerminationReason.agent_stop
    assert [e.payload.content for e in s1.events_of(UserMessageEvent)] == ["Where is order A1?"]
    calls = [(e.payload.name, e.payload.arguments) for e in s1.events_of(ToolCallEvent)]
    assert calls == [("lookup", {"order": "missing"}), ("lookup", {"order": "A1"})]
    failed, ok = (e.payload for e in s1.events_of(ToolResultEvent))
    assert failed.error_class is ErrorClass.not_found  # ToolError text, by the taxonomy
    assert failed.error == "order missing not found"
    assert ok.ok and ok.output == "order A1: shipped"
    assert len(s1.model_calls()) == 3 and s1.usage.input_tokens == 30
    # includes() marks C / I: the first scorer is the outcome by default.
    assert s1.outcome is not None and s1.outcome.success
    s2 = by_id["s2"].session
    assert s2.outcome is not None and not s2.outcome.success
    assert by_id["s2"].reported is not None and by_id["s2"].reported.reward == 0.0


def test_the_json_form_reads_the_same(eval_file: Path, json_file: Path) -> None:
    assert detect_format(json_file.read_bytes()) == "inspect"
    zipped = import_file(eval_file, "inspect", run_id="r")
    plain = import_file(json_file, "auto", run_id="r")
    assert [i.session.model_dump() for i in plain.sessions] == [
        i.session.model_dump() for i in zipped.sessions
    ]


def test_label_from_picks_the_scorer(eval_file: Path) -> None:
    named = import_file(eval_file, "inspect", run_id="r", label_from=LabelRule.parse("includes"))
    assert named.errors == []
    assert [i.session.outcome is not None for i in named.sessions] == [True, True]
    missing = import_file(eval_file, "inspect", run_id="r", label_from=LabelRule.parse("judge"))
    assert len(missing.sessions) == 2
    assert all(not e.fatal and "scorers: includes" in e.message for e in missing.errors)
    assert all(i.session.outcome is None for i in missing.sessions)


def test_score_reads_an_inspect_log(eval_file: Path, tmp_path: Path) -> None:
    scored = score(eval_file, fmt="inspect", store=tmp_path / "s.duckdb")
    assert isinstance(scored, ScoreReport) and scored.errors == []
    assert sorted(s.reported_reward or 0.0 for s in scored.scores) == [0.0, 1.0]


def test_a_cut_eval_log_is_one_clear_error(eval_file: Path, tmp_path: Path) -> None:
    data = eval_file.read_bytes()
    cut = tmp_path / "cut.eval"
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(InputFileError, match="not a readable inspect_ai eval log"):
        import_file(cut, "auto", run_id="r")
    cli = Path(sys.executable).with_name("sessionproof")
    done = subprocess.run(
        [str(cli), "import", str(cut), "--store", str(tmp_path / "s.duckdb")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert "not a readable inspect_ai eval log" in done.stderr and "Traceback" not in done.stderr
