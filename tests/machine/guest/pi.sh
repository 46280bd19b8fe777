#!/bin/sh
# The guest made into a Pi (make-pi.sh), then handed to the control agent (run by vm.py as the
# guest's command; the host drives the rest over /dev/ttyS2).
# Environment: PIBOX_ROOT (the checkout), PIBOX_LGPIO (lgpio's directory).
set -eu
. "$(dirname "$0")/make-pi.sh"

export GPIOZERO_PIN_FACTORY=lgpio PYTHONPATH=${PIBOX_LGPIO:?} HOME=/root
exec "$ROOT/.venv/bin/python" "$ROOT/tests/machine/guest/agent.py" /dev/ttyS2
