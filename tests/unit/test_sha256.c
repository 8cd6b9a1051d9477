/* test_sha256.c - the request digest (libcrypto's SHA-256 spelled in hex)
 * against the FIPS 180-2 example vectors, the padding edges and long
 * inputs. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "wire/sha256.h"
#include "tests/testutil.h"

START_TEST (test_abc)
{
    char hex[SHA256_HEX_LEN + 1];

    ck_assert_int_eq (sha256_hex ("abc", 3, hex, NULL), 0);
    ck_assert_str_eq (
        hex,
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}
END_TEST

START_TEST (test_two_blocks)
{
    const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    char hex[SHA256_HEX_LEN + 1];

    ck_assert_int_eq (sha256_hex (m, strlen (m), hex, NULL), 0);
    ck_assert_str_eq (
        hex,
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}
END_TEST

START_TEST (test_896_bits)
{
    /* FIPS 180-2's SHA-512 example message, a 112-byte input (two blocks,
     * the length in the second) */
    const char *m = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
                    "hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
    char hex[SHA256_HEX_LEN + 1];

    ck_assert_int_eq (sha256_hex (m, strlen (m), hex, NULL), 0);
    ck_assert_str_eq (
        hex,
        "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}
END_TEST

START_TEST (test_million_a)
{
    /* FIPS 180-2: one million 'a' */
    size_t n = 1000000;
    char *m = malloc (n), hex[SHA256_HEX_LEN + 1];

    ck_assert_ptr_nonnull (m);
    memset (m, 'a', n);
    ck_assert_int_eq (sha256_hex (m, n, hex, NULL), 0);
    free (m);
    ck_assert_str_eq (
        hex,
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}
END_TEST

START_TEST (test_long_bodies)
{
    /* bodies of the size the API accepts and beyond: 1 MiB of every byte
     * value and 16 MiB of 'a' (digests from Python's hashlib) */
    size_t n = (size_t)1 << 24;
    char *m = malloc (n), hex[SHA256_HEX_LEN + 1];

    ck_assert_ptr_nonnull (m);
    for (size_t i = 0; i < ((size_t)1 << 20); i++)
        m[i] = (char)(unsigned char)(i & 0xff);
    ck_assert_int_eq (sha256_hex (m, (size_t)1 << 20, hex, NULL), 0);
    ck_assert_str_eq (
        hex,
        "fbbab289f7f94b25736c58be46a994c441fd02552cc6022352e3d86d2fab7c83");
    memset (m, 'a', n);
    ck_assert_int_eq (sha256_hex (m, n, hex, NULL), 0);
    free (m);
    ck_assert_str_eq (
        hex,
        "5b6ff2e19d0da0fe323061018fc381393492884e74af8296c81ab9cb2694783a");
}
END_TEST

START_TEST (test_empty)
{
    char hex[SHA256_HEX_LEN + 1];

    ck_assert_int_eq (sha256_hex ("", 0, hex, NULL), 0);
    ck_assert_str_eq (
        hex,
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}
END_TEST

START_TEST (test_padding_edges)
{
    /* 55, 56 and 64 bytes: the length fits, just misses, fills a block;
     * digests from an independent implementation (coreutils sha256sum) */
    static const struct {
        size_t n;
        const char *hex;
    } v[] = {
        { 55,
          "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318" },
        { 56,
          "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a" },
        { 64,
          "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb" },
    };
    char buf[64], hex[SHA256_HEX_LEN + 1];
    size_t i;

    memset (buf, 'a', sizeof (buf));
    for (i = 0; i < sizeof (v) / sizeof (v[0]); i++) {
        ck_assert_int_eq (sha256_hex (buf, v[i].n, hex, NULL), 0);
        ck_assert_str_eq (hex, v[i].hex);
    }
}
END_TEST

int
main (void)
{
    Suite *s = suite_create ("sha256");
    TCase *tc = tcase_create ("fips180");

    tcase_add_test (tc, test_abc);
    tcase_add_test (tc, test_two_blocks);
    tcase_add_test (tc, test_896_bits);
    tcase_add_test (tc, test_million_a);
    tcase_add_test (tc, test_long_bodies);
    tcase_add_test (tc, test_empty);
    tcase_add_test (tc, test_padding_edges);
    suite_add_tcase (s, tc);
    return test_run_suite (s);
}
