-- The head of each campaign's log chain in a row of its own, written in the same transaction as the
-- entry it names: a log whose last entries were cut off no longer ends at its head.
CREATE TABLE chain_head (
    campaign_id INTEGER PRIMARY KEY REFERENCES campaign (id) ON DELETE CASCADE,
    sequence    INTEGER NOT NULL,
    hash        TEXT NOT NULL
);

-- Logs written before this version: their current last entry is their head.
INSERT INTO chain_head (campaign_id, sequence, hash)
SELECT l.campaign_id, l.sequence, l.hash
FROM roll_log AS l
WHERE l.sequence = (SELECT max(m.sequence) FROM roll_log AS m WHERE m.campaign_id = l.campaign_id);

-- Listing a log by character, action or time.
CREATE INDEX roll_log_character ON roll_log (character_id);
CREATE INDEX roll_log_time ON roll_log (time);
