-- The dice notation a campaign's rolls are typed in (a dialect name of the dice language: omen,
-- roll20, foundry, ...). Rolls are logged and saved in Omen's notation whatever it is.
ALTER TABLE campaign ADD COLUMN dialect TEXT NOT NULL DEFAULT 'omen';
