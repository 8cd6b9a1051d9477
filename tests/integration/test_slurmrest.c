/* test_slurmrest.c - the slurmrestd backend against the test bed's three
 * real Slurm clusters (testbed/start). Skips when no test bed runs. */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "metasched/common/util.h"
#include "partitions/clusterconf.h"
#include "partitions/slurmrest.h"
#include "tests/testbed_env.h"
#include "tests/testutil.h"

static const char *clusters[] = { "alpha", "beta", "gamma" };

static const char *
var (const char *cluster, const char *what)
{
    char name[128], up[32];
    size_t i;
    for (i = 0; cluster[i] && i < sizeof (up) - 1; i++)
        up[i] = (char)(cluster[i] - 'a' + 'A');
    up[i] = '\0';
    snprintf (name, sizeof (name), "MS_%s_%s", up, what);
    return testbed_get (name);
}

static ms_backend_t *
open_cluster (const char *name)
{
    ms_siteconf_t *conf;
    ms_backend_t *b;
    ms_error_t err;

    ck_assert_msg (clusterconf_load (testbed_get ("MS_CLUSTERS_CONF"), &conf,
                                     &err)
                       == 0,
                   "%s", err.text);
    const ms_clusterconf_t *c = clusterconf_cluster (conf, name);
    ck_assert_ptr_nonnull (c);
    ck_assert_msg (slurmrest_from_conf (c, &b, &err) == 0, "%s", err.text);
    clusterconf_free (conf);
    return b;
}

/* Wait until the job reaches a final state (or `until` state); return it. */
static ms_job_info_t
wait_job (ms_backend_t *b, uint64_t id, int seconds)
{
    ms_job_info_t j;
    ms_error_t err;
    for (int i = 0; i < seconds * 5; i++) {
        ck_assert_msg (backend_job (b, id, &j, &err) == 0, "%s", err.text);
        if (ms_job_state_final (j.state))
            return j;
        usleep (200000);
    }
    ck_abort_msg ("job %llu did not end within %d s (state %s)",
                  (unsigned long long)id, seconds, j.state_name);
    return j;
}

static uint32_t
nth_freq (const char *cluster, int idx)
{
    ms_siteconf_t *conf;
    ms_error_t err;
    ck_assert (clusterconf_load (testbed_get ("MS_CLUSTERS_CONF"), &conf, &err)
               == 0);
    const ms_partconf_t *p = NULL;
    for (size_t i = 0; i < conf->nparts; i++)
        if (!strcmp (conf->clusters[conf->parts[i].cluster].name, cluster))
            p = &conf->parts[i];
    ck_assert_ptr_nonnull (p);
    uint32_t f = conf->archs[p->arch].freqs_khz[idx];
    clusterconf_free (conf);
    return f;
}

/* Cancel what an earlier, interrupted run of this test left behind. */
static void
cancel_leftovers (ms_backend_t *b)
{
    ms_job_info_t *jobs;
    size_t n;
    ms_error_t err;

    ck_assert_msg (backend_jobs (b, &jobs, &n, &err) == 0, "%s", err.text);
    for (size_t i = 0; i < n; i++)
        if (!ms_job_state_final (jobs[i].state)
            && (!strcmp (jobs[i].name, "ms-blocker")
                || !strcmp (jobs[i].name, "ms-pending")))
            backend_cancel (b, jobs[i].id, &err);
    free (jobs);
}

