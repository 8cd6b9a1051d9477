-- 0005_dispatch_cost.sql - less database work for each dispatched job.
--
-- metaschedd writes, for every job it dispatches, the decision with every
-- candidate (partition and frequency: about 70 on the test clusters, 14 KB
-- of text) and two or three state changes of the job's row. Measured on
-- the test bed, the database spent about 1 ms a job turning that text into
-- jsonb, 0.4 ms on the claim (queued -> deciding) as an update of its own,
-- and a notification on every state change that only the daemon listens
-- to, and only for queued and cancelled. And each update of one job
-- (WHERE id = $1 AND state = 'queued') walked every queued job: the
-- planner took the partial index on state alone, so a burst of n queued
-- jobs cost n^2.

-- live jobs by state, then id: one job's row in its state is one index
-- lookup, and the queue in id order is a range of it
DROP INDEX jobs_state;
CREATE INDEX jobs_state ON jobs (state, id) WHERE state NOT IN
    ('completed', 'failed', 'cancelled', 'lost');

-- decisions.candidates as json: the text as sent, validated (so still well
-- formed), written once and read by audits, which use the json functions
-- (json_array_elements, ->, ->>) or cast to jsonb. Compressed with lz4
-- where the server has it (faster than the default pglz by several times).
ALTER TABLE decisions DROP CONSTRAINT IF EXISTS decisions_candidates_check;
ALTER TABLE decisions ALTER COLUMN candidates TYPE json
    USING candidates::json;
ALTER TABLE decisions ADD CONSTRAINT decisions_candidates_check
    CHECK (json_typeof (candidates) = 'array');
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_settings
               WHERE name = 'default_toast_compression'
                 AND 'lz4' = ANY (enumvals)) THEN
        ALTER TABLE decisions ALTER COLUMN candidates SET COMPRESSION lz4;
    END IF;
END $$;

-- queued -> dispatching in one step: the daemon moves a job it decided
-- straight to dispatching with its decision row (the same guard, WHERE
-- state = 'queued', keeps a cancel from being overwritten); deciding
-- remains for the other claims (a job that fits nowhere). And notify only
-- what wakes the daemon: a job queued (submitted, requeued, re-routed) or
-- cancelled.
CREATE OR REPLACE FUNCTION jobs_transition () RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND NEW.state IS DISTINCT FROM OLD.state THEN
        IF NOT ((OLD.state, NEW.state) IN (
                ('queued', 'deciding'), ('queued', 'dispatching'),
                ('deciding', 'queued'),
                ('deciding', 'dispatching'), ('dispatching', 'submitted'),
                ('dispatching', 'queued'), ('dispatching', 'lost'),
                ('submitted', 'running'), ('submitted', 'completed'),
                ('submitted', 'failed'), ('submitted', 'queued'),
                ('submitted', 'lost'), ('running', 'completed'),
                ('running', 'failed'), ('lost', 'queued'))
                OR (NEW.state = 'cancelled'
                    AND OLD.state NOT IN ('completed', 'failed', 'cancelled'))) THEN
            RAISE EXCEPTION 'job %: no transition from % to %',
                OLD.id, OLD.state, NEW.state USING ERRCODE = 'check_violation';
        END IF;
    END IF;
    NEW.updated_at := now();
    IF (TG_OP = 'INSERT' OR NEW.state IS DISTINCT FROM OLD.state)
       AND NEW.state IN ('queued', 'cancelled') THEN
        PERFORM pg_notify ('metasched_jobs', NEW.id::text || ' ' || NEW.state::text);
    END IF;
    RETURN NEW;
END $$;
