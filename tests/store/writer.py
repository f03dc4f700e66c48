"""A separate process that writes to a store, for the lock and durability tests.

`python -m tests.store.writer PATH hold` opens the store, prints `ready` and waits for stdin
to close (it holds the write lock meanwhile).
`python -m tests.store.writer PATH live RUN_ID N` starts run RUN_ID, writes N sessions of
it, prints `ready` and holds the store like `hold`: a run in progress.
`python -m tests.store.writer PATH write RUN_ID N` writes N sessions, printing each key as
soon as its write has returned, so the parent knows which sessions were committed.
`python -m tests.store.writer PATH bulk RUN_ID N B` writes N sessions in batches of B with
`write_sessions`, printing `begin K` before batch K and `done K` once it has returned;
`bulk-direct` does the same with every batch committed straight into the data file
(`_bulk.direct_commit`, as a batch of some megabytes is).
"""

from __future__ import annotations

import sys

from sessionproof.store import Store

from .factory import manifest, session


def main(argv: list[str]) -> None:
    """Run one of the two modes described above."""
    path, mode = argv[0], argv[1]
    with Store.open(path) as store:
        if mode == "hold":
            print("ready", flush=True)
            sys.stdin.read()
            return
        run_id, count = argv[2], int(argv[3])
        ids = [f"sc{i:05d}" for i in range(count)]
        store.create_run(manifest(run_id, ids))
        if mode == "bulk-direct":
            from sessionproof.store import _bulk

            _bulk.DIRECT_COMMIT_CHARS = 0
            mode = "bulk"
        if mode == "bulk":
            size = int(argv[4])
            print(f"run {run_id}", flush=True)
            for k in range(0, count, size):
                batch = [session(run_id, scenario_id) for scenario_id in ids[k : k + size]]
                print(f"begin {k // size}", flush=True)
                store.write_sessions(batch)
                print(f"done {k // size}", flush=True)
            return
        if mode == "live":
            for scenario_id in ids:
                store.write_session(session(run_id, scenario_id))
            print("ready", flush=True)
            sys.stdin.read()
            return
        print(f"run {run_id}", flush=True)
        for scenario_id in ids:
            store.write_session(session(run_id, scenario_id))
            print(f"done {scenario_id}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
