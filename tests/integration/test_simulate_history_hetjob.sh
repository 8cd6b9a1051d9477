#!/bin/sh
# `metasched simulate --from-db` replays a heterogeneous job as metaschedd
# routes it: whole, to a cluster where every component fits (each by its
# own nodes, GPUs and limits), each component placed on that cluster by
# the daemon's rule (core/hetplace.h), and recorded so in the jobs csv.
# A scratch database of the test bed's PostgreSQL holds the site, written
# as metaschedd and its epilog write it: cluster east with a CPU partition
# (batch) and a GPU partition (gpu, 2 GPUs a node), both architecture x1;
# cluster west with one CPU partition (compute, architecture x2, the
# faster). App lu ran on west/compute once (a CPU job, no meta job), and a
# hetjob of lu ran on east: component 0 (1 node, no GPU) on batch,
# component 1 (1 node, --gres=gpu:1) on gpu, its meta job's options
# holding both. Its first component alone would go to west, faster; as a
# whole it fits east only. TAP output.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
command -v psql >/dev/null || tap_skip_all "psql not installed (postgresql-client-15)"
[ -n "${MS_PG_REPORT_CONNINFO:-}" ] || tap_skip_all "the test bed has no report role conninfo"
tmp=$(mktemp -d)
. "${MS_SRCDIR:-.}/tests/integration/scratch_lib.sh"
[ -x "$ms" ] || tap_skip_all "$ms not built"
trap scratch_cleanup EXIT
scratch_db ms_test_simhet_$$

tap_plan 6

cat > "$tmp/clusters.conf" <<'EOF'
[architecture x1]
cores_per_node  = 32
frequencies_khz = 1600000-2000000/400000
nominal_khz     = 2000000
idle_power_w    = 100

[architecture x2]
cores_per_node  = 32
frequencies_khz = 1800000-2400000/600000
nominal_khz     = 2400000
idle_power_w    = 100

[cluster east]
backend = simulated

[partition east/batch]
architecture = x1
nodes        = 4

[partition east/gpu]
architecture     = x1
nodes            = 4
gpus_per_node    = 2
gpu_idle_power_w = 30
gpu_busy_power_w = 250

[cluster west]
backend = simulated

[partition west/compute]
architecture = x2
nodes        = 8
EOF

psql -qX -v ON_ERROR_STOP=1 -t -A "$MS_PG_CONNINFO dbname=$db" >"$tmp/log" 2>&1 <<'EOF'
INSERT INTO clusters (name) VALUES ('east'), ('west');
INSERT INTO partitions (cluster, name, architecture, nodes, cores_per_node,
                        freqs_khz, nominal_khz, idle_power_w)
VALUES ('east', 'batch', 'x1', 4, 32, '{1600000,2000000}', 2000000, 100),
       ('east', 'gpu', 'x1', 4, 32, '{1600000,2000000}', 2000000, 100),
       ('west', 'compute', 'x2', 8, 32, '{1800000,2400000}', 2400000, 100);
INSERT INTO job_runs (cluster, partition, slurm_job_id, node, app, user_name,
                      nodes, freq_req_khz, start_time, end_time, runtime_s,
                      pkg_energy_j, dram_energy_j, cpi, tpi, exclusive,
                      source, collector_version, het_job_id, het_job_offset)
VALUES
 ('west', 'compute', 101, 'w1', 'lu', 'alice', 1, NULL, now () - interval '3 hours',
  now () - interval '3 hours' + interval '50 seconds', 50, 9000, 1000, 1.0, 0.01, true, 'root-measured', 't', NULL, NULL),
 ('east', 'batch', 202, 'b1', 'lu', 'alice', 1, NULL, now () - interval '2 hours',
  now () - interval '2 hours' + interval '100 seconds', 100, 18000, 2000, 1.0, 0.01, true, 'root-measured', 't', 202, 0),
 ('east', 'gpu', 203, 'g1', 'lu', 'alice', 1, NULL, now () - interval '2 hours',
  now () - interval '2 hours' + interval '100 seconds', 100, 18000, 2000, 1.0, 0.01, true, 'root-measured', 't', 202, 1);
INSERT INTO jobs (owner_uid, owner_gid, owner_name, script, state, cluster,
                  partition, cluster_job_id, submitted_at, app, nodes,
                  time_limit_min, options)
VALUES (1001, 1001, 'alice', '#!/bin/sh', 'completed', 'east', 'batch', 202,
        now () - interval '2 hours 1 minute', 'lu', 2, 10,
        '{"nodes": 1, "components": [{"nodes": 1, "gres": "gpu:1"}]}');
