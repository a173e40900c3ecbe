//! The seeds' worked examples, shared with omen-cli's replay of them: the repository's
//! `fixtures/worked_examples.json` holds each example as `omen` commands and the seed's figures as
//! JSON pointers into the command's `--format json` output. Here each command is read back into
//! the request it stands for, using only the game's schemas as `GET /api/v1/rules` serves them (the
//! schemas the CLI builds its subcommands from): `omen GAME NAME --flag v` is the analysis or action
//! `NAME` of `GAME` with the field whose flag is `--flag` set to `v`. Nothing here names a game.
//!
//! The flag of a field follows the command line's documented reading of a schema: the `x-cli-flag`
//! hint, else the field's name in kebab case (an alias when hinted); `{flag}-field` where the runner
//! takes the flag itself; a nested object's fields `--{field}-{child}` or their own hint;
//! `x-cli-switch` flags that set a value; lists repeated (numbers also comma-separated); a list of
//! objects with `x-cli-fields` as `A:B:C`.

use serde_json::{Map, Value};

/// The one copy of the fixture, at the repository's root.
const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../fixtures/worked_examples.json"
);

/// The flags `omen GAME ACTION` takes itself, whatever the action (omen-cli's `act::Holder`); an
/// action field named so gets the flag `--NAME-field`.
const HOLDER_FLAGS: &[&str] = &[
    "char",
    "campaign",
    "db",
    "state",
    "sheet",
    "odds",
    "option",
    "view",
    "visibility",
    "seed",
    "dice",
    "format",
    "help",
];

/// The flags an analysis takes itself.
const ANALYSIS_FLAGS: &[&str] = &["format", "help"];

/// Every worked example, in the fixture's order.
/// Whether the example `id` (`003-barry`) is one of the seeds `seeds` (`"003"`).
pub fn of_seeds(id: &str, seeds: &[&str]) -> bool {
    seeds.iter().any(|seed| id.starts_with(&format!("{seed}-")))
}

/// `replayed` holds every example of `required`, and at least `count` examples: the browser tests
/// that replay the examples on `page` check what they found to replay.
pub fn replayed_all(replayed: &[String], required: &[&str], count: usize, page: &str) {
    for required in required {
        assert!(
            replayed.iter().any(|id| id == required),
            "{required} is not replayed on the {page}: {replayed:?}"
        );
    }
    assert!(
        replayed.len() >= count,
        "only {} examples replayed on the {page}: {replayed:?}",
        replayed.len()
    );
}

pub fn examples() -> Vec<Value> {
    let text = std::fs::read_to_string(FIXTURE).expect("the worked examples fixture");
    serde_json::from_str(&text).expect("the fixture is JSON")
}

/// What one step of an example asks for.
#[derive(Clone, Debug, PartialEq)]
pub enum Request {
    /// An analysis of the game: `POST /api/v1/rules/{game}/analyses/{name}` with these inputs.
    Analysis {
        game: String,
        name: String,
        inputs: Value,
    },
    /// An action of the game for a character, as the runner's flags say.
    Action {
        game: String,
        /// The action, with its `action` tag.
        action: Value,
        holder: Holder,
    },
}

/// The runner's flags of an action step: whose character, made from what, and how to roll.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Holder {
    /// `--state {state}`: the example's own character, kept from step to step.
    pub kept: bool,
    /// `--sheet JSON`: the sheet of a new character.
    pub sheet: Option<Value>,
    /// `--odds`: the odds of the action, nothing rolled.
    pub odds: bool,
    /// `--dice …`: the dice rolled at the table.
    pub dice: Option<Vec<i64>>,
}

/// The command line after `omen GAME NAME` as flags and their values (`None` for a bare switch).
fn flags(words: &[String]) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < words.len() {
        let word = &words[at];
        let flag = word
            .strip_prefix("--")
            .unwrap_or_else(|| panic!("{word}: the fixture writes flags as --NAME"));
        at += 1;
        if let Some((flag, value)) = flag.split_once('=') {
            out.push((flag.to_string(), Some(value.to_string())));
        } else if words.get(at).is_some_and(|next| !next.starts_with("--")) {
            out.push((flag.to_string(), Some(words[at].clone())));
            at += 1;
        } else {
            out.push((flag.to_string(), None));
        }
    }
    out
}

