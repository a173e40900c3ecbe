//! Errors as JSON with the fields of the CLI's diagnostics (`kind`, `message`, `span`, `help`), and
//! the status code each failure domain maps to.

use axum::Json;
use axum::extract::rejection::{JsonRejection, PathRejection, QueryRejection};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use omen_lang::Diagnostic;
use omen_store::StoreError;
use serde::Serialize;
use utoipa::ToSchema;

/// Where in the input a problem is: byte offsets, `end` exclusive (as the language counts them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub struct SpanBody {
    pub start: usize,
    pub end: usize,
}

/// One problem, as the CLI's `--format json` diagnostics report it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub struct Problem {
    /// A stable machine-readable name, e.g. `unexpected-token`, `not-found`, `rate-limited`.
    pub kind: String,
    /// What is wrong, in lower case.
    pub message: String,
    /// Where it is wrong, for a problem in an expression.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub span: Option<SpanBody>,
    /// How to fix it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
    /// Which of a request's expressions it is about (0-based), when it has several.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expression: Option<usize>,
}

impl Problem {
    pub fn new(kind: impl Into<String>, message: impl Into<String>) -> Self {
        Problem {
            kind: kind.into(),
            message: message.into(),
            span: None,
            help: None,
            expression: None,
        }
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    pub fn from_diagnostic(diagnostic: &Diagnostic) -> Self {
        let problem = Problem {
            kind: diagnostic.kind.to_string(),
            message: diagnostic.message.clone(),
            span: Some(SpanBody {
                start: diagnostic.span.start,
                end: diagnostic.span.end,
            }),
            help: diagnostic.help.clone(),
            expression: None,
        };
        problem.for_the_web()
    }

    /// The problem in words for someone who reached the server over the web: the language's
    /// limit messages end by naming the CLI flag that raises the limit (`raise --work-budget`),
    /// which a page's user cannot reach. Such a message keeps what was passed and says instead
    /// that it is too large for this server, how to make it smaller, and that the CLI can run it.
    fn for_the_web(mut self) -> Self {
        let names_flag = |text: &str| {
            text.match_indices(" --")
                .any(|(at, _)| text[at + 3..].starts_with(|c: char| c.is_ascii_lowercase()))
        };
        if !names_flag(&self.message) && !self.help.as_deref().is_some_and(names_flag) {
            return self;
        }
        let cut = self
            .message
            .match_indices("; ")
            .map(|(at, _)| at)
            .find(|&at| names_flag(&self.message[at..]))
            .unwrap_or(self.message.len());
        self.message = format!(
            "{}: the computation is too large for this server",
            &self.message[..cut]
        );
        // A hint that names no flag says what grew (a pool's fold names itself and how many
        // states it held): it stays, without the limit the page's user cannot raise.
        let own = self
            .help
            .as_deref()
            .filter(|help| !names_flag(help))
            .map(|help| help.trim_end_matches(", or raise the limit").trim_end());
        self.help = Some(match own {
            Some(own) if !own.is_empty() => format!("{own}; or {TOO_LARGE_HELP}"),
            _ => TOO_LARGE_HELP.to_string(),
        });
        self
    }
}

/// What a refusal for a passed limit suggests on the web.
pub const TOO_LARGE_HELP: &str = "simplify it (fewer dice, fewer sides, a lower `explode_depth`, \
    or one probability such as `(EXPR) >= 30` instead of the whole table), or run it with the \
    `omen` command-line tool on your own computer, where the limits can be raised";

/// The body of every error response.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ErrorBody {
    pub errors: Vec<Problem>,
    /// Warnings found before the error, when there are any.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<Problem>,
}

/// A refused request: a status code, the problems, and for 429/503 when to try again.
#[derive(Clone, Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub errors: Vec<Problem>,
    pub warnings: Vec<Problem>,
    /// Seconds, sent as `Retry-After`.
    pub retry_after: Option<u64>,
}

impl ApiError {
    pub fn new(status: StatusCode, problem: Problem) -> Self {
        ApiError {
            status,
            errors: vec![problem],
            warnings: Vec::new(),
            retry_after: None,
        }
    }

    /// The same refusal with a warning too.
    pub fn with_warning(mut self, warning: Problem) -> Self {
        self.warnings.push(warning);
        self
    }

