#!/bin/sh
# The window policy in the daemon on the test bed: with policy =
# metasched_window (set through the API as an admin) metaschedd decides
# each batch of queued jobs at once with the window assignment (GLPK,
# metasched/core/window.c, the code the simulator runs): every job's
# decision row names the policy, the log shows the solves, and every job
# runs and completes where its row says. TAP output.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
[ -x "$msbatch" ] || tap_skip_all "$msbatch not built"
njobs=6

win_cleanup () {
    [ -n "${restore:-}" ] && cfg set "policy=$restore" >/dev/null 2>&1
    daemon_cleanup
}
trap win_cleanup EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
daemon_lock
tap_plan 7

log=$dtmp/msd.log
daemon_lead

restore=$(cfg_value policy metasched)
out=$(cfg set policy=metasched_window 2>&1)
tap_ok $? "an admin sets policy=metasched_window ($out)"
cfg show 2>/dev/null | grep -q '^policy *= *metasched_window$'
tap_ok $? "the setting reads back ($(cfg show 2>/dev/null | grep '^policy'))"

u=$MS_TEST_USER
d=$(job_dir "$u")
cat > "$d/win.sh" <<EOS
#!/bin/sh
#SBATCH -t 5
#SBATCH -J msd-win
echo "\$METASCHED_JOB_ID \$SLURM_CLUSTER_NAME" >> $d/win.log
sleep 2
EOS
chmod 755 "$d/win.sh"
touch "$d/win.log" && chown "$u" "$d/win.log"
# The daemon reads its settings when a cycle begins, and a cycle goes on
# dispatching while jobs come: probe jobs until one is decided by the
# window (a new cycle has read the setting).
decided_by () { q "SELECT policy FROM decisions WHERE job_id = $1 LIMIT 1"; }
has_decision () { [ -n "$(decided_by "$1")" ]; }
probes= applied=no
for p in 1 2 3 4 5; do
    out=$(msb "$u" "$d" win.sh 2>&1); pid=$(printf '%s' "$out" | grep -o '[0-9][0-9]*$')
    [ -n "$pid" ] || break
    probes="$probes $pid"
    wait_for 60 has_decision "$pid"
    case $(decided_by "$pid") in
    metasched_window*) applied=yes; break ;;
    esac
done
tap_ok "$(ok_if [ $applied = yes ])" "a cycle applies the setting: probe jobs$probes, the last decided by $(decided_by "${pid:-0}")"
from=$(wc -l < "$log")
# all at once, so that a batch holds several
i=0 subs=
while [ $i -lt $njobs ]; do
    msb "$u" "$d" win.sh > "$dtmp/sub.$i" 2>&1 &
    subs="$subs $!"
    i=$((i + 1))
done
# shellcheck disable=SC2086
wait $subs # (not the daemon, a child of this shell too)
ids=$(cat "$dtmp"/sub.* | grep -o '[0-9][0-9]*$' | sort -n | paste -sd, -)
n=$(printf '%s' "$ids" | tr ',' '\n' | grep -c .)
tap_ok "$(ok_if [ "$n" = $njobs ])" "$njobs jobs submitted ($ids)"

all_done () { [ "$(q "SELECT count(*) FROM jobs WHERE id IN ($ids) AND state IN ('completed', 'failed', 'cancelled')")" = $njobs ]; }
wait_for 150 all_done
[ "$(q "SELECT count(*) FROM jobs WHERE id IN ($ids) AND state = 'completed'")" = $njobs ]
tap_ok $? "every job completes ($(q "SELECT id, state, cluster, partition, last_error FROM jobs WHERE id IN ($ids)" | tr '\n' ' '))"

# each job's decision was the window's: the row names the policy, and
# the job ran on the cluster the decision chose
bad=$(q "SELECT j.id || ':' || coalesce(x.policy, '-') || '@' || coalesce(x.cluster, '-') || '/' || coalesce(j.cluster, '-') FROM jobs j LEFT JOIN decisions x ON x.job_id = j.id WHERE j.id IN ($ids) AND (x.policy IS NULL OR x.policy NOT LIKE 'metasched_window%' OR x.cluster <> j.cluster)")
tap_ok "$(ok_if [ -z "$bad" ])" "every decision row names metasched_window and the cluster the job ran on${bad:+ (not so: $(echo $bad))}"

# the log: each batch solved as one program (jobs, bids, time, and
# whether GLPK proved it optimal or the greedy choice was taken)
sums=$(tail -n +"$((from + 1))" "$log" | sed -n 's/.*window: \([0-9][0-9]*\) jobs, .*/\1/p' | tr '\n' ' ')
tot=0
for s in $sums; do tot=$((tot + s)); done
[ "$tot" -ge $njobs ]
tap_ok $? "the window solves decided the $njobs jobs: batches of $sums($(tail -n +"$((from + 1))" "$log" | grep -c 'window: .* optimal') proved optimal)"