/// Follows `$ref` into the root's `$defs`, and takes the branch of an optional type that is not
/// null.
fn resolve<'a>(root: &'a Value, schema: &'a Value) -> &'a Value {
    let mut schema = schema;
    for _ in 0..8 {
        if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
            let name = reference.rsplit('/').next().unwrap_or(reference);
            schema = root
                .pointer(&format!("/$defs/{name}"))
                .unwrap_or_else(|| panic!("no definition {reference}"));
        } else if let Some(branches) = schema.get("anyOf").and_then(Value::as_array)
            && let [only] = branches
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) != Some("null"))
                .collect::<Vec<_>>()
                .as_slice()
        {
            schema = only;
        } else {
            return schema;
        }
    }
    schema
}

/// The schema's type other than `null`.
fn type_name(schema: &Value) -> Option<&str> {
    match schema.get("type")? {
        Value::String(name) => Some(name),
        Value::Array(names) => names
            .iter()
            .filter_map(Value::as_str)
            .find(|n| *n != "null"),
        _ => None,
    }
}

/// The names a closed enumeration allows (`enum`, or `oneOf` branches of `const`), unless the rule
/// set reads other spellings too (`x-any-spelling`).
fn closed_choices(schema: &Value) -> Option<Vec<&str>> {
    if schema.get("x-any-spelling") == Some(&Value::Bool(true)) {
        return None;
    }
    if let Some(names) = schema.get("enum").and_then(Value::as_array) {
        return Some(names.iter().filter_map(Value::as_str).collect());
    }
    let branches = schema.get("oneOf")?.as_array()?;
    branches
        .iter()
        .map(|b| b.get("const").and_then(Value::as_str))
        .collect()
}

/// One flag's text as the value of a field of `schema`.
fn scalar(root: &Value, schema: &Value, text: &str) -> Value {
    let schema = resolve(root, schema);
    if let Some(names) = closed_choices(schema) {
        // The command line takes a closed choice in any case and sends the schema's spelling.
        let name = names.iter().find(|n| n.eq_ignore_ascii_case(text));
        return Value::from(*name.unwrap_or_else(|| panic!("{text} is none of {names:?}")));
    }
    match type_name(schema) {
        Some("boolean") => Value::Bool(text.eq_ignore_ascii_case("true")),
        Some("integer") => Value::from(text.parse::<i64>().expect("a whole number")),
        Some("number") => Value::from(text.parse::<f64>().expect("a number")),
        Some("string") | None if !text.starts_with(['{', '[']) => Value::from(text),
        _ => serde_json::from_str(text).unwrap_or_else(|e| panic!("{text}: {e}")),
    }
}

/// What a flag sets: the path of the field (one name, or a nested object's and its child's) and how
/// its text becomes a value.
#[derive(Clone, Debug)]
struct Target {
    path: Vec<String>,
    schema: Value,
    /// `x-cli-switch`: the value a bare flag sets.
    sets: Option<Value>,
    /// `x-cli-fields`: a list of objects given as `A:B:C`.
    parts: Option<Vec<String>>,
}

/// The long flag of a field, clear of the command's own.
fn long_name(flag: &str, reserved: &[&str]) -> String {
    if reserved.contains(&flag) {
        format!("{flag}-field")
    } else {
        flag.to_string()
    }
}

/// Whether an object's fields are flags of their own: it has fields, and each is one value.
fn is_small_object(root: &Value, schema: &Value) -> bool {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return false;
    };
    type_name(schema) == Some("object")
        && properties.values().all(|p| {
            let p = resolve(root, p);
            closed_choices(p).is_some()
                || matches!(
                    type_name(p),
                    Some("boolean" | "integer" | "number" | "string")
                )
        })
}

