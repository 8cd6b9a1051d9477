#!/bin/sh
# "Not your job" and "no such job" are one answer, byte for byte, so that a
# job id says nothing about other users' jobs (doc/api.md "Errors"):
#   - GET, DELETE and POST .../claim of another user's job and of an id
#     that never existed (one taken from the sequence, and one far above)
#     give the same HTTP status and the same body;
#   - with dependency_other_users = no, --dependency=afterok:<another
#     user's job> and afterok:<an id that never existed> end with the same
#     reason (the id the user wrote aside).
# TAP output.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
[ -x "$msbatch" ] || tap_skip_all "$msbatch not built"
apireq=$MS_BUILDDIR/tests/security/roles_apireq
[ -x "$apireq" ] || tap_skip_all "$apireq not built (make check builds it)"
restore=
cleanup () {
    [ -n "$restore" ] && cfg set $restore >/dev/null 2>&1
    daemon_cleanup
}
trap cleanup EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
daemon_lock
tap_plan 6
log=$dtmp/msd.log
u1=$MS_TEST_USER u2=$MS_TEST_USER2
d1=$(job_dir "$u1")
d2=$(job_dir "$u2")
daemon_lead

# the other user's job, and an id that never existed
msb_sleep "$u2" "$d2" other 3
other=${job_id:-0}
gap=$(q "SELECT nextval (pg_get_serial_sequence ('jobs', 'id'))")
far=999999999999
req () { # req USER METHOD TARGET [BODY]: "STATUS<tab>BODY" as received
    runuser -u "$1" -- env METASCHED_MUNGE_SOCKET="$MS_MUNGE_SOCKET" \
        "$apireq" "$dtmp/msd.sock" "$2" "$3" ${4:+"$4"}
}
[ "$other" != 0 ] && [ "$(q "SELECT owner_name FROM jobs WHERE id = $other")" = "$u2" ] &&
    [ -z "$(q "SELECT 1 FROM jobs WHERE id IN ($gap, $far)")" ]
tap_ok $? "job $other is $u2's; ids $gap and $far do not exist"

claim='{"cluster":"'${MS_CLUSTERS%% *}'","cluster_job_id":1}'
for m in GET DELETE CLAIM; do
    if [ $m = CLAIM ]; then
        a=$(req "$u1" POST "/v1/jobs/$other/claim" "$claim")
        b=$(req "$u1" POST "/v1/jobs/$gap/claim" "$claim")
        c=$(req "$u1" POST "/v1/jobs/$far/claim" "$claim")
    else
        a=$(req "$u1" $m "/v1/jobs/$other")
        b=$(req "$u1" $m "/v1/jobs/$gap")
        c=$(req "$u1" $m "/v1/jobs/$far")
    fi
    [ -n "$a" ] && [ "$a" = "$b" ] && [ "$a" = "$c" ] && case $a in 404*) true ;; *) false ;; esac
    tap_ok $? "$m: $u2's job and no job answer alike, byte for byte ([$a] [$b] [$c])"
done
[ "$(q "SELECT state FROM jobs WHERE id = $other")" != cancelled ]
tap_ok $? "$u2's job was not cancelled by $u1's DELETE ($(q "SELECT state FROM jobs WHERE id = $other"))"

# dependencies, where the site allows only one's own jobs
restore=$(settings_now dependency_other_users)
cfg set dependency_other_users=no >/dev/null 2>&1
msb_sleep "$u1" "$d1" dep-other 3 "--dependency=afterok:$other"
ja=${job_id:-0}
msb_sleep "$u1" "$d1" dep-gap 3 "--dependency=afterok:$gap"
jb=${job_id:-0}
ended () { [ "$(q "SELECT count (*) FROM jobs WHERE id IN ($ja, $jb) AND state = 'cancelled'")" = 2 ]; }
wait_for 30 ended
ra=$(q "SELECT last_error FROM jobs WHERE id = $ja")
rb=$(q "SELECT last_error FROM jobs WHERE id = $jb")
na=$(printf '%s' "$ra" | sed "s/afterok:$other:/afterok:ID:/")
nb=$(printf '%s' "$rb" | sed "s/afterok:$gap:/afterok:ID:/")
[ -n "$na" ] && [ "$na" = "$nb" ]
tap_ok $? "afterok:<$u2's job> and afterok:<no job> end alike ([$ra] [$rb])"
exit $tap_failed
