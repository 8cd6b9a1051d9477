/* roles_apireq.c - one signed request to metaschedd's API over its unix
 * socket, as the user running it; prints the HTTP status, a tab and the
 * body exactly as received (the security tests compare answers byte for
 * byte, which the client library does not hand back for an error).
 *
 * usage: roles_apireq SOCKET METHOD TARGET [BODY]
 *   the credential from METASCHED_MUNGE_SOCKET's munged (default socket
 *   when unset).
 * Exit: 0 when an answer came (whatever its status), 1 otherwise.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "wire/auth.h"
#include "metasched/common/util.h"

int
main (int argc, char **argv)
{
    const char *munge = getenv ("METASCHED_MUNGE_SOCKET");
    const char *method, *target, *body;
    size_t len;
    ms_error_t e = { 0 };
    ms_buf_t ans = { .max = 4 << 20 };
    struct curl_slist *h = NULL;
    char *cred = NULL, *hdr, url[1024];
    long status = 0;
    CURL *curl;
    CURLcode rc;

    if (argc < 4 || argc > 5) {
        fprintf (stderr, "usage: roles_apireq SOCKET METHOD TARGET [BODY]\n");
        return 2;
    }
    method = argv[2];
    target = argv[3];
    body = argc == 5 ? argv[4] : NULL;
    len = body ? strlen (body) : 0;
    if (ms_auth_encode (munge && *munge ? munge : NULL, method, target, body,
                        len, &cred, &e)
        < 0) {
        fprintf (stderr, "roles_apireq: %s\n", e.text);
        return 1;
    }
    hdr = ms_xmalloc (strlen (cred) + 64);
    sprintf (hdr, "Authorization: %s %s", MS_AUTH_SCHEME, cred);
    h = curl_slist_append (h, hdr);
    if (body)
        h = curl_slist_append (h, "Content-Type: application/json");
    snprintf (url, sizeof (url), "http://localhost%s", target);
    curl_global_init (CURL_GLOBAL_DEFAULT);
    curl = curl_easy_init ();
    curl_easy_setopt (curl, CURLOPT_URL, url);
    curl_easy_setopt (curl, CURLOPT_UNIX_SOCKET_PATH, argv[1]);
    curl_easy_setopt (curl, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt (curl, CURLOPT_CUSTOMREQUEST, method);
    if (body) {
        curl_easy_setopt (curl, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt (curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
    }
    curl_easy_setopt (curl, CURLOPT_WRITEFUNCTION, ms_buf_write);
    curl_easy_setopt (curl, CURLOPT_WRITEDATA, &ans);
    curl_easy_setopt (curl, CURLOPT_TIMEOUT, 30L);
    rc = curl_easy_perform (curl);
    if (rc == CURLE_OK)
        curl_easy_getinfo (curl, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_cleanup (curl);
    curl_slist_free_all (h);
    free (hdr);
    free (cred);
    if (rc != CURLE_OK) {
        fprintf (stderr, "roles_apireq: %s\n", curl_easy_strerror (rc));
        free (ans.data);
        return 1;
    }
    printf ("%ld\t%.*s\n", status, (int)ans.len, ans.data ? ans.data : "");
    free (ans.data);
    return 0;
}