/// Every flag of an object schema's properties (but the `action` tag), each with what it sets.
fn targets(root: &Value, object: &Value, reserved: &[&str]) -> Vec<(String, Target)> {
    let mut out = Vec::new();
    let properties = object["properties"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    for (name, property) in properties.iter().filter(|(n, _)| *n != "action") {
        let kebab = name.replace('_', "-");
        let hint = property.get("x-cli-flag").and_then(Value::as_str);
        let flag = hint.unwrap_or(&kebab);
        for (switch, value) in property
            .get("x-cli-switch")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            let target = Target {
                path: vec![name.clone()],
                schema: property.clone(),
                sets: Some(value.clone()),
                parts: None,
            };
            out.push((long_name(switch, reserved), target));
        }
        let resolved = resolve(root, property);
        if is_small_object(root, resolved) {
            // A small object's fields are flags of their own: `--{flag}-{child}`, or the child's
            // hint.
            for (child, schema) in resolved["properties"].as_object().into_iter().flatten() {
                let default = format!("{flag}-{}", child.replace('_', "-"));
                let names = match schema.get("x-cli-flag").and_then(Value::as_str) {
                    Some(own) => vec![own.to_string(), default],
                    None => vec![default],
                };
                for spelled in names {
                    let target = Target {
                        path: vec![name.clone(), child.clone()],
                        schema: schema.clone(),
                        sets: None,
                        parts: None,
                    };
                    out.push((long_name(&spelled, reserved), target));
                }
            }
            continue;
        }
        let parts = property
            .get("x-cli-fields")
            .and_then(Value::as_array)
            .map(|p| {
                p.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            });
        let target = Target {
            path: vec![name.clone()],
            schema: property.clone(),
            sets: None,
            parts,
        };
        out.push((long_name(flag, reserved), target.clone()));
        if !reserved.contains(&kebab.as_str()) && flag != kebab {
            out.push((kebab.clone(), target));
        }
    }
    out
}

/// Sets the value of `text` given to `target`'s flag in `object`: a list gains an item (numbers may
/// come comma-separated), anything else is set.
fn set(root: &Value, object: &mut Map<String, Value>, target: &Target, text: Option<&str>) {
    let (last, parents) = target.path.split_last().expect("a path");
    let mut map = object;
    for parent in parents {
        map = map
            .entry(parent.clone())
            .or_insert_with(|| Value::Object(Map::new()))
            .as_object_mut()
            .expect("an object");
    }
    let text = match (&target.sets, text) {
        (Some(value), None) => {
            map.insert(last.clone(), value.clone());
            return;
        }
        (None, None) => {
            map.insert(last.clone(), Value::Bool(true));
            return;
        }
        (_, Some(text)) => text,
    };
    let resolved = resolve(root, &target.schema);
    if type_name(resolved) != Some("array") {
        map.insert(last.clone(), scalar(root, &target.schema, text));
        return;
    }
    let item = resolve(root, &resolved["items"]);
    let items: Vec<Value> = match &target.parts {
        Some(parts) => vec![record(root, item, parts, text)],
        None if type_name(item) == Some("integer") => text
            .split(',')
            .map(|piece| scalar(root, item, piece))
            .collect(),
        None => vec![scalar(root, item, text)],
    };
    map.entry(last.clone())
        .or_insert_with(|| Value::Array(Vec::new()))
        .as_array_mut()
        .expect("a list")
        .extend(items);
}

/// `A:B:C` as the object of the record's parts, in order (trailing parts may be left out).
fn record(root: &Value, item: &Value, parts: &[String], text: &str) -> Value {
    let mut object = Map::new();
    for (name, piece) in parts.iter().zip(text.split(':')) {
        let schema = &item["properties"][name];
        object.insert(name.clone(), scalar(root, schema, piece));
    }
    Value::Object(object)
}

/// The rule set called `game` in `rules` (the list `GET /api/v1/rules` answers).
fn rule_set<'a>(rules: &'a [Value], game: &str) -> &'a Value {
    rules
        .iter()
        .find(|r| r["name"] == game)
        .unwrap_or_else(|| panic!("no rule set {game}"))
}

