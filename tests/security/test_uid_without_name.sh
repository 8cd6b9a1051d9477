#!/bin/sh
# A MUNGE credential of a uid that has no user name (no passwd entry) is
# refused with 403 and a reason, never served under a made-up name
# (doc/api.md "Authentication"): a client run as uid 54321 (setpriv) lists
# jobs and submits one; both are refused and nothing is stored for it.
# TAP output.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
[ -x "$msbatch" ] || tap_skip_all "$msbatch not built"
apireq=$MS_BUILDDIR/tests/security/roles_apireq
[ -x "$apireq" ] || tap_skip_all "$apireq not built (make check builds it)"
command -v setpriv >/dev/null || tap_skip_all "no setpriv"
anon=54321
getent passwd "$anon" >/dev/null && tap_skip_all "uid $anon has a name here"
trap daemon_cleanup EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
daemon_lock
tap_plan 4
log=$dtmp/msd.log
daemon_lead
as_anon () {
    setpriv --reuid="$anon" --regid="$anon" --clear-groups \
        env METASCHED_MUNGE_SOCKET="$MS_MUNGE_SOCKET" "$@"
}
before=$(q "SELECT count (*) FROM jobs WHERE owner_uid = $anon OR owner_name LIKE 'uid%'")

out=$(as_anon "$apireq" "$dtmp/msd.sock" GET /v1/jobs 2>&1)
case $out in
403*"uid $anon"*"no user name"*) r=0 ;;
*) r=1 ;;
esac
tap_ok $r "GET /v1/jobs as uid $anon: 403 saying why ($out)"

d=$dtmp/anon
mkdir -p "$d" && chown "$anon:$anon" "$d"
printf '#!/bin/sh\n#SBATCH -t 3\nsleep 1\n' > "$d/anon.sh"
chown "$anon:$anon" "$d/anon.sh"; chmod 755 "$d/anon.sh"
out=$(cd "$d" && as_anon METASCHED_SERVER="unix:$dtmp/msd.sock" "$msbatch" anon.sh 2>&1)
rc=$?
[ "$rc" != 0 ] && case $out in *403*) true ;; *) false ;; esac
tap_ok $? "msbatch as uid $anon: refused with 403 (rc $rc: $out)"
after=$(q "SELECT count (*) FROM jobs WHERE owner_uid = $anon OR owner_name LIKE 'uid%'")
tap_ok "$(ok_if [ "$after" = "$before" ])" "nothing stored for uid $anon ($before rows before, $after after)"

# a named user is still served
out=$(runuser -u "$MS_TEST_USER" -- env METASCHED_MUNGE_SOCKET="$MS_MUNGE_SOCKET" "$apireq" "$dtmp/msd.sock" GET /v1/jobs 2>&1)
case $out in 200*) r=0 ;; *) r=1 ;; esac
tap_ok $r "GET /v1/jobs as $MS_TEST_USER: 200 ($(printf '%s' "$out" | head -c 80))"
exit $tap_failed
