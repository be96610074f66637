# shoectl: `make demo` sets up and runs the table on emulated hardware; `make test` sets up
# and runs every check. Both create .venv on first use.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: all test lint typecheck contracts pytest demo sysdeps bench screens pi-check clean

all: test

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# Debian packages some tests drive for real (graphviz, umockdev, debootstrap, nspawn).
sysdeps:
	./.ci/sysdeps

lint: $(STAMP)
	$(BIN)/ruff check .

typecheck: $(STAMP)
	$(BIN)/mypy --strict controller firmware_bridge confkeys
	$(BIN)/mypy drivers vision

contracts: $(STAMP)
	$(BIN)/lint-imports

pytest: $(STAMP) sysdeps
	$(BIN)/pytest tests hil_tests

test: lint typecheck contracts pytest

# `make demo GAME=roulette` (or spanish21, baccarat, community, holdem): the same for another
# game. Hold'em's cards are read by the emulated camera (a few seconds a round): 10 rounds.
# `make demo FLOOR=1`: three blackjack tables linked to one progressive over a private Mosquitto.
FLOOR_DEMO := --tables 3 --broker --rounds 20 --bets main=1000,blazing7s=500
demo: $(STAMP) $(if $(FLOOR),sysdeps)
	$(BIN)/shoectl simulate $(if $(GAME),--game $(GAME)) $(if $(filter holdem,$(GAME)),--rounds 10) $(if $(FLOOR),$(FLOOR_DEMO))

# Every screen at its target sizes, each phase, as PNGs in docs/screens/ (Chromium on the
# emulated rigs; the same run checks that every control shows: hil_tests/test_screens.py).
screens: $(STAMP) sysdeps
	rm -f docs/screens/*.png
	SHOECTL_SCREENS=docs/screens $(BIN)/pytest -q hil_tests/test_screens.py

bench: $(STAMP)
	for f in bench/*.py; do $(BIN)/python $$f || exit 1; done

# shoectl installed, booted and dealing on arm64 (Debian's arm64 root under qemu-user and
# systemd-nspawn), with the figures of docs/pi.md. Root; long (the first run ~30 min); not in
# `make test`. The root is cached in build/pi/. CARDS_DEV: the dev photos.
CARDS_DEV ?= ../shared/cards-dev
pi-check: $(STAMP) sysdeps
	$(BIN)/python systemd/pi/pi_check.py --cards-dev $(CARDS_DEV)

clean:
	rm -rf $(VENV) build *.egg-info .mypy_cache .ruff_cache .pytest_cache .hypothesis
