# acct_lib.sh - helpers of the tests of jobs missing from a controller
# (doc/daemon.md, "Jobs missing from a controller"); sourced after
# daemon_lib.sh. A job ends while metaschedd is down and its cluster,
# with MinJobAge=2, forgets it before the daemon is back.

# acct_minjobage CLUSTER...: MinJobAge=2 on these clusters. Where the test
# bed is not set so, testbed/start runs again with MS_TESTBED_MINJOBAGE
# (the other clusters keep theirs) and acct_restore sets every cluster
# back afterwards. The caller holds the test bed's services for itself
# (tap_services_exclusive, before daemon_lock as every such test does).
acct_was=
acct_minjobage () {
    am_want= am_was= am_change=0
    for am_c in $MS_CLUSTERS; do
        am_v=$(on_cluster "$am_c" scontrol show config 2>/dev/null | awk '$1 == "MinJobAge" { print $3 }')
        [ -n "$am_v" ] || return 1
        am_was="$am_was${am_was:+,}$am_c:$am_v"
        case " $* " in
        *" $am_c "*) [ "$am_v" = 2 ] || am_change=1; am_v=2 ;;
        esac
        am_want="$am_want${am_want:+,}$am_c:$am_v"
    done
    [ "$am_change" = 1 ] || return 0
    acct_was=$am_was
    MS_TESTBED_MINJOBAGE=$am_want "$MS_SRCDIR/testbed/start" >>"$dtmp/testbed.log" 2>&1 7>&- 8>&-
}
acct_restore () {
    [ -n "$acct_was" ] || return 0
    MS_TESTBED_MINJOBAGE=$acct_was "$MS_SRCDIR/testbed/start" >/dev/null 2>&1 7>&- 8>&-
    acct_was=
}

qs () { psql "$MS_PG_SUPER_CONNINFO" -X -A -t -q -c "$1" 2>&1; }

# acct_hold_on: a job named acct-hold* stops in the middle of its
# dispatch: the cluster has taken its copy, and the database's commit of
# "submitted" waits (a trigger of this test sleeps in it) until the test
# kills the daemon. acct_hold_off ends the wait (the transaction rolls
# back: the row stays dispatching) and drops the trigger.
acct_hold_on () {
    qs "CREATE OR REPLACE FUNCTION ms_test_acct_hold () RETURNS trigger
        LANGUAGE plpgsql AS \$\$
        BEGIN
            IF OLD.state::text = 'dispatching' AND NEW.state::text = 'submitted'
               AND NEW.name LIKE 'acct-hold%' THEN
                PERFORM pg_sleep (900);
            END IF;
            RETURN NEW;
        END \$\$;
        DROP TRIGGER IF EXISTS ms_test_acct_hold ON jobs;
        CREATE TRIGGER ms_test_acct_hold BEFORE UPDATE ON jobs
            FOR EACH ROW EXECUTE FUNCTION ms_test_acct_hold ();" >/dev/null
}
acct_hold_off () {
    # the sleeper first: its transaction holds the table that DROP TRIGGER
    # must lock, and every later statement on jobs would queue behind
    qs "SELECT count (pg_terminate_backend (pid)) FROM pg_stat_activity
        WHERE wait_event = 'PgSleep' AND query LIKE '%UPDATE jobs%'" >/dev/null
    qs "SET lock_timeout = '60s';
        DROP TRIGGER IF EXISTS ms_test_acct_hold ON jobs;
        DROP FUNCTION IF EXISTS ms_test_acct_hold ();" >/dev/null
}
# acct_holding: a session of the daemon sleeps in the trigger
acct_holding () {
    [ "$(qs "SELECT count (*) FROM pg_stat_activity WHERE wait_event = 'PgSleep'
             AND query LIKE '%UPDATE jobs%'")" -ge 1 ] 2>/dev/null
}

# copy_on CLUSTER ID: "SLURMID COMMENT" of the cluster's job tagged for
# meta job ID (empty: none listed)
copy_on () {
    on_cluster "$1" squeue -h -a -t all -o '%i %k' 2>/dev/null | awk -v t="metasched:$2:" 'index ($2, t) == 1 { print; exit }'
}
has_copy () { [ -n "$(copy_on "$1" "$2")" ]; }
# listed CLUSTER SLURMID: slurmctld still lists the job
listed () { on_cluster "$1" scontrol show job "$2" >/dev/null 2>&1; }
gone () { for gj in $2; do listed "$1" "$gj" && return 1; done; return 0; }
# has TEXT PATTERN: grep's pattern in the text; refused RC OUT STATUS: a
# command that failed (RC) with "[HTTP STATUS]" in its message OUT
has () { printf '%s\n' "$1" | grep -q -- "$2"; }
refused () { [ "$1" != 0 ] && has "$2" "\\[HTTP $3\\]"; }
state_of () { q "SELECT state FROM jobs WHERE id = $1"; }
is_state () { [ "$(state_of "$1")" = "$2" ]; }

# msb_job USER DIR NAME CLUSTER SECONDS [EXIT] [DEPENDENCY]: a job named
# NAME on CLUSTER that sleeps SECONDS and exits EXIT (default 0); job_id
# gets its meta job id
msb_job () {
    {
        printf '#!/bin/sh\n#SBATCH -t 5\n#SBATCH -J %s\n#SBATCH -M %s\n' "$3" "$4"
        [ -z "${7:-}" ] || printf '#SBATCH --dependency=%s\n' "$7"
        printf 'sleep %s\nexit %s\n' "$5" "${6:-0}"
    } > "$2/$3.sh"
    chmod 755 "$2/$3.sh"
    job_out=$(msb "$1" "$2" "$3.sh" 2>&1)
    job_id=$(printf '%s' "$job_out" | grep -o '[0-9][0-9]*$')
}
