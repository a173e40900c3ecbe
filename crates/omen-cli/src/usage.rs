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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_second_use_of_a_name_is_the_repeat() {
        assert_eq!(first_repeat(&["a", "b", "a", "b"]), Some("a"));
        assert_eq!(first_repeat(&["a", "b"]), None);
        assert_eq!(first_repeat(&[]), None);
    }
}
