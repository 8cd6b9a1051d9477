/* cmd_config.c - `metasched config`: show and change metaschedd's
 * scheduling settings through its API (doc/metasched-config.1).
 *
 *   metasched config [show]              GET /v1/settings
 *   metasched config get KEY ...         GET /v1/settings, those keys
 *   metasched config set KEY=VALUE ...   PUT /v1/settings, all or nothing
 *   metasched config list [--tsv]        the settings table, no daemon
 *                                        (core/settings_table.c)
 *
 * Every request carries the caller's MUNGE credential (client.h), so the
 * daemon knows who asks: anyone may look, only admins named in its
 * configuration may change (403 otherwise). The values are typed here
 * (number, integer, boolean, string) and checked by the daemon, whose
 * message names the key it refused.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "wire/client.h"
#include "metasched/admin/cmdopt.h"
#include "metasched/admin/commands.h"
#include "metasched/common/util.h"
#include "metasched/core/settings_table.h"

static void
usage (FILE *f)
{
    const ms_sett_t *rows;
    size_t n, col = 5;

    fprintf (f,
             "Usage: metasched config [OPTIONS] [show]\n"
             "       metasched config [OPTIONS] get KEY...\n"
             "       metasched config [OPTIONS] set KEY=VALUE...\n"
             "       metasched config list [--tsv | --man]\n"
             "Show metaschedd's scheduling settings, or change them (admins; "
             "all or nothing);\nlist every setting of metasched with its "
             "default, range and where it applies.\n\n"
             "  -s, --server ADDR   unix:/path or http://host:port (default "
             "$%s\n"
             "                      or %s)\n"
             "  -m, --munge-socket PATH  munged's socket (default $%s or "
             "libmunge's)\n"
             "      --json          the settings as one JSON object\n"
             "      --tsv           list: one tab-separated line a setting\n"
             "      --man           list: the live settings' headings of\n"
             "                      metasched-config(1)\n\n"
             "VALUE: a number (0.7, 1e3), an integer (2), true/false "
             "(yes/no, on/off),\n"
             "or any other text as a string (siblings, metasched); "
             "\"quoted\" forces a string.\n"
             "Keys:",
             MS_CLIENT_ENV_SERVER, MS_CLIENT_DEFAULT_SERVER,
             MS_CLIENT_ENV_MUNGE);
    rows = settings_table (&n);
    for (size_t i = 0; i < n; i++) {
        char key[80];
        if (!(rows[i].where & MS_SETT_LIVE))
            continue;
        snprintf (key, sizeof (key), "%s%s", rows[i].key,
                  (rows[i].where & MS_SETT_PER_PART) ? ".CLUSTER.PARTITION"
                                                     : "");
        if (col + strlen (key) + 2 > 76) {
            fprintf (f, "\n ");
            col = 1;
        }
        fprintf (f, " %s", key);
        col += strlen (key) + 1;
    }
    fprintf (f, "\n(metasched-config(1)).\n");
}

static const char *const type_names[] = { "number", "integer", "boolean",
                                          "choice", "text" };

/* The man page's heading of a live setting (doc/metasched-config.1,
 * KEYS), made from its row: type, range and default. */
static void
man_heading (const ms_sett_t *r)
{
    char def[64], lo[32], hi[32];
    const char *type = r->type == MS_SETT_INTEGER ? "integer" : "number";
    size_t nch = 0;

    settings_table_format (r, r->def, def, sizeof (def));
    snprintf (lo, sizeof (lo), "%.15g", r->lo);
    snprintf (hi, sizeof (hi), "%.15g", r->hi);
    if (r->where & MS_SETT_PER_PART) {
        printf (".BR %s. \\fICLUSTER\\fB.\\fIPARTITION\\fR \" (%s >= %s)\"\n",
                r->key, type, lo);
        return;
    }
    if (r->type == MS_SETT_BOOL) {
        printf (".BR %s \" (boolean, default %s)\"\n", r->key, def);
        return;
    }
    if (r->type == MS_SETT_TEXT) {
        printf (".BR %s \" (text, default %s)\"\n", r->key, def);
        return;
    }
    if (r->type == MS_SETT_CHOICE) {
        while (r->choices[nch])
            nch++;
        if (nch == 2)
            printf (".BR %s \" (%s or %s, default %s)\"\n", r->key,
                    r->choices[0], r->choices[1], def);
        else
            printf (".BR %s \" (string, default \" %s )\n", r->key, def);
        return;
    }
    if ((r->where & MS_SETT_ZERO_OK) && isinf (r->hi))
        printf (".BR %s \" (0 or a %s >= %s, default %s)\"\n", r->key, type,
                lo, def);
    else if (isinf (r->hi))
        printf (".BR %s \" (%s >= %s, default %s)\"\n", r->key, type, lo,
                def);
    else
        printf (".BR %s \" (%s %s..%s, default %s)\"\n", r->key, type, lo, hi,
                def);
}

/* Every row of the settings table: a table for people, or one
 * tab-separated line each (name, type, default, range, where, key, flag,
 * help; "-" for none) for scripts and the docs' checks. */
