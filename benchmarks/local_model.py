"""The embedded local model (`--model local`): start-up time, tokens/s and memory.

Starts the in-process llama.cpp server with SmolLM2-135M-Instruct exactly as `--model local`
does, then measures free generation (no grammar) and prompted tool-call steps (JSON-Schema
grammar) through the real adapter. Numbers are for this machine; nothing here is a test.

    .venv/bin/python benchmarks/local_model.py [--runs 3] [--max-tokens 256] [--threads N]
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import statistics
import time
from pathlib import Path

import httpx

from sessionproof.agents import AgentRequest
from sessionproof.agents._local import LocalAgent, LocalConfig, default_model_path
from sessionproof.records import Message, ToolSpec

TOOLS = [
    ToolSpec(
        name="get_order",
        description="Look up an order by its id.",
        parameters={
            "type": "object",
            "properties": {"order_id": {"type": "string"}},
            "required": ["order_id"],
            "additionalProperties": False,
        },
    ),
    ToolSpec(
        name="cancel_order",
        description="Cancel an order.",
        parameters={
            "type": "object",
            "properties": {"order_id": {"type": "string"}, "reason": {"type": "string"}},
            "required": ["order_id", "reason"],
            "additionalProperties": False,
        },
        write=True,
    ),
]


LONG_SYSTEM = (
    "You are a customer-service agent. Follow the shop's policy: confirm the customer's "
    "identity, read the order before changing it, ask before any write, and never invent "
    "facts. " * 60
)
"""About 2,000 tokens, near the prompt of a demo-suite step."""


def rss_mib() -> float:
    """Current resident memory of this process, MiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def server_timings(
    base_url: str, max_tokens: int, system: str = ""
) -> tuple[float, float, int, int]:
    """(prompt tok/s, generation tok/s, prompt tokens, generated tokens), llama.cpp's timings."""
    messages = [{"role": "system", "content": system}] if system else []
    messages.append({"role": "user", "content": "Write a long story about a lighthouse."})
    body = {"messages": messages, "max_tokens": max_tokens, "temperature": 0, "cache_prompt": False}
    data = httpx.post(f"{base_url}/v1/chat/completions", json=body, timeout=600).json()
    t = data["timings"]
    return t["prompt_per_second"], t["predicted_per_second"], t["prompt_n"], t["predicted_n"]


async def measure(runs: int, max_tokens: int, threads: int | None) -> None:
    """Run the measurements and print them."""
    path = default_model_path()
    print(f"model: {path.name} ({path.stat().st_size / 2**20:.0f} MiB on disk)")
    rss_before = rss_mib()
    start = time.perf_counter()
    import xllamacpp  # noqa: F401  (timed apart from the server start)

    import_s = time.perf_counter() - start
    agent = LocalAgent(LocalConfig(model_path=path, max_tokens=max_tokens, threads=threads))
    start = time.perf_counter()
    inner = await agent.start()
    startup_s = time.perf_counter() - start
    server = agent.server
    assert server is not None
    rss_loaded = rss_mib()
    print(f"import xllamacpp: {import_s:.3f} s; server start to healthy: {startup_s:.3f} s")
    print(f"RSS: {rss_before:.0f} MiB before, {rss_loaded:.0f} MiB with the server loaded")

    # A short prompt, then one about the size of a demo-suite step (policy + tools + history).
    for label, system in (("short prompt", ""), ("long prompt", LONG_SYSTEM)):
        rows = [
            await asyncio.to_thread(server_timings, server.base_url, max_tokens, system)
            for _ in range(runs)
        ]
        print(
            f"{label}: {rows[0][2]} prompt tokens at {statistics.median(r[0] for r in rows):.0f} "
            f"tok/s; {statistics.mean(r[3] for r in rows):.0f} generated at "
            f"{statistics.median(r[1] for r in rows):.0f} tok/s (server timings, {runs} runs)"
        )

    request = AgentRequest(
        messages=[
            Message.system("You are a customer-service agent for an online shop."),
            Message.user("Please cancel order 1042, I ordered it by mistake."),
        ],
        tools=TOOLS,
        seed=0,
    )
    latencies, out_tokens, parsed = [], [], 0
    for _ in range(runs):
        response = await agent.respond(request)
        call = response.model_calls[0]
        latencies.append(call.latency_s)
        out_tokens.append(call.usage.output_tokens)
        parsed += not any(i.error_class == "malformed_output" for i in response.issues)
    mode = inner.tool_mode
    tps = sum(out_tokens) / sum(latencies)
    print(
        f"agent step ({mode} tool mode, end to end, {runs} runs): "
        f"median {statistics.median(latencies):.2f} s, {statistics.mean(out_tokens):.0f} output "
        f"tokens, {tps:.0f} tok/s incl. prompt; replies that parsed: {parsed}/{runs}"
    )
    print(f"RSS after the runs: {rss_mib():.0f} MiB")
    await agent.aclose()


def main() -> None:
    """Parse the flags and measure."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--max-tokens", type=int, default=256)
    parser.add_argument("--threads", type=int, default=None, help="default: llama.cpp decides")
    args = parser.parse_args()
    asyncio.run(measure(args.runs, args.max_tokens, args.threads))


if __name__ == "__main__":
    main()
