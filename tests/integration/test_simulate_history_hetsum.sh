#!/bin/sh
# `metasched simulate --from-db` holds a replayed heterogeneous job to the
# daemon's rule on nodes (core/hetplace.h, hetplace_sum): a cluster with
# fewer nodes than all its components ask for together takes it nowhere,
# though each component fits one of its partitions (Slurm gives each
# component nodes of its own); the replay counts a cluster's nodes from
# clusters.conf (its partitions' nodes summed, hetplace_conf_nodes).
# A scratch database of the test bed's PostgreSQL holds the history as
# metaschedd and its epilog write it: app lu ran on west/compute once (a
# CPU job), and a hetjob of lu ran on east/gpu, both components there
# (component 0 of 1 node, no GPU; component 1 of 1 node, --gres=gpu:1),
# its meta job's options holding both. Replayed on a site where east has
# one node (its gpu partition's) and west no GPU, the hetjob (2 nodes
# together) fits nowhere; with cluster north of 2 GPU nodes added, every
# policy sends it to north whole. TAP output.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
command -v psql >/dev/null || tap_skip_all "psql not installed (postgresql-client-15)"
[ -n "${MS_PG_REPORT_CONNINFO:-}" ] || tap_skip_all "the test bed has no report role conninfo"
tmp=$(mktemp -d)
. "${MS_SRCDIR:-.}/tests/integration/scratch_lib.sh"
[ -x "$ms" ] || tap_skip_all "$ms not built"
trap scratch_cleanup EXIT
scratch_db ms_test_simhsum_$$

tap_plan 5

# the site as the replay is asked about: east's only partition (gpu) has
# one node; west's none with GPUs
cat > "$tmp/small.conf" <<'EOF'
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

[partition east/gpu]
architecture     = x1
nodes            = 1
gpus_per_node    = 2
gpu_idle_power_w = 30
gpu_busy_power_w = 250

[cluster west]
backend = simulated

[partition west/compute]
architecture = x2
nodes        = 8
EOF
{
    cat "$tmp/small.conf"
    printf '\n[cluster north]\nbackend = simulated\n\n[partition north/gpu]\n'
    printf 'architecture     = x1\nnodes            = 2\ngpus_per_node    = 2\n'
    printf 'gpu_idle_power_w = 30\ngpu_busy_power_w = 250\n'
} > "$tmp/north.conf"

psql -qX -v ON_ERROR_STOP=1 -t -A "$MS_PG_CONNINFO dbname=$db" >"$tmp/log" 2>&1 <<'EOF'
INSERT INTO clusters (name) VALUES ('east'), ('west');
INSERT INTO partitions (cluster, name, architecture, nodes, cores_per_node,
                        freqs_khz, nominal_khz, idle_power_w)
VALUES ('east', 'gpu', 'x1', 2, 32, '{1600000,2000000}', 2000000, 100),
       ('west', 'compute', 'x2', 8, 32, '{1800000,2400000}', 2400000, 100);
INSERT INTO job_runs (cluster, partition, slurm_job_id, node, app, user_name,
                      nodes, freq_req_khz, start_time, end_time, runtime_s,
                      pkg_energy_j, dram_energy_j, cpi, tpi, exclusive,
                      source, collector_version, het_job_id, het_job_offset)
VALUES
 ('west', 'compute', 101, 'w1', 'lu', 'alice', 1, NULL, now () - interval '3 hours',
  now () - interval '3 hours' + interval '50 seconds', 50, 9000, 1000, 1.0, 0.01, true, 'root-measured', 't', NULL, NULL),
 ('east', 'gpu', 202, 'g1', 'lu', 'alice', 1, NULL, now () - interval '2 hours',
  now () - interval '2 hours' + interval '100 seconds', 100, 18000, 2000, 1.0, 0.01, true, 'root-measured', 't', 202, 0),
 ('east', 'gpu', 203, 'g2', 'lu', 'alice', 1, NULL, now () - interval '2 hours',
  now () - interval '2 hours' + interval '100 seconds', 100, 18000, 2000, 1.0, 0.01, true, 'root-measured', 't', 202, 1);
