#!/bin/sh
# End to end on the test bed: a real Slurm job on each cluster runs through
# metasched-collect; the Prolog/Epilog of the test bed measure it on the
# node's test powercap tree (which this test advances, across a wrap on
# one cluster) and a job_runs row with the right cluster, partition,
# frequency request, runtime and energy appears in PostgreSQL; the job's
# output file holds only what the job wrote, while the wrapper's note (an
# event no machine counts is configured, so there is one on every machine)
# reaches the node's log through the counter file and the epilog. Then,
# with PostgreSQL stopped, the row is spooled and arrives after the
# restart, exactly once. TAP output.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
[ "$(id -u)" = 0 ] || tap_skip_all "needs root (advances the root-owned test powercap trees and reads the root-only spool)"
bin=$MS_BUILDDIR/collectors/metasched-collect
[ -x "$bin" ] || tap_skip_all "$bin not built"
# `metasched db|collect` once wired into metasched, else the same commands
# through metasched-collect
if "$MS_BUILDDIR/metasched/metasched" db --help >/dev/null 2>&1; then
    ms="$MS_BUILDDIR/metasched/metasched"
else
    ms="$bin --metasched"
fi
tmp=$(mktemp -d /tmp/ms-collect-XXXXXX)
chmod 1777 "$tmp"
cleanup () {
    "$MS_SRCDIR/testbed/pgctl" status 2>/dev/null || "$MS_SRCDIR/testbed/pgctl" start
    rm -rf "$tmp"
}
trap cleanup EXIT
export MS_DB_CONNINFO="$MS_PG_CONNINFO"
q () { psql "$MS_PG_REPORT_CONNINFO" -X -A -t -q -c "$1" 2>&1; }
upper () { printf '%s' "$1" | tr 'a-z' 'A-Z'; }
getv () { eval "printf '%s' \"\${$1}\""; }

set -- $MS_CLUSTERS
tap_plan $(( $# * 5 + 12 ))

# the schema, the clusters, and the hooks pointed at this build
out=$($ms db migrate 2>&1 && $ms db sync "$MS_CLUSTERS_CONF" 2>&1); rc=$?
tap_ok $rc "schema migrated and clusters synced ($(printf '%s' "$out" | tr '\n' ' '))"
printf 'MS_COLLECT_BIN=%s\n' "$bin" > "$MS_TESTBED_RUN/collect.env"
out=$($ms db version 2>&1); rc=$?
# both numbers the same: the database is at the newest migration this build has
v=${out%% *}
case $out in "$v (this program: $v)") r=$rc ;; *) r=1 ;; esac
tap_ok $r "db version: the database is at the program's schema ($out)"
out=$($ms db -d "dbname=metasched password=sekrit99" version 2>&1); rc=$?
case $out in *sekrit99*) r=1 ;; *"holds a password"*) r=0 ;; *) r=1 ;; esac
tap_ok "$([ $rc = 1 ] && echo $r || echo 1)" "a password in the connection string is refused and not echoed (rc $rc: $out)"

# job script: the wrapper around a command that writes a line to its
# stdout and one to its stderr, then waits for the test; NO_SUCH_EVENT_X
# gives the wrapper a note to make on any machine
events=PAPI_TOT_CYC,PAPI_TOT_INS,PAPI_L3_TCM,perf::TASK-CLOCK,NO_SUCH_EVENT_X
# the hooks' log (their stderr): only what this run adds to it counts
hooklog=$MS_TESTBED_RUN/collect.log
hooklog_from=$(( $(cat "$hooklog" 2>/dev/null | wc -c) + 1 ))
cat > "$tmp/job.sh" <<EOF
#!/bin/sh
exec "$bin" --config /dev/null --set "powercap_root=$MS_POWERCAP_BASE/%n" \\
    --set "job_dir=$MS_TESTBED_RUN/collect-jobs" --set "events=$events" \\
    --app "e2e-\$1" -- \\
    sh -c 'echo "job \$1 out"; echo "job \$1 err" >&2; touch "$tmp/started.\$1"; while [ ! -e "$tmp/go.\$1" ]; do sleep 0.1; done; sleep 1' "\$0" "\$1"
