//! `POST /v1/matches/{id}/actions`, `GET /v1/matches/{id}/legal`, `POST /v1/matches/{id}/undo`.

use actix_web::{get, http::StatusCode, post, web, HttpRequest, HttpResponse};
use serde::Deserialize;
use serde_json::Value;
use utoipa::IntoParams;

use super::{
    bearer, from_value, idempotency_key, if_match, json_with_etag, normalize_integers,
    responses::{
        BodyTooLarge, MatchNotFound, NotJson, StorageUnavailable, VersionNotModified,
        WriteUnauthorized, WriteUnavailable,
    },
    WriteHeaders,
};
use crate::{
    error::{ApiError, Problem},
    matches::{
        views::{ActionRequest, Legal, Recorded, RecordedMinimal},
        Matches, WriteAnswer, WriteMeta,
    },
};

/// The bearer token of a write: 401 without one.
fn required_bearer(req: &HttpRequest) -> Result<String, ApiError> {
    bearer(req)?.ok_or_else(|| {
        ApiError::unauthorized("recording needs a token: Authorization: Bearer <token>")
    })
}

/// Whether the request asks `Prefer: return=minimal` (RFC 7240; other preferences are ignored).
fn prefers_minimal(req: &HttpRequest) -> bool {
    req.headers()
        .get_all("prefer")
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split([',', ';']))
        .any(|p| p.trim().eq_ignore_ascii_case("return=minimal"))
}

fn answer(a: WriteAnswer) -> HttpResponse {
    let mut r = HttpResponse::build(StatusCode::from_u16(a.status).unwrap_or(StatusCode::CREATED));
    r.insert_header(super::etag(a.seq))
        .content_type("application/json");
    if a.replayed {
        r.insert_header(("Idempotent-Replayed", "true"));
    }
    if a.minimal {
        r.insert_header(("Preference-Applied", "return=minimal"));
    }
    r.body(a.body)
}

/// Record an action.
///
/// Records one action of the match's game and answers the event with the match after it (201), or
/// with `Prefer: return=minimal` the event and what it changed (200). The seat token acts for its
/// own seat; the host token for any seat and for the table (`seat: null`). Nothing is recorded
/// when the request fails; `If-Match` guards against a stale view and `Idempotency-Key` makes a
/// retry safe.
#[utoipa::path(
    tag = "matches",
    params(
        ("id" = String, Path, description = "The match id: 32 lowercase hex digits (any other id is 404)", pattern = "^[0-9a-f]{32}$"),
        WriteHeaders,
    ),
    request_body(content = ActionRequest, examples(
        ("deal" = (summary = "The table deals (Dump)", value = json!({"seat": null, "action": {"type": "deal"}}))),
        ("play" = (summary = "Seat 1 plays the seven of hearts (Dump)", value = json!({"seat": 1, "action": {"type": "play", "card": "7H"}}))),
        ("tally" = (summary = "A whole Dump deal without play-by-play", value = json!({"seat": null, "action": {"type": "tally", "points": [95, 65]}}))),
    )),
    responses(
        (status = 201, description = "Recorded: the event and the whole match after it (the default answer)", body = Recorded, headers(("ETag" = String, description = "The new version"))),
        (status = 200, description = "Recorded, answered minimally (the request sent `Prefer: return=minimal`): the event and what it changed, without the match view", body = RecordedMinimal, headers(("ETag" = String, description = "The new version"), ("Preference-Applied" = String, description = "`return=minimal`"))),
        (status = 400, description = "Malformed body or action, unknown field, wrong type; `invalid_if_match`, `invalid_idempotency_key`", body = Problem, content_type = "application/problem+json"),
        WriteUnauthorized,
        (status = 403, description = "`not_your_seat` or `host_only`", body = Problem, content_type = "application/problem+json"),
        MatchNotFound,
        (status = 409, description = "`idempotency_key_reused` with a different body; `match_abandoned`: the tournament's organiser settled the table by hand and closed the match", body = Problem, content_type = "application/problem+json"),
        (status = 412, description = "`stale_version`: If-Match does not match", body = Problem, content_type = "application/problem+json"),
        BodyTooLarge,
        NotJson,
        (status = 422, description = "Illegal under the rules: `not_your_turn`, `must_follow_suit`, `card_not_in_hand`, `card_already_played`, `no_such_card`, `deal_expected`, `match_finished`, ...; carries `legal` where the caller may see it. In service dealing an action is judged on public facts first (the turn, the phase, the card's existence and public history, the move on the public board) and only then against the acting seat's hidden hand (or, in By Hook or Crook, a location it has sealed). A refusal the hidden hand decides (`card_not_in_hand`, `must_follow_suit` in Dump and Clubs, `not_best_set`, `no_set_to_exhibit`, ...) is told to the seat's own token only; anyone else (the host acting for the seat) gets `not_playable`, one answer whichever card or rule refused it (`detail`: \"seat 2 cannot do this: the reason lies in what only seat 2 knows (its hidden hand or a choice it has sealed: a card it does not hold, a rule its cards impose), so only seat 2's own token is told it\"), and no `legal`. Bonus-Malus's `must_follow_suit` and `must_trump` are public: the backs show every hand's suits", body = Problem, content_type = "application/problem+json",
         example = json!({"type": "urn:clubroom:problem:must_follow_suit", "title": "Illegal action", "status": 422, "detail": "seat 2 holds hearts and must follow suit (H was led)", "code": "must_follow_suit", "legal": [{"type": "play", "card": "9H"}]})),
        WriteUnavailable,
    ),
    security(("bearer" = []))
)]
#[post("/v1/matches/{id}/actions")]
pub async fn record_action(
    svc: web::Data<Matches>,
    id: web::Path<String>,
    req: HttpRequest,
    body: web::Json<Value>,
) -> Result<HttpResponse, ApiError> {
    // Who asks comes first: without a token nothing else about the request matters.
    let token = required_bearer(&req)?;
    let mut body = body.into_inner();
    normalize_integers(&mut body);
    let action: ActionRequest = from_value(body.clone())?;
    if !action.action.is_object() {
        return Err(ApiError::bad_request(
            "invalid_action",
            "the action must be a JSON object: {\"type\": ..., ...}",
        ));
    }
    let meta = WriteMeta {
        token: Some(&token),
        if_match: if_match(&req)?,
        idempotency_key: idempotency_key(&req)?,
        body: &body,
        minimal: prefers_minimal(&req),
    };
    Ok(answer(svc.act(&id, action, meta).await?))
}

