/* test_rapl_nodeside.c - the node side without Slurm or PostgreSQL: the
 * prolog reads a test powercap tree and starts the real sampler; the test
 * advances the counters through several wraps, each seen by the sampler;
 * the wrapper writes the job's counter file; the epilog, finding no
 * database, spools a row whose energy, runtime and counters are checked.
 * The job's identity comes from the variables Slurm sets. A copy of a
 * sibling job that the start gate stopped leaves no row at all. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "collectors/collect.h"
#include "collectors/rapl.h"
#include "tests/testutil.h"

static char base[64], pc[128];

/* Replace a counter file whole (write a temporary, rename it over), as the
 * kernel's files change: the sampler reading beside us never sees an empty
 * or half-written file. */
static void
put (const char *rel, unsigned long long v)
{
    char path[256], tmp[300];
    FILE *f;
    snprintf (path, sizeof (path), "%s/%s", pc, rel);
    snprintf (tmp, sizeof (tmp), "%s.tmp", path);
    f = fopen (tmp, "w");
    ck_assert_ptr_nonnull (f);
    fprintf (f, "%llu\n", v);
    ck_assert_int_eq (fclose (f), 0);
    ck_assert_int_eq (rename (tmp, path), 0);
}

static void
put_text (const char *rel, const char *s)
{
    char path[256];
    FILE *f;
    snprintf (path, sizeof (path), "%s/%s", pc, rel);
    f = fopen (path, "w");
    ck_assert_ptr_nonnull (f);
    fputs (s, f);
    fclose (f);
}

static void
msleep (int ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    nanosleep (&ts, NULL);
}

/* A node "n1" whose package wraps at 10 J with a 100 W limit: the sampler
 * must read it every 10 / 100 / 2 = 0.05 s. */
static void
setup (collect_conf_t *c, collect_job_t *j)
{
    char sub[300];
    ms_error_t e;

    strcpy (base, "/tmp/ms-node-XXXXXX");
    ck_assert_ptr_nonnull (mkdtemp (base));
    chmod (base, 0755);
    snprintf (pc, sizeof (pc), "%s/pc-n1", base);
    mkdir (pc, 0755);
    snprintf (sub, sizeof (sub), "%s/intel-rapl:0", pc);
    mkdir (sub, 0755);
    snprintf (sub, sizeof (sub), "%s/intel-rapl:0/intel-rapl:0:0", pc);
    mkdir (sub, 0755);
    put_text ("intel-rapl:0/name", "package-0\n");
    put ("intel-rapl:0/max_energy_range_uj", 10000000ULL);
    put ("intel-rapl:0/constraint_0_max_power_uw", 100000000ULL);
    put ("intel-rapl:0/energy_uj", 9000000ULL);
    put_text ("intel-rapl:0/intel-rapl:0:0/name", "dram\n");
    put ("intel-rapl:0/intel-rapl:0:0/max_energy_range_uj", 1000000000ULL);
    put ("intel-rapl:0/intel-rapl:0:0/energy_uj", 0);

    collect_conf_defaults (c);
    snprintf (sub, sizeof (sub), "%s/pc-%%n", base);
    ck_assert_int_eq (collect_conf_set (c, "powercap_root", sub, &e), 0);
    snprintf (sub, sizeof (sub), "%s/spool", base);
    ck_assert_int_eq (collect_conf_set (c, "spool_dir", sub, &e), 0);
    snprintf (sub, sizeof (sub), "%s/jobs", base);
    ck_assert_int_eq (collect_conf_set (c, "job_dir", sub, &e), 0);
    /* nothing listens there: the row must be spooled */
    snprintf (sub, sizeof (sub), "host=%s port=1 dbname=x user=ms_collector",
              base);
    ck_assert_int_eq (collect_conf_set (c, "conninfo", sub, &e), 0);
    ck_assert_int_eq (collect_conf_set (c, "db_retry_ms", "0", &e), 0);
    ck_assert_int_eq (collect_conf_set (c, "scontrol", "/bin/false", &e), 0);
    ck_assert_int_eq (collect_conf_set (c, "events", "perf::TASK-CLOCK,PAPI_TOT_INS", &e), 0);

    setenv ("SLURM_JOB_ID", "4242", 1);
    setenv ("SLURMD_NODENAME", "n1", 1);
    setenv ("SLURM_CLUSTER_NAME", "testc", 1);
    setenv ("SLURM_JOB_USER", "root", 1);
    setenv ("SLURM_JOB_UID", "0", 1);
    setenv ("SLURM_JOB_PARTITION", "batch", 1);
    setenv ("SLURM_CPU_FREQ_REQ", "1800000", 1);
    ck_assert_int_eq (collect_job_from_env (c, j, &e), 0);
}

static void
teardown (void)
{
    char cmd[128];
    snprintf (cmd, sizeof (cmd), "rm -rf '%s'", base);
    ck_assert_int_eq (system (cmd), 0);
}

