#!/bin/sh
# msbatch --parse over the corpus of batch scripts in tests/data/scripts
# (ML and GPU, bioinformatics, chemistry, climate, CFD; arrays,
# dependencies, mail, several options a line, quotes, comments, attached
# short forms, lower-case units): every script parses, selected fields of
# the JSON are what the script says, and bad scripts fail with file:line.
# No daemon is contacted. TAP.
. "${MS_SRCDIR:-.}/tests/tap.sh"
msbatch=${MS_BUILDDIR:-.}/metasched/msbatch
corpus=${MS_SRCDIR:-.}/tests/data/scripts
[ -x "$msbatch" ] || tap_skip_all "$msbatch is not built"
command -v python3 >/dev/null || tap_skip_all "no python3 to read the JSON"
tmp=$(mktemp -d /tmp/ms-test-parse.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
unset METASCHED_SERVER
cd "$corpus" || exit 1

# FILE KEY VALUE ...: the JSON of --parse FILE has KEY == VALUE (JSON text)
checks='
misc_everyday.sh name "sim" account "physics" mem_per_node_mb 4096 mail_type "END" array "1-10" time_limit_min 60
misc_everyday.sh array_spec.tasks 10
ml_pytorch_ddp.sh nodes 2 tasks_per_node 4 gpus_per_node "a100:4" mem_per_node_mb 0 time_limit_min 2880 qos "gpu_long" stdout "logs/%x-%j.out"
ml_single_gpu.sh gpus "1" cpus_per_task 8 account "nlp" time_limit_min 480
ml_gres_v100.sh gres "gpu:v100:2" gres_list.0.type "v100" gres_list.0.count 2 mem_per_cpu_mb 4000 constraint "v100-32g"
ml_sweep_array.sh array_spec.tasks 64 array_spec.max_running 8 mem_per_gpu_mb 40960 cpus_per_gpu 6 requeue true signal_spec.seconds_before 120 signal_spec.flags "B"
ml_jax_tpu_like.sh nodes 4 tasks 16 gpus_per_task "1" exclusive true time_limit_min 2160 account "ai4science" qos "normal" hint "nomultithread"
ml_inference_gres_list.sh gres_list.1.name "nvme" mem_per_node_mb 65536 tmp_mb 204800 name "llm\u0020inference"
bio_bwa_array.sh array_spec.max_index 96 mail_type "ARRAY_TASKS,FAIL" partition "bigmem"
bio_blast_steps.sh array_spec.tasks 100 array_spec.ranges.0.step 10 mem_per_node_mb 3500 time_limit_min 45
bio_dependency_merge.sh dependency_spec.conditions.2.job_id 1203 kill_on_invalid_dep true
bio_nextflow_head.sh get_user_env "1" qos "long" time_limit_min 10080
chem_gaussian.sh mem_per_node_mb 122880 tmp_mb 819200 licenses "gaussian:1"
chem_orca_hold.sh hold true comment "CCSD(T)\u0020benchmark\u0020set\u00203" time_limit_min 4320
chem_cp2k.sh nodes 8 tasks_per_node 64 cpus_per_task 2 distribution "block:block" mem_bind "local"
chem_vasp.sh switches "1@01:00:00"
clim_cesm_deps.sh dependency_spec.conditions.0.type "afterany" dependency "afterany:5001"
clim_icon_large.sh nodes 64 nodes_max 128 time_min_min 240
clim_deadline.sh nice 50
cfd_openfoam.sh exclude "node[013-015],node042" mem_per_cpu_mb 1950
cfd_fluent.sh nodelist "cfd[01-04]" licenses "ansys_hpc:128" mem_per_node_mb 184320
cfd_su2_quoted.sh name "su2\u0020wing\u0020study" stdout "out\u0020dir/%x-%j.txt" account "aero" tasks 64 time_limit_min 180
cfd_extra_node_info.sh sockets_per_node 2 cores_per_socket 16 threads_per_core 1 spread_job true use_min_nodes true
misc_attached_short.sh nodes 2 tasks 8 cpus_per_task 4 time_limit_min 60 account "physics" qos "debug" name "short-forms" stdout "%j.out" gpus "2" constraint "skylake" exclude "node7"
misc_several_per_line.sh mem_per_node_mb 2048 time_limit_min 20 account "teach" mail_user "student@example.edu" requeue true
misc_comments_between.sh time_limit_min 10 mem_per_node_mb 512
misc_lowercase_units.sh mem_per_node_mb 1500 tmp_mb 10240 time_limit_min 7200
misc_any_dependency.sh dependency_spec.any true dependency_spec.conditions.1.type "afternotok"
misc_after_delay.sh dependency_spec.conditions.0.delay_min 10 mail_type "TIME_LIMIT_80"
misc_export_list.sh export_mode "ALL"
misc_mem_per_cpu_kb.sh mem_per_cpu_mb 512 profile "energy"
misc_escaped.sh comment "run\u0020with\u0020escaped\u0020spaces" name "a#b"
misc_slurm_prefix.sh time_limit_min 20
misc_crlf.sh name "from-windows" mem_per_node_mb 1024
misc_prefix_abbrev.sh name "abbrev" tasks_per_node 2
misc_keywords_case.sh mail_type "BEGIN,END,FAIL" open_mode "append" signal_spec.number 10 signal_spec.flags "B" kill_on_invalid_dep true exclusive_mode "user" requeue true get_user_env "30L"
misc_empty_values.sh name "template" account null mail_user null mail_type "NONE" stdout null constraint null nodes 1
misc_clusters_named.sh clusters "beta" nodes 2
misc_clusters_list.sh clusters "alpha,gamma" tasks 16
misc_cpu_freq_highm1.sh cpu_freq "HighM1" cpu_freq_spec.max "highm1" exclusive true
misc_cpu_freq_governor.sh cpu_freq_spec.min "high" cpu_freq_spec.max "high" cpu_freq_spec.governor "Performance"
misc_cpu_freq_range.sh cpu_freq_spec.min 1200000 cpu_freq_spec.max 2000000 cpu_freq_spec.governor "OnDemand"
misc_priority_operator.sh priority 4294967293
cfd_hetjob_coupled.sh nodes 2 components.0.tasks 1 components.0.cpus_per_task 2 components.0.account "physics" components.0.time_limit_min 30 components.1.tasks 1
'
n_scripts=$(ls *.sh | wc -l)
n_checks=$(printf '%s\n' "$checks" | grep -c .)
tap_plan $((n_scripts + n_checks + 9))

ok=0
for f in *.sh; do
    "$msbatch" --parse "$f" > "$tmp/$f.json" 2> "$tmp/$f.err"
    rc=$?
    [ $rc = 0 ] && ok=$((ok + 1))
    tap_ok $rc "$f parses${rc:+ $(head -c 300 "$tmp/$f.err")}"
done
echo "# $ok of $n_scripts scripts of the corpus parse"

printf '%s\n' "$checks" | grep . > "$tmp/checks"
while read -r f rest; do
    python3 - "$tmp/$f.json" $rest > "$tmp/check.out" 2>&1 <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
args = sys.argv[2:]
bad = []
for key, want in zip(args[0::2], args[1::2]):
    v = doc
    for part in key.split("."):
        v = v[int(part)] if isinstance(v, list) else v.get(part)
    if v != json.loads(want):
        bad.append("%s is %r, not %s" % (key, v, want))
print("; ".join(bad))
sys.exit(1 if bad else 0)
PY
    rc=$?
    tap_ok $rc "$f: $(cat "$tmp/check.out")$rest"
done < "$tmp/checks"

# bad input: exit 1, file:line, the option named
printf '#!/bin/sh\n#SBATCH -N 2\n#SBATCH --mem=4X\n' > "$tmp/bad.sh"
"$msbatch" --parse "$tmp/bad.sh" > /dev/null 2> "$tmp/err"
rc=$?
[ $rc = 1 ] && grep -q "bad.sh:3: --mem=4X: expected a size" "$tmp/err"
tap_ok $? "a bad memory size: exit $rc, $(cat "$tmp/err")"
printf '#!/bin/sh\n#SBATCH --uid=alice\n' > "$tmp/bad.sh"
"$msbatch" --parse "$tmp/bad.sh" > /dev/null 2> "$tmp/err"
grep -q "bad.sh:2: --uid: not supported: the job runs as the user who submits it" "$tmp/err"
tap_ok $? "a refused option names itself and why: $(cat "$tmp/err")"
printf '#!/bin/sh\n#SBATCH --frobnicate\n' > "$tmp/bad.sh"
"$msbatch" --parse "$tmp/bad.sh" > /dev/null 2> "$tmp/err"
grep -q "bad.sh:2: unknown option '--frobnicate'" "$tmp/err"
tap_ok $? "an unknown option: $(cat "$tmp/err")"
# a relative --chdir is taken from the submission directory (sbatch's
# make_full_path): the job's cwd is here/runs/case01
here=$(pwd)
"$msbatch" --parse misc_chdir_relative.sh > "$tmp/cd.json" \
    && grep -q "\"cwd\": \"$here/runs/case01\"" "$tmp/cd.json"
tap_ok $? "a relative --chdir is under the submission directory: $(grep cwd "$tmp/cd.json")"
# a heterogeneous job: its components, each with its own options; a bad
# option in a component names its line
printf '#!/bin/sh\n#SBATCH -n 1\n#SBATCH hetjob\n#SBATCH -n 2\n' > "$tmp/het.sh"
"$msbatch" --parse "$tmp/het.sh" > "$tmp/het.json" \
    && grep -q '"components"' "$tmp/het.json" \
    && grep -q '"tasks": 2' "$tmp/het.json"
tap_ok $? "hetjob separates the components: $(tr -d ' \n' < "$tmp/het.json" | grep -o '"components":[^]]*]')"
printf '#!/bin/sh\n#SBATCH -n 1\n#SBATCH hetjob\n#SBATCH -n 0\n' > "$tmp/bad.sh"
"$msbatch" --parse "$tmp/bad.sh" > /dev/null 2> "$tmp/err"
[ $? = 1 ] && grep -q "bad.sh:4: --ntasks=0" "$tmp/err"
tap_ok $? "a bad option of a component names its line: $(cat "$tmp/err")"
# the command line wins over the script
"$msbatch" --parse -A other --mem 1G misc_everyday.sh > "$tmp/cl.json" \
    && grep -q '"account": "other"' "$tmp/cl.json" \
    && grep -q '"mem_per_node_mb": 1024' "$tmp/cl.json"
tap_ok $? "the command line wins over #SBATCH lines"
"$msbatch" --parse --wrap "echo hi" -t 5 > "$tmp/w.json" \
    && grep -q '"name": "wrap"' "$tmp/w.json"
tap_ok $? "--wrap makes the script"
# every real sbatch option is known (never 'unknown'): from msbatch(1)'s table
unknown=0 n_opts=0
for o in $(sed -n 's/^\\fB.*\\-\\-\([a-z\\-]*\)\\fR.*/\1/p' "${MS_SRCDIR:-.}/doc/msbatch.1" | sed 's/\\//g' | sort -u); do
    n_opts=$((n_opts + 1))
    "$msbatch" --parse --$o=1 --wrap true > /dev/null 2> "$tmp/err"
    if grep -q "unknown option" "$tmp/err"; then
        echo "# --$o: $(cat "$tmp/err")"
        unknown=$((unknown + 1))
    fi
done
[ $unknown = 0 ] && [ "$n_opts" -ge 110 ]
tap_ok $? "no option of msbatch(1)'s table ($n_opts) is unknown ($unknown are)"
[ $tap_failed = 0 ]
