/* test_spool.c - spool records: atomic files, strict parsing of what users
 * and crashes can leave behind, job_runs rows and the wrapper's counter
 * file through them. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "collectors/collect.h"
#include "collectors/log.h"
#include "collectors/spool.h"
#include "tests/testutil.h"

static char dir[64];

static void
mkdir_tmp (void)
{
    strcpy (dir, "/tmp/ms-spool-XXXXXX");
    ck_assert_ptr_nonnull (mkdtemp (dir));
}

static void
rm_dir (void)
{
    char cmd[128];
    snprintf (cmd, sizeof (cmd), "rm -rf '%s'", dir);
    ck_assert_int_eq (system (cmd), 0);
}

static int
parse (const char *text, spool_rec_t **r, ms_error_t *e)
{
    return spool_rec_parse (text, strlen (text), "t.run", r, e);
}

START_TEST (write_read_roundtrip)
{
    spool_rec_t *r = spool_rec_new ("job_run"), *back;
    char path[128];
    struct stat st;
    ms_error_t e;
    uint64_t u;
    double d;

    mkdir_tmp ();
    spool_rec_set (r, "cluster", "alpha");
    spool_rec_setf (r, "slurm_job_id", "%d", 42);
    spool_rec_set (r, "note", "tab\there\nnewline");
    spool_rec_set (r, "runtime_s", "12.5");
    spool_rec_set (r, "cluster", "beta"); /* replaces */
    ck_assert_int_eq (spool_write (dir, "a.run", r, 0600, &e), 0);
    snprintf (path, sizeof (path), "%s/a.run", dir);
    ck_assert_int_eq (stat (path, &st), 0);
    ck_assert_int_eq (st.st_mode & 0777, 0600);
    ck_assert_int_eq (spool_read (path, "job_run", &back, &e), 0);
    ck_assert_str_eq (spool_rec_kind (back), "job_run");
    ck_assert_uint_eq (spool_rec_count (back), 4);
    ck_assert_str_eq (spool_rec_get (back, "cluster"), "beta");
    ck_assert_str_eq (spool_rec_get (back, "note"), "tab?here?newline");
    ck_assert_int_eq (spool_rec_get_u64 (back, "slurm_job_id", &u, &e), 1);
    ck_assert_uint_eq (u, 42);
    ck_assert_int_eq (spool_rec_get_double (back, "runtime_s", &d, &e), 1);
    ck_assert_double_eq (d, 12.5);
    ck_assert_int_eq (spool_rec_get_u64 (back, "absent", &u, &e), 0);
    ck_assert_int_eq (spool_rec_get_u64 (back, "cluster", &u, &e), -1);
    ck_assert (strstr (e.text, "cluster") != NULL);
    spool_rec_free (back);
    /* the wrong kind is refused */
    ck_assert_int_eq (spool_read (path, "counters", &back, &e), -1);
    ck_assert (strstr (e.text, "expected 'counters'") != NULL);
    spool_rec_free (r);
    /* no temporary file is left behind */
    {
        char **names;
        size_t n;
        ck_assert_int_eq (spool_list (dir, NULL, NULL, &names, &n, &e), 0);
        ck_assert_uint_eq (n, 1);
        ck_assert_str_eq (names[0], "a.run");
        spool_list_free (names, n);
    }
    rm_dir ();
}
END_TEST

START_TEST (strict_parsing)
{
    static const struct {
        const char *text, *why;
    } bad[] = {
        { "", "empty" },
        { "metasched-spool 1 job_run\nkey=v\n", "no 'end'" },
        { "metasched-spool 1 job_run\nkey=v", "not terminated" },
        { "metasched-spool 2 job_run\nend\n", "not a metasched spool" },
        { "metasched-spool 1 Job\nend\n", "not a metasched spool" },
        { "metasched-spool 1 job_run\nk=1\nk=2\nend\n", "given twice" },
        { "metasched-spool 1 job_run\nno equals\nend\n", "t.run:2: expected" },
        { "metasched-spool 1 job_run\nk y=1\nend\n", "expected key=value" },
        { "metasched-spool 1 job_run\nk=a\tb\nend\n", "control" },
        { "metasched-spool 1 job_run\nk=\xc3\xa9\nend\n", "non-ASCII" },
        { "metasched-spool 1 job_run\nend\nk=1\n", "after 'end'" },
    };
    spool_rec_t *r;
    ms_error_t e;

    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        r = NULL;
        ck_assert_msg (parse (bad[i].text, &r, &e) == -1, "accepted #%zu", i);
        ck_assert_ptr_null (r);
        ck_assert_msg (strstr (e.text, bad[i].why) != NULL, "#%zu: '%s'", i,
                       e.text);
    }
    ck_assert_int_eq (parse ("metasched-spool 1 job_run\nk=\nend\n", &r, &e), 0);
    ck_assert_str_eq (spool_rec_get (r, "k"), "");
    spool_rec_free (r);
}
END_TEST

