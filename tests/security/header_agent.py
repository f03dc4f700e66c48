"""An agent for `python:tests.security.header_agent:echo`: it says the credentials a run was
given as OTLP headers and under home-made variable names, in clear."""

from __future__ import annotations

import base64

from sessionproof.agents import AgentRequest, AgentResponse
from sessionproof.records import Message

HONEYCOMB = "hny" + "Qp7Zr4Lk2Vb9"
"""An `x-honeycomb-team` header value."""
LANGFUSE_PUBLIC = "pk" + "-lf-" + "7f3e9d1c"
LANGFUSE_SECRET = "lf" + "Sec" + "Wq8Tn5Hj3"
"""The secret half of a Langfuse `Authorization: Basic BASE64(PUBLIC:SECRET)` header."""
BASIC = base64.b64encode(f"{LANGFUSE_PUBLIC}:{LANGFUSE_SECRET}".encode()).decode()
BEARER = "tok" + "Bn6Mv3Cx9Za1"
"""The token of `OTEL_EXPORTER_OTLP_HEADERS=Authorization=Bearer%20TOKEN`."""
MYCO_KEY = "myco" + "Kp4Rt7Yh2"
MYCO_AUTH = "auth" + "Gf5Dv8Sx1"
GITHUB_PAT = "pat" + "Ue6Io9Lm3Nq"
VAULT_CREDENTIAL = "cred" + "Jh2Kw5Pz8"

SECRETS = (HONEYCOMB, LANGFUSE_SECRET, BASIC, BEARER, MYCO_KEY, MYCO_AUTH, GITHUB_PAT,
           VAULT_CREDENTIAL)  # fmt: skip


async def echo(request: AgentRequest) -> AgentResponse:
    """Reply with every secret, bare."""
    return AgentResponse(message=Message.assistant("keys: " + " ".join(SECRETS)))