EOF
chmod 755 "$tmp/job.sh"

# submit CLUSTER PARTITION FREQ TAG [SBATCH OPTIONS]: prints the job id
submit () {
    conf=$(getv "MS_$(upper "$1")_CONF")
    sbatch=$(slurm_cmd "$1" sbatch)
    c_=$1 p_=$2 f_=$3 t_=$4
    shift 4
    runuser -u "$MS_TEST_USER" -- env SLURM_CONF="$conf" "$sbatch" --parsable \
        -p "$p_" -N 1 --cpu-freq="$f_" -J "e2e-$t_" --chdir "$tmp" \
        -o "$tmp/out.$t_" "$@" "$tmp/job.sh" "$t_" 2>&1
}
wait_for () { # wait_for SECONDS TEST...
    n=$1; shift
    while [ "$n" -gt 0 ]; do
        "$@" && return 0
        sleep 1; n=$((n - 1))
    done
    return 1
}
job_gone () { # job_gone CLUSTER JOBID
    st=$(on_cluster "$1" squeue -h -j "$2" -o %T 2>/dev/null)
    [ -z "$st" ] || [ "$st" = COMPLETED ]
}
row () { # row CLUSTER JOBID COLUMNS
    q "SELECT $3 FROM job_runs WHERE cluster = '$1' AND slurm_job_id = $2"
}
has_row () { [ -n "$(row "$1" "$2" 1)" ]; } # has_row CLUSTER JOBID: polled, so evaluated anew each time
near () { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; exit !(d < 1e-3 && d > -1e-3) }'; }

# The jobs below measure exact steps of the nodes' test powercap counters
# and must run to their end: no metaschedd test may run beside them (those
# add energy to the same counters and cancel the test users' jobs when they
# clean up), so hold their lock (daemon_lib.sh), fd 8, meanwhile.
exec 8>>"$MS_TESTBED_RUN/metaschedd.lock"
flock -x 8

# one job per cluster; gamma's counters start 1 J below their wrap
freqs="2000000 1800000 1500000"
i=0
for c in "$@"; do
    i=$((i + 1))
    f=$(echo $freqs | cut -d' ' -f$i)
    C=$(upper "$c")
    part=$(getv "MS_${C}_PARTITIONS" | cut -d' ' -f1)
    if [ "$c" = gamma ]; then
        for n in $(getv "MS_${C}_NODES"); do
            z=$(powercap_zone "$n")
            echo $(( $(cat "$z/max_energy_range_uj") - 1000000 )) > "$z/energy_uj"
        done
    fi
    id=$(submit "$c" "$part" "$f" "$c")
    if ! wait_for 90 test -e "$tmp/started.$c"; then
        tap_ok 1 "$c: job $id started"
        for k in 2 3 4 5; do tap_ok 1 "$c: (job did not start)"; done
        touch "$tmp/go.$c"
        continue
    fi
    node=$(on_cluster "$c" squeue -h -j "$id" -o %N)
    tap_ok 0 "$c: job $id runs on $node through the wrapper"
    pkg_uj=$((123456789 + i * 1000)); dram_uj=$((2500000 + i))
    powercap_add "$node" "$pkg_uj" "$dram_uj"
    touch "$tmp/go.$c"
    wait_for 60 job_gone "$c" "$id"
    wait_for 30 has_row "$c" "$id"
    got=$(row "$c" "$id" "partition || ' ' || coalesce (freq_req_khz, 0) || ' ' || node || ' ' || app || ' ' || user_name || ' ' || source || ' ' || coalesce (exit_code, -1)")
    want="$part $f $node e2e-$c $MS_TEST_USER root-measured 0"
    tap_ok "$([ "$got" = "$want" ] && echo 0 || echo 1)" "$c: one job_runs row with partition, frequency request, node, app, user, source ('$got', wanted '$want')"
    pkg=$(row "$c" "$id" pkg_energy_j); dram=$(row "$c" "$id" dram_energy_j)
    near "$pkg" "$(awk -v u="$pkg_uj" 'BEGIN { print u / 1e6 }')" && near "$dram" "$(awk -v u="$dram_uj" 'BEGIN { print u / 1e6 }')"
    tap_ok $? "$c: energy from the test powercap tree$([ "$c" = gamma ] && echo ', across a counter wrap') (package $pkg J, DRAM $dram J; advanced by $pkg_uj and $dram_uj uJ)"
    rt=$(row "$c" "$id" runtime_s)
    used=$(row "$c" "$id" "array_to_string (events_used, ',')")
    awk -v r="$rt" 'BEGIN { exit !(r >= 1 && r < 120) }' && case $used in *perf::TASK-CLOCK*) true ;; *) false ;; esac
    tap_ok $? "$c: runtime ${rt} s and the wrapper's counters ($used) recorded"
    # the job's output is the job's: the wrapper's note is in the node's
    # log, on the epilog's line for this job, and not in the output file
    logline () { tail -c +"$hooklog_from" "$hooklog" 2>/dev/null | grep "epilog: job $c\.$id node $node: .*the wrapper's note: events not counted: .*NO_SUCH_EVENT_X"; }
    wait_for 10 logline >/dev/null
    got=$(cat "$tmp/out.$c" 2>&1); want=$(printf 'job %s out\njob %s err' "$c" "$c")
    [ "$got" = "$want" ] && logline >/dev/null
    tap_ok $? "$c: the job's output file holds only what the job wrote ('$(printf '%s' "$got" | tr '\n' '|')'), the wrapper's note went to the node's log ('$(logline | tail -1 | cut -c1-200)')"