    pub fn bad_request(message: impl Into<String>) -> Self {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            Problem::new("bad-request", message),
        )
    }

    pub fn not_found(message: impl Into<String>) -> Self {
        ApiError::new(StatusCode::NOT_FOUND, Problem::new("not-found", message))
    }

    pub fn unauthorized() -> Self {
        ApiError::new(
            StatusCode::UNAUTHORIZED,
            Problem::new("unauthorized", "this route needs a bearer token or a session").with_help(
                "send `Authorization: Bearer TOKEN` with the token of an invite (`omen campaign invite`), or the session cookie of `POST /api/v1/session`",
            ),
        )
    }

    pub fn forbidden(message: impl Into<String>) -> Self {
        ApiError::new(StatusCode::FORBIDDEN, Problem::new("forbidden", message))
    }

    /// The computation pool or the database stayed busy past the queue timeout.
    pub fn busy(what: &str, retry_after: u64) -> Self {
        let mut error = ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            Problem::new("busy", format!("the server is busy with other {what}"))
                .with_help(format!("try again in {retry_after} s")),
        );
        error.retry_after = Some(retry_after);
        error
    }

    /// No thread could be started for the work (the system's limit on threads or address space):
    /// 503 with `Retry-After`, as a full queue answers.
    pub fn no_thread() -> Self {
        let mut error = ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            Problem::new(
                "busy",
                "the server cannot start a thread for this work now: it is running all it can",
            )
            .with_help("try again in 1 s"),
        );
        error.retry_after = Some(1);
        error
    }

    pub fn internal(message: impl Into<String>) -> Self {
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            Problem::new("internal", message),
        )
    }

    /// The request took too long: 503 with `Retry-After`, as the request timeout answers.
    pub fn timeout() -> Self {
        let mut error = ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            Problem::new("timeout", "the request took too long"),
        );
        error.retry_after = Some(1);
        error
    }

    /// Errors of an expression: unprocessable, each with its span. A computation stopped because
    /// its request was cancelled or passed its deadline is the request's timeout instead.
    pub fn language(errors: &[Diagnostic], warnings: &[Diagnostic]) -> Self {
        if errors
            .iter()
            .any(|e| e.kind == "cancelled" || e.kind == "deadline")
        {
            return ApiError::timeout();
        }
        ApiError {
            status: StatusCode::UNPROCESSABLE_ENTITY,
            errors: errors.iter().map(Problem::from_diagnostic).collect(),
            warnings: warnings.iter().map(Problem::from_diagnostic).collect(),
            retry_after: None,
        }
    }

    /// Marks every problem as being about expression `index` of the request.
    pub fn in_expression(mut self, index: usize) -> Self {
        for problem in self.errors.iter_mut().chain(&mut self.warnings) {
            problem.expression = Some(index);
        }
        self
    }

    /// The body as sent.
    pub fn body(&self) -> ErrorBody {
        ErrorBody {
            errors: self.errors.clone(),
            warnings: self.warnings.clone(),
        }
    }
}

impl ApiError {
    /// `error`, for a request refused after it drew dice: each problem says the attempt is logged
    /// as entry `sequence`. A blind attempt's reasons are the game master's, since they may quote
    /// its dice: marked so that the redaction withholds them from everyone else.
    fn refused_after_draw(mut error: ApiError, sequence: u64, blind: bool) -> ApiError {
        let note = format!("the attempt had drawn dice, so it is logged as entry {sequence}");
        for problem in &mut error.errors {
            problem.help = Some(match problem.help.take() {
                Some(help) => format!("{help}; {note}"),
                None => note.clone(),
            });
            if blind {
                problem.kind = "refused-blind".to_string();
                problem.span = None;
            }
        }
        error
    }
}

impl From<StoreError> for ApiError {
    fn from(error: StoreError) -> Self {
        let message = error.to_string();
        let (status, kind) = match &error {
            StoreError::NotFound(_) => (StatusCode::NOT_FOUND, "not-found"),
            StoreError::AlreadyExists(_) => (StatusCode::CONFLICT, "already-exists"),
            StoreError::Rules(_) => (StatusCode::UNPROCESSABLE_ENTITY, "rules"),
            StoreError::Language(diagnostics) => {
                let errors: Vec<Diagnostic> = diagnostics
                    .iter()
                    .filter(|d| d.is_error())
                    .cloned()
                    .collect();
                let warnings: Vec<Diagnostic> = diagnostics
                    .iter()
                    .filter(|d| !d.is_error())
                    .cloned()
                    .collect();
                return ApiError::language(&errors, &warnings);
            }
            StoreError::Invalid(_) => (StatusCode::BAD_REQUEST, "invalid"),
            StoreError::Conflict(_) => (StatusCode::CONFLICT, "conflict"),
            StoreError::Forbidden(_) => (StatusCode::FORBIDDEN, "forbidden"),
            // Well-formed (any object is an export's shape to the document), but not importable.
            StoreError::BadExport(_) => (StatusCode::UNPROCESSABLE_ENTITY, "bad-export"),
            StoreError::Moved { .. } => (StatusCode::CONFLICT, "moved-on"),
            StoreError::Refused {
                sequence,
                visibility,
                ..
            } => {
                let (sequence, blind) = (*sequence, *visibility == omen_store::Visibility::Blind);
                let StoreError::Refused { error, .. } = error else {
                    unreachable!("matched above")
                };
                return ApiError::refused_after_draw(ApiError::from(*error), sequence, blind);
            }
            StoreError::Busy => {
                return ApiError::busy("writes", 1);
            }
            StoreError::ReadOnly | StoreError::DiskFull => {
                let mut error = ApiError::new(
                    StatusCode::SERVICE_UNAVAILABLE,
                    Problem::new("storage", message),
                );
                error.retry_after = Some(60);
                return error;
            }
            _ => (StatusCode::INTERNAL_SERVER_ERROR, "storage"),
        };
        ApiError::new(status, Problem::new(kind, message))
    }
}

