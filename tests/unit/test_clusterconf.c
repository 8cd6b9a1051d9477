/* test_clusterconf.c - the cluster configuration reader. */
#include "config.h"

#include <string.h>

#include "partitions/clusterconf.h"
#include "tests/testutil.h"

static const char good[] =
    "# a site with two clusters\n"
    "[architecture skx]\n"
    "description = 2x Xeon Platinum 8168\n"
    "cores_per_node = 48\n"
    "frequencies_khz = 1200000-2700000/100000\n"
    "nominal_khz = 2700000\n"
    "idle_power_w = 110.5\n"
    "\n"
    "[architecture clx]\n"
    "cores_per_node = 36\n"
    "frequencies_khz = 3100000, 1200000 2000000 ; comment\n"
    "idle_power_w = 95\n"
    "[cluster alpha]\n"
    "url = http://127.0.0.1:6820/\n"
    "token_file = /etc/metasched/alpha.token\n"
    "timeout_ms = 5000\n"
    "[partition alpha/batch]\n"
    "architecture = skx\n"
    "nodes = 4\n"
    "[partition alpha/fat]\n"
    "architecture = clx\n"
    "nodes = 2\n"
    "power_cap_w = 900\n"
    "[cluster sim]\n"
    "backend = simulated\n"
    "[partition sim/p1]\n"
    "architecture = clx\n"
    "nodes = 512\n";

START_TEST (parses_a_good_file)
{
    ms_siteconf_t *c;
    ms_error_t err;

    ck_assert_int_eq (clusterconf_parse (good, strlen (good), "t.conf", &c, &err),
                      0);
    ck_assert_uint_eq (c->narchs, 2);
    ck_assert_uint_eq (c->nclusters, 2);
    ck_assert_uint_eq (c->nparts, 3);
    const ms_arch_t *skx = clusterconf_arch (c, "skx");
    ck_assert_ptr_nonnull (skx);
    ck_assert_uint_eq (skx->nfreqs, 16);
    ck_assert_uint_eq (skx->freqs_khz[0], 1200000);
    ck_assert_uint_eq (skx->freqs_khz[15], 2700000);
    ck_assert_double_eq_tol (skx->idle_power_w, 110.5, 1e-9);
    const ms_arch_t *clx = clusterconf_arch (c, "clx");
    ck_assert_uint_eq (clx->nfreqs, 3);
    ck_assert_uint_eq (clx->freqs_khz[0], 1200000); /* sorted */
    ck_assert_uint_eq (clx->nominal_khz, 3100000);  /* default: highest */
    const ms_clusterconf_t *a = clusterconf_cluster (c, "alpha");
    ck_assert_str_eq (a->url, "http://127.0.0.1:6820"); /* slash trimmed */
    ck_assert_int_eq (a->timeout_ms, 5000);
    ck_assert_int_eq (a->connect_timeout_ms, 3000);
    ck_assert_str_eq (a->token_user, "root");
    const ms_partconf_t *fat = clusterconf_partition (c, "alpha", "fat");
    ck_assert_ptr_nonnull (fat);
    ck_assert_str_eq (c->archs[fat->arch].name, "clx");
    ck_assert_double_eq_tol (fat->power_cap_w, 900, 1e-9);
    ck_assert_int_eq (c->clusters[1].backend, MS_BACKEND_SIMULATED);
    ck_assert_ptr_null (clusterconf_partition (c, "alpha", "nope"));
    clusterconf_free (c);
}
END_TEST

/* Filesystems, accounting and partition limits (the simulator's, or
 * overrides of what a cluster reports). */
