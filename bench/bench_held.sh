#!/bin/sh
# bench_held.sh [N...] - the cost of one user's held jobs to everyone
# (doc/daemon.md "Dependencies"). Needs the test bed and root, like the
# daemon tests: it runs a metaschedd of this build on the test bed, and for
# each N (default 0 10000 100000) gives msuser N jobs held behind a
# dependency that never holds (rows written through the daemon's role, as
# tests/security/test_held_flood.sh does), waits until the daemon has read
# them, then prints the daemon's cycle time (metaschedd_cycle_seconds, the
# median and the largest of 5 cycles) and how long msuser2's job takes to
# be taken by the API and to reach a cluster. Prints figures; never fails
# on time. The rows are removed at the end.
#
#   MS_SRCDIR=. MS_BUILDDIR=. bench/bench_held.sh [N...]
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"

sizes=${*:-0 10000 100000}
u=$MS_TEST_USER u2=$MS_TEST_USER2

held_cleanup () {
    [ -n "${restore:-}" ] && cfg set $restore >/dev/null 2>&1
    [ -n "${anchor:-}" ] && q "DELETE FROM jobs WHERE owner_name = '$u'
        AND (name = 'msd-flood' OR id = $anchor)" >/dev/null
    daemon_cleanup
}
trap held_cleanup EXIT
daemon_db_ready || { echo "bench_held: cannot migrate the test bed's database" >&2; exit 1; }
daemon_lock
log=$dtmp/msd.log
daemon_lead

d=$(job_dir "$u") d2=$(job_dir "$u2")
printf '#!/bin/sh\n#SBATCH -t 2\n#SBATCH -J msd-flood\nsleep 1\n' > "$d/flood.sh"
printf '#!/bin/sh\n#SBATCH -t 2\n#SBATCH -J msd-other\nsleep 1\n' > "$d2/other.sh"
chmod 755 "$d/flood.sh" "$d2/other.sh"
daemon_answers "$u2" "$d2" other.sh
# no limit in the way of the flood (admins set them back at the end)
restore=$(settings_now max_held_per_user max_queued_per_user whatif_per_minute)
cfg set max_held_per_user=0 max_queued_per_user=0 >/dev/null 2>&1

out=$(msb "$u" "$d" --dependency=afterok:999999999 --kill-on-invalid-dep=no flood.sh 2>&1)
anchor=$(printf '%s' "$out" | grep -o '[0-9][0-9]*$')
[ -n "$anchor" ] || { echo "bench_held: no anchor job: $out" >&2; exit 1; }
anchor_held () { [ "$(q "SELECT held FROM jobs WHERE id = $anchor")" = DependencyNeverSatisfied ]; }
wait_for 30 anchor_held

cycle_s () { curl -s --unix-socket "$dtmp/msd.sock" http://localhost/metrics | sed -n 's/^metaschedd_cycle_seconds //p'; }
cycles () { curl -s --unix-socket "$dtmp/msd.sock" http://localhost/metrics | sed -n 's/^metaschedd_cycles_total //p'; }

printf '%10s %12s %12s %12s %14s\n' held cycle_med_s cycle_max_s taken_s dispatched_s
for n in $sizes; do
    q "DELETE FROM jobs WHERE owner_name = '$u' AND name = 'msd-flood' AND id <> $anchor" >/dev/null
    if [ "$n" -gt 0 ]; then
        q "INSERT INTO jobs (owner_uid, owner_gid, owner_name, name, app, script,
             options, nodes, time_limit_min, held)
           SELECT owner_uid, owner_gid, owner_name, name, app, script,
             options || jsonb_build_object ('dependency', 'afterok:$anchor,singleton'),
             nodes, time_limit_min, 'Dependency'
           FROM jobs, generate_series (1, $n) WHERE id = $anchor" >/dev/null
        last=$(q "SELECT max(id) FROM jobs WHERE owner_name = '$u' AND name = 'msd-flood'")
        seen () { [ -n "$(q "SELECT 1 FROM jobs WHERE id = $last AND last_error IS NOT NULL")" ]; }
        wait_for 900 seen || echo "bench_held: the daemon did not read $n held jobs in 900 s" >&2
    fi
    # 5 cycles after the flood was read
    samples=
    c0=$(cycles)
    for i in 1 2 3 4 5; do
        end=$(( $(date +%s) + 900 ))
        while [ "$(cycles)" = "$c0" ] && [ "$(date +%s)" -lt "$end" ]; do sleep 0.2; done
        c0=$(cycles)
        samples="$samples $(cycle_s)"
    done
    med=$(printf '%s\n' $samples | sort -g | sed -n 3p)
    max=$(printf '%s\n' $samples | sort -g | tail -1)
    t0=$(date +%s.%N)
    out=$(msb "$u2" "$d2" other.sh 2>&1); id2=$(printf '%s' "$out" | grep -o '[0-9][0-9]*$')
    t1=$(date +%s.%N)
    gone_out () { [ -n "$(q "SELECT 1 FROM jobs WHERE id = ${id2:-0} AND state IN ('submitted', 'running', 'completed')")" ]; }
    if wait_for 900 gone_out; then t2=$(date +%s.%N); disp=$(echo "$t2 - $t0" | bc); else disp=">900"; fi
    printf '%10s %12.3f %12.3f %12.3f %14s\n' "$n" "$med" "$max" "$(echo "$t1 - $t0" | bc)" "$disp"
done
