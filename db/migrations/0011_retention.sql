-- 0011_retention.sql - what a job's user wrote is kept for a time only,
-- and the report role never reads it (doc/database.md "Retention").
--
-- A job's script and its exported environment (options' "environment")
-- may hold anything the user had in the shell: passwords, tokens, paths.
-- metaschedd needs them until the job has ended; after that they stayed
-- forever, readable by the report role and in every backup. Now:
--   - the daemon empties both (script NULL, the "environment" key
--     removed) once a job in a final state ended more than
--     script_retention_days ago (metaschedd.conf, default 30), in batches
--     found through the partial index below;
--   - ms_report reads every column of jobs but script and options (column
--     privileges, re-applied by every migrate with the other grants).
ALTER TABLE jobs ALTER COLUMN script DROP NOT NULL;
ALTER TABLE jobs ADD CONSTRAINT jobs_script_kept
    CHECK (script IS NOT NULL OR state IN ('completed', 'failed', 'cancelled'));
CREATE INDEX jobs_retained ON jobs ((coalesce (finished_at, submitted_at)))
    WHERE script IS NOT NULL AND state IN ('completed', 'failed', 'cancelled');

-- The grants of 0002 (and of any migration before this one that replaced
-- them) stay as they are, under a name of their own; ms_apply_grants runs
-- them, then takes script and options away from ms_report: a table-level
-- REVOKE drops the column privileges too, and the column-level GRANT names
-- every other column, those added later included.
ALTER FUNCTION ms_apply_grants () RENAME TO ms_apply_grants_before_0011;
CREATE FUNCTION ms_apply_grants () RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    missing text;
    cols text;
BEGIN
    missing := ms_apply_grants_before_0011 ();
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'ms_report') THEN
        REVOKE ALL ON jobs FROM ms_report;
        SELECT string_agg (quote_ident (attname), ', ' ORDER BY attnum)
          INTO cols
          FROM pg_attribute
         WHERE attrelid = 'jobs'::regclass AND attnum > 0
           AND NOT attisdropped AND attname NOT IN ('script', 'options');
        EXECUTE format ('GRANT SELECT (%s) ON jobs TO ms_report', cols);
    END IF;
    RETURN missing;
END $$;
REVOKE EXECUTE ON FUNCTION ms_apply_grants () FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ms_apply_grants_before_0011 () FROM PUBLIC;
