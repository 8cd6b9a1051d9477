#!/bin/sh
# The spools' drop counts on metaschedd's /metrics (doc/daemon.md, "Spool
# drops"). A node's spool with its cap lowered to 10 files takes 30 job
# ends (the epilog as slurmd runs it) while the collectors' conninfo names
# a local port where nothing listens: 20 rows are dropped and counted on
# the node. Asserted:
# - /metrics shows nothing for the node while the database was away, and
#   metaschedd_spool_dropped_rows_total{cluster="alpha",node=...} 20 (bad
#   0, aged 0, the last drop's time as SPOOL/dropped says) once a flush
#   reaches the database;
# - the same totals reported again (two more flushes), and an older report
#   of lower totals, leave 20: counts never double nor go back;
# - the epilog's own send, the database back, reports its spool's drops
#   without a flush;
# - the collector role can neither read, update nor delete spool_drops,
#   and a report for a cluster the database does not know is refused;
# - a hostile node name (quotes, backslash, a line feed, a line of its
#   own) is escaped: every line of /metrics stays a valid sample of the
#   text format, and no sample is added.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
[ -x "$collect" ] || tap_skip_all "$collect not built"
command -v curl >/dev/null || tap_skip_all "curl not installed"
command -v python3 >/dev/null || tap_skip_all "needs python3 (a free port, the text format's check)"

base=910000000 # job ids of this test
tmp=$(mktemp -d /tmp/ms-spoolm-XXXXXX)
evil=$(printf 'spm"} 1\nmetaschedd_leader{x="\\')
sm_cleanup () {
    psql "$MS_PG_SUPER_CONNINFO" -X -q -c "DELETE FROM job_runs WHERE cluster = 'alpha' AND slurm_job_id BETWEEN $base AND $((base + 99999))" \
        -c "DELETE FROM spool_drops WHERE node LIKE 'spm%'" >/dev/null 2>&1
    rm -rf "$tmp"
    daemon_cleanup
}
trap sm_cleanup EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
daemon_lock
psql "$MS_PG_SUPER_CONNINFO" -X -q -c "DELETE FROM spool_drops WHERE node LIKE 'spm%'" >/dev/null 2>&1
tap_plan 9

log=$dtmp/msd.log
daemon_lead

metrics () { curl -s --unix-socket "$dtmp/msd.sock" http://localhost/metrics 2>/dev/null; }
# metric NAME NODE: the sample's value for cluster alpha and NODE ("" if none)
metric () { metrics | grep -F "$1{cluster=\"alpha\",node=\"$2\"} " | sed 's/.* //'; }
metric_is () { [ "$(metric "$1" "$2")" = "$3" ]; }
collector_sql () { psql "$MS_PG_COLLECTOR_CONNINFO" -X -A -t -q -c "$1" 2>&1; }

refused=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
scontrol=$(slurm_cmd alpha scontrol)
# epilog SPOOL NODE JOBID CONNINFO [--set K=V...]: one job end, as slurmd
# runs it (testbed/hooks/epilog)
epilog () {
    sp=$1 node=$2 id=$3 ci=$4
    shift 4
    SLURM_JOB_ID=$id SLURMD_NODENAME=$node SLURM_CLUSTER_NAME=alpha \
    SLURM_JOB_USER=$MS_TEST_USER SLURM_JOB_PARTITION=batch \
    SLURM_CONF=$MS_ALPHA_CONF ASAN_OPTIONS=detect_leaks=0 \
        "$collect" --config /dev/null --set "spool_dir=$sp" \
        --set "job_dir=$tmp/jobs" --set "powercap_root=$tmp/pc/%n" \
        --set "conninfo=$ci" --set db_retry_ms=0 --set "scontrol=$scontrol" \
        "$@" epilog </dev/null 2>>"$sp.log"
}
down="host=127.0.0.1 port=$refused dbname=metasched user=ms_collector"
flush () {
    ASAN_OPTIONS=detect_leaks=0 "$collect" --config /dev/null --set "spool_dir=$1" \
        --set "conninfo=$MS_PG_COLLECTOR_CONNINFO" flush 2>&1
}
drops () { sed -n "s/^$2=//p" "$1/dropped" 2>/dev/null; }

# 1. 30 ends with the database away, the cap at 10: 20 drops on the node
sp=$tmp/spool1
i=0
while [ $i -lt 30 ]; do
    epilog "$sp" spm1 $((base + i)) "$down" --set spool_max_files=10
    i=$((i + 1))
done
daemon_cycles 2
m=$(metric metaschedd_spool_dropped_rows_total spm1)
[ "$(drops "$sp" rows)" = 20 ] && [ "$(drops "$sp" node)" = spm1 ] && [ -z "$m" ]
tap_ok $? "30 ends with no database and a cap of 10: SPOOL/dropped counts 20 rows of node $(drops "$sp" node); /metrics has no count yet (${m:-none})"

# 2. the database back: a flush reports the totals, /metrics shows them
out=$(flush "$sp"); rc=$?
wait_for 120 metric_is metaschedd_spool_dropped_rows_total spm1 20
r=$?
b=$(metric metaschedd_spool_dropped_bad_total spm1); a=$(metric metaschedd_spool_removed_aged_total spm1)
t=$(metric metaschedd_spool_last_drop_timestamp_seconds spm1)
[ $rc = 0 ] && [ $r = 0 ] && [ "$b" = 0 ] && [ "$a" = 0 ] && [ "$t" = "$(drops "$sp" last).000" ]
tap_ok $? "after a flush (rc $rc: $(printf '%s' "$out" | tail -1)) /metrics shows 20 rows, $b bad, $a aged dropped on alpha/spm1, the last at $t (SPOOL/dropped: $(drops "$sp" last))"

# 3. the same totals reported twice more, and an older report of lower ones
flush "$sp" >/dev/null; flush "$sp" >/dev/null
o=$(collector_sql "SELECT spool_drops_report ('alpha', 'spm1', 5, 0, 0, 1)")
# a marker: once /metrics shows it, the daemon has read the table since
collector_sql "SELECT spool_drops_report ('alpha', 'spm-marker', 0, 1, 0, 0)" >/dev/null
wait_for 120 metric_is metaschedd_spool_dropped_bad_total spm-marker 1
r=$?
m=$(metric metaschedd_spool_dropped_rows_total spm1); t2=$(metric metaschedd_spool_last_drop_timestamp_seconds spm1)
db=$(q "SELECT rows_dropped FROM spool_drops WHERE cluster = 'alpha' AND node = 'spm1'")
[ $r = 0 ] && [ "$m" = 20 ] && [ "$db" = 20 ] && [ "$t2" = "$t" ] && [ -z "$o" ]
tap_ok $? "the same totals reported twice more and lower ones once: still 20 on /metrics ($m) and in the database ($db), the last drop unchanged ($t2)"

# 4. the epilog's own send reports its spool's drops, no flush needed
sp3=$tmp/spool3
i=0
while [ $i -lt 12 ]; do
    epilog "$sp3" spm3 $((base + 1000 + i)) "$down" --set spool_max_files=5
    i=$((i + 1))
done
epilog "$sp3" spm3 $((base + 1012)) "$MS_PG_COLLECTOR_CONNINFO" --set spool_max_files=5
n=$(q "SELECT count (*) FROM job_runs WHERE cluster = 'alpha' AND slurm_job_id = $((base + 1012))")
wait_for 120 metric_is metaschedd_spool_dropped_rows_total spm3 8
r=$?
[ $r = 0 ] && [ "$n" = 1 ] && [ "$(drops "$sp3" rows)" = 8 ]
tap_ok $? "an epilog that reaches the database stores its row ($n) and reports its spool's 8 drops: /metrics shows $(metric metaschedd_spool_dropped_rows_total spm3)"

# 5. the collector role reports, and does nothing else with the table
o1=$(collector_sql "SELECT count (*) FROM spool_drops")
o2=$(collector_sql "UPDATE spool_drops SET rows_dropped = 0")
o3=$(collector_sql "DELETE FROM spool_drops")
o4=$(collector_sql "INSERT INTO spool_drops VALUES ('alpha', 'spm9', 0, 0, 0)")
bad=
for o in "$o1" "$o2" "$o3" "$o4"; do
    case $o in *"permission denied for table spool_drops"*) ;; *) bad="$bad [$o]" ;; esac
