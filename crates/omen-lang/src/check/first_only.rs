//! `!a`: an explosion whose added dice are plain, the steps before it shaping the first roll only.

use omen_core::Keep;

use super::Checker;
use super::modifiers::Modifiers;
use crate::diagnostic::Diagnostic;

impl Checker<'_> {
    /// The exact engine sums such dice one chain at a time: keeping or dropping dice, which would
    /// rank the first rolls among the added ones, compounding and critical marks are refused.
    pub(super) fn refuse_first_only(&mut self, out: &Modifiers, ends: bool) {
        let Some(at) = out.first_only else {
            return;
        };
        let refusal = if matches!(out.explosion, Some((true, _))) {
            Some((
                "a compounding explosion whose added dice are plain (`!!…a`) is not computed yet",
                "explode without compounding, e.g. `3d6ro1!a`",
            ))
        } else if out.keep != Keep::All || ends {
            Some((
                "keep or drop on dice whose first roll alone is rerolled (`!a`) is not computed yet",
                "keep whole dice through a function per die, e.g. \
                 `fn die() = let f = d6ro1 in if f = 6 then f + d6! else f; {die(), die(), die()}kh2`",
            ))
        } else if out.critical_success.is_some() || out.critical_failure.is_some() {
            Some((
                "critical marks on dice whose first roll alone is rerolled (`!a`) are not computed yet",
                "mark the criticals in another term",
            ))
        } else {
            None
        };
        if let Some((message, help)) = refusal {
            self.errors
                .push(Diagnostic::error("unsupported-modifier", at, message).with_help(help));
        }
    }
}
