# tests/cppcheck/cppcheck.mk: `make cppcheck`, cppcheck's warning and
# portability checks over the product's C sources (every program and
# library; not tests/ nor bench/), with the build's include paths and
# config.h. jansson's iteration macros come from tests/cppcheck/jansson.cfg
# (cppcheck does not read the system's headers). Findings fail the target;
# doc/fuzzing.md lists what was found and how each was settled, and
# tests/cppcheck/suppressions.txt holds those settled without a change.
CPPCHECK_FLAGS = --enable=warning,portability --std=c11 --inline-suppr \
	--error-exitcode=1 --quiet \
	--library=$(top_srcdir)/tests/cppcheck/jansson.cfg \
	--suppressions-list=$(top_srcdir)/tests/cppcheck/suppressions.txt \
	--include=$(top_builddir)/config.h -DMS_BINDIR='"$(bindir)"' \
	-DMS_BUILDDIR='"$(abs_top_builddir)"' \
	-DMS_PKGLIBEXECDIR='"$(pkglibexecdir)"' \
	--template='{file}:{line}: {severity} ({id}): {message}'
EXTRA_DIST += tests/cppcheck/jansson.cfg tests/cppcheck/suppressions.txt
.PHONY: cppcheck
cppcheck:
	@if test -z '$(CPPCHECK)'; then \
	  echo "make cppcheck: cppcheck was not found when configure ran" \
	    "(on Debian: apt-get install cppcheck, then rerun configure);" \
	    "skipped"; \
	  exit 0; \
	fi; \
	files=; \
	for f in $(SOURCES); do \
	  case $$f in \
	    tests/*|bench/*|*.h) ;; \
	    *) case " $$files " in *" $(top_srcdir)/$$f "*) ;; \
	         *) files="$$files $(top_srcdir)/$$f" ;; esac ;; \
	  esac; \
	done; \
	echo "cppcheck: $$(echo $$files | wc -w) files"; \
	$(CPPCHECK) $(CPPCHECK_FLAGS) $(AM_CPPFLAGS) $$files
