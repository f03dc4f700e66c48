"""The agents' fast path: chat-completions bodies POSTed by sessionproof's own HTTP/1.1 client.

At hundreds of sessions in flight, the CPU a model call costs on the client sets a run's
pace. The openai SDK's `client.post` builds request options, an httpx request, an auth flow
and an httpx response around its transport for every call (~2 ms of CPU at 256 in flight);
the fast path sends the ready bytes on `Http1Pool` (asyncio protocols, responses parsed by
httptools: ~0.1 ms per request) with the headers and error types the SDK itself makes
(`DirectPost`).

What it borrows from the openai SDK that is not its public API (checked against openai
3.63.0 on httpx2 2.17.0, with aiohttp 3.14.5 and httptools 0.9.0):

- `AsyncOpenAI._build_headers(FinalRequestOptions)`, with `openai._models.FinalRequestOptions`:
  the headers of a bearer-authenticated request (auth, user agent, platform, the caller's);
- `AsyncOpenAI._prepare_url(path)`: the endpoint under the client's base URL;
- `AsyncOpenAI._make_status_error_from_response(response)`: the SDK's typed error for a
  non-2xx answer.

How a change is detected: `direct_post` looks these up when an agent is made; if any is
missing (not callable, or its module gone), or the environment sets
`SESSIONPROOF_NO_FASTPATH=1`, it returns None and the agent sends every request through the
SDK's public `client.post` on the SDK's own aiohttp (or httpx) transport: the same request,
the same error types, more CPU per call. A test sends the same loopback conversation
through both paths on every run and compares what the server saw and what the agent
returned (tests/agents/test_fastpath.py).
"""

from __future__ import annotations

import openai

from ..._nofastpath import fastpath_disabled
from ._direct import DirectPost as DirectPost

SDK_PARTS = ("_build_headers", "_prepare_url", "_make_status_error_from_response")
"""The openai client's private methods the fast path borrows."""


def sdk_parts_present(client: openai.AsyncOpenAI) -> bool:
    """True when `client` has every private SDK part the fast path uses."""
    if not all(callable(getattr(client, name, None)) for name in SDK_PARTS):
        return False
    try:
        from openai._models import FinalRequestOptions
    except ImportError:
        return False
    return callable(getattr(FinalRequestOptions, "construct", None))


def direct_post(client: openai.AsyncOpenAI, path: str, timeout_s: float) -> DirectPost | None:
    """The fast path's poster for `path` of `client`'s server, or None when the public SDK
    path must be used (a private part missing, or `SESSIONPROOF_NO_FASTPATH=1`)."""
    if fastpath_disabled() or not sdk_parts_present(client):
        return None
    return DirectPost(client, path, timeout_s)
