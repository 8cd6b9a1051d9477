/* fuzz_powercap.c - the powercap reader on arbitrary file contents.
 *
 * Input: three lines, the zone's name, energy_uj and max_energy_range_uj
 * (the DRAM sub-zone gets the same energy and range). They are written to
 * a private test powercap tree, which is then opened, read twice and
 * accumulated, as the collectors do; the counter text is also parsed
 * directly. Nothing may crash, and an accepted reading is within range. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collectors/rapl.h"

static char root[64];

static void
cleanup (void)
{
    char cmd[128];
    snprintf (cmd, sizeof (cmd), "rm -rf '%s'", root);
    if (system (cmd) != 0)
        fprintf (stderr, "could not remove %s\n", root);
}

static void
put (const char *rel, const uint8_t *p, size_t n)
{
    char path[256];
    FILE *f;
    snprintf (path, sizeof (path), "%s/%s", root, rel);
    if ((f = fopen (path, "w"))) {
        fwrite (p, 1, n, f);
        fclose (f);
    }
}

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    const uint8_t *part[3] = { data, data, data };
    size_t len[3] = { 0, 0, 0 }, k = 0, start = 0;
    uint64_t v;
    rapl_t *r;
    rapl_sample_t s;
    rapl_accum_t a;
    double pkg, dram;

    if (!root[0]) {
        char path[128];
        snprintf (root, sizeof (root), "/tmp/ms-fuzz-powercap-%ld", (long)getpid ());
        mkdir (root, 0700);
        snprintf (path, sizeof (path), "%s/intel-rapl:0", root);
        mkdir (path, 0700);
        snprintf (path, sizeof (path), "%s/intel-rapl:0/intel-rapl:0:0", root);
        mkdir (path, 0700);
        atexit (cleanup);
    }
    rapl_parse_u64 ((const char *)data, size, "input", &v, NULL);
    for (size_t i = 0; i <= size && k < 3; i++)
        if (i == size || data[i] == '\n') {
            part[k] = data + start;
            len[k++] = i - start + (i < size);
            start = i + 1;
        }
    put ("intel-rapl:0/name", part[0], len[0]);
    put ("intel-rapl:0/energy_uj", part[1], len[1]);
    put ("intel-rapl:0/max_energy_range_uj", part[2], len[2]);
    put ("intel-rapl:0/intel-rapl:0:0/name", (const uint8_t *)"dram\n", 5);
    put ("intel-rapl:0/intel-rapl:0:0/energy_uj", part[1], len[1]);
    put ("intel-rapl:0/intel-rapl:0:0/max_energy_range_uj", part[2], len[2]);
    if (rapl_open (root, &r, NULL) == 0) {
        if (rapl_read (r, &s, NULL) > 0) {
            rapl_accum_start (&a, r, &s);
            for (size_t z = 0; z < rapl_nzones (r); z++)
                if (s.ok[z] && s.uj[z] > rapl_zone (r, z)->max_range_uj)
                    abort ();
            if (rapl_read (r, &s, NULL) > 0)
                rapl_accum_add (&a, r, &s);
            rapl_accum_energy (&a, r, &pkg, &dram);
            if (pkg > 0 && a.wraps[0] == 0)
                abort (); /* nothing moved between the readings */
        }
        rapl_min_interval (r, 1000);
        rapl_close (r);
    }
    return 0;
}
