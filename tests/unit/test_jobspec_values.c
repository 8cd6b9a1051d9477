/* test_jobspec_values.c - each option's values as sbatch takes them: a
 * table of values per option, what msbatch makes of each (the field of
 * `msbatch --parse`'s JSON it becomes) or the refusal it gives, each case
 * naming the Slurm function (22.05 and 26.05, src/common/slurm_opt.c,
 * proc_args.c, cpu_frequency.c, parse_time.c, src/sbatch/opt.c) whose
 * behaviour it checks. A case is one #SBATCH line, read by jobspec.c as a
 * script's line (the '#' and quote rules of the line apply). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "metasched/common/jobspec.h"
#include "metasched/common/jobspec_json.h"
#include "metasched/common/util.h"
#include "tests/testutil.h"

static const struct {
    const char *lines; /* after "#SBATCH " (several: "\n#SBATCH " between) */
    const char *key;   /* the JSON field; NULL: refused */
    const char *want;  /* its JSON text (absent: "null"), or the refusal's
                          start */
    const char *slurm; /* the Slurm function whose behaviour it is */
} cases[] = {
    /* keywords in any case */
    { "--mail-type=begin,End", "mail_type", "\"BEGIN,END\"",
      "parse_mail_type" },
    { "--mail-type=all", "mail_type", "\"ALL\"", "parse_mail_type" },
    { "--mail-type=END,sometimes", "mail_type", "\"END\"",
      "parse_mail_type" }, /* a word it does not know is passed over */
    { "--mail-type=END,NONE", "mail_type", "\"NONE\"", "parse_mail_type" },
    { "--mail-type=end\n#SBATCH --mail-type=Fail", "mail_type", "\"END,FAIL\"",
      "arg_set_mail_type" }, /* added to the one before */
    { "--mail-type=sometimes", NULL, "j.sh:2: --mail-type=sometimes: expected",
      "parse_mail_type" },
    { "--mail-type=", NULL, "j.sh:2: --mail-type=: expected",
      "parse_mail_type" },
    { "--open-mode=APPEND", "open_mode", "\"append\"", "arg_set_open_mode" },
    { "--open-mode=Truncate", "open_mode", "\"truncate\"",
      "arg_set_open_mode" },
    { "--open-mode=a", "open_mode", "\"append\"", "arg_set_open_mode" },
    { "--open-mode=x", NULL, "j.sh:2: --open-mode=x: expected",
      "arg_set_open_mode" },
    { "--signal=usr1@90", "signal_spec.number", "10", "get_signal_opts" },
    { "--signal=b:Sigterm", "signal_spec.flags", "\"B\"", "get_signal_opts" },
    { "--signal=rb:2", "signal_spec.flags", "\"RB\"", "get_signal_opts" },
    { "--signal=BUSR2@30", "signal_spec.number", "12",
      "get_signal_opts" }, /* B, then the name, no ':' */
    { "--signal=R:100", "signal_spec.number", "100", "sig_name2num" },
    { "--signal=USR1@", "signal_spec.seconds_before", "0", "get_signal_opts" },
    { "--signal=B:NOPE", NULL, "j.sh:2: --signal=B:NOPE: expected",
      "sig_name2num" },
    { "--signal=USR1@-5", NULL, "j.sh:2: --signal=USR1@-5: expected",
      "get_signal_opts" },
    { "--exclusive=USER", "exclusive_mode", "\"user\"", "arg_set_exclusive" },
    { "--exclusive=Topo", "exclusive_mode", "\"topo\"", "arg_set_exclusive" },
    { "--exclusive=exclusive", "exclusive", "true", "arg_set_exclusive" },
    { "--exclusive=oversubscribe", "oversubscribe", "true",
      "arg_set_exclusive" },
    { "--exclusive=yes", NULL, "j.sh:2: --exclusive=yes: expected",
      "arg_set_exclusive" },
    { "--kill-on-invalid-dep=YES", "kill_on_invalid_dep", "true",
      "arg_set_kill_on_invalid_dep" },
    { "--kill-on-invalid-dep=No", "kill_on_invalid_dep", "false",
      "arg_set_kill_on_invalid_dep" },
    { "--no-kill=OFF", "no_kill", "null", "arg_set_no_kill" },
    { "--no-kill=Set", "no_kill", "true", "arg_set_no_kill" },
    { "--no-kill=maybe", NULL, "j.sh:2: --no-kill=maybe: expected",
      "arg_set_no_kill" },
    { "--requeue=EXPEDITE", "requeue", "true", "arg_set_requeue" },
    { "--requeue=", "requeue", "true", "arg_set_requeue" },
    { "--get-user-env=10l", "get_user_env", "\"10L\"", "arg_set_get_user_env" },
    { "--get-user-env=s", "get_user_env", "\"S\"", "arg_set_get_user_env" },
    { "--get-user-env=10x", NULL, "j.sh:2: --get-user-env=10x: expected",
      "arg_set_get_user_env" },
    { "--hint=NoMultiThread", "hint", "\"NoMultiThread\"",
      "validate_hint_option" },
    { "--distribution=Block:Cyclic", "distribution", "\"Block:Cyclic\"",
      "verify_dist_type" },
    { "--export=none", "export_mode", "\"NONE\"", "arg_set_export" },
    { "--begin=NOW+1Hour", "begin", NULL, "parse_time" }, /* set: checked
                                                             below */
    { "--time=unlimited", "time_limit_min", "\"UNLIMITED\"", "time_str2mins" },
    { "--time=-1", "time_limit_min", "\"UNLIMITED\"", "time_str2mins" },
    { "--time=1-0", "time_limit_min", "1440", "time_str2mins" },
    { "--time=", NULL, "j.sh:2: --time=: expected", "time_str2mins" },
    { "--mem=", NULL, "j.sh:2: --mem=: expected a size", "str_to_mbytes" },
    { "--ntasks=", NULL, "j.sh:2: --ntasks=: expected a whole number",
      "parse_int" },
    { "--nodes=2-4", "nodes_max", "4", "verify_node_count" },
    { "--nodes=-4", "nodes_max", "4", "verify_node_count" }, /* 1-4 */
    { "--nodes=1k", "nodes", "1024", "verify_node_count" },
    { "--nodes=4-2", NULL, "j.sh:2: --nodes=4-2: expected N or MIN-MAX",
      "verify_node_count" },
    { "--nodes=2-", NULL, "j.sh:2: --nodes=2-: expected N or MIN-MAX",
      "verify_node_count" },
    { "--nodes=", NULL, "j.sh:2: --nodes=: expected N or MIN-MAX",
      "verify_node_count" },
    { "--nice=-5", "nice", "-5", "arg_set_nice" },
    { "--nice=12abc", "nice", "12", "arg_set_nice" },
    /* empty values, and values a '#' cut off: the string options keep "",
     * which is no value */
    { "--mail-user=", "mail_user", "null", "COMMON_STRING_OPTION_SET" },
    { "--mail-user=#your@address", "mail_user", "null",
      "get_argument" }, /* an unquoted '#' starts a comment */
    { "--account=  # set by the site", "account", "null",
      "COMMON_STRING_OPTION_SET" },
    { "--job-name=\"\"", "name", "\"\"",
      "COMMON_STRING_OPTION_SET" }, /* msbatch then names it after the
                                       script, as sbatch does */
    { "--comment=\"a # b\"", "comment", "\"a # b\"", "get_argument" },
    { "--output=", "stdout", "null", "COMMON_STRING_OPTION_SET" },
    { "--output=None", "stdout", "\"/dev/null\"", "arg_set_ofname" },
    { "--constraint=", "constraint", "null", "COMMON_STRING_OPTION_SET" },
    { "--dependency=", "dependency", "null", "COMMON_STRING_OPTION_SET" },
    { "--array=", "array", "null", "COMMON_SBATCH_STRING_OPTION" },
    { "--qos= --account=proj", "account", "\"proj\"",
      "COMMON_STRING_OPTION_SET" },
    { "-N 2 \"\" -N 4", "nodes", "2",
      "get_argument" }, /* an empty word ends the line: -N 4 is not read */
    /* --chdir: checked in test_jobspec (jobspec_resolve_chdir) */
    /* --clusters */
    { "-M alpha", "clusters", "\"alpha\"", "COMMON_STRING_OPTION_SET" },
    { "--clusters=alpha,beta", "clusters", "\"alpha,beta\"",
      "COMMON_STRING_OPTION_SET" },
    { "--cluster=all", "clusters", "\"all\"", "COMMON_STRING_OPTION_SET" },
    { "--clusters=a;b", NULL, "j.sh:2: --clusters=a;b: ';' has no place",
      "slurmdb_get_info_cluster" },
    /* --cpu-freq */
    { "--cpu-freq=HighM1", "cpu_freq_spec.max", "\"highm1\"",
      "_cpu_freq_check_freq" },
    { "--cpu-freq=him1", "cpu_freq_spec.max", "\"highm1\"",
      "_cpu_freq_check_freq" },
    { "--cpu-freq=LOW", "cpu_freq_spec.max", "\"low\"",
      "_cpu_freq_check_freq" },
    { "--cpu-freq=Medium", "cpu_freq_spec.max", "\"medium\"",
      "_cpu_freq_check_freq" },
    { "--cpu-freq=2400000", "cpu_freq_spec.max", "2400000",
      "_cpu_freq_check_freq" },
    { "--cpu-freq=high-high:Performance", "cpu_freq_spec.governor",
      "\"Performance\"", "cpu_freq_verify_cmdline" },
    { "--cpu-freq=1200000-high:ondemand", "cpu_freq_spec.min", "1200000",
      "cpu_freq_verify_cmdline" },
    { "--cpu-freq=low-2000000:ondemand", NULL,
      "j.sh:2: --cpu-freq=low-2000000:ondemand: the lowest frequency",
      "cpu_freq_verify_cmdline" }, /* a name compares above every kHz */
    { "--cpu-freq=1200000-2400000", "cpu_freq_spec.max", "2400000",
      "cpu_freq_verify_cmdline" }, /* 22.05: a range needs no governor */
    { "--cpu-freq=performance", "cpu_freq_spec.governor", "\"Performance\"",
      "_cpu_freq_check_gov" },
    { "--cpu-freq=powersave", "cpu_freq_spec.governor", "\"PowerSave\"",
      "_cpu_freq_check_gov" },
    { "--cpu-freq=2400000:UserSpace", "cpu_freq_spec.governor", "\"UserSpace\"",
      "cpu_freq_verify_cmdline" }, /* 26.05 */
    { "--cpu-freq=high:performance", NULL,
      "j.sh:2: --cpu-freq=high:performance: a governor other than "
      "UserSpace needs a range",
      "cpu_freq_verify_cmdline" },
    { "--cpu-freq=Performance:ondemand", NULL,
      "j.sh:2: --cpu-freq=Performance:ondemand: a governor given twice",
      "cpu_freq_verify_cmdline" },
    { "--cpu-freq=high-low", NULL,
      "j.sh:2: --cpu-freq=high-low: the lowest frequency (high) must be",
      "cpu_freq_verify_cmdline" },
    { "--cpu-freq=turbo", NULL, "j.sh:2: --cpu-freq=turbo: 'turbo' is no",
      "_cpu_freq_check_freq" },
    { "--cpu-freq=low-high:fast", NULL,
      "j.sh:2: --cpu-freq=low-high:fast: 'fast' is no governor",
      "_cpu_freq_check_gov" },
    { "--cpu-freq=", NULL, "j.sh:2: --cpu-freq=: '' is no frequency",
      "cpu_freq_verify_cmdline" },
    /* --priority */
    { "--priority=TOP", "priority", "4294967293", "arg_set_priority" },
    { "--priority=top", "priority", "4294967293", "arg_set_priority" },
    { "--priority=1000", "priority", "1000", "arg_set_priority" },
    { "--priority=0", "priority", "0", "arg_set_priority" },
    { "--priority=high", "priority", "0",
      "arg_set_priority" }, /* strtoll: no number is 0 */
    { "--priority=-1", NULL, "j.sh:2: --priority=-1: expected TOP",
      "arg_set_priority" },
    { "--priority=4294967294", NULL,
      "j.sh:2: --priority=4294967294: expected TOP", "arg_set_priority" },
    /* --propagate: the names of slurm_rlimits_info.c, with case */
    { "--propagate", "propagate", "\"ALL\"", "arg_set_propagate" },
    { "--propagate=NOFILE,RLIMIT_CORE", "propagate",
      "\"NOFILE,RLIMIT_CORE\"", "parse_rlimits" },
    { "'--propagate=STACK AS'", "propagate", "\"STACK AS\"",
      "parse_rlimits" }, /* blanks separate too */
    { "--propagate=NONE", "propagate", "\"NONE\"", "parse_rlimits" },
    { "--propagate=", "propagate", "null", "parse_rlimits" }, /* none */
    { "--propagate=nofile", NULL,
      "j.sh:2: --propagate=nofile: bad rlimit name 'nofile'",
      "parse_rlimits" },
    { "--propagate=NOFILE,VMEM", NULL,
      "j.sh:2: --propagate=NOFILE,VMEM: bad rlimit name 'VMEM'",
      "parse_rlimits" },
    /* --nodes: lists of sizes (23.02 on), a moldable choice among them */
    { "--nodes=1,2,4", "nodes", "1", "verify_node_count" },
    { "--nodes=4,2", "nodes", "2", "verify_node_count" },
    { "--nodes=2-8:2,16", "nodes", "2", "verify_node_count" },
    { "--nodes=2-8:2", "nodes_max", "8", "verify_node_count" },
    { "--nodes=2-8:2", "nodes_list", "\"2-8:2\"", "verify_node_count" },
    { "--nodes=2-9:3", "nodes_max", "8", "bit_unfmt" }, /* 2, 5, 8 */
    { "--nodes=4,4", "nodes_list", "null",
      "verify_node_count" }, /* one size: a fixed count */
    { "--nodes=2:4", NULL, "j.sh:2: --nodes=2:4: \"2:4\" is not a valid",
      "bit_unfmt" }, /* a step needs a range */
    { "--nodes=1,16384", NULL,
      "j.sh:2: --nodes=1,16384: \"1,16384\" is not a valid",
      "verify_node_count" }, /* MAX_JOB_SIZE_BITMAP */
    { "--nodes=1,,2", NULL, "j.sh:2: --nodes=1,,2: \"1,,2\" is not a valid",
      "bit_unfmt" },
    { "--nodes=2-4", "nodes_max", "4", "verify_node_count" },
    /* options of later Slurm releases (slurm_opt.c, 23.11 to 26.05) */
    { "--extra=rack=a", "extra", "\"rack=a\"",
      "arg_set_extra" }, /* COMMON_STRING_OPTION */
    { "--container-id=c42", "container_id", "\"c42\"",
      "arg_set_container_id" }, /* COMMON_STRING_OPTION */
    { "--oom-kill-step", "oom_kill_step", "1", "arg_set_oom_kill_step" },
    { "--oom-kill-step=0", "oom_kill_step", "0", "arg_set_oom_kill_step" },
    { "--oom-kill-step=+1", "oom_kill_step", "1",
      "parse_uint16" }, /* strtoll takes a sign */
    { "--oom-kill-step=", "oom_kill_step", "0",
      "parse_uint16" }, /* strtoll: no number is 0, nothing after */
    { "--oom-kill-step=2", NULL,
      "j.sh:2: --oom-kill-step=2: Invalid --oom-kill-step",
      "arg_set_oom_kill_step" },
    { "--oom-kill-step=yes", NULL,
      "j.sh:2: --oom-kill-step=yes: Invalid --oom-kill-step",
      "parse_uint16" },
    { "--segment=4", "segment_size", "4", "arg_set_segment_size" },
    { "--segment=65533", "segment_size", "65533", "parse_uint16" },
    { "--segment=65534", NULL, "j.sh:2: --segment=65534: Invalid --segment",
      "parse_uint16" }, /* NO_VAL16 and above */
    { "--segment=-1", NULL, "j.sh:2: --segment=-1: Invalid --segment",
      "parse_uint16" },
    { "--segment=4x", NULL, "j.sh:2: --segment=4x: Invalid --segment",
      "parse_uint16" },
    { "--stepmgr", "stepmgr", "true", "arg_set_stepmgr" },
    { "--spread-segments", "spread_segments", "true",
      "arg_set_spread_segments" },
    { "--consolidate-segments", "consolidate_segments", "true",
      "arg_set_consolidate_segments" },
    /* the last options sbatch accepts (slurm_opt.c, 22.05 to 26.05) */
    { "--tres-per-task=gres/gpu:a100=2", "tres_per_task",
      "\"gres/gpu:a100=2\"",
      "arg_set_tres_per_task" }, /* COMMON_STRING_OPTION, 23.02 on */
    { "--tres-bind=gres/gpu:closest", "tres_bind", "\"gres/gpu:closest\"",
      "arg_set_tres_bind" }, /* COMMON_STRING_OPTION, 23.11 on */
    { "--resources=flat:2,natural:1", "resources",
      "\"flat:2,natural:1\"",
      "arg_set_resources" }, /* COMMON_STRING_OPTION, 25.11 on */
    { "--container-type=oci", "container_type", "\"oci\"",
      "arg_set_container_type" }, /* COMMON_STRING_OPTION, 26.05 */
    { "--external", "external", "true", "arg_set_external" }, /* 25.05 on */
    { "--resv-ports", "resv_ports", "0", "arg_set_resv_port_cnt" },
    { "--resv-ports=4", "resv_ports", "4", "parse_int" },
    { "--resv-ports=0", "resv_ports", "0", "parse_int" }, /* positive false */
    { "--resv-ports=-1", NULL,
      "j.sh:2: --resv-ports=-1: Invalid numeric value \"-1\" for "
      "--resv-port.",
      "parse_int" },
    { "--resv-ports=4k", NULL,
      "j.sh:2: --resv-ports=4k: Invalid numeric value", "parse_int" },
    { "--resv-ports=2147483647", NULL,
      "j.sh:2: --resv-ports=2147483647: Numeric argument (2147483647) too "
      "large for --resv-port.",
      "parse_int" }, /* INT_MAX and above */
    { "--mem-update=20@30", "mem_update", "\"20@30\"",
      "arg_set_mem_update" }, /* 26.05 */
    { "--mem-update=20@1-0", "mem_update", "\"20@1-0\"",
      "time_str2mins" }, /* a day: 1440 minutes */
    { "--mem-update=65535@1:00:00", "mem_update", "\"65535@1:00:00\"",
      "arg_set_mem_update" },
    { "--mem-update=20", NULL,
      "j.sh:2: --mem-update=20: --mem-update requires MARGIN@DELAY format",
      "arg_set_mem_update" },
    { "--mem-update=0@30", NULL,
      "j.sh:2: --mem-update=0@30: Invalid --mem-update specification",
      "arg_set_mem_update" }, /* margin <= 0 */
    { "--mem-update=65536@30", NULL,
      "j.sh:2: --mem-update=65536@30: Invalid --mem-update specification",
      "arg_set_mem_update" }, /* margin > UINT16_MAX */
    { "--mem-update=20x@30", NULL,
      "j.sh:2: --mem-update=20x@30: Invalid --mem-update specification",
      "arg_set_mem_update" }, /* *end != '\0' */
    { "--mem-update=20@46-0", NULL,
      "j.sh:2: --mem-update=20@46-0: Invalid --mem-update specification",
      "arg_set_mem_update" }, /* 66240 minutes > UINT16_MAX */
    { "--mem-update=20@UNLIMITED", NULL,
      "j.sh:2: --mem-update=20@UNLIMITED: Invalid --mem-update",
      "time_str2mins" }, /* INFINITE > UINT16_MAX */
    { "--mem-update=20@abc", NULL,
      "j.sh:2: --mem-update=20@abc: Invalid --mem-update", "time_str2mins" },
    /* not an option of sbatch at any release 22.05 to 26.05 */
    { "--runtime=10", NULL, "j.sh:2: unknown option '--runtime'",
      "slurm_opt.c: no such entry" },
    /* --export-file: a path (msbatch reads it), not refused */
    { "--export-file=env.list", "name", "\"job\"", "arg_set_export_file" },
};