START_TEST (prolog_sampler_wrapper_epilog)
{
    collect_conf_t c;
    collect_job_t j;
    collect_counters_t k;
    collect_wrap_opts_t wo = { .app = "nodeside" };
    char *argv[] = { "/bin/sh", "-c", "exit 0", NULL };
    char path[300], state[300];
    spool_rec_t *rec;
    db_job_run_t row;
    bool spooled = false;
    ms_error_t e;
    struct stat st;
    unsigned long long pkg = 9000000ULL;
    double pkg_total = 0;
    int rc;

    setup (&c, &j);
    ck_assert_msg (collect_prolog (&c, &j, &e) == 0, "%s", e.text);
    /* the counter file exists, 0600, in a 0711 directory */
    snprintf (path, sizeof (path), "%s/jobs/testc.4242.n1.counters", base);
    ck_assert_int_eq (stat (path, &st), 0);
    ck_assert_int_eq (st.st_mode & 0777, 0600);
    snprintf (state, sizeof (state), "%s/jobs", base);
    ck_assert_int_eq (stat (state, &st), 0);
    ck_assert_int_eq (st.st_mode & 0777, 0711);
    /* the wrapper, as the batch step would run it */
    ck_assert_int_eq (collect_wrap (&c, &wo, argv, &k, &e), 0);
    /* 30 steps of 4 J: 12 wraps of the 10 J counter, 0.3 s apart, each
     * seen by the sampler (it reads every 0.05 s) */
    for (int i = 0; i < 30; i++) {
        pkg = (pkg + 4000000ULL) % 10000000ULL;
        pkg_total += 4;
        put ("intel-rapl:0/energy_uj", pkg);
        msleep (300);
    }
    put ("intel-rapl:0/intel-rapl:0:0/energy_uj", 7500000ULL);
    rc = collect_epilog (&c, &j, &spooled, &e);
    ck_assert_int_eq (rc, -1); /* no database: said so ... */
    ck_assert (spooled);       /* ... and the row is safe */
    ck_assert (strstr (e.text, "row spooled") != NULL);
    /* the job's files are gone, the sampler stopped */
    ck_assert_int_eq (access (path, F_OK), -1);
    snprintf (state, sizeof (state), "%s/spool/state/testc.4242.n1.state", base);
    ck_assert_int_eq (access (state, F_OK), -1);
    snprintf (path, sizeof (path), "%s/spool/testc.4242.n1.root.run", base);
    ck_assert_int_eq (spool_read (path, "job_run", &rec, &e), 0);
    ck_assert_msg (collect_jobrun_from_rec (rec, &row, &e) == 0, "%s", e.text);
    spool_rec_free (rec);
    ck_assert_str_eq (row.cluster, "testc");
    ck_assert_str_eq (row.partition, "batch");
    ck_assert_str_eq (row.node, "n1");
    ck_assert_str_eq (row.app, "nodeside");
    ck_assert_str_eq (row.user_name, "root");
    ck_assert_uint_eq (row.freq_req_khz, 1800000); /* scontrol failed: the job's own */
    ck_assert_str_eq (row.source, "root-measured");
    ck_assert_double_eq_tol (row.pkg_energy_j, pkg_total, 1e-6);
    ck_assert_double_eq_tol (row.dram_energy_j, 7.5, 1e-6);
    ck_assert (row.has_exit_code && row.exit_code == 0);
    ck_assert (strstr (row.events_used, "perf::TASK-CLOCK") != NULL);
    ck_assert (row.end_time - row.start_time >= 9);
    ck_assert (row.avg_power_w > 0);
    teardown ();
}
END_TEST

/* An epilog without a prolog (the collector was installed mid-job, or the
 * prolog failed): still a row, with runtime and no invented energy. */
START_TEST (epilog_without_prolog)
{
    collect_conf_t c;
    collect_job_t j;
    char path[300];
    spool_rec_t *rec;
    db_job_run_t row;
    bool spooled = false;
    ms_error_t e;

    setup (&c, &j);
    collect_epilog (&c, &j, &spooled, &e);
    ck_assert (spooled);
    snprintf (path, sizeof (path), "%s/spool/testc.4242.n1.root.run", base);
    ck_assert_int_eq (spool_read (path, "job_run", &rec, &e), 0);
    ck_assert_int_eq (collect_jobrun_from_rec (rec, &row, &e), 0);
    spool_rec_free (rec);
    ck_assert (row.pkg_energy_j < 0);
    ck_assert (row.dram_energy_j < 0);
    ck_assert (row.avg_power_w < 0);
    teardown ();
}
END_TEST

/* A sibling copy whose start gate refused to run the command (the API
 * cannot be reached): the wrapper exits 75 without running it and says so
 * in the counter file; the epilog stops the sampler, removes the job's
 * files and records no row, neither in the database nor in the spool. */
