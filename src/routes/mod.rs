//! HTTP routes: one module per resource, each registering its handlers with `.service(...)` so
//! that utoipa-actix-web sees them for the spec. Handlers are thin: read the request, call the
//! match service, shape the answer.

pub mod actions;
pub mod events;
pub mod games;
pub mod health;
pub mod matches;
pub mod scores;
pub mod spec;

use actix_web::{
    error::{JsonPayloadError, QueryPayloadError},
    http::{header, StatusCode},
    web, HttpRequest, HttpResponse,
};
use serde_json::Value;

use crate::error::ApiError;

/// Largest request body accepted (bytes); larger ones get 413.
pub const BODY_LIMIT: usize = 64 * 1024;

/// The JSON body settings: size limit and problem+json errors.
pub fn json_config() -> web::JsonConfig {
    web::JsonConfig::default()
        .limit(BODY_LIMIT)
        .error_handler(|err, _req| {
            let api = match &err {
                JsonPayloadError::Overflow { .. }
                | JsonPayloadError::OverflowKnownLength { .. } => ApiError::new(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    "payload_too_large",
                    format!("the request body is larger than {BODY_LIMIT} bytes"),
                ),
                JsonPayloadError::ContentType => ApiError::new(
                    StatusCode::UNSUPPORTED_MEDIA_TYPE,
                    "unsupported_media_type",
                    "send the body as JSON with Content-Type: application/json",
                ),
                JsonPayloadError::Deserialize(e) => ApiError::bad_request(
                    "invalid_body",
                    format!("the body is not valid JSON of the expected shape: {e}"),
                ),
                other => ApiError::bad_request(
                    "invalid_body",
                    format!("the body could not be read: {other}"),
                ),
            };
            api.into()
        })
}

/// Query-string errors as problem+json.
pub fn query_config() -> web::QueryConfig {
    web::QueryConfig::default().error_handler(|err: QueryPayloadError, _req| {
        ApiError::bad_request(
            "invalid_query",
            format!("the query string is not valid: {err}"),
        )
        .into()
    })
}

/// Path errors as problem+json.
pub fn path_config() -> web::PathConfig {
    web::PathConfig::default()
        .error_handler(|err, _req| ApiError::bad_request("invalid_path", err.to_string()).into())
}

/// The bearer token, if any (401 for a malformed Authorization header).
pub fn bearer(req: &HttpRequest) -> Result<Option<String>, ApiError> {
    let Some(h) = req.headers().get(header::AUTHORIZATION) else {
        return Ok(None);
    };
    let s = h
        .to_str()
        .map_err(|_| ApiError::unauthorized("the Authorization header is not readable"))?;
    match s.split_once(' ') {
        Some((scheme, token))
            if scheme.eq_ignore_ascii_case("bearer") && !token.trim().is_empty() =>
        {
            Ok(Some(token.trim().to_string()))
        }
        _ => Err(ApiError::unauthorized("use Authorization: Bearer <token>")),
    }
}

/// The version named by `If-Match` (`"12"`, `W/"12"` or `12`); `*` or none is no condition.
pub fn if_match(req: &HttpRequest) -> Result<Option<i64>, ApiError> {
    let Some(h) = req.headers().get(header::IF_MATCH) else {
        return Ok(None);
    };
    let s = h.to_str().unwrap_or("").trim();
    if s == "*" {
        return Ok(None);
    }
    let tag = s.trim_start_matches("W/").trim_matches('"');
    tag.parse::<i64>().map(Some).map_err(|_| {
        ApiError::new(
            StatusCode::PRECONDITION_FAILED,
            "stale_version",
            format!("If-Match must name a version as given by ETag, e.g. \"12\"; got {s:?}"),
        )
    })
}

/// The `Idempotency-Key`, if any (1 to 255 visible characters).
pub fn idempotency_key(req: &HttpRequest) -> Result<Option<String>, ApiError> {
    let Some(h) = req.headers().get("idempotency-key") else {
        return Ok(None);
    };
    match h.to_str() {
        Ok(k) if !k.trim().is_empty() && k.len() <= 255 => Ok(Some(k.to_string())),
        _ => Err(ApiError::bad_request(
            "invalid_idempotency_key",
            "Idempotency-Key must be 1 to 255 visible ASCII characters",
        )),
    }
}

/// `ETag` value for a version.
pub fn etag(seq: i64) -> (header::HeaderName, String) {
    (header::ETAG, format!("\"{seq}\""))
}

/// A JSON answer with an ETag.
pub fn json_with_etag<T: serde::Serialize>(status: StatusCode, seq: i64, body: &T) -> HttpResponse {
    HttpResponse::build(status)
        .insert_header(etag(seq))
        .json(body)
}

/// Parses a typed body out of a JSON value (400 with the reason on failure).
pub fn from_value<T: serde::de::DeserializeOwned>(v: Value) -> Result<T, ApiError> {
    serde_json::from_value(v).map_err(|e| {
        ApiError::bad_request(
            "invalid_body",
            format!("the body does not fit the schema: {e}"),
        )
    })
}

/// Route templates of the spec with their methods, for 405 answers.
static ROUTES: std::sync::LazyLock<Vec<(Vec<String>, Vec<String>)>> =
    std::sync::LazyLock::new(|| {
        let spec = crate::app::openapi();
        spec.paths
            .paths
            .iter()
            .map(|(path, item)| {
                let mut methods: Vec<String> = serde_json::to_value(item)
                    .ok()
                    .and_then(|v| {
                        v.as_object()
                            .map(|o| o.keys().map(|k| k.to_uppercase()).collect())
                    })
                    .unwrap_or_default();
                methods.retain(|m| ["GET", "POST", "PUT", "PATCH", "DELETE"].contains(&m.as_str()));
                (path.split('/').map(String::from).collect(), methods)
            })
            .collect()
    });

fn template_matches(template: &[String], path: &str) -> bool {
    let segments: Vec<&str> = path.split('/').collect();
    segments.len() == template.len()
        && template
            .iter()
            .zip(&segments)
            .all(|(t, s)| (t.starts_with('{') && t.ends_with('}') && !s.is_empty()) || t == s)
}

/// The answer for a request no route takes: 405 with `Allow` when the path exists with other
/// methods, else 404.
pub async fn fallback(req: HttpRequest) -> HttpResponse {
    let path = req.path();
    if let Some((_, methods)) = ROUTES.iter().find(|(t, _)| template_matches(t, path)) {
        let allow = methods.join(", ");
        let mut r = actix_web::ResponseError::error_response(&ApiError::new(
            StatusCode::METHOD_NOT_ALLOWED,
            "method_not_allowed",
            format!(
                "{} is not allowed on {path}; allowed: {allow}",
                req.method()
            ),
        ));
        if let Ok(v) = header::HeaderValue::from_str(&allow) {
            r.headers_mut().insert(header::ALLOW, v);
        }
        return r;
    }
    actix_web::ResponseError::error_response(&ApiError::new(
        StatusCode::NOT_FOUND,
        "not_found",
        format!("no resource at {path} (see /openapi.json)"),
    ))
}
