-- 0004_daemon_limit.sql - the user's own time limit, kept apart from the
-- scaled one that metaschedd sends to the cluster (jobs.time_limit_min).
--
-- The API stores the user's limit in jobs.time_limit_min; when metaschedd
-- first decides a job it copies that value here, and from then on
-- jobs.time_limit_min is the limit of the latest dispatch (the user's,
-- scaled by the predicted slowdown at the chosen frequency). A re-routed
-- job is scaled again from the user's limit, never from a scaled one.
ALTER TABLE jobs ADD COLUMN user_time_limit_min integer
    CHECK (user_time_limit_min > 0);
