/* test_placement.c - where a job may run (placement.h): the feature
 * expression matcher, the filesystem prefix match, the partition limits
 * and the accounting checks, with the reasons they give. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "metasched/common/util.h"
#include "metasched/core/candidates.h"
#include "metasched/core/placement.h"
#include "tests/testutil.h"

START_TEST (test_features)
{
    ms_error_t e;
    const char *node = "skx8168,ib,bigmem";

    ck_assert (placement_features_match ("ib", node));
    ck_assert (!placement_features_match ("opa", node));
    ck_assert (placement_features_match ("ib&bigmem", node));
    ck_assert (placement_features_match ("ib,bigmem", node));
    ck_assert (!placement_features_match ("ib&opa", node));
    ck_assert (placement_features_match ("opa|ib", node));
    ck_assert (!placement_features_match ("opa|gpu", node));
    ck_assert (placement_features_match ("(opa|ib)&skx8168", node));
    ck_assert (!placement_features_match ("(opa|ib)&clx6254", node));
    ck_assert (placement_features_match ("[skx8168|clx6254]&ib", node));
    ck_assert (placement_features_match ("opa|ib&bigmem", node)); /* & first */
    ck_assert (!placement_features_match ("ib&opa|gpu", node));
    ck_assert (placement_features_match ("ib*2", node));
    ck_assert (!placement_features_match ("ski", node)); /* whole names */
    ck_assert (!placement_features_match ("ib", ""));
    ck_assert (!placement_features_match ("ALL", node));
    ck_assert_int_eq (placement_features_parse ("a&(b|c)", &e), 0);
    ck_assert_int_eq (placement_features_parse ("a&", &e), -1);
    ck_assert (strstr (e.text, "constraint 'a&'"));
    ck_assert (strstr (e.text, "at character 3"));
    ck_assert_int_eq (placement_features_parse ("(a|b", &e), -1);
    ck_assert (strstr (e.text, "')' expected"));
    ck_assert_int_eq (placement_features_parse ("a b", &e), -1);
    ck_assert_int_eq (placement_features_parse ("a*", &e), -1);
    ck_assert_int_eq (placement_features_parse ("", &e), -1);
    /* a malformed expression matches nothing */
    ck_assert (!placement_features_match ("ib&", node));
}
END_TEST

START_TEST (test_feature_nodes)
{
    ms_partition_state_t p;
    memset (&p, 0, sizeof (p));
    ms_partition_limits_init (&p);
    ck_assert_int_eq (placement_feature_nodes (&p, "ib"), -1);
    ms_partition_add_features (&p, "a,ib", 2);
    ms_partition_add_features (&p, "a,opa", 1);
    ms_partition_add_features (&p, "a,ib", 1);
    ck_assert_uint_eq (p.nfeatsets, 2);
    ck_assert_int_eq (placement_feature_nodes (&p, "ib"), 3);
    ck_assert_int_eq (placement_feature_nodes (&p, "a"), 4);
    ck_assert_int_eq (placement_feature_nodes (&p, "opa|ib"), 4);
    ck_assert_int_eq (placement_feature_nodes (&p, "gpu"), 0);
}
END_TEST

START_TEST (test_filesystems)
{
    ms_clusterconf_t c;
    memset (&c, 0, sizeof (c));
    /* no key: every path */
    ck_assert (placement_path_mounted (&c, "/anything", NULL));
    ms_strlcpy (c.filesystems[0], "/home", sizeof (c.filesystems[0]));
    ms_strlcpy (c.filesystems[1], "/scratch/alpha", sizeof (c.filesystems[0]));
    c.nfilesystems = 2;
    ck_assert (placement_path_mounted (&c, "/home", NULL));
    ck_assert (placement_path_mounted (&c, "/home/msuser/run", NULL));
    ck_assert (!placement_path_mounted (&c, "/homework", NULL));
    ck_assert (placement_path_mounted (&c, "/scratch/alpha/x/%j.out", NULL));
    ck_assert (!placement_path_mounted (&c, "/scratch/beta/x", NULL));
    ck_assert (!placement_path_mounted (&c, "/scratch", NULL));
    ck_assert (placement_path_mounted (&c, "//home//msuser/./a", NULL));
    ck_assert (!placement_path_mounted (&c, "/home/../etc/passwd", NULL));
    ck_assert (placement_path_mounted (&c, "/tmp/../home/x", NULL));
    /* relative paths are under the working directory */
    ck_assert (placement_path_mounted (&c, "out.txt", "/home/msuser"));
    ck_assert (!placement_path_mounted (&c, "out.txt", "/tmp"));
    ck_assert (!placement_path_mounted (&c, "../../tmp/x", "/home/msuser"));
    ck_assert (!placement_path_mounted (&c, "out.txt", NULL));
    /* --output=none is /dev/null, on every node */
    ck_assert (placement_path_mounted (&c, "/dev/null", "/tmp"));
    ck_assert (!placement_path_mounted (&c, "/dev/nullx", NULL));
    ms_strlcpy (c.filesystems[2], "/", sizeof (c.filesystems[0]));
    c.nfilesystems = 3;
    ck_assert (placement_path_mounted (&c, "/etc", NULL));
}
END_TEST

