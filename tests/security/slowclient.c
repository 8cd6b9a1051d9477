/* slowclient.c - the hostile HTTP clients of the API's security tests
 * (tests/security/test_trickle_clients.sh, test_body_before_auth.sh,
 * test_request_deadline.sh, test_address_limit.sh), on metaschedd's unix
 * socket, or its TCP port on 127.0.0.1 where SOCKET is "tcp:PORT".
 *
 *   slowclient trickle SOCKET N SECONDS EVERY_S
 *       opens N connections, sends each the start of a request's headers,
 *       then one more byte every EVERY_S seconds for SECONDS seconds,
 *       never finishing; prints what the server did with them: "opened=..
 *       refused429=.. timeout408=.. closed=.. open=.. unconnected=.."
 *       (closed: without an answer; open: still open at the end;
 *       unconnected: the connect itself did not go through)
 *   slowclient upload SOCKET TARGET BYTES chunked|length [CREDENTIAL]
 *       POSTs a body of BYTES spaces, chunked or with a Content-Length,
 *       as fast as the server takes it, and stops sending once the answer
 *       arrives or the server closes; prints "status=.. sent=.. total=.."
 *       (sent: body bytes written before the answer or the close).
 *   slowclient head SOCKET SECONDS EVERY_S
 *       one connection that trickles a request's headers; prints
 *       "status=.. after=.." (seconds until the server answered or closed;
 *       status 0: closed without an answer, -1: still open after SECONDS)
 *       and "answer=" the answer's body.
 *   slowclient body SOCKET SECONDS EVERY_S CREDENTIAL
 *       the same with whole headers (POST /v1/jobs, Content-Length 4096,
 *       the credential) and a body trickled a byte at a time.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define HEAD_START "GET /v1/jobs HTTP/1.1\r\nHost: localhost\r\nX-Slow: "

static double
now (void)
{
    struct timespec ts;

    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void
die (const char *what)
{
    fprintf (stderr, "slowclient: %s: %s\n", what, strerror (errno));
    exit (2);
}

/* A connected non-blocking socket to 127.0.0.1:port, or -1. */
static int
dial_tcp (int port)
{
    struct sockaddr_in sa = { .sin_family = AF_INET };
    struct timeval tv = { 2, 0 };
    int fd, fl;

    sa.sin_port = htons ((unsigned short)port);
    sa.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
    if ((fd = socket (AF_INET, SOCK_STREAM, 0)) < 0)
        die ("socket");
    setsockopt (fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof (tv));
    if (connect (fd, (struct sockaddr *)&sa, sizeof (sa)) < 0) {
        close (fd);
        return -1;
    }
    fl = fcntl (fd, F_GETFL);
    fcntl (fd, F_SETFL, fl | O_NONBLOCK);
    return fd;
}

/* A connected non-blocking socket, or -1 (the server's backlog full).
 * path "tcp:PORT": 127.0.0.1:PORT. */
static int
dial (const char *path)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    int fd;

    if (!strncmp (path, "tcp:", 4))
        return dial_tcp (atoi (path + 4));
    if (strlen (path) >= sizeof (sa.sun_path)) {
        fprintf (stderr, "slowclient: %s: path too long\n", path);
        exit (2);
    }
    memcpy (sa.sun_path, path, strlen (path) + 1);
    if ((fd = socket (AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0)) < 0)
        die ("socket");
    if (connect (fd, (struct sockaddr *)&sa, sizeof (sa)) < 0) {
        if (errno != EAGAIN && errno != EINPROGRESS) {
            fprintf (stderr, "slowclient: connect %s: %s\n", path,
                     strerror (errno));
            exit (2);
        }
        close (fd);
        return -1;
    }
    return fd;
}

/* The status of an answer's first bytes ("HTTP/1.1 429 ..."), 0 if none. */
static int
status_of (const char *buf)
{
    int st = 0;

    if (sscanf (buf, "HTTP/1.%*d %d", &st) != 1)
        return 0;
    return st;
}

static char last_body[1024]; /* the body of the last answer read */

/* Read what the server sent on fd (non-blocking): 1 with *status once it
 * answered or closed (status 0: closed without an answer), 0 if not yet. */
