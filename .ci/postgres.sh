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

# Writes ca.crt, server.crt and server.key (readable by their owner only) into DIR.
postgres_certificates() {
    local dir="$1"
    mkdir -p "$dir" && chmod 700 "$dir"
    (
        cd "$dir" &&
        openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=omen test CA" \
            -keyout ca.key -out ca.crt &&
        openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" \
            -keyout server.key -out server.csr &&
        printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n' >ext &&
        openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 \
            -extfile ext -out server.crt &&
        chmod 600 server.key ca.key && chmod 644 ca.crt server.crt
    ) >/dev/null 2>&1
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
    # TLS, so the store's tests can connect with sslmode=verify-full: a certificate authority and
    # a server certificate for localhost/127.0.0.1 it signs, made here with the openssl CLI. Plain
    # connections stay allowed.
    local tls=()
    if command -v openssl >/dev/null 2>&1 && postgres_certificates "$OMEN_PG_DIR/tls"; then
        [ "$(id -u)" -eq 0 ] && chown -R "$user" "$OMEN_PG_DIR/tls"
        tls=(-c ssl=on -c "ssl_cert_file=$OMEN_PG_DIR/tls/server.crt" -c "ssl_key_file=$OMEN_PG_DIR/tls/server.key")
        export OMEN_TEST_POSTGRES_CA="$OMEN_PG_DIR/tls/ca.crt"
    fi
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    "${run[@]}" "$bin/initdb" -D "$OMEN_PG_DIR/data" -A trust -U omen --no-locale -E UTF8 >/dev/null
    "${run[@]}" "$bin/pg_ctl" -D "$OMEN_PG_DIR/data" -l "$OMEN_PG_DIR/log" -w \
        -o "-k $OMEN_PG_DIR -p $port -c listen_addresses=127.0.0.1 -c fsync=${OMEN_PG_FSYNC:-off} -c max_connections=300 ${tls[*]}" start >/dev/null
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
