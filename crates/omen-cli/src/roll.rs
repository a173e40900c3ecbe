//! `omen roll`: an expression or script rolled once with every die shown, from a seed (picked and
//! shown when none is given) or from given dice; in a campaign, the roll is written to its log.

use std::io::{self, Write};

use anyhow::Context;
use omen_core::{ChaChaDice, ScriptedDice};
use omen_lang::{Options, Roll, RollNode, Value, anydice, sample};
use serde::Serialize;

use crate::args::RollArgs;
use crate::diagnostics::{self, Style};
use crate::seed::fresh_seed;
use crate::shared_args::{RollFormat, VisibilityArg};
use crate::source::{Source, compile_input, saved_name};
use crate::status::{Status, fail, fail_to_read, status, succeed};
use crate::transcript::{render_transcript, render_transcript_within};
use crate::{anydice_prob, anydice_roll, campaign, fit, store_access};

/// `omen roll` in a campaign: a saved roll or an expression, rolled and written to the campaign's log
/// in one transaction.
fn roll_in_campaign(args: &RollArgs, style: Style) -> anyhow::Result<Status> {
    let limits = args.limits.to_limits();
    let bad = |message: String| {
        crate::fit::error(message);
        Ok(Status::BadInput)
    };
    let mut store = match store_access::open(&args.campaign.db) {
        Ok(store) => store,
        Err(error) => return bad(error.to_string()),
    };
    let name = match campaign::campaign_name(&store, &args.campaign.campaign) {
        Ok(name) => name,
        Err(message) => return bad(message),
    };
    let saved = saved_name(&args.input);
    let source = match saved {
        Some(saved) => match store.saved_roll(&name, saved) {
            Ok(found) => Source {
                text: found.expression,
                file: None,
            },
            Err(error) => return bad(error.to_string()),
        },
        None => match Source::read(&args.input, Options::default().parse.max_len) {
            Ok(source) => source,
            Err(error) => return fail_to_read(style, &error),
        },
    };
    let params = match campaign::json_param_values(&args.script.params) {
        Ok(params) => params,
        Err(message) => return bad(message),
    };
    let dice = match &args.source.dice {
        Some(values) => omen_store::Dice::Given(values.clone()),
        // A campaign derives its seeds from its key and log; a chosen one is refused by the store.
        None => args
            .source
            .seed
            .map_or(omen_store::Dice::Derived, omen_store::Dice::Seed),
    };
    let character = args.campaign.character.as_deref();
    let options = VisibilityArg::options(args.campaign.visibility);
    let request = match saved {
        Some(saved) => omen_store::RollRequest::saved(&name, saved),
        None => omen_store::RollRequest::expression(&name, &source.text)
            .in_dialect(args.script.dialect.given()),
    };
    let rolled = store.submit_roll(
        request
            .for_character(character)
            .with_params(params.clone())
            .with_dice(dice.clone())
            .with_limits(limits.clone())
            .with_options(options),
    );
    let (entry, rolled) = match rolled {
        Ok(done) => done,
        Err(omen_store::StoreError::Language(errors)) => {
            return fail(style, source.input(), &errors, &[]);
        }
        Err(error) => return bad(error.to_string()),
    };
    let mut warnings = rolled.warnings;
    if !rolled.unused_dice.is_empty() {
        warnings.push(diagnostics::unused_dice(&source.text, &rolled.unused_dice));
    }
    let seed = dice.seed();
    let text = match args.source.format {
        RollFormat::Text => format!(
            "{}logged as entry {} in `{name}`{}\n",
            render_transcript(&rolled.roll, seed),
            entry.sequence,
            campaign::hidden_note(&entry, &name)
        ),
        RollFormat::Json => {
            let report = serde_json::json!({
                "expression": &rolled.roll.expression,
                "seed": seed,
                "result": &rolled.roll.result,
                "tree": &rolled.roll.tree,
                "campaign": name,
                "log_entry": entry.sequence,
                "visibility": entry.visibility,
            });
            format!("{report}\n")
        }
    };
    succeed(style, source.input(), &warnings, |out| {
        out.write_all(text.as_bytes())
    })
}

/// What `omen roll --format json` prints.
#[derive(Serialize)]
struct RollReport<'a> {
    expression: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    seed: Option<u64>,
    result: &'a Value,
    tree: &'a RollNode,
    /// How the expression was read: its canonical, fully parenthesised rendering.
    reading: &'a str,
}

