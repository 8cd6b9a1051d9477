/* test_jobspec.c - reading a batch job like sbatch: #SBATCH lines, command
 * line, and the errors that name the place. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "metasched/common/jobspec.h"
#include "metasched/common/util.h"
#include "tests/testutil.h"

static const char script[] =
    "#!/bin/bash\r\n"
    "# a comment\n"
    "#SBATCH --job-name=lu-big\n"
    "#SBATCH -N 4\n"
    "#SBATCH --ntasks=192   # all cores\n"
    "#SBATCH -t 1-02:30\n"
    "#SBATCH --output=/home/u/lu-%j.out\n"
    "#SBATCH --export=NONE,OMP_NUM_THREADS=1,HOME\n"
    "#SBATCH --app lu.C\n"
    "#SBATCH --exclusive\n"
    "\n"
    "srun ./lu.C\n"
    "#SBATCH --time=5\n"; /* after the first command: ignored, as sbatch does */

START_TEST (script_options)
{
    ms_jobspec_t s;
    ms_error_t err;

    jobspec_init (&s);
    ck_assert_msg (jobspec_parse_script (&s, script, strlen (script), "job.sh",
                                         &err)
                       == 0,
                   "%s", err.text);
    ck_assert_str_eq (s.name, "lu-big");
    ck_assert_int_eq (s.nodes, 4);
    ck_assert_int_eq (s.ntasks, 192);
    ck_assert_uint_eq (s.time_limit_min, 24 * 60 + 150);
    ck_assert_str_eq (s.std_out, "/home/u/lu-%j.out");
    ck_assert_str_eq (s.export_mode, "NONE");
    ck_assert_uint_eq (s.nexport, 2);
    ck_assert_str_eq (s.export_vars[0], "OMP_NUM_THREADS=1");
    ck_assert_str_eq (s.export_vars[1], "HOME");
    ck_assert_str_eq (s.app, "lu.C");
    ck_assert (s.exclusive);
    ck_assert (!s.test_only);
    ck_assert_int_eq (jobspec_check (&s, script, strlen (script), false, &err), 0);
    jobspec_free (&s);
}
END_TEST

START_TEST (command_line_wins)
{
    ms_jobspec_t s;
    ms_error_t err;
    char *argv[] = { "msbatch", "-t", "30", "--nodes=2", "-Jshort",
                     "--test-only", "-c4", "job.sh", "arg1", NULL };
    int argi;

    jobspec_init (&s);
    ck_assert (jobspec_parse_script (&s, script, strlen (script), "job.sh", &err)
               == 0);
    ck_assert_msg (jobspec_parse_args (&s, 9, argv, &argi, &err) == 0, "%s",
                   err.text);
    ck_assert_int_eq (argi, 7);
    ck_assert_uint_eq (s.time_limit_min, 30);
    ck_assert_int_eq (s.nodes, 2);
    ck_assert_str_eq (s.name, "short");
    ck_assert_int_eq (s.cpus_per_task, 4);
    ck_assert (s.test_only);
    ck_assert_int_eq (s.ntasks, 192); /* from the script */
    jobspec_free (&s);
}
END_TEST

static const struct {
    const char *in;
    long want; /* minutes, -1: error */
} times[] = {
    { "30", 30 },          { "90:30", 91 },    { "01:00:00", 60 },
    { "2-0", 2880 },       { "1-1:30", 1530 }, { "0-0:0:1", 1 },
    { "UNLIMITED", -2 },   { "", -1 },         { "abc", -1 },
    { "1:2:3:4", -1 },     { "-5", -1 },       { "5:", -1 },
    { "1-2-3", -1 },       { "99999999999", -1 },
};

START_TEST (time_formats)
{
    uint32_t m = 0;
    int rc = jobspec_parse_time (times[_i].in, &m);
    if (times[_i].want == -1)
        ck_assert_msg (rc == -1, "'%s' accepted as %u", times[_i].in, m);
    else if (times[_i].want == -2)
        ck_assert (rc == 0 && m == UINT32_MAX);
    else
        ck_assert_msg (rc == 0 && m == (uint32_t)times[_i].want,
                       "'%s' -> rc %d, %u min", times[_i].in, rc, m);
}
END_TEST

/* --begin against a fixed now, Tuesday 2026-03-10 14:30:00 in UTC (main
 * sets TZ=UTC). */