START_TEST (size_limits)
{
    char *big = malloc (SPOOL_MAX_BYTES + 100), *val;
    spool_rec_t *r;
    ms_error_t e;
    size_t len;

    memset (big, 'x', SPOOL_MAX_BYTES + 99);
    big[SPOOL_MAX_BYTES + 99] = '\0';
    ck_assert_int_eq (spool_rec_parse (big, strlen (big), "big", &r, &e), -1);
    ck_assert (strstr (e.text, "larger than") != NULL);
    /* a value over the limit is refused when read and cut when written */
    val = malloc (SPOOL_MAX_VALUE + 10);
    memset (val, 'v', SPOOL_MAX_VALUE + 9);
    val[SPOOL_MAX_VALUE + 9] = '\0';
    len = (size_t)snprintf (big, SPOOL_MAX_BYTES,
                            "metasched-spool 1 job_run\nk=%s\nend\n", val);
    ck_assert_int_eq (spool_rec_parse (big, len, "v", &r, &e), -1);
    ck_assert (strstr (e.text, "longer than") != NULL);
    r = spool_rec_new ("job_run");
    spool_rec_set (r, "k", val);
    ck_assert_uint_eq (strlen (spool_rec_get (r, "k")), SPOOL_MAX_VALUE);
    spool_rec_free (r);
    free (val);
    free (big);
}
END_TEST

static void
sample_row (db_job_run_t *r)
{
    db_job_run_init (r);
    strcpy (r->cluster, "alpha");
    strcpy (r->partition, "batch");
    r->slurm_job_id = 1234;
    strcpy (r->node, "a1");
    strcpy (r->app, "lu.C");
    strcpy (r->user_name, "msuser");
    r->uid = 1001;
    r->nodes = 2;
    r->freq_req_khz = 2000000;
    r->start_time = 1700000000.25;
    r->end_time = 1700000100.5;
    r->runtime_s = 100.25;
    r->pkg_energy_j = 12345.5;
    r->avg_power_w = 123.2;
    r->instructions = 1000;
    strcpy (r->counters_json, "{\"perf::TASK-CLOCK\": 99, \"PAPI_TOT_INS\": 1000}");
    strcpy (r->events_used, "perf::TASK-CLOCK,PAPI_TOT_INS");
    strcpy (r->events_unavailable, "PAPI_TOT_CYC");
    r->has_exit_code = true;
    r->exit_code = 3;
    r->exclusive = 1;
    strcpy (r->collector_version, "test");
}

START_TEST (job_run_roundtrip)
{
    db_job_run_t r, back;
    spool_rec_t *rec, *parsed;
    char *text;
    size_t len;
    ms_error_t e;

    sample_row (&r);
    r.het_job_id = 1233; /* the second component of hetjob 1233 */
    r.het_job_offset = 1;
    rec = collect_jobrun_to_rec (&r);
    text = spool_rec_format (rec, &len);
    ck_assert_int_eq (spool_rec_parse (text, len, "x.run", &parsed, &e), 0);
    ck_assert_int_eq (collect_jobrun_from_rec (parsed, &back, &e), 0);
    ck_assert_str_eq (back.cluster, "alpha");
    ck_assert_str_eq (back.partition, "batch");
    ck_assert_uint_eq (back.slurm_job_id, 1234);
    ck_assert_int_eq (back.uid, 1001);
    ck_assert_int_eq (back.nodes, 2);
    ck_assert_uint_eq (back.freq_req_khz, 2000000);
    ck_assert_uint_eq (back.freq_obs_khz, 0);
    ck_assert_double_eq_tol (back.start_time, r.start_time, 1e-6);
    ck_assert_double_eq_tol (back.runtime_s, 100.25, 1e-9);
    ck_assert_double_eq_tol (back.pkg_energy_j, 12345.5, 1e-9);
    ck_assert (back.dram_energy_j < 0);
    ck_assert_int_eq (back.cycles, -1);
    ck_assert_int_eq (back.instructions, 1000);
    ck_assert_str_eq (back.counters_json, r.counters_json);
    ck_assert_str_eq (back.events_unavailable, "PAPI_TOT_CYC");
    ck_assert (back.has_exit_code && back.exit_code == 3);
    ck_assert_int_eq (back.exclusive, 1);
    ck_assert_uint_eq (back.het_job_id, 1233);
    ck_assert_int_eq (back.het_job_offset, 1);
    ck_assert_str_eq (back.source, "root-measured");
    free (text);
    spool_rec_free (rec);
    spool_rec_free (parsed);
}
END_TEST

