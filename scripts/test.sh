#!/usr/bin/env bash
# The whole test suite: installs what it needs, then lint, types and tests.
set -euo pipefail
cd "$(dirname "$0")/.."
# --fast: the inner loop's tier, every test not marked slow (CI and the default run them all).
if [[ "${1:-}" == "--fast" ]]; then shift; set -- -m "not slow" "$@"; fi
bash scripts/setup.sh test
# Arize Phoenix for its integration test, in .venv-phoenix (its own pins clash with ours).
bash scripts/setup_phoenix.sh
# The report's browser test uses Debian's headless chromium (no browser download).
if [[ ! -x /usr/bin/chromium ]]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium
fi
.venv/bin/ruff check src tests benchmarks
.venv/bin/ruff format --check src tests benchmarks
.venv/bin/mypy
.venv/bin/lint-imports
# The documentation site, warnings as errors (a broken link, snippet or reference fails; not
# -q, which would hide the warning that failed it).
.venv/bin/mkdocs build --strict -d "$(mktemp -d)/site"
.venv/bin/python -m pytest -q "$@"