START_TEST (option_values)
{
    ms_jobspec_t s;
    ms_error_t err;
    char sc[512];
    int rc;

    snprintf (sc, sizeof (sc), "#!/bin/sh\n#SBATCH %s\ntrue\n",
              cases[_i].lines);
    jobspec_init (&s);
    ms_strlcpy (s.name, "job", sizeof (s.name));
    rc = jobspec_parse_script (&s, sc, strlen (sc), "j.sh", &err);
    if (!cases[_i].key) {
        ck_assert_msg (rc == -1, "%s (%s): taken, sbatch refuses it",
                       cases[_i].lines, cases[_i].slurm);
        ck_assert_msg (strstr (err.text, cases[_i].want) == err.text,
                       "%s (%s): '%s' does not start with '%s'",
                       cases[_i].lines, cases[_i].slurm, err.text,
                       cases[_i].want);
    } else {
        json_t *o = json_object (), *v;
        char *got;
        const char *key = cases[_i].key;
        char part[64];

        ck_assert_msg (rc == 0, "%s (%s): refused: %s", cases[_i].lines,
                       cases[_i].slurm, err.text);
        jobspec_json_put (&s, o);
        jobspec_json_put_parsed (&s, o);
        json_object_set_new (o, "name", json_string (s.name));
        if (s.std_out[0])
            json_object_set_new (o, "stdout", json_string (s.std_out));
        if (s.exclusive)
            json_object_set_new (o, "exclusive", json_true ());
        if (s.time_limit_min == UINT32_MAX)
            json_object_set_new (o, "time_limit_min",
                                 json_string ("UNLIMITED"));
        else if (s.time_limit_min)
            json_object_set_new (o, "time_limit_min",
                                 json_integer (s.time_limit_min));
        if (s.nodes)
            json_object_set_new (o, "nodes", json_integer (s.nodes));
        json_object_set_new (o, "export_mode", json_string (s.export_mode));
        if (s.begin)
            json_object_set_new (o, "begin", json_integer (s.begin));
        /* a.b: a field of an object */
        v = o;
        while (v && *key) {
            size_t n = strcspn (key, ".");
            ms_strlcpy (part, key,
                        n + 1 < sizeof (part) ? n + 1 : sizeof (part));
            v = json_object_get (v, part);
            key += n;
            if (*key == '.')
                key++;
        }
        got = v ? json_dumps (v, JSON_ENCODE_ANY | JSON_COMPACT)
                : strdup ("null");
        if (cases[_i].want)
            ck_assert_msg (!strcmp (got, cases[_i].want),
                           "%s (%s): %s is %s, not %s", cases[_i].lines,
                           cases[_i].slurm, cases[_i].key, got, cases[_i].want);
        else
            ck_assert_msg (v != NULL, "%s (%s): %s not set", cases[_i].lines,
                           cases[_i].slurm, cases[_i].key);
        free (got);
        json_decref (o);
    }
    jobspec_free (&s);
}
END_TEST