/* Rows that the database would reject are refused when read back. */
START_TEST (job_run_rejects_nonsense)
{
    static const struct {
        const char *key, *val, *why;
    } bad[] = {
        { "runtime_s", "-1", "times out of range" },
        { "end_time", "1600000000", "times out of range" },
        { "pkg_energy_j", "-3", "negative energy" },
        { "nodes", "0", "nodes" },
        { "slurm_job_id", "0", "slurm_job_id" },
        { "source", "guess", "source" },
        { "counters", "{\"a\": 1} DROP", "counter object" },
        { "counters", "{\"a\\\"\": 1}", "counter object" },
        { "events_used", "a;b", "event list" },
        { "exclusive", "maybe", "exclusive" },
        { "freq_req_khz", "-5", "freq_req_khz" },
        { "runtime_s", "nan", "runtime_s" },
        { "cycles", "-2", "negative counter" },
        { "het_job_id", "0", "het_job_id" },
        { "het_job_id", "12", "without het_job_offset" },
    };
    db_job_run_t r, back;
    ms_error_t e;

    sample_row (&r);
    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        spool_rec_t *rec = collect_jobrun_to_rec (&r);
        spool_rec_set (rec, bad[i].key, bad[i].val);
        ms_err_clear (&e);
        ck_assert_msg (collect_jobrun_from_rec (rec, &back, &e) == -1,
                       "%s=%s accepted", bad[i].key, bad[i].val);
        ck_assert_msg (strstr (e.text, bad[i].why) != NULL, "%s: '%s'",
                       bad[i].key, e.text);
        spool_rec_free (rec);
    }
}
END_TEST

START_TEST (counter_file)
{
    const char *text =
        "metasched-spool 1 counters\n"
        "app=stream\n"
        "start=100.5\nend=110.5\nexit=0\nsignal=0\n"
        "utime_s=9.5\nstime_s=0.25\nmaxrss_kb=2048\n"
        "user_pkg_j=500\n"
        "freq_req_khz=1800000\n"
        "event.PAPI_TOT_CYC=3000\nevent.PAPI_TOT_INS=1500\n"
        "event.PAPI_L3_TCM=15\nevent.perf::TASK-CLOCK=9500000000\n"
        "unavailable.PAPI_FP_OPS=PAPI: Event does not exist\n"
        "end\n";
    spool_rec_t *rec;
    collect_counters_t k;
    ms_error_t e;

    ck_assert_int_eq (parse (text, &rec, &e), 0);
    ck_assert_int_eq (collect_counters_from_rec (rec, &k, &e), 0);
    ck_assert_str_eq (k.app, "stream");
    ck_assert_double_eq (k.end_time - k.start_time, 10);
    ck_assert_int_eq (k.cycles, 3000);
    ck_assert_int_eq (k.instructions, 1500);
    ck_assert_int_eq (k.mem_transactions, 15);
    ck_assert_double_eq (k.user_pkg_j, 500);
    ck_assert (k.user_dram_j < 0);
    ck_assert_uint_eq (k.freq_req_khz, 1800000);
    ck_assert_str_eq (k.events_used,
                      "PAPI_TOT_CYC,PAPI_TOT_INS,PAPI_L3_TCM,perf::TASK-CLOCK");
    ck_assert_str_eq (k.events_unavailable, "PAPI_FP_OPS");
    ck_assert (strstr (k.counters_json, "\"PAPI_TOT_CYC\": 3000") != NULL);
    ck_assert (strstr (k.counters_json, "\"perf::TASK-CLOCK\": 9500000000") != NULL);
    spool_rec_free (rec);
}
END_TEST