done
tap_ok "$([ -z "$bad" ] && echo 0 || echo 1)" "the collector role may not read, update, delete or insert spool_drops rows itself${bad:+:$bad}"
o=$(collector_sql "SELECT spool_drops_report ('nosuch', 'spm1', 1, 0, 0, 0)")
o5=$(collector_sql "SELECT spool_drops_report ('alpha', 'spm1', -1, 0, 0, 0)")
case $o in *"unknown cluster nosuch"*) r=0 ;; *) r=1 ;; esac
case $o5 in *ERROR*) ;; *) r=1 ;; esac
tap_ok $r "a report for an unknown cluster is refused ($(printf '%s' "$o" | head -1)), a negative count too ($(printf '%s' "$o5" | head -1))"

# 6. a hostile node name
o=$(echo "SELECT spool_drops_report ('alpha', :'n', 7, 0, 0, 0);" |
    psql "$MS_PG_COLLECTOR_CONNINFO" -X -A -t -q -v "n=$evil" 2>&1)
want='metaschedd_spool_dropped_rows_total{cluster="alpha",node="spm\"} 1\nmetaschedd_leader{x=\"\\"} 7'
has () { metrics | grep -qxF "$want"; }
wait_for 120 has
r=$?
tap_ok $r "a node named with quotes, a backslash and a line feed is shown escaped ($o$(metrics | grep -F 'node="spm\"' | head -1))"
metrics > "$tmp/metrics"
out=$(python3 - "$tmp/metrics" <<'PY'
import re, sys
sample = re.compile(r'^[a-zA-Z_:][a-zA-Z0-9_:]*'
                    r'(\{[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*"'
                    r'(?:,[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*")*\})?'
                    r' [-+]?(?:[0-9.]+(?:[eE][-+]?[0-9]+)?|NaN|Inf)$')
bad = [l for l in open(sys.argv[1]).read().split('\n')
       if l and not l.startswith('# ') and not sample.match(l)]
print(len(bad), bad[:3])
PY
)
leaders=$(grep -c '^metaschedd_leader' "$tmp/metrics")
[ "${out%% *}" = 0 ] && [ "$leaders" = 1 ]
tap_ok $? "every line of /metrics is a valid sample or comment (bad: $out), one metaschedd_leader sample ($leaders)"
tap_ok "$(ok_if grep -q '^metaschedd_spool_drops_truncated 0$' "$tmp/metrics")" "metaschedd_spool_drops_truncated 0: every node's count is shown"
exit $tap_failed
