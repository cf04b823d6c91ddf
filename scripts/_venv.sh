# Sourced by scripts/serve, scripts/test and scripts/telephony: make .venv and install the project when it is
# missing (pinned by scripts/constraints.txt), put .venv/bin first on PATH and change to the repository root.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"
STAMP="$VENV/.installed-$(cat "$ROOT/pyproject.toml" "$ROOT/scripts/constraints.txt" | sha256sum | cut -c1-16)"
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
fi
if [ ! -f "$STAMP" ]; then
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -c "$ROOT/scripts/constraints.txt" --upgrade pip
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -c "$ROOT/scripts/constraints.txt" -e "$ROOT[dev]"
  rm -f "$VENV"/.installed-*
  touch "$STAMP"
fi
# The package's bytecode, written once and again only for changed modules: the server starts without
# compiling its sources (an editable install is not compiled, and PYTHONDONTWRITEBYTECODE may be set).
"$VENV/bin/python" -m compileall -q "$ROOT/telephony" >/dev/null
export PATH="$VENV/bin:$PATH"
cd "$ROOT"
