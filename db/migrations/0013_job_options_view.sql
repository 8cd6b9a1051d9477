-- 0013: what the report role may read of a job's options. Since 0011 it
-- reads no options at all (they hold the job's environment); the replay of
-- the site's history (metasched simulate --from-db, as ms_report) needs
-- the rest of them: the view gives every job's options without the
-- environment, read with its owner's (ms_daemon's) privileges.
CREATE VIEW job_options AS
    SELECT id, options - 'environment' AS options FROM jobs;
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'ms_report') THEN
        GRANT SELECT ON job_options TO ms_report;
    END IF;
END
$$;
