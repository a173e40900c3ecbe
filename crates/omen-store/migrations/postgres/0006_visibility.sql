-- Who may see a roll, and the commitment that hides its content (see ../0006_visibility.sql).
ALTER TABLE roll_log ADD COLUMN visibility TEXT NOT NULL DEFAULT 'public'
    CHECK (visibility IN ('public', 'private', 'blind', 'self'));
ALTER TABLE roll_log ADD COLUMN actor TEXT;
ALTER TABLE roll_log ADD COLUMN commitment TEXT;
ALTER TABLE roll_log ADD COLUMN salt TEXT;
