-- Who may see a roll. `visibility` is public, private (the roller and the game master), blind (the
-- game master only; the roller sees that it happened) or self (the roller only). A hidden entry's
-- content is committed by `commitment`, the SHA-256 of the content and a random `salt` (kept here
-- for the game master, given out when the entry is revealed); version 3 entries hash the
-- commitment instead of the content, so the chain verifies without it. `actor` names who made the
-- entry (`gm`, or `member:ID` for an invite).
ALTER TABLE roll_log ADD COLUMN visibility TEXT NOT NULL DEFAULT 'public'
    CHECK (visibility IN ('public', 'private', 'blind', 'self'));
ALTER TABLE roll_log ADD COLUMN actor TEXT;
ALTER TABLE roll_log ADD COLUMN commitment TEXT;
ALTER TABLE roll_log ADD COLUMN salt TEXT;
