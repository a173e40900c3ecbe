-- Campaigns, their characters, saved rolls and the hash-chained roll log.
-- Times are RFC 3339 UTC with milliseconds ("2026-11-23T15:41:03.123Z"), so text order is time order.

CREATE TABLE campaign (
    id      INTEGER PRIMARY KEY,
    name    TEXT NOT NULL UNIQUE CHECK (length(name) > 0),
    created TEXT NOT NULL
);

-- A character is bound to one rule set; `state` is that rule set's JSON at `state_version`.
CREATE TABLE character (
    id            INTEGER PRIMARY KEY,
    campaign_id   INTEGER NOT NULL REFERENCES campaign (id) ON DELETE CASCADE,
    name          TEXT NOT NULL CHECK (length(name) > 0),
    rule_set      TEXT NOT NULL,
    sheet         TEXT NOT NULL,
    state         TEXT NOT NULL,
    state_version INTEGER NOT NULL,
    created       TEXT NOT NULL,
    updated       TEXT NOT NULL,
    UNIQUE (campaign_id, name)
);

-- A named expression or script in the dice language, with default values for its parameters
-- (a JSON object).
CREATE TABLE saved_roll (
    id          INTEGER PRIMARY KEY,
    campaign_id INTEGER NOT NULL REFERENCES campaign (id) ON DELETE CASCADE,
    name        TEXT NOT NULL CHECK (length(name) > 0),
    expression  TEXT NOT NULL,
    params      TEXT NOT NULL,
    description TEXT,
    UNIQUE (campaign_id, name)
);

-- Every roll and edit, numbered 1, 2, 3, ... per campaign. `hash` covers every recorded column but
-- `character_id` (a link to the live row, cleared when the character is deleted) and chains to the
-- entry before through `previous_hash`. Names are recorded as they were at the time.
CREATE TABLE roll_log (
    campaign_id   INTEGER NOT NULL REFERENCES campaign (id) ON DELETE CASCADE,
    sequence      INTEGER NOT NULL CHECK (sequence > 0),
    time          TEXT NOT NULL,
    campaign      TEXT NOT NULL,
    character_id  INTEGER REFERENCES character (id) ON DELETE SET NULL,
    character     TEXT,
    action        TEXT NOT NULL,
    inputs        TEXT NOT NULL,
    seed          TEXT,
    dice          TEXT NOT NULL,
    result        TEXT NOT NULL,
    state_before  TEXT,
    state_after   TEXT,
    summary       TEXT NOT NULL,
    previous_hash TEXT NOT NULL,
    hash          TEXT NOT NULL,
    PRIMARY KEY (campaign_id, sequence)
) WITHOUT ROWID;
