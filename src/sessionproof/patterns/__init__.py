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
"""

from ._advice import AdviceItem, advise, rank_advice
from ._alphabet import Granularity, SessionTokens, tokenize
from ._count import Pattern
from ._matrix import TokenMatrix, encode
from ._mine import Finding, Mined, MineOptions, mine_matrix
from ._precursors import Precursor, precursors
from ._report import ArmSummary, PatternsReport, judged_tokens, matrix_of, mine, tokens_of
from ._risk import RiskReport, early_warning
from ._synthetic import CONFOUNDER, PLANTS, Planted, planted_scores, planted_sessions

__all__ = [
    "CONFOUNDER",
    "PLANTS",
    "AdviceItem",
    "ArmSummary",
    "Finding",
    "Granularity",
    "MineOptions",
    "Mined",
    "Pattern",
    "PatternsReport",
    "Planted",
    "Precursor",
    "RiskReport",
    "SessionTokens",
    "TokenMatrix",
    "advise",
    "early_warning",
    "encode",
    "judged_tokens",
    "matrix_of",
    "mine",
    "mine_matrix",
    "planted_scores",
    "planted_sessions",
    "precursors",
    "rank_advice",
    "tokenize",
    "tokens_of",
]
