"""Running fuzz cases in worker processes, each case under a time limit and a memory cap.

A case can hang or eat memory in C code (a YAML alias bomb expanding, a deep structure being
serialised) where no signal handler runs, so cases never run in the caller's process: a
worker (forked from a forkserver that imported sessionproof once) runs them one at a time,
and one that does not answer in time is killed and replaced. Memory is capped per worker
(`RLIMIT_AS`) so a bomb is a MemoryError, not a machine that swaps.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import resource
import shutil
import tempfile
import time
from collections.abc import Iterable, Iterator
from typing import Any

from ._cases import build_case
from ._run import CaseResult

DEFAULT_TIMEOUT_S = 20.0
"""Per-case limit: normal cases take well under a second, even on a busy 2-core machine."""
DEFAULT_MEMORY_BYTES = 3 << 30


SELFTEST_KINDS = ("selftest-hang", "selftest-die")
"""Pseudo-kinds that test the pool itself: a case that never ends, a worker that dies."""


def _selftest(kind: str) -> None:
    if kind == "selftest-hang":
        time.sleep(3600)
    os._exit(3)


def _worker(conn: multiprocessing.connection.Connection, memory: int, base: str) -> None:
    from ._run import run_case

    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    while True:
        job = conn.recv()
        if job is None:
            return
        kind, seed, index = job
        if kind in SELFTEST_KINDS:
            _selftest(kind)
        try:
            result = run_case(build_case(kind, seed, index), base).to_dict()
        except BaseException as exc:  # the harness itself failed: report it, keep going
            result = {"harness_error": f"{type(exc).__name__}: {exc}"}
        conn.send(result)


_CONTEXT: Any = None


def _context() -> Any:
    global _CONTEXT
    if _CONTEXT is None:
        _CONTEXT = multiprocessing.get_context("forkserver")
        _CONTEXT.set_forkserver_preload(["tests.fuzz._run"])
    return _CONTEXT


class _Slot:
    """One worker process and the case it is running."""

    def __init__(self, memory: int) -> None:
        self.memory = memory
        self.job: tuple[str, int, int] | None = None
        self.deadline = 0.0
        self.started = 0.0
        self._start()

    def _start(self) -> None:
        ctx = _context()
        # A killed worker leaves its case directory behind: each worker gets a folder of its
        # own, removed when the worker is.
        self.base = tempfile.mkdtemp(prefix="sessionproof-fuzz-worker-")
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker, args=(child, self.memory, self.base), daemon=True)
        self.proc.start()
        child.close()

    def submit(self, job: tuple[str, int, int], timeout: float) -> None:
        self.job = job
        self.started = time.monotonic()
        self.deadline = self.started + timeout
        try:
            self.conn.send(job)
        except OSError:  # the worker died between cases: start another, once
            self.restart()
            self.conn.send(job)

    def restart(self) -> None:
        self.proc.kill()
        self.proc.join(5)
        self.conn.close()
        shutil.rmtree(self.base, ignore_errors=True)
        self._start()

    def close(self) -> None:
        try:
            self.conn.send(None)
            self.proc.join(5)
        except (OSError, EOFError):
            pass
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join(5)
        shutil.rmtree(self.base, ignore_errors=True)


def _lost(job: tuple[str, int, int], outcome: str, signature: str, seconds: float) -> CaseResult:
    kind, seed, index = job
    what = kind if kind in SELFTEST_KINDS else build_case(kind, seed, index).describe()
    return CaseResult(
        kind=kind,
        index=index,
        outcome=outcome,
        seconds=seconds,
        description=what,
        signature=signature,
    )


class WorkerPool:
    """`jobs` worker processes, kept across calls of `run` (their caches stay warm)."""

    def __init__(self, jobs: int = 1, memory: int = DEFAULT_MEMORY_BYTES) -> None:
        self.slots = [_Slot(memory) for _ in range(max(1, jobs))]

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop every worker."""
        for slot in self.slots:
            slot.close()

    def run(
        self, kind: str, seed: int, indices: Iterable[int], timeout: float = DEFAULT_TIMEOUT_S
    ) -> Iterator[CaseResult]:
        """Run cases `indices` of `kind`; yield each result as it ends (in any order)."""
        todo = list(indices)
        todo.reverse()
        slots = self.slots
        while todo or any(s.job for s in slots):
            for slot in slots:
                if slot.job is None and todo:
                    slot.submit((kind, seed, todo.pop()), timeout)
            busy = [s for s in slots if s.job is not None]
            wait = max(0.0, min(s.deadline for s in busy) - time.monotonic())
            ready = multiprocessing.connection.wait([s.conn for s in busy], timeout=wait)
            for slot in busy:
                result = self._collect(slot, slot.conn in ready, timeout)
                if result is not None:
                    yield result

    @staticmethod
    def _collect(slot: _Slot, ready: bool, timeout: float) -> CaseResult | None:
        job = slot.job
        assert job is not None
        spent = time.monotonic() - slot.started
        if ready:
            try:
                data = slot.conn.recv()
            except (EOFError, OSError):
                slot.proc.join(5)  # reap it, so its exit code (or signal) is known
                code = slot.proc.exitcode
                slot.job = None
                slot.restart()
                return _lost(job, "traceback", f"worker died (exit code {code})", spent)
            slot.job = None
            if "harness_error" in data:
                raise RuntimeError(f"fuzz harness failed on {job}: {data['harness_error']}")
            return CaseResult(**data)
        if time.monotonic() >= slot.deadline:
            slot.job = None
            slot.restart()
            return _lost(job, "hang", f"over the {timeout:g} s limit", spent)
        return None


def run_cases(
    kind: str,
    seed: int,
    indices: Iterable[int],
    *,
    jobs: int = 1,
    timeout: float = DEFAULT_TIMEOUT_S,
    memory: int = DEFAULT_MEMORY_BYTES,
) -> Iterator[CaseResult]:
    """Run cases `indices` of `kind` in a pool of `jobs` workers made for this call."""
    with WorkerPool(jobs, memory) as pool:
        yield from pool.run(kind, seed, indices, timeout)
