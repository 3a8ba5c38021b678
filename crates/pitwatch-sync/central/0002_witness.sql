-- The central server as a witness in its own right (issue 25).
--
-- Until now the role `pitwatch sync` used could write every table, so a workstation could
-- register any name, append to another workstation's chains, and rewrite what the witness reads.
-- From this version:
--
-- - a central administrator (the role that owns this schema, or a superuser) enrols each
--   workstation: its site and name, the hex Ed25519 public key its checkpoints are signed with,
--   and the PostgreSQL role it logs in as (`pitwatch central enrol`). Nobody else can add a
--   workstation; a workstation role is a member of `pitwatch_workstation` and nothing more;
-- - a workstation role may append rows to its own chains only (row-level security), and may
--   read only its own rows; it may not update or delete anything;
-- - the server checks every row itself on insert, whoever sends it: its hash over (prev_hash,
--   content) exactly as the store's chain code computes it, and its link to the row before;
-- - what the witness reads (the chain heads, which include the latest checkpoint, the record id a
--   workstation replicates, the lag it reported, the reports) is written only by the server's own
--   functions and triggers (SECURITY DEFINER, owned by the administrator): a workstation calls
--   them for its own name and cannot touch the tables;
-- - readers (the surveillance room, `verify --central`) are members of `pitwatch_reader`: SELECT
--   on everything, nothing else.
--
-- PostgreSQL cannot verify Ed25519, so the checkpoints' signatures are checked by every reader
-- against the key enrolled here (which no workstation can change); see docs/central.md.

DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'pitwatch_workstation') THEN
        CREATE ROLE pitwatch_workstation NOLOGIN;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'pitwatch_reader') THEN
        CREATE ROLE pitwatch_reader NOLOGIN;
    END IF;
END
$$;

-- The server's functions below run as their owner (SECURITY DEFINER) with the search path of
-- this migration, which is set here to this schema, then pg_catalog, then pg_temp last, so no
-- session can shadow a table or a function they use with one of its own (a temporary table
-- named chain_rows, say). And no role but the administrator may create anything: not in the
-- public schema, not a temporary table.
DO $$
BEGIN
    EXECUTE format('SET LOCAL search_path = %I, pg_catalog, pg_temp', current_schema());
    EXECUTE format('REVOKE TEMPORARY ON DATABASE %I FROM PUBLIC', current_database());
    EXECUTE format('REVOKE CREATE ON SCHEMA %I FROM PUBLIC', current_schema());
END
$$;

-- Enrolment. A workstation registered by an older Pitwatch (no key, no role) is refused until
-- an administrator enrols it; its record id is kept.
ALTER TABLE workstations ALTER COLUMN record_id DROP NOT NULL;
ALTER TABLE workstations ADD COLUMN public_key TEXT CHECK (public_key ~ '^[0-9a-f]{64}$');
ALTER TABLE workstations ADD COLUMN role_name TEXT UNIQUE;
ALTER TABLE workstations ADD COLUMN enrolled_at TIMESTAMPTZ;

-- The latest checkpoint is the head of the checkpoints chain (chain_heads, kept by the server's
-- trigger); readers take its row from chain_rows and check its signature against the enrolled key.
DROP TABLE latest_checkpoints;

-- Whether the session's role may act for workstation (site, name): the role enrolled for it, or
-- the administrator (a member of the role owning this schema, which a superuser always is).
CREATE FUNCTION pitwatch_may_act(p_site TEXT, p_workstation TEXT) RETURNS BOOLEAN
LANGUAGE sql STABLE SECURITY DEFINER SET search_path FROM CURRENT AS $$
    SELECT EXISTS (SELECT 1 FROM workstations w
                   WHERE w.site = p_site AND w.workstation = p_workstation
                     AND w.role_name = session_user)
        OR pg_has_role(session_user, current_user, 'USAGE');
$$;

-- Refuses what the session's role may not do as (site, name), saying why; returns the row.
CREATE FUNCTION pitwatch_enrolled(p_site TEXT, p_workstation TEXT) RETURNS workstations
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path FROM CURRENT AS $$
DECLARE
    w workstations;
    mine TEXT;
BEGIN
    SELECT * INTO w FROM workstations WHERE site = p_site AND workstation = p_workstation;
    IF NOT FOUND OR w.public_key IS NULL OR w.role_name IS NULL THEN
        RAISE EXCEPTION 'pitwatch: %/% is not enrolled in the central database: a central administrator enrols it (pitwatch central enrol URL --workstation %/% --public-key HEX)',
            p_site, p_workstation, p_site, p_workstation USING ERRCODE = '42501';
    END IF;
    IF NOT pitwatch_may_act(p_site, p_workstation) THEN
        SELECT site || '/' || workstation INTO mine FROM workstations WHERE role_name = session_user;
        RAISE EXCEPTION 'pitwatch: the role % may not deliver as %/% (it is enrolled as %)',
            session_user, p_site, p_workstation, COALESCE(mine, 'no workstation')
            USING ERRCODE = '42501';
    END IF;
    RETURN w;
