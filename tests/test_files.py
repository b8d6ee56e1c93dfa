"""The shared leaf villagelab.files: atomic writes that follow the umask, read at write time."""

from __future__ import annotations

import subprocess
import sys


def test_an_atomic_write_follows_the_umask_of_the_moment(tmp_path):
    code = (
        "import os, sys\n"
        "from villagelab.files import atomic_write_bytes\n"
        "os.umask(0o027)\n"  # set after the import: nothing may have read it at import time
        "atomic_write_bytes(sys.argv[1], b'x')\n"
        "print(oct(os.stat(sys.argv[1]).st_mode & 0o777))\n"
    )
    target = tmp_path / "sub" / "f.bin"
    out = subprocess.run(
        [sys.executable, "-c", code, str(target)], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "0o640"
    assert target.read_bytes() == b"x"
    assert [p.name for p in target.parent.iterdir()] == ["f.bin"]  # no temp file left
