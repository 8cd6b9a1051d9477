/* fuzz_client.c - arbitrary bytes as an answer of metaschedd to the API
 * client (ms_client_answer, ms_client_answer_raw), then through the
 * formatting the user commands apply to an answer's values (clifmt.h), and
 * as a server address (ms_client_parse_addr).
 *
 * The first two bytes choose the HTTP status (100 to 599), the rest is the
 * body as received. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "metasched/cli/clifmt.h"
#include "wire/client.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static void
show (const json_t *v, int depth)
{
    char out[64];
    const char *key;
    json_t *e;
    size_t i;

    if (depth > 8)
        return;
    clifmt_duration (v, out, sizeof (out));
    clifmt_energy (v, out, sizeof (out));
    clifmt_freq (v, out, sizeof (out));
    clifmt_text (v, out, sizeof (out));
    clifmt_text (v, out, 1);
    if (json_is_object (v)) {
        json_object_foreach ((json_t *)v, key, e)
            show (e, depth + 1);
    } else if (json_is_array (v)) {
        json_array_foreach (v, i, e)
            show (e, depth + 1);
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    ms_client_addr_t addr;
    ms_error_t err;
    json_t *reply = NULL;
    long status;
    char *text;

    if (size < 2)
        return 0;
    status = 100 + (long)(((unsigned)data[0] << 8 | data[1]) % 500);
    (void)ms_client_answer ("unix:/fuzz.sock", "GET", "/v1/jobs", status,
                            (const char *)data + 2, size - 2, &reply, &err);
    if (reply)
        show (reply, 0);
    json_decref (reply);
    (void)ms_client_answer_raw ("unix:/fuzz.sock", "GET", "/metrics", status,
                                (const char *)data + 2, size - 2, &err);
    text = malloc (size - 1);
    memcpy (text, data + 2, size - 2);
    text[size - 2] = '\0';
    (void)ms_client_parse_addr (text, &addr, &err);
    free (text);
    return 0;
}