static int
list_settings (bool tsv, bool man)
{
    const ms_sett_t *rows;
    size_t n;

    rows = settings_table (&n);
    if (man) {
        for (size_t i = 0; i < n; i++)
            if (rows[i].where & MS_SETT_LIVE)
                man_heading (&rows[i]);
        return 0;
    }
    if (!tsv)
        printf ("%-28s %-10s %-16s %-22s %-26s %s\n", "NAME", "DEFAULT",
                "WHERE", "RANGE", "FLAG", "HELP");
    for (size_t i = 0; i < n; i++) {
        const ms_sett_t *r = &rows[i];
        char def[64], range[300], where[64], flag[64];

        settings_table_format (r, r->def, def, sizeof (def));
        settings_table_range (r, range, sizeof (range));
        settings_table_where (r, where, sizeof (where));
        snprintf (flag, sizeof (flag), "%s%s", r->flag ? "--" : "-",
                  r->flag ? r->flag : "");
        if (tsv)
            printf ("%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r->name,
                    type_names[r->type], def, range, where,
                    r->key ? r->key : "-", flag, r->help);
        else
            printf ("%-28s %-10s %-16s %-22s %-26s %s\n", r->name, def, where,
                    range, flag, r->help);
    }
    return 0;
}

/* KEY names a live setting (a power cap: power_cap_w.CLUSTER.PARTITION)? */
static bool
live_key (const char *key)
{
    const ms_sett_t *r = settings_table_key (key, MS_SETT_LIVE);

    if (!strncmp (key, "power_cap_w.", 12))
        return key[12] != '\0';
    return r && !(r->where & MS_SETT_PER_PART);
}

/* The JSON value of VALUE, by its form: integer, number, boolean, a
 * "quoted" string, else the text as a string. NULL if it is none of them
 * (a quoted string that is not valid JSON). */
static json_t *
typed_value (const char *v)
{
    char *end;
    size_t len = strlen (v);

    if (len
        && (v[0] == '-' || v[0] == '+' || (v[0] >= '0' && v[0] <= '9')
            || v[0] == '.')) {
        long long n;
        double x;
        errno = 0;
        n = strtoll (v, &end, 10);
        if (!*end && !errno)
            return json_integer ((json_int_t)n);
        errno = 0;
        x = strtod (v, &end);
        if (!*end && !errno && isfinite (x))
            return json_real (x);
    }
    if (!strcmp (v, "true") || !strcmp (v, "yes") || !strcmp (v, "on"))
        return json_true ();
    if (!strcmp (v, "false") || !strcmp (v, "no") || !strcmp (v, "off"))
        return json_false ();
    if (len >= 2 && v[0] == '"' && v[len - 1] == '"') {
        json_t *s = json_loadb (v, len, JSON_DECODE_ANY, NULL);
        if (!s || !json_is_string (s)) {
            json_decref (s);
            return NULL;
        }
        return s;
    }
    return json_string (v);
}

/* The settings, one "key = value" a line, keys sorted. */
static void
print_settings (const json_t *o, bool as_json)
{
    if (as_json) {
        char *s = json_dumps (o, JSON_INDENT (2) | JSON_SORT_KEYS
                                     | JSON_REAL_PRECISION (15));
        if (s)
            printf ("%s\n", s);
        free (s);
        return;
    }
    {
        const char **keys;
        size_t n = json_object_size (o), i = 0, w = 0;
        const char *k;
        json_t *v;

        keys = ms_xcalloc (n + 1, sizeof (*keys));
        json_object_foreach ((json_t *)o, k, v) keys[i++] = k;
        /* insertion sort: a dozen keys */
        for (size_t a = 1; a < n; a++)
            for (size_t b = a; b > 0 && strcmp (keys[b - 1], keys[b]) > 0;
                 b--) {
                const char *t = keys[b];
                keys[b] = keys[b - 1];
                keys[b - 1] = t;
            }
        for (i = 0; i < n; i++)
            if (strlen (keys[i]) > w)
                w = strlen (keys[i]);
        for (i = 0; i < n; i++) {
            char *s;
            v = json_object_get (o, keys[i]);
            if (json_is_string (v)) {
                printf ("%-*s = %s\n", (int)w, keys[i], json_string_value (v));
                continue;
            }
            s = json_dumps (v, JSON_ENCODE_ANY | JSON_COMPACT
                                   | JSON_REAL_PRECISION (15));
            printf ("%-*s = %s\n", (int)w, keys[i], s ? s : "?");
            free (s);
        }
        free (keys);
    }
}

/* get's keys as a JSON array; NULL (told) if one is no setting. */
static json_t *
get_keys (int argc, char **argv, int optind_)
{
    json_t *want = json_array ();

    for (int i = optind_; i < argc; i++) {
        if (!live_key (argv[i])) {
            fprintf (stderr,
                     "metasched config get: unknown setting '%s' "
                     "(metasched config list)\n",
                     argv[i]);
            json_decref (want);
            return NULL;
        }
        json_array_append_new (want, json_string (argv[i]));
    }
    return want;
}