done

# a job on two whole nodes: one row per node, each with its node's energy,
# the wrapper's counters on the batch node's row, marked exclusive
c=${2:-$1}; C=$(upper "$c"); part=$(getv "MS_${C}_PARTITIONS" | cut -d' ' -f1)
id=$(submit "$c" "$part" 2000000 multi -N 2 --exclusive)
if wait_for 90 test -e "$tmp/started.multi"; then
    nodes=$(on_cluster "$c" scontrol show hostnames "$(on_cluster "$c" squeue -h -j "$id" -o %N)")
    for n in $nodes; do powercap_add "$n" 7000000 1000000; done
fi
touch "$tmp/go.multi"
wait_for 60 job_gone "$c" "$id"
wait_for 30 test "$(row "$c" "$id" "count (*)")" = 2
got=$(row "$c" "$id" "count (*) || ' ' || min (nodes) || ' ' || bool_and (exclusive) || ' ' || count (*) FILTER (WHERE events_used <> '{}') || ' ' || round (sum (pkg_energy_j)::numeric, 3) || ' ' || round (sum (dram_energy_j)::numeric, 3)")
tap_ok "$([ "$got" = "2 2 true 1 14.000 2.000" ] && echo 0 || echo 1)" "$c: a 2-node exclusive job has a row per node, counters on one ('$got', wanted '2 2 true 1 14.000 2.000')"
got=$(q "SELECT node_rows || ' ' || nodes || ' ' || exclusive || ' ' || round ((pkg_energy_j + dram_energy_j)::numeric, 3) FROM job_run_totals WHERE cluster = '$c' AND slurm_job_id = $id")
tap_ok "$([ "$got" = "2 2 true 16.000" ] && echo 0 || echo 1)" "$c: job_run_totals sums the nodes ('$got')"

