# doc/: man pages and guides.
dist_man_MANS += doc/metasched.1 doc/clusters.conf.5
dist_doc_DATA += doc/admin-guide.md doc/architecture.md doc/testbed.md doc/api.md
# The predictor: metasched model and its models (predictor/).
dist_man_MANS += doc/metasched-model.1
dist_doc_DATA += doc/predictor.md
# Using metasched from workflow managers, and the Snakemake profile it
# shows (tests/integration/test_snakemake.sh runs it).
dist_doc_DATA += doc/workflows.md
snakemakedir = $(docdir)/examples/snakemake
dist_snakemake_DATA = doc/examples/snakemake/config.yaml \
	doc/examples/snakemake/Snakefile
dist_snakemake_SCRIPTS = doc/examples/snakemake/msqueue-status.sh
