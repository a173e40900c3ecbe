//! Schemas of request fields the server checks beyond their JSON type, so the OpenAPI document
//! accepts exactly what the handlers do (a client generated from it, or a fuzzer, learns every rule
//! from the document instead of from a 400).

use utoipa::openapi::schema::{ObjectBuilder, Schema, SchemaType, Type};
use utoipa::openapi::{RefOr, schema::OneOfBuilder};

/// What the store's `check_name` refuses at either end: control characters (Unicode `Cc`, which
/// includes the ASCII white space) and what `str::trim` removes (Unicode `White_Space`). Spelled out
/// rather than `\s`, whose meaning differs between regex dialects (ECMA-262's includes U+FEFF).
const EDGE: &str = r"\x00-\x20\x7f-\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000";
/// What it refuses anywhere: control characters.
const INSIDE: &str = r"\x00-\x1f\x7f-\x9f";

/// A campaign's, character's or saved roll's name: 1 to 200 characters, no control characters,
/// no surrounding white space.
pub(crate) fn name_pattern() -> String {
    format!("^[^{EDGE}](?:[^{INSIDE}]*[^{EDGE}])?$")
}

fn string(pattern: String, max_length: usize, description: &str) -> ObjectBuilder {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .pattern(Some(pattern))
        .max_length(Some(max_length))
        .description(Some(description))
}

pub(crate) fn nullable(schema: ObjectBuilder) -> RefOr<Schema> {
    let one_of = OneOfBuilder::new()
        .item(schema.build())
        .item(ObjectBuilder::new().schema_type(SchemaType::Type(Type::Null)))
        .build();
    RefOr::T(Schema::OneOf(one_of))
}

const NAME: &str = "1 to 200 characters, no control characters and no white space at either end.";

/// A required name.
pub(crate) fn name() -> Schema {
    Schema::Object(string(name_pattern(), 200, NAME).build())
}

/// A name that may be absent or null.
pub(crate) fn optional_name() -> RefOr<Schema> {
    nullable(string(name_pattern(), 200, NAME))
}

/// The store's `check_entropy`: 8 to 128 visible ASCII characters.
pub(crate) fn entropy() -> RefOr<Schema> {
    nullable(string(
        "^[!-~]{8,128}$".to_string(),
        128,
        "Fresh random entropy for the entry's draw: 8 to 128 visible ASCII characters (e.g. 32 random bytes in hex). The draw's secret was committed before it arrived, so with it no one, the server included, chose the roll; the server draws its own when it is absent.",
    ))
}

/// A draw commitment: SHA-256 in lower-case hex.
pub(crate) fn commitment() -> RefOr<Schema> {
    nullable(string(
        "^[0-9a-f]{64}$".to_string(),
        64,
        "The draw commitment the caller read (`next_draw_commitment` of `GET …/head`, or of the last entry), 64 lower-case hex digits: refused with 409 `moved-on` when another entry took that draw first.",
    ))
}

pub(crate) fn words(words: &[&str], description: &str) -> ObjectBuilder {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .enum_values(Some(words.iter().copied()))
        .description(Some(description))
}

/// Who may see a logged entry.
pub(crate) fn visibility() -> RefOr<Schema> {
    nullable(words(
        &["public", "private", "blind", "self"],
        "Who may see it: `public` (default), `private` (the roller and the game master), `blind` (the game master; the roller sees that it happened) or `self` (the roller).",
    ))
}

/// A dialect's name (the server also takes it in any case, with surrounding spaces).
pub(crate) fn dialect() -> RefOr<Schema> {
    let names: Vec<&str> = omen_lang::syntax::dialect::Dialect::names().collect();
    nullable(words(
        &names,
        "The dialect the expressions are written in (default `omen`).",
    ))
}

/// A value for a script's `param`: a whole number the language can hold, true/false, a label, or
/// a tuple of such values (the store's `param_value`; null, fractions and objects are refused).
pub(crate) struct ParamValue;

impl utoipa::PartialSchema for ParamValue {
    fn schema() -> RefOr<Schema> {
        use utoipa::openapi::schema::{ArrayBuilder, Ref};
        let of = |t: Type| ObjectBuilder::new().schema_type(t).build();
        let one_of = OneOfBuilder::new()
            .description(Some(
                "A parameter's value: a whole number, true/false, a label, or a tuple of such values.",
            ))
            .item(
                ObjectBuilder::new()
                    .schema_type(Type::Integer)
                    .format(Some(utoipa::openapi::SchemaFormat::KnownFormat(
                        utoipa::openapi::KnownFormat::Int64,
                    )))
                    .minimum(Some(i64::MIN))
                    .maximum(Some(i64::MAX))
                    .build(),
            )
            .item(of(Type::Boolean))
            .item(of(Type::String))
            .item(ArrayBuilder::new().items(RefOr::Ref(Ref::from_schema_name("ParamValue"))))
            .build();
        RefOr::T(Schema::OneOf(one_of))
    }
}

