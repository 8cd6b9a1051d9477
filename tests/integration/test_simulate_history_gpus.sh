#!/bin/sh
# `metasched simulate --from-db` replays a GPU job as a GPU job: a measured
# run whose meta job asked for GPUs (its options, as metaschedd stores
# them: jobs.options, read through job_options by the report role) gets
# that many GPUs per node in the replay, so no policy puts it on a
# partition without GPUs. A scratch database of the test bed's PostgreSQL
# holds the site: cluster east, its CPU partition batch (architecture x2,
# the faster: where a job without GPUs goes) and its GPU partition gpu
# (x1, 2 GPUs a node); app lu measured on both, its GPU run asking for
# --gres=gpu:1 and its CPU run submitted to Slurm directly (no meta job).
# TAP output.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
command -v psql >/dev/null || tap_skip_all "psql not installed (postgresql-client-15)"
[ -n "${MS_PG_REPORT_CONNINFO:-}" ] || tap_skip_all "the test bed has no report role conninfo"
tmp=$(mktemp -d)
. "${MS_SRCDIR:-.}/tests/integration/scratch_lib.sh"
[ -x "$ms" ] || tap_skip_all "$ms not built"
trap scratch_cleanup EXIT
scratch_db ms_test_simgpu_$$

tap_plan 4

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
architecture = x2
nodes        = 4

[partition east/gpu]
architecture     = x1
nodes            = 4
gpus_per_node    = 2
gpu_idle_power_w = 30
gpu_busy_power_w = 250
EOF

psql -qX -v ON_ERROR_STOP=1 -t -A "$MS_PG_CONNINFO dbname=$db" >"$tmp/log" 2>&1 <<'EOF'
INSERT INTO clusters (name) VALUES ('east');
INSERT INTO partitions (cluster, name, architecture, nodes, cores_per_node,
                        freqs_khz, nominal_khz, idle_power_w)
VALUES ('east', 'batch', 'x2', 4, 32, '{1800000,2400000}', 2400000, 100),
       ('east', 'gpu', 'x1', 4, 32, '{1600000,2000000}', 2000000, 100);
INSERT INTO job_runs (cluster, partition, slurm_job_id, node, app, user_name,
                      nodes, freq_req_khz, start_time, end_time, runtime_s,
                      pkg_energy_j, dram_energy_j, cpi, tpi, exclusive,
                      source, collector_version)
VALUES
 ('east', 'batch', 101, 'b1', 'lu', 'alice', 1, NULL, now () - interval '3 hours',
  now () - interval '3 hours' + interval '50 seconds', 50, 9000, 1000, 1.0, 0.01, true, 'root-measured', 't'),
 ('east', 'gpu', 102, 'g1', 'lu', 'alice', 1, NULL, now () - interval '2 hours',
  now () - interval '2 hours' + interval '100 seconds', 100, 18000, 2000, 1.0, 0.01, true, 'root-measured', 't');
INSERT INTO jobs (owner_uid, owner_gid, owner_name, script, state, cluster,
                  partition, cluster_job_id, submitted_at, app, nodes,
                  time_limit_min, options)
VALUES (1001, 1001, 'alice', '#!/bin/sh', 'completed', 'east', 'gpu', 102,
        now () - interval '2 hours 1 minute', 'lu', 1, 10,
        '{"gres": "gpu:1", "nodes": 1}');
SELECT 'meta ' || id FROM jobs WHERE cluster_job_id = 102;
EOF
r=$?
meta=$(sed -n 's/^meta //p' "$tmp/log")
[ $r = 0 ] && [ -n "$meta" ]
tap_ok $? "the site's history as metaschedd writes it: a CPU run, a GPU run of meta job ${meta:-?} asking for --gres=gpu:1$( [ $r = 0 ] || printf ': %s' "$(tr '\n' ' ' < "$tmp/log")")"

"$ms" simulate --from-db "$MS_PG_REPORT_CONNINFO dbname=$db" -c "$tmp/clusters.conf" \
    --since 1 -o "$tmp/sim" --no-plots --jobs-csv > "$tmp/sim.out" 2>&1
r=$?
tap_ok $r "metasched simulate --from-db replays both jobs (rc $r): $(grep '^workload:' "$tmp/sim.out" || tail -3 "$tmp/sim.out" | tr '\n' ' ')"

# the GPU job in every policy's jobs: on east/gpu, never on east/batch
n=0 bad=
for f in "$tmp"/sim/jobs-*.csv; do
    [ -r "$f" ] || continue
    n=$((n + 1))
    p=$(awk -F, -v id="${meta:-0}" '$1 == id { print $10 }' "$f")
    [ "$p" = east/gpu ] || bad="$bad ${f##*/jobs-}:${p:-none}"
done
[ "$n" -ge 2 ] && [ -z "$bad" ]
tap_ok $? "every policy ($n) places the GPU job on east/gpu${bad:+; elsewhere:$bad}"

# the job without GPUs is free to go to the faster CPU partition: the
# placement above is the GPUs' doing, and the bound of the GPU job is too
opt=$(awk -F, -v id="${meta:-0}" '$1 == id { print $11 }' "$tmp"/sim/jobs-as*.csv 2>/dev/null | head -1)
cpu=$(awk -F, '$1 == 101 { print $10 }' "$tmp"/sim/jobs-*min_runtime*.csv 2>/dev/null | head -1)
[ "$opt" = east/gpu ] && [ "$cpu" = east/batch ]
tap_ok $? "its optimal partition is east/gpu (${opt:-none}); min_runtime puts the CPU job on east/batch (${cpu:-none})"
[ "$tap_failed" = 1 ] && sed 's/^/# /' "$tmp/sim.out"
exit $tap_failed
