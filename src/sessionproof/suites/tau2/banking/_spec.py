"""The banking domain spec: one retrieval configuration, one task's starting data.

`RETRIEVALS` are tau2-bench's retrieval configurations that run offline: `bm25` (BM25
search), `grep` (tau2's `grep_only`: a regex search), `bm25_grep` (both) and `no_knowledge`
(no search at all); every one of them can read a document by id. The agent's policy is
`policy.md` plus a paragraph on the configuration's search tools.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from importlib import resources
from typing import Any

from ....domains import Domain, DomainSpec
from ....errors import ConfigError
from ....records import ToolSpec
from ._db import BankingDB, fresh_db
from ._kb import KnowledgeBase, packaged_kb
from ._tools import BankingTools, Bm25GrepTools, Bm25Tools, GrepTools
from ._user_tools import BankingUserTools

DOMAIN = "banking_knowledge"
"""The domain's name (tau2's)."""

RETRIEVALS: dict[str, tuple[type[BankingTools], str]] = {
    "bm25": (
        Bm25Tools,
        "Search the knowledge base with `KB_search` (BM25 keyword ranking; use the words the "
        "documents would use) and read a document in full with `get_document`.",
    ),
    "grep": (
        GrepTools,
        "Search the knowledge base with `grep` (a case-insensitive regular expression over "
        "every document) and read a document in full with `get_document`.",
    ),
    "bm25_grep": (
        Bm25GrepTools,
        "Search the knowledge base with `KB_search` (BM25 keyword ranking) or `grep` (a "
        "case-insensitive regular expression), and read a document with `get_document`.",
    ),
    "no_knowledge": (
        BankingTools,
        "You have no search tool: answer from what you know, and read a document with "
        "`get_document` only when you know its id.",
    ),
}
"""Retrieval configuration → (toolkit class, the policy's paragraph on its tools)."""

DEFAULT_RETRIEVAL = "bm25"


def check_retrieval(name: str) -> str:
    """`name` when it is a known retrieval configuration; else a `ConfigError`."""
    if name not in RETRIEVALS:
        raise ConfigError(
            f"unknown retrieval {name!r} for tau2-banking; use one of: {', '.join(RETRIEVALS)}"
        )
    return name


@functools.cache
def policy(retrieval: str) -> str:
    """The agent's system prompt under one retrieval configuration."""
    text = (resources.files("sessionproof.suites.tau2.banking") / "policy.md").read_text("utf-8")
    return text.rstrip() + "\n\n## Knowledge base\n\n" + RETRIEVALS[retrieval][1] + "\n"


class BankingDomain(Domain[BankingDB]):
    """A live banking session: the agent's tools, and the customer's own over the same DB."""

    def __init__(
        self, db: BankingDB, toolkit: BankingTools, policy: str, user_tools: frozenset[str] | None
    ) -> None:
        super().__init__(DOMAIN, db, toolkit, policy)
        self.user_tools = BankingUserTools(db, user_tools)
        """The customer's tools (dual control), bound to the same DB as the agent's."""

    def state_hash(self) -> str:
        """The DB's hash (both sides write the one DB)."""
        return self.db.digest()

    def user_tool_source(self) -> BankingUserTools:
        """The customer's side of this session (the engine's dual-control hook)."""
        return self.user_tools


class BankingSpec(DomainSpec):
    """Fresh banking domains for one task under one retrieval configuration."""

    def __init__(
        self,
        retrieval: str = DEFAULT_RETRIEVAL,
        agent_data: Mapping[str, Any] | None = None,
        read_log: frozenset[str] = frozenset(),
        kb: KnowledgeBase | None = None,
        user_tools: frozenset[str] | None = None,
    ) -> None:
        self.name = DOMAIN
        self.retrieval = check_retrieval(retrieval)
        self.toolkit = RETRIEVALS[retrieval][0]
        self.agent_data = agent_data
        self.read_log = read_log
        self._kb = kb
        self.user_tools = user_tools
        """The plain tools the task's customer holds (None: all of them)."""

    def create(self) -> BankingDomain:
        """A new session: the base DB with the task's data, both sides' tools bound to it."""
        kb = self._kb if self._kb is not None else packaged_kb()
        db = fresh_db(self.agent_data)
        tools = self.toolkit(db, self.read_log, kb)
        return BankingDomain(db, tools, policy(self.retrieval), self.user_tools)

    def tools(self) -> list[ToolSpec]:
        """The tools, without loading the DB."""
        return self.toolkit.specs()

    def tool_names(self) -> frozenset[str]:
        """The tools' names."""
        return frozenset(self.toolkit.tool_names())


def spec() -> BankingSpec:
    """The `banking_knowledge` domain (BM25 retrieval, the shipped DB); registry factory."""
    return BankingSpec()
