//! The one error type at the edge: every failure leaves as RFC 9457 `application/problem+json`
//! with a stable machine `code`. A 500 logs the whole chain and tells the client nothing internal.

use actix_web::{
    http::{header, StatusCode},
    HttpResponse, ResponseError,
};
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use crate::{
    rules::{ActionError, SetupError},
    store::StoreError,
};

/// An RFC 9457 problem document.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct Problem {
    /// A URI naming the problem type: `urn:clubroom:problem:<code>`.
    #[schema(example = "urn:clubroom:problem:must_follow_suit")]
    #[serde(rename = "type")]
    pub type_: String,
    /// A short summary of the problem type.
    #[schema(example = "Illegal action")]
    pub title: String,
    /// The HTTP status.
    #[schema(example = 422)]
    pub status: u16,
    /// What exactly went wrong, naming the rule.
    #[schema(example = "seat 2 holds hearts and must follow suit (H was led)")]
    pub detail: String,
    /// The stable machine code.
    #[schema(example = "must_follow_suit")]
    pub code: String,
    /// For a refused game action: what the seat could do instead.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Vec<Object>>)]
    pub legal: Option<Vec<Value>>,
}

/// An error answered to the client.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{status} {code}: {detail}")]
pub struct ApiError {
    /// HTTP status.
    pub status: StatusCode,
    /// Stable machine code.
    pub code: &'static str,
    /// Human detail.
    pub detail: String,
    /// Legal alternatives, for refused game actions.
    pub legal: Option<Vec<Value>>,
    /// Seconds for a `Retry-After` header (a 503 the client should simply retry).
    pub retry_after: Option<u32>,
}

/// How long a client is asked to wait before retrying after `storage_unavailable`.
pub const STORAGE_RETRY_AFTER_SECS: u32 = 2;

impl ApiError {
    /// A new error.
    pub fn new(status: StatusCode, code: &'static str, detail: impl Into<String>) -> ApiError {
        ApiError {
            status,
            code,
            detail: detail.into(),
            legal: None,
            retry_after: None,
        }
    }

    /// 503 `storage_unavailable`, with `Retry-After`: the database cannot be reached or cannot
    /// store right now. `detail` says whether something was recorded (see the callers).
    pub fn storage_unavailable(detail: impl Into<String>) -> ApiError {
        let mut e = ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "storage_unavailable",
            detail,
        );
        e.retry_after = Some(STORAGE_RETRY_AFTER_SECS);
        e
    }

    /// 503 `storage_unavailable` for a write whose commit may or may not have happened.
    pub fn outcome_unknown() -> ApiError {
        ApiError::storage_unavailable(
            "the database became unreachable while this write was being committed: it may or may \
             not have been recorded. Retry with the same Idempotency-Key: if it was recorded the \
             retry replays its answer, otherwise it records it once (without a key, read the \
             match's log before retrying)",
        )
    }

    /// 400.
    pub fn bad_request(code: &'static str, detail: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, code, detail)
    }

    /// 401.
    pub fn unauthorized(detail: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::UNAUTHORIZED, "unauthorized", detail)
    }

    /// 403.
    pub fn forbidden(code: &'static str, detail: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::FORBIDDEN, code, detail)
    }

    /// 404 for an unknown match.
    pub fn match_not_found(id: &str) -> ApiError {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "match_not_found",
            format!("no match has the id '{id}'"),
        )
    }

    /// 500: logs the cause, tells the client nothing internal.
    pub fn internal(cause: &dyn std::fmt::Display) -> ApiError {
        tracing::error!(error = %cause, "internal error");
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal_error",
            "the server failed to answer; nothing was recorded",
        )
    }

    fn title(&self) -> &'static str {
        match self.status.as_u16() {
            400 => "Bad request",
            401 => "Unauthorized",
            403 => "Forbidden",
            404 => "Not found",
            405 => "Method not allowed",
            408 => "Request timeout",
            409 => "Conflict",
            412 => "Precondition failed",
            413 => "Payload too large",
            415 => "Unsupported media type",
            422 => "Illegal action",
            429 => "Too many requests",
            503 => "Service unavailable",
            _ => "Internal server error",
        }
    }

    /// The problem document.
    pub fn problem(&self) -> Problem {
        Problem {
            type_: format!("urn:clubroom:problem:{}", self.code),
            title: self.title().to_string(),
            status: self.status.as_u16(),
            detail: self.detail.clone(),
            code: self.code.to_string(),
            legal: self.legal.clone(),
        }
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        self.status
    }

    fn error_response(&self) -> HttpResponse {
        let mut r = HttpResponse::build(self.status);
        r.insert_header((header::CONTENT_TYPE, "application/problem+json"));
        if let Some(secs) = self.retry_after {
            r.insert_header((header::RETRY_AFTER, secs.to_string()));
        }
        r.json(self.problem())
    }
}

impl From<StoreError> for ApiError {
    /// A storage fault is 503 `storage_unavailable` (logged); anything else a 500. Both say that
    /// nothing was recorded: a write whose outcome is unknown is checked before it is answered
    /// (`matches`), and an `OutcomeUnknown` that reaches here unchecked says so instead.
    fn from(e: StoreError) -> ApiError {
        match &e {
            StoreError::OutcomeUnknown(_) => {
                tracing::error!(error = %e, "storage fault; outcome unknown");
                ApiError::outcome_unknown()
            }
            StoreError::Unavailable(_) => {
                tracing::error!(error = %e, "storage unavailable");
                ApiError::storage_unavailable(
                    "the database is unavailable (unreachable, or out of space); nothing was \
                     recorded. Retry later",
                )
            }
            _ => ApiError::internal(&e),
        }
    }
}

impl From<SetupError> for ApiError {
    fn from(e: SetupError) -> ApiError {
        let code = match &e {
            SetupError::UnknownGame(_) => "unknown_game",
            SetupError::PlayerCount { .. } => "bad_player_count",
            SetupError::BadConfig(_) => "invalid_config",
            SetupError::Rule(code, _) => code,
        };
        ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, code, e.to_string())
    }
}

impl From<ActionError> for ApiError {
    fn from(e: ActionError) -> ApiError {
        match e {
            ActionError::Malformed(m) => ApiError::bad_request("invalid_action", m),
            ActionError::Illegal(r) => {
                ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, r.code, r.message)
            }
        }
    }
}