START_TEST (ping_partitions_nodes)
{
    const char *c = clusters[_i];
    ms_backend_t *b = open_cluster (c);
    ms_partition_state_t *parts;
    ms_node_state_t *nodes;
    size_t np, nn;
    ms_error_t err;
    char want[256], *tok, *save;
    int cpus = atoi (var (c, "CPUS_PER_NODE"));
    int nnodes = 0;

    ck_assert_msg (backend_ping (b, &err) == 0, "%s", err.text);

    ck_assert_msg (backend_nodes (b, &nodes, &nn, &err) == 0, "%s", err.text);
    ms_strlcpy (want, var (c, "NODES"), sizeof (want));
    for (tok = strtok_r (want, " ", &save); tok; tok = strtok_r (NULL, " ", &save)) {
        int found = 0;
        nnodes++;
        for (size_t i = 0; i < nn; i++)
            if (!strcmp (nodes[i].name, tok)) {
                found = 1;
                ck_assert_int_eq (nodes[i].cpus, cpus);
                ck_assert_msg (nodes[i].usable, "node %s is %s", tok,
                               nodes[i].state);
            }
        ck_assert_msg (found, "node %s not listed by cluster %s", tok, c);
    }
    ck_assert_uint_eq (nn, (size_t)nnodes);
    free (nodes);

    ck_assert_msg (backend_partitions (b, &parts, &np, &err) == 0, "%s",
                   err.text);
    ms_strlcpy (want, var (c, "PARTITIONS"), sizeof (want));
    size_t nwant = 0;
    for (tok = strtok_r (want, " ", &save); tok; tok = strtok_r (NULL, " ", &save)) {
        int found = 0;
        nwant++;
        for (size_t i = 0; i < np; i++)
            if (!strcmp (parts[i].name, tok)) {
                found = 1;
                ck_assert (parts[i].up);
                ck_assert_int_eq (parts[i].nodes_total, nnodes);
                ck_assert_int_eq (parts[i].cpus_total, nnodes * cpus);
                ck_assert_int_le (parts[i].nodes_idle + parts[i].nodes_alloc
                                      + parts[i].nodes_down,
                                  nnodes);
                ck_assert_int_le (parts[i].cpus_idle, nnodes * cpus);
            }
        ck_assert_msg (found, "partition %s not listed by cluster %s", tok, c);
    }
    ck_assert_uint_eq (np, nwant);
    free (parts);
    backend_destroy (b);
}
END_TEST

/* Submit as the ordinary test user through the root token; the job runs as
 * that user and every field metasched sets reads back. */
START_TEST (submit_runs_as_user)
{
    const char *c = clusters[_i];
    ms_backend_t *b = open_cluster (c);
    const char *user = testbed_get ("MS_TEST_USER");
    struct passwd *pw = getpwnam (user);
    char comment[64], out[256], part[64], *sp;
    uint64_t id;
    ms_error_t err;
    uint32_t f = nth_freq (c, 2);
    const char *env[] = { "PATH=/usr/bin:/bin", "MS_TEST_VALUE=routed", NULL };

    ck_assert_ptr_nonnull (pw);
    cancel_leftovers (b);
    ms_strlcpy (part, var (c, "PARTITIONS"), sizeof (part));
    if ((sp = strchr (part, ' ')))
        *sp = '\0';
    snprintf (comment, sizeof (comment), "metasched:t%d-%s", (int)getpid (), c);
    snprintf (out, sizeof (out), "/tmp/ms-test-%s-%d.out", c, (int)getpid ());
    unlink (out);
    ms_job_request_t req = {
        .user = user,
        .name = "ms-integration",
        .partition = part,
        .cpu_freq_khz = f,
        .time_limit_min = 7,
        .comment = comment,
        .environment = env,
        .cwd = "/tmp",
        .std_out = out,
        .nodes = 1,
        .tasks = 1,
        .script = "#!/bin/sh\nid -un\necho \"$MS_TEST_VALUE\"\n",
    };
    ck_assert_msg (backend_submit (b, &req, &id, &err) == 0, "%s", err.text);
    ck_assert_uint_gt (id, 0);
    ms_job_info_t j = wait_job (b, id, 60);
    ck_assert_msg (j.state == MS_JOB_COMPLETED, "job ended %s (%s)",
                   j.state_name, j.state_reason);
    ck_assert_str_eq (j.user, user);
    ck_assert_uint_eq (j.user_id, pw->pw_uid);
    ck_assert_str_eq (j.partition, part);
    ck_assert_uint_eq (j.cpu_freq_max_khz, f);
    ck_assert_uint_eq (j.time_limit_min, 7);
    ck_assert_str_eq (j.comment, comment);
    ck_assert_str_eq (j.name, "ms-integration");
    ck_assert_str_eq (j.cwd, "/tmp");
    ck_assert_int_eq (j.exit_code, 0);
    ck_assert_int_eq (j.nodes, 1);
    ck_assert (j.start_time >= j.submit_time && j.end_time >= j.start_time);

    /* what the job wrote, as the user */
    char *text;
    struct stat st;
    ck_assert_msg (ms_read_file (out, 4096, &text, NULL, &err) == 0, "%s",
                   err.text);
    ck_assert_msg (strcmp (text, "msuser\nrouted\n") == 0 || strstr (text, user),
                   "output: %s", text);
    ck_assert_msg (strstr (text, "routed") != NULL, "environment not passed: %s",
                   text);
    ck_assert (stat (out, &st) == 0);
    ck_assert_uint_eq (st.st_uid, pw->pw_uid);
    free (text);
    unlink (out);
    backend_destroy (b);
}
END_TEST

