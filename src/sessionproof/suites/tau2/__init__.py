"""tau2-bench and tau-bench: their domains, tasks, transcript formats and verdicts.

- Domains `retail`, `airline` (tau2) and `taubench-retail`, `taubench-airline` (tau-bench's
  variants), registered in `sessionproof.domains` by name and imported on first use.
- Suites `tau2-retail[:SPLIT]`, `tau2-airline[:SPLIT]` (`tau2_suite`).
- Transcript formats `tau2` and `tau-bench` (`import_tau2`, `import_taubench`), registered in
  `sessionproof.importers` by name.
- Verdicts (`evaluate_tau2`, `judge_tau2`...) and offline scoring (`score_transcripts`).

Every name below is imported on first use (PEP 562), so building a domain (`get_domain("retail")`
imports `retail` and `_tau` only) loads neither scoring, the importers nor the store.
"""

from __future__ import annotations

from ..._lazy import lazy_exports

_MODULE_OF: dict[str, str] = {}
"""Each public name -> the submodule that defines it."""

__all__: list[str] = []


__getattr__, __dir__ = lazy_exports(__name__, _MODULE_OF)
