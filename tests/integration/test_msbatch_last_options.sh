#!/bin/sh
# The last options sbatch accepts, through metaschedd on the test bed
# (Slurm 22.05: slurmrestd OpenAPI v0.0.38), and the note of a dropped
# hint on a real submission: msbatch prints it on standard error (standard
# output stays the id), the decision keeps the chosen cluster's, msqueue
# --json shows it; a requirement no cluster's slurmrestd carries
# (--tres-per-task, --resources) is refused with each cluster's reason; a
# hint none carries (--resv-ports) runs without it, with its note. Takes
# the services lock exclusive. TAP.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
[ -x "$msbatch" ] || tap_skip_all "$msbatch not built"
msqueue=$MS_BUILDDIR/metasched/msqueue
[ -x "$msqueue" ] || tap_skip_all "$msqueue not built"
command -v jq > /dev/null || tap_skip_all "jq not installed"
trap daemon_cleanup EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
tap_services_exclusive
daemon_lock
tap_plan 8

log=$dtmp/msd.log
daemon_lead
u=$MS_TEST_USER
d=$(job_dir "$u")
printf '#!/bin/sh\n#SBATCH -t 2 -J msd-note -n 1\n#SBATCH --stepmgr\necho ran\n' > "$d/note.sh"
printf '#!/bin/sh\n#SBATCH -t 2 -J msd-ports -n 1\n#SBATCH --resv-ports=2 --mem-update=20@30\necho ran\n' > "$d/ports.sh"
printf '#!/bin/sh\n#SBATCH -t 2 -J msd-tpt -n 1\n#SBATCH --tres-per-task=cpu=1\necho ran\n' > "$d/tpt.sh"
chmod 755 "$d/note.sh" "$d/ports.sh" "$d/tpt.sh"
ncl=$(echo $MS_CLUSTERS | wc -w)
daemon_answers "$u" "$d" note.sh
msq () { (cd "$d" && runuser -u "$u" -- env METASCHED_SERVER="unix:$dtmp/msd.sock" \
    METASCHED_MUNGE_SOCKET="$MS_MUNGE_SOCKET" "$msqueue" "$@"); }

# 1: a real submission prints the note of each cluster on stderr, the id
# alone on stdout
out=$(msb "$u" "$d" --parsable note.sh 2> "$dtmp/err"); rc=$?
err=$(cat "$dtmp/err")
n=$(grep -c -- "^msbatch: note: --stepmgr: dropped on cluster [a-z]* (its slurmrestd speaks OpenAPI v0.0.38; the option needs v0.0.41, Slurm 24.05, or later)" "$dtmp/err")
[ $rc = 0 ] && printf '%s' "$out" | grep -qx '[0-9][0-9]*' && [ "$n" = "$ncl" ]
tap_ok $? "msbatch --parsable: the id alone on stdout ($out), a note for each of $ncl clusters on stderr ($n): $err"
id=$out

# 2: the decision keeps the chosen cluster's note; msqueue --json shows it
decided () { [ -n "$(q "SELECT cluster FROM jobs WHERE id = ${id:-0} AND cluster IS NOT NULL")" ]; }
wait_for 120 decided
cl=$(q "SELECT cluster FROM jobs WHERE id = ${id:-0}")
dn=$(q "SELECT c->'notes' FROM decisions d, json_array_elements (d.candidates::json) c WHERE d.job_id = ${id:-0} AND (c->>'chosen')::boolean ORDER BY d.id DESC LIMIT 1")
printf '%s' "$dn" | grep -q -- "--stepmgr: dropped on cluster $cl (its slurmrestd speaks OpenAPI v0.0.38"
tap_ok $? "the decision's chosen candidate ($cl) keeps its note: $dn"
js=$(msq -j "$id" --json 2>&1)
jn=$(printf '%s' "$js" | jq -r '.jobs[0].metasched.notes[0] // empty' 2>&1)
[ -n "$cl" ] && [ "$jn" = "--stepmgr: dropped on cluster $cl (its slurmrestd speaks OpenAPI v0.0.38; the option needs v0.0.41, Slurm 24.05, or later)" ]
tap_ok $? "msqueue --json: metasched.notes names the chosen cluster: $jn"
done_ () { [ "$(q "SELECT state FROM jobs WHERE id = ${id:-0}")" = completed ]; }
wait_for 120 done_
tap_ok $? "the job runs without --stepmgr on $cl and completes ($(q "SELECT state FROM jobs WHERE id = ${id:-0}"))"

# 3: hints no slurmrestd carries: a note for each, the job runs
out=$(msb "$u" "$d" ports.sh 2>&1); rc=$?
n=$(printf '%s\n' "$out" | grep -c -- "^msbatch: note: --\(resv-ports\|mem-update\): dropped on cluster [a-z]* (slurmrestd carries it in no OpenAPI version; this one speaks v0.0.38)")
pid=$(printf '%s' "$out" | grep -o 'job [0-9][0-9]*$' | grep -o '[0-9]*')
[ $rc = 0 ] && [ "$n" = $((2 * ncl)) ] && [ -n "$pid" ]
tap_ok $? "--resv-ports and --mem-update are dropped with a note on each cluster ($n of $((2 * ncl))): $out"
pdone () { [ "$(q "SELECT state FROM jobs WHERE id = ${pid:-0}")" = completed ]; }
wait_for 120 pdone
tap_ok $? "that job completes ($(q "SELECT state FROM jobs WHERE id = ${pid:-0}"))"

# 4: requirements: refused with each cluster's reason, nothing stored
before=$(q "SELECT count(*) FROM jobs")
out=$(msb "$u" "$d" tpt.sh 2>&1); rc=$?
n=$(printf '%s' "$out" | grep -o -- "--tres-per-task: this cluster's Slurm does not know it (its slurmrestd speaks OpenAPI v0.0.38; the option needs v0.0.39, Slurm 23.02, or later)" | wc -l)
out2=$(msb "$u" "$d" --resources=flat:2 note.sh 2>&1); rc2=$?
n2=$(printf '%s' "$out2" | grep -o -- "--resources: this cluster's Slurm does not know it (slurmrestd carries it in no OpenAPI version; this one speaks v0.0.38)" | wc -l)
after=$(q "SELECT count(*) FROM jobs")
[ $rc != 0 ] && [ "$n" = "$ncl" ] && [ $rc2 != 0 ] && [ "$n2" = "$ncl" ] && [ "$before" = "$after" ]
tap_ok $? "--tres-per-task ($n) and --resources ($n2) make no cluster a candidate, with each one's reason; nothing stored ($before, $after): $out / $out2"
out=$(msb "$u" "$d" --parse --external --container-type=oci --tres-bind=gres/gpu:closest --mem-update=20@1:00:00 < /dev/null 2>&1)
printf '%s' "$out" | grep -q '"external": *true' \
    && printf '%s' "$out" | grep -q '"container_type": *"oci"' \
    && printf '%s' "$out" | grep -q '"tres_bind": *"gres/gpu:closest"' \
    && printf '%s' "$out" | grep -q '"mem_update": *"20@1:00:00"'
tap_ok $? "msbatch --parse takes --external, --container-type, --tres-bind, --mem-update: $(printf '%s' "$out" | grep -Eo '"(external|container_type|tres_bind|mem_update)": *[^,}]*' | tr '\n' ' ')"
exit $tap_failed
