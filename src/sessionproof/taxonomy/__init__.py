"""The error taxonomy: what each error class means, the one classifier, the one Retry-After
parser.

- `TAXONOMY` / `semantics` / `may_replay`: what each error class means (retry, inform,
  escalate) and when a failed write may be re-sent.
- `IMPLICIT_TAXONOMY` / `ImplicitSemantics`: what each implicit fault kind (a success that
  is wrong) changes, on which calls, transient against permanent, and where it cannot apply.
- `classify` (and `classify_exception`, `classify_status`, `classify_payload`,
  `classify_text`): exceptions, HTTP statuses, error payloads and error texts to a class.
  The engine, the importers, the fault injector and the guard all classify with these.
- `retry_after_s` / `retry_after_seconds` / `parse_retry_after`: the wait a failure or a
  response asks for (seconds or an HTTP date; a date without a zone is UTC). The guard and
  the provider agents' transport retries both read it here.

Imports only `records` and `errors`, so the guard can ship on its own.
"""

from ._classify import classify_exception
from ._semantics import IMPLICIT_TAXONOMY, TAXONOMY, ErrorAction, semantics

__all__ = [
    "IMPLICIT_TAXONOMY",
    "TAXONOMY",
    "ErrorAction",
    "classify_exception",
    "semantics",
]
