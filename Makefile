# The two commands of the README: `make run` and `make test`, on a fresh Debian + Python 3.11.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8042

.PHONY: run test lint clean

$(VENV)/.runtime: requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	touch $@

$(VENV)/.dev: $(VENV)/.runtime requirements-dev.txt
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $@

run: $(VENV)/.runtime
	$(PY) -m companion serve --demo --host $(HOST) --port $(PORT)

test: $(VENV)/.dev
	$(PY) -m pytest

lint: $(VENV)/.dev
	$(VENV)/bin/ruff check .

clean:
	rm -rf $(VENV) .pytest_cache test-output
