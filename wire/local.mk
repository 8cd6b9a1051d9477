# wire/local.mk: metaschedd's API on the wire, below the API server, the
# user commands and the collectors that all use it (see wire/README): the
# MUNGE credential bound to a request (auth.c, both ends), the body's
# SHA-256 in hex (sha256.c) and the HTTP client (client.c on libcurl), as
# wire/libmswire.a. Link it before metasched/libmscommon.a, with
# $(CURL_LIBS) $(JANSSON_LIBS) $(MUNGE_LIBS) $(CRYPTO_LIBS).
noinst_LIBRARIES += wire/libmswire.a
wire_libmswire_a_SOURCES = \
	wire/auth.c wire/auth.h \
	wire/sha256.c wire/sha256.h \
	wire/client.c wire/client.h
wire_libmswire_a_CFLAGS = $(AM_CFLAGS) $(CURL_CFLAGS) $(JANSSON_CFLAGS) \
	$(MUNGE_CFLAGS) $(CRYPTO_CFLAGS)

EXTRA_DIST += wire/README
