"""A `python:` judge for the environment tests: every natural-language assertion met."""

from __future__ import annotations

import json
import re

from sessionproof.agents import AgentRequest, AgentResponse
from sessionproof.records import Message


def respond(request: AgentRequest) -> AgentResponse:
    """Each numbered assertion of the request judged met."""
    asked = request.messages[-1].content or ""
    count = len(re.findall(r"^\d+\. ", asked.split("\n\nTranscript:", 1)[0], re.MULTILINE))
    results = [{"met": True, "justification": "stated"} for _ in range(count)]
    return AgentResponse(message=Message.assistant(json.dumps({"results": results})))
