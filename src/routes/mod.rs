//! HTTP routes: one module per resource, each registering its handlers with `.service(...)` so
//! that utoipa-actix-web sees them for the spec. Handlers are thin: read the request, call the
//! match service, shape the answer.

pub mod actions;
pub mod club;
pub mod club_night;
pub mod events;
pub mod games;
pub mod health;
pub mod idempotent;
pub mod matches;
pub mod page;
pub mod responses;
pub mod scores;
pub mod spec;
pub mod stream;
pub mod tournaments;
pub mod webhooks;

use actix_web::{
    error::{JsonPayloadError, QueryPayloadError},
    http::{header, StatusCode},
    web, HttpRequest, HttpResponse,
};
use serde_json::Value;

use crate::error::ApiError;

/// Largest request body accepted (bytes); larger ones get 413.
pub const BODY_LIMIT: usize = 64 * 1024;

/// Largest body of `POST /v1/tournaments`: a national open's entrant list (4,096 names of up to
/// 64 characters, each with its player id) does not fit in [`BODY_LIMIT`].
pub const TOURNAMENT_BODY_LIMIT: usize = 1024 * 1024;

/// A JSON body of at most `limit` bytes, read by hand (for a route whose limit is not
/// [`BODY_LIMIT`]), with the same problem+json refusals as [`json_config`]'s: 415 unless the
/// content type is JSON, 413 past the limit, 400 `invalid_body` for anything not JSON.
pub async fn json_body_limited(
    req: &HttpRequest,
    payload: web::Payload,
    limit: usize,
) -> Result<Value, ApiError> {
    let json = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<mime::Mime>().ok())
        .is_some_and(|m| m.subtype() == mime::JSON || m.suffix() == Some(mime::JSON));
    if !json {
        return Err(ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_media_type",
            "send the body as JSON with Content-Type: application/json",
        ));
    }
    let body = match payload.to_bytes_limited(limit).await {
        Ok(Ok(body)) => body,
        Ok(Err(e)) => {
            return Err(ApiError::bad_request(
                "invalid_body",
                format!("the body could not be read: {e}"),
            ))
        }
        Err(_) => {
            return Err(ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                "payload_too_large",
                format!("the request body is larger than {limit} bytes"),
            ))
        }
    };
    serde_json::from_slice(&body).map_err(|e| {
        ApiError::bad_request(
            "invalid_body",
            format!("the body is not valid JSON of the expected shape: {e}"),
        )
    })
}

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

/// The optional headers of a write, as the spec shows them (`IntoParams` only: the handlers read
/// them with [`if_match`] and [`idempotency_key`], which accept exactly these patterns).
#[derive(utoipa::IntoParams)]
#[into_params(parameter_in = Header)]
pub struct WriteHeaders {
    /// Only if the match is still at this version (its `ETag`, e.g. `"12"`; `W/"12"`, a bare `12`
    /// and `*` are accepted too), else 412 `stale_version`. Any other value is 400
    /// `invalid_if_match`.
    #[param(
        rename = "If-Match",
        required = false,
        pattern = r#"^(\*|(W/)?"[0-9]{1,18}"|[0-9]{1,18})$"#,
        example = "\"12\""
    )]
    pub if_match: String,
    /// Repeating a key with the same request replays the first answer (`Idempotent-Replayed:
    /// true`); with another body, 409 `idempotency_key_reused`. 1 to 255 visible ASCII characters
    /// (inner spaces allowed), else 400 `invalid_idempotency_key`.
    #[param(
        rename = "Idempotency-Key",
        required = false,
        min_length = 1,
        max_length = 255,
        pattern = "^[!-~]([ -~]*[!-~])?$",
        example = "deal-1"
    )]
    pub idempotency_key: String,
    /// `return=minimal`: the answer carries the event and what it changed (version, status,
    /// round, who acts next) instead of the whole match view (RFC 7240; `Preference-Applied`
    /// says when it was honoured). Other preferences are ignored.
    #[param(rename = "Prefer", required = false, example = "return=minimal")]
    pub prefer: String,
}

/// The version named by `If-Match` (`"12"`, `W/"12"` or `12`); `*` or none is no condition.
/// Anything else is 400: the header is malformed, which is not the same as stale (412).
pub fn if_match(req: &HttpRequest) -> Result<Option<i64>, ApiError> {
    let Some(h) = req.headers().get(header::IF_MATCH) else {
        return Ok(None);
    };
    let s = h.to_str().unwrap_or("").trim();
    if s == "*" {
        return Ok(None);
    }
    let unquoted = s.strip_prefix("W/").unwrap_or(s);
    let tag = match unquoted.strip_prefix('"') {
        Some(rest) => rest.strip_suffix('"'),
        None if unquoted.len() == s.len() => Some(s),
        None => None, // `W/` needs quotes
    };
    match tag {
        Some(t) if (1..=18).contains(&t.len()) && t.bytes().all(|b| b.is_ascii_digit()) => {
            Ok(Some(t.parse().expect("1 to 18 digits fit an i64")))
        }
        _ => Err(ApiError::bad_request(
            "invalid_if_match",
            format!("If-Match must name a version as given by ETag, e.g. \"12\"; got {s:?}"),
        )),
    }
}

