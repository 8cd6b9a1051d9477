/* api_admin.c - the API's admin endpoints (doc/api.md): GET and PUT
 * /v1/settings, POST /v1/admin/jobs/ID/resolve.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metasched/api/api_int.h"
#include "metasched/api/resolve.h"
#include "metasched/api/settings.h"

/* POST /v1/admin/jobs/ID/resolve: an unknown job to completed, failed or
 * cancelled, by an admin (403 for others, 409 for a job not unknown); the
 * audit row is written with it (db_jobs_resolve). */
enum MHD_Result
api_do_resolve (ms_api_t *api, struct MHD_Connection *c, const req_t *rq,
                int64_t id, const caller_t *who)
{
    resolve_req_t r;
    ms_error_t e = { 0 };
    char field[64], state[16] = "";
    int rc;

    if (!who->admin)
        return api_send_error (c, 403, "only admins resolve jobs", NULL, NULL);
    if (resolve_parse (rq->body, rq->len, &r, field, sizeof (field), &e) < 0)
        return api_send_err (c, &e, field[0] ? field : NULL);
    if (api_db_acquire (api, &e) < 0)
        return api_send_err (c, &e, NULL);
    rc = db_jobs_resolve (api->db, id, r.state, r.exit_code, who->user,
                          r.reason, state, &e);
    api_db_release (api);
    if (rc < 0)
        return api_send_err (c, &e, NULL);
    if (api->hooks.kick)
        api->hooks.kick (api->ctx);
    return api_send_json (
        c, 200,
        json_pack ("{s:I, s:s, s:o, s:s}", "id", (json_int_t)id, "state",
                   r.state, "exit_code",
                   r.exit_code >= 0 ? json_integer (r.exit_code) : json_null (),
                   "resolved_by", who->user));
}

enum MHD_Result
api_do_settings (ms_api_t *api, struct MHD_Connection *c, const char *method,
                 const req_t *rq, const caller_t *who)
{
    ms_settings_t *s = malloc (sizeof (*s));
    ms_error_t e = { 0 };
    char badkey[80];
    json_t *body = NULL, *out;
    json_error_t je;
    int rc;

    if (!s)
        return api_send_error (c, 500, "out of memory", NULL, NULL);
    if (!strcmp (method, "PUT")) {
        if (!who->admin) {
            free (s);
            return api_send_error (c, 403, "only admins change settings", NULL,
                                   NULL);
        }
        body = json_loadb (rq->body ? rq->body : "", rq->len,
                           JSON_REJECT_DUPLICATES, &je);
        if (!body) {
            char msg[300];
            free (s);
            snprintf (msg, sizeof (msg), "malformed JSON: %s", je.text);
            return api_send_error (c, 400, msg, NULL, NULL);
        }
    }
    if (api_db_acquire (api, &e) < 0) {
        free (s);
        json_decref (body);
        return api_send_err (c, &e, NULL);
    }
    rc = settings_load (api->db, s, NULL, 0, &e);
    if (rc == 0 && body) {
        rc = settings_update (s, body, badkey, sizeof (badkey), &e);
        if (rc == 0 && json_object_get (body, "power_budget")
            && s->power_budget[0] && api->hooks.check_power
            && api->hooks.check_power (api->ctx, s->power_budget, &e) < 0) {
            snprintf (badkey, sizeof (badkey), "power_budget");
            e.http_status = 400;
            rc = -1;
        }
        if (rc < 0) {
            api_db_release (api);
            json_decref (body);
            free (s);
            return api_send_err (c, &e, badkey);
        }
        rc = settings_save (api->db, body, who->user, &e);
    }
    api_db_release (api);
    json_decref (body);
    if (rc < 0) {
        free (s);
        return api_send_err (c, &e, NULL);
    }
    out = settings_to_json (s);
    free (s);
    if (!strcmp (method, "PUT") && api->hooks.kick)
        api->hooks.kick (api->ctx);
    return api_send_json (c, 200, out);
}