/* The start gate's word survives the file both ways; a file without it is
 * a command that ran. */
START_TEST (counter_file_gate)
{
    collect_counters_t k, back;
    spool_rec_t *rec;
    ms_error_t e;

    collect_counters_init (&k);
    ck_assert_str_eq (k.gate, "");
    strcpy (k.gate, "lost");
    k.gate_job_id = 42;
    k.start_time = k.end_time = 100;
    rec = collect_counters_to_rec (&k);
    ck_assert_str_eq (spool_rec_get (rec, "gate"), "lost");
    ck_assert_msg (collect_counters_from_rec (rec, &back, &e) == 0, "%s",
                   e.text);
    ck_assert_str_eq (back.gate, "lost");
    ck_assert_uint_eq (back.gate_job_id, 42);
    spool_rec_free (rec);
    ck_assert_int_eq (parse ("metasched-spool 1 counters\nstart=1\nend=2\n"
                             "gate=refused\nend\n",
                             &rec, &e),
                      0);
    ck_assert_int_eq (collect_counters_from_rec (rec, &back, &e), 0);
    ck_assert_str_eq (back.gate, "refused");
    ck_assert_uint_eq (back.gate_job_id, 0);
    spool_rec_free (rec);
    ck_assert_int_eq (parse ("metasched-spool 1 counters\nstart=1\nend=2\n"
                             "end\n",
                             &rec, &e),
                      0);
    ck_assert_int_eq (collect_counters_from_rec (rec, &back, &e), 0);
    ck_assert_str_eq (back.gate, "");
    spool_rec_free (rec);
}
END_TEST

START_TEST (counter_file_hostile)
{
    static const char *const bad[] = {
        "metasched-spool 1 counters\nstart=5\nend=1\nend\n",
        "metasched-spool 1 counters\nstart=1\nend=2\nexit=999\nend\n",
        "metasched-spool 1 counters\nstart=1\nend=2\nevent.X=-1\nend\n",
        "metasched-spool 1 counters\nstart=1\nend=2\nevent.X=1e3\nend\n",
        "metasched-spool 1 counters\nstart=1\nend=2\nutime_s=-4\nend\n",
        "metasched-spool 1 counters\nstart=inf\nend=2\nend\n",
        "metasched-spool 1 counters\nstart=1\nend=2\nuser_pkg_j=1e300\nend\n",
        "metasched-spool 1 job_run\nend\n",
        "metasched-spool 1 counters\nstart=1\nend=2\ngate=won\nend\n",
        "metasched-spool 1 counters\nstart=1\nend=2\ngate=lost\n"
        "gate_job=-7\nend\n",
    };
    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        spool_rec_t *rec;
        collect_counters_t k;
        ms_error_t e;
        ck_assert_int_eq (parse (bad[i], &rec, &e), 0);
        ck_assert_msg (collect_counters_from_rec (rec, &k, &e) == -1,
                       "accepted #%zu", i);
        spool_rec_free (rec);
    }
}
END_TEST

START_TEST (listing)
{
    spool_rec_t *r = spool_rec_new ("job_run");
    char **names;
    size_t n;
    ms_error_t e;

    mkdir_tmp ();
    ck_assert_int_eq (spool_write (dir, "b.run", r, 0600, &e), 0);
    ck_assert_int_eq (spool_write (dir, "a.run", r, 0600, &e), 0);
    ck_assert_int_eq (spool_write (dir, "c.state", r, 0600, &e), 0);
    ck_assert_int_eq (spool_write (dir, "../x.run", r, 0600, &e), -1);
    ck_assert_int_eq (spool_list (dir, NULL, ".run", &names, &n, &e), 0);
    ck_assert_uint_eq (n, 2);
    ck_assert_str_eq (names[0], "a.run");
    ck_assert_str_eq (names[1], "b.run");
    spool_list_free (names, n);
    spool_rec_free (r);
    rm_dir ();
}
END_TEST