/// The `Idempotency-Key`, if any: 1 to 255 visible ASCII characters, inner spaces allowed (the
/// pattern of [`WriteHeaders`]).
pub fn idempotency_key(req: &HttpRequest) -> Result<Option<String>, ApiError> {
    let Some(h) = req.headers().get("idempotency-key") else {
        return Ok(None);
    };
    let k = h.as_bytes();
    let visible = |b: &u8| b.is_ascii_graphic();
    let ok = (1..=255).contains(&k.len())
        && k.iter().all(|b| visible(b) || *b == b' ')
        && k.first().is_some_and(visible)
        && k.last().is_some_and(visible);
    if ok {
        Ok(Some(String::from_utf8_lossy(k).into_owned()))
    } else {
        Err(ApiError::bad_request(
            "invalid_idempotency_key",
            "Idempotency-Key must be 1 to 255 visible ASCII characters",
        ))
    }
}

/// `ETag` value for a version.
pub fn etag(seq: i64) -> (header::HeaderName, String) {
    (header::ETAG, format!("\"{seq}\""))
}

/// Whether the request's `If-None-Match` names version `seq` (`"12"`, `W/"12"`, or `*`): the
/// client's copy is current.
fn not_modified(req: &HttpRequest, seq: i64) -> bool {
    let current = format!("\"{seq}\"");
    req.headers()
        .get_all(header::IF_NONE_MATCH)
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .any(|tag| tag == "*" || tag.strip_prefix("W/").unwrap_or(tag) == current)
}

/// A JSON answer with an ETag; 304 with no body when the request's `If-None-Match` already names
/// this version (RFC 9110, 13.1.2), so a phone polling an unchanged match downloads nothing.
pub fn json_with_etag<T: serde::Serialize>(
    req: &HttpRequest,
    status: StatusCode,
    seq: i64,
    body: &T,
) -> HttpResponse {
    if status == StatusCode::OK && not_modified(req, seq) {
        return HttpResponse::NotModified()
            .insert_header(etag(seq))
            .finish();
    }
    HttpResponse::build(status)
        .insert_header(etag(seq))
        .json(body)
}

/// Rewrites every number with no fractional part that fits an `i64`/`u64` (`2.0`, `-0.0`, `1e3`)
/// as that integer. JSON has one number type and JSON Schema counts `2.0` as an `integer`, so a
/// client (or a generator such as schemathesis) may send it where the spec says integer; serde
/// alone would refuse it for an integer field.
pub fn normalize_integers(v: &mut Value) {
    match v {
        Value::Number(n) if !n.is_i64() && !n.is_u64() => {
            if let Some(f) = n.as_f64() {
                // -2^63 <= f < 2^64: the casts below are exact.
                const RANGE: std::ops::Range<f64> =
                    -9.223_372_036_854_776e18..1.844_674_407_370_955_2e19;
                if f.fract() == 0.0 && RANGE.contains(&f) {
                    *v = if f < 0.0 {
                        Value::from(f as i64)
                    } else {
                        Value::from(f as u64)
                    };
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(normalize_integers),
        Value::Object(fields) => fields.values_mut().for_each(normalize_integers),
        _ => {}
    }
}

/// Parses a typed body out of a JSON value (400 with the reason on failure). The body must be a
/// JSON object: serde would also build a struct out of an array of its fields in order
/// (`[null, {...}]`), which the spec does not allow.
pub fn from_value<T: serde::de::DeserializeOwned>(v: Value) -> Result<T, ApiError> {
    if !v.is_object() {
        return Err(ApiError::bad_request(
            "invalid_body",
            "the body must be a JSON object",
        ));
    }
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
    not_found(path)
}

fn not_found(path: &str) -> HttpResponse {
    actix_web::ResponseError::error_response(&ApiError::new(
        StatusCode::NOT_FOUND,
        "not_found",
        format!("no resource at {path} (see /openapi.json)"),
    ))
}

/// The 404 answer of the page's routes for a file that is not there.
pub fn fallback_not_found() -> HttpResponse {
    not_found("that path")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::normalize_integers;

    #[test]
    fn integral_floats_become_integers_and_nothing_else_changes() {
        let mut v = json!({
            "a": 2.0, "b": -0.0, "c": 1e3, "d": -3.0, "e": 1.5, "f": 1e300,
            "g": 18446744073709551615.0, "h": -9223372036854775808.0,
            "i": [7.0, "7.0", null, {"j": 9007199254740993u64}],
        });
        normalize_integers(&mut v);
        assert_eq!(
            v,
            json!({
                "a": 2, "b": 0, "c": 1000, "d": -3, "e": 1.5, "f": 1e300,
                "g": 18446744073709551615.0, "h": -9223372036854775808i64,
                "i": [7, "7.0", null, {"j": 9007199254740993u64}],
            })
        );
    }

    /// A body's number is read to the nearest float (serde_json's `float_roundtrip`): without it,
    /// `2251799813685247.0` (below 2^53, exact) was read one step off, as 2251799813685247.25, and a
    /// valid integer was refused (schemathesis found it).
    #[test]
    fn an_integral_float_near_two_to_the_51_stays_an_integer() {
        let mut v: serde_json::Value =
            serde_json::from_str("[2251799813685247.0, 4503599627370495.5, 628.0]").unwrap();
        normalize_integers(&mut v);
        assert_eq!(v, json!([2251799813685247u64, 4503599627370495.5, 628]));
    }
}
