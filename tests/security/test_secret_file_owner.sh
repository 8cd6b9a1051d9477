#!/bin/sh
# Secret files that another user could have written or can read, or that
# are reached through a link, are refused, and the error names the file
# and what is wrong (doc/admin-guide.md 7, metaschedd.conf(5)):
#   - a cluster's token_file owned by another user (mode 0600), of mode
#     0640, a symbolic link to a good token, a FIFO;
#   - the daemon's password_file owned by another user;
#   - a passfile named in the database conninfo owned by another user;
# each checked by `metaschedd -t` (the configuration and the endpoints),
# against good copies of the same files, which pass. TAP output.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
trap daemon_cleanup EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
tap_plan 8
u=$MS_TEST_USER
first=${MS_CLUSTERS%% *}
tok=$(getv "MS_$(upper "$first")_TOKEN_FILE")
pgpass=$(printf '%s\n' "$MS_PG_CONNINFO" | sed -n 's/.*passfile=\([^ ]*\).*/\1/p')
[ -r "$tok" ] && [ -r "$pgpass" ] || tap_skip_all "no token or passfile of the test bed"
s=$dtmp/secrets
mkdir -m 700 "$s"

# check CONF_LINES...: metaschedd -t with a clusters.conf whose first
# cluster's token_file is $s/token; out: its output, rc: its status
clusters=$dtmp/clusters.conf
awk -v f="$s/token" 'done || !/^token_file/ { print; next } { print "token_file = " f; done = 1 }' \
    "$MS_CLUSTERS_CONF" > "$clusters"
check () {
    DAEMON_CLUSTERS_CONF=$clusters write_conf "$dtmp/t.conf" "$@"
    out=$(ASAN_OPTIONS=detect_leaks=0 "$msd" -t -f "$dtmp/t.conf" 2>&1)
    rc=$?
}
good_token () { rm -f "$s/token"; install -m 600 -o root "$tok" "$s/token"; }
# refused WHAT WORDS: the check failed and its message names $s/... and WORDS
refused () {
    [ "$rc" != 0 ] && case $out in *"$1"*"$2"*) true ;; *) false ;; esac
}

good_token
check
tap_ok "$rc" "good copies (root's, 0600) pass ($(printf '%s' "$out" | tail -1))"

good_token; chown "$u" "$s/token"
check
refused "$s/token" "owned by"
tap_ok $? "token_file owned by $u (mode 0600): refused, naming it (rc $rc: $out)"

good_token; chmod 640 "$s/token"
check
refused "$s/token" "0640"
tap_ok $? "token_file of mode 0640: refused, naming it (rc $rc: $out)"

good_token; mv "$s/token" "$s/token.real"; ln -s "$s/token.real" "$s/token"
check
refused "$s/token" "symbolic link"
tap_ok $? "token_file a symbolic link to a good token: refused, naming it (rc $rc: $out)"

rm -f "$s/token" "$s/token.real"; mkfifo -m 600 "$s/token"
check
refused "$s/token" "not a regular file"
tap_ok $? "token_file a FIFO: refused at once, naming it (rc $rc: $out)"

good_token
pw=$(awk -F: '$4 == "ms_daemon" { print $5; exit }' "$pgpass")
printf '%s\n' "$pw" > "$s/db.password"; chmod 600 "$s/db.password"; chown "$u" "$s/db.password"
check "password_file = $s/db.password"
refused "$s/db.password" "owned by"
tap_ok $? "password_file owned by $u: refused, naming it (rc $rc: $out)"

install -m 600 -o root "$pgpass" "$s/pgpass"; chown "$u" "$s/pgpass"
ci=$(printf '%s\n' "$MS_PG_CONNINFO" | sed "s|passfile=[^ ]*|passfile=$s/pgpass|")
ci_was=$MS_PG_CONNINFO; MS_PG_CONNINFO=$ci
check
refused "$s/pgpass" "owned by"
tap_ok $? "passfile in the conninfo owned by $u: refused, naming it (rc $rc: $out)"

chown root "$s/pgpass"; chown root "$s/db.password"
check "password_file = $s/db.password"
MS_PG_CONNINFO=$ci_was
tap_ok "$rc" "the same files owned by root pass ($(printf '%s' "$out" | tail -1))"
exit $tap_failed
