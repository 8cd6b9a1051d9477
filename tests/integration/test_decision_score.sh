#!/bin/sh
# The score metaschedd stores and shows is the one its choice was made by
# (doc/daemon.md, "One engine: the score shown"): with energy odds
# calibrated from a decided history (70 finished jobs written into the
# meta queue, as test_daemon_calib.sh does), a job's decisions row holds,
# for every candidate, the key of metasched's ranking (the calibrated
# odds, the width term, the shared wait, the drain delay), which
# partition's pick it is and, for one the ranking set aside, why; the
# chosen candidate is the pick of least key, and its key is the row's
# score. The what-if answer (msbatch --test-only) shows the job's energy
# weight the keys were made with: the calibrated one, not the setting's.
# TAP output.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
[ -x "$msbatch" ] || tap_skip_all "$msbatch not built"

score_cleanup () {
    q "DELETE FROM jobs WHERE name LIKE 'msd-schist-%'" >/dev/null 2>&1
    daemon_cleanup
}
trap score_cleanup EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
daemon_lock
tap_plan 6

u=$MS_TEST_USER
uid=$(id -u "$u") gid=$(id -g "$u")
set -- $(q "SELECT cluster || ' ' || name FROM partitions ORDER BY cluster, name LIMIT 1")
pc=$1 pp=$2
# 70 finished jobs of 1 to 2 nodes, decided an hour ago: the daemon's
# energy odds are calibrated from its first decision
q "DELETE FROM jobs WHERE name LIKE 'msd-schist-%'" >/dev/null
out=$(q "WITH j AS (INSERT INTO jobs (owner_uid, owner_gid, owner_name, name,
             script, state, cluster, partition, cluster_job_id, nodes,
             time_limit_min, user_time_limit_min, submitted_at, started_at,
             finished_at, options)
         SELECT $uid, $gid, '$u', 'msd-schist-' || g, E'#!/bin/sh\ntrue\n',
             'completed', '$pc', '$pp', 950000 + g, 1 + g % 2, 10 + g, 10 + g,
             now () - interval '2 hours', now () - interval '2 hours',
             now () - interval '2 hours' + (10 + g) * interval '30 seconds',
             '{}'
         FROM generate_series (1, 70) g RETURNING id)
     INSERT INTO decisions (job_id, decided_at, policy, cluster, partition,
             freq_khz, candidates)
         SELECT id, now () - interval '1 hour', 'metasched', '$pc', '$pp',
             1000000, '[]' FROM j" 2>&1)
[ "$(q "SELECT count (*) FROM jobs WHERE name LIKE 'msd-schist-%'")" = 70 ]
tap_ok $? "70 decided jobs written into the meta queue ${out}"

log=$dtmp/msd.log
daemon_lead
d=$(job_dir "$u")
msb_sleep "$u" "$d" score 1; id=$job_id
decided () { [ -n "$(q "SELECT 1 FROM decisions WHERE job_id = ${id:-0}")" ]; }
wait_for 60 decided
tap_ok $? "job ${id:-?} is decided ($job_out)"

# the candidates as the decisions row holds them
cands="FROM decisions d, jsonb_array_elements (d.candidates::jsonb) c
       WHERE d.job_id = ${id:-0}"
chosen=$(q "SELECT c->>'score' $cands AND (c->>'chosen')::boolean")
least=$(q "SELECT min ((c->>'score')::float8) $cands AND (c->>'pick')::boolean")
row=$(q "SELECT score FROM decisions WHERE job_id = ${id:-0}")
npick=$(q "SELECT count (*) $cands AND (c->>'pick')::boolean")
awk -v c="$chosen" -v l="$least" -v r="$row" -v n="$npick" 'BEGIN {
    exit !(c != "" && n + 0 >= 1 && c - l < 1e-9 && l - c < 1e-9 &&
           c - r < 1e-6 * (r < 0 ? -r : r) + 1e-9 && r - c < 1e-6 * (r < 0 ? -r : r) + 1e-9) }'
tap_ok $? "the chosen candidate's score (${chosen:-none}) is the least key of the $npick partitions' picks (${least:-none}) and the row's score (${row:-none})"

# a candidate the ranking set aside says why and has no key
bad=$(q "SELECT count (*) $cands AND NOT (c->>'admissible')::boolean
         AND (c->>'excluded' IS NULL OR c->'score' <> 'null'::jsonb)")
nadm=$(q "SELECT count (*) $cands AND (c ? 'admissible')")
ntot=$(q "SELECT count (*) $cands")
[ "$bad" = 0 ] && [ "$nadm" = "$ntot" ] && [ "$ntot" -ge 1 ]
tap_ok $? "every candidate says whether the ranking admitted it ($nadm of $ntot); $bad set aside without a reason or with a key"

# the what-if shows the energy weight the keys were made with: the
# calibrated odds move it off the setting's
wi=$(msb "$u" "$d" --test-only score.sh 2>&1)
we=$(printf '%s\n' "$wi" | sed -n 's/^score: .*energy weight w \([0-9.e+-]*\),.*/\1/p')
sc=$(printf '%s\n' "$wi" | sed -n 's/^energy odds times \([0-9.e+-]*\) .*/\1/p')
set0=$(cfg_value w_energy 0.5)
[ -n "$we" ] && [ -n "$sc" ] &&
    awk -v w="$we" -v s="$sc" -v w0="$set0" 'BEGIN { exit !(s != 1 && (w - w0 > 1e-6 || w0 - w > 1e-6)) }'
tap_ok $? "--test-only shows the job's energy weight ${we:-none} (setting $set0, odds times ${sc:-none})"

# ... and the chosen row's SCORE is the least of the picks' as stored for
# the same job (the table prints three decimals)
ws=$(printf '%s\n' "$wi" | awk '$1 == "*" { print $NF }' | head -1)
[ -n "$ws" ] && awk -v a="$ws" 'BEGIN { exit !(a + 0 > 0) }'
tap_ok $? "--test-only marks its choice with its score (${ws:-none}) [$(printf '%s\n' "$wi" | grep -E '^(score|\*)' | tr '\n' ' ')]"
