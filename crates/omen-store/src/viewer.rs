//! Who reads and writes a campaign: members and their roles, who makes an entry and who may see it,
//! and who looks at the log. Plain data that the store's parts share, so it imports none of them.

use serde::{Deserialize, Serialize};

use crate::audience::Visibility;
use crate::error::StoreError;

/// A member's role in a campaign.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Role {
    /// Does everything, sees everything (but another member's self-only rolls).
    #[serde(rename = "gm")]
    GameMaster,
    /// Acts for the characters they own; sees what the rule sets do not keep for the game master.
    #[serde(rename = "player")]
    Player,
    /// Reads what a player without characters reads.
    #[serde(rename = "observer")]
    Observer,
}

impl Role {
    /// Every role, in the order above.
    pub const ALL: [Role; 3] = [Role::GameMaster, Role::Player, Role::Observer];

    /// `gm`, `player` or `observer`: the name in JSON, on the command line and in the database.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::GameMaster => "gm",
            Role::Player => "player",
            Role::Observer => "observer",
        }
    }
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Role {
    type Err = StoreError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Role::ALL
            .into_iter()
            .find(|role| role.as_str().eq_ignore_ascii_case(text.trim()))
            .ok_or_else(|| {
                StoreError::Invalid(format!(
                    "`{text}` is not a role; choose gm, player or observer"
                ))
            })
    }
}

/// An invite as listed: never its token.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Invite {
    /// Its number in the database, as `omen campaign revoke` takes it.
    pub id: i64,
    pub campaign: String,
    pub role: Role,
    /// The characters a player's invite owns, by their current names (empty for other roles).
    pub characters: Vec<String>,
    pub created: String,
    /// When it was revoked; a revoked invite no longer lets anyone in.
    pub revoked: Option<String>,
}

/// Who a token lets in: [`crate::Store::authenticate`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Member {
    pub campaign: String,
    pub role: Role,
    /// The characters the member owns, by their current names.
    pub characters: Vec<String>,
    pub invite_id: i64,
}

impl std::str::FromStr for Visibility {
    type Err = StoreError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Visibility::ALL
            .into_iter()
            .find(|v| v.as_str().eq_ignore_ascii_case(text.trim()))
            .ok_or_else(|| {
                StoreError::Invalid(format!(
                    "`{text}` is not a visibility; choose public, private, blind or self"
                ))
            })
    }
}

/// Who makes an entry: the game master, or the member an invite let in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Actor {
    GameMaster,
    /// A member, by invite number.
    Member(i64),
}

impl Actor {
    /// `gm` or `member:ID`: how an entry records its actor.
    pub fn as_text(&self) -> String {
        match self {
            Actor::GameMaster => "gm".to_string(),
            Actor::Member(id) => format!("member:{id}"),
        }
    }

    /// The actor of a member.
    pub fn of(member: &Member) -> Actor {
        Actor::Member(member.invite_id)
    }
}

/// How an action or a roll is logged: who may see it and who made it. The default is a public entry
/// with no actor recorded, as [`crate::Store::act`] and [`crate::Store::roll`] write.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntryOptions {
    #[serde(default)]
    pub visibility: Visibility,
    #[serde(default)]
    pub actor: Option<Actor>,
    /// The caller's entropy for the entry's draw (see [`crate::draw`]): the server's when absent.
    #[serde(default)]
    pub entropy: Option<String>,
    /// The draw commitment the caller saw: the request is refused ([`StoreError::Moved`]) when the
    /// next entry's is another.
    #[serde(default)]
    pub commitment: Option<String>,
    /// Log every refusal of the rule set as a `refused` entry, drawn dice or not: for an action
    /// whose refusal could tell its caller what a hidden roll before it left (see the server's
    /// actions after a hidden roll).
    #[serde(default)]
    pub log_refusals: bool,
}

impl EntryOptions {
    pub fn new(visibility: Visibility, actor: Option<Actor>) -> Self {
        EntryOptions {
            visibility,
            actor,
            entropy: None,
            commitment: None,
            log_refusals: false,
        }
    }

    /// These options, logging every refusal of the rule set (see [`EntryOptions::log_refusals`]).
    pub fn logging_refusals(mut self, log_refusals: bool) -> Self {
        self.log_refusals = log_refusals;
        self
    }

    /// These options with the caller's entropy and the commitment it saw.
    pub fn with_draw(mut self, entropy: Option<String>, commitment: Option<String>) -> Self {
        self.entropy = entropy;
        self.commitment = commitment;
        self
    }
}

/// Who is looking at the log.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Viewer {
    /// The game master at the database: everything but others' self-only rolls.
    GameMaster,
    /// A member, as [`crate::Store::authenticate`] let them in (a game-master member sees what the game
    /// master sees).
    Member(Member),
}

impl Viewer {
    pub(crate) fn is_game_master(&self) -> bool {
        match self {
            Viewer::GameMaster => true,
            Viewer::Member(member) => member.role == Role::GameMaster,
        }
    }

    pub(crate) fn actor(&self) -> String {
        match self {
            Viewer::GameMaster => Actor::GameMaster.as_text(),
            Viewer::Member(member) => Actor::of(member).as_text(),
        }
    }
}