pub fn roll(args: &RollArgs) -> anyhow::Result<Status> {
    let style = match args.source.format {
        RollFormat::Text => Style::Text,
        RollFormat::Json => Style::Json,
    };
    let anydice = anydice_prob::is_anydice(args.script.dialect.name.as_deref());
    if args.approximate.refused(anydice) {
        return Ok(Status::BadInput);
    }
    if args.campaign.wanted(&args.input) {
        if anydice {
            anydice_prob::refuse(anydice_prob::Refused::CampaignRoll);
            return Ok(Status::BadInput);
        }
        return roll_in_campaign(args, style);
    }
    if anydice {
        return roll_anydice(args, style);
    }
    let (options, script, checked) =
        match compile_input(&args.input, &args.script, &args.limits, style) {
            Ok(compiled) => compiled,
            Err(status) => return status,
        };
    let (input, source) = (script.input(), script.text.as_str());
    let mut warnings = checked.warnings;
    let (rolled, seed) = match &args.source.dice {
        Some(values) => {
            let mut dice = ScriptedDice::new(values.clone());
            let rolled = sample(&checked.program, &options.limits, &mut dice);
            if rolled.is_ok() && !dice.remaining().is_empty() {
                warnings.push(diagnostics::unused_dice(source, dice.remaining()));
            }
            (rolled, None)
        }
        None => {
            let seed = args.source.seed.unwrap_or_else(fresh_seed);
            let mut dice = ChaChaDice::from_seed(seed);
            (
                sample(&checked.program, &options.limits, &mut dice),
                Some(seed),
            )
        }
    };
    let rolled: Roll = match rolled {
        Ok(rolled) => rolled,
        Err(error) => return fail(style, input, &[error], &warnings),
    };
    // Rendering stops as soon as the text passes --max-output, so a huge roll is never built whole.
    let max_output = usize::try_from(options.limits.max_output).unwrap_or(usize::MAX);
    let text = match args.source.format {
        RollFormat::Text => {
            // After the seed line, which stays first so that a roll can be replayed from it.
            render_transcript_within(&rolled, seed, max_output).map(|transcript| {
                let split = if seed.is_some() {
                    transcript.find('\n').map_or(0, |i| i + 1)
                } else {
                    0
                };
                let (seed_line, rest) = transcript.split_at(split);
                let text = format!("{seed_line}reading: {}\n{rest}", checked.reading);
                fit::wrap(&text, fit::width())
            })
        }
        RollFormat::Json => {
            let report = RollReport {
                expression: &rolled.expression,
                seed,
                result: &rolled.result,
                tree: &rolled.tree,
                reading: &checked.reading,
            };
            let mut out = CappedBuffer {
                bytes: Vec::new(),
                limit: max_output,
            };
            match serde_json::to_writer(&mut out, &report) {
                Ok(()) => {
                    out.bytes.push(b'\n');
                    Some(String::from_utf8(out.bytes).context("writing the roll as JSON")?)
                }
                Err(error) if error.is_io() => None,
                Err(error) => return Err(error).context("writing the roll as JSON"),
            }
        }
    };
    let Some(text) = text.filter(|t| t.len() <= max_output) else {
        return fail(
            style,
            input,
            &[diagnostics::too_much_output(
                u128::from(options.limits.max_output) + 1,
                options.limits.max_output,
            )
            .with_help("roll fewer dice or a shorter process, or raise --max-output")],
            &warnings,
        );
    };
    succeed(style, input, &warnings, |out| {
        out.write_all(text.as_bytes())
    })
}

/// `omen roll --dialect anydice`: the program's outputs, one roll each, from the given dice or seed.
fn roll_anydice(args: &RollArgs, style: Style) -> anyhow::Result<Status> {
    let limits = args.limits.to_limits();
    let source = match Source::read(&args.input, anydice::MAX_SOURCE_BYTES) {
        Ok(source) => source,
        Err(e) => return fail_to_read(style, &e),
    };
    let precision = args.approximate.precision();
    let rolled = match &args.source.dice {
        Some(values) => {
            let dice = anydice_roll::RollDice::Given(values.clone());
            anydice_roll::roll(source.input(), &limits, precision, dice, style)
        }
        None => {
            let seed = args.source.seed.unwrap_or_else(fresh_seed);
            let mut chacha = ChaChaDice::from_seed(seed);
            let dice = anydice_roll::RollDice::Seeded {
                dice: &mut chacha,
                seed,
            };
            anydice_roll::roll(source.input(), &limits, precision, dice, style)
        }
    };
    status(rolled)
}

/// A buffer that refuses to grow past `limit` bytes: a writer into it fails instead.
struct CappedBuffer {
    bytes: Vec<u8>,
    limit: usize,
}

impl Write for CappedBuffer {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.bytes.len().saturating_add(buf.len()) > self.limit {
            return Err(io::Error::other("the output limit is reached"));
        }
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
