# Everything a newcomer needs, on a fresh Debian / Raspberry Pi OS machine (trixie or bookworm).
#   make demo         - install what is needed and run the companion in demo mode (no Pi needed)
#   make test         - install what is needed and run the full test suite
#   make lock         - refresh the pinned versions in requirements/ (an upgrade is a commit)
#   make test-latest  - the suite in a scratch venv of the newest releases (what `make lock` would bring)
#   make pibox        - only the machine tier: the companion in a real kernel under QEMU (tests/machine)
#   make pibox-bench  - its benchmark: edge to audible, the companion against the bare floor
#   make enclosure    - the printed Question Block: every part to STL (hardware/enclosure/build)
#                       and its PNG previews (hardware/enclosure/previews), with Debian's openscad
# apt packages are installed when we are root or have sudo; otherwise we say what is missing.
# Python packages come from the lock (requirements/*.txt, exact versions with hashes), except
# PyICU and lgpio, which come from Debian (systemd/debian-modules.sh says why).

# Debian's own Python: the one Debian's python3-icu and python3-lgpio are built for.
PYTHON ?= $(if $(wildcard /usr/bin/python3),/usr/bin/python3,python3)
VENV ?= .venv
BIN := $(VENV)/bin
# libglib2.0 is needed by SDL's audio in pygame's wheel; Debian trixie renamed it (64-bit time_t).
CODENAME := $(shell . /etc/os-release 2>/dev/null; echo $$VERSION_CODENAME)
GLIB := $(if $(filter bullseye bookworm,$(CODENAME)),libglib2.0-0,libglib2.0-0t64)
APT_PACKAGES := gcc python3-dev python3-venv libasound2-dev alsa-utils $(GLIB) python3-icu espeak-ng
# The machine tier (tests/machine, on x86-64): QEMU, a static busybox for its initramfs, kmod and
# xz for the kernel's modules, swig to build lgpio for a Python that PyPI has no wheel for, and
# systemd to boot as the guest's PID 1.
PIBOX_PACKAGES := $(if $(filter x86_64,$(shell uname -m)),qemu-system-x86 busybox-static kmod xz-utils swig systemd)
# The tests also drive Debian's Chromium (through Playwright; never `playwright install`), check
# the first-boot user-data with Debian's cloud-init, and fail an ext4 "SD card" on a loop device
# (e2fsprogs: mkfs.ext4 and e2fsck, no longer in a minimal Debian), and talk to a real MQTT
# broker (Debian's mosquitto, started by the tests on 127.0.0.1; its own service is not used),
# over TLS too (openssl makes the tests' own CA and broker certificate).
# The enclosure's tests render it with Debian's openscad (its previews need an X server, xvfb,
# and Mesa's software OpenGL).
ENCLOSURE_PACKAGES := openscad xvfb xauth libgl1-mesa-dri
APT_TEST_PACKAGES := chromium systemd cloud-init e2fsprogs mosquitto openssl \
	$(ENCLOSURE_PACKAGES) $(PIBOX_PACKAGES)
APT_WANT ?= $(APT_PACKAGES)
# Installed where apt knows it (Raspberry Pi OS): gpiozero's pin library, for `make run` on a Pi.
APT_MAYBE := python3-lgpio
LOCK ?= requirements/test.txt
STAMP := $(VENV)/.installed
PIP := $(BIN)/pip --disable-pip-version-check
# uv only writes the lock (make lock); pip installs it everywhere, the Pi included.
UV_VERSION := 0.13.9
UV_COMPILE := uv pip compile pyproject.toml --universal --python-version 3.11 --generate-hashes \
	--no-emit-package pyicu --quiet --custom-compile-command "make lock"

.PHONY: setup apt demo run test test-latest pibox pibox-bench enclosure lock lint bench sounds \
	catalogs clean

setup: $(STAMP)

