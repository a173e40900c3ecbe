#!/usr/bin/env bash
# Schemathesis against a real `omen serve`: every operation of the OpenAPI document, with all its
# checks, so the document stays exactly as strict as the server (a request the document accepts is
# not refused as malformed, one it refuses is not accepted) and no answer breaks its documented
# schema. Runs alone (`.ci/schemathesis.sh`) or from `.ci/run`; under two minutes on a warm build.
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

# The binary the tests use, built as `cargo test --workspace` builds it: after the tests in .ci/run
# this is already done, where `cargo build -p omen-cli` alone would unify the dependencies' features
# differently and build them all again.
cargo test --workspace --locked --no-run
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

# A campaign to fuzz, seeded so that the routes under it are exercised for real rather than only
# refused: the game master's token, characters (one to edit, one to delete), saved rolls (one to
# delete), an observer's invite to revoke and a blind roll to reveal. The configuration pins the
# path parameters to them (`OMEN_FUZZ_*`).
seed="$(python3 - "$base" <<'PY'
import json, sys, urllib.request
base = sys.argv[1] + "/api/v1/campaigns"
token = None
def call(method, path, body):
    headers = {"content-type": "application/json"}
    if token:
        headers["authorization"] = "Bearer " + token
    request = urllib.request.Request(
        base + path, data=json.dumps(body).encode(), headers=headers, method=method
    )
    answer = urllib.request.urlopen(request).read()
    return json.loads(answer) if answer else None
token = call("POST", "", {"name": "fuzzed"})["game_master"]["token"]
for name in ["Ayla", "Bren", "Doomed"]:
    call("POST", "/fuzzed/characters",
         {"name": name, "rule_set": "luck", "sheet": {"intrinsic": [{"source": "halfling", "value": 2}]}})
for name in ["kept", "doomed"]:
    call("PUT", "/fuzzed/saved/" + name, {"expression": "2d6"})
observer = call("POST", "/fuzzed/invites", {"role": "observer"})["invite"]["id"]
blind = call("POST", "/fuzzed/rolls", {"expression": "3d6", "visibility": "blind"})["entry"]["sequence"]
# Another campaign, whose stream of events the game master's token is refused: a stream of the
# fuzzed campaign would stay open until Schemathesis gave up on it.
call("POST", "", {"name": "elsewhere"})
print(f"OMEN_FUZZ_TOKEN={token} OMEN_FUZZ_INVITE={observer} OMEN_FUZZ_HIDDEN={blind}")
PY
)"
export $seed
token="$OMEN_FUZZ_TOKEN"
export OMEN_FUZZ_INVITE OMEN_FUZZ_HIDDEN

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

# Logging out needs a session cookie and its CSRF token, which the run above (a bearer token) never
# holds, so there it is only refused (401). A second run gives it a session of its own: the first
# request that carries both ends it (204), and every later one is refused because it has ended.
read -r session csrf <<<"$(python3 - "$base" "$token" <<'PY'
import json, sys, urllib.request
base, gm = sys.argv[1], sys.argv[2]
def post(url, body, headers=None):
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(),
        headers={"content-type": "application/json", **(headers or {})}, method="POST",
    )
    return urllib.request.urlopen(request)
invite = json.loads(post(base + "/api/v1/campaigns/fuzzed/invites", {"role": "observer"},
                         {"authorization": "Bearer " + gm}).read())
answer = post(base + "/api/v1/session", {"token": invite["token"]})
session = answer.headers["set-cookie"].split(";")[0].split("=", 1)[1]
print(session, json.loads(answer.read())["csrf"])
PY
)"
# The cookie goes through the document's own `cookie` scheme, so that Schemathesis can also send
# the request without it, or with a wrong one, and see it refused.
cat >"$work/session.toml" <<TOML
[checks.positive_data_acceptance]
expected-statuses = ["2XX", "401", "403", "429", "5XX"]

[auth.openapi.cookie]
api_key = "$session"
TOML
"$venv/bin/schemathesis" --config-file "$work/session.toml" run "$base/api/v1/openapi.json" \
    --url "$base" \
    --checks all \
    --include-name "DELETE /api/v1/session" \
    --max-examples "${SCHEMATHESIS_MAX_EXAMPLES:-25}" \
    --seed "${SCHEMATHESIS_SEED:-1}" \
    --generation-database none \
    --header "X-Omen-CSRF: $csrf"