static ms_partition_state_t
part (void)
{
    ms_partition_state_t p;
    memset (&p, 0, sizeof (p));
    ms_strlcpy (p.name, "debug", sizeof (p.name));
    p.max_time_min = -1;
    ms_partition_limits_init (&p);
    return p;
}

START_TEST (test_partition_limits)
{
    ms_partition_state_t p = part ();
    ms_place_req_t r = { .user = "msuser", .nodes = 2, .time_limit_min = 60 };
    const char *groups[] = { "msuser", "physics" };
    ms_place_acct_t a = { .account = "physics", .qos = "normal",
                          .partitions = "", .max_wall_min = -1 };
    char why[256];

    ck_assert (placement_check_partition (&p, &r, &a, why, sizeof (why)));
    p.max_time_min = 30;
    ck_assert (!placement_check_partition (&p, &r, &a, why, sizeof (why)));
    ck_assert_str_eq (why, "MaxTime 30 min < 60 min asked");
    r.time_limit_min = 0; /* the partition's default applies */
    ck_assert (placement_check_partition (&p, &r, &a, why, sizeof (why)));
    p.max_nodes = 1;
    ck_assert (!placement_check_partition (&p, &r, &a, why, sizeof (why)));
    ck_assert_str_eq (why, "MaxNodes 1 < 2 asked");
    p.max_nodes = -1;
    p.min_nodes = 3;
    ck_assert (!placement_check_partition (&p, &r, &a, why, sizeof (why)));
    ck_assert_str_eq (why, "MinNodes 3 > 2 asked");
    p.min_nodes = 0;
    p.mem_per_node_mb = 2000;
    r.mem_per_node_mb = 3072;
    ck_assert (!placement_check_partition (&p, &r, &a, why, sizeof (why)));
    ck_assert_str_eq (why, "RealMemory 2000 MB < 3072 MB asked per node");
    r.mem_per_node_mb = 0;
    r.mem_per_cpu_mb = 100;
    r.cpus_per_node = 30;
    ck_assert (!placement_check_partition (&p, &r, &a, why, sizeof (why)));
    r.cpus_per_node = 10;
    ck_assert (placement_check_partition (&p, &r, &a, why, sizeof (why)));
    r.constraint = "bigmem";
    ck_assert (placement_check_partition (&p, &r, &a, why, sizeof (why)));
    ms_partition_add_features (&p, "skx,bigmem", 1);
    ms_partition_add_features (&p, "skx", 3);
    ck_assert (!placement_check_partition (&p, &r, &a, why, sizeof (why)));
    ck_assert_str_eq (why, "1 node with features 'bigmem' < 2 asked");
    r.constraint = "skx";
    ck_assert (placement_check_partition (&p, &r, &a, why, sizeof (why)));
    ms_strlcpy (p.allow_accounts, "chem,bio", sizeof (p.allow_accounts));
    ck_assert (!placement_check_partition (&p, &r, &a, why, sizeof (why)));
    ck_assert_str_eq (why, "AllowAccounts chem,bio excludes account physics");
    ms_strlcpy (p.allow_accounts, "ALL", sizeof (p.allow_accounts));
    ms_strlcpy (p.deny_accounts, "physics", sizeof (p.deny_accounts));
    ck_assert (!placement_check_partition (&p, &r, &a, why, sizeof (why)));
    ck_assert_str_eq (why, "DenyAccounts physics names account physics");
    p.deny_accounts[0] = '\0';
    ms_strlcpy (p.allow_groups, "admins", sizeof (p.allow_groups));
    ck_assert (!placement_check_partition (&p, &r, &a, why, sizeof (why)));
    ck_assert_str_eq (why, "AllowGroups admins excludes user msuser");
    r.groups = groups;
    r.ngroups = 2;
    ms_strlcpy (p.allow_groups, "admins,physics", sizeof (p.allow_groups));
    ck_assert (placement_check_partition (&p, &r, &a, why, sizeof (why)));
    ms_strlcpy (p.allow_qos, "debug", sizeof (p.allow_qos));
    ck_assert (!placement_check_partition (&p, &r, &a, why, sizeof (why)));
    ck_assert_str_eq (why, "AllowQos debug excludes QOS normal");
    p.allow_qos[0] = '\0';
    ms_strlcpy (p.deny_qos, "long,normal", sizeof (p.deny_qos));
    ck_assert (!placement_check_partition (&p, &r, &a, why, sizeof (why)));
    ck_assert_str_eq (why, "DenyQos long,normal names QOS normal");
    /* without accounting the account and QOS are unknown: not checked */
    ck_assert (placement_check_partition (&p, &r, NULL, why, sizeof (why)));
    /* associations for some partitions only */
    p.deny_qos[0] = '\0';
    ms_strlcpy (a.partitions, "batch,long", sizeof (a.partitions));
    ck_assert (!placement_check_partition (&p, &r, &a, why, sizeof (why)));
    ck_assert_str_eq (why, "the association of account physics holds "
                           "partitions batch,long only");
    ms_strlcpy (a.partitions, "debug", sizeof (a.partitions));
    ck_assert (placement_check_partition (&p, &r, &a, why, sizeof (why)));
}
END_TEST

