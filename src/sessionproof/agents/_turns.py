"""How user turns reach an external agent: POSTed to a URL, or written to a process.

A turn is one JSON object: `session_id`, `turn` (0-based), `message` (the user's text),
`mcp_url` (that session's MCP tool server) and `policy` (the domain's system prompt). The
agent answers `{"message": "<its reply>"}`. Failures are classified here, once:

- the URL cannot be reached (refused, DNS, reset before an answer): `InfraError`, so the
  session ends as `infra_error` and is excluded from accuracy, as for a provider that is down;
- an HTTP error status, a body that is not JSON, JSON without a `message` string: the
  agent's failure (`server_error` / `malformed_output`), the session ends `too_many_errors`;
- a process that exits (or closes stdout) mid-session: the agent's failure, `unavailable`,
  with the tail of its stderr.

A hang is the engine's business: `--agent-timeout` bounds every decision.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shlex
import shutil
import sys
import tempfile
from typing import IO, Any

import httpx

from ..domains.sources._internal import end_group, spawn_group
from ..errors import InfraError, ModelSpecError
from ..records import ErrorClass
from ._protocol import AgentFailure

MAX_REPLY_BYTES = 16 * 1024 * 1024
"""The longest reply read from an agent: a line of an agent process, an `http-agent` body."""


def reply_text(body: str, where: str) -> str:
    """The `message` of an agent's JSON reply; `AgentFailure(malformed_output)` otherwise."""
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):  # RecursionError: nested past the parser's depth
        shown = body.strip()[:120]
        raise AgentFailure(
            ErrorClass.malformed_output, f"{where} answered something that is not JSON: {shown!r}"
        ) from None
    message = data.get("message") if isinstance(data, dict) else None
    if not isinstance(message, str):
        raise AgentFailure(
            ErrorClass.malformed_output,
            f'{where} answered JSON without a "message" string: {body.strip()[:120]!r}',
        )
    return message


class HttpTurns:
    """POST each turn to the agent's URL (one shared client for every session)."""

    def __init__(self, client: httpx.AsyncClient, url: str, shown: str) -> None:
        self._client = client
        self._url = url
        self._shown = shown

    async def send(self, turn: dict[str, Any]) -> str:
        """POST the turn; the reply's `message`. A reply past `MAX_REPLY_BYTES` (decoded)
        is the agent's malformed output, as a too-long line of an agent process is."""
        try:
            async with self._client.stream("POST", self._url, json=turn) as response:
                status = response.status_code
                text = await self._read(response)
        except (httpx.ConnectError, httpx.ConnectTimeout, httpx.RemoteProtocolError) as exc:
            raise InfraError(
                f"the agent at {self._shown} cannot be reached: {type(exc).__name__}: {exc}"
            ) from None
        except httpx.DecodingError as exc:  # a body its Content-Encoding does not decode
            raise AgentFailure(
                ErrorClass.malformed_output,
                f"the agent at {self._shown} answered an undecodable body: {exc}",
            ) from None
        if status >= 400:
            raise AgentFailure(
                ErrorClass.server_error,
                f"the agent at {self._shown} answered HTTP {status}: {text.strip()[:120]!r}",
            )
        return reply_text(text, f"the agent at {self._shown}")

    async def _read(self, response: httpx.Response) -> str:
        """The reply's text, read no further than the cap."""
        chunks: list[bytes] = []
        size = 0
        async for chunk in response.aiter_bytes():
            size += len(chunk)
            if size > MAX_REPLY_BYTES:
                raise AgentFailure(
                    ErrorClass.malformed_output,
                    f"the agent at {self._shown} answered more than {MAX_REPLY_BYTES} bytes",
                )
            chunks.append(chunk)
        return b"".join(chunks).decode(response.encoding or "utf-8", errors="replace")

    async def aclose(self) -> None:
        """Nothing per session (the client is the agent's)."""


def command_line(command: str) -> list[str]:
    """The argv of `mcp-agent:COMMAND`; `python` is the interpreter running sessionproof.
    Raises `ModelSpecError` when it cannot be read or its program is not found."""
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise ModelSpecError(f"mcp-agent: cannot read the command {command!r}: {exc}") from None
    if not argv:
        raise ModelSpecError("mcp-agent: needs a command, e.g. mcp-agent:python my_agent.py")
    if argv[0] in ("python", "python3"):
        argv[0] = sys.executable
    elif shutil.which(argv[0]) is None:
        raise ModelSpecError(f"mcp-agent: program {argv[0]!r} not found")
    return argv


class ProcessTurns:
    """One agent process per session: turns as JSON lines on its stdin, replies on stdout.

    The process starts with the first turn, with `SESSIONPROOF_MCP_URL` and
    `SESSIONPROOF_SESSION_ID` in its environment, and is stopped when the session ends.
    """

    def __init__(self, argv: list[str], session_id: str, mcp_url: str) -> None:
        self._argv = argv
        self._env = {
            **os.environ,
            "SESSIONPROOF_MCP_URL": mcp_url,
            "SESSIONPROOF_SESSION_ID": session_id,
        }
        self._proc: asyncio.subprocess.Process | None = None
        self._errlog: IO[bytes] | None = None

    def _stderr_tail(self) -> str:
        if self._errlog is None:
            return ""
        with contextlib.suppress(OSError, ValueError):
            self._errlog.seek(0)
            lines = [x.strip() for x in self._errlog.read().decode(errors="replace").splitlines()]
            lines = [x for x in lines if x]
            if lines:
                return f" (stderr: {lines[-1][:200]})"
        return ""

    async def _start(self) -> asyncio.subprocess.Process:
        if self._proc is not None:
            return self._proc
        self._errlog = tempfile.TemporaryFile()  # noqa: SIM115  closed in aclose
        try:
            # Its own process group: helpers it starts end with it (and if we are killed).
            self._proc = await spawn_group(
                *self._argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=self._errlog,
                env=self._env,
                limit=MAX_REPLY_BYTES,
            )
        except OSError as exc:
            raise InfraError(f"cannot start the agent process {self._argv[0]!r}: {exc}") from None
        return self._proc

    async def _gone(self, proc: asyncio.subprocess.Process) -> AgentFailure:
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(5):
                await proc.wait()
        code = proc.returncode
        said = "closed its stdout" if code is None else f"exited with code {code}"
        return AgentFailure(
            ErrorClass.unavailable, f"the agent process {said} mid-session{self._stderr_tail()}"
        )

    async def send(self, turn: dict[str, Any]) -> str:
        """Write the turn as one line; read one reply line."""
        proc = await self._start()
        assert proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write(json.dumps(turn).encode() + b"\n")
            await proc.stdin.drain()
            line = await proc.stdout.readline()
        except (BrokenPipeError, ConnectionResetError):
            raise await self._gone(proc) from None
        except ValueError:  # a line past the reader's limit
            raise AgentFailure(
                ErrorClass.malformed_output,
                f"the agent process wrote a reply line longer than {MAX_REPLY_BYTES} bytes",
            ) from None
        if not line:
            raise await self._gone(proc)
        return reply_text(line.decode(errors="replace"), "the agent process")

    async def aclose(self) -> None:
        """Stop the process and its process group (stdin closed first, then SIGTERM to the
        group, then SIGKILL): a helper it started does not outlive the session."""
        proc, self._proc = self._proc, None
        if proc is not None:
            if proc.stdin is not None:
                with contextlib.suppress(Exception):
                    proc.stdin.close()
            await end_group(proc, grace_s=5)
        if self._errlog is not None:
            self._errlog.close()
            self._errlog = None
