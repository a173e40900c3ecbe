//! Who may see a roll: the word an entry records, below everything that reads or writes entries
//! (the errors name it too).

use serde::{Deserialize, Serialize};

/// Who may see a roll.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Visibility {
    /// Everyone.
    #[default]
    Public,
    /// The roller and the game master.
    Private,
    /// The game master only; the roller sees that a roll happened.
    Blind,
    /// The roller only.
    #[serde(rename = "self")]
    SelfOnly,
}

impl Visibility {
    pub const ALL: [Visibility; 4] = [
        Visibility::Public,
        Visibility::Private,
        Visibility::Blind,
        Visibility::SelfOnly,
    ];

    /// `public`, `private`, `blind` or `self`.
    pub fn as_str(self) -> &'static str {
        match self {
            Visibility::Public => "public",
            Visibility::Private => "private",
            Visibility::Blind => "blind",
            Visibility::SelfOnly => "self",
        }
    }

    pub fn is_public(&self) -> bool {
        *self == Visibility::Public
    }
}

impl std::fmt::Display for Visibility {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
