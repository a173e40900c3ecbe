-- Signed logs. A campaign and each character get a random identity (`uid`) that entries name them by,
-- since names change and row ids are the database's own. A campaign's entries are signed with its
-- Ed25519 key (`public_key`; the secret half is kept in a file outside the database). Entries written
-- before this version keep `version` 1 (hashed, unsigned); the upgrade re-anchors them under the key
-- with a signed `migrate` entry (written by omen right after this script, in the same transaction).
ALTER TABLE campaign ADD COLUMN uid TEXT;
ALTER TABLE campaign ADD COLUMN public_key TEXT;
ALTER TABLE character ADD COLUMN uid TEXT;

-- `version` 2 entries: the hash covers the campaign's and the character's identities, where the dice
-- came from (`dice_given`: entered by hand, not derived), the seed proof (the key's signature of the
-- entry's place in the chain, from which the seed is derived) and the public key; `signature` signs
-- the hash.
ALTER TABLE roll_log ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
ALTER TABLE roll_log ADD COLUMN campaign_uid TEXT;
ALTER TABLE roll_log ADD COLUMN character_uid TEXT;
ALTER TABLE roll_log ADD COLUMN dice_given INTEGER NOT NULL DEFAULT 0;
ALTER TABLE roll_log ADD COLUMN seed_proof TEXT;
ALTER TABLE roll_log ADD COLUMN public_key TEXT;
ALTER TABLE roll_log ADD COLUMN signature TEXT;

-- The head's signature: moving the head back needs the key.
ALTER TABLE chain_head ADD COLUMN signature TEXT;
