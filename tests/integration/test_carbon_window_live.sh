#!/bin/sh
# The grid's carbon signals under policy = metasched_window in metaschedd
# on the test bed: each cluster draws from a zone of its own (clusters.conf
# zone), each zone's signal a CSV file in steps of a minute. With
# w_carbon 1 a batch decided by the window sends a job's first copy to
# the one clean zone's cluster (Z2 clean: the second cluster; then Z3
# clean: the third), and its decision row names the window and shows the
# candidates' carbon; a job with --deadline now+15 min and a 1-minute
# limit, every zone dirty now and clean from three minutes on, goes out
# held for the clean step (Slurm's EligibleTime after its SubmitTime, the
# decision's shift_s > 0) while a job without a deadline is not held.
# TAP.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
[ -x "$msbatch" ] || tap_skip_all "$msbatch not built"
command -v curl >/dev/null || tap_skip_all "curl not installed"
command -v python3 >/dev/null || tap_skip_all "python3 not installed"
id "$MS_TEST_USER" >/dev/null 2>&1 || tap_skip_all "no user $MS_TEST_USER"
restore=
cw_cleanup () {
    [ -z "$restore" ] || cfg set $restore >/dev/null 2>&1
    daemon_cleanup
}
trap cw_cleanup EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
daemon_lock
tap_plan 6

log=$dtmp/msd.log
u=$MS_TEST_USER
d=$(job_dir "$u")
set -- $(sed -n 's/^\[cluster \(.*\)\]$/\1/p' "$MS_CLUSTERS_CONF")
[ $# -ge 3 ] || tap_skip_all "the test bed has fewer than three clusters"
c1=$1 c2=$2 c3=$3

# each cluster in a zone of its own: Z1, Z2, Z3
awk '{ print } /^\[cluster / { z++; print "zone = Z" z }' "$MS_CLUSTERS_CONF" >"$dtmp/clusters.conf"
DAEMON_CLUSTERS_CONF=$dtmp/clusters.conf

# sig FILE G_NOW G_LATER CLEAN: steps of a minute from 10 minutes ago, for
# an hour: G_NOW before the step at CLEAN (epoch s), G_LATER from it on
iso () { date -u -d "@$1" +%Y-%m-%dT%H:%M:%SZ; }
sig () {
    t0=$(( $(date +%s) / 60 * 60 - 600 ))
    { echo "time_utc,gco2eq_per_kwh,price_per_mwh"
      k=0; while [ $k -lt 70 ]; do
          t=$((t0 + 60 * k)); g=$2; [ $t -ge $4 ] && g=$3
          echo "$(iso $t),$g,90"; k=$((k + 1))
      done; } >"$1.new" && mv "$1.new" "$1"
}
metric () { # metric NAME ZONE
    curl -s --unix-socket "$dtmp/msd.sock" http://localhost/metrics |
        sed -n "s/^$1{zone=\"$2\"} //p"
}
is_now () { [ "$(metric metaschedd_carbon_intensity "$1")" = "$2" ]; }
# zones G1 G2 G3: each zone's intensity now and later, read by the daemon
zones () {
    sig "$dtmp/z1.csv" "$1" "$1" 0
    sig "$dtmp/z2.csv" "$2" "$2" 0
    sig "$dtmp/z3.csv" "$3" "$3" 0
    wait_for 60 is_now Z1 "$1.000" && wait_for 60 is_now Z2 "$2.000" &&
        wait_for 60 is_now Z3 "$3.000" && daemon_cycles 2
}
state () { q "SELECT state FROM jobs WHERE id = ${1:-0}"; }
st_in () { case " $2 " in *" $(state "$1") "*) return 0 ;; esac; return 1; }
decided_by () { q "SELECT policy FROM decisions WHERE job_id = ${1:-0} ORDER BY id DESC LIMIT 1"; }
has_decision () { [ -n "$(decided_by "$1")" ]; }
# chosen_field ID FIELD: FIELD of the chosen candidate in the job's decision
chosen_field () {
    q "SELECT candidates FROM decisions WHERE job_id = ${1:-0} ORDER BY id DESC LIMIT 1" |
        python3 -c 'import json, sys; c = [x for x in json.load(sys.stdin) if x.get("chosen")]; v = c[0].get(sys.argv[1]) if c else None; print("null" if v is None else v)' "$2" 2>/dev/null
}

