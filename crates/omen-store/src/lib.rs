//! Omen's campaigns in one SQLite file (or one PostgreSQL database, for a hosted Omen): characters
//! bound to a rule set with the state it keeps between rolls, saved rolls, and a hash-chained log of
//! every roll that can be verified and replayed.
//!
//! ```
//! use omen_core::Limits;
//! use omen_store::{Dice, LogFilter, Store};
//! use serde_json::json;
//!
//! let mut store = Store::open_in_memory()?;
//! store.create_campaign("Tak")?;
//! // A halfling: a permanent +2 to every luck roll.
//! let sheet = json!({ "intrinsic": [{ "source": "halfling", "value": 2 }] });
//! store.create_character("Tak", "Ayla", "luck", &sheet)?;
//!
//! // The exact odds first, then the roll: a d50 of 50 is good luck, and the history remembers it.
//! let roll = json!({ "action": "roll", "event_modifier": -5 });
//! let odds = store.odds("Tak", "Ayla", &roll, &Limits::default())?;
//! assert_eq!(odds["modifier"], -3);
//! let entry = store.act("Tak", "Ayla", &roll, Dice::Given(vec![50]), &Limits::default())?;
//! assert_eq!(entry.result["outcome"], "good");
//! assert_eq!(store.character("Tak", "Ayla")?.state["history"], json!({ "kind": "good", "length": 1 }));
//!
//! // The log holds the creation and the roll, chained by their hashes, and replays exactly.
//! assert_eq!(store.log(&LogFilter::default())?.len(), 2);
//! assert!(store.verify("Tak")?.is_ok());
//! assert!(store.replay("Tak", &Limits::default())?.is_ok());
//! # Ok::<(), omen_store::StoreError>(())
//! ```
//!
//! # Storage
//!
//! One database file: [`default_path`] in the platform's data directory, or the one [`resolve_path`]
//! picks from `--db` and `OMEN_DB`. [`Store::open`] creates it, applies the migrations in
//! `migrations/` (plain SQL, one transaction each, the version in `PRAGMA user_version`, see
//! [`SCHEMA_VERSION`]), and turns on write-ahead logging, foreign keys and a busy timeout
//! ([`BUSY_TIMEOUT`]): a second writer waits instead of failing.
//!
//! [`Database`] reads `--db`: a path or `sqlite://PATH` is a SQLite file, `postgres://…` a PostgreSQL
//! database ([`Store::open_postgres`]: a pool of connections, the migrations in
//! `migrations/postgres/`, one per schema version, the version in a table `omen_schema`). The logic
//! is written once over both; only the SQL of a few statements and the migrations differ, and every
//! stored value is text or an integer, so the hashes and signatures of a log are the same whichever
//! engine wrote it.
//!
//! Every change is one transaction begun with `BEGIN IMMEDIATE` on SQLite; on PostgreSQL a change
//! to a campaign's log locks the campaign's row (`SELECT … FOR UPDATE`) first, so writers of one
//! campaign take turns and writers of different campaigns do not wait for each other. A seed is
//! derived from the log's head inside that lock, so a retried action gets the same dice. so an action reads the state, rolls,
//! and writes the new state and its log entry with no other writer in between: two processes acting on
//! one character never lose an update, and a process killed in the middle leaves the last committed
//! state. A full disk or a read-only file is an error ([`StoreError::DiskFull`],
//! [`StoreError::ReadOnly`]) and changes nothing.
//!
//! On PostgreSQL each log entry's transaction also announces it (campaign and sequence number, on
//! [`LOG_CHANNEL`], delivered on commit), and [`Store::listen`] follows those announcements from
//! every process on the database: how several servers share one live log.
//!
//! # The log
//!
//! Every roll, action and change to a character is a [`LogEntry`], numbered per campaign. Each holds
//! the time, the campaign's and the character's identities and names, the inputs, the seed and every
//! die rolled (or a mark that the dice were given by hand), the result, and the state before and
//! after; its hash ([`LogEntry::compute_hash`]) covers all of that, the public key and the hash of
//! the entry before it, and is signed with the campaign's Ed25519 key. The key is kept in a file
//! outside the database ([`resolve_key_path`]: `--key`, `OMEN_KEY`, or the database's path with
//! `.key`), owner-only; the database holds only the public key. A roll's seed is derived from the
//! key's (deterministic) signature of the entry's place in the chain, so it cannot be chosen
//! ([`Dice::Derived`]; a chosen [`Dice::Seed`] is refused). The head (last number and hash) is kept in
//! a row of its own, signed, in the same transaction.
//!
//! [`Store::verify`] checks every hash, link, signature and seed proof, the head, and that each
//! character's stored state is the one its last entry left: whoever changed the file without the key
//! is named. [`Store::verify_since`] also checks a receipt ([`ChainHead::receipt`]), which catches a
//! rewrite by the key's holder. [`Store::replay`] rolls every entry again from its recorded dice (and
//! seed) and checks the results and states, and that each character's state runs on from entry to
//! entry.
//!
//! A database from before signed logs is re-anchored when opened: a signed `migrate` entry names its
//! old head and holds every character's state. An import ([`Store::import_campaign`]) checks the
//! exported log against its own public key, then carries it on under this database's key with a
//! signed `import` entry.
//!
//! A file that holds another program's data is refused before anything is written to it: Omen marks
//! its databases with [`APPLICATION_ID`].
//!
//! # Members
//!
//! A campaign's members join by invites ([`Store::create_invite`]): a [`Role`] (game master, player
//! owning some characters, observer) and a random token shown once and kept only as its SHA-256.
//! [`Store::authenticate`] turns a token into the [`Member`] it lets in; [`Store::revoke_invite`] ends
//! it. Invites and revocations are logged without the token; exports carry no members.
//!
//! # Hidden rolls
//!
//! [`Store::perform`] and [`Store::submit_roll`] take requests ([`ActionRequest`], [`RollRequest`])
//! with [`EntryOptions`]: a
//! [`Visibility`] (public, private, blind, self) and the [`Actor`] who made the entry. A hidden
//! entry (format version 3) commits to its content with a salted SHA-256
//! ([`LogEntry::compute_commitment`]) and its hash covers the commitment instead of the content, so
//! the chain verifies without it; [`Store::reveal`] logs the salt, and verify checks every revealed
//! (and every stored hidden) content against its commitment. [`Store::log_for`] and
//! [`Store::entry_for`] give the log as a [`Viewer`] may see it, with what the rule sets keep for the
//! game master removed for everyone else. Public entries with no actor are still written as version
//! 2, so their form is unchanged.
//!
//! # Sessions
//!
//! [`Store::statistics`] counts dice per session. A session is a campaign's entries on one UTC calendar
//! day: simple to state, and the same for every player wherever they sit.
//!
//! # Fairness
//!
//! [`Store::fairness`] tests a campaign's dice, per session and as a whole: every die's faces against
//! its fair faces, every logged expression's results against its exact distribution, and every
//! rule-set action's results against the exact odds it had from its state, with an exact
//! multinomial test or the G-test ([`goodness`]) and a plain [`Verdict`]. [`Store::fairness_for`]
//! leaves out what a viewer may not see.
//!
//! # Export
//!
//! [`Store::export_campaign`] writes a whole campaign as JSON, log, hashes, signatures and public key
//! included; [`Store::import_campaign`] reads it back (under another name if asked), refusing a name
//! that is taken and a log that does not verify.

