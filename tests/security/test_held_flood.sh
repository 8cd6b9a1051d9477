#!/bin/sh
# One user floods metasched with held jobs (doc/admin-guide.md, "Per-user
# limits"): msuser holds 100,000 jobs behind a dependency (real rows,
# written through the daemon's role, that the daemon reads as held every
# cycle: afterok on a job that never runs, and singleton), then:
#   - with max_held_per_user = 100000, msuser's next held job is refused
#     with HTTP 429 naming the limit and its value, and nothing is stored;
#   - msuser2's job is taken and dispatched to a cluster within 60 s (the
#     latency and the daemon's cycle time are printed);
#   - with whatif_per_minute = 3, msuser2's fourth what-if in a row is
#     refused with 429 naming the limit, and the answer carries
#     Retry-After; an admin is not limited.
# The settings are set back and the rows removed at the end. TAP output.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
[ -x "$msbatch" ] || tap_skip_all "$msbatch not built"
command -v curl >/dev/null || tap_skip_all "curl not installed"
command -v munge >/dev/null || tap_skip_all "munge (the command) not installed"

flood=100000
flood_cleanup () {
    [ -n "${restore:-}" ] && cfg set $restore >/dev/null 2>&1
    [ -n "${anchor:-}" ] && q "DELETE FROM jobs WHERE owner_name = '$MS_TEST_USER'
        AND (name = 'msd-flood' OR id = $anchor)" >/dev/null
    daemon_cleanup
}
trap flood_cleanup EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
daemon_lock
tap_plan 9

log=$dtmp/msd.log
daemon_lead

u=$MS_TEST_USER u2=$MS_TEST_USER2
d=$(job_dir "$u") d2=$(job_dir "$u2")
printf '#!/bin/sh\n#SBATCH -t 2\n#SBATCH -J msd-flood\nsleep 1\n' > "$d/flood.sh"
printf '#!/bin/sh\n#SBATCH -t 2\n#SBATCH -J msd-other\nsleep 1\n' > "$d2/other.sh"
chmod 755 "$d/flood.sh" "$d2/other.sh"
daemon_answers "$u2" "$d2" other.sh

# the anchor: a job of msuser that never runs (its dependency names a job
# that did not exist; --kill-on-invalid-dep=no keeps it held)
out=$(msb "$u" "$d" --dependency=afterok:999999999 --kill-on-invalid-dep=no flood.sh 2>&1)
anchor=$(printf '%s' "$out" | grep -o '[0-9][0-9]*$')
anchor_held () { [ "$(q "SELECT held FROM jobs WHERE id = ${anchor:-0}")" = DependencyNeverSatisfied ]; }
wait_for 20 anchor_held
tap_ok $? "msuser's anchor job ${anchor:-?} is held for good ($out; $(q "SELECT state, held FROM jobs WHERE id = ${anchor:-0}" | tr '\n' ' '))"
[ -n "$anchor" ] || { echo "Bail out! no anchor job"; exit 1; }

# the flood: copies of the anchor's row, each waiting for it and for its
# name (singleton), inserted in one statement through the daemon's role
t0=$(date +%s)
q "INSERT INTO jobs (owner_uid, owner_gid, owner_name, name, app, script,
     options, nodes, time_limit_min, held)
   SELECT owner_uid, owner_gid, owner_name, name, app, script,
     options || jsonb_build_object ('dependency', 'afterok:$anchor,singleton',
                                    'kill_on_invalid_dep', true),
     nodes, time_limit_min, 'Dependency'
   FROM jobs, generate_series (1, $flood) WHERE id = $anchor" >/dev/null
nheld=$(q "SELECT count(*) FROM jobs WHERE owner_name = '$u' AND state = 'queued' AND held = 'Dependency'")
last=$(q "SELECT max(id) FROM jobs WHERE owner_name = '$u' AND name = 'msd-flood'")
tap_ok "$(ok_if [ "${nheld:-0}" -ge $flood ])" "$flood held jobs of $u stored in $(( $(date +%s) - t0 )) s ($nheld held)"

# the daemon reads them as held: each notes what it waits for
seen () { [ -n "$(q "SELECT 1 FROM jobs WHERE id = $last AND last_error LIKE 'waiting for afterok:$anchor%'")" ]; }
t0=$(date +%s)
wait_for 300 seen
tap_ok $? "the daemon reads the flood as held: job $last notes '$(q "SELECT last_error FROM jobs WHERE id = $last")' after $(( $(date +%s) - t0 )) s"

