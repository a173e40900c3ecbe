# A throwaway PostgreSQL cluster for the store's conformance suite, sourced by .ci/run.
# `start_postgres` installs PostgreSQL from the distribution's packages when it is missing, makes a
# cluster in a temporary directory owned by an unprivileged user, starts it on 127.0.0.1 at a free
# port with its socket in that directory, creates a database and exports OMEN_TEST_POSTGRES_URL.
# `stop_postgres` stops it and removes the directory. Nothing outside the directory is touched.

postgres_bin() {
    local dir
    for dir in /usr/lib/postgresql/*/bin; do
        if [ -x "$dir/initdb" ]; then echo "$dir"; return 0; fi
    done
    command -v initdb >/dev/null 2>&1 && dirname "$(command -v initdb)"
}

start_postgres() {
    local bin sudo="" run=() port
    if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then sudo="sudo"; fi
    bin=$(postgres_bin || true)
    if [ -z "$bin" ] && command -v apt-get >/dev/null 2>&1; then
        $sudo apt-get update
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends postgresql
        bin=$(postgres_bin || true)
    fi
    if [ -z "$bin" ]; then
        echo "PostgreSQL is not installed and could not be: the PostgreSQL backend will be SKIPPED" >&2
        return 0
    fi
    OMEN_PG_DIR=$(mktemp -d "${TMPDIR:-/tmp}/omen-pg.XXXXXX")
    if [ "$(id -u)" -eq 0 ]; then
        # PostgreSQL refuses to run as root: the cluster belongs to an unprivileged user.
        local user=postgres
        id "$user" >/dev/null 2>&1 || user=nobody
        chown "$user" "$OMEN_PG_DIR"
        run=(runuser -u "$user" --)
    fi
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    "${run[@]}" "$bin/initdb" -D "$OMEN_PG_DIR/data" -A trust -U omen --no-locale -E UTF8 >/dev/null
    "${run[@]}" "$bin/pg_ctl" -D "$OMEN_PG_DIR/data" -l "$OMEN_PG_DIR/log" -w \
        -o "-k $OMEN_PG_DIR -p $port -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300" start >/dev/null
    OMEN_PG_STOP=("${run[@]}" "$bin/pg_ctl" -D "$OMEN_PG_DIR/data" -m fast stop)
    "${run[@]}" "$bin/createdb" -h 127.0.0.1 -p "$port" -U omen omen_test
    export OMEN_TEST_POSTGRES_URL="postgres://omen@127.0.0.1:$port/omen_test"
    echo "PostgreSQL for the conformance suite: $OMEN_TEST_POSTGRES_URL" >&2
}

stop_postgres() {
    if [ -n "${OMEN_PG_DIR:-}" ]; then
        "${OMEN_PG_STOP[@]}" >/dev/null 2>&1 || true
        rm -rf "$OMEN_PG_DIR"
        OMEN_PG_DIR=""
    fi
}
