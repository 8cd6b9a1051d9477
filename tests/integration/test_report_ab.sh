#!/bin/sh
# `metasched report --ab` on the test bed's PostgreSQL: a scratch database
# gets meta jobs of both A/B groups (jobs.ab_group, migration 0020) and
# their measured runs, sent the collectors' way (spool records that
# `metasched-collect flush` inserts as the collector role); the report, read
# as the report role, must give the means, intervals and differences worked
# by hand below, from measured values only. TAP.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
command -v psql >/dev/null || tap_skip_all "psql not installed (postgresql-client-15)"
command -v python3 >/dev/null || tap_skip_all "python3 not installed"
collect=$MS_BUILDDIR/collectors/metasched-collect
tmp=$(mktemp -d)
. "${MS_SRCDIR:-.}/tests/integration/scratch_lib.sh"
trap scratch_cleanup EXIT
scratch_db ms_test_report_ab_$$

tap_plan 10

# app lu, 10 jobs per group, i = 0..9 (slurm ids 1000+i and 2000+i):
#   metasched: energy 1000 + 10 i J, runtime 100 + i s, wait 50 + i s
#   baseline:  energy 1200 + 10 i J, runtime 100 + i s, wait 20 + i s
# by hand: means 1045 / 1245 J, 104.5 / 104.5 s, 54.5 / 24.5 s; each
# sample variance 9.1667 (x 100 for energy); equal sizes and variances:
# Welch's df = 18, t(0.975, 18) = 2.100922, half widths
#   energy  2.100922 * sqrt (2 * 91.667 / 10 * 10) ... = 28.4466
#   runtime, wait 2.100922 * sqrt (2 * 9.1667 / 10) = 2.84466
#   energy diff -200 [-228.447, -171.553] significant
#   runtime diff 0 [-2.845, 2.845] not yet significant
#   wait diff 30 [27.155, 32.845] significant
# app ep: 3 metasched (energy 500, 510, 520) and 2 baseline (600, 700):
# under the 10 jobs a group needs: never significant.
# Every meta job carries a predicted energy of 1 J and time of 1 s: the
# report must not read them. A job outside the comparison (ab_group NULL)
# and a run outside the period add nothing.
spool=$tmp/spool
mkdir -p "$spool"
chmod 700 "$spool"
base=$(date -u -d '2026-03-01 00:00:00' +%s)
rec () { # rec ID APP ENERGY RUNTIME START
    cat >"$spool/$1.run" <<REC
metasched-spool 1 job_run
cluster=alpha
partition=batch
slurm_job_id=$1
node=n1
app=$2
user_name=alice
nodes=1
start_time=$5.000000
end_time=$(($5 + $4)).000000
runtime_s=$4.000000
pkg_energy_j=$(($3 - 10)).000000
dram_energy_j=10.000000
exclusive=true
source=root-measured
collector_version=test
end
REC
}
sql=$tmp/jobs.sql
echo "INSERT INTO clusters (name) VALUES ('alpha');
INSERT INTO partitions (cluster, name, architecture, nodes, cores_per_node, freqs_khz, nominal_khz, idle_power_w)
VALUES ('alpha', 'batch', 'x1', 4, 32, '{2000000}', 2000000, 100);" >"$sql"
job () { # job ID GROUP START WAIT
    g=$2; [ "$g" = NULL ] || g="'$g'"
    echo "INSERT INTO jobs (owner_uid, owner_gid, owner_name, script, state, cluster, partition, cluster_job_id, predicted_time_s, predicted_energy_j, submitted_at, ab_group)
VALUES (1001, 1001, 'alice', '#!/bin/sh', 'completed', 'alpha', 'batch', $1, 1, 1, to_timestamp ($3 - $4), $g);" >>"$sql"
}
i=0
while [ $i -lt 10 ]; do
    t=$((base + 1000 * i))
    rec $((1000 + i)) lu $((1000 + 10 * i)) $((100 + i)) $t
    job $((1000 + i)) metasched $t $((50 + i))
    rec $((2000 + i)) lu $((1200 + 10 * i)) $((100 + i)) $t
    job $((2000 + i)) baseline $t $((20 + i))
    i=$((i + 1))
done
for e in 500 510 520; do
    rec $((3000 + e)) ep $e 60 "$base"; job $((3000 + e)) metasched "$base" 5
done
for e in 600 700; do
    rec $((4000 + e)) ep $e 60 "$base"; job $((4000 + e)) baseline "$base" 5
done
rec 5000 lu 99999 100 "$base"; job 5000 NULL "$base" 5                   # not compared
rec 5001 lu 99999 100 $((base - 86400 * 30)); job 5001 baseline $((base - 86400 * 30)) 5  # February
psql -qX -v ON_ERROR_STOP=1 "$MS_PG_CONNINFO dbname=$db" -f "$sql" >"$tmp/log" 2>&1
tap_ok $? "meta jobs of both groups written as the daemon's role ($(tail -1 "$tmp/log"))"

