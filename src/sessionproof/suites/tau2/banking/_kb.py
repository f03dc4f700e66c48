"""The banking knowledge base: 698 documents, searched by BM25 or by a regex, and read by id.

Search works as tau2-bench's banking_knowledge pipelines do: BM25 scores each document's
content (not its title), tokenised by lower-casing and splitting on whitespace, with Okapi's
k1=1.5 and b=0.75, the top 10 kept; the grep search compiles the pattern case-insensitively
(a pattern that is not a valid regex is searched as plain text), ranks the documents by
number of matches and keeps the top 10. BM25 is bm25s's (`method="robertson"`, sparse
scores); its only departure from tau2's rank-bm25 is for a term found in more than half the
documents, which bm25s scores 0 and rank-bm25 gives a small floor weight.
"""

from __future__ import annotations

import functools
import gzip
import re
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import orjson

from ....errors import InputFileError

PACKAGE = "sessionproof.suites.tau2.banking"
TOP_K = 10
"""Documents a search returns (tau2's default)."""


@dataclass(frozen=True)
class Document:
    """One knowledge-base document."""

    id: str
    title: str
    content: str


def _documents_from(raw: Any, where: str) -> tuple[Document, ...]:
    if not isinstance(raw, list) or not raw:
        raise InputFileError(f"{where}: expected a non-empty list of documents")
    docs = []
    seen: set[str] = set()
    for i, item in enumerate(raw):
        if not isinstance(item, dict) or not all(
            isinstance(item.get(k), str) for k in ("id", "title", "content")
        ):
            raise InputFileError(f"{where}: document #{i} needs text fields id, title and content")
        if item["id"] in seen:
            raise InputFileError(f"{where}: document id {item['id']!r} appears twice")
        seen.add(item["id"])
        docs.append(Document(item["id"], item["title"], item["content"]))
    return tuple(docs)


def read_documents_dir(path: Path) -> tuple[Document, ...]:
    """Documents from a tau2-style `documents/` directory (one JSON object per file)."""
    if not path.is_dir():
        raise InputFileError(f"{path}: no documents directory there")
    raw = []
    for file in sorted(path.glob("*.json")):
        try:
            raw.append(orjson.loads(file.read_bytes()))
        except (OSError, orjson.JSONDecodeError) as exc:
            raise InputFileError(f"{file}: not a readable JSON document: {exc}") from None
    return _documents_from(raw, str(path))


@functools.cache
def packaged_documents() -> tuple[Document, ...]:
    """The 698 documents shipped in `data/documents.json.gz`."""
    ref = resources.files(PACKAGE) / "data" / "documents.json.gz"
    try:
        raw = orjson.loads(gzip.decompress(ref.read_bytes()))
    except (OSError, EOFError, orjson.JSONDecodeError) as exc:
        raise InputFileError(f"{PACKAGE} data/documents.json.gz: cannot read: {exc}") from None
    return _documents_from(raw, f"{PACKAGE} data/documents.json.gz")


def _tokens(text: str) -> list[str]:
    return text.lower().split()


class KnowledgeBase:
    """The documents, with a BM25 index built on first search."""

    def __init__(self, documents: Sequence[Document]) -> None:
        self.documents = tuple(documents)
        self.by_id = {d.id: d for d in self.documents}
        self._bm25: Any = None

    def _index(self) -> Any:
        if self._bm25 is None:
            import bm25s  # type: ignore[import-untyped]  # numpy/scipy: only on first search

            index = bm25s.BM25(method="robertson", k1=1.5, b=0.75)
            index.index([_tokens(d.content) for d in self.documents], show_progress=False)
            self._bm25 = index
        return self._bm25

    def bm25(self, query: str, k: int = TOP_K) -> list[tuple[Document, float]]:
        """The `k` best documents for `query` by BM25, best first (ties in document order)."""
        words = _tokens(query)
        if not words:
            return []
        scores = self._index().get_scores(words)
        order = sorted(range(len(self.documents)), key=lambda i: -float(scores[i]))[:k]
        return [(self.documents[i], float(scores[i])) for i in order]

    def grep(self, pattern: str, k: int = TOP_K) -> list[tuple[Document, float]]:
        """Documents matching `pattern` (case-insensitive), by number of matches."""
        if not pattern.strip():
            return []
        try:
            rx = re.compile(pattern, re.IGNORECASE)
        except re.error:
            rx = re.compile(re.escape(pattern), re.IGNORECASE)
        found = [(d, float(len(rx.findall(d.content)))) for d in self.documents]
        ranked = sorted((f for f in found if f[1] > 0), key=lambda f: -f[1])
        return ranked[:k]


@functools.cache
def packaged_kb() -> KnowledgeBase:
    """The shipped knowledge base (loaded once per process)."""
    return KnowledgeBase(packaged_documents())


def format_hits(hits: list[tuple[Document, float]], empty: str) -> str:
    """Search results as the agent reads them: rank, title, id, score and full content."""
    if not hits:
        return empty
    return "\n".join(
        f"{i}. {d.title}\n   ID: {d.id}\n   Score: {score:.4f}\n   Content: {d.content}\n"
        for i, (d, score) in enumerate(hits, 1)
    )
