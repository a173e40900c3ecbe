//! `omen log`: list and filter the roll log, verify its hash chain (or what one viewer sees of
//! it), print its head as a receipt, replay it from the recorded dice, its statistics and the
//! fairness of its dice, and reveal a hidden roll.

use omen_core::Limits;
use omen_store::{LogFilter, Store, Viewer};
use serde_json::json;

use super::shared::{attempt, campaign_name, fail, print, viewer};
use crate::escape;
use crate::log_args::{LogArgs, LogCommand, LogFilterArgs};
use crate::shared_args::RollFormat;
use crate::store_access::{open_read, open_write};
use crate::words::count;

/// The lines of one section of a fairness report.
fn fairness_text(text: &mut String, section: &omen_store::FairnessSection) {
    let pooled = |fit: &Option<omen_store::Fit>| {
        if fit.as_ref().is_some_and(|f| f.pooled) {
            " [small outcomes pooled]"
        } else {
            ""
        }
    };
    for die in &section.dice {
        let given = if die.given > 0 {
            format!(" ({} given by hand)", die.given)
        } else {
            String::new()
        };
        text.push_str(&format!(
            "  {:<10} {:>6} rolled{given}: {}{}\n",
            escape::line(&die.die),
            die.rolled,
            die.summary,
            pooled(&die.fit)
        ));
        power_lines(text, &die.power);
    }
    for mechanic in &section.mechanics {
        text.push_str(&format!(
            "  {:<10} {:>10}: {}{}\n",
            escape::line(&mechanic.mechanic),
            count(mechanic.rolls, "roll", "rolls"),
            escape::line(&mechanic.summary),
            pooled(&mechanic.fit)
        ));
        power_lines(text, &mechanic.power);
    }
}

/// What a verdict can see, under it: "with 100 rolls of d20 this test tells a fair die from one
/// that never shows 20 only 31 % of the time".
fn power_lines(text: &mut String, power: &[omen_store::Power]) {
    for figure in power {
        text.push_str(&format!("      {}\n", escape::line(&figure.text)));
    }
}

fn filter(store: &Store, args: &LogFilterArgs) -> Result<LogFilter, String> {
    Ok(LogFilter {
        campaign: Some(campaign_name(store, &args.campaign)?),
        character: args.character.clone(),
        action: args.action.clone(),
        since: args.since.clone(),
        until: args.until.clone(),
        last: args.last,
    })
}

pub fn log(args: &LogArgs, limits: &Limits) -> anyhow::Result<bool> {
    let format = args.db.format;
    let named = attempt!(args.campaign());
    if let Some(LogCommand::Reveal { words }) = &args.command {
        return reveal(args, &named, words);
    }
    let store = attempt!(open_read(&args.db.db, &args.db.key));
    // `omen log verfy` reads as a campaign named `verfy`: name the subcommand it resembles.
    if let (None, Some(name)) = (&args.command, &args.campaign)
        && store.campaign(name).is_err()
        && let Some(meant) = crate::log_args::log_subcommand_like(name)
    {
        let name = escape::line(name);
        return fail(format!(
            "no campaign `{name}`; did you mean `omen log {meant}`?"
        ));
    }
    let mut filter_args = args.filter.clone();
    filter_args.campaign = named;
    let filter = attempt!(filter(&store, &filter_args));
    let campaign = filter.campaign.clone().unwrap_or_default();
    if args.view.is_some()
        && matches!(
            args.command,
            Some(LogCommand::Stats { .. } | LogCommand::Replay { .. })
        )
    {
        return fail(
            "--view applies to listing, verify, fairness and export; stats and replay read the whole database, for its owner",
        );
    }
    let listing = LogCommand::List { campaign: None };
    match args.command.as_ref().unwrap_or(&listing) {
        LogCommand::List { .. } => list(&store, args, &campaign, &filter),
        LogCommand::Verify { since, .. } => verify(&store, args, &campaign, since),
        LogCommand::Head { .. } => head(&store, format, &campaign),
        LogCommand::Replay { .. } => replay(&store, format, &campaign, limits),
        LogCommand::Stats { .. } => stats(&store, format, &filter),
        LogCommand::Fairness { session, .. } => fairness(&store, args, &campaign, filter, session),
        LogCommand::Reveal { .. } => unreachable!("handled before the store is opened to read"),
    }
}

/// `omen log reveal`: a hidden roll's salt logged, so everyone sees it and verify checks it.
fn reveal(args: &LogArgs, named: &Option<String>, words: &[String]) -> anyhow::Result<bool> {
    let format = args.db.format;
    let sequence = attempt!(crate::log_args::entry_number(words));
    let mut store = attempt!(open_write(&args.db));
    let campaign = &attempt!(campaign_name(&store, named));
    let entry = attempt!(store.reveal(campaign, sequence));
    print(
        format,
        &format!(
            "entry {sequence} of `{}` is revealed (by entry {}): everyone sees it now, and `omen log verify` checks it against its commitment\n",
            escape::line(campaign),
            entry.sequence
        ),
        &entry,
    )
}