sig "$dtmp/z1.csv" 900 900 0
sig "$dtmp/z2.csv" 900 900 0
sig "$dtmp/z3.csv" 900 900 0
daemon_lead "carbon_signal = Z1=$dtmp/z1.csv, Z2=$dtmp/z2.csv, Z3=$dtmp/z3.csv"
restore=$(settings_now policy w_carbon)
[ -n "$restore" ] || restore="policy=metasched w_carbon=0"
cfg set policy=metasched_window w_carbon=1 >/dev/null 2>&1

# 1: a cycle decides by the window (the setting is read when a cycle
# begins): probe jobs until one is decided by metasched_window
probes= applied=no
for p in 1 2 3 4 5; do
    msb_sleep "$u" "$d" cw-probe 1
    [ -n "$job_id" ] || break
    probes="$probes $job_id"
    wait_for 60 has_decision "$job_id"
    case $(decided_by "$job_id") in metasched_window*) applied=yes; break ;; esac
done
tap_ok "$(ok_if [ $applied = yes ])" "metasched_window with w_carbon 1 decides (probe jobs$probes: $(decided_by "${job_id:-0}"))"

# 2, 3: the one clean zone's cluster takes the job's first copy
# zone_job CLUSTER: a job decided by the window goes first to CLUSTER
zone_job () {
    msb_sleep "$u" "$d" cw-move 1
    zj=$job_id
    wait_for 90 st_in "$zj" "submitted running completed"
    zw=$(copies_where "$zj")
    zp=$(decided_by "$zj")
    zg=$(chosen_field "$zj" carbon_g)
    case $zp in metasched_window*) ;; *) return 1 ;; esac
    [ "$zg" != null ] || return 1
    case $zw in "$1/"*) return 0 ;; esac
    return 1
}
zones 900 20 900
zone_job "$c2"
tap_ok $? "Z2 clean: the window sends job $zj to $c2 first ($zw; decided by $zp; its carbon $zg g)"
zones 900 900 20
zone_job "$c3"
tap_ok $? "Z3 clean: the window sends job $zj to $c3 first ($zw; decided by $zp; its carbon $zg g)"

# 4, 5, 6: every zone dirty now, clean from the step three minutes on: a
# deadline job goes out held for the clean step, one without is not
clean=$(( $(date +%s) / 60 * 60 + 180 ))
sig "$dtmp/z1.csv" 900 50 "$clean"
sig "$dtmp/z2.csv" 900 50 "$clean"
sig "$dtmp/z3.csv" 900 50 "$clean"
wait_for 60 is_now Z1 900.000 && daemon_cycles 2
msb_sleep "$u" "$d" cw-dl 1 "--deadline=now+15minutes"
dl=$job_id
msb_sleep "$u" "$d" cw-now 1
now_job=$job_id
wait_for 90 st_in "$dl" "submitted running completed"
wait_for 90 st_in "$now_job" "submitted running completed"
set -- $(copy_of "${dl:-0}" 0)
dl_cl=${1:-} dl_cj=${2:-}
set -- $(copy_of "${now_job:-0}" 0)
now_cl=${1:-} now_cj=${2:-}
case $(decided_by "$dl") in metasched_window*) true ;; *) false ;; esac
tap_ok $? "the deadline job $dl is decided by the window ($(decided_by "$dl"))"
shift_s=$(chosen_field "$dl" shift_s)
[ -n "$dl_cj" ] && held "$dl_cl" "$dl_cj" &&
    awk -v s="$shift_s" 'BEGIN { exit !(s + 0 > 0) }'
tap_ok $? "it goes out held for the clean step ($dl_cl job $dl_cj: $(jtimes "$dl_cl" "$dl_cj"); decision's shift $shift_s s)"
[ -n "$now_cj" ] && ! held "$now_cl" "$now_cj"
tap_ok $? "a job without a deadline is not held (job $now_job, $now_cl job $now_cj: $(jtimes "$now_cl" "$now_cj"))"

exit $tap_failed
