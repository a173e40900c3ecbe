#!/usr/bin/env bash
# Schemathesis against a real `omen serve`: every operation of the OpenAPI document, with all its
# checks, so the document stays exactly as strict as the server (a request the document accepts is
# not refused as malformed, one it refuses is not accepted) and no answer breaks its documented
# schema. Runs alone (`.ci/schemathesis.sh`) or from `.ci/run`; about four minutes on a warm build.
set -euo pipefail
cd "$(dirname "$0")/.."

# Schemathesis lives in its own virtualenv under target/, kept between runs.
venv="$(pwd)/${SCHEMATHESIS_VENV:-target/schemathesis-venv}"
if [ ! -x "$venv/bin/schemathesis" ]; then
    # Debian's python3 makes virtualenvs only with python3-venv (ensurepip) installed.
    if ! python3 -c 'import ensurepip' 2>/dev/null && command -v apt-get >/dev/null 2>&1; then
        sudo=""
        if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
        $sudo apt-get update
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends python3-venv
    fi
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet 'schemathesis>=4,<5'
fi

# The binary the tests use (the dev profile).
cargo build -p omen-cli --locked
work="$(mktemp -d)"
server=""
stop() {
    if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap stop EXIT

# A fresh database, a free port (printed by the server), and no rate limit: the fuzzer sends
# thousands of requests from one address, and 429s would leave the operations behind them untested.
"${CARGO_TARGET_DIR:-target}/debug/omen" serve --bind 127.0.0.1:0 --db "$work/omen.db" --rate-limit 0 >"$work/log" 2>&1 &
server=$!
base=""
for _ in $(seq 100); do
    base="$(sed -n 's|^omen serve: listening on \(http://[0-9.:]*\)/.*|\1|p' "$work/log")"
    if [ -n "$base" ]; then break; fi
    sleep 0.1
done
if [ -z "$base" ]; then
    cat "$work/log" >&2
    echo "schemathesis.sh: the server did not start" >&2
    exit 1
fi

# A game master's token, so the authenticated routes are tested beyond their 401.
token="$(python3 - "$base" <<'PY'
import json, sys, urllib.request
request = urllib.request.Request(
    sys.argv[1] + "/api/v1/campaigns",
    data=json.dumps({"name": "fuzzed"}).encode(),
    headers={"content-type": "application/json"},
    method="POST",
)
print(json.load(urllib.request.urlopen(request))["game_master"]["token"])
PY
)"

# The configuration (.ci/schemathesis.toml) says which answers count as a refusal and why.
# Run from target/, where Schemathesis keeps its cache of failures to replay (.schemathesis/).
root="$(pwd)"
cd target
"$venv/bin/schemathesis" --config-file "$root/.ci/schemathesis.toml" run "$base/api/v1/openapi.json" \
    --url "$base" \
    --checks all \
    --max-examples "${SCHEMATHESIS_MAX_EXAMPLES:-25}" \
    --seed "${SCHEMATHESIS_SEED:-1}" \
    --generation-database none \
    --header "Authorization: Bearer $token"