/* A job held pending behind a job that fills the cluster: raise its
 * priority, then cancel it. */
START_TEST (priority_and_cancel_while_pending)
{
    const char *c = clusters[_i];
    ms_backend_t *b = open_cluster (c);
    const char *user = testbed_get ("MS_TEST_USER");
    int nnodes = 0, cpus = atoi (var (c, "CPUS_PER_NODE"));
    char nodes[256], part[64], *sp, *save;
    uint64_t blocker, pending;
    ms_error_t err;
    ms_job_info_t j;

    cancel_leftovers (b);
    ms_strlcpy (nodes, var (c, "NODES"), sizeof (nodes));
    for (char *t = strtok_r (nodes, " ", &save); t; t = strtok_r (NULL, " ", &save))
        nnodes++;
    ms_strlcpy (part, var (c, "PARTITIONS"), sizeof (part));
    if ((sp = strchr (part, ' ')))
        *sp = '\0';
    ms_job_request_t req = {
        .user = user, .name = "ms-blocker", .partition = part,
        .time_limit_min = 5, .cwd = "/tmp", .std_out = "/dev/null",
        .nodes = nnodes, .tasks = nnodes * cpus,
        .script = "#!/bin/sh\nsleep 120\n",
    };
    ck_assert_msg (backend_submit (b, &req, &blocker, &err) == 0, "%s", err.text);
    req.name = "ms-pending";
    req.nodes = 1;
    req.tasks = 1;
    req.script = "#!/bin/sh\ntrue\n";
    /* pending for certain: other tests running beside this one may hold
     * a node, so that the blocker waits and this job would be backfilled */
    req.begin_time = time (NULL) + 3600;
    ck_assert_msg (backend_submit (b, &req, &pending, &err) == 0, "%s", err.text);

    ck_assert_msg (backend_job (b, pending, &j, &err) == 0, "%s", err.text);
    ck_assert_msg (j.state == MS_JOB_PENDING, "expected PENDING, got %s",
                   j.state_name);
    /* nice first: Slurm ignores nice once a priority was set directly */
    ms_job_update_t u;
    ms_job_info_t j2;
    ms_job_update_init (&u);
    u.nice = 50;
    ck_assert_msg (backend_update (b, pending, &u, &err) == 0, "%s", err.text);
    ck_assert_msg (backend_job (b, pending, &j2, &err) == 0, "%s", err.text);
    ck_assert_int_eq (j2.nice, 50);
    ck_assert_msg (backend_job (b, pending, &j, &err) == 0, "%s", err.text);

    ms_job_update_init (&u);
    u.priority = j.priority + 1000;
    ck_assert_msg (backend_update (b, pending, &u, &err) == 0, "%s", err.text);
    ck_assert_msg (backend_job (b, pending, &j2, &err) == 0, "%s", err.text);
    ck_assert_uint_eq (j2.priority, j.priority + 1000);
    ck_assert_int_eq (j2.state, MS_JOB_PENDING);

    ck_assert_msg (backend_cancel (b, pending, &err) == 0, "%s", err.text);
    j = wait_job (b, pending, 30);
    ck_assert_int_eq (j.state, MS_JOB_CANCELLED);
    ck_assert_int_eq (j.start_time == 0 || j.start_time >= j.submit_time, 1);
    ck_assert_msg (backend_cancel (b, blocker, &err) == 0, "%s", err.text);
    j = wait_job (b, blocker, 30);
    ck_assert_int_eq (j.state, MS_JOB_CANCELLED);

    /* an update that changes nothing is refused before any request */
    ms_job_update_init (&u);
    ck_assert_int_eq (backend_update (b, pending, &u, &err), -1);
    ck_assert_int_eq (err.kind, MS_ERR_INPUT);
    backend_destroy (b);
}
END_TEST

