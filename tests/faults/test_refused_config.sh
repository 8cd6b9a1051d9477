#!/bin/sh
# gate_wait_s in metaschedd.conf (doc/metaschedd.conf.5): whole seconds 0
# to 3600; anything else is refused naming file:line and the value; a good
# value passes -t. TAP output.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
trap 'rm -rf "$dtmp"' EXIT # no job of its own: none to cancel
tap_plan 5

refused () { # refused VALUE PATTERN
    write_conf "$dtmp/g.conf" "gate_wait_s = $1"
    ln=$(grep -n '^gate_wait_s' "$dtmp/g.conf" | cut -d: -f1)
    out=$("$msd" -t -f "$dtmp/g.conf" 2>&1); rc=$?
    printf '%s\n' "$out" | grep -q -- "g.conf:$ln: gate_wait_s: $2"
    tap_ok "$([ $? = 0 ] && [ $rc = 1 ] && echo 0 || echo 1)" "gate_wait_s = $1 is refused with file:line (rc $rc: $out)"
}
refused 2.5 "'2.5' is not a whole number of seconds"
refused -1 ""
refused 3601 ""
refused soon ""

write_conf "$dtmp/ok.conf" "gate_wait_s = 0"
out=$("$msd" -t -f "$dtmp/ok.conf" 2>&1); rc=$?
tap_ok "$([ $rc = 0 ] && echo 0 || echo 1)" "gate_wait_s = 0 passes -t (rc $rc: $out)"
exit $tap_failed
