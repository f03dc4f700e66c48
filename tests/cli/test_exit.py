"""How the command line ends: what it leaves alive is frozen out of the interpreter's last
collection (a second or more after a large run otherwise), and a command's output and exit
status are untouched by that."""

from __future__ import annotations

import gc
import subprocess
import sys

import pytest

from sessionproof.cli import main


def test_the_entry_point_freezes_the_collector_after_every_other_exit_hook(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    registered: list[object] = []
    monkeypatch.setattr("atexit.register", registered.append)
    monkeypatch.setattr(sys, "argv", ["sessionproof", "--help"])
    with pytest.raises(SystemExit) as done:
        main()
    assert done.value.code == 0
    assert registered[:1] == [gc.freeze]


@pytest.mark.slow
def test_a_command_s_output_and_status_survive_the_exit() -> None:
    # Exit hooks registered after the CLI's (logging's flush among them) still run.
    code = (
        "import sys; from sessionproof.cli import main; sys.argv = ['sessionproof', 'nope']; main()"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "nope" in done.stderr
