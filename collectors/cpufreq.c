/* cpufreq.c - the observed CPU frequency of a node. */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/cpufreq.h"

uint32_t
cpufreq_mean_khz (const char *root)
{
    DIR *d = opendir (root ? root : CPUFREQ_DEFAULT_ROOT);
    struct dirent *de;
    double sum = 0;
    unsigned n = 0;

    if (!d)
        return 0;
    while ((de = readdir (d))) {
        char path[600], buf[32], *end;
        FILE *f;
        unsigned long v;
        if (strncmp (de->d_name, "cpu", 3) || !isdigit ((unsigned char)de->d_name[3]))
            continue;
        snprintf (path, sizeof (path), "%s/%s/cpufreq/scaling_cur_freq",
                  root ? root : CPUFREQ_DEFAULT_ROOT, de->d_name);
        if (!(f = fopen (path, "r")))
            continue;
        if (fgets (buf, sizeof (buf), f)) {
            v = strtoul (buf, &end, 10);
            if (end != buf && (*end == '\n' || *end == '\0') && v > 0
                && v < 100000000) {
                sum += (double)v;
                n++;
            }
        }
        fclose (f);
    }
    closedir (d);
    return n ? (uint32_t)(sum / n + 0.5) : 0;
}
