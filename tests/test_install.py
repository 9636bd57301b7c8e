"""The locks (requirements.lock, requirements-dev.lock) agree with their inputs (requirements.txt,
requirements-dev.txt) and with each other, so `make install` installs what the inputs ask for.
`make lock` regenerates them after an input changes."""

import re
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent


def _inputs(name: str) -> list[Requirement]:
    found = []
    for line in (ROOT / name).read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        if line.startswith("-r "):
            found += _inputs(line[3:].strip())
        else:
            found.append(Requirement(line))
    return found


def _pins(name: str) -> dict[str, str]:
    text = (ROOT / name).read_text()
    pins = dict(re.findall(r"^([A-Za-z0-9_.\-]+)==([^\s\\]+)", text, flags=re.M))
    assert all(block.count("--hash=sha256:") for block in re.split(r"\n(?=\S)", text) if "==" in block), \
        f"{name}: every pin carries its hashes"
    return {canonicalize_name(k): v for k, v in pins.items()}


def test_every_input_is_pinned_within_its_bounds():
    for lock, source in (("requirements.lock", "requirements.txt"), ("requirements-dev.lock", "requirements-dev.txt")):
        pins = _pins(lock)
        for requirement in _inputs(source):
            name = canonicalize_name(requirement.name)
            assert name in pins, f"{lock} does not pin {name}: run `make lock`"
            assert requirement.specifier.contains(pins[name], prereleases=True), \
                f"{lock} pins {name}=={pins[name]}, outside {requirement.specifier}: run `make lock`"


def test_the_dev_lock_installs_the_same_runtime_as_the_runtime_lock():
    runtime, dev = _pins("requirements.lock"), _pins("requirements-dev.lock")
    differ = {k: (v, dev.get(k)) for k, v in runtime.items() if dev.get(k) != v}
    assert not differ, f"the locks disagree (runtime, dev): {differ}; run `make lock`"


def test_the_suite_needs_no_scipy():
    assert "scipy" not in _pins("requirements-dev.lock")


def test_the_production_command_is_the_one_bench_http_measures():
    """README's gunicorn line runs the worker class and threads bench/http.py benchmarks, with
    persistent database connections (issue 34 item 7)."""
    readme = (ROOT / "README.md").read_text()
    bench = (ROOT / "bench" / "http.py").read_text()
    line = next(line for line in readme.splitlines() if "bin/gunicorn config.wsgi" in line)
    threads = re.search(r'"--threads", type=int, default=(\d+)', bench)[1]
    assert '"--worker-class", "gthread"' in bench
    assert "--worker-class gthread" in line and f"--threads {threads}" in line
    assert re.search(r"DB_CONN_MAX_AGE=([1-9]\d*)", readme), "production keeps its database connections"