START_TEST (test_accounting)
{
    ms_assoc_t as[] = {
        { "msuser", "physics", "", true, "debug,normal,short", "normal", -1 },
        { "msuser2", "chem", "", true, "normal,short", "normal", -1 },
        { "msuser2", "bio", "", false, "", "", 120 },
    };
    ms_qos_t qs[] = {
        { "normal", -1, -1, -1, -1 },
        { "short", 30, -1, -1, -1 },
        { "debug", 10, 8, -1, -1 },
    };
    ms_accounting_t acct = { true, as, 3, qs, 3 };
    ms_clusterconf_t c;
    ms_place_req_t r = { .user = "msuser", .nodes = 1, .cpus = 4 };
    ms_place_acct_t a;
    char why[256];

    memset (&c, 0, sizeof (c));
    c.accounting = true;
    ck_assert (placement_check_cluster (&c, &acct, &r, &a, why, sizeof (why)));
    ck_assert_str_eq (a.account, "physics");
    ck_assert_str_eq (a.qos, "normal");
    ck_assert_int_eq (a.max_wall_min, -1);
    r.user = "msnoacct";
    ck_assert (!placement_check_cluster (&c, &acct, &r, &a, why, sizeof (why)));
    ck_assert_str_eq (why, "no association for user msnoacct");
    r.user = "msuser2";
    r.account = "physics";
    ck_assert (!placement_check_cluster (&c, &acct, &r, &a, why, sizeof (why)));
    ck_assert_str_eq (why, "no association for user msuser2 account physics");
    r.account = NULL;
    r.qos = "debug";
    ck_assert (!placement_check_cluster (&c, &acct, &r, &a, why, sizeof (why)));
    ck_assert_str_eq (why, "QOS debug not allowed for user msuser2 account "
                           "chem (allowed: normal,short)");
    r.qos = "short";
    r.time_limit_min = 60;
    ck_assert (!placement_check_cluster (&c, &acct, &r, &a, why, sizeof (why)));
    ck_assert_str_eq (why, "QOS short MaxWall 30 min < 60 min asked");
    r.time_limit_min = 30;
    ck_assert (placement_check_cluster (&c, &acct, &r, &a, why, sizeof (why)));
    ck_assert_int_eq (a.max_wall_min, 30); /* a scaled limit stays within */
    r.user = "msuser";
    r.qos = "debug";
    r.time_limit_min = 5;
    r.cpus = 48;
    ck_assert (!placement_check_cluster (&c, &acct, &r, &a, why, sizeof (why)));
    ck_assert_str_eq (why, "QOS debug MaxTRESPerUser cpu=8 < 48 CPUs asked");
    r.user = "msuser2";
    r.account = "bio"; /* no QOS list: every QOS; its own MaxWall */
    r.qos = NULL;
    r.cpus = 1;
    r.time_limit_min = 180;
    ck_assert (!placement_check_cluster (&c, &acct, &r, &a, why, sizeof (why)));
    ck_assert_str_eq (why, "association msuser2/bio MaxWall 120 min < 180 min "
                           "asked");
    /* an association of one partition: the job goes to that one only */
    {
        ms_assoc_t pa[] = {
            { "msuser3", "bio", "debug", true, "", "", -1 },
            { "msuser3", "bio", "long", false, "", "", -1 },
        };
        ms_accounting_t pacct = { true, pa, 2, qs, 3 };
        ms_place_req_t r3 = { .user = "msuser3", .nodes = 1 };
        ck_assert (placement_check_cluster (&c, &pacct, &r3, &a, why,
                                            sizeof (why)));
        ck_assert_str_eq (a.account, "bio");
        ck_assert_str_eq (a.partitions, "debug,long");
    }
    /* a cluster without accounting, or configured not to check: nothing */
    r.user = "msnoacct";
    acct.enabled = false;
    ck_assert (placement_check_cluster (&c, &acct, &r, &a, why, sizeof (why)));
    acct.enabled = true;
    c.accounting = false;
    ck_assert (placement_check_cluster (&c, &acct, &r, &a, why, sizeof (why)));
    ck_assert (placement_check_cluster (&c, NULL, &r, &a, why, sizeof (why)));
    /* filesystems come first */
    ms_strlcpy (c.filesystems[0], "/home", sizeof (c.filesystems[0]));
    c.nfilesystems = 1;
    r.cwd = "/scratch/alpha/run";
    ck_assert (!placement_check_cluster (&c, NULL, &r, &a, why, sizeof (why)));
    ck_assert_str_eq (why, "/scratch/alpha/run not mounted (working directory)");
    r.cwd = "/home/msnoacct";
    r.paths[1] = "/scratch/alpha/err.txt";
    ck_assert (!placement_check_cluster (&c, NULL, &r, &a, why, sizeof (why)));
    ck_assert_str_eq (why, "/scratch/alpha/err.txt not mounted (error)");
    r.paths[1] = "err.txt";
    ck_assert (placement_check_cluster (&c, NULL, &r, &a, why, sizeof (why)));
}
END_TEST

