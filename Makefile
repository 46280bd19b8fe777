# Everything a newcomer needs, on a fresh Debian / Raspberry Pi OS machine.
#   make demo   - install what is needed and run the companion in demo mode (no Pi needed)
#   make test   - install what is needed and run the full test suite
# apt packages are installed when we are root or have sudo; otherwise we say what is missing.

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# libglib2.0 is needed by pygame's mixer wheel; Debian trixie renamed it (64-bit time_t).
CODENAME := $(shell . /etc/os-release 2>/dev/null; echo $$VERSION_CODENAME)
GLIB := $(if $(filter bullseye bookworm,$(CODENAME)),libglib2.0-0,libglib2.0-0t64)
APT_PACKAGES := gcc python3-dev python3-venv libasound2-dev alsa-utils $(GLIB) g++ pkg-config libicu-dev espeak-ng
# The tests also drive Debian's Chromium (through Playwright; never `playwright install`).
APT_TEST_PACKAGES := chromium systemd
APT_WANT ?= $(APT_PACKAGES)
STAMP := $(VENV)/.installed

.PHONY: setup apt demo run test lint bench sounds catalogs clean

setup: $(STAMP)

apt:
	@missing=""; for p in $(APT_WANT); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then echo "apt: all packages present"; exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then SUDO=""; elif command -v sudo >/dev/null; then SUDO=sudo; \
	else echo "apt: please install:$$missing (need root or sudo)"; exit 1; fi; \
	echo "apt: installing$$missing"; \
	$$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	$$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing

$(STAMP): pyproject.toml | apt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	touch $(STAMP)

demo: setup
	$(BIN)/companion demo

run: setup
	$(BIN)/companion run $(if $(CONFIG),--config $(CONFIG))

test:
	@$(MAKE) --no-print-directory apt APT_WANT="$(APT_PACKAGES) $(APT_TEST_PACKAGES)"
	@$(MAKE) --no-print-directory setup
	$(BIN)/ruff check .
	$(BIN)/python -m pytest

lint: setup
	$(BIN)/ruff check .

bench: setup
	$(BIN)/companion bench --json

sounds: setup
	$(BIN)/python -m companion.builtin_sounds.generate

catalogs: setup
	$(BIN)/python -m companion.i18n.extract

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache .hypothesis
