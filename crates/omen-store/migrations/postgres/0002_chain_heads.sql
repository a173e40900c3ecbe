-- The head of each campaign's log chain in a row of its own (see ../0002_chain_heads.sql). A
-- PostgreSQL database starts at this version's successors with no older logs, so nothing is copied.
CREATE TABLE chain_head (
    campaign_id BIGINT PRIMARY KEY REFERENCES campaign (id) ON DELETE CASCADE,
    sequence    BIGINT NOT NULL,
    hash        TEXT NOT NULL
);

CREATE INDEX roll_log_character ON roll_log (character_id);
CREATE INDEX roll_log_time ON roll_log (time);
