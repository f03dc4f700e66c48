"""The test suite, laid out like `src/sessionproof`: `tests/PACKAGE` tests `sessionproof.PACKAGE`
(`tests/suites/tau2` tests `sessionproof.suites.tau2`). Folders that test across packages:
`architecture` (import layers, one definition of each thing, start-up imports), `byo` (bring
your own agent, tools and project, end to end), `fuzz` (seeded hostile inputs), `integration`
(real third-party servers), `security` (no secret reaches a store, trace, export or report);
`fixtures` holds shared data files.

Two tiers: `bash scripts/test.sh --fast` (pytest `-m "not slow"`) for the inner loop, and
`bash scripts/test.sh`, the whole suite, which CI runs. A test is marked `slow` when it takes
more than about 1 s on a shared 2-core machine (`pytest --durations=0` tells), and so is every
test that needs the llama.cpp server; the fast tier stays under 3 minutes there.
"""