START_TEST (bad_partition_is_clear)
{
    ms_backend_t *b = open_cluster ("beta");
    uint64_t id = 0;
    ms_error_t err;
    ms_job_request_t req = {
        .user = testbed_get ("MS_TEST_USER"), .partition = "nosuch",
        .cwd = "/tmp", .script = "#!/bin/sh\ntrue\n",
    };
    ck_assert_int_eq (backend_submit (b, &req, &id, &err), -1);
    ck_assert_int_eq (err.kind, MS_ERR_REMOTE);
    char want[128];
    snprintf (want, sizeof (want), "cluster beta: POST /slurm/%s/job/submit",
              slurmrest_version (b));
    ck_assert_msg (strstr (err.text, want)
                       && strstr (err.text, "Invalid partition name specified"),
                   "%s", err.text);
    /* 500 up to 25.05, 422 from 26.05 */
    ck_assert_msg (err.http_status == 500 || err.http_status == 422,
                   "HTTP %d", err.http_status);
    backend_destroy (b);
}
END_TEST

START_TEST (unknown_job_is_missing)
{
    ms_backend_t *b = open_cluster ("alpha");
    ms_job_info_t j;
    ms_error_t err;
    ck_assert_int_eq (backend_job (b, 987654321, &j, &err), -1);
    ck_assert_int_eq (err.kind, MS_ERR_MISSING);
    ck_assert_msg (strstr (err.text, "Invalid job id"), "%s", err.text);
    backend_destroy (b);
}
END_TEST

START_TEST (wrong_token_is_clear)
{
    char path[] = "/tmp/ms-badtoken-XXXXXX";
    int fd = mkstemp (path);
    ms_backend_t *b;
    ms_error_t err;
    char *good;
    const char *tf = var ("alpha", "TOKEN_FILE");

    ck_assert_int_ge (fd, 0);
    /* a well-formed JWT signed with another cluster's key */
    ck_assert (ms_read_secret_file (var ("beta", "TOKEN_FILE"), &good, &err) == 0);
    ck_assert (write (fd, good, strlen (good)) == (ssize_t)strlen (good));
    free (good);
    close (fd);
    ms_clusterconf_t c = { .backend = MS_BACKEND_SLURMREST,
                           .connect_timeout_ms = 2000, .timeout_ms = 10000 };
    strcpy (c.name, "alpha");
    strcpy (c.token_user, "root");
    ms_strlcpy (c.url, var ("alpha", "URL"), sizeof (c.url));
    ms_strlcpy (c.token_file, path, sizeof (c.token_file));
    ck_assert_msg (slurmrest_from_conf (&c, &b, &err) == 0, "%s", err.text);
    ck_assert_int_eq (backend_ping (b, &err), -1);
    /* refused while negotiating (a release that authenticates before it
     * routes) or by the ping of the version negotiated; 23.11 to 25.11
     * answer the ping with a controller DOWN, naming no reason */
    ck_assert_msg ((err.kind == MS_ERR_AUTH
                    && strstr (err.text, "slurmctld refused the request"))
                       || (err.kind == MS_ERR_REMOTE
                           && strstr (err.text, "does not answer the ping")
                           && strstr (err.text, "is the token in")),
                   "%s", err.text);
    ck_assert_msg (strstr (err.text, "cluster alpha: ")
                       && strstr (err.text, "/ping") && strstr (err.text, path),
                   "%s", err.text);
    backend_destroy (b);

    /* a token file others can read is refused before any request */
    chmod (path, 0644);
    ck_assert_int_eq (slurmrest_from_conf (&c, &b, &err), -1);
    ck_assert_int_eq (err.kind, MS_ERR_AUTH);
    ck_assert_msg (strstr (err.text, "must be 0600"), "%s", err.text);
    unlink (path);
    (void)tf;
}
END_TEST