static int
collect (const char *name, void *arg)
{
    char *buf = arg;
    size_t n = strlen (buf);
    snprintf (buf + n, 512 - n, "%s%s", n ? " " : "", name);
    return 0;
}

static const char *
expand (const char *list)
{
    static char buf[512];
    buf[0] = '\0';
    if (placement_hostlist_each (list, 64, collect, buf) < 0)
        return "ERROR";
    return buf;
}

START_TEST (test_hostlists)
{
    ck_assert_str_eq (expand ("b1"), "b1");
    ck_assert_str_eq (expand ("a[1-3]"), "a1 a2 a3");
    ck_assert_str_eq (expand ("a[1-2,5],b7"), "a1 a2 a5 b7");
    ck_assert_str_eq (expand ("n[08-10]"), "n08 n09 n10");
    ck_assert_str_eq (expand ("r[1-2]-n[1-2]"), "r1-n1 r1-n2 r2-n1 r2-n2");
    ck_assert_str_eq (expand ("x[3]y"), "x3y");
    ck_assert_str_eq (expand ("a[1-"), "ERROR");
    ck_assert_str_eq (expand ("a[3-1]"), "ERROR");
    ck_assert_str_eq (expand ("a[]"), "ERROR");
    ck_assert_str_eq (expand ("a]"), "ERROR");
    ck_assert_str_eq (expand ("a,,b"), "ERROR");
    ck_assert_str_eq (expand ("a[x]"), "ERROR");
    ck_assert_str_eq (expand (""), "ERROR");
    ck_assert_str_eq (expand ("n[1-100]"), "ERROR"); /* over the 64 asked */
    ck_assert (placement_hostlist_has ("g[1-2]", "g2"));
    ck_assert (!placement_hostlist_has ("g[1-2]", "g3"));
    ck_assert (!placement_hostlist_has ("g[1-2]", "g"));
}
END_TEST

