/* cmd_config.c - `metasched config`: show and change metaschedd's
 * scheduling settings through its API (doc/metasched-config.1).
 *
 *   metasched config [show]              GET /v1/settings
 *   metasched config set KEY=VALUE ...   PUT /v1/settings, all or nothing
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
#include "metasched/admin/commands.h"
#include "metasched/common/util.h"

static void
usage (FILE *f)
{
    fprintf (f,
             "Usage: metasched config [OPTIONS] [show]\n"
             "       metasched config [OPTIONS] set KEY=VALUE...\n"
             "Show metaschedd's scheduling settings, or change them (admins; "
             "all or nothing).\n\n"
             "  -s, --server ADDR   unix:/path or http://host:port (default "
             "$%s\n"
             "                      or %s)\n"
             "  -m, --munge-socket PATH  munged's socket (default $%s or "
             "libmunge's)\n"
             "      --json          the settings as one JSON object\n\n"
             "VALUE: a number (0.7, 1e3), an integer (2), true/false "
             "(yes/no, on/off),\n"
             "or any other text as a string (siblings, metasched); "
             "\"quoted\" forces a string.\n"
             "Keys: policy, w_energy, max_slowdown, "
             "power_cap_w.CLUSTER.PARTITION,\n"
             "dispatch_mode, siblings, sibling_hold, pref_margin, first_age,\n"
             "drain_weight, wait_share, sibling_ahead, stake_margin, cal_lean,\n"
             "cal_lean_idle, exploration, "
             "reroute_after_s, max_reroutes,\n"
             "priority_boost, refit_interval_s (metasched-config(1)).\n",
             MS_CLIENT_ENV_SERVER, MS_CLIENT_DEFAULT_SERVER,
             MS_CLIENT_ENV_MUNGE);
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

int
cmd_config (int argc, char **argv)
{
    enum { OPT_JSON = 256 };
    static const struct option longopts[] = {
        { "server", required_argument, NULL, 's' },
        { "munge-socket", required_argument, NULL, 'm' },
        { "json", no_argument, NULL, OPT_JSON },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *server = NULL, *munge = NULL, *sub = "show";
    bool as_json = false;
    json_t *body = NULL, *reply = NULL;
    ms_client_t *c;
    ms_error_t e;
    long status = 0;
    int opt, rc;

    optind = 1;
    while ((opt = getopt_long (argc, argv, "s:m:h", longopts, NULL)) != -1) {
        switch (opt) {
        case 's':
            server = optarg;
            break;
        case 'm':
            munge = optarg;
            break;
        case OPT_JSON:
            as_json = true;
            break;
        case 'h':
            usage (stdout);
            return 0;
        default:
            usage (stderr);
            return 2;
        }
    }
    if (optind < argc)
        sub = argv[optind++];
    if (!strcmp (sub, "show")) {
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
        body = json_object ();
        for (int i = optind; i < argc; i++) {
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
                return 2;
            }
            memcpy (key, argv[i], (size_t)(eq - argv[i]));
            key[eq - argv[i]] = '\0';
            if (json_object_get (body, key)) {
                fprintf (stderr, "metasched config set: '%s' given twice\n",
                         key);
                json_decref (body);
                return 2;
            }
            if (!(v = typed_value (eq + 1))) {
                fprintf (stderr,
                         "metasched config set: %s: '%s' is not a "
                         "valid quoted string\n",
                         key, eq + 1);
                json_decref (body);
                return 2;
            }
            json_object_set_new (body, key, v);
        }
    } else {
        fprintf (stderr,
                 "metasched config: unknown command '%s' (show, "
                 "set)\n",
                 sub);
        usage (stderr);
        return 2;
    }

    if (ms_client_open (server, &c, &e) < 0
        || (munge && ms_client_set_munge_socket (c, munge, &e) < 0)) {
        fprintf (stderr, "metasched config: %s\n", e.text);
        json_decref (body);
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
    } else
        print_settings (reply, as_json);
    json_decref (reply);
    json_decref (body);
    ms_client_close (c);
    return rc < 0 ? 1 : 0;
}