/// Which seat to ask about.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct LegalQuery {
    /// The seat; omitted for the table.
    #[param(minimum = 0, maximum = 15)]
    pub seat: Option<usize>,
}

/// What may be done now.
///
/// Lists what a seat (or, without `seat`, the table) may do now, each entry an action to send back
/// as it is. Public for the table and, in table dealing, for any seat; in service dealing a seat's
/// list shows its hand, so it needs that seat's token (or the host's).
#[utoipa::path(
    tag = "matches",
    params(("id" = String, Path, description = "The match id: 32 lowercase hex digits (any other id is 404)", pattern = "^[0-9a-f]{32}$"), ("If-None-Match" = Option<String>, Header, description = "A version the client holds (its `ETag`, e.g. `\"12\"`): 304 with no body while the match is still at it"), LegalQuery),
    responses(
        (status = 200, description = "The legal actions", body = Legal),
        VersionNotModified,
        (status = 400, description = "A malformed query (`invalid_query`)", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "Service dealing needs the seat's token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`hand_is_private`; `round_in_play`: a duplicate tournament table read without a token while its round is being played", body = Problem, content_type = "application/problem+json"),
        MatchNotFound,
        (status = 422, description = "`no_such_seat`: the match has fewer seats", body = Problem, content_type = "application/problem+json"),
        StorageUnavailable,
    ),
    security((), ("bearer" = []))
)]
#[get("/v1/matches/{id}/legal")]
pub async fn legal(
    svc: web::Data<Matches>,
    id: web::Path<String>,
    q: web::Query<LegalQuery>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let token = bearer(&req)?;
    let (legal, seq) = svc.legal(&id, token.as_deref(), q.seat).await?;
    Ok(json_with_etag(&req, StatusCode::OK, seq, &legal))
}

/// Undo body: empty, or an empty object.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UndoRequest {}

