-- 0017_spool_drops.sql - what the nodes' spools dropped, for metaschedd's
-- /metrics (doc/collectors.md "The cap", doc/daemon.md "Spool drops").
--
-- A node's spool counts its drops in SPOOL/dropped, on the node, because
-- they happen while the database is away. When a flush or an epilog's send
-- reaches the database again, it reports the node's totals here. Totals
-- only grow: the row keeps the larger of what it holds and what is
-- reported, column by column, so that a report replayed, sent twice or
-- arriving after a newer one never lowers a count.
--
-- The node is what the spool's writer called itself (Slurm's node name),
-- kept as given: metaschedd escapes it where it prints it.
CREATE TABLE spool_drops (
    cluster      ms_name NOT NULL REFERENCES clusters (name) ON DELETE CASCADE,
    node         text NOT NULL CHECK (length (node) BETWEEN 1 AND 64),
    rows_dropped bigint NOT NULL CHECK (rows_dropped >= 0),
    bad_dropped  bigint NOT NULL CHECK (bad_dropped >= 0),
    aged_removed bigint NOT NULL CHECK (aged_removed >= 0),
    last_drop    timestamptz,            -- the node's clock; NULL: none yet
    reported_at  timestamptz NOT NULL DEFAULT now (),
    PRIMARY KEY (cluster, node)
);

-- The collectors' one way in: their role may neither read nor update the
-- table, only report through this function, which runs with its owner's
-- rights and applies the rule above.
CREATE FUNCTION spool_drops_report (p_cluster text, p_node text,
                                    p_rows bigint, p_bad bigint,
                                    p_aged bigint, p_last double precision)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM clusters WHERE name = p_cluster) THEN
        RAISE EXCEPTION 'spool drops of node % on unknown cluster %',
            p_node, p_cluster USING ERRCODE = 'foreign_key_violation';
    END IF;
    IF p_last IS NOT NULL AND NOT (p_last >= 0 AND p_last < 1e11) THEN
        RAISE EXCEPTION 'spool drops of node %/%: last drop % is not a time',
            p_cluster, p_node, p_last USING ERRCODE = 'check_violation';
    END IF;
    INSERT INTO spool_drops AS s (cluster, node, rows_dropped, bad_dropped,
                                  aged_removed, last_drop)
    VALUES (p_cluster, p_node, p_rows, p_bad, p_aged,
            CASE WHEN p_last > 0 THEN to_timestamp (p_last) END)
    ON CONFLICT (cluster, node) DO UPDATE SET
        rows_dropped = greatest (s.rows_dropped, EXCLUDED.rows_dropped),
        bad_dropped = greatest (s.bad_dropped, EXCLUDED.bad_dropped),
        aged_removed = greatest (s.aged_removed, EXCLUDED.aged_removed),
        last_drop = greatest (s.last_drop, EXCLUDED.last_drop),
        reported_at = now ();
END $$;
REVOKE EXECUTE ON FUNCTION spool_drops_report (text, text, bigint, bigint,
                                               bigint, double precision)
    FROM PUBLIC;

-- The grants as before, and the collectors' EXECUTE on the function
-- (ms_apply_grants_before_0011 revokes every table right of ms_collector
-- but INSERT on job_runs; spool_drops is among those revoked).
ALTER FUNCTION ms_apply_grants () RENAME TO ms_apply_grants_before_0017;
CREATE FUNCTION ms_apply_grants () RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    missing text;
BEGIN
    missing := ms_apply_grants_before_0017 ();
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'ms_collector') THEN
        GRANT EXECUTE ON FUNCTION spool_drops_report (text, text, bigint,
            bigint, bigint, double precision) TO ms_collector;
    END IF;
    RETURN missing;
END $$;
REVOKE EXECUTE ON FUNCTION ms_apply_grants () FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ms_apply_grants_before_0017 () FROM PUBLIC;
