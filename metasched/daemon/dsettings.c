/* dsettings.c - the admin's settings (metasched/api/settings.h, kept in
 * PostgreSQL) read into the daemon's policy and site: each cycle, and
 * again once the cycle has read its first queued jobs.
 */
#include "config.h"

#include "metasched/daemon/daemon_int.h"

void
daemon_load_settings (ms_daemon_t *d)
{
    ms_settings_t s;
    char ignored[512] = "";
    ms_error_t e;

    settings_init (&s);
    if (settings_load (d->db, &s, ignored, sizeof (ignored), &e) < 0) {
        daemon_log (LOG_WARNING, "settings: %s (keeping the last ones)",
                    e.text);
        return;
    }
    pthread_mutex_lock (&d->ds.mu);
    daemon_apply_settings (d, &s);
    pthread_mutex_unlock (&d->ds.mu);
}

void
daemon_apply_settings (ms_daemon_t *d, const ms_settings_t *s)
{
    d->ds.set = *s;
    settings_apply_policy (s, &d->ds.pol);
    daemon_carbon_update (d); /* pol.carbon: the fresh zones' signals */
    jobmix_apply (&d->ds.mix, d->site, &d->ds.pol);
    settings_apply_site (s, d->site, NULL);
    daemon_power_settings (d, s);
    engine_dispatch_mode (&d->ds.pol, s->dispatch_mode == DISPATCH_SIBLINGS,
                          s->siblings);
}