END;
$$;

-- The first delivery of a workstation names the record it replicates; after that, only that
-- record is taken under its name.
CREATE FUNCTION pitwatch_claim_record(p_site TEXT, p_workstation TEXT, p_record TEXT)
RETURNS VOID LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
DECLARE
    w workstations;
BEGIN
    w := pitwatch_enrolled(p_site, p_workstation);
    IF p_record !~ '^[0-9a-f]{32}$' THEN
        RAISE EXCEPTION 'pitwatch: % is not a record id', p_record USING ERRCODE = '22023';
    END IF;
    IF w.record_id IS NULL THEN
        UPDATE workstations SET record_id = p_record
        WHERE site = p_site AND workstation = p_workstation AND record_id IS NULL;
    ELSIF w.record_id <> p_record THEN
        RAISE EXCEPTION 'pitwatch: the central database holds record % as workstation %/%, and this is record %: a workstation replicates one record (give a new record, such as a new segment, its own workstation name, enrolled by a central administrator)',
            w.record_id, p_site, p_workstation, p_record USING ERRCODE = 'P0001';
    END IF;
END;
$$;

-- What a workstation says at the end of a delivery: rows it still has to send, and how far its
-- latest checkpoint is ahead of the latest delivered (ms). The time is the server's.
CREATE FUNCTION pitwatch_report_lag(p_site TEXT, p_workstation TEXT, p_rows BIGINT, p_ms BIGINT)
RETURNS VOID LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
BEGIN
    PERFORM pitwatch_enrolled(p_site, p_workstation);
    UPDATE workstations SET last_delivery = now(), rows_behind = greatest(p_rows, 0),
        ms_behind = greatest(p_ms, 0)
    WHERE site = p_site AND workstation = p_workstation;
END;
$$;

-- A refusal or a server found behind, reported by the workstation about its own chains (once
-- per row, kind and message).
CREATE FUNCTION pitwatch_report(p_site TEXT, p_workstation TEXT, p_kind TEXT, p_chain TEXT,
    p_position BIGINT, p_message TEXT)
RETURNS VOID LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
BEGIN
    PERFORM pitwatch_enrolled(p_site, p_workstation);
    INSERT INTO central_reports (site, workstation, kind, chain, position, message)
    SELECT p_site, p_workstation, p_kind, p_chain, p_position, left(p_message, 2000)
    WHERE NOT EXISTS (SELECT 1 FROM central_reports
                      WHERE site = p_site AND workstation = p_workstation AND kind = p_kind
                        AND chain = p_chain AND position = p_position AND message = p_message);
END;
$$;

-- The server's own check of every statement's rows, whoever sends them: a known chain, each
-- row's hash over its previous hash and content exactly as the store's chain code computes it
-- (SHA-256 over "pitwatch-chain-v1", NUL, the chain's name, NUL, the previous hash, the content),
-- and each row following the row before it. Then the heads move. SECURITY DEFINER: the heads are
-- the server's, no workstation may write them.
CREATE OR REPLACE FUNCTION pitwatch_chain_rows_follow() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
DECLARE
    bad RECORD;
BEGIN
    SELECT n.chain, n.position, n.site, n.workstation INTO bad
    FROM new_rows n
    WHERE n.chain NOT IN ('raw_chunks', 'frames', 'events', 'incidents', 'incident_changes',
                          'incident_notes', 'audit_log', 'facts', 'checkpoints')
    LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'pitwatch: % is not a chain of a Pitwatch record (row % of %/%)',
            bad.chain, bad.position, bad.site, bad.workstation USING ERRCODE = 'P0001';
    END IF;
    SELECT n.chain, n.position, n.site, n.workstation INTO bad
    FROM new_rows n
    WHERE n.hash <> sha256('pitwatch-chain-v1'::bytea || '\x00'::bytea
                           || convert_to(n.chain, 'UTF8') || '\x00'::bytea
                           || n.prev_hash || n.content)
    LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'pitwatch: % row % of %/%: its hash does not match its content (refused by the server)',
            bad.chain, bad.position, bad.site, bad.workstation USING ERRCODE = 'P0001';
    END IF;
    SELECT n.chain, n.position, n.site, n.workstation INTO bad
    FROM new_rows n
    LEFT JOIN chain_rows p
        ON p.site = n.site AND p.workstation = n.workstation AND p.chain = n.chain
       AND p.position = n.position - 1
    WHERE CASE WHEN n.position = 1 THEN n.prev_hash <> decode(repeat('00', 32), 'hex')
               ELSE p.hash IS NULL OR p.hash <> n.prev_hash END
    LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'pitwatch: % row % of %/% does not follow the rows held (a gap, or its previous hash differs)',
            bad.chain, bad.position, bad.site, bad.workstation
            USING ERRCODE = 'P0001';
    END IF;
    INSERT INTO chain_heads (site, workstation, chain, position, hash)
        SELECT DISTINCT ON (site, workstation, chain) site, workstation, chain, position, hash
        FROM new_rows ORDER BY site, workstation, chain, position DESC
        ON CONFLICT (site, workstation, chain) DO UPDATE
        SET position = EXCLUDED.position, hash = EXCLUDED.hash
        WHERE chain_heads.position < EXCLUDED.position;
    RETURN NULL;
END;
$$;

-- The heads are the server's: nothing changes them but the trigger above (which moves them
-- forward only), and nothing removes them.
CREATE FUNCTION pitwatch_heads_forward() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' OR NEW.position < OLD.position THEN
        RAISE EXCEPTION 'pitwatch: chain heads only move forward' USING ERRCODE = 'P0001';
    END IF;
    RETURN NEW;