/// The request a step's command line (`omen GAME NAME --flag v …`) stands for, read against the
/// game's schemas in `rules`. As on the command line, a name is an action's subcommand before an
/// analysis's.
pub fn request(rules: &[Value], args: &[String]) -> Request {
    let [game, name, words @ ..] = args else {
        panic!("{args:?}: a step is `GAME NAME --flag value …`")
    };
    let rules = rule_set(rules, game);
    let root = &rules["schemas"]["action"];
    let branch = root["oneOf"].as_array().into_iter().flatten().find(|b| {
        let tag = &b["properties"]["action"]["const"];
        b.get("x-cli-command").unwrap_or(tag) == name.as_str()
    });
    if let Some(branch) = branch {
        let known = targets(root, branch, HOLDER_FLAGS);
        let mut action = Map::new();
        action.insert(
            "action".into(),
            branch["properties"]["action"]["const"].clone(),
        );
        let mut holder = Holder::default();
        for (flag, text) in flags(words) {
            match (flag.as_str(), text.as_deref()) {
                ("state", Some("{state}")) => holder.kept = true,
                ("sheet", Some(sheet)) => {
                    holder.sheet = Some(serde_json::from_str(sheet).expect("a sheet as JSON"));
                }
                ("odds", None) => holder.odds = true,
                ("dice", Some(dice)) => {
                    let dice = dice.split(',').map(|d| d.parse().expect("a face"));
                    holder.dice = Some(dice.collect());
                }
                ("format", Some("json")) => {}
                _ => set_flag(root, &known, &mut action, &flag, text.as_deref(), args),
            }
        }
        return Request::Action {
            game: game.clone(),
            action: Value::Object(action),
            holder,
        };
    }
    let analysis = rules["analyses"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|a| a["name"] == name.as_str())
        .unwrap_or_else(|| panic!("{game} has no action nor analysis {name}"));
    let root = &analysis["inputs"];
    let known = targets(root, root, ANALYSIS_FLAGS);
    let mut inputs = Map::new();
    for (flag, text) in flags(words) {
        match (flag.as_str(), text.as_deref()) {
            ("format", Some("json")) => {}
            _ => set_flag(root, &known, &mut inputs, &flag, text.as_deref(), args),
        }
    }
    Request::Analysis {
        game: game.clone(),
        name: name.clone(),
        inputs: Value::Object(inputs),
    }
}

fn set_flag(
    root: &Value,
    known: &[(String, Target)],
    object: &mut Map<String, Value>,
    flag: &str,
    text: Option<&str>,
    args: &[String],
) {
    let (_, target) = known
        .iter()
        .find(|(spelled, _)| spelled == flag)
        .unwrap_or_else(|| panic!("{args:?}: no field has the flag --{flag}"));
    set(root, object, target, text);
}

/// Where the API's answer holds what the command line's `--format json` prints at `pointer`: the
/// one place the two shapes are told apart.
/// * An analysis: the CLI prints the analysis's own JSON where it has one, else `{"tables": …}`;
///   the API answers `{"tables": …, "json": …}`, so a pointer goes under `/json` when there is one.
/// * An action: the CLI prints `{rules, action, seed, dice, result, summary, state_before,
///   state_after}`; the API answers the log entry under `/entry`, whose `result`, `summary`,
///   `state_before` and `state_after` are the same values (its `action` is the name alone and its
///   `dice` records the faces with their dice, so those two are not mapped).
/// * The odds (`--odds`): the CLI prints `{action, odds}`; the API answers the odds alone.
pub fn api_pointer(request: &Request, answer: &Value, pointer: &str) -> String {
    match request {
        Request::Analysis { .. } if answer.get("json").is_some() => format!("/json{pointer}"),
        Request::Analysis { .. } => pointer.to_string(),
        Request::Action { holder, .. } if holder.odds => pointer
            .strip_prefix("/odds")
            .unwrap_or_else(|| panic!("{pointer}: odds are under /odds"))
            .to_string(),
        Request::Action { .. } => {
            let mapped = ["/result", "/summary", "/state_before", "/state_after"]
                .iter()
                .any(|part| pointer == *part || pointer.starts_with(&format!("{part}/")));
            assert!(mapped, "{pointer}: no place in the API's answer is mapped");
            format!("/entry{pointer}")
        }
    }
}

fn gcd(a: u128, b: u128) -> u128 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// A fraction `n/d` (or a whole number) in lowest terms.
fn fraction(text: &str) -> (u128, u128) {
    let (n, d) = text.split_once('/').unwrap_or((text, "1"));
    let (n, d): (u128, u128) = (n.parse().expect("n"), d.parse().expect("d"));
    let g = gcd(n, d);
    (n / g, d / g)
}

