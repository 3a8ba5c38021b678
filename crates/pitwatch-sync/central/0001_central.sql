-- The central record (issue 16): every workstation's chains, row by row, as replicated.
--
-- A row is keyed by (site, workstation, chain, position). The server itself keeps each chain
-- contiguous: a row must follow the chain's head (the next position, its previous hash the head's
-- hash), a row already held is skipped only if it is the same row (same hash), and rows are never
-- changed or deleted. The replication component checks each row's hash with the store's chain code
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

CREATE FUNCTION pitwatch_chain_row_follows() RETURNS trigger AS $$
DECLARE
    head_position BIGINT;
    head_hash BYTEA;
    held BYTEA;
BEGIN
    SELECT position, hash INTO head_position, head_hash FROM chain_heads
        WHERE site = NEW.site AND workstation = NEW.workstation AND chain = NEW.chain
        FOR UPDATE;
    IF NOT FOUND THEN
        head_position := 0;
        head_hash := decode(repeat('00', 32), 'hex');
    END IF;
    IF NEW.position <= head_position THEN
        SELECT hash INTO held FROM chain_rows
            WHERE site = NEW.site AND workstation = NEW.workstation AND chain = NEW.chain
              AND position = NEW.position;
        IF held = NEW.hash THEN
            RETURN NULL; -- the same row delivered again: stored once
        END IF;
        RAISE EXCEPTION 'pitwatch: % row % of %/% differs from the row already held',
            NEW.chain, NEW.position, NEW.site, NEW.workstation
            USING ERRCODE = 'P0001';
    END IF;
    IF NEW.position <> head_position + 1 THEN
        RAISE EXCEPTION 'pitwatch: % row % of %/% would leave a gap (the server holds up to %)',
            NEW.chain, NEW.position, NEW.site, NEW.workstation, head_position
            USING ERRCODE = 'P0001';
    END IF;
    IF NEW.prev_hash <> head_hash THEN
        RAISE EXCEPTION 'pitwatch: % row % of %/% does not follow row % (previous hash differs)',
            NEW.chain, NEW.position, NEW.site, NEW.workstation, head_position
            USING ERRCODE = 'P0001';
    END IF;
    INSERT INTO chain_heads (site, workstation, chain, position, hash)
        VALUES (NEW.site, NEW.workstation, NEW.chain, NEW.position, NEW.hash)
        ON CONFLICT (site, workstation, chain)
        DO UPDATE SET position = EXCLUDED.position, hash = EXCLUDED.hash;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER chain_rows_follow BEFORE INSERT ON chain_rows
    FOR EACH ROW EXECUTE FUNCTION pitwatch_chain_row_follows();

CREATE FUNCTION pitwatch_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'pitwatch: % is append-only', TG_TABLE_NAME USING ERRCODE = 'P0001';
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER chain_rows_append_only BEFORE UPDATE OR DELETE ON chain_rows
    FOR EACH ROW EXECUTE FUNCTION pitwatch_append_only();
CREATE TRIGGER central_reports_append_only BEFORE UPDATE OR DELETE ON central_reports
    FOR EACH ROW EXECUTE FUNCTION pitwatch_append_only();