#define NOW ((time_t)1773153000)
#define H 3600
#define D 86400
static const struct {
    const char *in;
    int64_t want; /* Unix time; -1 malformed, -2 out of range */
} begins[] = {
    { "now", NOW },
    { "now+0", NOW },
    { "now+90", NOW + 90 },
    { "now+90s", NOW + 90 },
    { "now+2sec", NOW + 2 },
    { "now+5seconds", NOW + 5 },
    { "now+10m", NOW + 600 },
    { "now+10min", NOW + 600 },
    { "now+1minute", NOW + 60 },
    { "now+3minutes", NOW + 180 },
    { "now+1h", NOW + H },
    { "now+2hour", NOW + 2 * H },
    { "now+2hours", NOW + 2 * H },
    { "NOW+1HOUR", NOW + H },
    { "now+1d", NOW + D },
    { "now+1day", NOW + D },
    { "now+3days", NOW + 3 * D },
    { "now+1w", NOW + 7 * D },
    { "now+1week", NOW + 7 * D },
    { "now+2weeks", NOW + 14 * D },
    { "now+731days", NOW + 731 * D }, /* the limit */
    { "16:00", NOW + 90 * 60 },       /* later today */
    { "16:00:30", NOW + 90 * 60 + 30 },
    { "14:30", NOW },                    /* this very second: today */
    { "14:29:59", NOW + D - 1 },         /* just past: tomorrow */
    { "09:15", NOW + 18 * H + 45 * 60 }, /* past: tomorrow 09:15 */
    { "9:15", NOW + 18 * H + 45 * 60 },
    { "00:00", 1773187200 }, /* 2026-03-11 00:00 */
    { "2026-12-24", 1798070400 },
    { "2026-12-24T08:00", 1798099200 },
    { "2026-12-24T08:00:05", 1798099205 },
    { "2028-02-29", 1835395200 },          /* a leap day */
    { "2026-03-01T23:59:59", 1772409599 }, /* past: at once */
    { "today", 1773100800 },               /* 2026-03-10 00:00 */
    { "tomorrow", 1773187200 },            /* 2026-03-11 00:00 */
    { "midnight", 1773187200 },
    { "noon", 1773230400 }, /* past today: 2026-03-11 12:00 */
    { "Noon", 1773230400 },
    { "", -1 },
    { "now+", -1 },
    { "now+5parsecs", -1 },
    { "now+5 hours", -1 },
    { "now+h", -1 },
    { "now*5", -1 },
    { "now5", -1 },
    { "nowhere", -1 },
    { "+5", -1 },
    { "12", -1 },
    { "25:00", -1 },
    { "24:00", -1 },
    { "12:60", -1 },
    { "12:00:60", -1 },
    { "12:5", -1 },
    { "12:00:", -1 },
    { "123:00", -1 },
    { "16:00pm", -1 },
    { "2026-13-01", -1 },
    { "2026-00-10", -1 },
    { "2026-02-29", -1 }, /* not a leap year */
    { "2026-04-31", -1 },
    { "2026-1-01", -1 },
    { "2026-12-24T", -1 },
    { "2026-12-24T25:00", -1 },
    { "2026-12-24 08:00", -1 },
    { "2026-12-24T08", -1 },
    { "tomorrowish", -1 },
    { "today+1", -1 },
    { "now+732days", -2 },
    { "now+105weeks", -2 },
    { "now+99999999999999999999999999w", -2 },
    { "2099-01-01", -2 },
    { "1969-12-31", -2 },
};

START_TEST (begin_forms)
{
    int64_t t = 12345;
    int rc = jobspec_parse_begin (begins[_i].in, NOW, &t);

    if (begins[_i].want < 0) {
        ck_assert_msg (rc == (int)begins[_i].want, "'%s': rc %d, want %d",
                       begins[_i].in, rc, (int)begins[_i].want);
        ck_assert_int_eq (t, 12345); /* untouched */
    } else
        ck_assert_msg (rc == 0 && t == begins[_i].want,
                       "'%s' -> rc %d, %lld (want %lld, now %lld)",
                       begins[_i].in, rc, (long long)t,
                       (long long)begins[_i].want, (long long)NOW);
}
END_TEST