START_TEST (limits_and_filesystems)
{
    static const char text[]
        = "[architecture a]\ncores_per_node = 4\nfrequencies_khz = 1000000\n"
          "idle_power_w = 50\n"
          "[cluster c]\nbackend = simulated\n"
          "filesystems = /home, /scratch/c/ /\n"
          "accounting = none\nslurm_cluster = c-prod\n"
          "[partition c/p]\narchitecture = a\nnodes = 4\n"
          "max_time = 30\nmax_nodes = 2\nmin_nodes = 1\n"
          "mem_per_node_mb = 2000\nfeatures = ib,bigmem\n"
          "allow_accounts = physics,chem\ndeny_qos = long\n"
          "[partition c/q]\narchitecture = a\nnodes = 1\n"
          "max_time = UNLIMITED\n";
    ms_siteconf_t *c;
    ms_error_t err;

    ck_assert_msg (clusterconf_parse (text, strlen (text), "t.conf", &c, &err)
                       == 0,
                   "%s", err.text);
    ck_assert_uint_eq (c->clusters[0].nfilesystems, 3);
    ck_assert_str_eq (c->clusters[0].filesystems[0], "/home");
    ck_assert_str_eq (c->clusters[0].filesystems[1], "/scratch/c");
    ck_assert_str_eq (c->clusters[0].filesystems[2], "/");
    ck_assert (!c->clusters[0].accounting);
    ck_assert_str_eq (c->clusters[0].slurm_cluster, "c-prod");
    const ms_partlimits_t *l = &c->parts[0].limits;
    ck_assert_int_eq (l->max_time_min, 30);
    ck_assert_int_eq (l->max_nodes, 2);
    ck_assert_int_eq (l->min_nodes, 1);
    ck_assert_int_eq (l->mem_per_node_mb, 2000);
    ck_assert_str_eq (l->features, "ib,bigmem");
    ck_assert_str_eq (l->allow_accounts, "physics,chem");
    ck_assert_str_eq (l->deny_qos, "long");
    ck_assert (l->set & MS_LIM_DENY_QOS);
    ck_assert (!(l->set & MS_LIM_ALLOW_GROUPS));
    ck_assert_int_eq (c->parts[1].limits.max_time_min, -1);
    ck_assert_uint_eq (c->parts[1].limits.set, MS_LIM_MAX_TIME);
    clusterconf_free (c);
}
END_TEST

/* Each bad input gives an error naming the file, the line and the field. */
static const struct {
    const char *text;
    const char *expect;
} bad[] = {
    { "[architecture a]\ncores_per_node = 4\nfrequncy = 3\n",
      "t.conf:3: unknown key 'frequncy' in [architecture a]" },
    { "[architecture a]\ncores_per_node = -4\n",
      "t.conf:2: cores_per_node: -4 is out of range" },
    { "[architecture a]\ncores_per_node = four\n",
      "t.conf:2: cores_per_node: 'four' is not an integer" },
    { "key = value\n", "t.conf:1: key 'key' outside of any section" },
    { "[architecture a\n", "t.conf:1: malformed section header" },
    { "[queue a]\n", "t.conf:1: unknown section [queue a]" },
    { "[architecture a]\ncores_per_node = 4\nfrequencies_khz = 1000000\n"
      "nominal_khz = 2000000\nidle_power_w = 1\n",
      "t.conf:1: [architecture a] nominal_khz 2000000 is not one of its" },
    { "[architecture a]\nfrequencies_khz = 1, 2, x\n",
      "t.conf:2: frequencies_khz: '1, 2, x' is not a list of kHz" },
    { "[architecture a]\nfrequencies_khz = 5-1/1\n",
      "t.conf:2: frequencies_khz: bad range" },
    /* a negative step: %lu alone read it as a huge one, which wrapped
     * past HI and wrote past the 64 frequencies */
    { "[architecture a]\nfrequencies_khz = 1200000-2700000/-1\n",
      "t.conf:2: frequencies_khz: '1200000-2700000/-1' is not LO-HI/STEP" },
    { "[architecture a]\nfrequencies_khz = 1200000- 2700000/100000\n",
      "t.conf:2: frequencies_khz: '1200000- 2700000/100000' is not LO-HI/STEP" },
    { "[architecture a]\nfrequencies_khz = 1-99999999999999999999/1\n",
      "t.conf:2: frequencies_khz: '1-99999999999999999999/1' is not LO-HI/STEP" },
    { "[architecture a]\napi_version = v0.0.37\n",
      "t.conf:2: unknown key 'api_version' in [architecture a]" },
    { "[cluster c]\napi_version = v0.0.37\n",
      "t.conf:2: api_version: 'v0.0.37' is not one of v0.0.38, v0.0.39," },
    { "[cluster c]\nurl = ftp://x\n", "t.conf:2: url: 'ftp://x' must start" },
    { "[cluster c]\nfilesystems = /home scratch\n",
      "t.conf:2: filesystems: 'scratch' is not an absolute path" },
    { "[cluster c]\nfilesystems = /home/../etc\n",
      "t.conf:2: filesystems: '/home/../etc' holds '.' or '..'" },
    { "[cluster c]\nfilesystems = , \n", "t.conf:2: filesystems: no path given" },
    { "[cluster c]\naccounting = yes\n",
      "t.conf:2: accounting: 'yes' is not one of auto, none" },
    { "[cluster c]\nslurm_cluster = a b\n",
      "t.conf:2: slurm_cluster: 'a b' is not a valid name" },
    { "[partition c/p]\nmax_time = soon\n", "t.conf:2: max_time" },
    { "[partition c/p]\nmax_nodes = 0\n", "t.conf:2: max_nodes" },
    { "[partition c/p]\nmem_per_node_mb = -5\n", "t.conf:2: mem_per_node_mb" },
    { "[partition c/p]\nfeatures = a b\n",
      "t.conf:2: features: 'a b' holds ' '; a comma-separated list of names" },
    { "[partition c/p]\nallow_accounts = a;b\n",
      "t.conf:2: allow_accounts: 'a;b' holds ';'" },
    { "[cluster c]\nurl = http://x\n[partition c/p]\nnodes = 1\n"
      "architecture = zz\n",
      "t.conf:1: [cluster c] needs token_file" },
    { "[cluster c]\nbackend = simulated\n[partition c/p]\nnodes = 1\n"
      "architecture = zz\n",
      "t.conf:3: [partition c/p]: unknown architecture 'zz'" },
    { "[cluster c]\nbackend = simulated\n[partition d/p]\nnodes = 1\n",
      "t.conf:3: [partition d/p]: no [cluster d]" },
    { "[cluster c]\nbackend = simulated\n", "t.conf:1: [cluster c] has no partition" },
    { "[cluster c]\nbackend = slurm\n", "t.conf:2: backend: 'slurm' is not one" },
    { "[partition nodash]\n", "t.conf:1: partition 'nodash' must be named" },
    { "[cluster c]\n[cluster c]\n", "t.conf:2: cluster 'c' is defined twice" },
    { "[cluster c]\ntimeout_ms =\n", "t.conf:2: timeout_ms: missing value" },
    { "", "t.conf: no cluster is configured" },
};

