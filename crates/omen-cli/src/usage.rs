//! Checks of the command line that clap cannot make one argument at a time: a flag whose repeats
//! would silently drop a value.

use crate::args::{Cli, Command, ProbParam};

/// The first parameter named by more than one `--param`, as the message that refuses it. Each
/// value is meant, so keeping one of them quietly would compute something the user did not ask for.
pub fn repeated_param(cli: &Cli) -> Option<String> {
    let names: Vec<&str> = match cli.command.as_ref()? {
        Command::Roll(args) => args.script.params.iter().map(|(n, _)| n.as_str()).collect(),
        Command::Prob(args) => prob_names(&args.params),
        Command::Plot(args) => prob_names(&args.params),
        Command::Save(args) => args
            .params
            .iter()
            .filter_map(|p| p.split_once('=').map(|(n, _)| n.trim()))
            .collect(),
        _ => return None,
    };
    first_repeat(&names).map(|name| {
        format!(
            "--param {name} given twice; give each parameter once (a range A..B gives several values)"
        )
    })
}

fn prob_names(params: &[ProbParam]) -> Vec<&str> {
    params
        .iter()
        .map(|p| match p {
            ProbParam::One(name, _) | ProbParam::Range(name, _, _) => name.as_str(),
        })
        .collect()
}

fn first_repeat<'a>(names: &[&'a str]) -> Option<&'a str> {
    names
        .iter()
        .enumerate()
        .find(|(i, name)| names[..*i].contains(name))
        .map(|(_, name)| *name)
}

/// The campaign named in up to three places (after `log`, after its subcommand, `--campaign`):
/// none, or one name however often it is given; two different names are refused rather than one
/// of them chosen.
pub fn one_campaign(named: &[Option<&String>]) -> Result<Option<String>, String> {
    let mut names = named.iter().flatten();
    let Some(first) = names.next() else {
        return Ok(None);
    };
    match names.find(|other| other != &first) {
        Some(other) => Err(format!(
            "two campaigns named, `{}` and `{}`; name one, positionally or with --campaign",
            crate::escape::line(first),
            crate::escape::line(other)
        )),
        None => Ok(Some((*first).clone())),
    }
}

/// The entry number of `omen log reveal [CAMPAIGN] SEQUENCE`: the last word.
pub fn entry_number(words: &[String]) -> Result<u64, String> {
    let last = words.last().map(String::as_str).unwrap_or_default();
    last.parse().map_err(|_| {
        format!(
            "`{}` is not an entry number; write `omen log reveal [CAMPAIGN] SEQUENCE`, the number as `omen log` lists it",
            crate::escape::line(last)
        )
    })
}

/// The `omen log` subcommand `word` is a slip for (at most two letters off), if any.
pub fn log_subcommand_like(word: &str) -> Option<&'static str> {
    const SUBCOMMANDS: [&str; 7] = [
        "list", "verify", "head", "replay", "stats", "fairness", "reveal",
    ];
    let word = word.to_lowercase();
    SUBCOMMANDS
        .into_iter()
        .find(|name| edit_distance(&word, name) <= 2)
}

/// Levenshtein distance, for short words.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitute = diagonal + usize::from(ca != *cb);
            diagonal = row[j + 1];
            row[j + 1] = substitute.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slip_of_a_log_subcommand_is_named() {
        assert_eq!(log_subcommand_like("verfy"), Some("verify"));
        assert_eq!(log_subcommand_like("Stat"), Some("stats"));
        assert_eq!(log_subcommand_like("Ravenloft"), None);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    #[test]
    fn one_campaign_however_often_it_is_named() {
        let tak = "Tak".to_string();
        let other = "Ravenloft".to_string();
        assert_eq!(one_campaign(&[None, None, None]), Ok(None));
        assert_eq!(
            one_campaign(&[Some(&tak), None, Some(&tak)]),
            Ok(Some(tak.clone()))
        );
        let two = one_campaign(&[None, Some(&tak), Some(&other)]).unwrap_err();
        assert!(two.contains("`Tak` and `Ravenloft`"), "{two}");
    }

    #[test]
    fn the_entry_number_is_the_last_word() {
        assert_eq!(entry_number(&["Tak".into(), "17".into()]), Ok(17));
        assert_eq!(entry_number(&["17".into()]), Ok(17));
        assert!(entry_number(&["Tak".into()]).is_err());
    }

    #[test]
    fn the_second_use_of_a_name_is_the_repeat() {
        assert_eq!(first_repeat(&["a", "b", "a", "b"]), Some("a"));
        assert_eq!(first_repeat(&["a", "b"]), None);
        assert_eq!(first_repeat(&[]), None);
    }
}