START_TEST (gate_refused_no_row)
{
    collect_conf_t c;
    collect_job_t j;
    collect_counters_t k;
    collect_wrap_opts_t wo = { .app = "nodeside" };
    char ran[300], cmd[400], sock[300], munge[300], path[300];
    char *argv[] = { "/bin/sh", "-c", cmd, NULL };
    spool_rec_t *rec;
    bool spooled = true;
    ms_error_t e;
    int rc;

    setup (&c, &j);
    ck_assert_msg (collect_prolog (&c, &j, &e) == 0, "%s", e.text);
    snprintf (ran, sizeof (ran), "%s/ran", base);
    snprintf (cmd, sizeof (cmd), "touch '%s'", ran);
    snprintf (sock, sizeof (sock), "unix:%s/no-metaschedd.sock", base);
    snprintf (munge, sizeof (munge), "%s/no-munged.sock", base);
    setenv ("METASCHED_GATE", "1", 1);
    setenv ("METASCHED_JOB_ID", "77", 1);
    setenv ("METASCHED_SERVER", sock, 1);
    setenv ("METASCHED_MUNGE_SOCKET", munge, 1);
    setenv ("METASCHED_GATE_WAIT_S", "0", 1);
    rc = collect_wrap (&c, &wo, argv, &k, &e);
    unsetenv ("METASCHED_GATE");
    ck_assert (WIFEXITED (rc) && WEXITSTATUS (rc) == 75);
    ck_assert_int_eq (access (ran, F_OK), -1); /* the command never ran */
    /* the counter file carries the gate's word */
    snprintf (path, sizeof (path), "%s/jobs/testc.4242.n1.counters", base);
    ck_assert_int_eq (spool_read (path, "counters", &rec, &e), 0);
    ck_assert_str_eq (spool_rec_get (rec, "gate"), "refused");
    ck_assert_str_eq (spool_rec_get (rec, "gate_job"), "77");
    spool_rec_free (rec);

    rc = collect_epilog (&c, &j, &spooled, &e);
    ck_assert_int_eq (rc, COLLECT_EPILOG_SKIPPED);
    ck_assert (!spooled);
    ck_assert_msg (strstr (e.text, "no job_runs row") != NULL
                       && strstr (e.text, "start gate") != NULL
                       && strstr (e.text, "meta job 77") != NULL,
                   "%s", e.text);
    snprintf (path, sizeof (path), "%s/spool/testc.4242.n1.root.run", base);
    ck_assert_int_eq (access (path, F_OK), -1);
    snprintf (path, sizeof (path), "%s/jobs/testc.4242.n1.counters", base);
    ck_assert_int_eq (access (path, F_OK), -1);
    snprintf (path, sizeof (path), "%s/spool/state/testc.4242.n1.state", base);
    ck_assert_int_eq (access (path, F_OK), -1);
    teardown ();
}
END_TEST

/* Write the job's counter file as the wrapper would (text of a record). */
static void
put_counters (const char *text)
{
    char path[300];
    FILE *f;
    snprintf (path, sizeof (path), "%s/jobs/testc.4242.n1.counters", base);
    f = fopen (path, "w");
    ck_assert_ptr_nonnull (f);
    fputs (text, f);
    ck_assert_int_eq (fclose (f), 0);
}

/* The copy that lost the claim (its wrapper wrote gate=lost): no row. A
 * gate word the epilog does not know is no word: the file is rejected and
 * the job counts as a run (a row, with a note). */
START_TEST (gate_lost_no_row_unknown_word_row)
{
    collect_conf_t c;
    collect_job_t j;
    char path[300];
    bool spooled = true;
    ms_error_t e;

    setup (&c, &j);
    ck_assert_msg (collect_prolog (&c, &j, &e) == 0, "%s", e.text);
    put_counters ("metasched-spool 1 counters\nstart=1795427184.5\n"
                  "end=1795427184.5\nutime_s=0\nstime_s=0\ngate=lost\n"
                  "gate_job=42\nend\n");
    ck_assert_int_eq (collect_epilog (&c, &j, &spooled, &e),
                      COLLECT_EPILOG_SKIPPED);
    ck_assert (!spooled);
    ck_assert_msg (strstr (e.text, "lost: another sibling claimed meta job 42")
                       != NULL,
                   "%s", e.text);
    snprintf (path, sizeof (path), "%s/spool/testc.4242.n1.root.run", base);
    ck_assert_int_eq (access (path, F_OK), -1);

    ck_assert_msg (collect_prolog (&c, &j, &e) == 0, "%s", e.text);
    put_counters ("metasched-spool 1 counters\nstart=1795427184.5\n"
                  "end=1795427185.5\ngate=maybe\nend\n");
    collect_epilog (&c, &j, &spooled, &e);
    ck_assert (spooled); /* no database here: the row is in the spool */
    ck_assert_int_eq (access (path, F_OK), 0);
    teardown ();
}
END_TEST

int
main (void)
{
    Suite *s = suite_create ("nodeside");
    TCase *tc = tcase_create ("nodeside");

    tcase_set_timeout (tc, 60);
    tcase_add_test (tc, prolog_sampler_wrapper_epilog);
    tcase_add_test (tc, epilog_without_prolog);
    tcase_add_test (tc, gate_refused_no_row);
    tcase_add_test (tc, gate_lost_no_row_unknown_word_row);
    suite_add_tcase (s, tc);
    return test_run_suite (s);
}