ASAN_OPTIONS=detect_leaks=0 "$collect" --config /dev/null --set "spool_dir=$spool" \
    --set "conninfo=$MS_PG_COLLECTOR_CONNINFO dbname=$db" flush >"$tmp/flush" 2>&1
n=$(psql -qXAt "$MS_PG_CONNINFO dbname=$db" -c "SELECT count (*) FROM job_runs")
tap_ok "$([ "$n" = 27 ] && echo 0 || echo 1)" "the collectors' flush inserted the 27 measured runs as ms_collector (saw $n: $(tail -1 "$tmp/flush"))"

report_db="$MS_PG_REPORT_CONNINFO dbname=$db"
period="--since 2026-03-01 --until 2026-04-01"
# shellcheck disable=SC2086
"$ms" report -d "$report_db" $period --ab --json >"$tmp/json" 2>"$tmp/err"; rc=$?
tap_ok "$rc" "report --ab --json as the report role (rc $rc: $(cat "$tmp/err"))"

# check CODE: Python over r (the JSON) and the per-app dict a; its last
# line is the expression that must hold
check () {
    python3 - "$tmp/json" "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
a = {x["app"]: x for x in r["apps"]}
close = lambda x, y: x is not None and abs(x - y) < 1e-3
*pre, last = sys.argv[2].split("; ")
for line in pre:
    exec(line)
sys.exit(0 if eval(last) else 1)
PY
}
check 'sorted(a) == ["ep", "lu"] and r["min_jobs"] == 10'
tap_ok $? "two apps, the minimum of 10 jobs stated"
check 'a["lu"]["energy_j"]["metasched"]["jobs"] == 10 and a["lu"]["energy_j"]["baseline"]["jobs"] == 10 and close(a["lu"]["energy_j"]["metasched"]["mean"], 1045) and close(a["lu"]["energy_j"]["baseline"]["mean"], 1245)'
tap_ok $? "lu: 10 jobs per group, measured energy means 1045 and 1245 J (not the 1 J predicted, not the uncompared or February job)"
check 'd = a["lu"]["energy_j"]["difference"]; close(d["diff"], -200) and close(d["lo"], -228.4466) and close(d["hi"], -171.5534) and close(d["df"], 18) and d["significant"]'
tap_ok $? "lu energy: -200 J [-228.447, -171.553] by Welch (df 18), significant"
check 'd = a["lu"]["runtime_s"]["difference"]; close(d["diff"], 0) and close(d["hi"], 2.84466) and not d["significant"] and close(a["lu"]["runtime_s"]["metasched"]["lo"], 104.5 - 2.262157 * (55 / 6 / 10) ** 0.5)'
tap_ok $? "lu runtime: 0 s [-2.845, 2.845], not yet significant; a group's own interval by t(0.975, 9)"
check 'd = a["lu"]["wait_s"]["difference"]; close(d["diff"], 30) and close(d["lo"], 27.15534) and d["significant"]'
tap_ok $? "lu wait (submission to measured start): +30 s [27.155, 32.845], significant"

# shellcheck disable=SC2086
"$ms" report -d "$report_db" $period --ab --app ep >"$tmp/text" 2>"$tmp/err"; rc=$?
r1=$(grep -c '^app ' "$tmp/text")
r2=$(grep -c 'not yet significant' "$tmp/text")
grep -q '^  metasched *3  *510 ' "$tmp/text" && grep -q '^  baseline *2  *650 ' "$tmp/text"; r3=$?
tap_ok "$([ "$rc$r1$r2$r3" = 0130 ] && echo 0 || echo 1)" \
    "--app ep, text: one app, 3 against 2 jobs (means 510 and 650 J), every metric not yet significant (rc $rc, $r1 apps, $r2, $r3)"

"$ms" report -d "$report_db" --app lu >"$tmp/o1" 2>&1; rc1=$?
"$ms" report -d "$report_db" --ab --csv >"$tmp/o2" 2>&1; rc2=$?
"$ms" report -d "$report_db" --ab --app '' >"$tmp/o3" 2>&1; rc3=$?
tap_ok "$([ "$rc1$rc2$rc3" = 222 ] && grep -q -- '--app goes with --ab' "$tmp/o1" \
    && grep -q -- '--ab takes neither' "$tmp/o2" && grep -q -- '--app: an app' "$tmp/o3" && echo 0 || echo 1)" \
    "bad options: --app without --ab, --ab with --csv, an empty --app: exit 2 saying which ($rc1$rc2$rc3)"
exit $tap_failed