/* Clock times and words follow local time, daylight saving time included. */
START_TEST (begin_local_time)
{
    int64_t t;

    /* 09:00 UTC: noon is still today */
    ck_assert_int_eq (jobspec_parse_begin ("noon", NOW - 330 * 60, &t), 0);
    ck_assert_int_eq (t, NOW - 150 * 60);
    /* Central Europe, the day before summer time (Sunday 2026-03-29, 02:00
     * becomes 03:00); now is Saturday 13:00 CET = 12:00 UTC */
    setenv ("TZ", "CET-1CEST,M3.5.0,M10.5.0/3", 1);
    tzset ();
    ck_assert_int_eq (jobspec_parse_begin ("tomorrow", 1774699200, &t), 0);
    ck_assert_int_eq (t, 1774738800); /* 23:00 UTC */
    ck_assert_int_eq (jobspec_parse_begin ("noon", 1774699200, &t), 0);
    ck_assert_int_eq (t, 1774778400); /* Sunday 12:00 CEST = 10:00 UTC */
    /* 23 hours on the clock, 22 real ones */
    ck_assert_int_eq (t - 1774699200, 22 * H);
    ck_assert_int_eq (jobspec_parse_begin ("12:00", 1774699200, &t), 0);
    ck_assert_int_eq (t, 1774778400);
    ck_assert_int_eq (jobspec_parse_begin ("2026-07-01T12:00", 1774699200, &t),
                      0);
    ck_assert_int_eq (t, 1782900000); /* CEST: 10:00 UTC */
    ck_assert_int_eq (jobspec_parse_begin ("now+1d", 1774699200, &t), 0);
    ck_assert_int_eq (t, 1774699200 + D); /* relative: plain seconds */
    setenv ("TZ", "UTC", 1);
    tzset ();
}
END_TEST

/* --begin from a script and the command line, against the real clock. */
START_TEST (begin_option)
{
    ms_jobspec_t s;
    ms_error_t err;
    const char *sc = "#!/bin/sh\n#SBATCH --begin=now+1hour\nsrun x\n";
    char *argv[] = { "msbatch", "--begin", "2026-12-24T08:00", "job.sh", NULL };
    char *argv2[] = { "msbatch", "--begin=", "job.sh", NULL };
    int argi;
    int64_t before = (int64_t)time (NULL), after;

    jobspec_init (&s);
    ck_assert_int_eq (s.begin, 0); /* not given */
    ck_assert_msg (jobspec_parse_script (&s, sc, strlen (sc), "job.sh", &err)
                       == 0,
                   "%s", err.text);
    after = (int64_t)time (NULL);
    ck_assert (s.begin >= before + H && s.begin <= after + H);
    ck_assert_msg (jobspec_parse_args (&s, 4, argv, &argi, &err) == 0, "%s",
                   err.text);
    ck_assert_int_eq (argi, 3);
    ck_assert_int_eq (s.begin, 1798099200); /* the command line wins */
    ck_assert_int_eq (jobspec_parse_args (&s, 3, argv2, &argi, &err), -1);
    ck_assert_str_eq (err.text,
                      "--begin=: expected now[+N[UNIT]] (UNIT seconds, "
                      "minutes, hours, days or weeks), HH:MM[:SS] [AM|PM], "
                      "YYYY-MM-DD[THH:MM[:SS]], MM/DD[/YY][-HH:MM[:SS]], "
                      "MMDD[YY], today, tomorrow, midnight, noon, elevenses, "
                      "fika or teatime");
    jobspec_free (&s);
}
END_TEST

