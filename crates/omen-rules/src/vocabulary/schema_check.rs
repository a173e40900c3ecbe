//! Every way a JSON value breaks a rule set's JSON Schema, each with its JSON Pointer path, so that a
//! sheet, state or action with several mistakes is answered with all of them at once (serde stops
//! at the first).
//!
//! The walk covers what schemars derives from the rule sets' types: `$ref` into `$defs`, `type`,
//! `properties`, `required`, `additionalProperties`, `items`, `enum`, `const`, `oneOf`/`anyOf`/
//! `allOf`, and numeric `minimum`/`maximum`. A keyword it does not know is not checked; serde's own
//! error still stands behind it. A general validator crate would bring a regex engine, URI and
//! format handling and remote references that these schemas never use.

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// Whether `value` is one of `allowed` written another way, where the schema says that is accepted:
/// `"x-any-spelling": true` marks names read in any case and punctuation (the seeds' names), and
/// `"x-aliases"` lists the other names they go by.
fn another_spelling(rules: &Map<String, Value>, allowed: &[Value], value: &Value) -> bool {
    let (Some(true), Some(text)) = (
        rules.get("x-any-spelling").and_then(Value::as_bool),
        value.as_str(),
    ) else {
        return false;
    };
    let fold = |text: &str| -> String {
        text.split(|c: char| !c.is_alphanumeric() && c != '\'')
            .filter(|word| !word.is_empty())
            .map(|word| word.replace('\'', "").to_uppercase())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let wanted = fold(text);
    let aliases = rules.get("x-aliases").and_then(Value::as_array);
    allowed
        .iter()
        .chain(aliases.into_iter().flatten())
        .filter_map(Value::as_str)
        .any(|name| fold(name) == wanted)
}

/// At most this many problems are listed; the walk stops once it has them.
const MAX_PROBLEMS: usize = 50;

/// Depth of schema references followed within one value: the rule sets' schemas are not recursive,
/// so this only guards against a malformed schema.
const MAX_DEPTH: usize = 64;

/// `value` as a `T`, or a message listing every way it breaks `T`'s JSON Schema (serde alone names
/// only the first).
///
/// # Errors
/// The problems, one per line after a count when there are several; serde's own message when the
/// schema finds one problem or none.
pub fn decode<T: DeserializeOwned + JsonSchema>(value: &Value) -> Result<T, String> {
    serde_json::from_value(value.clone()).map_err(|error| {
        let schema = serde_json::to_value(schemars::schema_for!(T)).unwrap_or(Value::Null);
        let problems = violations(&schema, value);
        match problems.as_slice() {
            // One problem (or none the schema sees): serde's message, which the rule sets' own
            // types make precise ("unknown aspect `FITNES`; did you mean FITNESS?").
            [] | [_] => error.to_string(),
            many => format!("{} problems:\n  {}", many.len(), many.join("\n  ")),
        }
    })
}

/// Every way `value` breaks `schema` (a root schema whose `$ref`s point into its `$defs`), as
/// `"/path: problem"` lines, in document order.
pub fn violations(schema: &Value, value: &Value) -> Vec<String> {
    let mut walk = Walk {
        root: schema,
        found: Vec::new(),
    };
    walk.check(schema, value, &mut String::new(), 0);
    walk.found
}

struct Walk<'a> {
    root: &'a Value,
    found: Vec<String>,
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "true/false",
        Value::Number(n) if n.is_i64() || n.is_u64() => "an integer",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

fn has_type(value: &Value, name: &str) -> bool {
    match name {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "integer" => value.is_i64() || value.is_u64(),
        "number" => value.is_number(),
        "string" => value.is_string(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        _ => true,
    }
}

fn type_name(name: &str) -> &str {
    match name {
        "boolean" => "true/false",
        "integer" => "an integer",
        "number" => "a number",
        "string" => "a string",
        "array" => "a list",
        "object" => "an object",
        other => other,
    }
}

/// A JSON Pointer segment: `~` and `/` escaped.
fn segment(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

fn short(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 40 {
        format!("{}…", text.chars().take(40).collect::<String>())
    } else {
        text
    }
}

impl<'a> Walk<'a> {
    fn report(&mut self, path: &str, problem: String) {
        if self.found.len() < MAX_PROBLEMS {
            let path = if path.is_empty() { "/" } else { path };
            self.found.push(format!("{path}: {problem}"));
        }
    }

    fn resolve(&self, schema: &'a Value) -> &'a Value {
        let mut schema = schema;
        for _ in 0..MAX_DEPTH {
            let Some(reference) = schema.get("$ref").and_then(Value::as_str) else {
                break;
            };
            let Some(pointer) = reference.strip_prefix('#') else {
                break;
            };
            match self.root.pointer(pointer) {
                Some(target) => schema = target,
                None => break,
            }
        }
        schema
    }

    fn check(&mut self, schema: &'a Value, value: &Value, path: &mut String, depth: usize) {
        if depth > MAX_DEPTH || self.found.len() >= MAX_PROBLEMS {
            return;
        }
        let schema = self.resolve(schema);
        let Some(rules) = schema.as_object() else {
            // `true` accepts anything; `false` nothing.
            if schema == &Value::Bool(false) {
                self.report(path, "nothing is allowed here".to_string());
            }
            return;
        };
        if let Some(types) = rules.get("type") {
            let names: Vec<&str> = match types {
                Value::String(name) => vec![name.as_str()],
                Value::Array(names) => names.iter().filter_map(Value::as_str).collect(),
                _ => Vec::new(),
            };
            if !names.is_empty() && !names.iter().any(|name| has_type(value, name)) {
                let wanted: Vec<&str> = names.iter().map(|n| type_name(n)).collect();
                self.report(
                    path,
                    format!(
                        "expected {}, found {} {}",
                        wanted.join(" or "),
                        kind(value),
                        short(value)
                    ),
                );
                return;
            }
        }
        if let Some(allowed) = rules.get("enum").and_then(Value::as_array)
            && !allowed.contains(value)
            && !another_spelling(rules, allowed, value)
        {
            let names: Vec<String> = allowed.iter().map(short).collect();
            self.report(
                path,
                format!("{} is not one of {}", short(value), names.join(", ")),
            );
        }
        if let Some(constant) = rules.get("const")
            && constant != value
        {
            self.report(
                path,
                format!("expected {}, found {}", short(constant), short(value)),
            );
        }
        if let Some(number) = value.as_f64() {
            if let Some(minimum) = rules.get("minimum").and_then(Value::as_f64)
                && number < minimum
            {
                self.report(path, format!("{value} is below the minimum {minimum}"));
            }
            if let Some(maximum) = rules.get("maximum").and_then(Value::as_f64)
                && number > maximum
            {
                self.report(path, format!("{value} is above the maximum {maximum}"));
            }
        }
        if let Some(all) = rules.get("allOf").and_then(Value::as_array) {
            for part in all {
                self.check(part, value, path, depth + 1);
            }
        }
        for key in ["oneOf", "anyOf"] {
            if let Some(branches) = rules.get(key).and_then(Value::as_array) {
                self.branches(branches, value, path, depth);
            }
        }
        if let Value::Object(object) = value {
            self.object(rules, object, path, depth);
        }
        if let (Value::Array(items), Some(item)) = (value, rules.get("items")) {
            for (index, element) in items.iter().enumerate() {
                let length = path.len();
                path.push_str(&format!("/{index}"));
                self.check(item, element, path, depth + 1);
                path.truncate(length);
            }
        }
    }

    fn object(
        &mut self,
        rules: &'a Map<String, Value>,
        object: &Map<String, Value>,
        path: &mut String,
        depth: usize,
    ) {
        let properties = rules.get("properties").and_then(Value::as_object);
        if let Some(required) = rules.get("required").and_then(Value::as_array) {
            for name in required.iter().filter_map(Value::as_str) {
                if !object.contains_key(name) {
                    self.report(path, format!("missing field `{name}`"));
                }
            }
        }
        let additional = rules.get("additionalProperties");
        for (key, element) in object {
            if properties.and_then(|p| p.get(key)).is_none()
                && additional == Some(&Value::Bool(false))
            {
                let known: Vec<&str> = properties
                    .map(|p| p.keys().map(String::as_str).collect())
                    .unwrap_or_default();
                let problem = if known.is_empty() {
                    format!("unknown field `{key}`")
                } else {
                    format!(
                        "unknown field `{key}`; expected one of {}",
                        known.join(", ")
                    )
                };
                self.report(path, problem);
                continue;
            }
            let length = path.len();
            path.push('/');
            path.push_str(&segment(key));
            match (properties.and_then(|p| p.get(key)), additional) {
                (Some(property), _) => self.check(property, element, path, depth + 1),
                (None, Some(schema @ Value::Object(_))) => {
                    self.check(schema, element, path, depth + 1)
                }
                (None, _) => {}
            }
            path.truncate(length);
        }
    }

    /// `oneOf`/`anyOf`: fine when a branch accepts the value; otherwise the problems of the branch
    /// it was most likely meant for: the one whose required fields (an externally tagged enum's tag)
    /// or constants it has, else the one with the fewest problems.
    fn branches(&mut self, branches: &'a [Value], value: &Value, path: &str, depth: usize) {
        let mut best: Option<(usize, Vec<String>)> = None;
        for branch in branches {
            let mut trial = Walk {
                root: self.root,
                found: Vec::new(),
            };
            trial.check(branch, value, &mut path.to_string(), depth + 1);
            if trial.found.is_empty() {
                return;
            }
            let meant = self.meant_for(branch, value);
            // Rank: the branch meant first, then fewer problems.
            let rank = if meant { 0 } else { 1 << 20 } + trial.found.len();
            if best.as_ref().is_none_or(|(r, _)| rank < *r) {
                best = Some((rank, trial.found));
            }
        }
        match best {
            Some((rank, found)) if rank < 1 << 20 || branches.len() == 1 => {
                for problem in found {
                    if self.found.len() < MAX_PROBLEMS {
                        self.found.push(problem);
                    }
                }
            }
            _ => {
                let tags: Vec<String> = branches.iter().filter_map(|b| self.tag(b)).collect();
                // Unit variants with descriptions are `const` branches: name the values.
                let constants: Vec<String> = branches
                    .iter()
                    .filter_map(|b| self.resolve(b).get("const").map(short))
                    .collect();
                let problem = if constants.len() == branches.len() {
                    format!("{} is not one of {}", short(value), constants.join(", "))
                } else if tags.is_empty() {
                    format!("{} matches none of the forms allowed here", short(value))
                } else {
                    format!("expected one of the forms {}", tags.join(", "))
                };
                self.report(path, problem);
            }
        }
    }

    /// Whether `value` carries what marks `branch`: all its required fields, with any constant
    /// (an internally tagged enum's tag) equal.
    fn meant_for(&self, branch: &'a Value, value: &Value) -> bool {
        let branch = self.resolve(branch);
        let Value::Object(object) = value else {
            return false;
        };
        // An internally tagged form: its tag says which it is, whatever else is missing.
        let properties = branch.get("properties").and_then(Value::as_object);
        let constants: Vec<(&String, &Value)> = properties
            .map(|properties| {
                properties
                    .iter()
                    .filter_map(|(key, p)| self.resolve(p).get("const").map(|c| (key, c)))
                    .collect()
            })
            .unwrap_or_default();
        if !constants.is_empty() {
            return constants
                .iter()
                .all(|(key, constant)| object.get(key.as_str()) == Some(constant));
        }
        // An externally tagged form: its one field.
        branch
            .get("required")
            .and_then(Value::as_array)
            .is_some_and(|required| {
                !required.is_empty()
                    && required
                        .iter()
                        .filter_map(Value::as_str)
                        .all(|name| object.contains_key(name))
            })
    }

    /// How a branch is told apart, for the message: `{"create": …}` or `"action": "roll"`.
    fn tag(&self, branch: &'a Value) -> Option<String> {
        let branch = self.resolve(branch);
        let properties = branch.get("properties").and_then(Value::as_object)?;
        if let Some((key, constant)) = properties
            .iter()
            .find_map(|(k, p)| self.resolve(p).get("const").map(|c| (k, c)))
        {
            return Some(format!("\"{key}\": {constant}"));
        }
        let required = branch.get("required").and_then(Value::as_array)?;
        match required.as_slice() {
            [Value::String(only)] if properties.len() == 1 => Some(format!("{{\"{only}\": …}}")),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use serde_json::json;

    use super::*;

    #[derive(Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Stats {
        strength: u32,
        name: String,
        tags: Vec<String>,
        mood: Mood,
    }

    #[derive(Deserialize, JsonSchema)]
    #[serde(rename_all = "kebab-case")]
    #[allow(dead_code)]
    enum Mood {
        Calm,
        Angry,
    }

    #[derive(Deserialize, JsonSchema)]
    #[serde(rename_all = "snake_case")]
    #[allow(dead_code)]
    enum Sheet {
        Create(Stats),
        Sheet { level: i64 },
    }

    fn schema<T: JsonSchema>() -> Value {
        serde_json::to_value(schemars::schema_for!(T)).unwrap()
    }

    /// The seeds' names are read in any case and punctuation and by their aliases; the check
    /// accepts what the rule set accepts and nothing else.
    #[test]
    fn names_marked_any_spelling_are_accepted_in_any_case_and_by_alias() {
        let schema = json!({ "type": "string", "enum": ["HOUSE-ELF", "SOPHISTICATE"],
                             "x-any-spelling": true, "x-aliases": ["NOBLE"] });
        for accepted in [
            "HOUSE-ELF",
            "house elf",
            "House_Elf",
            "noble",
            "Sophisticate",
        ] {
            assert!(
                violations(&schema, &json!(accepted)).is_empty(),
                "{accepted}"
            );
        }
        for refused in ["HOUSE", "elfhouse", "nobles"] {
            assert_eq!(violations(&schema, &json!(refused)).len(), 1, "{refused}");
        }
        // Without the mark an enumeration is exact.
        let exact = json!({ "type": "string", "enum": ["HOUSE-ELF"] });
        assert_eq!(violations(&exact, &json!("house-elf")).len(), 1);
    }

    #[test]
    fn every_problem_is_listed_with_its_path() {
        let value = json!({ "strength": -1, "tags": ["a", 2], "mood": "sad", "extra": 1 });
        let found = violations(&schema::<Stats>(), &value);
        for expected in [
            "/: missing field `name`",
            "/strength: -1 is below the minimum 0",
            "/tags/1: expected a string, found an integer 2",
            "/mood: \"sad\" is not one of \"calm\", \"angry\"",
            "/: unknown field `extra`",
        ] {
            assert!(
                found.iter().any(|f| f.starts_with(expected)),
                "{expected} not in {found:#?}"
            );
        }
        assert_eq!(found.len(), 5, "{found:#?}");
        // And serde agrees that the value is wrong, with one message only.
        assert!(serde_json::from_value::<Stats>(value).is_err());
    }

    #[test]
    fn an_externally_tagged_enum_reports_inside_the_form_given() {
        let value = json!({ "create": { "strength": 3, "tags": [] } });
        let found = violations(&schema::<Sheet>(), &value);
        assert_eq!(
            found,
            [
                "/create: missing field `name`",
                "/create: missing field `mood`"
            ]
        );
        let found = violations(&schema::<Sheet>(), &json!({ "level": 3 }));
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].contains("{\"create\": …}"), "{found:?}");
        assert!(found[0].contains("{\"sheet\": …}"), "{found:?}");
    }

    /// An internally tagged enum whose variants carry descriptions, as the rule sets' actions do.
    #[derive(Deserialize, JsonSchema)]
    #[serde(tag = "action", rename_all = "kebab-case")]
    #[allow(dead_code)]
    enum Action {
        /// Roll.
        Roll { modifier: i64, offers: Offers },
        /// Add one.
        Add { source: String, value: i64 },
    }

    #[derive(Deserialize, JsonSchema)]
    #[serde(rename_all = "kebab-case")]
    #[allow(dead_code)]
    enum Offers {
        /// Both.
        Both,
        /// Bad only.
        Bad,
    }

    #[test]
    fn an_internally_tagged_enum_reports_the_fields_its_tag_needs() {
        let found = violations(&schema::<Action>(), &json!({ "action": "add" }));
        assert_eq!(
            found,
            ["/: missing field `source`", "/: missing field `value`"]
        );
        let found = violations(
            &schema::<Action>(),
            &json!({ "action": "roll", "modifier": "a", "offers": "sometimes" }),
        );
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(
            found[0].starts_with("/modifier: expected an integer"),
            "{found:?}"
        );
        assert_eq!(
            found[1],
            "/offers: \"sometimes\" is not one of \"both\", \"bad\""
        );
        let found = violations(&schema::<Action>(), &json!({ "action": "jump" }));
        assert!(found[0].contains("\"action\": \"roll\""), "{found:?}");
    }

    #[test]
    fn a_valid_value_has_no_problems() {
        let value = json!({ "create": { "strength": 3, "name": "x", "tags": [], "mood": "calm" } });
        assert!(violations(&schema::<Sheet>(), &value).is_empty());
        assert!(serde_json::from_value::<Sheet>(value).is_ok());
        assert!(violations(&schema::<Sheet>(), &json!({ "sheet": { "level": 2 } })).is_empty());
    }
}