SELECT 'meta ' || id FROM jobs WHERE cluster_job_id = 202;
EOF
r=$?
meta=$(sed -n 's/^meta //p' "$tmp/log")
[ $r = 0 ] && [ -n "$meta" ]
tap_ok $? "the site's history as metaschedd writes it: a CPU run on west, hetjob ${meta:-?} on east/batch + east/gpu$( [ $r = 0 ] || printf ': %s' "$(tr '\n' ' ' < "$tmp/log")")"

"$ms" simulate --from-db "$MS_PG_REPORT_CONNINFO dbname=$db" -c "$tmp/clusters.conf" \
    --since 1 -o "$tmp/sim" --no-plots --jobs-csv > "$tmp/sim.out" 2>&1
r=$?
tap_ok $r "metasched simulate --from-db replays both jobs (rc $r): $(grep '^heterogeneous jobs:' "$tmp/sim.out" || tail -3 "$tmp/sim.out" | tr '\n' ' ')"

# every policy: the hetjob on east (west has no partition for component 1)
# and its second component on east/gpu, the only partition with GPUs
n=0 bad=
for f in "$tmp"/sim/jobs-*.csv; do
    [ -r "$f" ] || continue
    n=$((n + 1))
    row=$(awk -F, -v id="${meta:-0}" '$1 == id { print $10 " " $16 }' "$f")
    case $row in
        "east/batch east/batch+east/gpu" | "east/gpu east/gpu+east/gpu") ;;
        *) bad="$bad ${f##*/jobs-}:[${row:-none}]" ;;
    esac
done
[ "$n" -ge 2 ] && [ -z "$bad" ]
tap_ok $? "every policy ($n) routes the hetjob to east, each component where it fits${bad:+; otherwise:$bad}"

# the optimal partition of the hetjob is on east too; the job of one
# component has no components and stays free to take west
opt=$(awk -F, -v id="${meta:-0}" '$1 == id { print $11 }' "$tmp"/sim/jobs-as*.csv 2>/dev/null | head -1)
cpu=$(awk -F, '$1 == 101 { print $11 " [" $16 "]" }' "$tmp"/sim/jobs-as*.csv 2>/dev/null | head -1)
case $opt in east/*) o=0 ;; *) o=1 ;; esac
[ $o = 0 ] && [ "$cpu" = "west/compute []" ]
tap_ok $? "its optimal partition is on east (${opt:-none}); the CPU job's is ${cpu:-none}"

# the replay's comparison with where it ran counts the hetjob as placed
# where it ran only when both components are: east/batch + east/gpu
as=$(awk -F, -v id="${meta:-0}" '$1 == id { print $10 " " $12 " " $16 }' "$tmp"/sim/jobs-as*.csv 2>/dev/null | head -1)
same=$(sed -n 's/.*; \([0-9]*\) jobs on the partition and at the frequency where they ran.*/\1/p' "$tmp/sim.out")
case $as in
    "east/batch 2000000 east/batch+east/gpu") want=1 ;;
    *) want=0 ;;
esac
cpuas=$(awk -F, '$1 == 101 { print $10 " " $12 }' "$tmp"/sim/jobs-as*.csv 2>/dev/null | head -1)
[ "$cpuas" = "west/compute 2400000" ] && want=$((want + 1))
[ "${same:-x}" = "$want" ]
tap_ok $? "as run against measured counts $want placed where they ran (${same:-none}; hetjob as run: ${as:-none}; CPU job: ${cpuas:-none})"

# a configuration where component 1 (a GPU) fits no partition: the replay
# still runs, and counts the hetjob with the jobs that fit nowhere (the
# daemon refuses such a hetjob), leaving it out of every run
sed '/^\[partition east\/gpu\]/,/^$/d' "$tmp/clusters.conf" > "$tmp/nogpu.conf"
"$ms" simulate --from-db "$MS_PG_REPORT_CONNINFO dbname=$db" -c "$tmp/nogpu.conf" \
    --since 1 -o "$tmp/sim2" --no-plots --jobs-csv > "$tmp/sim2.out" 2>&1
r=$?
placed=$(awk -F, -v id="${meta:-0}" '$1 == id && $10 != "" { print FILENAME }' "$tmp"/sim2/jobs-*.csv 2>/dev/null | wc -l)
[ $r = 0 ] && ! grep -q 'east/gpu' "$tmp/nogpu.conf" && [ "$placed" = 0 ] \
    && grep -q '^workload: .* 1 jobs (2 measured, .* 1 that fit nowhere)' "$tmp/sim2.out"
tap_ok $? "without a GPU partition the replay runs (rc $r), the hetjob one that fits nowhere ($placed runs place it): $(grep -E '^(workload|metasched simulate):' "$tmp/sim2.out" | head -2 | tr '\n' ' ')"
[ "$tap_failed" = 1 ] && sed 's/^/# /' "$tmp/sim.out" "$tmp/sim2.out"
exit $tap_failed