END;
$$;
CREATE TRIGGER chain_heads_forward BEFORE UPDATE OR DELETE ON chain_heads
    FOR EACH ROW EXECUTE FUNCTION pitwatch_heads_forward();

-- Privileges: nothing for PUBLIC; workstations append to their own chains and read their own
-- rows; readers read everything.
REVOKE ALL ON workstations, chain_heads, chain_rows, central_reports FROM PUBLIC;
REVOKE ALL ON SEQUENCE central_reports_id_seq FROM PUBLIC;
REVOKE ALL ON central_migrations FROM PUBLIC;
GRANT SELECT ON workstations, chain_heads, chain_rows, central_reports, central_migrations
    TO pitwatch_workstation, pitwatch_reader;
GRANT INSERT ON chain_rows TO pitwatch_workstation;
REVOKE EXECUTE ON FUNCTION pitwatch_may_act(TEXT, TEXT), pitwatch_enrolled(TEXT, TEXT),
    pitwatch_claim_record(TEXT, TEXT, TEXT), pitwatch_report_lag(TEXT, TEXT, BIGINT, BIGINT),
    pitwatch_report(TEXT, TEXT, TEXT, TEXT, BIGINT, TEXT) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION pitwatch_claim_record(TEXT, TEXT, TEXT),
    pitwatch_report_lag(TEXT, TEXT, BIGINT, BIGINT),
    pitwatch_report(TEXT, TEXT, TEXT, TEXT, BIGINT, TEXT) TO pitwatch_workstation;

ALTER TABLE workstations ENABLE ROW LEVEL SECURITY;
ALTER TABLE chain_heads ENABLE ROW LEVEL SECURITY;
ALTER TABLE chain_rows ENABLE ROW LEVEL SECURITY;
ALTER TABLE central_reports ENABLE ROW LEVEL SECURITY;

CREATE POLICY own ON workstations FOR SELECT TO pitwatch_workstation
    USING (role_name = current_user);
CREATE POLICY own ON chain_heads FOR SELECT TO pitwatch_workstation
    USING ((site, workstation) IN (SELECT w.site, w.workstation FROM workstations w
                                   WHERE w.role_name = current_user));
CREATE POLICY own ON chain_rows FOR SELECT TO pitwatch_workstation
    USING ((site, workstation) IN (SELECT w.site, w.workstation FROM workstations w
                                   WHERE w.role_name = current_user));
CREATE POLICY own_append ON chain_rows FOR INSERT TO pitwatch_workstation
    WITH CHECK ((site, workstation) IN (SELECT w.site, w.workstation FROM workstations w
                                        WHERE w.role_name = current_user));
CREATE POLICY own ON central_reports FOR SELECT TO pitwatch_workstation
    USING ((site, workstation) IN (SELECT w.site, w.workstation FROM workstations w
                                   WHERE w.role_name = current_user));

CREATE POLICY everything ON workstations FOR SELECT TO pitwatch_reader USING (true);
CREATE POLICY everything ON chain_heads FOR SELECT TO pitwatch_reader USING (true);
CREATE POLICY everything ON chain_rows FOR SELECT TO pitwatch_reader USING (true);
CREATE POLICY everything ON central_reports FOR SELECT TO pitwatch_reader USING (true);
