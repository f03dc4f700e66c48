#!/usr/bin/env bash
# Creates .venv-phoenix with Arize Phoenix for the integration test (tests/integration/test_phoenix.py).
# A virtualenv of its own: see scripts/phoenix-requirements.txt. ~850 MB; the first install took
# about 2 CPU-minutes (24 wall-minutes on a loaded 2-core machine). Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PYTHON:-python3}
req=scripts/phoenix-requirements.txt
stamp=".venv-phoenix/.sessionproof-$("$PY" -c 'import hashlib,sys; print(hashlib.sha1(open(sys.argv[1],"rb").read()).hexdigest()[:12])' "$req")"
if [ ! -f "$stamp" ]; then
  echo "installing Arize Phoenix into .venv-phoenix (~850 MB, for the Phoenix integration test) ..." >&2
  [ -x .venv-phoenix/bin/python ] || "$PY" -m venv .venv-phoenix
  .venv-phoenix/bin/python -m pip --disable-pip-version-check --quiet install -r "$req"
  touch "$stamp"
fi