START_TEST (bad_input_names_the_place)
{
    ms_siteconf_t *c = NULL;
    ms_error_t err;

    int rc = clusterconf_parse (bad[_i].text, strlen (bad[_i].text), "t.conf",
                                &c, &err);
    ck_assert_int_eq (rc, -1);
    ck_assert_ptr_null (c);
    ck_assert_int_eq (err.kind, MS_ERR_INPUT);
    ck_assert_msg (strstr (err.text, bad[_i].expect) != NULL,
                   "case %d: got '%s', expected '%s'", _i, err.text,
                   bad[_i].expect);
}
END_TEST

START_TEST (nul_byte_and_long_line)
{
    ms_siteconf_t *c = NULL;
    ms_error_t err;
    char buf[5000];

    memcpy (buf, "[cluster c]\nur\0l = x\n", 21);
    ck_assert_int_eq (clusterconf_parse (buf, 21, "t.conf", &c, &err), -1);
    ck_assert_msg (strstr (err.text, "t.conf:2: line contains a NUL") != NULL,
                   "%s", err.text);
    memset (buf, 'x', sizeof (buf));
    ck_assert_int_eq (clusterconf_parse (buf, sizeof (buf), "t.conf", &c, &err),
                      -1);
    ck_assert_msg (strstr (err.text, "t.conf:1: line is longer") != NULL, "%s",
                   err.text);
}
END_TEST

START_TEST (missing_file)
{
    ms_siteconf_t *c = NULL;
    ms_error_t err;

    ck_assert_int_eq (clusterconf_load ("/nonexistent/x.conf", &c, &err), -1);
    ck_assert_int_eq (err.kind, MS_ERR_SYSTEM);
    ck_assert_msg (strstr (err.text, "/nonexistent/x.conf: No such file") != NULL,
                   "%s", err.text);
}
END_TEST

START_TEST (example_configs_load)
{
    /* The configs the project ships must stay valid. */
    const char *files[] = { "/doc/examples/clusters.conf" };
    for (size_t i = 0; i < sizeof (files) / sizeof (files[0]); i++) {
        char path[4096];
        ms_siteconf_t *c;
        ms_error_t err;
        snprintf (path, sizeof (path), "%s%s", test_srcdir (), files[i]);
        ck_assert_msg (clusterconf_load (path, &c, &err) == 0, "%s", err.text);
        clusterconf_free (c);
    }
}
END_TEST

int
main (void)
{
    Suite *s = suite_create ("clusterconf");
    TCase *tc = tcase_create ("parse");
    tcase_add_test (tc, parses_a_good_file);
    tcase_add_test (tc, limits_and_filesystems);
    tcase_add_loop_test (tc, bad_input_names_the_place, 0,
                         (int)(sizeof (bad) / sizeof (bad[0])));
    tcase_add_test (tc, nul_byte_and_long_line);
    tcase_add_test (tc, missing_file);
    tcase_add_test (tc, example_configs_load);
    suite_add_tcase (s, tc);
    return test_run_suite (s);
}
