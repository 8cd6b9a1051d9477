# tests/security/tag.mk: see tests/security/local.mk
# a forged tag: another user's direct submission claims a meta job
TESTS += tests/security/test_forged_tag.sh
EXTRA_DIST += tests/security/test_forged_tag.sh
# forging the tag itself: MACs, malformed tags, the key file
check_PROGRAMS += tests/security/test_tag_mac
tests_security_test_tag_mac_SOURCES = tests/security/test_tag_mac.c \
	tests/testutil.h
tests_security_test_tag_mac_CFLAGS = $(TEST_CFLAGS) $(CRYPTO_CFLAGS)
tests_security_test_tag_mac_LDADD = metasched/libmsdaemon.a $(TEST_LIBS) \
	$(CRYPTO_LIBS)
TESTS += tests/security/test_tag_mac
# the tag's parser on arbitrary comments (run by tests/fuzz/run-fuzz.sh)
check_PROGRAMS += tests/fuzz/fuzz_tag
tests_fuzz_fuzz_tag_SOURCES = tests/fuzz/fuzz_tag.c $(FUZZ_STANDALONE)
tests_fuzz_fuzz_tag_CFLAGS = $(TEST_CFLAGS) $(CRYPTO_CFLAGS)
tests_fuzz_fuzz_tag_LDADD = metasched/libmsdaemon.a $(TEST_LIBS) $(CRYPTO_LIBS)
if FUZZING
noinst_PROGRAMS += tests/fuzz/libfuzzer_tag
tests_fuzz_libfuzzer_tag_SOURCES = tests/fuzz/fuzz_tag.c
tests_fuzz_libfuzzer_tag_CFLAGS = $(TEST_CFLAGS) $(CRYPTO_CFLAGS) -fsanitize=fuzzer
tests_fuzz_libfuzzer_tag_LDFLAGS = -fsanitize=fuzzer
tests_fuzz_libfuzzer_tag_LDADD = metasched/libmsdaemon.a $(TEST_LIBS) $(CRYPTO_LIBS)
endif