static int
read_answer (int fd, int *status)
{
    char buf[4096];
    ssize_t n = recv (fd, buf, sizeof (buf) - 1, MSG_DONTWAIT);

    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        return 0;
    if (n <= 0) {
        *status = 0;
        return 1;
    }
    buf[n] = '\0';
    *status = status_of (buf);
    last_body[0] = '\0';
    if (strstr (buf, "\r\n\r\n"))
        snprintf (last_body, sizeof (last_body), "%s",
                  strstr (buf, "\r\n\r\n") + 4);
    return 1;
}

static void
raise_fd_limit (void)
{
    struct rlimit rl;

    if (getrlimit (RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit (RLIMIT_NOFILE, &rl);
    }
}

static int
trickle (const char *path, int n, double seconds, double every)
{
    int *fds = calloc ((size_t)n, sizeof (int));
    int opened = 0, r429 = 0, r408 = 0, closed = 0, open_ = 0, unconn = 0;
    int i, st;
    double end, next;

    if (!fds)
        die ("calloc");
    raise_fd_limit ();
    /* the server's backlog may be full a moment: retry for 10 s in all */
    end = now () + 10;
    for (i = 0; i < n; i++) {
        while ((fds[i] = dial (path)) < 0 && now () < end)
            usleep (10 * 1000);
        if (fds[i] < 0) {
            unconn++;
            continue;
        }
        opened++;
        /* refused at once, the server may have closed before this: its
         * answer is read below all the same */
        (void)!send (fds[i], HEAD_START, strlen (HEAD_START), MSG_NOSIGNAL);
    }
    end = now () + seconds;
    next = now () + every;
    while (now () < end) {
        for (i = 0; i < n; i++) {
            if (fds[i] < 0 || !read_answer (fds[i], &st))
                continue;
            if (st == 429)
                r429++;
            else if (st == 408)
                r408++;
            else
                closed++;
            close (fds[i]);
            fds[i] = -1;
        }
        if (now () >= next) {
            for (i = 0; i < n; i++)
                if (fds[i] >= 0)
                    (void)!send (fds[i], "a", 1, MSG_NOSIGNAL | MSG_DONTWAIT);
            next += every;
        }
        usleep (100 * 1000);
    }
    for (i = 0; i < n; i++)
        if (fds[i] >= 0) {
            open_++;
            close (fds[i]);
        }
    printf ("opened=%d refused429=%d timeout408=%d closed=%d open=%d "
            "unconnected=%d\n",
            opened, r429, r408, closed, open_, unconn);
    free (fds);
    return 0;
}

static int
upload (const char *path, const char *target, long long total, int chunked,
        const char *cred)
{
    static char block[16384];
    char head[8192], frame[32];
    long long sent = 0;
    int fd = -1, st = -1, n, i;
    struct pollfd p;
    double give_up;

    for (i = 0; i < 50 && (fd = dial (path)) < 0; i++)
        usleep (100 * 1000);
    if (fd < 0)
        die ("connect (backlog full)");
    memset (block, ' ', sizeof (block));
    if (chunked)
        n = snprintf (head, sizeof (head),
                      "POST %s HTTP/1.1\r\nHost: localhost\r\n"
                      "Content-Type: application/json\r\n%s%s%s"
                      "Transfer-Encoding: chunked\r\n\r\n",
                      target, cred ? "Authorization: MUNGE " : "",
                      cred ? cred : "", cred ? "\r\n" : "");
    else
        n = snprintf (head, sizeof (head),
                      "POST %s HTTP/1.1\r\nHost: localhost\r\n"
                      "Content-Type: application/json\r\n%s%s%s"
                      "Content-Length: %lld\r\n\r\n",
                      target, cred ? "Authorization: MUNGE " : "",
                      cred ? cred : "", cred ? "\r\n" : "", total);
    if (n < 0 || (size_t)n >= sizeof (head)) {
        fprintf (stderr, "slowclient: headers too long\n");
        return 2;
    }
    if (send (fd, head, (size_t)n, MSG_NOSIGNAL) != n)
        die ("send headers");
    /* the body, until the answer comes or the server stops reading */
    while (sent < total) {
        size_t len = total - sent < (long long)sizeof (block)
                         ? (size_t)(total - sent)
                         : sizeof (block);
        ssize_t w;
        p.fd = fd;
        p.events = POLLIN | POLLOUT;
        if (poll (&p, 1, 10000) <= 0)
            break; /* the server neither reads nor answers */
        if (p.revents & (POLLIN | POLLHUP | POLLERR))
            break;
        if (chunked) {
            int fl = snprintf (frame, sizeof (frame), "%zx\r\n", len);
            if (send (fd, frame, (size_t)fl, MSG_NOSIGNAL) != fl)
                break;
        }
        w = send (fd, block, len, MSG_NOSIGNAL);
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            continue;
        if (w <= 0)
            break;
        if (chunked && (size_t)w < len) {
            /* finish this chunk's frame before anything else */
            size_t left = len - (size_t)w;
            sent += w;
            while (left > 0) {
                p.events = POLLOUT;
                if (poll (&p, 1, 10000) <= 0)
                    goto answer;
                w = send (fd, block, left, MSG_NOSIGNAL);
                if (w < 0 && errno == EAGAIN)
                    continue;
                if (w <= 0)
                    goto answer;
                left -= (size_t)w;
                sent += w;
            }
        } else
            sent += w;
        if (chunked)
            (void)!send (fd, "\r\n", 2, MSG_NOSIGNAL);
    }
    if (chunked && sent >= total)
        (void)!send (fd, "0\r\n\r\n", 5, MSG_NOSIGNAL);
answer:
    give_up = now () + 30;
    while (now () < give_up) {
        p.fd = fd;
        p.events = POLLIN;
        if (poll (&p, 1, 1000) > 0 && read_answer (fd, &st))
            break;
    }
    printf ("status=%d sent=%lld total=%lld\n", st, sent, total);
    close (fd);
    return 0;
}

static int
head (const char *path, double seconds, double every, const char *cred)
{
    double t0 = now (), next = t0 + every;
    int fd = -1, st = -1, i, n;
    char start[4096];

    for (i = 0; i < 50 && (fd = dial (path)) < 0; i++)
        usleep (100 * 1000);
    if (fd < 0)
        die ("connect (backlog full)");
    if (cred)
        n = snprintf (start, sizeof (start),
                      "POST /v1/jobs HTTP/1.1\r\nHost: localhost\r\n"
                      "Content-Type: application/json\r\n"
                      "Authorization: MUNGE %s\r\n"
                      "Content-Length: 4096\r\n\r\n{",
                      cred);
    else
        n = snprintf (start, sizeof (start), "%s", HEAD_START);
    if (n < 0 || (size_t)n >= sizeof (start))
        die ("credential too long");
    if (send (fd, start, (size_t)n, MSG_NOSIGNAL) < 0)
        die ("send");
    while (now () - t0 < seconds) {
        if (read_answer (fd, &st)) {
            printf ("status=%d after=%.1f answer=%s\n", st, now () - t0,
                    last_body);
            close (fd);
            return 0;
        }
        if (now () >= next) {
            (void)!send (fd, cred ? " " : "a", 1, MSG_NOSIGNAL | MSG_DONTWAIT);
            next += every;
        }
        usleep (50 * 1000);
    }
    printf ("status=-1 after=%.1f\n", now () - t0);
    close (fd);
    return 0;
}

int
main (int argc, char **argv)
{
    signal (SIGPIPE, SIG_IGN);
    if (argc == 6 && !strcmp (argv[1], "trickle"))
        return trickle (argv[2], atoi (argv[3]), atof (argv[4]),
                        atof (argv[5]));
    if ((argc == 6 || argc == 7) && !strcmp (argv[1], "upload"))
        return upload (argv[2], argv[3], atoll (argv[4]),
                       !strcmp (argv[5], "chunked"),
                       argc == 7 ? argv[6] : NULL);
    if (argc == 5 && !strcmp (argv[1], "head"))
        return head (argv[2], atof (argv[3]), atof (argv[4]), NULL);
    if (argc == 6 && !strcmp (argv[1], "body"))
        return head (argv[2], atof (argv[3]), atof (argv[4]), argv[5]);
    fprintf (stderr,
             "usage: slowclient trickle SOCKET N SECONDS EVERY_S\n"
             "       slowclient upload SOCKET TARGET BYTES chunked|length "
             "[CREDENTIAL]\n"
             "       slowclient head SOCKET SECONDS EVERY_S\n"
             "       slowclient body SOCKET SECONDS EVERY_S CREDENTIAL\n");
    return 2;
}