START_TEST (test_nodelist_exclude)
{
    ms_partition_state_t p = part ();
    ms_place_req_t r = { .user = "u", .nodes = 2 };
    char why[256];

    /* unknown nodes: nothing checked */
    r.nodelist = "b1";
    ck_assert (placement_check_partition (&p, &r, NULL, why, sizeof (why)));
    ms_strlcpy (p.node_list, "a[1-4]", sizeof (p.node_list));
    ck_assert (!placement_check_partition (&p, &r, NULL, why, sizeof (why)));
    ck_assert_str_eq (why, "node b1 (--nodelist) is not one of a[1-4]");
    r.nodelist = "a[2-3]";
    ck_assert (placement_check_partition (&p, &r, NULL, why, sizeof (why)));
    r.nodelist = "a[2-";
    ck_assert (!placement_check_partition (&p, &r, NULL, why, sizeof (why)));
    ck_assert_str_eq (why, "--nodelist=a[2- is not a list of nodes");
    r.nodelist = "/home/u/nodes.txt"; /* a file: the user's */
    ck_assert (placement_check_partition (&p, &r, NULL, why, sizeof (why)));
    r.nodelist = NULL;
    r.exclude = "a[1-2]";
    ck_assert (placement_check_partition (&p, &r, NULL, why, sizeof (why)));
    r.exclude = "a[1-3]";
    ck_assert (!placement_check_partition (&p, &r, NULL, why, sizeof (why)));
    ck_assert_str_eq (why, "1 node left of a[1-4] after --exclude=a[1-3] < 2 "
                           "asked");
    /* a node named twice, and one the partition lacks, count once and not
     * at all; a list that is no hostlist excludes nothing */
    r.exclude = "a1,a[1-2],b7";
    ck_assert (placement_check_partition (&p, &r, NULL, why, sizeof (why)));
    r.nodes = 3;
    ck_assert (!placement_check_partition (&p, &r, NULL, why, sizeof (why)));
    ck_assert_str_eq (why, "2 nodes left of a[1-4] after --exclude=a1,a[1-2],b7 "
                           "< 3 asked");
    r.exclude = "a[1-";
    ck_assert (placement_check_partition (&p, &r, NULL, why, sizeof (why)));
    /* thousands of nodes against thousands excluded: one expansion each,
     * not one per pair (this took seconds) */
    ms_strlcpy (p.node_list, "n[0-9999]", sizeof (p.node_list));
    r.exclude = "n[0-9997]";
    r.nodes = 2;
    ck_assert (placement_check_partition (&p, &r, NULL, why, sizeof (why)));
    r.nodes = 3;
    ck_assert (!placement_check_partition (&p, &r, NULL, why, sizeof (why)));
    ck_assert_str_eq (why, "2 nodes left of n[0-9999] after --exclude=n[0-9997] "
                           "< 3 asked");
    r.exclude = NULL;
    r.nodelist = "n[0-9999]";
    ck_assert (placement_check_partition (&p, &r, NULL, why, sizeof (why)));
}
END_TEST

/* The simulator's limits: clusters.conf's max_time, max_nodes, min_nodes
 * keep candidates off the partitions they forbid. */
START_TEST (test_candidates_limits)
{
    static const char text[]
        = "[architecture a]\ncores_per_node = 4\nfrequencies_khz = 1000000\n"
          "idle_power_w = 50\n"
          "[cluster c]\nbackend = simulated\n"
          "[partition c/short]\narchitecture = a\nnodes = 4\nmax_time = 30\n"
          "[partition c/small]\narchitecture = a\nnodes = 4\nmax_nodes = 1\n"
          "[partition c/big]\narchitecture = a\nnodes = 4\nmin_nodes = 2\n"
          "[partition c/any]\narchitecture = a\nnodes = 4\n";
    ms_siteconf_t *conf;
    ms_error_t err;
    ms_cand_t c[4];
    ms_cands_t cs = { .c = c, .n = 0, .cap = 4 };

    ck_assert_msg (clusterconf_parse (text, strlen (text), "t.conf", &conf, &err)
                       == 0,
                   "%s", err.text);
#define FILL()                                                                \
    do {                                                                      \
        memset (c, 0, sizeof (c));                                            \
        for (size_t i = 0; i < 4; i++)                                        \
            c[i].part = i;                                                    \
        cs.n = 4;                                                             \
    } while (0)
    FILL ();
    candidates_limits (conf, 1, 3600, &cs); /* 1 node, 60 min */
    ck_assert_uint_eq (cs.n, 2);
    ck_assert_uint_eq (c[0].part, 1);
    ck_assert_uint_eq (c[1].part, 3);
    FILL ();
    candidates_limits (conf, 2, 1800, &cs); /* 2 nodes, 30 min */
    ck_assert_uint_eq (cs.n, 3);
    ck_assert_uint_eq (c[0].part, 0);
    ck_assert_uint_eq (c[1].part, 2);
    ck_assert_uint_eq (c[2].part, 3);
    FILL ();
    candidates_limits (conf, 1, 0, &cs); /* no limit: the default applies */
    ck_assert_uint_eq (cs.n, 3);
#undef FILL
    clusterconf_free (conf);
}
END_TEST

int
main (void)
{
    Suite *s = suite_create ("placement");
    TCase *tc = tcase_create ("rules");
    tcase_add_test (tc, test_features);
    tcase_add_test (tc, test_feature_nodes);
    tcase_add_test (tc, test_filesystems);
    tcase_add_test (tc, test_partition_limits);
    tcase_add_test (tc, test_accounting);
    tcase_add_test (tc, test_candidates_limits);
    tcase_add_test (tc, test_hostlists);
    tcase_add_test (tc, test_nodelist_exclude);
    suite_add_tcase (s, tc);
    return test_run_suite (s);
}
