# doc/: man pages and guides.
dist_man_MANS += doc/metasched.1 doc/clusters.conf.5
dist_doc_DATA += doc/admin-guide.md doc/architecture.md doc/testbed.md doc/api.md
# The predictor: metasched model and its models (predictor/).
dist_man_MANS += doc/metasched-model.1
dist_doc_DATA += doc/predictor.md
