# The two quick-start commands (README): `make run` and `make test`.
# Debian's /usr/bin/python3.11 is built with profile-guided and link-time optimisation (about 40%
# faster here than a plain source build such as pyenv's); it is used when present.
PYTHON ?= $(shell test -x /usr/bin/python3.11 && echo /usr/bin/python3.11 || echo python3)
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000
# Links in emails and invitations are built from SITE_URL: by default where this server listens.
SITE_URL ?= http://$(HOST):$(PORT)
# The demo's emails (turn reports, reminders, invitations) go to files under var/mail/ (one file
# per batch of messages), so the server's output stays readable; set EMAIL_BACKEND to change it.
EMAIL_BACKEND ?= django.core.mail.backends.filebased.EmailBackend
EMAIL_FILE_PATH ?= var/mail
DEMO_ENV := SITE_URL=$(SITE_URL) EMAIL_BACKEND=$(EMAIL_BACKEND) EMAIL_FILE_PATH=$(EMAIL_FILE_PATH)

.PHONY: run test test-fast install install-dev demo lint lock manage

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

# Installs come from the locks (every package pinned, with its hashes); requirements*.txt are the
# inputs they are made from: `make lock` after changing one.
install: $(VENV)/bin/python
	$(PY) -m pip install --quiet -r requirements.lock

install-dev: $(VENV)/bin/python
	$(PY) -m pip install --quiet -r requirements-dev.lock

LOCK_FLAGS := --quiet --generate-hashes --strip-extras --allow-unsafe --no-emit-index-url --no-emit-find-links --no-emit-trusted-host

lock: $(VENV)/bin/python
	$(PY) -m pip install --quiet "pip-tools>=7.4,<8"
	$(VENV)/bin/pip-compile $(LOCK_FLAGS) --upgrade -o requirements.lock requirements.txt
	$(VENV)/bin/pip-compile $(LOCK_FLAGS) -o requirements-dev.lock requirements-dev.txt

demo: install
	$(PY) manage.py migrate --noinput -v 0
	$(DEMO_ENV) $(PY) manage.py setupdemo --url $(SITE_URL)/

# Install, build the demo campaign (SQLite, in-process tasks) and serve the site.
run: demo
	$(DEMO_ENV) $(PY) manage.py runserver $(HOST):$(PORT)

# Any manage.py command with the settings `make run` serves the demo with (SITE_URL, emails to
# var/mail/), so that its links and emails match the demo's:
#   make manage CMD='showmap 1'        make manage CMD=ingestmail < message.eml
manage:
	@$(DEMO_ENV) $(PY) manage.py $(CMD)

# Install the test dependencies and run the whole suite, on TEST_WORKERS processes (pytest-xdist;
# 0: in this one). `--dist load` hands each process the tests in the order pytest-django sorts them,
# the tests that empty the database (transactional, live server) after the others, so every test
# that needs the starter designs a migration writes finds them (`--dist loadfile` would run a file's
# transactional tests in the middle of a process's run). Each process has its own test database
# (pytest-django's gw0/gw1 suffix) and its own Redis databases (config/settings.py, redis_url).
# The log ends with the TEST_DURATIONS slowest set-ups and tests (0: all of them), so every CI run shows
# where the time goes (docs/benchmarks.md, "The test suite").
TEST_WORKERS ?= 2
TEST_DURATIONS ?= 25
test: install-dev
	$(PY) manage.py makemigrations --check --dry-run
	$(PY) -m pytest -n $(TEST_WORKERS) --dist load --durations=$(TEST_DURATIONS)

# The pure engines and unit tests: no database, browser or live server, nothing marked slow; on
# FAST_WORKERS processes (pytest-xdist; 0: in this one).
FAST_WORKERS ?= 2
test-fast: install-dev
	$(PY) -m pytest --fast -n $(FAST_WORKERS)

lint: install-dev
	$(VENV)/bin/ruff check .
