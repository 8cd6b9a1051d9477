#!/bin/sh
# `metasched config` against a real metaschedd on the test bed: root (an
# admin by the daemon's configuration) shows and sets the settings; an
# ordinary user may look but is refused (403) when changing them; a bad
# value is refused naming its key and changes nothing. The daemon runs with
# a private socket on a scratch database, so the settings of the test bed's
# own database (and of other tests' daemons) are never touched. TAP.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
[ -x "${MS_METASCHEDD:-$MS_BUILDDIR/metasched/metaschedd}" ] \
    || tap_skip_all "metaschedd is not built (${MS_METASCHEDD:-$MS_BUILDDIR/metasched/metaschedd})"
[ "$(id -u)" = 0 ] || tap_skip_all "needs root (an admin) and $MS_TEST_USER (not one)"
id "$MS_TEST_USER" >/dev/null 2>&1 || tap_skip_all "no user $MS_TEST_USER"
command -v psql >/dev/null || tap_skip_all "psql not installed (postgresql-client-15)"

tmp=$(mktemp -d /tmp/ms-test-config.XXXXXX)
chmod 755 "$tmp"
. "${MS_SRCDIR:-.}/tests/integration/scratch_lib.sh"
trap scratch_cleanup EXIT
scratch_db ms_test_config_$$ sync

tap_plan 14

scratch_daemon_conf >"$tmp/metaschedd.conf"

# no daemon yet: the client says where it looked
out=$(METASCHED_SERVER="unix:$sock" METASCHED_MUNGE_SOCKET="$MS_MUNGE_SOCKET" "$ms" config 2>&1); rc=$?
tap_ok "$(ok "$rc" = 1 -a -n "$(printf '%s' "$out" | grep "not reachable at unix:$sock")")" \
    "no daemon: config names the address it tried (rc $rc: $(one "$out"))"

scratch_daemon_start 2 14
tap_ok 0 "metaschedd serves its socket"

out=$(as root config 2>&1); rc=$?
tap_ok "$(ok "$rc" = 0 -a "$(value w_energy)" = 0.5 -a "$(value dispatch_mode)" = single)" \
    "an admin sees the defaults of doc/api.md (rc $rc: $(one "$out"))"

out=$(as "$MS_TEST_USER" config show 2>&1); rc=$?
tap_ok "$(ok "$rc" = 0 -a "$(value max_slowdown)" = 1.3)" "an ordinary user may look (rc $rc)"

out=$(as root config set w_energy=0.7 max_slowdown=1.2 policy=metasched \
      dispatch_mode=siblings siblings=2 exploration=0.05 \
      power_cap_w.alpha.batch=20000 priority_boost=no 2>&1); rc=$?
tap_ok "$(ok "$rc" = 0 -a "$(value w_energy)" = 0.7 -a "$(value max_slowdown)" = 1.2 \
        -a "$(value dispatch_mode)" = siblings -a "$(value siblings)" = 2 \
        -a "$(value exploration)" = 0.05 -a "$(value priority_boost)" = false)" \
    "an admin sets eight values at once and sees the result (rc $rc: $(one "$out"))"

out=$(as root config --json 2>&1); rc=$?
r=$(printf '%s\n' "$out" | tr -d ' \n')
tap_ok "$(ok "$rc" = 0 -a -n "$(printf '%s' "$r" | grep '"w_energy":0.7[,}]')" \
        -a -n "$(printf '%s' "$r" | grep '"power_cap_w.alpha.batch":20000')")" \
    "--json: a later call reads the stored values, the power cap included (rc $rc: $(one "$r"))"

who=$(psql -qAtX "$dbc" -c "SELECT updated_by FROM settings WHERE key = 'w_energy'" 2>&1)
tap_ok "$(ok "$who" = root)" "the settings table records who changed them ($who)"

out=$(as "$MS_TEST_USER" config set w_energy=0.1 2>&1); rc=$?
tap_ok "$(ok "$rc" = 1 -a -n "$(printf '%s' "$out" | grep 'only admins change settings' | grep 'HTTP 403')")" \
    "$MS_TEST_USER is refused with 403 and the server's message (rc $rc: $(one "$out"))"
out=$(as root config 2>&1)
tap_ok "$(ok "$(value w_energy)" = 0.7)" "the refused change changed nothing (w_energy $(value w_energy))"

out=$(as root config set w_energy=0.3 max_slowdown=0.5 2>&1); rc=$?
tap_ok "$(ok "$rc" = 1 -a -n "$(printf '%s' "$out" | grep "setting 'max_slowdown'" | grep 'HTTP 400')")" \
    "an out-of-range value is refused naming its key (rc $rc: $(one "$out"))"
out=$(as root config 2>&1)
tap_ok "$(ok "$(value w_energy)" = 0.7 -a "$(value max_slowdown)" = 1.2)" \
    "all or nothing: the good value sent with it was not applied either"

out=$(as root config set siblings=two 2>&1); rc=$?
r1=$(ok "$rc" = 1 -a -n "$(printf '%s' "$out" | grep "setting 'siblings': must be an integer")")
out2=$(as root config set frobnicate=1 2>&1); rc2=$?
r2=$(ok "$rc2" = 1 -a -n "$(printf '%s' "$out2" | grep "frobnicate")")
tap_ok "$(ok "$r1$r2" = 00)" "a wrong type and an unknown key are named ($out / $out2)"

out=$(as root config set w_energy 2>&1); rc=$?
tap_ok "$(ok "$rc" = 2 -a "$out" = "metasched config set: 'w_energy': expected KEY=VALUE")" \
    "a malformed argument is refused before anything is sent (rc $rc: $(one "$out"))"
kill -0 "$daemon_pid" 2>/dev/null
tap_ok "$?" "the daemon is still up after every refusal"
exit $tap_failed
