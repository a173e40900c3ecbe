-- Signed logs (see ../0003_signed_log.sql for what each column means).
ALTER TABLE campaign ADD COLUMN uid TEXT;
ALTER TABLE campaign ADD COLUMN public_key TEXT;
ALTER TABLE character ADD COLUMN uid TEXT;

ALTER TABLE roll_log ADD COLUMN version BIGINT NOT NULL DEFAULT 1;
ALTER TABLE roll_log ADD COLUMN campaign_uid TEXT;
ALTER TABLE roll_log ADD COLUMN character_uid TEXT;
ALTER TABLE roll_log ADD COLUMN dice_given BIGINT NOT NULL DEFAULT 0;
ALTER TABLE roll_log ADD COLUMN seed_proof TEXT;
ALTER TABLE roll_log ADD COLUMN public_key TEXT;
ALTER TABLE roll_log ADD COLUMN signature TEXT;

ALTER TABLE chain_head ADD COLUMN signature TEXT;
