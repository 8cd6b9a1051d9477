#!/bin/sh
# Exactly-once dispatch under SIGKILL (doc/architecture.md "Reliability and
# security"): a burst of submissions (MS_KILL_JOBS, default 500) while
# metaschedd is killed with SIGKILL at random moments and restarted each time. At the end every meta
# job of the burst is on exactly one cluster: counting the cluster jobs
# tagged metasched:<id> over all three clusters (cancelled ones aside),
# none is lost and none duplicated, and the row names that cluster job.
# The jobs are tiny sleeps, cancelled at the end. Every cluster stays up
# here: a row left dispatching to a cluster that then goes away stays
# dispatching, with the reason, until that cluster answers (it may hold the
# copy), and is then adopted or queued again; test_dispatch_cluster_gone.sh
# checks that case on purpose. TAP output.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
[ -x "$msbatch" ] || tap_skip_all "$msbatch not built"
trap daemon_cleanup EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
daemon_lock
N=${MS_KILL_JOBS:-500}
W=4
tap_plan 7

log=$dtmp/msd.log
write_conf "$dtmp/msd.conf"
u=$MS_TEST_USER
d=$(job_dir "$u")
printf '#!/bin/sh\n#SBATCH -t 3\nsleep 90\n' > "$d/tiny.sh"
chmod 755 "$d/tiny.sh"
first=$(q "SELECT coalesce (max (id), 0) FROM jobs")

start_daemon "$dtmp/msd.conf" "$log"
daemon_up "$log"

# W submitters of N/W jobs each; a submission that never reached the
# daemon (not reachable) is tried again, one whose answer was lost is
# counted as ambiguous (the daemon may or may not have stored it)
submitter () {
    i=0
    while [ $i -lt "$1" ]; do
        out=$(msb "$u" "$d" tiny.sh 2>&1)
        case $out in
        "Submitted meta job "*) echo "${out##* }" >> "$dtmp/ids.$2"; i=$((i + 1)) ;;
        *"not reachable"*|*"onnection refused"*|*"No such file"*) sleep 0.1 ;;
        *) echo "$out" >> "$dtmp/ambiguous.$2"; i=$((i + 1)) ;;
        esac
    done
}
spids=
for w in $(seq 1 $W); do
    submitter $((N / W)) "$w" &
    spids="$spids $!"
done

# the killer: SIGKILL at random moments, restart at once
kills=0
running () { for p in $spids; do kill -0 "$p" 2>/dev/null && return 0; done; return 1; }
while running; do
    ms=$(( $(od -An -N2 -tu2 /dev/urandom) % 3000 + 1000 ))
    sleep "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))"
    kill -9 "$daemon_pid" 2>/dev/null && kills=$((kills + 1))
    wait "$daemon_pid" 2>/dev/null
    start_daemon "$dtmp/msd.conf" "$log"
done
# and a few more while the queue drains
for k in 1 2 3; do
    sleep 2
    kill -9 "$daemon_pid" 2>/dev/null && kills=$((kills + 1))
    wait "$daemon_pid" 2>/dev/null
    start_daemon "$dtmp/msd.conf" "$log"
done
cat "$dtmp"/ids.* 2>/dev/null | sort -n > "$dtmp/ids"
nids=$(wc -l < "$dtmp/ids")
namb=$(cat "$dtmp"/ambiguous.* 2>/dev/null | wc -l)
[ "$namb" -gt 0 ] && echo "# ambiguous: $(cat "$dtmp"/ambiguous.* | sort | uniq -c | head -5 | tr "\n" " ")"
[ $((nids + namb)) = $((N / W * W)) ] && [ "$nids" -ge $((N / 2)) ] && [ "$kills" -ge 5 ]
tap_ok $? \
    "$nids of $N submissions acknowledged ($namb ambiguous) across $kills SIGKILLs"

settled () { [ "$(q "SELECT count(*) FROM jobs WHERE id > $first AND state IN ('queued', 'deciding', 'dispatching')")" = 0 ]; }
wait_for 240 settled; r=$?
tap_ok "$r" "every job left queued/deciding/dispatching ($(q "SELECT state, count(*) FROM jobs WHERE id > $first GROUP BY state" | tr '\n' ' '))"

cluster_jobs_tagged | grep '^metasched:' | grep -v '|CANCELLED|' > "$dtmp/tagged"
# per meta id of the burst: how many live or finished cluster jobs
q "SELECT id FROM jobs WHERE id > $first ORDER BY id" > "$dtmp/all"
awk -F'[:|]' 'NR == FNR { n[$2]++; next } { c = n[$1] + 0; if (c == 0) z++; else if (c > 1) m++ } END { printf "%d %d\n", z + 0, m + 0 }' "$dtmp/tagged" "$dtmp/all" > "$dtmp/counts"
read -r zero multi < "$dtmp/counts"
nall=$(wc -l < "$dtmp/all")
tap_ok "$(ok_if [ "$zero" = 0 ])" "no meta job lost: each of $nall is on a cluster ($zero on none)"
tap_ok "$(ok_if [ "$multi" = 0 ])" "no meta job duplicated ($multi on more than one cluster)"

missing=$(awk 'NR == FNR { a[$1] = 1; next } !($1 in a)' "$dtmp/all" "$dtmp/ids" | wc -l)
tap_ok "$(ok_if [ "$missing" = 0 ])" "every acknowledged id is in the queue ($missing missing)"

# the row names the cluster job that carries its tag
awk -F'|' '{ split ($1, t, ":"); print t[2] "|" $4 "|" $3 }' "$dtmp/tagged" | sort > "$dtmp/tagmap"
q "SELECT id || '|' || cluster || '|' || cluster_job_id FROM jobs WHERE id > $first AND state IN ('submitted', 'running', 'completed')" | sort > "$dtmp/rowmap"
bad=$(comm -13 "$dtmp/tagmap" "$dtmp/rowmap" | wc -l)
tap_ok "$(ok_if [ "$bad" = 0 ])" "each row's cluster and cluster job id are those of its tagged job ($bad differ)"

tap_ok "$(ok_if grep -q 'reconciled' "$log")" "restarts reconciled in-flight rows ($(grep -c 'found on\|queued again\|duplicate' "$log") adoptions, requeues or duplicates)"
