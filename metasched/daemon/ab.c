/* ab.c - the A/B baseline group (doc/daemon.md "The A/B baseline"): a
 * share ab_share of the new jobs is routed by the baseline ab_policy
 * instead of the policy, so that `metasched report --ab` can compare what
 * the two groups measured.
 *
 * A job's group is drawn from its meta job id by HMAC-SHA256 keyed with
 * the site's tag key (tag.h): the same job always falls in the same
 * group (a re-decision, a standby taking over), and without the key no
 * user can tell or steer which group a job will fall in, whatever its
 * name, script or submission time: the id is the database's, and the
 * draw of one id says nothing of the next.
 */
#include "config.h"

#include <inttypes.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "metasched/daemon/daemon_int.h"

double
ab_draw (const tag_key_t *key, int64_t id)
{
    char msg[64];
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    uint64_t x = 0;
    int n = snprintf (msg, sizeof (msg), "metasched ab 1\n%" PRId64, id);

    if (n < 0
        || !HMAC (EVP_sha256 (), key->k, (int)key->len, (unsigned char *)msg,
                  (size_t)n, md, &mdlen)
        || mdlen < 8)
        return 1.0; /* never the baseline */
    for (int i = 0; i < 8; i++)
        x = x << 8 | md[i];
    OPENSSL_cleanse (md, sizeof (md));
    /* the top 53 bits: uniform in [0, 1) */
    return (double)(x >> 11) / 9007199254740992.0;
}

const char *
ab_group (const ms_daemon_t *d, int64_t id)
{
    if (d->ds.set.ab_share <= 0)
        return NULL;
    return ab_draw (&d->tag_key, id) < d->ds.set.ab_share ? AB_BASELINE
                                                          : AB_METASCHED;
}

void
ab_decide (ms_daemon_t *d, ms_decision_t *dec)
{
    memset (dec, 0, sizeof (*dec));
    if (d->ds.set.ab_policy == POL_HOME) {
        /* The job's own home, not d->ds.cs.home (the partition its
         * predictions are scaled from): the partition the user named, the
         * only one among the candidates then, else the first of
         * clusters.conf that fits it. */
        policy_home_choice (d->site, &d->ds.cs, SIZE_MAX, dec);
        return;
    }
    ms_policy_t pol;
    settings_table_policy (&pol, (ms_polkind_t)d->ds.set.ab_policy);
    policy_decide (&pol, d->site, &d->ds.cs, d->ds.view, dec);
    /* one entry, which no sibling takes elsewhere: nice 0, unheld */
    pol.entries = 1;
    engine_entries (&pol, false, dec, dec);
}