/* A slurmrestd of our own for cluster gamma: it answers, then is stopped,
 * and the client says the connection was refused. It runs through the
 * launcher testbed/start writes, which holds the options of gamma's Slurm
 * release (its OpenAPI plugins differ between releases). */
START_TEST (stopped_slurmrestd_is_clear)
{
    const int port = atoi (testbed_get ("MS_TESTBED_SPARE_PORT"));
    const char *launcher = var ("gamma", "SLURMRESTD");
    char addr[64], url[64];
    pid_t pid;
    ms_backend_t *b;
    ms_error_t err;
    char *token;
    int ok = 0;

    snprintf (addr, sizeof (addr), "127.0.0.1:%d", port);
    snprintf (url, sizeof (url), "http://127.0.0.1:%d", port);
    pid = fork ();
    ck_assert_int_ge (pid, 0);
    if (pid == 0) {
        int nul = open ("/dev/null", O_WRONLY);
        dup2 (nul, 1);
        dup2 (nul, 2);
        execl (launcher, "slurmrestd", addr, (char *)NULL);
        _exit (127);
    }
    ck_assert (ms_read_secret_file (var ("gamma", "TOKEN_FILE"), &token, &err)
               == 0);
    slurmrest_opts_t o = { .cluster = "gamma", .url = url, .token = token,
                           .connect_timeout_ms = 1000, .timeout_ms = 5000 };
    ck_assert (slurmrest_create (&o, &b, &err) == 0);
    free (token);
    for (int i = 0; i < 100 && !ok; i++) {
        ok = backend_ping (b, &err) == 0;
        if (!ok)
            usleep (100000);
    }
    ck_assert_msg (ok, "our slurmrestd never answered: %s", err.text);
    kill (pid, SIGTERM);
    waitpid (pid, NULL, 0);
    ck_assert_int_eq (backend_ping (b, &err), -1);
    ck_assert_int_eq (err.kind, MS_ERR_CONNECT);
    ck_assert_msg (strstr (err.text, "cluster gamma: GET")
                       && strstr (err.text, "Couldn't connect")
                       && strstr (err.text, "is slurmrestd running?"),
                   "%s", err.text);
    backend_destroy (b);
}
END_TEST

/* A server that accepts the connection and never answers: the total
 * timeout ends the request with a clear message. */
