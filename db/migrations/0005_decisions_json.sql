-- 0005_decisions_json.sql - decisions.candidates as json rather than jsonb.
--
-- metaschedd writes one decisions row for every job it dispatches, with
-- every candidate (partition and frequency: about 70 on the test clusters,
-- 14 KB of text). Turning that text into jsonb cost the database about
-- 1 ms a job, on the dispatch path, for rows that are written once and
-- read only by an audit. json keeps the text as sent (validated, so still
-- well formed); queries use the json functions (json_array_elements, ->,
-- ->>) or cast to jsonb where they need its operators.
ALTER TABLE decisions DROP CONSTRAINT IF EXISTS decisions_candidates_check;
ALTER TABLE decisions ALTER COLUMN candidates TYPE json
    USING candidates::json;
ALTER TABLE decisions ADD CONSTRAINT decisions_candidates_check
    CHECK (json_typeof (candidates) = 'array');