/// `omen log list`: the entries, as the viewer `--view` names sees them.
fn list(store: &Store, args: &LogArgs, campaign: &str, filter: &LogFilter) -> anyhow::Result<bool> {
    let format = args.db.format;
    let entries = match viewer(campaign, args.view, &args.as_characters) {
        None => attempt!(store.log(filter)),
        Some(viewer) => attempt!(store.log_for(filter, &viewer)),
    };
    let mut text = String::new();
    for e in &entries {
        // What an entry is beyond its summary: dice entered by hand, a game master's edit, a
        // re-anchoring under a key, a hidden roll.
        let hidden;
        let mark = match (e.dice_given, e.action.as_str()) {
            (true, _) => "  [given dice]",
            (_, "edit") => "  [game-master edit]",
            (_, "migrate" | "import") => "  [re-anchored]",
            _ if !e.visibility.is_public() => {
                hidden = format!("  [{}]", e.visibility);
                hidden.as_str()
            }
            _ => "",
        };
        text.push_str(&format!(
            "{:>4}  {}  {:<10} {:<14} {}{mark}\n",
            e.sequence,
            escape::line(&e.time),
            escape::line(e.character.as_deref().unwrap_or("-")),
            escape::line(&e.action),
            escape::line(&e.summary)
        ));
    }
    if entries.is_empty() {
        text.push_str("no entries\n");
    }
    print(format, &text, &entries)
}

/// `omen log verify`: the whole log checked, or what one viewer sees of it.
fn verify(
    store: &Store,
    args: &LogArgs,
    campaign: &str,
    since: &Option<String>,
) -> anyhow::Result<bool> {
    let format = args.db.format;
    if let Some(viewer) = viewer(campaign, args.view, &args.as_characters) {
        return verify_view(store, format, campaign, &viewer);
    }
    let report = match since {
        Some(receipt) => {
            let receipt: omen_store::Receipt = attempt!(receipt.parse());
            attempt!(store.verify_since(campaign, &receipt))
        }
        None => attempt!(store.verify(campaign)),
    };
    let shown = escape::line(campaign);
    let mut text = if report.problems.is_empty() {
        format!(
            "the log of `{shown}` is intact: {}, every hash, signature and seed verified, every character's state agrees with its last entry\n",
            count(report.entries, "entry", "entries")
        )
    } else {
        let mut text = format!("the log of `{shown}` has been tampered with:\n");
        for p in &report.problems {
            text.push_str(&format!("  {}\n", escape::line(&p.to_string())));
        }
        text
    };
    if let Some(print) = &report.fingerprint {
        let checked = if report.key_file_checked {
            "the key in your key file"
        } else {
            "no key file here to compare with: compare the fingerprint with the one you trust"
        };
        text.push_str(&format!("signed with key {print} ({checked})\n"));
    }
    if report.unsigned_entries > 0 {
        text.push_str(&format!(
            "entries 1 to {} were written before logs were signed: they are vouched for only from the migration entry that re-anchored them\n",
            report.unsigned_entries
        ));
    }
    if let (Some(receipt), true) = (since, report.problems.is_empty()) {
        text.push_str(&format!(
            "the log extends your receipt {}\n",
            escape::line(receipt)
        ));
    }
    let ok = report.problems.is_empty();
    print(format, &text, &report)?;
    Ok(ok)
}

/// `omen log head`: the head as a receipt to keep, and what the next draw is committed to.
fn head(store: &Store, format: RollFormat, campaign: &str) -> anyhow::Result<bool> {
    let head = attempt!(store.head(campaign));
    let next_draw = attempt!(store.published_draw_commitment(campaign));
    let text = match &head {
        Some(head) => format!("{}\n", head.receipt()),
        None => format!("the log of `{}` is empty\n", escape::line(campaign)),
    };
    print(
        format,
        &text,
        &json!({
            "campaign": campaign,
            "head": head,
            "receipt": head.as_ref().map(omen_store::ChainHead::receipt),
            // What the next entry's draw is committed to (see the README's trust model).
            "next_draw_commitment": next_draw,
        }),
    )
}

/// `omen log replay`: every entry recomputed from its recorded dice.
fn replay(
    store: &Store,
    format: RollFormat,
    campaign: &str,
    limits: &Limits,
) -> anyhow::Result<bool> {
    let report = attempt!(store.replay(campaign, limits));
    let text = if report.problems.is_empty() {
        format!(
            "replayed {} of `{campaign}`: every result and state is the same\n",
            count(report.replayed, "entry", "entries")
        )
    } else {
        let mut text = format!(
            "replayed {} of `{campaign}`; these differ:\n",
            count(report.replayed, "entry", "entries")
        );
        for problem in &report.problems {
            text.push_str(&format!("  {}\n", escape::line(&problem.to_string())));
        }
        text
    };
    let ok = report.problems.is_empty();
    print(format, &text, &report)?;
    Ok(ok)
}