static const struct {
    const char *script;
    const char *expect;
} bad[] = {
    { "#!/bin/sh\n#SBATCH --time=abc\n",
      "job.sh:2: --time=abc: expected minutes, MM:SS" },
    { "#!/bin/sh\n#SBATCH --begin=tomorrowish\n",
      "job.sh:2: --begin=tomorrowish: expected now[+N[UNIT]] (UNIT "
      "seconds, minutes, hours, days or weeks), HH:MM[:SS] [AM|PM]" },
    { "#!/bin/sh\n#SBATCH --begin=now+5parsecs\n",
      "job.sh:2: --begin=now+5parsecs: expected now[+N[UNIT]]" },
    { "#!/bin/sh\n#SBATCH --begin 25:00\n",
      "job.sh:2: --begin=25:00: expected now[+N[UNIT]]" },
    { "#!/bin/sh\n#SBATCH --begin=now+800days\n",
      "job.sh:2: --begin=now+800days: out of range (from 1970 to 731 days "
      "from now)" },
    { "#!/bin/sh\n#SBATCH --begin\n", "job.sh:2: --begin: needs a value" },
    { "#!/bin/sh\n\n#SBATCH --nodse=2\n",
      "job.sh:3: unknown option '--nodse'" },
    { "#!/bin/sh\n#SBATCH -N 0\n",
      "job.sh:2: --nodes=0: expected N or MIN-MAX, from 1 to" },
    { "#!/bin/sh\n#SBATCH -N\n", "job.sh:2: -N: needs a value" },
    { "#!/bin/sh\n#SBATCH --exclusive=yes\n",
      "job.sh:2: --exclusive=yes: expected user, mcs, topo" },
    { "#!/bin/sh\n#SBATCH -N 2 -n 4 --mem 4Q\n",
      "job.sh:2: --mem=4Q: expected a size" },
    { "#!/bin/sh\n#SBATCH --job-name 'open\n", "job.sh:2: a quote is not closed" },
    { "#!/bin/sh\n#SBATCH --export=1BAD\n",
      "job.sh:2: --export: '1BAD' is not ALL, NONE, NIL or VAR[=value]" },
    { "#!/bin/sh\n#SBATCH --app=a/b\n",
      "job.sh:2: --app=a/b: only letters, digits" },
    { "#!/bin/sh\n#SBATCH -X\n", "job.sh:2: unknown option '-X'" },
    { "#!/bin/sh\n#SBATCH nodes=2\n", "job.sh:2: 'nodes=2' is not an option" },
};

START_TEST (bad_scripts)
{
    ms_jobspec_t s;
    ms_error_t err;

    jobspec_init (&s);
    ck_assert_int_eq (jobspec_parse_script (&s, bad[_i].script,
                                            strlen (bad[_i].script), "job.sh",
                                            &err),
                      -1);
    ck_assert_int_eq (err.kind, MS_ERR_INPUT);
    ck_assert_msg (strstr (err.text, bad[_i].expect), "case %d: '%s' lacks '%s'",
                   _i, err.text, bad[_i].expect);
    jobspec_free (&s);
}
END_TEST

START_TEST (checks)
{
    ms_jobspec_t s;
    ms_error_t err;
    const char *ok = "#!/bin/sh\ntrue\n";

    jobspec_init (&s);
    ck_assert_int_eq (jobspec_check (&s, "echo hi\n", 8, false, &err), -1);
    ck_assert_ptr_nonnull (strstr (err.text, "script: must start with #!"));
    ms_strlcpy (s.partition, "batch", sizeof (s.partition));
    ck_assert_int_eq (jobspec_check (&s, ok, strlen (ok), false, &err), -1);
    ck_assert_ptr_nonnull (strstr (err.text, "--partition=batch: metasched chooses"));
    ck_assert_int_eq (jobspec_check (&s, ok, strlen (ok), true, &err), 0);
    s.partition[0] = '\0';
    s.nodes = 2;
    s.ntasks = 10;
    s.ntasks_per_node = 4;
    ck_assert_int_eq (jobspec_check (&s, ok, strlen (ok), false, &err), -1);
    ck_assert_ptr_nonnull (strstr (err.text, "--ntasks=10 does not fit"));
    s.ntasks = 8;
    /* a relative --chdir is sbatch's too: taken from the submission
     * directory (make_full_path) */
    ms_strlcpy (s.chdir, "rel/dir", sizeof (s.chdir));
    ck_assert_int_eq (jobspec_check (&s, ok, strlen (ok), false, &err), 0);
    ck_assert_int_eq (jobspec_resolve_chdir (&s, "/home/u", &err), 0);
    ck_assert_str_eq (s.chdir, "/home/u/rel/dir");
    ck_assert_int_eq (jobspec_resolve_chdir (&s, "/elsewhere", &err), 0);
    ck_assert_str_eq (s.chdir, "/home/u/rel/dir"); /* absolute now: kept */
    ms_strlcpy (s.chdir, "../x", sizeof (s.chdir));
    ck_assert_int_eq (jobspec_resolve_chdir (&s, NULL, &err), -1);
    ck_assert_ptr_nonnull (strstr (err.text, "--chdir=../x: a relative path"));
    ck_assert_int_eq (jobspec_parse_script (&s, "#!/bin/sh\n\0x", 12, "j", &err), -1);
    ck_assert_ptr_nonnull (strstr (err.text, "NUL byte"));
    jobspec_free (&s);

    char *argv[] = { "msbatch", "--bogus", "job.sh", NULL };
    int argi;
    jobspec_init (&s);
    ck_assert_int_eq (jobspec_parse_args (&s, 3, argv, &argi, &err), -1);
    ck_assert_str_eq (err.text, "unknown option '--bogus' (not an option of sbatch; see msbatch --help)");
    char *argv2[] = { "msbatch", "--time", NULL };
    ck_assert_int_eq (jobspec_parse_args (&s, 2, argv2, &argi, &err), -1);
    ck_assert_str_eq (err.text, "--time: needs a value");
    jobspec_free (&s);
}
END_TEST


