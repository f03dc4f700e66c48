"""tau2-bench's banking_knowledge domain: a bank's accounts and a 698-document knowledge base
searched by BM25 or grep. `--suite tau2-banking[:RETRIEVAL]`; the data under `data/` is
tau2-bench's (see data/SOURCE.md)."""

__all__: list[str] = []
