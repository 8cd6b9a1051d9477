/* test_tag_mac.c - forging the tag of a cluster job without the key
 * (metasched/daemon/tag.c): a tag verifies only with the site's key, only
 * for the meta job, dispatch, copy and cluster it was made for; every
 * altered, truncated, extended or malformed tag fails, and none of them
 * crashes. The key file: made once, 0600, read back the same by a second
 * daemon; a loose mode or a short key is refused naming the file. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "metasched/daemon/tag.h"
#include "tests/testutil.h"

static tag_key_t key, other;

static void
keys (void)
{
    memset (&key, 0, sizeof (key));
    memcpy (key.k, "0123456789abcdef0123456789abcdef", 32);
    key.len = 32;
    other = key;
    other.k[31] = 'e';
}

START_TEST (a_tag_verifies_where_it_was_made)
{
    char t[TAG_MAX], c[TAG_MAX + 32];
    int64_t id;

    keys ();
    tag_make (&key, 42, "alpha", 3, 1, t, sizeof (t));
    ck_assert_int_eq (strncmp (t, "metasched:42:3.1:", 17), 0);
    ck_assert_int_eq (strlen (t), 17 + TAG_MAC_HEX);
    ck_assert_int_eq (tag_check (&key, t, "alpha", &id), TAG_VALID);
    ck_assert_int_eq (id, 42);
    /* the user's own comment after a space */
    snprintf (c, sizeof (c), "%s my words", t);
    ck_assert_int_eq (tag_check (&key, c, "alpha", &id), TAG_VALID);
    /* another cluster, another key */
    ck_assert_int_eq (tag_check (&key, t, "beta", &id), TAG_BAD_MAC);
    ck_assert_int_eq (id, 42);
    ck_assert_int_eq (tag_check (&other, t, "alpha", &id), TAG_BAD_MAC);
}
END_TEST

START_TEST (an_altered_tag_never_verifies)
{
    char t[TAG_MAX], u[TAG_MAX + 4];
    int64_t id;
    size_t n;

    keys ();
    tag_make (&key, 42, "alpha", 3, 1, t, sizeof (t));
    n = strlen (t);
    /* each character changed */
    for (size_t i = 0; i < n; i++) {
        const char *alt = "0123456789abcdef:.x ";
        for (const char *a = alt; *a; a++) {
            if (*a == t[i])
                continue;
            memcpy (u, t, n + 1);
            u[i] = *a;
            ck_assert_msg (tag_check (&key, u, "alpha", &id) != TAG_VALID,
                           "%s verifies", u);
        }
    }
    /* the same MAC on another id, dispatch or copy */
    snprintf (u, sizeof (u), "metasched:43:3.1:%s", t + 17);
    ck_assert_int_eq (tag_check (&key, u, "alpha", &id), TAG_BAD_MAC);
    ck_assert_int_eq (id, 43);
    snprintf (u, sizeof (u), "metasched:42:4.1:%s", t + 17);
    ck_assert_int_eq (tag_check (&key, u, "alpha", &id), TAG_BAD_MAC);
    snprintf (u, sizeof (u), "metasched:42:3.0:%s", t + 17);
    ck_assert_int_eq (tag_check (&key, u, "alpha", &id), TAG_BAD_MAC);
    /* truncated, extended */
    for (size_t k = 10; k < n; k++) {
        memcpy (u, t, k);
        u[k] = '\0';
        ck_assert_msg (tag_check (&key, u, "alpha", &id) != TAG_VALID,
                       "%s verifies", u);
    }
    snprintf (u, sizeof (u), "%s0", t);
    ck_assert_int_eq (tag_check (&key, u, "alpha", &id), TAG_MALFORMED);
    /* upper-case digits are not the tag's */
    memcpy (u, t, n + 1);
    for (size_t i = 17; i < n; i++)
        if (u[i] >= 'a' && u[i] <= 'f')
            u[i] = (char)(u[i] - 'a' + 'A');
    ck_assert (tag_check (&key, u, "alpha", &id) != TAG_VALID);
}
END_TEST