/* sbatch's rules for #SBATCH lines */
START_TEST (sbatch_line_rules)
{
    static const char sc[]
        = "#!/bin/bash\n"
          "#SBATCH -N2 -n 8 --account physics -q'high'   # comment -t 99\n"
          "   # an indented comment\n"
          "\n"
          "#SBATCH --job-name=\"two words\" --comment=a\\ b#SBATCH --mem=9\n"
          "#SBATCHED is not a directive --mem=1\n"
          "#SLURM --time=1-0\n"
          "#SBATCH -G1 -Aother -C\n"
          "#SBATCH fast&big\n" /* a value in the next word, even a line on */
          "hostname\n"
          "#SBATCH --mem=1\n";
    ms_jobspec_t s;
    ms_error_t err;

    jobspec_init (&s);
    ck_assert_msg (jobspec_parse_script (&s, sc, strlen (sc), "j.sh", &err) == 0,
                   "%s", err.text);
    ck_assert_int_eq (s.nodes, 2);
    ck_assert_int_eq (s.ntasks, 8);
    ck_assert_str_eq (s.account, "other"); /* the later one wins */
    ck_assert_str_eq (s.qos, "high");
    ck_assert_str_eq (s.name, "two words");
    ck_assert_str_eq (s.comment, "a b");
    ck_assert (!s.mem_per_node_set); /* after an unquoted #, after the end */
    ck_assert_uint_eq (s.time_limit_min, 24 * 60);
    ck_assert_uint_eq (s.gpus.count, 1);
    ck_assert_str_eq (s.constraint, "fast&big");
    jobspec_free (&s);
}
END_TEST

static const struct {
    const char *val;
    int rc;
    uint64_t mib;
} mems[] = {
    { "4G", 0, 4096 },   { "4g", 0, 4096 },     { "4GB", 0, 4096 },
    { "4gb", 0, 4096 },  { "1500", 0, 1500 },   { "1500M", 0, 1500 },
    { "1500mb", 0, 1500 }, { "1T", 0, 1 << 20 }, { "1tb", 0, 1 << 20 },
    { "1025K", 0, 2 },   { "512k", 0, 1 },      { "0", 0, 0 },
    { "4X", -1, 0 },     { "G", -1, 0 },        { "-1", -1, 0 },
    { "4GiB", -1, 0 },   { "4 G", -1, 0 },      { "", -1, 0 },
};

START_TEST (memory_forms)
{
    uint64_t v = 12345;

    ck_assert_msg (jobspec_parse_mem (mems[_i].val, &v) == mems[_i].rc,
                   "'%s'", mems[_i].val);
    if (mems[_i].rc == 0)
        ck_assert_msg (v == mems[_i].mib, "'%s': %llu", mems[_i].val,
                       (unsigned long long)v);
}
END_TEST

static const struct {
    const char *val;
    int rc;
    uint32_t ntasks, max_index, max_running;
} arrays[] = {
    { "1-10", 0, 10, 10, 0 },        { "0-15:4", 0, 4, 12, 0 },
    { "0,6,16-32", 0, 19, 32, 0 },   { "1-10%2", 0, 10, 10, 2 },
    { "0-100:5%4", 0, 21, 100, 4 },  { "7", 0, 1, 7, 0 },
    { "1-3,5-9:2%1", 0, 6, 9, 1 },   { "10-1", -1, 0, 0, 0 },
    { "1-10:0", -1, 0, 0, 0 },       { "1-10%0", -1, 0, 0, 0 },
    { "a-b", -1, 0, 0, 0 },          { "1-", -1, 0, 0, 0 },
    { "1,,2", -1, 0, 0, 0 },         { "0-4000001", -1, 0, 0, 0 },
};

