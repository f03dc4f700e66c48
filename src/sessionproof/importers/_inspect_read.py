"""Reading an inspect_ai eval log through inspect's own reader, sample by sample when the
whole log does not read: a garbled sample, a sample of the wrong shape or a stray file in a
`.eval` archive costs itself (named), not the log."""

from __future__ import annotations

import json
import tempfile
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from ..errors import ConfigError, ForeignJSONError, InputFileError
from ._common import RecordError, first_problem
from ._json import load_json

if TYPE_CHECKING:
    from inspect_ai.log import EvalLog, EvalSample

ZIP_MAGIC = b"PK\x03\x04"
INSTALL_HINT = "reading inspect_ai eval logs needs inspect_ai: pip install 'sessionproof[inspect]'"
_SAMPLES = "samples/"
_EPOCH = "_epoch_"


def _problem(exc: BaseException) -> str:
    """One line for what inspect's reader (or the zip or JSON layer under it) raised."""
    if isinstance(exc, ValidationError):
        where, message = first_problem(exc)
        return f"{where}: {message}" if where else message
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


def read_log(raw: bytes, errors: list[RecordError]) -> tuple[EvalLog, list[EvalSample]]:
    """The log's header and every sample that reads; a sample that does not is named in
    `errors` (skipped). Raises InputFileError when not even the header reads."""
    try:
        from inspect_ai.log import read_eval_log
    except ImportError:
        raise ConfigError(INSTALL_HINT) from None
    zipped = raw.startswith(ZIP_MAGIC)
    with tempfile.TemporaryDirectory(prefix="sessionproof-inspect-") as tmp:
        # inspect's reader takes a file and tells the two forms by the name's suffix.
        path = Path(tmp) / ("log.eval" if zipped else "log.json")
        path.write_bytes(raw)
        try:
            log = read_eval_log(str(path))
            return log, list(log.samples or [])
        except Exception:  # its reader raises whatever the zip or JSON layer raised
            pass
        # The whole log does not read: its header alone, then each sample on its own.
        try:
            if zipped:
                header = read_eval_log(str(path), header_only=True)
                return header, _zip_samples(path, errors)
            return _json_samples(raw, Path(tmp), errors)
        except Exception as exc:
            raise InputFileError(
                f"not a readable inspect_ai eval log (cut short?): {_problem(exc)}"
            ) from None


def _zip_samples(path: Path, errors: list[RecordError]) -> list[EvalSample]:
    """Each `samples/ID_epoch_N.json` member of a `.eval` archive that inspect reads."""
    from inspect_ai.log import read_eval_log_sample

    with zipfile.ZipFile(path) as archive:
        names = [n for n in archive.namelist() if n.startswith(_SAMPLES) and n.endswith(".json")]
    samples = []
    for index, name in enumerate(names):
        stem = name[len(_SAMPLES) : -len(".json")]
        sample_id, sep, epoch = stem.rpartition(_EPOCH)
        if not sep or not epoch.isdigit():
            message = "not a sample of the log (samples are named ID_epoch_N.json); skipped"
            errors.append(RecordError(index=index, field="", message=message, record_id=name))
            continue
        try:
            samples.append(read_eval_log_sample(str(path), id=sample_id, epoch=int(epoch)))
        except Exception as exc:  # inspect's reader raises what the JSON or pydantic raised
            message = f"unreadable sample: {_problem(exc)}"
            errors.append(RecordError(index=index, field="", message=message, record_id=name))
    return samples


def _json_samples(
    raw: bytes, tmp: Path, errors: list[RecordError]
) -> tuple[EvalLog, list[EvalSample]]:
    """The header and each readable sample of a `.json` log, each read by inspect's reader
    as a log of its own."""
    from inspect_ai.log import read_eval_log

    try:
        doc = load_json(raw)
    except ForeignJSONError as exc:
        raise InputFileError(f"not a readable inspect_ai eval log (cut short?): {exc}") from None
    if not isinstance(doc, dict):
        raise InputFileError("not a readable inspect_ai eval log: expected a JSON object")
    items = doc.get("samples")
    base: dict[str, Any] = {k: v for k, v in doc.items() if k != "samples"}
    path = tmp / "one.json"
    path.write_text(json.dumps(base))
    header = read_eval_log(str(path), header_only=True)
    if items is not None and not isinstance(items, list):
        errors.append(
            RecordError(
                index=None,
                field="samples",
                message=f"expected a list of samples, got {type(items).__name__}; none read",
            )
        )
        items = []
    samples = []
    for index, item in enumerate(items or []):
        sid = item.get("id") if isinstance(item, dict) else None
        path.write_text(json.dumps({**base, "samples": [item]}))
        try:
            (sample,) = read_eval_log(str(path)).samples or [None]
        except Exception as exc:  # inspect's reader raises what pydantic raised
            errors.append(
                RecordError(
                    index=index,
                    field="",
                    message=f"unreadable sample: {_problem(exc)}",
                    record_id=None if sid is None else str(sid),
                )
            )
            continue
        if sample is not None:
            samples.append(sample)
    return header, samples
