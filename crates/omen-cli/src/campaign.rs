//! Campaigns that remember: `omen campaign`, `omen char`, `omen log`, `omen save`, `omen saved`,
//! `omen export` and `omen import`, and the `--char` form of every game action. The storage, the
//! transactions and the log's hash chain are omen-store's; this reads arguments and prints.
//!
//! The database is `--db PATH`, else `$OMEN_DB`, else `omen.db` in the platform data directory; its
//! signing key is `--key PATH`, else `$OMEN_KEY`, else the database's path with `.key` appended. A
//! command that names no campaign uses the database's only campaign, and says so when there are several.
//! Commands that only read (`campaign list|show`, `char list|show`, `log`, `saved list`, `export`)
//! never create a directory, a database or a key. Stored text is escaped on its way to a terminal
//! ([`crate::escape`]).

mod args;
mod campaigns;
mod character_action;
mod characters;
mod log;
mod saved_rolls;
mod shared;
mod transfer;

pub use self::args::{CampaignArgs, CharArgs, ExportArgs, ImportArgs, SaveArgs, SavedArgs};
pub use self::campaigns::campaign;
pub use self::character_action::act;
pub use self::characters::character;
pub use self::log::log;
pub use self::saved_rolls::{json_param_values, save, saved, saved_input};
pub use self::shared::{campaign_name, hidden_note};
pub use self::transfer::{export, import};