START_TEST (slurm_json_answer)
{
    /* 22.05's record (v0.0.38): a name and comment that pose as fields */
    const char *out
        = "{\"meta\": {}, \"errors\": [], \"jobs\": ["
          "{\"job_id\": 14, \"name\": \"other\", \"node_count\": 9},"
          "{\"job_id\": 15, \"name\": \"lu.C NumNodes=64 "
          "OverSubscribe=YES CpuFreqMax=2400000\", \"comment\": "
          "\" NumNodes=64 OverSubscribe=YES\", \"user_id\": 1001,"
          " \"partition\": \"batch\", \"node_count\": 2,"
          " \"shared\": \"none\", \"cpu_frequency_maximum\": 2000000,"
          " \"job_state\": \"COMPLETING\", \"start_time\": 1700000000,"
          " \"end_time\": 1700000100}]}";
    /* 23.02 on (v0.0.39+): numbers as {set, number}, flags as lists */
    const char *out40
        = "{\"jobs\": [{\"job_id\": 15, \"name\": \"x\","
          " \"partition\": \"batch\", \"job_state\": [\"COMPLETED\"],"
          " \"node_count\": {\"set\": true, \"infinite\": false,"
          " \"number\": 3}, \"shared\": [\"oversubscribe\"],"
          " \"cpu_frequency_maximum\": {\"set\": false, \"infinite\":"
          " false, \"number\": 0}, \"start_time\": {\"set\": true,"
          " \"number\": 1700000000}, \"end_time\": {\"set\": true,"
          " \"number\": 1700000100}}]}";
    collect_slurm_job_t sj;
    ms_error_t e;

    ck_assert_msg (collect_parse_slurm_json (out, strlen (out), 15, &sj, &e)
                       == 0,
                   "%s", e.text);
    ck_assert_uint_eq (sj.freq_max_khz, 2000000);
    ck_assert_int_eq (sj.nodes, 2);
    ck_assert_str_eq (sj.partition, "batch");
    ck_assert_int_eq (sj.exclusive, 1);
    ck_assert (sj.start_time == 1700000000);
    ck_assert (sj.end_time == 0); /* still completing: not ended */
    ck_assert_msg (collect_parse_slurm_json (out40, strlen (out40), 15, &sj, &e)
                       == 0,
                   "%s", e.text);
    ck_assert_int_eq (sj.nodes, 3);
    ck_assert_int_eq (sj.exclusive, 0);
    ck_assert_uint_eq (sj.freq_max_khz, 0);
    ck_assert (sj.end_time == 1700000100);
    ck_assert_int_eq (collect_parse_slurm_json (out, strlen (out), 16, &sj, &e),
                      -1);
    ck_assert_int_eq (e.kind, MS_ERR_MISSING);
    ck_assert_int_eq (
        collect_parse_slurm_json ("JobId=15 NumNodes=64", 20, 15, &sj, &e), -1);
}
END_TEST

START_TEST (collector_config)
{
    collect_conf_t c;
    ms_error_t e;
    char path[128], root[256];
    FILE *f;

    mkdir_tmp ();
    snprintf (path, sizeof (path), "%s/collect.conf", dir);
    f = fopen (path, "w");
    fputs ("# test\npowercap_root = /x/%n/powercap\n\nmax_power_w = 250\n"
           "bogus = 1\n", f);
    fclose (f);
    collect_conf_defaults (&c);
    ck_assert_int_eq (collect_conf_load (path, false, &c, &e), -1);
    ck_assert (strstr (e.text, "collect.conf:5: unknown key 'bogus'") != NULL);
    ck_assert_double_eq (c.max_power_w, 250);
    collect_powercap_root (&c, "a1", root, sizeof (root));
    ck_assert_str_eq (root, "/x/a1/powercap");
    ck_assert_int_eq (collect_conf_set (&c, "conninfo",
                                        "dbname=x password=secret", &e), -1);
    ck_assert (strstr (e.text, "0600") != NULL);
    ck_assert (strstr (e.text, "secret") == NULL);
    snprintf (path, sizeof (path), "%s/missing.conf", dir);
    ck_assert_int_eq (collect_conf_load (path, true, &c, &e), 0);
    ck_assert_int_eq (collect_conf_load (path, false, &c, &e), -1);
    rm_dir ();
}
END_TEST

static int drop_lines;

static void
count_drops (int prio, const char *line, void *arg)
{
    (void)prio;
    (void)arg;
    if (strstr (line, "dropped") || strstr (line, "bad_max_age_days"))
        drop_lines++;
}