/* --cpu-freq on a partition's frequencies, as slurmd turns the request into
 * one (_cpu_freq_freqspec_num) */
START_TEST (cpu_freq_pick)
{
    static const uint32_t f[] = { 1200000, 1500000, 1800000, 2100000, 2400000 };
    static const struct {
        const char *val;
        bool pins;
        uint32_t lo, hi;
    } picks[] = {
        { "low", true, 1200000, 1200000 },
        { "medium", true, 1800000, 1800000 }, /* (5 - 1) / 2 */
        { "highm1", true, 2100000, 2100000 },
        { "high", true, 2400000, 2400000 },
        { "1800000", true, 1800000, 1800000 }, /* listed */
        { "1600000", true, 1800000, 1800000 }, /* the next above */
        { "1000000", true, 1200000, 1200000 }, /* below: the lowest */
        { "3000000", true, 2400000, 2400000 }, /* above: the highest */
        { "low-medium:OnDemand", true, 1200000, 1800000 },
        { "high-high:Performance", true, 2400000, 2400000 },
        { "Performance", true, 2400000, 2400000 },
        { "PowerSave", true, 1200000, 1200000 },
        { "OnDemand", false, 0, 0 },
        { "UserSpace", false, 0, 0 },
    };
    ms_cpufreq_t c;
    ms_error_t err;
    uint32_t lo = 0, hi = 0;

    for (size_t i = 0; i < sizeof (picks) / sizeof (picks[0]); i++) {
        ck_assert_msg (jobspec_parse_cpu_freq (picks[i].val, &c, &err) == 0,
                       "%s: %s", picks[i].val, err.text);
        lo = hi = 0;
        ck_assert_msg (jobspec_cpu_freq_pick (&c, f, 5, &lo, &hi)
                           == picks[i].pins,
                       "%s: pins", picks[i].val);
        if (picks[i].pins)
            ck_assert_msg (lo == picks[i].lo && hi == picks[i].hi,
                           "%s: %u-%u, not %u-%u", picks[i].val, lo, hi,
                           picks[i].lo, picks[i].hi);
    }
    /* one frequency: medium and highm1 are it */
    ck_assert_int_eq (jobspec_parse_cpu_freq ("highm1", &c, &err), 0);
    ck_assert (jobspec_cpu_freq_pick (&c, f, 1, &lo, &hi));
    ck_assert_uint_eq (lo, 1200000);
    ck_assert_int_eq (jobspec_parse_cpu_freq ("medium", &c, &err), 0);
    ck_assert (jobspec_cpu_freq_pick (&c, f + 4, 1, &lo, &hi));
    ck_assert_uint_eq (hi, 2400000);
}
END_TEST

int
main (void)
{
    Suite *s = suite_create ("jobspec_values");
    TCase *tc = tcase_create ("values");

    setenv ("TZ", "UTC", 1);
    tcase_add_loop_test (tc, option_values, 0,
                         (int)(sizeof (cases) / sizeof (cases[0])));
    tcase_add_test (tc, cpu_freq_pick);
    suite_add_tcase (s, tc);
    return test_run_suite (s);
}
