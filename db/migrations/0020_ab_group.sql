-- 0020_ab_group.sql - the A/B baseline group of a job (doc/daemon.md "The
-- A/B baseline", doc/admin-guide.md "Measuring what metasched saves").
--
-- While ab_share is above 0, metaschedd draws each new job's group from
-- its id with the site's key: 'baseline' jobs are routed by ab_policy,
-- 'metasched' jobs by the policy. The job keeps the group of its first
-- decision; NULL: decided while the comparison was off. The decision row
-- says which group it decided for (its policy is then
-- 'ab_baseline:<ab_policy>' for the baseline).
ALTER TABLE jobs ADD COLUMN ab_group text
    CHECK (ab_group IN ('baseline', 'metasched'));
ALTER TABLE decisions ADD COLUMN ab_group text
    CHECK (ab_group IN ('baseline', 'metasched'));
-- `metasched report --ab` reads the jobs of the comparison only
CREATE INDEX jobs_ab_group ON jobs (ab_group) WHERE ab_group IS NOT NULL;
