//! Discord's limit on a whole command: the characters of every `name`, `description` and choice
//! `name` and `value` in it, its subcommands and options included, at most [`MAX_COMMAND_TEXT`].
//! Registration replaces every command at once, so one command past the limit would leave the
//! application with none. A rule set with many actions (hprpg has twenty, each with the shared
//! `character`, `visibility`, `entropy` and `commitment`) passes it in full, so its command is made
//! shorter a step at a time, each step losing less than the next, until it fits:
//!
//! 1. the shared options' descriptions said in a few words (they are the same in every command);
//! 2. the descriptions of subcommands and fields cut short;
//! 3. a field's description its name alone, a subcommand's cut shorter still;
//! 4. a field's choices left out (the value is then typed, and the API names the values it takes
//!    when it refuses one).
//!
//! A command that does not fit even then is left out of the registration by the caller; the tests
//! hold that every rule set's fits.

use serde_json::Value;

/// Discord's limit on a command's text. Discord's documentation has said 4000 and, since, 8000;
/// no rule set's command with its subcommands fits in 4000 (twenty subcommands of a hundred
/// characters each), so this is the larger, and a command registration refuses says which.
pub(crate) const MAX_COMMAND_TEXT: usize = 8000;

/// The shared options' descriptions in a few words: what the full ones say is in the README.
const TERSE: [(&str, &str); 4] = [
    ("character", "Who acts"),
    ("visibility", "Who sees it"),
    ("entropy", "Your own randomness for the draw"),
    ("commitment", "The next draw's commitment (/log)"),
];

/// The characters Discord counts in `value`: its name and description, its choices' names and
/// values, and the same of every option in it.
pub(crate) fn text_length(value: &Value) -> usize {
    let chars = |v: &Value| v.as_str().map_or(0, |s| s.chars().count());
    let choices: usize = value["choices"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            chars(&c["name"])
                + match &c["value"] {
                    Value::String(s) => s.chars().count(),
                    other => other.to_string().chars().count(),
                }
        })
        .sum();
    let options: usize = value["options"]
        .as_array()
        .into_iter()
        .flatten()
        .map(text_length)
        .sum();
    chars(&value["name"]) + chars(&value["description"]) + choices + options
}

fn cut(text: &str, most: usize) -> String {
    if text.chars().count() <= most {
        return text.to_string();
    }
    let mut cut: String = text.chars().take(most.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// One step of shortening, applied to every subcommand of `command`.
fn shorten(command: &mut Value, step: usize) {
    for sub in command["options"].as_array_mut().into_iter().flatten() {
        if step >= 2 {
            let most = if step >= 3 { 30 } else { 50 };
            let described = cut(sub["description"].as_str().unwrap_or("—"), most);
            sub["description"] = Value::String(described);
        }
        for option in sub["options"].as_array_mut().into_iter().flatten() {
            let name = option["name"].as_str().unwrap_or_default().to_string();
            if let Some((_, terse)) = TERSE.iter().find(|(shared, _)| *shared == name) {
                option["description"] = Value::String((*terse).to_string());
                continue;
            }
            let described = option["description"].as_str().unwrap_or("—").to_string();
            option["description"] = Value::String(match step {
                0 | 1 => described,
                2 => cut(&described, 40),
                _ => name.clone(),
            });
            if step >= 4
                && let Some(object) = option.as_object_mut()
            {
                object.remove("choices");
            }
        }
    }
}

/// `command` as it is when it fits, else the first shortening of it that fits; none when even the
/// shortest does not.
pub(crate) fn fitted(command: Value) -> Option<Value> {
    if text_length(&command) <= MAX_COMMAND_TEXT {
        return Some(command);
    }
    (1..=4).find_map(|step| {
        let mut shorter = command.clone();
        shorten(&mut shorter, step);
        (text_length(&shorter) <= MAX_COMMAND_TEXT).then_some(shorter)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_text_discord_counts_is_names_descriptions_and_choices() {
        let command = json!({ "name": "ab", "description": "cde", "options": [
            { "name": "f", "description": "gh", "choices": [{ "name": "ij", "value": "k" }, { "name": "l", "value": 10 }] }
        ] });
        // 2 + 3, then 1 + 2, then 2 + 1 and 1 + 2.
        assert_eq!(text_length(&command), 14);
    }

    /// Twenty-five subcommands with long descriptions and two options each are over the limit; the
    /// shorter form keeps every subcommand and option.
    #[test]
    fn a_long_command_is_shortened_keeping_every_subcommand() {
        let long = "x".repeat(100);
        let subs: Vec<Value> = (0..25)
            .map(|n| {
                json!({ "type": 1, "name": format!("action-{n}"), "description": long, "options": [
                    { "type": 3, "name": "character", "description": long },
                    { "type": 3, "name": "field", "description": long,
                      "choices": [{ "name": "a", "value": "a" }] },
                ] })
            })
            .collect();
        let command = json!({ "name": "game", "description": "A game", "options": subs });
        assert!(text_length(&command) > MAX_COMMAND_TEXT);
        let fitted = fitted(command.clone()).unwrap();
        assert!(text_length(&fitted) <= MAX_COMMAND_TEXT);
        let shape = |c: &Value| -> Vec<(Value, usize)> {
            c["options"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| (s["name"].clone(), s["options"].as_array().unwrap().len()))
                .collect()
        };
        assert_eq!(shape(&fitted), shape(&command));
        assert_eq!(
            fitted["options"][0]["options"][0]["description"],
            "Who acts"
        );
        // A command that fits is left as it is.
        let small = json!({ "name": "coin", "description": "Flip", "options": [] });
        assert_eq!(super::fitted(small.clone()), Some(small));
    }
}