/* set's KEY=VALUE arguments as the JSON body; NULL (told) if one is bad. */
static json_t *
set_body (int argc, char **argv, int optind_)
{
    json_t *body = json_object ();

    for (int i = optind_; i < argc; i++) {
        const char *eq = strchr (argv[i], '=');
        char key[130];
        json_t *v;

        if (!eq || eq == argv[i]
            || (size_t)(eq - argv[i]) >= sizeof (key)) {
            fprintf (stderr,
                     "metasched config set: '%s': expected "
                     "KEY=VALUE\n",
                     argv[i]);
            json_decref (body);
            return NULL;
        }
        memcpy (key, argv[i], (size_t)(eq - argv[i]));
        key[eq - argv[i]] = '\0';
        if (json_object_get (body, key)) {
            fprintf (stderr, "metasched config set: '%s' given twice\n",
                     key);
            json_decref (body);
            return NULL;
        }
        if (!(v = typed_value (eq + 1))) {
            fprintf (stderr,
                     "metasched config set: %s: '%s' is not a "
                     "valid quoted string\n",
                     key, eq + 1);
            json_decref (body);
            return NULL;
        }
        json_object_set_new (body, key, v);
    }
    return body;
}

int
cmd_config (int argc, char **argv)
{
    enum { OPT_JSON = 256, OPT_TSV, OPT_MAN };
    static const struct option longopts[] = {
        { "server", required_argument, NULL, 's' },
        { "munge-socket", required_argument, NULL, 'm' },
        { "json", no_argument, NULL, OPT_JSON },
        { "tsv", no_argument, NULL, OPT_TSV },
        { "man", no_argument, NULL, OPT_MAN },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    cmdopt_daemon_t d = { NULL, NULL };
    const char *sub = "show";
    bool as_json = false, tsv = false, man = false;
    json_t *want = NULL;
    json_t *body = NULL, *reply = NULL;
    ms_client_t *c;
    ms_error_t e;
    long status = 0;
    int opt, rc;

    optind = 1;
    while ((opt = getopt_long (argc, argv, "s:m:h", longopts, NULL)) != -1) {
        switch (opt) {
        case 's':
        case 'm':
            cmdopt_daemon_set (&d, opt, optarg);
            break;
        case OPT_JSON:
            as_json = true;
            break;
        case OPT_TSV:
            tsv = true;
            break;
        case OPT_MAN:
            man = true;
            break;
        case 'h':
        default:
            return cmdopt_usage (opt, usage);
        }
    }
    if (optind < argc)
        sub = argv[optind++];
    if (!strcmp (sub, "list")) {
        if (optind < argc) {
            fprintf (stderr,
                     "metasched config list: unexpected argument '%s'\n",
                     argv[optind]);
            return 2;
        }
        return list_settings (tsv, man);
    }
    if (!strcmp (sub, "get")) {
        if (optind >= argc) {
            fprintf (stderr, "metasched config get: give at least one KEY\n");
            return 2;
        }
        if (!(want = get_keys (argc, argv, optind)))
            return 2;
    } else if (!strcmp (sub, "show")) {
        if (optind < argc) {
            fprintf (stderr,
                     "metasched config show: unexpected argument "
                     "'%s'\n",
                     argv[optind]);
            return 2;
        }
    } else if (!strcmp (sub, "set")) {
        if (optind >= argc) {
            fprintf (stderr, "metasched config set: give at least one "
                             "KEY=VALUE\n");
            return 2;
        }
        if (!(body = set_body (argc, argv, optind)))
            return 2;
    } else {
        fprintf (stderr,
                 "metasched config: unknown command '%s' (show, "
                 "get, set, list)\n",
                 sub);
        usage (stderr);
        return 2;
    }

    if (cmdopt_daemon_open (&d, &c, &e) < 0) {
        fprintf (stderr, "metasched config: %s\n", e.text);
        json_decref (body);
        json_decref (want);
        return 1;
    }
    rc = ms_client_call (c, body ? "PUT" : "GET", "/v1/settings", body, &status,
                         &reply, &e);
    if (rc < 0) {
        if (e.kind == MS_ERR_HTTP && e.http_status == 403)
            fprintf (stderr,
                     "metasched config: %s; the admins are named in "
                     "metaschedd.conf ('admins =')\n",
                     e.text);
        else if (e.kind == MS_ERR_HTTP && body)
            fprintf (stderr, "metasched config: %s; nothing was changed\n",
                     e.text);
        else
            fprintf (stderr, "metasched config: %s\n", e.text);
    } else if (!json_is_object (reply)) {
        fprintf (stderr,
                 "metasched config: %s answered with something other "
                 "than the settings object\n",
                 ms_client_address (c));
        rc = -1;
    } else if (want) {
        json_t *some = json_object (), *k;
        size_t i;
        json_array_foreach (want, i, k)
        {
            json_t *v = json_object_get (reply, json_string_value (k));
            json_object_set (some, json_string_value (k),
                             v ? v : json_null ());
        }
        print_settings (some, as_json);
        json_decref (some);
    } else
        print_settings (reply, as_json);
    json_decref (want);
    json_decref (reply);
    json_decref (body);
    ms_client_close (c);
    return rc < 0 ? 1 : 0;
}
