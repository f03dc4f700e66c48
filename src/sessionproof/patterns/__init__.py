"""Pattern intelligence: which tool-call sequences precede session failure, and what to build.

- `tokenize` / `Granularity`: the event alphabet (each session as tokens; the only reader of
  sessions here).
- `TokenMatrix` / `encode`: the array form every count runs on.
- `mine_matrix` / `MineOptions` / `Finding`: discriminative mining, stratified by scenario
  (CMH), Benjamini–Hochberg, non-redundant.
- `precursors`, `early_warning`, `advise`: what came right before each divergence, risk by
  prefix beside a step-count baseline, and the investment each finding points to.
- `mine`: sessions in, `PatternsReport` out (what `sessionproof patterns` prints).
- `planted_sessions`: synthetic sets with planted precursors and a scenario confounder.
- `Motif` / `motif` / `register_motif`: behavioural motifs (named hypotheses read from a
  `SessionView` of each trace), tested with a confounding control (`_motif_analysis`).
"""

from ._mine import MineOptions
from ._motif_view import SessionView
from ._motifs import Motif, motif, register_motif
from ._report import PatternsReport, mine

__all__ = [
    "MineOptions",
    "Motif",
    "PatternsReport",
    "SessionView",
    "mine",
    "motif",
    "register_motif",
]
