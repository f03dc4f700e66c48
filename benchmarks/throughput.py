"""Sessions against a fake OpenAI-compatible server: throughput as a ratio to ideal, CPU per call.

    .venv/bin/python benchmarks/throughput.py [--suite tau2-retail] [--levels 16,64,256,1024]
        [--latency 0.2] [--mode ok|429] [--server PATH] [--executor ray] [--no-store]

Starts a fake chat-completions server on 127.0.0.1 in its own process (asyncio, answers from
prepared bytes so it is never the bottleneck; `--server PATH` uses another script taking
`PORT LATENCY [RATE_429]`, e.g. the shared check's fake_openai.py). Every call waits LATENCY,
then: a request with tools whose last message is the user's gets one tool call (the first
tool, no arguments), anything else a text reply, which ends the conversation with ###STOP###
once it is longer than 8 messages. `--mode 429` answers 429 with `Retry-After: 1` to 30% of
calls instead.

For each concurrency level it runs `sessionproof run --suite SUITE --concurrency C` (with
enough trials for at least 2×C sessions; one trial in 429 mode, where the window settles at
a few in flight whatever C is) and prints
- ideal: the wall time the same run's model calls need when C are always in flight and the
  harness costs nothing (calls × latency / C; with fewer sessions than C, their number in
  place of C), over the measured wall time minus the CLI's start-up (timed from a one-session
  run, as the shared `scale` check does, less its calls' latency and, in 429 mode, its 429s'
  Retry-After waits);
- ceiling: the best ratio a harness costing nothing could reach. A call holds its place for
  the whole latency, so N calls at C in flight take at least ceil(N / C) rounds of it:
  (N / C) / ceil(N / C), e.g. 95.9% for the `scale` check's 5,400 calls at 256 (21.09
  rounds' worth of calls need 22 rounds). The ratio can pass it by the error of the
  start-up estimate (a one-session run's fixed costs are not quite the larger run's);
- calls phase (own server only): from the first request to the last reply as the server
  saw them, against that bound of ceil(N / C) rounds: what the harness's per-call costs
  leave of the reachable, free of start-up and of the work after the last reply;
- CPU per model call: the run's CPU time (user+sys, the child process) minus the start-up's,
  over its model calls (the 429 answers included: each is a request).
In 429 mode the ideal counts only the successful calls and the waits are part of the run: the
ratio shows what the back-off costs, and the summary's 429s, concurrency and the sessions that
ended as infra_error (a 429 storm should end none) are printed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import random
import resource
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
ROOT = HERE.parents[1]
SCENARIOS = {"tau2-retail": 114, "tau2-airline": 50}
"""Scenarios per suite, to size the trials (checked against the run's own session count)."""
RETRY_AFTER = 1.0
"""What the fake server's 429s ask to wait (its `Retry-After: 1`); a `--server` script is
taken to ask the same, as the shared check's fake_openai.py does."""


# --- the fake server (run as `throughput.py --serve PORT LATENCY RATE_429`) ----------------


def _reply(status: str, body: bytes, extra: str = "") -> bytes:
    head = (
        f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {len(body)}"
        f"\r\n{extra}Connection: keep-alive\r\n\r\n"
    )
    return head.encode() + body


def _completion(message: dict[str, Any], finish: str) -> bytes:
    body = {
        "id": "c-" + uuid.uuid4().hex[:12],
        "object": "chat.completion",
        "created": 1,
        "model": "fake",
        "choices": [{"index": 0, "finish_reason": finish, "message": message}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }
    return json.dumps(body).encode()


def serve(port: int, latency: float, rate_429: float) -> None:
    """Serve until killed; GET /stats gives {"n", "max_inflight", "n429", "first", "last"}:
    the server's clock when the first request since the last GET /mark arrived and when the
    last reply since then left (null before any)."""
    stats: dict[str, Any] = {
        "n": 0,
        "inflight": 0,
        "max_inflight": 0,
        "n429": 0,
        "first": None,
        "last": None,
    }
    rng = random.Random(7)
    more = _reply("200 OK", _completion({"role": "assistant", "content": "Tell me more?"}, "stop"))
    done = _reply(
        "200 OK",
        _completion({"role": "assistant", "content": "Thanks, that is all. ###STOP###"}, "stop"),
    )
    limited = _reply(
        "429 Too Many Requests",
        b'{"error": {"message": "rate limited", "type": "rate_limit"}}',
        f"Retry-After: {RETRY_AFTER:g}\r\n",
    )
    tool_replies: dict[str, bytes] = {}

    def tool_reply(name: str) -> bytes:
        cached = tool_replies.get(name)
        if cached is None:
            fn = {"name": name, "arguments": "{}"}
            call = {"id": "call_1", "type": "function", "function": fn}
            message = {"role": "assistant", "content": None, "tool_calls": [call]}
            cached = tool_replies[name] = _reply("200 OK", _completion(message, "tool_calls"))
        return cached

    def answer(body: bytes) -> bytes:
        req = json.loads(body or b"{}")
        msgs = req.get("messages", [])
        tools = req.get("tools") or []
        if tools and msgs and msgs[-1].get("role") == "user":
            return tool_reply(tools[0]["function"]["name"])
        return done if len(msgs) > 8 else more

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n"):
                    if line[:15].lower() == b"content-length:":
                        length = int(line[15:])
                body = await reader.readexactly(length) if length else b""
                if head.startswith(b"GET"):
                    if head.startswith(b"GET /mark"):
                        stats.update(first=None, last=None)
                    writer.write(_reply("200 OK", json.dumps(stats).encode()))
                    await writer.drain()
                    continue
                if stats["first"] is None:
                    stats["first"] = time.monotonic()
                stats["n"] += 1
                stats["inflight"] += 1
                stats["max_inflight"] = max(stats["max_inflight"], stats["inflight"])
                await asyncio.sleep(latency)
                stats["inflight"] -= 1
                if rate_429 and rng.random() < rate_429:
                    stats["n429"] += 1
                    writer.write(limited)
                else:
                    writer.write(answer(body))
                stats["last"] = time.monotonic()
                await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass
        finally:
            writer.close()

    async def main() -> None:
        server = await asyncio.start_server(handle, "127.0.0.1", port, backlog=4096, limit=2**22)
        async with server:
            await server.serve_forever()

    asyncio.run(main())


# --- the benchmark -----------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _stats(port: int, path: str = "/stats") -> dict[str, Any]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as resp:
        data: dict[str, Any] = json.load(resp)
        return data


def _cli() -> list[str]:
    exe = Path(sys.executable).with_name("sessionproof")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "sessionproof.cli"]


def _run(port: int, args: list[str], store: Path) -> tuple[float, float, dict[str, Any]]:
    """(wall s, CPU s of the child, its --json summary) for one `sessionproof run`."""
    model = f"openai-compat:fake@http://127.0.0.1:{port}/v1"
    where = ["--store", str(store)]
    cmd = [*_cli(), "run", "--model", model, *args, "--json", "--no-report", *where]
    env = {**os.environ, "SESSIONPROOF_API_KEY": "x"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        tail = (proc.stderr.strip().splitlines() or ["(no output)"])[-1]
        raise SystemExit(f"run failed ({proc.returncode}): {tail}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, json.loads(proc.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", default="tau2-retail", choices=sorted(SCENARIOS))
    parser.add_argument("--levels", default="16,64,256,1024")
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--mode", choices=("ok", "429"), default="ok")
    parser.add_argument("--server", type=Path, help="another fake server script")
    parser.add_argument("--trials", type=int, help="trials per scenario (default: 2×C sessions)")
    parser.add_argument("--executor", help="passed to `run --executor` (e.g. ray)")
    parser.add_argument("--serve", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(int(args.serve[0]), float(args.serve[1]), float(args.serve[2]))
        return
    rate = 0.3 if args.mode == "429" else 0.0
    port = _free_port()
    script = [str(args.server)] if args.server else [str(HERE), "--serve"]
    server = subprocess.Popen([sys.executable, *script, str(port), str(args.latency), str(rate)])
    extra = ["--executor", args.executor] if args.executor else []
    try:
        for _ in range(100):
            try:
                _stats(port)
                break
            except OSError:
                time.sleep(0.1)
        with tempfile.TemporaryDirectory() as tmp:
            before = _stats(port)
            n0, s_429 = before["n"], before["n429"]
            one = ["--suite", args.suite, "--limit", "1", "--concurrency", "1", *extra]
            w1, c1, _ = _run(port, one, Path(tmp) / "startup.duckdb")
            after = _stats(port)
            n1 = after["n"]
            # A one-session run is serial: its calls' latency and, in 429 mode, each 429's
            # Retry-After wait are not start-up.
            waits = (after["n429"] - s_429) * RETRY_AFTER
            startup = max(0.0, w1 - (n1 - n0) * args.latency - waits)
            print(
                f"suite {args.suite}, latency {args.latency * 1000:.0f} ms, mode {args.mode}; "
                f"start-up {startup:.2f} s wall, {c1:.2f} s CPU"
            )
            for level in (int(x) for x in args.levels.split(",")):
                # In 429 mode the window settles at a few requests in flight whatever C is
                # (30% refused at random is read as a provider over its limit), so one trial
                # of each scenario says what the back-off costs; 2×C sessions would only add
                # minutes (~25 at 1,024).
                fill = 1 if rate else math.ceil(2 * level / SCENARIOS[args.suite])
                trials = args.trials or max(1, fill)
                s0 = _stats(port, "/mark")  # the call phase is timed from here (own server)
                run_args = ["--suite", args.suite, "--trials", str(trials)]
                run_args += ["--concurrency", str(level), *extra]
                # A fresh store per level: each run writes into an empty file, as a new one.
                wall, cpu, summary = _run(port, run_args, Path(tmp) / f"c{level}.duckdb")
                s1 = _stats(port)
                calls = s1["n"] - s0["n"]
                limited = s1["n429"] - s0["n429"]
                # Fewer sessions than C (429 mode) can never have C calls in flight.
                sessions = int(summary.get("sessions") or level)
                width = min(level, sessions)
                ideal = (calls - limited) * args.latency / width
                ratio = ideal / max(1e-9, wall - startup)
                bound = math.ceil(calls / width) * args.latency
                ceiling = ideal / max(1e-9, bound)
                per_call = (cpu - c1) / max(1, calls) * 1000
                line = (
                    f"C={level:5d}: {summary.get('sessions', '?')} sessions, {calls} calls, "
                    f"wall {wall:.1f} s, ideal {ideal:.1f} s -> {ratio * 100:5.1f}% of ideal "
                    f"(ceiling {ceiling * 100:.1f}%); "
                    f"CPU {per_call:.2f} ms per model call; server peak in flight "
                    f"{s1['max_inflight']}"
                )
                if s1.get("first") is not None and s1.get("last") is not None:
                    span = s1["last"] - s1["first"]
                    line += (
                        f"; calls phase (first request to last reply, at the server) "
                        f"{span:.2f} s, {bound / max(1e-9, span) * 100:.1f}% of its bound"
                    )
                conc = summary.get("concurrency")
                if isinstance(conc, dict):
                    line += (
                        f"; 429s seen {conc.get('rate_limited')}, concurrency peak "
                        f"{conc.get('peak')} mean {conc.get('mean')} "
                        f"window min {conc.get('window_min')}"
                    )
                reasons = summary.get("termination_reasons")
                if rate and isinstance(reasons, dict):
                    line += f"; sessions ended infra_error {reasons.get('infra_error', 0)}"
                print(line, flush=True)
    finally:
        server.kill()
        server.wait()


if __name__ == "__main__":
    main()