INSERT INTO jobs (owner_uid, owner_gid, owner_name, script, state, cluster,
                  partition, cluster_job_id, submitted_at, app, nodes,
                  time_limit_min, options)
VALUES (1001, 1001, 'alice', '#!/bin/sh', 'completed', 'east', 'gpu', 202,
        now () - interval '2 hours 1 minute', 'lu', 2, 10,
        '{"nodes": 1, "components": [{"nodes": 1, "gres": "gpu:1"}]}');
SELECT 'meta ' || id FROM jobs WHERE cluster_job_id = 202;
EOF
r=$?
meta=$(sed -n 's/^meta //p' "$tmp/log")
[ $r = 0 ] && [ -n "$meta" ]
tap_ok $? "the site's history: a CPU run on west, hetjob ${meta:-?} of 1 + 1 nodes on east/gpu$( [ $r = 0 ] || printf ': %s' "$(tr '\n' ' ' < "$tmp/log")")"

# replay $1 (a clusters.conf) into $tmp/$2 (its output in $tmp/$2.out)
replay () {
    "$ms" simulate --from-db "$MS_PG_REPORT_CONNINFO dbname=$db" -c "$1" \
        --since 1 -o "$tmp/$2" --no-plots --jobs-csv > "$tmp/$2.out" 2>&1
}
# the runs (jobs csv files) that place the hetjob, each as "LABEL:ROW"
placing () {
    for f in "$tmp/$1"/jobs-*.csv; do
        [ -r "$f" ] || continue
        awk -F, -v id="${meta:-0}" -v l="${f##*/jobs-}" \
            '$1 == id && $10 != "" { print l ":" $10 " " $16 }' "$f"
    done
}

# 1: east holds each component alone (its gpu partition takes a CPU
# component and a GPU one) but has 1 node for 2 together; west has no GPU
replay "$tmp/small.conf" small
r=$?
work=$(grep '^workload:' "$tmp/small.out")
tap_ok $r "the replay runs on a site where east has 1 node (rc $r): ${work:-$(tail -3 "$tmp/small.out" | tr '\n' ' ')}"
on=$(placing small)
printf '%s\n' "$work" | grep -q '^workload: .* 1 jobs (2 measured, .* 1 that fit nowhere)' && [ -z "$on" ]
tap_ok $? "the hetjob of 2 nodes together is one that fits nowhere, left out of every run (runs that place it: ${on:-none})"

# 2: north (2 GPU nodes) holds it whole: every policy sends it there,
# both components on north/gpu
replay "$tmp/north.conf" north
r=$?
work=$(grep '^workload:' "$tmp/north.out")
n=0 bad=
for f in "$tmp"/north/jobs-*.csv; do
    [ -r "$f" ] || continue
    n=$((n + 1))
    row=$(awk -F, -v id="${meta:-0}" '$1 == id { print $10 " " $16 }' "$f")
    [ "$row" = "north/gpu north/gpu+north/gpu" ] || bad="$bad ${f##*/jobs-}:[${row:-none}]"
done
[ $r = 0 ] && printf '%s\n' "$work" | grep -q '^workload: .* 2 jobs (2 measured, .* 0 that fit nowhere)'
tap_ok $? "with north added the replay runs (rc $r) and takes the hetjob: ${work:-$(tail -3 "$tmp/north.out" | tr '\n' ' ')}"
[ "$n" -ge 2 ] && [ -z "$bad" ]
tap_ok $? "every policy ($n) sends it to north whole, never to east${bad:+; otherwise:$bad}"
[ "$tap_failed" = 1 ] && sed 's/^/# /' "$tmp/small.out" "$tmp/north.out"
exit $tap_failed