/// `omen log stats`: dice statistics per session.
fn stats(store: &Store, format: RollFormat, filter: &LogFilter) -> anyhow::Result<bool> {
    let sessions = attempt!(store.statistics(filter));
    let mut text = String::new();
    for s in &sessions {
        text.push_str(&format!(
            "session {} ({} to {}): {}, {}, {}\n",
            s.session,
            s.first,
            s.last,
            count(s.entries, "entry", "entries"),
            count(s.rolls, "roll", "rolls"),
            count(s.dice, "die", "dice")
        ));
        for die in &s.by_die {
            let faces: Vec<String> = die
                .faces
                .iter()
                .map(|f| format!("{}×{}", f.face, f.count))
                .collect();
            let expected = die
                .expected_mean
                .map_or(String::new(), |m| format!(" (fair: {m:.2})"));
            text.push_str(&format!(
                "  {:<6} {:>5} rolled, mean {:.2}{expected}: {}\n",
                die.die,
                die.rolled,
                die.mean,
                faces.join(" ")
            ));
        }
    }
    if sessions.is_empty() {
        text.push_str("no rolls\n");
    }
    print(format, &text, &sessions)
}

/// `omen log fairness`: are the dice fair, per session and for the whole campaign.
fn fairness(
    store: &Store,
    args: &LogArgs,
    campaign: &str,
    filter: LogFilter,
    session: &Option<String>,
) -> anyhow::Result<bool> {
    let format = args.db.format;
    let mut filter = filter;
    if let Some(date) = session {
        let (since, until) = attempt!(omen_store::session_bounds(date));
        filter.since = Some(since);
        filter.until = Some(until);
    }
    let report = match viewer(campaign, args.view, &args.as_characters) {
        Some(viewer) => attempt!(store.fairness_for(campaign, &filter, &viewer)),
        None => attempt!(store.fairness(campaign, &filter)),
    };
    let mut text = format!(
        "fairness of `{}`{}: {}\n",
        escape::line(campaign),
        session.as_ref().map_or(String::new(), |d| format!(
            " in session {}",
            escape::line(d)
        )),
        count(report.whole.rolls, "roll", "rolls")
    );
    fairness_text(&mut text, &report.whole);
    if session.is_none() && report.sessions.len() > 1 {
        for s in &report.sessions {
            text.push_str(&format!(
                "session {}: {}\n",
                s.session,
                count(s.section.rolls, "roll", "rolls")
            ));
            fairness_text(&mut text, &s.section);
        }
    }
    if report.whole.rolls == 0 {
        text.push_str("no rolls to test\n");
    }
    print(format, &text, &report)
}

/// `omen log verify --view …`: the check a viewer can make of what they see.
fn verify_view(
    store: &Store,
    format: RollFormat,
    campaign: &str,
    viewer: &Viewer,
) -> anyhow::Result<bool> {
    // The check a viewer can make of what they see, without the database's hidden parts.
    let whole = LogFilter {
        campaign: Some(campaign.to_string()),
        ..LogFilter::default()
    };
    let entries = attempt!(store.log_for(&whole, viewer));
    let Some(key) = attempt!(store.public_key(campaign)) else {
        return fail(format!(
            "campaign `{}` has no public key to check its log with",
            escape::line(campaign)
        ));
    };
    let report = omen_store::verify_view(&entries, &key);
    let shown = escape::line(campaign);
    let mut text = if report.is_ok() {
        format!(
            "the log of `{shown}` as this view sees it is intact: {} linked and signed, {} recomputed (hidden rolls from their commitments), {} checked against their commitments\n",
            count(report.entries, "entry", "entries"),
            count(report.hashes_checked, "hash", "hashes"),
            count(
                report.commitments_checked,
                "revealed or visible hidden roll",
                "revealed or visible hidden rolls"
            )
        )
    } else {
        let mut text = format!("the log of `{shown}` does not verify in this view:\n");
        for p in &report.problems {
            text.push_str(&format!("  {}\n", escape::line(&p.to_string())));
        }
        text
    };
    if report.content_withheld > 0 {
        text.push_str(&format!(
            "{} fields kept for the game master: their place and signature are checked, not their content\n",
            if report.content_withheld == 1 {
                "1 entry holds".to_string()
            } else {
                format!("{} entries hold", report.content_withheld)
            }
        ));
    }
    if report.sealed > 0 {
        text.push_str(&format!(
            "{} fields kept for the game master, sealed: the hash is checked from what this view shows, the fields stay behind a salted commitment\n",
            if report.sealed == 1 {
                "1 entry holds".to_string()
            } else {
                format!("{} entries hold", report.sealed)
            }
        ));
    }
    text.push_str(&format!(
        "signed with key {}\n",
        omen_store::fingerprint(&key)
    ));
    let ok = report.is_ok();
    print(format, &text, &report)?;
    Ok(ok)
}
