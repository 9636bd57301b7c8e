"""The README's commands run with the demo's settings (issue 23 item 10): `manage.py ingestmail`
run as the README showed printed its answer to the terminal with a link to port 8000 whatever
`make run` served on. Each command is shown through `make manage`, which runs it with the
settings of `make run` (the Makefile's DEMO_ENV)."""

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _commands_block() -> list[str]:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("\n## Commands\n", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```sh\n(.*?)```", section, re.S).group(1)
    return [line for line in block.splitlines() if line.strip()]


def test_every_command_the_readme_shows_runs_with_the_demos_settings():
    lines = _commands_block()
    assert len(lines) >= 15
    for line in lines:
        assert line.startswith("make manage CMD="), line
    assert any("ingestmail < message.eml" in line for line in lines)


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_manage_gives_a_command_the_settings_make_run_serves_with():
    env = {k: v for k, v in os.environ.items() if k not in ("SITE_URL", "EMAIL_BACKEND", "EMAIL_FILE_PATH")}
    probe = "from django.conf import settings; print('SETTINGS', settings.SITE_URL, settings.EMAIL_BACKEND)"
    out = subprocess.run(["make", "-s", "manage", f"CMD=shell -v 0 -c \"{probe}\"", "HOST=127.0.0.2", "PORT=8123"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    line = next(ln for ln in out.stdout.splitlines() if ln.startswith("SETTINGS"))
    assert line == "SETTINGS http://127.0.0.2:8123 django.core.mail.backends.filebased.EmailBackend"