/// The sum of a distribution's probabilities (`[{"outcome": k, "fraction": "n/d"}, …]`) over the
/// outcomes at least `least`, in lowest terms.
fn mass_at_least(distribution: &Value, least: i64) -> (u128, u128) {
    let mut sum = (0u128, 1u128);
    for entry in distribution.as_array().expect("a distribution") {
        if entry["outcome"].as_i64().expect("a numeric outcome") >= least {
            let (n, d) = fraction(entry["fraction"].as_str().expect("a fraction"));
            let g = gcd(sum.1, d);
            let numerator = sum.0 * (d / g) + n * (sum.1 / g);
            let denominator = sum.1 / g * d;
            let h = gcd(numerator, denominator);
            sum = (numerator / h, denominator / h);
        }
    }
    sum
}

/// Whether `answer` at `pointer` meets one of the fixture's expectations (`[pointer, op, value]`,
/// as omen-cli's replay reads them); the reason when it does not.
pub fn meets(answer: &Value, pointer: &str, op: &str, wanted: &Value) -> Result<(), String> {
    let Some(got) = answer.pointer(pointer) else {
        return Err(format!("no {pointer} in {answer}"));
    };
    let ok = match op {
        "=" => got == wanted,
        "contains" => got
            .as_str()
            .is_some_and(|text| text.contains(wanted.as_str().expect("a text"))),
        "sum>=" => {
            let least = wanted[0].as_i64().expect("k");
            mass_at_least(got, least) == fraction(wanted[1].as_str().expect("a fraction"))
        }
        other => panic!("unknown comparison {other}"),
    };
    if ok {
        Ok(())
    } else {
        Err(format!("{pointer} is {got}, wanted {op} {wanted}"))
    }
}

/// A step's expectations as `(pointer, op, value)`.
pub fn expectations(step: &Value) -> Vec<(String, String, Value)> {
    step["expect"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| {
            let [pointer, op, wanted] = e.as_array().expect("[pointer, op, value]").as_slice()
            else {
                panic!("an expectation is [pointer, op, value]: {e}")
            };
            let text = |v: &Value| v.as_str().expect("text").to_string();
            (text(pointer), text(op), wanted.clone())
        })
        .collect()
}

/// The words of a step, as the fixture gives them.
pub fn words(step: &Value) -> Vec<String> {
    step["args"]
        .as_array()
        .expect("args")
        .iter()
        .map(|a| a.as_str().expect("a word").to_string())
        .collect()
}

#[test]
fn flags_become_the_fields_their_schema_names() {
    // A made-up schema in the rule sets' style: a hinted flag, a nested object with hinted
    // children, a switch, a list of records and a closed choice.
    let root = serde_json::json!({
        "$defs": {"Kind": {"oneOf": [{"const": "RANGED"}, {"const": "SELF"}]}},
        "properties": {
            "difficulty": {"type": "integer", "x-cli-flag": "dv"},
            "optional": {"type": "object", "properties": {
                "defy": {"type": "integer", "x-cli-flag": "defy"},
                "extend": {"type": "integer"}}},
            "timing": {"type": "string", "x-cli-switch": {"late": "late"}},
            "bought": {"type": "array", "x-cli-flag": "buy", "x-cli-fields": ["kind", "sides"],
                       "items": {"type": "object", "properties": {
                           "kind": {"type": "string"}, "sides": {"type": "integer"}}}},
            "dice": {"type": "array", "items": {"type": "integer"}},
            "delivery": {"$ref": "#/$defs/Kind"},
        },
    });
    let rules = [serde_json::json!({"name": "g", "analyses": [{"name": "a", "inputs": root}]})];
    let args: Vec<String> = [
        "g",
        "a",
        "--dv",
        "8",
        "--defy",
        "2",
        "--optional-extend",
        "1",
        "--late",
        "--buy",
        "talent:6",
        "--buy",
        "skill",
        "--dice",
        "1,-2",
        "--dice",
        "3",
        "--delivery",
        "ranged",
        "--format",
        "json",
    ]
    .map(str::to_string)
    .to_vec();
    let Request::Analysis { inputs, .. } = request(&rules, &args) else {
        panic!("an analysis")
    };
    assert_eq!(
        inputs,
        serde_json::json!({
            "difficulty": 8, "optional": {"defy": 2, "extend": 1}, "timing": "late",
            "bought": [{"kind": "talent", "sides": 6}, {"kind": "skill"}],
            "dice": [1, -2, 3], "delivery": "RANGED",
        })
    );
}