// STYLE.md 16: no function over 100 lines; a longer one is split into named steps.
#![deny(clippy::too_many_lines)]

mod audience;
mod channel;
mod copy;
mod db;
mod dice;
mod discord;
pub mod draw;
mod error;
mod exchange;
mod fairness;
mod fit;
mod key;
mod log;
mod logged;
mod members;
mod notify;
mod pg;
mod pg_client;
mod pg_shape;
mod replay;
mod request;
mod roll;
mod schema;
mod stats;
mod store;
mod time;
mod tls;
mod viewer;
mod visibility;
mod web_session;

pub use audience::Visibility;
pub use channel::LOG_CHANNEL;
pub use copy::CopyReport;
pub use dice::{Dice, RolledDie};
pub use discord::{DiscordGmChannel, DiscordSeat};
pub use error::{Existing, Missing, StoreError};
pub use exchange::{EXPORT_FORMAT, EXPORT_VERSION};
pub use fairness::{
    DieFairness, FairnessCache, FairnessOptions, FairnessReport, FairnessSection, FairnessTally,
    MechanicFairness, OutcomeCount, Power, SessionFairness,
};
pub use fit::{
    Fit, MIN_EXPECTED, MIN_ROLLS, SUSPICIOUS_BELOW, Stratum, Verdict, chi_square,
    exact_multinomial, g_test, goodness,
};
pub use key::{fingerprint, resolve_key_path};
pub use log::{ChainHead, GENESIS_HASH, LogEntry, LogProblem, Receipt, VerifyReport};
pub use notify::{LogListener, LogSignal};
pub use pg::{DEFAULT_POOL, MAX_POOL};
pub use replay::ReplayReport;
pub use request::{ActionRequest, RollRequest, Rollable};
pub use roll::{
    ExpressionRoll, RollRecord, check_expression, in_omen_notation, param_value, roll_expression,
};
pub use schema::APPLICATION_ID;
pub use schema::SCHEMA_VERSION;
pub use stats::{DieStatistics, FaceCount, SessionStatistics};
pub use store::{
    BUSY_TIMEOUT, Campaign, Character, Database, Engine, LogFilter, PLAIN, SavedRoll, Store,
    default_path, resolve_database, resolve_path,
};
pub use time::{normalize_time, session_bounds};
pub use viewer::{Actor, EntryOptions, Invite, Member, Role, Viewer};
pub use visibility::{ViewReport, verify_view};
pub use web_session::WebSession;