restore=$(settings_now max_held_per_user max_queued_per_user whatif_per_minute)
out=$(cfg set max_held_per_user=$flood max_queued_per_user=10000 whatif_per_minute=3 2>&1)
tap_ok $? "an admin sets max_held_per_user=$flood, max_queued_per_user=10000, whatif_per_minute=3 (were: ${restore:-?}) $(printf '%s' "$out" | tr '\n' ' ')"
sleep 1.5 # the API's copy of the limits is at most a second old

before=$(q "SELECT count(*) FROM jobs WHERE owner_name = '$u'")
out=$(msb "$u" "$d" --dependency=afterok:$anchor flood.sh 2>&1)
after=$(q "SELECT count(*) FROM jobs WHERE owner_name = '$u'")
says () { printf '%s' "$out" | grep -q -- "$1"; }
tap_ok "$(if says 'HTTP 429' && says "max_held_per_user = $flood" && [ "$before" = "$after" ]; then echo 0; else echo 1; fi)" "$u's next held job is refused, 429 naming the limit and its value, nothing stored ($before rows, then $after): $out"

# another user is served: taken at once, dispatched to a cluster soon
t0=$(date +%s.%N)
out=$(msb "$u2" "$d2" other.sh 2>&1); id2=$(printf '%s' "$out" | grep -o '[0-9][0-9]*$')
t1=$(date +%s.%N)
gone_out () { [ -n "$(q "SELECT 1 FROM jobs WHERE id = ${id2:-0} AND state IN ('submitted', 'running', 'completed')")" ]; }
wait_for 60 gone_out; r=$?
t2=$(date +%s.%N)
cyc=$(curl -s --unix-socket "$dtmp/msd.sock" http://localhost/metrics | sed -n 's/^metaschedd_cycle_seconds //p')
tap_ok "$(if [ $r = 0 ] && [ -n "$id2" ]; then echo 0; else echo 1; fi)" "$u2's job ${id2:-?} is taken in $(echo "$t1 - $t0" | bc) s and dispatched $(echo "$t2 - $t0" | bc) s after its submission ($(q "SELECT state, cluster FROM jobs WHERE id = ${id2:-0}" | tr '\n' ' ')); the daemon's last cycle took ${cyc:-?} s with $nheld held jobs"

# what-ifs: three go, the fourth is refused
codes=
for i in 1 2 3 4; do
    o=$(msb "$u2" "$d2" --test-only other.sh 2>&1)
    case $o in *"HTTP 429"*) codes="$codes 429" ;; *"[HTTP "*) codes="$codes err" ;; *) codes="$codes ok" ;; esac
    [ $i = 4 ] && last_o=$o
done
tap_ok "$(if [ "$codes" = " ok ok ok 429" ] && echo "$last_o" | grep -q whatif_per_minute; then echo 0; else echo 1; fi)" "$u2's what-ifs:$codes; the fourth: $last_o"

# the same refusal through the API itself: status and Retry-After
body='{"script":"#!/bin/sh\nsleep 1\n","name":"msd-rate","nodes":1,"time_limit_min":2,"cwd":"/tmp"}'
sum=$(printf '%s' "$body" | sha256sum | cut -d' ' -f1)
cred=$(runuser -u "$u2" -- munge -S "$MS_MUNGE_SOCKET" -s "metasched/1 POST /v1/whatif $sum" 2>/dev/null)
hdr=$(curl -s -D - -o "$dtmp/rate.json" --unix-socket "$dtmp/msd.sock" \
    -H "Authorization: MUNGE $cred" -H 'Content-Type: application/json' \
    --data-binary "$body" http://localhost/v1/whatif | tr -d '\r')
st=$(printf '%s\n' "$hdr" | sed -n 's/^HTTP\/[0-9.]* \([0-9]*\).*/\1/p' | head -1)
ra=$(printf '%s\n' "$hdr" | sed -n 's/^[Rr]etry-[Aa]fter: *//p')
tap_ok "$(if [ "$st" = 429 ] && [ "${ra:-0}" -ge 1 ] && grep -q '"limit":"whatif_per_minute"' "$dtmp/rate.json"; then echo 0; else echo 1; fi)" "the API answers $st, Retry-After: ${ra:-none}: $(head -c 300 "$dtmp/rate.json")"

# admins are exempt
codes=
for i in 1 2 3 4 5; do
    o=$(msb root /tmp --test-only "$d2/other.sh" 2>&1)
    case $o in *"HTTP 429"*) codes="$codes 429" ;; *"[HTTP "*) codes="$codes err" ;; *) codes="$codes ok" ;; esac
done
tap_ok "$(ok_if [ "$codes" = " ok ok ok ok ok" ])" "an admin's five what-ifs in a row:$codes"
exit $tap_failed
