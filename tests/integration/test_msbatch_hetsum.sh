#!/bin/sh
# Heterogeneous jobs whose components fit a cluster one by one but not
# together, through metaschedd on the test bed: the cluster with fewer
# nodes than the components ask for together is no candidate, its reason
# shown (--test-only), and the job goes to a cluster that holds them all;
# a hetjob that no cluster holds whole is refused at msbatch time with
# sbatch's reason, nothing stored. Needs a cluster of at least 2 nodes
# and a larger one. Takes the services lock exclusive. TAP.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
[ -x "$msbatch" ] || tap_skip_all "$msbatch not built"
# the smallest cluster (its nodes: n) and the largest (N > n)
small= sn=0 big= bn=0
for c in $MS_CLUSTERS; do
    n=$(getv "MS_$(upper "$c")_NODES" | wc -w)
    if [ -z "$small" ] || [ "$n" -lt "$sn" ]; then small=$c; sn=$n; fi
    if [ "$n" -gt "$bn" ]; then big=$c; bn=$n; fi
done
[ "$sn" -ge 2 ] && [ "$bn" -gt "$sn" ] || tap_skip_all "no clusters of 2 nodes and more"
trap daemon_cleanup EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
tap_services_exclusive
daemon_lock
tap_plan 4

log=$dtmp/msd.log
daemon_lead
u=$MS_TEST_USER
d=$(job_dir "$u")
printf '#!/bin/sh\n#SBATCH -t 2 -J msd-hs\nsleep 1\n' > "$d/hs.sh"
chmod 755 "$d/hs.sh"
daemon_answers "$u" "$d" hs.sh

# 1: 1 + n nodes: each fits $small, together they do not
out=$(msb "$u" "$d" --test-only -N 1 : -N "$sn" hs.sh 2>&1); rc=$?
reason="heterogeneous job: its components ask for $((sn + 1)) nodes together, this cluster has $sn (Requested node configuration is not available)"
[ $rc = 0 ] && printf '%s\n' "$out" | grep -q "^ *$small.*$reason" \
    && ! printf '%s\n' "$out" | sed '/^excluded:/,$d' | grep -q "^[ *] *$small "
tap_ok $? "--test-only: $small ($sn nodes) is no candidate for 1 + $sn nodes, with the reason: $(printf '%s\n' "$out" | grep "$small" | tr '\n' ' ')"
out=$(msb "$u" "$d" -o /dev/null -N 1 : -N "$sn" hs.sh 2>&1); id=$(printf '%s' "$out" | grep -o '[0-9][0-9]*$')
placed () { [ -n "$(q "SELECT cluster_job_id FROM jobs WHERE id = ${id:-0} AND cluster_job_id IS NOT NULL")" ]; }
wait_for 90 placed
cl=$(q "SELECT cluster FROM jobs WHERE id = ${id:-0}")
[ -n "$id" ] && [ -n "$cl" ] && [ "$cl" != "$small" ]
tap_ok $? "it is sent to a cluster that holds it whole ($out: ${cl:-none})"

# 2: more nodes together than the largest cluster has: refused at msbatch
before=$(q "SELECT count(*) FROM jobs")
out=$(msb "$u" "$d" -o /dev/null -N 1 : -N "$bn" hs.sh 2>&1); rc=$?
after=$(q "SELECT count(*) FROM jobs")
[ $rc != 0 ] && printf '%s' "$out" | grep -q "HTTP 409" \
    && printf '%s' "$out" | grep -q "$big: heterogeneous job: its components ask for $((bn + 1)) nodes together, this cluster has $bn (Requested node configuration is not available)" \
    && [ "$before" = "$after" ]
tap_ok $? "1 + $bn nodes: refused at submission with each cluster's reason, nothing stored ($before, $after): $out"
done_ () { case $(q "SELECT state FROM jobs WHERE id = ${id:-0}") in completed|failed|cancelled) return 0 ;; esac; return 1; }
wait_for 120 done_
tap_ok "$(ok_if [ "$(q "SELECT state FROM jobs WHERE id = ${id:-0}")" = completed ])" "the hetjob completed on $cl ($(q "SELECT state FROM jobs WHERE id = ${id:-0}"))"
exit $tap_failed
