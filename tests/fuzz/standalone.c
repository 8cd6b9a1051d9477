/* standalone.c - run a libFuzzer target without libFuzzer.
 *
 * `make check` builds every fuzz target with this driver (gcc, under the
 * sanitizer build in CI). It feeds each file of the target's corpus
 * directory, then a bounded number of seeded random mutations of them
 * (byte flips, truncations, insertions, splices), so the parser is exercised
 * on arbitrary bytes in every test run. A crash or sanitizer report fails
 * the test. Output is TAP: one line per corpus file and one for the
 * mutation round.
 *
 * Usage: fuzz_X CORPUS_DIR [ITERATIONS [SEED]]
 */
#include "config.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

#define FUZZ_MAX_INPUTS 256
#define FUZZ_MAX_INPUT 65536

static uint64_t rng_state;

static uint64_t
rng (void)
{
    /* xorshift64*: good enough to mutate bytes, and reproducible by seed */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ULL;
}

static size_t
mutate (uint8_t *buf, size_t len, size_t cap, uint8_t *const *inputs,
        const size_t *lens, size_t n)
{
    int rounds = 1 + (int)(rng () % 4);
    for (int r = 0; r < rounds; r++) {
        switch (rng () % 6) {
        case 0: /* flip a byte */
            if (len)
                buf[rng () % len] ^= (uint8_t)(1u << (rng () % 8));
            break;
        case 1: /* random byte */
            if (len)
                buf[rng () % len] = (uint8_t)rng ();
            break;
        case 2: /* truncate */
            if (len)
                len = rng () % len;
            break;
        case 3: /* insert a byte from an interesting set */
            if (len < cap) {
                static const char special[] = "{}[]\",:\\0\n\r=#-eE.";
                size_t at = len ? rng () % (len + 1) : 0;
                memmove (buf + at + 1, buf + at, len - at);
                buf[at] = (uint8_t)special[rng () % (sizeof (special) - 1)];
                len++;
            }
            break;
        case 4: /* splice a piece of another input */
            if (n) {
                size_t k = rng () % n;
                if (lens[k]) {
                    size_t from = rng () % lens[k];
                    size_t cnt = rng () % (lens[k] - from + 1);
                    size_t at = len ? rng () % (len + 1) : 0;
                    if (len + cnt > cap)
                        cnt = cap - len;
                    memmove (buf + at + cnt, buf + at, len - at);
                    memcpy (buf + at, inputs[k] + from, cnt);
                    len += cnt;
                }
            }
            break;
        case 5: /* duplicate a range */
            if (len && len < cap) {
                size_t from = rng () % len;
                size_t cnt = rng () % (len - from + 1);
                if (len + cnt > cap)
                    cnt = cap - len;
                memmove (buf + from + cnt, buf + from, len - from);
                len += cnt;
            }
            break;
        }
    }
    return len;
}

int
main (int argc, char **argv)
{
    uint8_t *inputs[FUZZ_MAX_INPUTS];
    size_t lens[FUZZ_MAX_INPUTS], n = 0;
    long iters = argc > 2 ? atol (argv[2]) : 20000;
    DIR *d;
    struct dirent *de;
    int tapno = 0;

    rng_state = argc > 3 ? strtoull (argv[3], NULL, 10) : 0x9e3779b97f4a7c15ULL;
    if (rng_state == 0)
        rng_state = 1;
    if (argc < 2 || !(d = opendir (argv[1]))) {
        printf ("1..0 # SKIP no corpus directory given or readable\n");
        return 0;
    }
    while ((de = readdir (d)) && n < FUZZ_MAX_INPUTS) {
        char path[4096];
        FILE *f;
        if (de->d_name[0] == '.')
            continue;
        snprintf (path, sizeof (path), "%s/%s", argv[1], de->d_name);
        if (!(f = fopen (path, "rb")))
            continue;
        inputs[n] = malloc (FUZZ_MAX_INPUT);
        lens[n] = fread (inputs[n], 1, FUZZ_MAX_INPUT, f);
        fclose (f);
        n++;
    }
    closedir (d);
    printf ("1..%zu\n", n + 1);
    for (size_t i = 0; i < n; i++) {
        /* copy so that the target sees exactly len bytes (ASan catches
         * reads past the end) */
        uint8_t *copy = malloc (lens[i] ? lens[i] : 1);
        memcpy (copy, inputs[i], lens[i]);
        LLVMFuzzerTestOneInput (copy, lens[i]);
        free (copy);
        printf ("ok %d - corpus input %zu (%zu bytes)\n", ++tapno, i, lens[i]);
        fflush (stdout);
    }
    {
        uint8_t *buf = malloc (FUZZ_MAX_INPUT);
        for (long it = 0; it < iters; it++) {
            size_t len = 0;
            if (n) {
                size_t k = rng () % n;
                len = lens[k];
                memcpy (buf, inputs[k], len);
            }
            len = mutate (buf, len, FUZZ_MAX_INPUT, inputs, lens, n);
            uint8_t *copy = malloc (len ? len : 1);
            memcpy (copy, buf, len);
            LLVMFuzzerTestOneInput (copy, len);
            free (copy);
        }
        free (buf);
        printf ("ok %d - %ld seeded mutations without a crash\n", ++tapno,
                iters);
    }
    for (size_t i = 0; i < n; i++)
        free (inputs[i]);
    return 0;
}