START_TEST (silent_server_times_out)
{
    int s = socket (AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = { .sin_family = AF_INET };
    socklen_t sl = sizeof (sa);
    char url[64];
    ms_backend_t *b;
    ms_error_t err;

    sa.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
    ck_assert (bind (s, (struct sockaddr *)&sa, sizeof (sa)) == 0);
    ck_assert (listen (s, 4) == 0);
    ck_assert (getsockname (s, (struct sockaddr *)&sa, &sl) == 0);
    snprintf (url, sizeof (url), "http://127.0.0.1:%d", ntohs (sa.sin_port));
    slurmrest_opts_t o = { .cluster = "silent", .url = url, .token = "x.y.z",
                           .connect_timeout_ms = 500, .timeout_ms = 700 };
    ck_assert (slurmrest_create (&o, &b, &err) == 0);
    ck_assert_int_eq (backend_ping (b, &err), -1);
    ck_assert_int_eq (err.kind, MS_ERR_TIMEOUT);
    ck_assert_msg (strstr (err.text, "no answer within 700 ms"), "%s", err.text);
    ck_assert_msg (!strstr (err.text, "x.y.z"), "token leaked: %s", err.text);
    backend_destroy (b);
    close (s);
}
END_TEST

/* A job list read again while nothing changed comes back without being
 * sent (304 from slurmrestd: the previous list again, unchanged); a job
 * submitted or cancelled through another handle in the meantime is in
 * the next list, in its new state. */
static bool
listed (const ms_job_info_t *jobs, size_t n, uint64_t id,
        ms_job_state_t state)
{
    for (size_t i = 0; i < n; i++)
        if (jobs[i].id == id)
            return jobs[i].state == state;
    return false;
}

START_TEST (job_list_changes_only)
{
    const char *c = clusters[_i];
    ms_backend_t *a = open_cluster (c), *other = open_cluster (c);
    const char *user = testbed_get ("MS_TEST_USER");
    ms_job_info_t *j1 = NULL, *j2 = NULL;
    size_t n1 = 0, n2 = 0;
    bool same = false;
    char part[64], *sp;
    uint64_t id;
    ms_error_t err;

    ck_assert_uint_eq (slurmrest_jobs_unchanged (a), 0);
    /* other tests may change the cluster meanwhile: a few tries */
    for (int t = 0; t < 20 && !same; t++) {
        uint64_t before;
        free (j1);
        ck_assert_msg (backend_jobs (a, &j1, &n1, &err) == 0, "%s", err.text);
        usleep (100000);
        before = slurmrest_jobs_unchanged (a);
        free (j2);
        ck_assert_msg (backend_jobs (a, &j2, &n2, &err) == 0, "%s", err.text);
        if (slurmrest_jobs_unchanged (a) == before + 1) {
            same = true;
            ck_assert_uint_eq (n1, n2);
            ck_assert (n1 == 0 || !memcmp (j1, j2, n1 * sizeof (*j1)));
        } else
            sleep (1);
    }
    ck_assert_msg (same, "%s: no listing answered 'not modified' in 20 "
                         "tries", c);

    ms_strlcpy (part, var (c, "PARTITIONS"), sizeof (part));
    if ((sp = strchr (part, ' ')))
        *sp = '\0';
    ms_job_request_t req = {
        .user = user, .name = "ms-pending", .partition = part,
        .time_limit_min = 1, .cwd = "/tmp", .std_out = "/dev/null",
        .nodes = 1, .begin_time = time (NULL) + 3600,
        .script = "#!/bin/sh\ntrue\n",
    };
    ck_assert_msg (backend_submit (other, &req, &id, &err) == 0, "%s",
                   err.text);
    free (j2);
    ck_assert_msg (backend_jobs (a, &j2, &n2, &err) == 0, "%s", err.text);
    ck_assert_msg (listed (j2, n2, id, MS_JOB_PENDING),
                   "%s: job %llu submitted meanwhile is not listed pending", c,
                   (unsigned long long)id);
    ck_assert_msg (backend_cancel (other, id, &err) == 0, "%s", err.text);
    free (j2);
    ck_assert_msg (backend_jobs (a, &j2, &n2, &err) == 0, "%s", err.text);
    ck_assert_msg (listed (j2, n2, id, MS_JOB_CANCELLED),
                   "%s: job %llu cancelled meanwhile is not listed cancelled",
                   c, (unsigned long long)id);
    free (j1);
    free (j2);
    backend_destroy (a);
    backend_destroy (other);
}
END_TEST

int
main (void)
{
    char why[512];
    if (testbed_env_load (why, sizeof (why)) < 0)
        return test_skip_all (why);

    Suite *s = suite_create ("slurmrest");
    TCase *tc = tcase_create ("clusters");
    tcase_set_timeout (tc, 180);
    tcase_add_loop_test (tc, ping_partitions_nodes, 0, 3);
    tcase_add_loop_test (tc, submit_runs_as_user, 0, 3);
    tcase_add_loop_test (tc, priority_and_cancel_while_pending, 0, 3);
    tcase_add_loop_test (tc, job_list_changes_only, 0, 3);
    suite_add_tcase (s, tc);
    TCase *te = tcase_create ("errors");
    tcase_set_timeout (te, 60);
    tcase_add_test (te, bad_partition_is_clear);
    tcase_add_test (te, unknown_job_is_missing);
    tcase_add_test (te, wrong_token_is_clear);
    tcase_add_test (te, stopped_slurmrestd_is_clear);
    tcase_add_test (te, silent_server_times_out);
    suite_add_tcase (s, te);
    return test_run_suite (s);
}