# Slurm's accounting of the same jobs, reconciled with what was measured
out=$($ms collect ingest "$MS_CLUSTERS_CONF" 2>&1); rc=$?
bad=$(q "SELECT count (*) FROM job_reconciliation r JOIN job_runs j USING (cluster, slurm_job_id) WHERE j.app LIKE 'e2e-%' AND j.inserted_at > now () - interval '10 minutes' AND (r.measured <> 'complete' OR r.state <> 'COMPLETED' OR r.exit_code <> 0)")
good=$(q "SELECT count (*) FROM job_reconciliation r JOIN job_runs j USING (cluster, slurm_job_id) WHERE j.app LIKE 'e2e-%' AND j.inserted_at > now () - interval '10 minutes' AND r.measured = 'complete'")
tap_ok "$([ $rc = 0 ] && [ "$bad" = 0 ] && [ "$good" -ge "$#" ] && echo 0 || echo 1)" "ingest: Slurm's accounting of the jobs matches their rows ($out; complete $good, mismatched $bad)"

# the measured runs feed the predictor (too few apps to fit a pair here)
out=$($ms db fit 2>&1); rc=$?
case $out in *"learning run"*) r=$rc ;; *) r=1 ;; esac
tap_ok $r "db fit reads the measured runs ($out)"

# PostgreSQL down: the epilog spools the row; after the restart a flush
# sends it, once
c=$1; C=$(upper "$c"); part=$(getv "MS_${C}_PARTITIONS" | cut -d' ' -f1)
# Every integration test holds $MS_TESTBED_RUN/services.lock shared (and
# the database tests pg-down.lock too); the server goes down only under both
# exclusive. (The metaschedd lock is let go first: a daemon test holds the
# services lock shared while it waits for that one.)
flock -u 8
tap_services_exclusive
exec 9>"$MS_TESTBED_RUN/pg-down.lock"
flock -x -w 600 9
"$MS_SRCDIR/testbed/pgctl" stop
id=$(submit "$c" "$part" 2000000 spool)
wait_for 90 test -e "$tmp/started.spool"
node=$(on_cluster "$c" squeue -h -j "$id" -o %N)
touch "$tmp/go.spool"
wait_for 60 job_gone "$c" "$id"
spooled="$MS_SPOOL_DIR/$c.$id.$node.root.run"
wait_for 30 test -e "$spooled"
tap_ok $? "with PostgreSQL stopped, job $id's row is spooled ($spooled)"
"$MS_SRCDIR/testbed/pgctl" start
flock -u 9
flock -s 7
flock -x 8
flush () {
    $ms collect --config /dev/null --set "spool_dir=$MS_SPOOL_DIR" \
        --set "conninfo=$MS_PG_COLLECTOR_CONNINFO" flush 2>&1
}
out=$(flush); rc=$?
n=$(row "$c" "$id" "count (*)")
tap_ok "$([ $rc = 0 ] && [ "$n" = 1 ] && [ ! -e "$spooled" ] && echo 0 || echo 1)" "after the restart, flush sends it ($out; rows: $n)"
out=$(flush); rc=$?
n=$(row "$c" "$id" "count (*)")
tap_ok "$([ $rc = 0 ] && [ "$n" = 1 ] && echo 0 || echo 1)" "a second flush sends nothing twice ($out; rows: $n)"
# a spooled copy that reappears (a crash between commit and unlink) is
# stored once too
n_before=$(q "SELECT count (*) FROM job_runs")
printf 'metasched-spool 1 job_run\ncluster=%s\npartition=%s\nslurm_job_id=%s\nnode=%s\napp=x\nuser_name=%s\nnodes=1\nstart_time=1\nend_time=2\nruntime_s=1\nsource=root-measured\ncollector_version=t\nend\n' \
    "$c" "$part" "$id" "$node" "$MS_TEST_USER" > "$MS_SPOOL_DIR/$c.$id.$node.root.run"
out=$(flush); rc=$?
n_after=$(q "SELECT count (*) FROM job_runs")
tap_ok "$([ $rc = 0 ] && [ "$n_before" = "$n_after" ] && echo 0 || echo 1)" "a row sent again is stored once ($out; $n_before -> $n_after rows)"
# the epilog never fails: the node stays up
st=$(on_cluster "$c" sinfo -h -n "$node" -o %T)
case $st in idle* | mixed* | alloc*) r=0 ;; *) r=1 ;; esac
tap_ok $r "node $node is still in service after the epilogs ($st)"
exit 0
