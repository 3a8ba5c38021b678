-- Pitwatch store, schema version 3: a record that proves itself (docs/integrity.md).
--
-- Every write transaction now ends with a signed checkpoint; incidents as opened are chained;
-- what changes in place (tables and their rule books, devices, sessions, users, shoe starts, meta)
-- is derived from chained facts. An existing record gets its incidents chained and a fact for
-- every derived row it already holds, by the upgrade step run between the two halves of this
-- file (crates/pitwatch-store/src/migrate.rs), in the same transaction; those rows, and every row
-- written before, are marked as predating signing (meta 'unsigned_before').

-- CHAINED. Signed checkpoints: each holds the row count of every other chain (in the order of
-- pitwatch_store::chain::SIGNED) and the installation key's Ed25519 signature over the record's
-- id, its own id and time, those counts with each chain's head hash, and the previous checkpoint.
CREATE TABLE checkpoints (
    id          INTEGER PRIMARY KEY,
    at          TEXT NOT NULL,
    counts      TEXT NOT NULL,
    public_key  BLOB NOT NULL,
    signature   BLOB NOT NULL,
    prev_hash   BLOB NOT NULL,
    hash        BLOB NOT NULL
);

-- CHAINED. Facts: the new values of a row of a derived table (kind: the table's name; subject:
-- the row's key; body: a JSON object of column values). The derived tables are rebuilt from
-- these by verification and compared.
CREATE TABLE facts (
    id          INTEGER PRIMARY KEY,
    kind        TEXT NOT NULL,
    subject     TEXT NOT NULL,
    body        TEXT NOT NULL,
    at          TEXT NOT NULL,
    prev_hash   BLOB NOT NULL,
    hash        BLOB NOT NULL
);

-- Incidents become a chain of their own (they were only ever inserted).
ALTER TABLE incidents ADD COLUMN prev_hash BLOB;
ALTER TABLE incidents ADD COLUMN hash BLOB;

-- Derived from facts: the rule book's TOML as it judged the table (NULL when the record predates
-- keeping it), and whether a user may log in.
ALTER TABLE pit_tables ADD COLUMN book TEXT;
ALTER TABLE users ADD COLUMN active INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1));

-- Existing rows are chained and recorded as facts by the upgrade step, here:
-- @upgrade-step

CREATE TRIGGER incidents_append_only_u BEFORE UPDATE ON incidents
BEGIN SELECT RAISE (ABORT, 'incidents is append-only'); END;
CREATE TRIGGER incidents_append_only_d BEFORE DELETE ON incidents
BEGIN SELECT RAISE (ABORT, 'incidents is append-only'); END;
CREATE TRIGGER facts_append_only_u BEFORE UPDATE ON facts
BEGIN SELECT RAISE (ABORT, 'facts is append-only'); END;
CREATE TRIGGER facts_append_only_d BEFORE DELETE ON facts
BEGIN SELECT RAISE (ABORT, 'facts is append-only'); END;
CREATE TRIGGER checkpoints_append_only_u BEFORE UPDATE ON checkpoints
BEGIN SELECT RAISE (ABORT, 'checkpoints is append-only'); END;
CREATE TRIGGER checkpoints_append_only_d BEFORE DELETE ON checkpoints
BEGIN SELECT RAISE (ABORT, 'checkpoints is append-only'); END;
