# Helpers for tests that run on a scratch database of the test bed's
# PostgreSQL (owned by ms_daemon like the real one), and optionally a
# private metaschedd on it, so that nothing of the test bed's own database
# or of other tests' daemons is touched. Sourced after tests/tap.sh, with
# $tmp a private folder. The test's EXIT trap calls scratch_cleanup.
ms=$MS_BUILDDIR/metasched/metasched
daemon=${MS_METASCHEDD:-$MS_BUILDDIR/metasched/metaschedd}
daemon_pid=
sock=$tmp/metaschedd.sock

scratch_cleanup () {
    [ -n "$daemon_pid" ] && kill "$daemon_pid" 2>/dev/null && wait "$daemon_pid" 2>/dev/null
    [ -n "$db" ] && psql -qX "$MS_PG_SUPER_CONNINFO" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1
    rm -rf "$tmp"
}

# scratch_db NAME [sync]: create database NAME, migrate it (and load the
# test bed's clusters.conf with sync); sets $db and $dbc. A database that
# cannot be created skips the test; one that cannot be prepared fails it.
scratch_db () {
    db=$1
    dbc="$MS_PG_CONNINFO dbname=$db"
    psql -qX "$MS_PG_SUPER_CONNINFO" -c "CREATE DATABASE $db OWNER ms_daemon" >"$tmp/log" 2>&1 \
        || tap_skip_all "cannot create a scratch database: $(cat "$tmp/log")"
    if ! "$ms" db -d "$dbc" migrate >"$tmp/log" 2>&1 \
        || { [ "$2" = sync ] && ! "$ms" db -d "$dbc" sync "$MS_CLUSTERS_CONF" >>"$tmp/log" 2>&1; }; then
        echo "1..1"
        echo "not ok 1 - prepare the scratch database: $(cat "$tmp/log")"
        exit 1
    fi
}

# scratch_daemon_conf: metaschedd.conf for a private daemon on $dbc, root
# its only admin, its socket $sock; to stdout.
scratch_daemon_conf () {
    cat <<EOC
[daemon]
clusters_conf   = $MS_CLUSTERS_CONF
database        = $dbc
socket          = $sock
munge_socket    = $MS_MUNGE_SOCKET
admins          = root
cycle_s         = 5
collect_wrapper = $MS_BUILDDIR/collectors/metasched-collect
api_server_for_jobs = unix:$sock
log             = stderr
tag_key_file    = $tmp/tag.key
EOC
}

# scratch_daemon_start N NPLAN: start metaschedd on $tmp/metaschedd.conf
# and wait (up to 60 s) for its socket; if it does not come, check N fails
# with its log and checks N+1..NPLAN are skipped.
scratch_daemon_start () {
    "$daemon" --config "$tmp/metaschedd.conf" --foreground >"$tmp/daemon.log" 2>&1 &
    daemon_pid=$!
    for i in $(seq 1 600); do
        [ -S "$sock" ] && break
        kill -0 "$daemon_pid" 2>/dev/null || break
        sleep 0.1
    done
    if [ ! -S "$sock" ]; then
        why="metaschedd did not start: $(tail -3 "$tmp/daemon.log" | tr '\n' ' ')"
        echo "not ok $1 - $why"
        for n in $(seq $(($1 + 1)) "$2"); do echo "ok $n # SKIP $why"; done
        exit 1
    fi
}

ok () { [ "$@" ] && echo 0 || echo 1; }
# as USER ARGS...: `metasched ARGS` as USER against the private daemon
as () {
    u=$1
    shift
    runuser -u "$u" -- env METASCHED_SERVER="unix:$sock" \
        METASCHED_MUNGE_SOCKET="$MS_MUNGE_SOCKET" \
        ASAN_OPTIONS="${ASAN_OPTIONS:-}" UBSAN_OPTIONS="${UBSAN_OPTIONS:-}" \
        "$ms" "$@"
}
# one TEXT: on one line (for a TAP description)
one () { printf '%s' "$*" | tr '\n' ' '; }
# value KEY: the value of KEY in `metasched config` text output ($out)
value () { printf '%s\n' "$out" | sed -n "s/^$1 *= //p"; }