START_TEST (claims_without_proof)
{
    static const struct {
        const char *c;
        tag_check_t want;
        int64_t id;
    } cases[] = {
        { "", TAG_NONE, 0 },
        { "my comment", TAG_NONE, 0 },
        { "metasched:", TAG_NONE, 0 },
        { "metasched:0", TAG_NONE, 0 },
        { "metasched:-5", TAG_NONE, 0 },
        { "metasched:+5", TAG_NONE, 0 },
        { "metasched: 5", TAG_NONE, 0 },
        { "metasched:x5", TAG_NONE, 0 },
        { "metasched:t15260-gamma", TAG_NONE, 0 },
        { "metasched:05", TAG_NONE, 0 },
        { "metasched:99999999999999999999", TAG_NONE, 0 },
        { "metasched:5", TAG_NO_MAC, 5 },
        { "metasched:5 words", TAG_NO_MAC, 5 },
        { "metasched:5:", TAG_MALFORMED, 5 },
        { "metasched:5x", TAG_MALFORMED, 5 },
        { "metasched:5:1", TAG_MALFORMED, 5 },
        { "metasched:5:1.0", TAG_MALFORMED, 5 },
        { "metasched:5:1.0:", TAG_MALFORMED, 5 },
        { "metasched:5:1.0:0123", TAG_MALFORMED, 5 },
        { "metasched:5:-1.0:0123456789abcdef0123456789abcdef", TAG_MALFORMED,
          5 },
        { "metasched:5:1.0:0123456789abcdef0123456789abcdeg", TAG_MALFORMED,
          5 },
        { "metasched:5:99999999999.0:0123456789abcdef0123456789abcdef",
          TAG_MALFORMED, 5 },
        { "metasched:5:1.0:0123456789abcdef0123456789abcdef", TAG_BAD_MAC, 5 },
        { "metasched:5:1.0:00000000000000000000000000000000", TAG_BAD_MAC, 5 },
        { "metasched:5:1.0:00000000000000000000000000000000 x", TAG_BAD_MAC,
          5 },
    };
    int64_t id;

    keys ();
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        tag_check_t r = tag_check (&key, cases[i].c, "alpha", &id);
        ck_assert_msg (r == cases[i].want && id == cases[i].id,
                       "'%s': %d (id %lld), expected %d (id %lld)", cases[i].c,
                       (int)r, (long long)id, (int)cases[i].want,
                       (long long)cases[i].id);
        ck_assert (strlen (tag_check_why (r)) > 0);
    }
    /* no key: nothing verifies */
    {
        tag_key_t none;
        char t[TAG_MAX];
        memset (&none, 0, sizeof (none));
        tag_make (&none, 5, "alpha", 1, 0, t, sizeof (t));
        ck_assert_int_ne (tag_check (&none, t, "alpha", &id), TAG_VALID);
    }
}
END_TEST

START_TEST (the_key_file)
{
    char dir[] = "/tmp/ms-tagkey-XXXXXX", path[128], t[TAG_MAX];
    tag_key_t a, b;
    bool made;
    ms_error_t e;
    struct stat st;
    int64_t id;
    int fd;

    ck_assert_ptr_nonnull (mkdtemp (dir));
    snprintf (path, sizeof (path), "%s/tag.key", dir);
    /* absent, not to be made */
    ck_assert_int_eq (tag_key_load (path, false, &a, &made, &e), -1);
    ck_assert_ptr_nonnull (strstr (e.text, path));
    /* made once, 0600, then read back the same */
    ck_assert_msg (tag_key_load (path, true, &a, &made, &e) == 0, "%s", e.text);
    ck_assert (made);
    ck_assert_int_eq (stat (path, &st), 0);
    ck_assert_int_eq (st.st_mode & 0777, 0600);
    ck_assert_int_eq (a.len, 2 * TAG_KEY_MIN);
    ck_assert_msg (tag_key_load (path, true, &b, &made, &e) == 0, "%s", e.text);
    ck_assert (!made);
    ck_assert (a.len == b.len && !memcmp (a.k, b.k, a.len));
    tag_make (&a, 7, "alpha", 1, 0, t, sizeof (t));
    ck_assert_int_eq (tag_check (&b, t, "alpha", &id), TAG_VALID);
    /* readable by others: refused */
    ck_assert_int_eq (chmod (path, 0644), 0);
    ck_assert_int_eq (tag_key_load (path, true, &b, &made, &e), -1);
    ck_assert_msg (strstr (e.text, path) != NULL, "%s", e.text);
    /* too short: refused */
    ck_assert_int_eq (unlink (path), 0);
    fd = open (path, O_WRONLY | O_CREAT | O_EXCL, 0600);
    ck_assert_int_ge (fd, 0);
    ck_assert_int_eq (write (fd, "short\n", 6), 6);
    close (fd);
    ck_assert_int_eq (tag_key_load (path, true, &b, &made, &e), -1);
    ck_assert_msg (strstr (e.text, path) && strstr (e.text, "5 bytes"), "%s",
                   e.text);
    /* a directory that does not exist: the error names the file */
    snprintf (path, sizeof (path), "%s/none/tag.key", dir);
    ck_assert_int_eq (tag_key_load (path, true, &b, &made, &e), -1);
    ck_assert_ptr_nonnull (strstr (e.text, path));
    tag_key_clear (&a);
    tag_key_clear (&b);
    snprintf (path, sizeof (path), "%s/tag.key", dir);
    unlink (path);
    rmdir (dir);
}
END_TEST

int
main (void)
{
    Suite *s = suite_create ("tag_mac");
    TCase *tc = tcase_create ("tag");
    tcase_add_test (tc, a_tag_verifies_where_it_was_made);
    tcase_add_test (tc, an_altered_tag_never_verifies);
    tcase_add_test (tc, claims_without_proof);
    tcase_add_test (tc, the_key_file);
    suite_add_tcase (s, tc);
    return test_run_suite (s);
}