START_TEST (array_forms)
{
    ms_array_t a;
    ms_error_t err;

    ck_assert_msg (jobspec_parse_array (arrays[_i].val, &a, &err)
                       == arrays[_i].rc,
                   "'%s'", arrays[_i].val);
    if (arrays[_i].rc == 0) {
        ck_assert_uint_eq (a.ntasks, arrays[_i].ntasks);
        ck_assert_uint_eq (a.max_index, arrays[_i].max_index);
        ck_assert_uint_eq (a.max_running, arrays[_i].max_running);
    }
}
END_TEST

START_TEST (dependency_forms)
{
    ms_deps_t d;
    ms_error_t err;

    ck_assert_int_eq (jobspec_parse_dependency ("afterok:12:13,singleton", &d,
                                                &err),
                      0);
    ck_assert_uint_eq (d.n, 3);
    ck_assert_int_eq (d.d[1].type, JOBSPEC_DEP_AFTEROK);
    ck_assert_uint_eq (d.d[1].job_id, 13);
    ck_assert_int_eq (d.d[2].type, JOBSPEC_DEP_SINGLETON);
    ck_assert (!d.any);
    ck_assert_int_eq (jobspec_parse_dependency ("afterok:1?afternotok:2", &d,
                                                &err),
                      0);
    ck_assert (d.any);
    ck_assert_int_eq (jobspec_parse_dependency ("after:5+10", &d, &err), 0);
    ck_assert_uint_eq (d.d[0].delay_min, 10);
    ck_assert_int_eq (jobspec_parse_dependency ("afterok:1,afterany:2?singleton",
                                                &d, &err),
                      -1);
    ck_assert_str_eq (err.text, "',' (all of) and '?' (any of) are not mixed");
    ck_assert_int_eq (jobspec_parse_dependency ("afterok", &d, &err), -1);
    ck_assert_int_eq (jobspec_parse_dependency ("afterok:12_3", &d, &err), -1);
    ck_assert_int_eq (jobspec_parse_dependency ("before:1", &d, &err), -1);
    ck_assert_int_eq (jobspec_parse_dependency ("afterok:1+5", &d, &err), -1);
}
END_TEST

/* a real sbatch option is never "unknown": refused ones say why */
static const struct {
    const char *line, *want;
} refusals[] = {
    { "-M 'a b'", "j.sh:2: --clusters=a b: ' ' has no place in a list of cluster names" },
    { "--cpu-freq=fast", "j.sh:2: --cpu-freq=fast: 'fast' is no frequency" },
    { "--uid=bob", "j.sh:2: --uid: not supported: the job runs as the user who submits it" },
    { "--bb=x", "j.sh:2: --bb: not supported: burst buffers" },
    { "--priority=-5", "j.sh:2: --priority=-5: expected TOP or a whole number" },
    { "--wrap=date", "j.sh:2: --wrap: only on the command line" },
    { "hetjob --frobnicate", "j.sh:2: unknown option '--frobnicate'" },
    { "--frobnicate", "j.sh:2: unknown option '--frobnicate'" },
    { "--mail-type=SOMETIMES", "j.sh:2: --mail-type=SOMETIMES: expected NONE, BEGIN" },
    { "--signal=B:NOPE@5", "j.sh:2: --signal=B:NOPE@5: expected" },
    { "--gpus=a100:", "j.sh:2: --gpus=a100:: expected [TYPE:]COUNT" },
    { "--gres=gpu:a100:2:3", "j.sh:2: --gres=gpu:a100:2:3: expected NAME" },
    { "--account='a b'", "j.sh:2: --account=a b: ' ' has no place in a name" },
    { "--hint=fast", "j.sh:2: --hint=fast: expected compute_bound" },
    { "--distribution=round", "j.sh:2: --distribution=round: expected" },
    { "--open-mode=x", "j.sh:2: --open-mode=x: expected append or truncate" },
    { "--nodes=1,x", "j.sh:2: --nodes=1,x: \"1,x\" is not a valid node count" },
    { "--nod=2", "j.sh:2: option '--nod' is ambiguous" },
    { "--array=1-5 --time", "j.sh:2: --time: needs a value" },
};

