-- The central record (issue 16): every workstation's chains, row by row, as replicated.
--
-- A row is keyed by (site, workstation, chain, position). The server itself keeps each chain
-- contiguous: a row must follow the row before it (held, and its hash the row's previous hash),
-- a position is held once, and rows are never changed or deleted. The replication component checks each row's hash with the store's chain code
-- before it is sent; what it refuses is written to central_reports.

CREATE TABLE workstations (
    site            TEXT NOT NULL,
    workstation     TEXT NOT NULL,
    -- The local record replicated here (its id, 32 hex digits); another record is refused.
    record_id       TEXT NOT NULL,
    first_seen      TIMESTAMPTZ NOT NULL DEFAULT now(),
    -- What the workstation said at its last delivery: rows it still had to send, and how far
    -- its latest checkpoint was ahead of the latest one delivered (milliseconds).
    last_delivery   TIMESTAMPTZ,
    rows_behind     BIGINT NOT NULL DEFAULT 0,
    ms_behind       BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (site, workstation)
);

CREATE TABLE chain_heads (
    site            TEXT NOT NULL,
    workstation     TEXT NOT NULL,
    chain           TEXT NOT NULL,
    position        BIGINT NOT NULL,
    hash            BYTEA NOT NULL,
    PRIMARY KEY (site, workstation, chain),
    FOREIGN KEY (site, workstation) REFERENCES workstations
);

CREATE TABLE chain_rows (
    site            TEXT NOT NULL,
    workstation     TEXT NOT NULL,
    chain           TEXT NOT NULL,
    position        BIGINT NOT NULL CHECK (position > 0),
    -- The row's content columns in the chains' encoding (what its hash covers after prev_hash).
    content         BYTEA NOT NULL,
    prev_hash       BYTEA NOT NULL CHECK (length(prev_hash) = 32),
    hash            BYTEA NOT NULL CHECK (length(hash) = 32),
    received_at     TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (site, workstation, chain, position),
    FOREIGN KEY (site, workstation) REFERENCES workstations
);

-- The latest signed checkpoint of each workstation, as its text form (what journals hold).
CREATE TABLE latest_checkpoints (
    site            TEXT NOT NULL,
    workstation     TEXT NOT NULL,
    position        BIGINT NOT NULL,
    at              TEXT NOT NULL,
    text            TEXT NOT NULL,
    received_at     TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (site, workstation),
    FOREIGN KEY (site, workstation) REFERENCES workstations
);

-- What the central side refused (kind 'refused') or found (kind 'behind': the server held fewer
-- rows than were delivered before, as after a restore from an older backup, and was refilled).
CREATE TABLE central_reports (
    id              BIGSERIAL PRIMARY KEY,
    site            TEXT NOT NULL,
    workstation     TEXT NOT NULL,
    kind            TEXT NOT NULL CHECK (kind IN ('refused', 'behind')),
    chain           TEXT NOT NULL,
    position        BIGINT NOT NULL,
    message         TEXT NOT NULL,
    at              TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- Checked once per statement over the rows it inserted (a batch of thousands costs one join,
-- not thousands of row triggers): every new row's predecessor is held (a row already there or
-- one of the same statement) and its previous hash is that row's hash, and position 1 follows
-- the genesis hash. With the primary key (a position is held once), each chain stays contiguous:
-- a gap is never filled out of order, a row is never replaced. A row sent twice breaks the
-- primary key and its batch is refused whole; the outbox only sends what follows the head it
-- has just read, so that happens only when two processes ship the same workstation at once.
CREATE FUNCTION pitwatch_chain_rows_follow() RETURNS trigger AS $$
DECLARE
    bad RECORD;
BEGIN
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
$$ LANGUAGE plpgsql;

CREATE TRIGGER chain_rows_follow AFTER INSERT ON chain_rows
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION pitwatch_chain_rows_follow();

CREATE FUNCTION pitwatch_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'pitwatch: % is append-only', TG_TABLE_NAME USING ERRCODE = 'P0001';
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER chain_rows_append_only BEFORE UPDATE OR DELETE ON chain_rows
    FOR EACH ROW EXECUTE FUNCTION pitwatch_append_only();
CREATE TRIGGER central_reports_append_only BEFORE UPDATE OR DELETE ON central_reports
    FOR EACH ROW EXECUTE FUNCTION pitwatch_append_only();
