/* test_sha256.c - SHA-256 against the FIPS 180-2 example vectors. */
#include "config.h"

#include <string.h>

#include "metasched/api/sha256.h"
#include "tests/testutil.h"

START_TEST (test_abc)
{
    char hex[SHA256_HEX_LEN + 1];

    sha256_hex ("abc", 3, hex);
    ck_assert_str_eq (
        hex,
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}
END_TEST

START_TEST (test_two_blocks)
{
    const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    char hex[SHA256_HEX_LEN + 1];

    sha256_hex (m, strlen (m), hex);
    ck_assert_str_eq (
        hex,
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}
END_TEST

START_TEST (test_million_a)
{
    /* fed in odd-sized pieces so the buffering is exercised */
    uint8_t d[SHA256_DIGEST_LEN];
    char chunk[997], hex[SHA256_HEX_LEN + 1];
    size_t left = 1000000;
    sha256_t c;
    int i;

    memset (chunk, 'a', sizeof (chunk));
    sha256_init (&c);
    while (left > 0) {
        size_t n = left < sizeof (chunk) ? left : sizeof (chunk);
        sha256_update (&c, chunk, n);
        left -= n;
    }
    sha256_final (&c, d);
    for (i = 0; i < SHA256_DIGEST_LEN; i++)
        snprintf (hex + 2 * i, 3, "%02x", d[i]);
    ck_assert_str_eq (
        hex,
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}
END_TEST

START_TEST (test_empty)
{
    char hex[SHA256_HEX_LEN + 1];

    sha256_hex ("", 0, hex);
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
        sha256_hex (buf, v[i].n, hex);
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
    tcase_add_test (tc, test_million_a);
    tcase_add_test (tc, test_empty);
    tcase_add_test (tc, test_padding_edges);
    suite_add_tcase (s, tc);
    return test_run_suite (s);
}
