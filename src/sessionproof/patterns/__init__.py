"""Pattern intelligence: which tool-call sequences precede session failure, and what to build."""