impl From<JsonRejection> for ApiError {
    fn from(rejection: JsonRejection) -> Self {
        let status = match &rejection {
            JsonRejection::JsonDataError(_) => StatusCode::UNPROCESSABLE_ENTITY,
            JsonRejection::MissingJsonContentType(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            JsonRejection::BytesRejection(_) => rejection.status(),
            _ => StatusCode::BAD_REQUEST,
        };
        ApiError::new(status, Problem::new("bad-json", rejection.body_text()))
    }
}

impl From<PathRejection> for ApiError {
    fn from(rejection: PathRejection) -> Self {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            Problem::new("bad-path", rejection.body_text()),
        )
    }
}

impl From<QueryRejection> for ApiError {
    fn from(rejection: QueryRejection) -> Self {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            Problem::new("bad-query", rejection.body_text()),
        )
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let retry_after = self.retry_after;
        let mut response = (self.status, Json(self.body())).into_response();
        if let Some(seconds) = retry_after {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        response
    }
}

/// A JSON body whose rejection is an [`ApiError`], so a malformed body gets a JSON answer. It must
/// be a JSON object, as every request schema of the document says: serde reads a struct from an
/// array too (`[null, null]` was taken as an edit of nothing), which no schema allows.
pub struct Body<T>(pub T);

impl<S: Send + Sync, T: serde::de::DeserializeOwned> axum::extract::FromRequest<S> for Body<T> {
    type Rejection = ApiError;

    async fn from_request(request: axum::extract::Request, state: &S) -> Result<Self, ApiError> {
        let axum::Json(ObjectOnly(value)) =
            axum::Json::<ObjectOnly<T>>::from_request(request, state).await?;
        Ok(Body(value))
    }
}

/// A field the document types `object` (a sheet, a state, an action), read only from a JSON
/// object: the rule sets read their structs from arrays too, so `"sheet": []` was a sheet. Used
/// with `#[serde(deserialize_with = "crate::error::object")]`.
pub(crate) fn object<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<serde_json::Value, D::Error> {
    use serde::Deserialize;
    serde_json::Map::deserialize(deserializer).map(serde_json::Value::Object)
}

/// [`object`], for a field that may be absent or null.
pub(crate) fn optional_object<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<serde_json::Value>, D::Error> {
    use serde::Deserialize;
    Ok(
        Option::<serde_json::Map<String, serde_json::Value>>::deserialize(deserializer)?
            .map(serde_json::Value::Object),
    )
}

/// `T`, read only from a JSON object.
struct ObjectOnly<T>(T);

impl<'de, T: serde::Deserialize<'de>> serde::Deserialize<'de> for ObjectOnly<T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor<T>(std::marker::PhantomData<T>);
        impl<'de, T: serde::Deserialize<'de>> serde::de::Visitor<'de> for Visitor<T> {
            type Value = T;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
                T::deserialize(serde::de::value::MapAccessDeserializer::new(map))
            }
        }
        deserializer
            .deserialize_map(Visitor(std::marker::PhantomData))
            .map(ObjectOnly)
    }
}

/// Path parameters whose rejection is an [`ApiError`].
#[derive(axum::extract::FromRequestParts)]
#[from_request(via(axum::extract::Path), rejection(ApiError))]
pub struct PathParams<T>(pub T);

/// A query string whose rejection is an [`ApiError`].
#[derive(axum::extract::FromRequestParts)]
#[from_request(via(axum::extract::Query), rejection(ApiError))]
pub struct QueryParams<T>(pub T);