apt:
	@missing=""; for p in $(APT_WANT); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	for p in $(APT_MAYBE); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || \
	    { apt-cache show $$p >/dev/null 2>&1 && missing="$$missing $$p"; }; \
	done; \
	if [ -z "$$missing" ]; then echo "apt: all packages present"; exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then SUDO=""; elif command -v sudo >/dev/null; then SUDO=sudo; \
	else echo "apt: please install:$$missing (need root or sudo)"; exit 1; fi; \
	echo "apt: installing$$missing"; \
	$$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	$$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing

# A venv made anew (--clear: nothing of an older lock stays), the lock, then the project itself
# with no further downloads; `pip check` proves the lock whole.
$(STAMP): pyproject.toml requirements/build.txt $(LOCK) | apt
	$(PYTHON) -m venv --clear $(VENV)
	sh systemd/debian-modules.sh $(VENV)
	$(PIP) install -q --require-hashes --no-deps -r requirements/build.txt
	$(PIP) install -q --require-hashes --no-deps --no-build-isolation -r $(LOCK)
	$(PIP) install -q --no-deps --no-build-isolation -e .
	$(PIP) check
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

# The machine tier alone (it is also part of `make test`); the kernel is cached in
# ~/.cache/companion/pibox (PIBOX_CACHE).
pibox:
	@$(MAKE) --no-print-directory apt APT_WANT="$(APT_PACKAGES) $(PIBOX_PACKAGES)"
	@$(MAKE) --no-print-directory setup
	$(BIN)/python -m pytest tests/machine

PIBOX_BENCH ?= --mode icount --presses 100 --hog
pibox-bench:
	@$(MAKE) --no-print-directory apt APT_WANT="$(APT_PACKAGES) $(PIBOX_PACKAGES)"
	@$(MAKE) --no-print-directory setup
	$(BIN)/python -m tests.machine.bench $(PIBOX_BENCH)

# The printed block: each part of each parameter set (hardware/enclosure/question_block.json).
enclosure:
	@$(MAKE) --no-print-directory apt APT_WANT="$(ENCLOSURE_PACKAGES)"
	$(PYTHON) hardware/enclosure/render.py

# The newest release of everything (within pyproject.toml's ranges) in a scratch venv: what
# `make lock` would bring, tried before it is committed.
test-latest:
	@$(MAKE) --no-print-directory apt APT_WANT="$(APT_PACKAGES) $(APT_TEST_PACKAGES)"
	$(PYTHON) -m venv --clear .venv-latest
	sh systemd/debian-modules.sh .venv-latest
	.venv-latest/bin/pip install -q --upgrade pip setuptools wheel
	.venv-latest/bin/pip install -q --upgrade -e '.[test]'
	.venv-latest/bin/pip list --format=freeze
	.venv-latest/bin/ruff check .
	.venv-latest/bin/python -m pytest

# Refresh the lock from pyproject.toml's ranges (newest releases), for Python 3.11 to 3.13 on
# any platform; the test lock keeps the runtime lock's versions.
lock:
	[ -x .venv-tools/bin/uv ] || { $(PYTHON) -m venv .venv-tools && \
	  .venv-tools/bin/pip install -q uv==$(UV_VERSION); }
	PATH="$(CURDIR)/.venv-tools/bin:$$PATH" $(UV_COMPILE) --upgrade -o requirements/runtime.txt
	PATH="$(CURDIR)/.venv-tools/bin:$$PATH" $(UV_COMPILE) --upgrade --extra test \
	  -c requirements/runtime.txt -o requirements/test.txt
	printf 'pip\nsetuptools\nwheel\n' | PATH="$(CURDIR)/.venv-tools/bin:$$PATH" \
	  uv pip compile - --upgrade --universal --python-version 3.11 --generate-hashes --quiet \
	  --custom-compile-command "make lock" -c requirements/runtime.txt -o requirements/build.txt

lint: setup
	$(BIN)/ruff check .

bench: setup
	$(BIN)/companion bench --json

sounds: setup
	$(BIN)/python -m companion.builtin_sounds.generate

catalogs: setup
	$(BIN)/python -m companion.i18n.extract

clean:
	rm -rf $(VENV) .venv-latest .venv-tools build *.egg-info .pytest_cache .ruff_cache .hypothesis