impl utoipa::ToSchema for ParamValue {}

/// Values for a script's `param` declarations, by name.
pub(crate) fn params() -> Schema {
    use utoipa::openapi::schema::{AdditionalProperties, Ref};
    Schema::Object(
        ObjectBuilder::new()
            .schema_type(Type::Object)
            .additional_properties(Some(AdditionalProperties::RefOr(RefOr::Ref(
                Ref::from_schema_name("ParamValue"),
            ))))
            .description(Some(
                "Values for the scripts' `param` declarations: whole numbers, true/false, labels, arrays as tuples.",
            ))
            .build(),
    )
}

/// A time filter: a date (midnight UTC) or an RFC 3339 time, as the store's `normalize_time` reads
/// them (it also takes surrounding spaces, and a time without seconds).
pub(crate) fn time() -> RefOr<Schema> {
    use utoipa::openapi::{KnownFormat, SchemaFormat};
    let of = |format: KnownFormat| {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .format(Some(SchemaFormat::KnownFormat(format)))
            .build()
    };
    let one_of = OneOfBuilder::new()
        .item(of(KnownFormat::Date))
        .item(of(KnownFormat::DateTime))
        .item(ObjectBuilder::new().schema_type(SchemaType::Type(Type::Null)))
        .description(Some("A date (midnight UTC) or an RFC 3339 time."))
        .build();
    RefOr::T(Schema::OneOf(one_of))
}

/// `POST …/invites`: a player's invite names the character it acts for, and no other role's does,
/// so the document says which pairs of `role` and `character` there are instead of leaving a 422
/// for the server to tell.
pub(crate) fn new_invite() -> RefOr<Schema> {
    use utoipa::openapi::schema::AdditionalProperties;
    let invite = |roles: &[&str], character: RefOr<Schema>, required: &[&str]| {
        let mut object = ObjectBuilder::new()
            .schema_type(Type::Object)
            .property(
                "role",
                words(roles, "The invite's role: `gm`, `player` or `observer`."),
            )
            .property("character", character)
            .additional_properties(Some(AdditionalProperties::FreeForm(false)));
        for field in required {
            object = object.required(*field);
        }
        object.build()
    };
    let player = invite(
        &["player"],
        RefOr::T(Schema::Object(
            string(
                name_pattern(),
                200,
                "The character the player's invite lets them act for: a player's invite names one.",
            )
            .build(),
        )),
        &["role", "character"],
    );
    let other = invite(
        &["gm", "observer"],
        RefOr::T(Schema::Object(
            ObjectBuilder::new()
                .schema_type(SchemaType::Type(Type::Null))
                .description(Some("Only a player's invite names a character."))
                .build(),
        )),
        &["role"],
    );
    let one_of = OneOfBuilder::new()
        .item(player)
        .item(other)
        .description(Some(
            "An invite: a player's names the character it acts for; a game master's or an observer's names none.",
        ))
        .build();
    RefOr::T(Schema::OneOf(one_of))
}

/// `POST …/characters`: a character of a rule set that keeps a character's state (the registry's
/// names, matched exactly) with a sheet as that rule set's sheet schema says, or a plain one
/// (`none`) with no sheet. The pairing is the document's, so a plain character with a sheet is a
/// body it refuses (422), not a 400 it does not list.
pub(crate) fn new_character() -> RefOr<Schema> {
    use utoipa::openapi::schema::AdditionalProperties;
    let games: Vec<&str> = omen_rules::stateful::games()
        .iter()
        .map(|game| game.name())
        .collect();
    let character = |rule_sets: &[&str], rule_set: &str, sheet: ObjectBuilder| {
        ObjectBuilder::new()
            .schema_type(Type::Object)
            .property("name", name())
            .property("rule_set", words(rule_sets, rule_set))
            .property("sheet", sheet)
            .required("name")
            .required("rule_set")
            .additional_properties(Some(AdditionalProperties::FreeForm(false)))
            .build()
    };
    let sheet = || ObjectBuilder::new().schema_type(Type::Object);
    let one_of = OneOfBuilder::new()
        .item(character(
            &games,
            "The rule set, e.g. `luck`.",
            sheet().description(Some(
                "The character sheet (default `{}`), as the rule set's sheet schema at `GET /api/v1/rules/{game}` describes it.",
            )),
        ))
        .item(character(
            &[omen_store::PLAIN],
            "`none`: a character bound to no rule set, that only rolls expressions.",
            sheet()
                .max_properties(Some(0))
                .description(Some("A plain character has no sheet: `{}` or none.")),
        ))
        .description(Some(
            "A new character: of a rule set, with its sheet, or plain (`none`), with none.",
        ))
        .build();
    RefOr::T(Schema::OneOf(one_of))
}
