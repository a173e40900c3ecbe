#!/usr/bin/env bash
# The Python package's tests: builds `omen_dice` into a virtualenv under target/ with pip (the way
# users install it, `pip install ./crates/omen-py`) and runs pytest, cross-checking against the `omen`
# binary that cargo builds and against icepool. Called from .ci/run; runs by hand too.
#
# The extension is built with cargo's dev profile, which optimises the engine (omen-core, omen-lang
# and the big-integer crates, see the workspace's Cargo.toml) and compiles the rest quickest; users'
# installs take the release profile from pyproject.toml.
set -euo pipefail
cd "$(dirname "$0")/../.."

target="${CARGO_TARGET_DIR:-target}"
mkdir -p "$target"
target="$(cd "$target" && pwd)"
venv="$target/omen-py/venv"
python="${PYTHON:-python3}"
# maturin, the build backend, runs from the virtualenv.
export PATH="$venv/bin:$PATH"

if [ ! -x "$venv/bin/python" ]; then
    # Debian's python3 makes virtualenvs only with python3-venv (ensurepip); CI installs it.
    if ! "$python" -c 'import ensurepip' 2>/dev/null && [ -n "${CI:-}" ] \
        && command -v apt-get >/dev/null 2>&1; then
        sudo=""
        if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
        $sudo apt-get update
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends python3-venv
    fi
    if ! "$python" -m venv "$venv"; then
        echo "error: cannot create a virtualenv with $python; on Debian: apt-get install python3-venv" >&2
        exit 2
    fi
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r crates/omen-py/ci-requirements.txt

# The `omen` binary the cross-checks run, built as `cargo test --workspace` builds it, so that after
# the tests in .ci/run this is already done: `cargo build -p omen-cli` alone unifies the
# dependencies' features differently (no other member, no dev-dependencies) and builds them again.
cargo test --workspace --locked --no-run
export OMEN_BIN="$target/debug/omen"

"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-build-isolation \
    --force-reinstall --no-deps --config-settings=build-args="--profile dev" ./crates/omen-py

# From the crate's folder, so that the installed package is tested, not the source folder.
cd crates/omen-py
exec "$venv/bin/python" -m pytest -q tests "$@"
