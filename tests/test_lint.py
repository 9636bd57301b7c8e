"""The lint gate: ruff passes on the tree, and the complexity allowance (C901 per-file ignores in
pyproject.toml) only shrinks."""

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _ruff():
    ruff = Path(sys.executable).parent / "ruff"
    return str(ruff) if ruff.exists() else shutil.which("ruff")


pytestmark = pytest.mark.skipif(_ruff() is None, reason="ruff is not installed (requirements-dev.txt)")


def _allowance():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    ignores = config["tool"]["ruff"]["lint"].get("per-file-ignores", {})
    return {path for path, codes in ignores.items() if "C901" in codes}


def _too_complex():
    """Files with a function past the threshold, ignoring the allowance."""
    out = subprocess.run(
        [_ruff(), "check", "--select", "C901", "--output-format", "concise", "--no-cache",
         "--config", "lint.per-file-ignores = {}", "."],
        cwd=ROOT, capture_output=True, text=True, check=False,
    ).stdout
    return {line.split(":", 1)[0] for line in out.splitlines() if "C901" in line}


def test_ruff_passes():
    result = subprocess.run([_ruff(), "check", "--no-cache", "."], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_complexity_allowance_only_shrinks():
    offenders, allowance = _too_complex(), _allowance()
    assert offenders, "the C901 check found nothing at all: is it running?"
    assert offenders <= allowance, f"new functions past max-complexity: {sorted(offenders - allowance)}"
    assert allowance <= offenders, f"these files no longer need their C901 entry: {sorted(allowance - offenders)}"


def test_a_line_over_120_characters_fails_the_lint_outside_migrations():
    """Issue 34 item 8: the project's ruff settings refuse a 121-character line and take a 120-character
    one; a migration (generated code) may hold longer lines. The source goes in on stdin under a
    file name, so the settings for that path apply and no file is written."""
    def check(relative: str, length: int) -> int:
        return subprocess.run([_ruff(), "check", "--no-cache", "--select", "E501", "--stdin-filename", relative, "-"],
                              cwd=ROOT, input='X = "' + "a" * (length - 6) + '"\n', capture_output=True,
                              text=True).returncode

    assert check("tests/lint_probe.py", 121) == 1
    assert check("tests/lint_probe.py", 120) == 0
    assert check("tactical/migrations/9999_lint_probe.py", 150) == 0