static void
put_bad (const char *name, time_t age_s)
{
    char path[256];
    struct timespec ts[2];
    FILE *f;

    snprintf (path, sizeof (path), "%s/bad/%s", dir, name);
    f = fopen (path, "w");
    ck_assert_ptr_nonnull (f);
    fputs ("metasched-spool 1 job_run\ncluster=c\nend\n", f);
    fclose (f);
    clock_gettime (CLOCK_REALTIME, &ts[0]);
    ts[0].tv_sec -= age_s;
    ts[1] = ts[0];
    ck_assert_int_eq (utimensat (AT_FDCWD, path, ts, 0), 0);
}

/* The spool's cap: bad/ aged and dropped first, then the oldest rows;
 * each drop logged and counted in SPOOL/dropped; a flush's report marks
 * them reported. Settings out of range are refused with the key named. */
START_TEST (spool_cap)
{
    collect_conf_t c;
    collect_drops_t d, since;
    db_job_run_t r;
    ms_error_t e;
    char path[256];
    const char *refused[] = { "spool_max_files=0",     "spool_max_bytes=65535",
                              "epilog_send_ms=10001",  "epilog_send_ms=-1",
                              "bad_max_age_days=0",    "bad_max_age_days=x",
                              "db_connect_timeout_s=1", "slurm_query_ms=50" };

    mkdir_tmp ();
    collect_conf_defaults (&c);
    ck_assert_int_eq (collect_conf_set (&c, "spool_dir", dir, &e), 0);
    ck_assert_int_eq (collect_conf_set (&c, "spool_max_files", "5", &e), 0);
    for (size_t i = 0; i < sizeof (refused) / sizeof (refused[0]); i++) {
        char kv[64], *eq;
        snprintf (kv, sizeof (kv), "%s", refused[i]);
        eq = strchr (kv, '=');
        *eq = '\0';
        ck_assert_int_eq (collect_conf_set (&c, kv, eq + 1, &e), -1);
        ck_assert_msg (strncmp (e.text, kv, strlen (kv)) == 0, "%s", e.text);
    }
    snprintf (path, sizeof (path), "%s/bad", dir);
    ck_assert_int_eq (mkdir (path, 0700), 0);
    put_bad ("c.100.n1.root.run", 40 * 86400); /* past bad_max_age_days */
    put_bad ("c.101.n1.root.run", 3600);
    drop_lines = 0;
    collect_log_capture (count_drops, NULL);
    for (int id = 1; id <= 8; id++) {
        db_job_run_init (&r);
        strcpy (r.cluster, "c");
        strcpy (r.partition, "p");
        strcpy (r.node, "n1");
        strcpy (r.app, "a");
        strcpy (r.user_name, "u");
        strcpy (r.source, "root-measured");
        strcpy (r.collector_version, "t");
        r.slurm_job_id = (uint64_t)id;
        r.nodes = 1;
        r.start_time = 1;
        r.end_time = 2;
        r.runtime_s = 1;
        ck_assert_msg (collect_spool_row (&c, &r, &e) == 0, "%s", e.text);
    }
    collect_log_capture (NULL, NULL);
    /* rows 4..8 kept; 1..3, the recent bad/ file and the aged one gone */
    for (int id = 1; id <= 8; id++) {
        snprintf (path, sizeof (path), "%s/c.%d.n1.root.run", dir, id);
        ck_assert_int_eq (access (path, F_OK), id >= 4 ? 0 : -1);
    }
    snprintf (path, sizeof (path), "%s/bad/c.101.n1.root.run", dir);
    ck_assert_int_eq (access (path, F_OK), -1);
    ck_assert_int_eq (drop_lines, 5);
    ck_assert_int_eq (collect_drops_read (&c, &d, &e), 0);
    ck_assert_uint_eq (d.rows, 3);
    ck_assert_uint_eq (d.bad, 1);
    ck_assert_uint_eq (d.aged, 1);
    ck_assert (d.last > 0);
    /* the record names the spool's node, what the database keys it by */
    ck_assert_str_eq (d.cluster, "c");
    ck_assert_str_eq (d.node, "n1");
    collect_log_capture (count_drops, NULL);
    ck_assert_int_eq (collect_drops_report (&c, &d, &since, &e), 0);
    ck_assert_uint_eq (since.rows, 3);
    ck_assert_uint_eq (since.bad, 1);
    ck_assert_uint_eq (since.aged, 1);
    ck_assert_int_eq (collect_drops_report (&c, &d, &since, &e), 0);
    collect_log_capture (NULL, NULL);
    ck_assert_uint_eq (since.rows + since.bad + since.aged, 0);
    ck_assert_uint_eq (d.rows, 3); /* the totals stay */
    ck_assert_str_eq (d.node, "n1"); /* and the node */
    /* the first report logged, not the second */
    ck_assert_int_eq (drop_lines, 6);
    /* a count file that is not a record of ours is said and started over */
    snprintf (path, sizeof (path), "%s/dropped", dir);
    {
        FILE *f = fopen (path, "w");
        ck_assert_ptr_nonnull (f);
        fputs ("metasched-spool 1 spool_drops\nrows=x\nend\n", f);
        fclose (f);
    }
    collect_log_capture (count_drops, NULL);
    ck_assert_msg (collect_drops_report (&c, &d, &since, &e) == 0, "%s",
                   e.text);
    collect_log_capture (NULL, NULL);
    ck_assert_uint_eq (d.rows, 0);
    ck_assert_int_eq (drop_lines, 7);
    ck_assert_int_eq (collect_drops_read (&c, &d, &e), 0);
    rm_dir ();
}
END_TEST