START_TEST (refusals_name_the_option)
{
    ms_jobspec_t s;
    ms_error_t err;
    char sc[256];

    snprintf (sc, sizeof (sc), "#!/bin/sh\n#SBATCH %s\n", refusals[_i].line);
    jobspec_init (&s);
    ck_assert_int_eq (jobspec_parse_script (&s, sc, strlen (sc), "j.sh", &err),
                      -1);
    ck_assert_msg (strstr (err.text, refusals[_i].want) == err.text,
                   "'%s' gave '%s'", refusals[_i].line, err.text);
    jobspec_free (&s);
}
END_TEST

START_TEST (every_option_in_the_table)
{
    const jobspec_option_t *o;
    size_t n = 0;

    for (size_t k = 0; (o = jobspec_option_at (k)); k++) {
        n++;
        ck_assert_msg (o->handling != JOBSPEC_REFUSED || (o->why && *o->why),
                       "--%s is refused without a reason", o->name);
        if (k > 0)
            ck_assert_msg (strcmp (jobspec_option_at (k - 1)->name, o->name) < 0,
                           "--%s out of order", o->name);
    }
    ck_assert_uint_ge (n, 110);
}
END_TEST

/* The variables that name a running job are never exported (msbatch(1),
 * ENVIRONMENT); others, and look-alikes, are. */
START_TEST (identity_variables)
{
    static const char *const ident[]
        = { "SLURM_JOB_ID=5",     "SLURM_ARRAY_JOB_ID=4", "SLURM_ARRAY_TASK_ID",
            "SLURM_JOBID",        "SLURM_STEP_ID",        "SLURM_NODELIST",
            "SLURMD_NODENAME=a1", "SLURM_CLUSTER_NAME",   "METASCHED_JOB_ID=9",
            "SLURM_HET_JOB_ID" };
    static const char *const other[] = { "PATH=/bin",        "SLURM_CONF=/x",
                                         "SLURM_JOBIDX",     "SLURM_ARRAY",
                                         "METASCHED_SERVER", "SBATCH_ACCOUNT",
                                         "SLURM_NTASKSX",    "HOME" };

    for (size_t i = 0; i < sizeof (ident) / sizeof (ident[0]); i++)
        ck_assert_msg (
            jobspec_env_is_identity (ident[i], strcspn (ident[i], "=")), "%s",
            ident[i]);
    for (size_t i = 0; i < sizeof (other) / sizeof (other[0]); i++)
        ck_assert_msg (
            !jobspec_env_is_identity (other[i], strcspn (other[i], "=")), "%s",
            other[i]);
}
END_TEST

int
main (void)
{
    Suite *s;
    TCase *tc;

    setenv ("TZ", "UTC", 1); /* --begin's fixed times are in UTC */
    tzset ();
    s = suite_create ("jobspec");
    tc = tcase_create ("parse");
    tcase_add_test (tc, script_options);
    tcase_add_test (tc, command_line_wins);
    tcase_add_loop_test (tc, time_formats, 0, (int)(sizeof (times) / sizeof (times[0])));
    tcase_add_loop_test (tc, begin_forms, 0,
                         (int)(sizeof (begins) / sizeof (begins[0])));
    tcase_add_test (tc, begin_local_time);
    tcase_add_test (tc, begin_option);
    tcase_add_loop_test (tc, bad_scripts, 0, (int)(sizeof (bad) / sizeof (bad[0])));
    tcase_add_test (tc, checks);
    tcase_add_test (tc, sbatch_line_rules);
    tcase_add_loop_test (tc, memory_forms, 0, (int)(sizeof (mems) / sizeof (mems[0])));
    tcase_add_loop_test (tc, array_forms, 0, (int)(sizeof (arrays) / sizeof (arrays[0])));
    tcase_add_test (tc, dependency_forms);
    tcase_add_loop_test (tc, refusals_name_the_option, 0,
                         (int)(sizeof (refusals) / sizeof (refusals[0])));
    tcase_add_test (tc, every_option_in_the_table);
    tcase_add_test (tc, identity_variables);
    suite_add_tcase (s, tc);
    return test_run_suite (s);
}
