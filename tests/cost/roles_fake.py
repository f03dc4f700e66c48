"""A loopback OpenAI-compatible server that answers as the agent, the simulated user or the
NL judge by the model named in the request, each with its own token counts (so a test can
tell whose tokens went where)."""

from __future__ import annotations

import json
import re

from ..agents.fakeprovider import FakeProvider, Reply, Seen, completion

USAGE = {
    "agent-m": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110},
    "user-m": {"prompt_tokens": 40, "completion_tokens": 4, "total_tokens": 44},
    "judge-m": {"prompt_tokens": 1000, "completion_tokens": 50, "total_tokens": 1050},
}
"""Tokens per call of each model (prompt, completion)."""


def _respond(seen: Seen) -> Reply:
    body = seen.body if isinstance(seen.body, dict) else {}
    model = str(body.get("model", ""))
    messages = body.get("messages", [])
    usage = USAGE.get(model, {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2})
    if model == "judge-m":
        asked = messages[-1]["content"] if messages else ""
        n = len(re.findall(r"^\d+\. ", asked.split("Transcript:")[0], flags=re.M))
        results = [{"met": True, "justification": "checked"}] * n
        return Reply(completion(json.dumps({"results": results}), usage=usage))
    if model == "user-m":
        done = len(messages) > 4
        text = "Thanks, that is all. ###STOP###" if done else "I want to exchange an item."
        return Reply(completion(text, usage=usage))
    return Reply(completion("Could you tell me your order id?", usage=usage))


def roles_server() -> FakeProvider:
    """The server, started; stop it when done."""
    return FakeProvider(responder=_respond).start()
