"""tests/conftest.py: a process a test starts makes its temporary files in the test
session's own folder, which pytest sweeps with its old runs, never in the machine's
/tmp (README, Tests)."""

import os
import subprocess
import sys


def test_a_started_process_makes_its_temporary_files_in_the_sessions_folder(session_tmpdir, tmp_path_factory):
    base = str(tmp_path_factory.getbasetemp())
    session = os.path.dirname(base) if os.environ.get("PYTEST_XDIST_WORKER") else base
    assert os.path.dirname(session_tmpdir) == session
    assert os.stat(session_tmpdir).st_mode & 0o777 == 0o700
    child = subprocess.run(
        [sys.executable, "-c", "import tempfile; print(tempfile.mkdtemp(prefix='sim-device-'))"],
        capture_output=True,
        text=True,
        check=True,
    )
    made = child.stdout.strip()
    assert os.path.dirname(made) == session_tmpdir
    os.rmdir(made)