/* The epilog's send of its row waits no longer than its bound, even for a
 * host that takes the connection and never answers; the row stays. */
START_TEST (send_row_bounded)
{
    collect_conf_t c;
    db_job_run_t r;
    ms_error_t e;
    struct sockaddr_in a;
    socklen_t al = sizeof (a);
    struct timespec t0, t1;
    char ci[200];
    double s;
    int fd = socket (AF_INET, SOCK_STREAM, 0);

    memset (&a, 0, sizeof (a));
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
    ck_assert_int_eq (bind (fd, (struct sockaddr *)&a, sizeof (a)), 0);
    ck_assert_int_eq (listen (fd, 8), 0); /* and never accept */
    ck_assert_int_eq (getsockname (fd, (struct sockaddr *)&a, &al), 0);
    mkdir_tmp ();
    collect_conf_defaults (&c);
    ck_assert_int_eq (collect_conf_set (&c, "spool_dir", dir, &e), 0);
    snprintf (ci, sizeof (ci), "host=127.0.0.1 port=%d dbname=x user=y",
              ntohs (a.sin_port));
    ck_assert_int_eq (collect_conf_set (&c, "conninfo", ci, &e), 0);
    db_job_run_init (&r);
    strcpy (r.cluster, "c");
    strcpy (r.node, "n1");
    strcpy (r.source, "root-measured");
    r.slurm_job_id = 9;
    clock_gettime (CLOCK_MONOTONIC, &t0);
    ck_assert_int_eq (collect_send_row (&c, &r, 500, &e), -1);
    clock_gettime (CLOCK_MONOTONIC, &t1);
    s = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
    ck_assert_int_eq (e.kind, MS_ERR_TIMEOUT);
    ck_assert_msg (strstr (e.text, "epilog_send_ms = 500") != NULL, "%s",
                   e.text);
    /* libpq alone would wait its connect_timeout (3 s) */
    ck_assert_msg (s < 2.5, "took %.2f s", s);
    ck_assert_int_eq (collect_send_row (&c, &r, 0, &e), -1);
    ck_assert (strstr (e.text, "left to the flush") != NULL);
    close (fd);
    rm_dir ();
}
END_TEST

int
main (void)
{
    Suite *s = suite_create ("spool");
    TCase *tc = tcase_create ("spool");

    tcase_add_test (tc, write_read_roundtrip);
    tcase_add_test (tc, strict_parsing);
    tcase_add_test (tc, size_limits);
    tcase_add_test (tc, job_run_roundtrip);
    tcase_add_test (tc, job_run_rejects_nonsense);
    tcase_add_test (tc, counter_file);
    tcase_add_test (tc, counter_file_gate);
    tcase_add_test (tc, counter_file_hostile);
    tcase_add_test (tc, listing);
    tcase_add_test (tc, slurm_json_answer);
    tcase_add_test (tc, collector_config);
    tcase_add_test (tc, spool_cap);
    tcase_add_test (tc, send_row_bounded);
    suite_add_tcase (s, tc);
    return test_run_suite (s);
}
