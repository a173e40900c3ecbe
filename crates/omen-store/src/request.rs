//! What an action or a logged roll asks for, as one value each: the campaign, the character, what
//! to do, the dice, the limits and how the entry is logged ([`EntryOptions`]). A request is built
//! with the campaign and what to do; the rest defaults (derived dice, the default limits, a public
//! entry with no actor) and is changed by the `with_*` methods.

use std::collections::BTreeMap;

use omen_core::Limits;
use omen_lang::syntax::Dialect;
use serde_json::Value;

use crate::dice::Dice;
use crate::viewer::EntryOptions;

/// A rule-set action for a character: what [`crate::Store::perform`] applies and logs.
#[derive(Clone, Debug)]
pub struct ActionRequest<'a> {
    pub campaign: &'a str,
    pub character: &'a str,
    /// The action, as the character's rule set describes it (`{"action": "roll", ...}`).
    pub action: &'a Value,
    pub dice: Dice,
    pub limits: Limits,
    pub options: EntryOptions,
}

impl<'a> ActionRequest<'a> {
    /// `action` for `character` of `campaign`, with derived dice, the default limits, logged in
    /// public with no actor.
    pub fn new(campaign: &'a str, character: &'a str, action: &'a Value) -> Self {
        ActionRequest {
            campaign,
            character,
            action,
            dice: Dice::Derived,
            limits: Limits::default(),
            options: EntryOptions::default(),
        }
    }

    pub fn with_dice(mut self, dice: Dice) -> Self {
        self.dice = dice;
        self
    }

    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    pub fn with_options(mut self, options: EntryOptions) -> Self {
        self.options = options;
        self
    }
}

/// What a logged roll rolls.
#[derive(Clone, Copy, Debug)]
pub enum Rollable<'a> {
    /// An expression or script, read in `dialect` or (`None`) in the campaign's dialect.
    Expression {
        text: &'a str,
        dialect: Option<&'static Dialect>,
    },
    /// A saved roll of the campaign, by name; its default parameters under the request's.
    Saved(&'a str),
}

/// A roll to make and log in a campaign, optionally for a character: what
/// [`crate::Store::submit_roll`] takes.
#[derive(Clone, Debug)]
pub struct RollRequest<'a> {
    pub campaign: &'a str,
    pub character: Option<&'a str>,
    pub roll: Rollable<'a>,
    /// Values for the roll's `param` declarations.
    pub params: BTreeMap<String, Value>,
    /// [`Dice::Derived`] (the seed the log gives) or [`Dice::Given`] (logged as given).
    pub dice: Dice,
    pub limits: Limits,
    pub options: EntryOptions,
}

impl<'a> RollRequest<'a> {
    /// A roll of `text` in `campaign`, read in the campaign's dialect.
    pub fn expression(campaign: &'a str, text: &'a str) -> Self {
        Self::of(
            campaign,
            Rollable::Expression {
                text,
                dialect: None,
            },
        )
    }

    /// A roll of the saved roll `name` of `campaign`.
    pub fn saved(campaign: &'a str, name: &'a str) -> Self {
        Self::of(campaign, Rollable::Saved(name))
    }

    fn of(campaign: &'a str, roll: Rollable<'a>) -> Self {
        RollRequest {
            campaign,
            character: None,
            roll,
            params: BTreeMap::new(),
            dice: Dice::Derived,
            limits: Limits::default(),
            options: EntryOptions::default(),
        }
    }

    /// Reads an expression in `dialect` (`None`: the campaign's); a saved roll is in Omen's
    /// notation and keeps it.
    pub fn in_dialect(mut self, dialect: Option<&'static Dialect>) -> Self {
        if let Rollable::Expression { text, .. } = self.roll {
            self.roll = Rollable::Expression { text, dialect };
        }
        self
    }

    pub fn for_character(mut self, character: Option<&'a str>) -> Self {
        self.character = character;
        self
    }

    pub fn with_params(mut self, params: BTreeMap<String, Value>) -> Self {
        self.params = params;
        self
    }

    pub fn with_dice(mut self, dice: Dice) -> Self {
        self.dice = dice;
        self
    }

    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    pub fn with_options(mut self, options: EntryOptions) -> Self {
        self.options = options;
        self
    }
}