/// Undo the last action.
///
/// Retracts the last standing action (host token only) and answers the retraction event with the
/// match after it (201), or minimally (200) with `Prefer: return=minimal`. The retraction is an
/// event of its own; the state is recomputed without the retracted action (undoing a deal
/// un-deals). Undo never goes back across a published shuffle seed (service dealing: once a round
/// is over its seed is in the log, so its actions and those before are final: 422 `round_closed`).
/// A retracted deal is void and its seed is shown at once; a retracted sealed choice stays sealed
/// for ever.
#[utoipa::path(
    tag = "matches",
    params(
        ("id" = String, Path, description = "The match id: 32 lowercase hex digits (any other id is 404)", pattern = "^[0-9a-f]{32}$"),
        WriteHeaders,
    ),
    request_body(content = Option<UndoRequest>, description = "Empty, or `{}`"),
    responses(
        (status = 201, description = "Retracted: the event and the whole match after it (the default answer)", body = Recorded, headers(("ETag" = String, description = "The new version"))),
        (status = 200, description = "Retracted, answered minimally (the request sent `Prefer: return=minimal`): the event and what it changed, without the match view", body = RecordedMinimal, headers(("ETag" = String, description = "The new version"), ("Preference-Applied" = String, description = "`return=minimal`"))),
        (status = 400, description = "A body that is not `{}`; `invalid_if_match`, `invalid_idempotency_key`", body = Problem, content_type = "application/problem+json"),
        WriteUnauthorized,
        (status = 403, description = "`host_only`", body = Problem, content_type = "application/problem+json"),
        MatchNotFound,
        (status = 409, description = "`idempotency_key_reused`; `match_abandoned`: the match was closed (its tournament table settled by hand)", body = Problem, content_type = "application/problem+json"),
        (status = 412, description = "`stale_version`", body = Problem, content_type = "application/problem+json"),
        BodyTooLarge,
        (status = 422, description = "`nothing_to_undo`; `round_closed`: the action belongs to a round whose shuffle seed is published (service dealing: the round is over and the seed re-derives its hands), so undo cannot reopen it, and a finished duplicate tournament table is never reopened (its result may complete the round, which publishes every board); `choices_revealed`: the action completed a set of sealed choices and revealed the others to everyone, so undo cannot seal them again", body = Problem, content_type = "application/problem+json",
         example = json!({"type": "urn:clubroom:problem:round_closed", "title": "Illegal action", "status": 422, "detail": "round 1 is closed: its shuffle seed is published and re-derives every card dealt for it, so undo may not retract seq 41 (round 1), which would reopen round 1 with every hand known to all", "code": "round_closed"})),
        WriteUnavailable,
    ),
    security(("bearer" = []))
)]
#[post("/v1/matches/{id}/undo")]
pub async fn undo(
    svc: web::Data<Matches>,
    id: web::Path<String>,
    req: HttpRequest,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let token = required_bearer(&req)?;
    // Read by hand rather than with `web::Bytes`, whose errors (e.g. 413) actix answers in
    // text/plain.
    let body = match payload.to_bytes_limited(super::BODY_LIMIT).await {
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
                format!(
                    "the request body is larger than {} bytes",
                    super::BODY_LIMIT
                ),
            ))
        }
    };
    // No body (or a blank one) and `{}` both mean "no options". The spec's body is optional but,
    // when present, an object: JSON `null` is refused like any other non-object.
    let value: Value = if body.iter().all(u8::is_ascii_whitespace) {
        Value::Object(Default::default())
    } else {
        serde_json::from_slice(&body).map_err(|e| {
            ApiError::bad_request("invalid_body", format!("the body is not valid JSON: {e}"))
        })?
    };
    let _: UndoRequest = from_value(value.clone())?;
    let meta = WriteMeta {
        token: Some(&token),
        if_match: if_match(&req)?,
        idempotency_key: idempotency_key(&req)?,
        body: &value,
        minimal: prefers_minimal(&req),
    };
    Ok(answer(svc.undo(&id, meta).await?))
}

/// Registers the routes.
pub fn config(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(record_action).service(legal).service(undo);
}

#[cfg(test)]
mod tests {
    /// The 422's description quotes the `not_playable` detail: it must be the one the service
    /// writes (`rules::not_playable_detail`).
    #[test]
    fn the_spec_quotes_the_not_playable_detail_as_the_service_writes_it() {
        let spec: serde_json::Value =
            serde_json::from_str(&crate::app::openapi_json()).expect("the spec is JSON");
        let described = spec["paths"]["/v1/matches/{id}/actions"]["post"]["responses"]["422"]
            ["description"]
            .as_str()
            .expect("the 422 is described");
        assert!(
            described.contains(&crate::rules::not_playable_detail(1)),
            "{described}"
        );
    }
}
