//! Players and tournaments: `POST /v1/players`, `GET /v1/players/{id}`, `POST /v1/tournaments`,
//! `GET /v1/tournaments/{id}`, rounds, results, standings and exports.

use actix_web::{
    get,
    http::{header, StatusCode},
    post, put, web, HttpRequest, HttpResponse,
};
use serde::Deserialize;
use serde_json::Value;
use utoipa::IntoParams;

use super::{
    bearer, from_value,
    idempotent::Created,
    normalize_integers,
    responses::{
        BodyTooLarge, ContentNotModified, NotJson, OrganiserOnly, OrganiserTokenMissing,
        StorageUnavailableBrief, TooManyCreates, TournamentNotFound,
    },
};
use crate::{
    error::{ApiError, Problem},
    limits::Gate,
    matches::{views::MatchPage, Matches},
    tournaments::{
        boards::{self, RoundBoards},
        export,
        model::Standings,
        service::{TournamentFilter, Tournaments},
        views::{
            CreatePlayer, CreateTournament, CreatedTournament, EnterResult, Player, PlayerPage,
            RoundWithTokens, TableView, TournamentEventPage, TournamentPage, TournamentStatus,
            TournamentView,
        },
    },
};

/// A body with a strong ETag of its own bytes; 304 when `If-None-Match` names it (a page
/// polling unchanged standings downloads nothing).
fn with_content_etag(req: &HttpRequest, content_type: &str, body: String) -> HttpResponse {
    let tag = format!("\"{}\"", &crate::ids::sha256_hex(body.as_bytes())[..16]);
    let fresh = req
        .headers()
        .get_all(header::IF_NONE_MATCH)
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .any(|t| t == "*" || t.strip_prefix("W/").unwrap_or(t) == tag);
    if fresh {
        return HttpResponse::NotModified()
            .insert_header((header::ETAG, tag))
            .finish();
    }
    HttpResponse::Ok()
        .insert_header((header::ETAG, tag))
        .content_type(content_type)
        .body(body)
}

fn json_etag<T: serde::Serialize>(req: &HttpRequest, v: &T) -> Result<HttpResponse, ApiError> {
    let body = serde_json::to_string(v).map_err(|e| ApiError::internal(&e))?;
    Ok(with_content_etag(req, "application/json", body))
}

/// Register a player.
///
/// Registers a player and answers it (201): a stable id to name at match seats, in tournaments,
/// stats and leaderboards. Anyone may register (rate limited per client); `Idempotency-Key` makes
/// a retry return the first answer.
#[utoipa::path(
    tag = "tournaments",
    request_body(content = CreatePlayer, example = json!({"name": "Ada"})),
    responses(
        (status = 201, description = "Registered", body = Player, headers(("Location" = String, description = "/v1/players/{id}"))),
        (status = 400, description = "Malformed body, blank or too long name", body = Problem, content_type = "application/problem+json"),
        BodyTooLarge,
        NotJson,
        TooManyCreates,
        StorageUnavailableBrief,
    )
)]
#[post("/v1/players")]
pub async fn create_player(
    svc: web::Data<Tournaments>,
    matches: web::Data<Matches>,
    gate: web::Data<Gate>,
    http: HttpRequest,
    body: web::Json<Value>,
) -> Result<HttpResponse, ApiError> {
    gate.check_create(&http)?;
    let body = body.into_inner();
    super::idempotent::create(matches.store(), &http, None, &body, || async {
        let req: CreatePlayer = from_value(body.clone())?;
        let p = svc.create_player(req).await?;
        Ok(Created::from(
            crate::tournaments::service::player_answer(&p).map_err(|e| ApiError::internal(&e))?,
        ))
    })
    .await
}

/// A registered player.
///
/// Answers a registered player's id, name and registration time. Public.
#[utoipa::path(
    tag = "tournaments",
    params(("id" = String, Path, description = "The player id", pattern = "^[0-9a-f]{32}$")),
    responses(
        (status = 200, description = "The player", body = Player),
        (status = 404, description = "`player_not_found`", body = Problem, content_type = "application/problem+json"),
        StorageUnavailableBrief,
    )
)]
#[get("/v1/players/{id}")]
pub async fn get_player(
    svc: web::Data<Tournaments>,
    id: web::Path<String>,
) -> Result<web::Json<Player>, ApiError> {
    Ok(web::Json(svc.player(&id).await?))
}

/// The page size of a list query: 1 to 100, 20 by default.
fn page_limit(limit: Option<i64>) -> Result<i64, ApiError> {
    let limit = limit.unwrap_or(20);
    if !(1..=100).contains(&limit) {
        return Err(ApiError::bad_request(
            "invalid_query",
            "limit must be 1 to 100",
        ));
    }
    Ok(limit)
}

/// Search and paging of the player list.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct PlayerQuery {
    /// Only players whose name contains this text, anywhere, in any case (compared after Unicode
    /// lower-casing both): `q=da` finds Ada and Dan. Up to 64 characters.
    #[param(max_length = 64, example = "ad")]
    pub q: Option<String>,
    /// Page size, 1 to 100 (default 20).
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<i64>,
    /// `next_cursor` of the previous page.
    #[param(pattern = "^[0-9]{1,18}$")]
    pub cursor: Option<String>,
}

/// List players.
///
/// Lists registered players in registration order (oldest first), optionally those whose name
/// contains `q` (any case), paged by cursor. Public, as each player's own `GET /v1/players/{id}`
/// is: a player is registered to be named in standings and exports. Shows only id, name and
/// registration time.
#[utoipa::path(
    tag = "tournaments",
    params(PlayerQuery),
    responses(
        (status = 200, description = "A page of players", body = PlayerPage),
        (status = 400, description = "`invalid_query` (limit, q too long, unknown parameter), `invalid_cursor`", body = Problem, content_type = "application/problem+json"),
        StorageUnavailableBrief,
    )
)]
#[get("/v1/players")]
pub async fn list_players(
    svc: web::Data<Tournaments>,
    q: web::Query<PlayerQuery>,
) -> Result<web::Json<PlayerPage>, ApiError> {
    let limit = page_limit(q.limit)?;
    if q.q.as_ref().is_some_and(|q| q.chars().count() > 64) {
        return Err(ApiError::bad_request(
            "invalid_query",
            "q must have at most 64 characters (a name has at most 64)",
        ));
    }
    Ok(web::Json(
        svc.list_players(q.q.as_deref(), q.cursor.as_deref(), limit)
            .await?,
    ))
}

/// Paging of a list.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct PageQuery {
    /// Page size, 1 to 100 (default 20).
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<i64>,
    /// `next_cursor` of the previous page.
    #[param(pattern = "^[0-9]{1,18}$")]
    pub cursor: Option<String>,
}

/// A player's matches.
///
/// Lists the matches at which a seat names this registered player, newest first: finished and
/// abandoned ones (not those in progress), and a duplicate round's tables only once the round is
/// complete. Public. A seat named by a name alone (no `player_id`) is not linked to any player.
#[utoipa::path(
    tag = "tournaments",
    params(("id" = String, Path, description = "The player id", pattern = "^[0-9a-f]{32}$"), PageQuery),
    responses(
        (status = 200, description = "A page of matches", body = MatchPage),
        (status = 400, description = "`invalid_query`, `invalid_cursor`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`player_not_found`", body = Problem, content_type = "application/problem+json"),
        StorageUnavailableBrief,
    )
)]
#[get("/v1/players/{id}/matches")]
pub async fn player_matches(
    svc: web::Data<Tournaments>,
    id: web::Path<String>,
    q: web::Query<PageQuery>,
) -> Result<web::Json<MatchPage>, ApiError> {
    let limit = page_limit(q.limit)?;
    Ok(web::Json(
        svc.player_matches(&id, q.cursor.as_deref(), limit).await?,
    ))
}

/// A player's tournaments.
///
/// Lists the tournaments this registered player entered, newest first. Public.
#[utoipa::path(
    tag = "tournaments",
    params(("id" = String, Path, description = "The player id", pattern = "^[0-9a-f]{32}$"), PageQuery),
    responses(
        (status = 200, description = "A page of tournaments", body = TournamentPage),
        (status = 400, description = "`invalid_query`, `invalid_cursor`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`player_not_found`", body = Problem, content_type = "application/problem+json"),
        StorageUnavailableBrief,
    )
)]
#[get("/v1/players/{id}/tournaments")]
pub async fn player_tournaments(
    svc: web::Data<Tournaments>,
    id: web::Path<String>,
    q: web::Query<PageQuery>,
) -> Result<web::Json<TournamentPage>, ApiError> {
    let limit = page_limit(q.limit)?;
    Ok(web::Json(
        svc.player_tournaments(&id, q.cursor.as_deref(), limit)
            .await?,
    ))
}

/// Filters and paging of the tournament list.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct TournamentQuery {
    /// Only tournaments of this game.
    #[param(example = "clubs")]
    pub game: Option<String>,
    /// Only those created at or after this time (RFC 3339).
    #[param(format = DateTime, example = "2026-11-01T00:00:00Z")]
    pub created_after: Option<String>,
    /// Only those created before this time (RFC 3339).
    #[param(format = DateTime, example = "2026-12-01T00:00:00Z")]
    pub created_before: Option<String>,
    /// Only tournaments with this status: `in_progress` (rounds to pair or tables to finish) or
    /// `finished` (the last round complete), as their view's `status` says. Any other value is
    /// 400 `invalid_query`.
    #[param(inline)]
    pub status: Option<TournamentStatus>,
    /// Archived tournaments too (default false: the list leaves them out). Deleted ones are
    /// never listed.
    pub include_archived: Option<bool>,
    /// Page size, 1 to 100 (default 20).
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<i64>,
    /// `next_cursor` of the previous page.
    #[param(pattern = "^[0-9]{1,18}$")]
    pub cursor: Option<String>,
}

/// List tournaments.
///
/// Lists tournaments, newest first and paged by cursor, optionally of one game, of one status or
/// created in a time range; archived ones only with `include_archived=true`. Public: a
/// tournament's view, standings and exports are public by id, and a club lists its events; the
/// organiser's token is never shown.
#[utoipa::path(
    tag = "tournaments",
    params(TournamentQuery),
    responses(
        (status = 200, description = "A page of tournaments", body = TournamentPage),
        (status = 400, description = "`invalid_query` (limit, a time that is not RFC 3339, a status other than `in_progress` or `finished`, unknown parameter), `invalid_cursor`", body = Problem, content_type = "application/problem+json"),
        StorageUnavailableBrief,
    )
)]
#[get("/v1/tournaments")]
pub async fn list_tournaments(
    svc: web::Data<Tournaments>,
    q: web::Query<TournamentQuery>,
) -> Result<web::Json<TournamentPage>, ApiError> {
    let limit = page_limit(q.limit)?;
    let filter = TournamentFilter {
        game: q.game.as_deref(),
        created_after: q.created_after.as_deref(),
        created_before: q.created_before.as_deref(),
        player: None,
        status: q.status,
        archived: q.include_archived.unwrap_or(false),
    };
    Ok(web::Json(
        svc.list_tournaments(&filter, q.cursor.as_deref(), limit)
            .await?,
    ))
}

/// Create a tournament.
///
/// Creates a tournament from its settings and entrants and answers it (201) with the organiser's
/// token, shown once: it pairs rounds, enters results and gives every table's match tokens. Anyone
/// may create one (rate limited per client); entrants given by name are registered as new players,
/// those given by `player_id` must exist. `Idempotency-Key` makes a retry return the first answer.
#[utoipa::path(
    tag = "tournaments",
    request_body(content = CreateTournament, example = json!({"name": "Club night", "game": "clubs", "format": "swiss", "rounds": 3, "table_size": 4, "dealing": "service", "duplicate": true, "players": [{"name": "Ada"}, {"name": "Ben"}, {"name": "Cy"}, {"name": "Di"}, {"name": "Ed"}, {"name": "Flo"}, {"name": "Gus"}, {"name": "Hal"}]})),
    responses(
        (status = 201, description = "Created", body = CreatedTournament, headers(("Location" = String, description = "/v1/tournaments/{id}"))),
        (status = 400, description = "Malformed body, blank name, too few or too many entrants", body = Problem, content_type = "application/problem+json"),
        BodyTooLarge,
        NotJson,
        (status = 422, description = "`unknown_game`, `invalid_config`, `invalid_table_size`, `invalid_rounds`, `invalid_entrants`, `unknown_player`, `player_name_mismatch` (an entry names a registered player under another name), `duplicate_player`, `duplicate_not_dealt`, `duplicate_needs_service_dealing`, `duplicate_needs_two_tables`", body = Problem, content_type = "application/problem+json"),
        TooManyCreates,
        StorageUnavailableBrief,
    )
)]
#[post("/v1/tournaments")]
pub async fn create_tournament(
    svc: web::Data<Tournaments>,
    matches: web::Data<Matches>,
    gate: web::Data<Gate>,
    http: HttpRequest,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    gate.check_create(&http)?;
    // A national open's entrant list is larger than other bodies (see TOURNAMENT_BODY_LIMIT).
    let mut body = super::json_body_limited(&http, payload, super::TOURNAMENT_BODY_LIMIT).await?;
    normalize_integers(&mut body);
    super::idempotent::create(matches.store(), &http, None, &body, || async {
        let req: CreateTournament = from_value(body.clone())?;
        let created = svc.create_tournament(req).await?;
        Ok(Created::from(
            crate::tournaments::service::tournament_answer(&created)
                .map_err(|e| ApiError::internal(&e))?,
        ))
    })
    .await
}

/// The tournament.
///
/// Answers the tournament: settings, entrants, every round's tables and results. Readable by
/// anyone with the id; while a duplicate round is played, its tables' match ids show only to the
/// organiser. `ETag` and `If-None-Match` save a transfer.
#[utoipa::path(
    tag = "tournaments",
    params(("id" = String, Path, description = "The tournament id", pattern = "^[0-9a-f]{32}$")),
    responses(
        (status = 200, description = "The tournament", body = TournamentView, headers(("ETag" = String, description = "Changes with any change"))),
        ContentNotModified,
        (status = 401, description = "A malformed Authorization header", body = Problem, content_type = "application/problem+json"),
        TournamentNotFound,
        StorageUnavailableBrief,
    ),
    security((), ("bearer" = []))
)]
#[get("/v1/tournaments/{id}")]
pub async fn get_tournament(
    svc: web::Data<Tournaments>,
    id: web::Path<String>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let token = bearer(&req)?;
    json_etag(&req, &svc.tournament(&id, token.as_deref()).await?)
}

/// A new organiser token.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
pub struct RotatedOrganiserToken {
    /// The new organiser token, shown once. The old one, and every table token derived from it,
    /// is refused from now on; `GET .../rounds/{round}` gives the tables' new tokens.
    pub organiser_token: String,
}

/// Rotate the organiser token.
///
/// Issues a new organiser token and revokes the old one at once, with every table's match tokens
/// (they derive from the organiser's; ask the rounds again for the new ones); the answer holds the
/// new token, shown once. The organiser's token may ask; so may the operator's
/// (`CLUBROOM_OPERATOR_TOKEN`), to recover a tournament whose organiser lost the token. A pairing
/// or a result entry racing the rotation with the old token is either recorded before it or
/// refused (403 `organiser_only`), never half.
#[utoipa::path(
    tag = "tournaments",
    params(("id" = String, Path, description = "The tournament id", pattern = "^[0-9a-f]{32}$")),
    responses(
        (status = 200, description = "The new organiser token", body = RotatedOrganiserToken),
        OrganiserTokenMissing,
        OrganiserOnly,
        TournamentNotFound,
        StorageUnavailableBrief,
    ),
    security(("bearer" = []))
)]
#[post("/v1/tournaments/{id}/organiser-token")]
pub async fn rotate_organiser(
    svc: web::Data<Tournaments>,
    id: web::Path<String>,
    req: HttpRequest,
) -> Result<web::Json<RotatedOrganiserToken>, ApiError> {
    let token = bearer(&req)?;
    Ok(web::Json(RotatedOrganiserToken {
        organiser_token: svc.rotate_organiser(&id, token.as_deref()).await?,
    }))
}

/// Pair the next round.
///
/// Pairs the next round (organiser token) and answers it (201) with every table's match tokens:
/// round robin by its schedule, Swiss by the standings so far. Each table gets a match (record
/// `matches`) whose seats name the players. The previous round must be complete; `Idempotency-Key`
/// makes a retry return the first answer instead of pairing again.
#[utoipa::path(
    tag = "tournaments",
    params(("id" = String, Path, description = "The tournament id", pattern = "^[0-9a-f]{32}$")),
    responses(
        (status = 201, description = "Paired", body = RoundWithTokens, headers(("Location" = String, description = "/v1/tournaments/{id}/rounds/{round}"))),
        OrganiserTokenMissing,
        OrganiserOnly,
        TournamentNotFound,
        (status = 409, description = "`round_in_progress` (a table of the last round has no result) or `tournament_finished`", body = Problem, content_type = "application/problem+json"),
        StorageUnavailableBrief,
    ),
    security(("bearer" = []))
)]
#[post("/v1/tournaments/{id}/rounds")]
pub async fn pair_round(
    svc: web::Data<Tournaments>,
    matches: web::Data<Matches>,
    id: web::Path<String>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let token = bearer(&req)?;
    if token.is_none() {
        // Pairing is the organiser's: without a token the service refuses it (404 for an unknown
        // tournament, else 401 `organiser_token_required`) before any Idempotency-Key is read.
        let round = svc.pair_round(&id, None).await?;
        return Ok(Created::from(
            crate::tournaments::service::round_answer(&id, &round)
                .map_err(|e| ApiError::internal(&e))?,
        )
        .respond(false));
    }
    // No body: the request is its path and its token.
    super::idempotent::create(
        matches.store(),
        &req,
        token.as_deref(),
        &Value::Null,
        || async {
            let round = svc.pair_round(&id, token.as_deref()).await?;
            Ok(Created::from(
                crate::tournaments::service::round_answer(&id, &round)
                    .map_err(|e| ApiError::internal(&e))?,
            ))
        },
    )
    .await
}

/// A round with its tokens.
///
/// Answers a round with its tables and their match tokens (organiser token only). The tokens
/// derive from the organiser's, so asking again gives the same ones (until the organiser token is
/// rotated).
///
/// Duplicate play with real cards: each table's `fouls` lists the cards recorded there so far
/// that their seat did not hold by the round's board. This is where the organiser reads them
/// while the round is played: no table token sees a foul until the round is complete (a host
/// recording every seat's plays could otherwise probe a seat's board through undo).
#[utoipa::path(
    tag = "tournaments",
    params(
        ("id" = String, Path, description = "The tournament id", pattern = "^[0-9a-f]{32}$"),
        ("round" = u32, Path, description = "The round, from 1", minimum = 1, maximum = 1000),
    ),
    responses(
        (status = 200, description = "The round", body = RoundWithTokens),
        (status = 400, description = "A round that is not a number", body = Problem, content_type = "application/problem+json"),
        OrganiserTokenMissing,
        OrganiserOnly,
        (status = 404, description = "`tournament_not_found`, `round_not_found`", body = Problem, content_type = "application/problem+json"),
        StorageUnavailableBrief,
    ),
    security(("bearer" = []))
)]
#[get("/v1/tournaments/{id}/rounds/{round}")]
pub async fn get_round(
    svc: web::Data<Tournaments>,
    path: web::Path<(String, u32)>,
    req: HttpRequest,
) -> Result<web::Json<RoundWithTokens>, ApiError> {
    let token = bearer(&req)?;
    let (id, round) = path.into_inner();
    Ok(web::Json(
        svc.round_with_tokens(&id, round, token.as_deref()).await?,
    ))
}

/// Which boards to print.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct BoardsQuery {
    /// The first board, from 1 (default 1).
    #[param(minimum = 1, maximum = 1000)]
    pub from: Option<u32>,
    /// How many boards, 1 to 64 (default 12).
    #[param(minimum = 1, maximum = 64)]
    pub count: Option<u32>,
}

fn boards_range(q: &BoardsQuery) -> Result<(u32, u32), ApiError> {
    let from = q.from.unwrap_or(1);
    let count = q.count.unwrap_or(boards::DEFAULT_BOARDS);
    if !(1..=1000).contains(&from) || !(1..=boards::MAX_BOARDS).contains(&count) {
        return Err(ApiError::bad_request(
            "invalid_query",
            format!("from is 1 to 1000 and count 1 to {}", boards::MAX_BOARDS),
        ));
    }
    Ok((from, count))
}

/// A round's boards for duplicate play at tables that deal real cards (organiser only, at any
/// time: nobody else, a table's host and seat tokens included, ever sees them here). Board k is
/// deal k at every table: what service dealing would deal from the round's secret. Each table
/// records its plays as usual; a card a seat shows that it does not hold by the board (was not
/// dealt it, nor in Bonus-Malus drew it from the board's stock) fouls the board at that table
/// (listed to the organiser on the round, `GET /v1/tournaments/{id}/rounds/{round}`, while it
/// is played; the event's `fouled` once the round is complete), and the standings score it by
/// the tournament's `fouled_board`. Cards
/// are written as the game's actions write them: `QS`; P.M. values (`-7` is MINUS 7, the rest
/// of the packs `undealt`, out of play); Members Only categories (`hat:no`; the two face-up
/// cards in `layout`, the cards out of the heat `undealt`); Bonus-Malus's `stock` top card
/// first.
#[utoipa::path(
    tag = "tournaments",
    params(
        ("id" = String, Path, description = "The tournament id", pattern = "^[0-9a-f]{32}$"),
        ("round" = u32, Path, description = "The round, from 1", minimum = 1, maximum = 1000),
        BoardsQuery,
    ),
    responses(
        (status = 200, description = "The boards", body = RoundBoards),
        (status = 400, description = "A round that is not a number, `invalid_query` (from, count, unknown parameter)", body = Problem, content_type = "application/problem+json"),
        OrganiserTokenMissing,
        OrganiserOnly,
        (status = 404, description = "`tournament_not_found`, `round_not_found`", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`no_printed_boards`: not duplicate play at tables dealing real cards", body = Problem, content_type = "application/problem+json"),
        StorageUnavailableBrief,
    ),
    security(("bearer" = []))
)]
#[get("/v1/tournaments/{id}/rounds/{round}/boards")]
pub async fn get_boards(
    svc: web::Data<Tournaments>,
    path: web::Path<(String, u32)>,
    q: web::Query<BoardsQuery>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let token = bearer(&req)?;
    let (id, round) = path.into_inner();
    let (from, count) = boards_range(&q)?;
    let b = svc
        .boards(&id, round, token.as_deref(), from, count)
        .await?;
    Ok(HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(b))
}

/// The same boards as a print-ready page (organiser only): per board a deal sheet (each seat's
/// cards sorted by suit, P.M. value or Members Only category, for pre-dealing the wallets;
/// Members Only's layout cards, Bonus-Malus's stock in its order, the cards out of play) on its
/// own A4 page, then a curtain card per seat and board. Print it from the browser (no PDF is made).
#[utoipa::path(
    tag = "tournaments",
    params(
        ("id" = String, Path, description = "The tournament id", pattern = "^[0-9a-f]{32}$"),
        ("round" = u32, Path, description = "The round, from 1", minimum = 1, maximum = 1000),
        BoardsQuery,
    ),
    responses(
        (status = 200, description = "The printable page", content_type = "text/html", body = String),
        (status = 400, description = "A round that is not a number, `invalid_query` (from, count, unknown parameter)", body = Problem, content_type = "application/problem+json"),
        OrganiserTokenMissing,
        OrganiserOnly,
        (status = 404, description = "`tournament_not_found`, `round_not_found`", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`no_printed_boards`: not duplicate play at tables dealing real cards", body = Problem, content_type = "application/problem+json"),
        StorageUnavailableBrief,
    ),
    security(("bearer" = []))
)]
#[get("/v1/tournaments/{id}/rounds/{round}/boards.html")]
pub async fn get_boards_html(
    svc: web::Data<Tournaments>,
    path: web::Path<(String, u32)>,
    q: web::Query<BoardsQuery>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let token = bearer(&req)?;
    let (id, round) = path.into_inner();
    let (from, count) = boards_range(&q)?;
    let b = svc
        .boards(&id, round, token.as_deref(), from, count)
        .await?;
    Ok(HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header((header::CONTENT_SECURITY_POLICY, boards::html_csp()))
        .content_type("text/html; charset=utf-8")
        .body(boards::html(&b)))
}

/// Enter a table's result.
///
/// Enters or corrects a table's final result (organiser token) and answers the table with it: the
/// quick log. Totals per unit (seat, or side in partnership play), and/or points per deal; checked
/// against the game's fixed sums (a Clubs deal sums to −26, a Dump deal scores one side 1 to
/// 80...). Each entry is kept; the latest counts. A table whose match has finished takes its
/// result from the match.
#[utoipa::path(
    tag = "tournaments",
    params(
        ("id" = String, Path, description = "The tournament id", pattern = "^[0-9a-f]{32}$"),
        ("round" = u32, Path, description = "The round, from 1", minimum = 1, maximum = 1000),
        ("table" = u32, Path, description = "The table, from 1", minimum = 1, maximum = 1000),
    ),
    request_body(content = EnterResult, example = json!({"deals": [[-10, -6, -4, -6], [-2, -20, -3, -1]]})),
    responses(
        (status = 200, description = "The table with its result", body = TableView),
        (status = 400, description = "Malformed body or path", body = Problem, content_type = "application/problem+json"),
        OrganiserTokenMissing,
        OrganiserOnly,
        (status = 404, description = "`tournament_not_found`, `round_not_found`, `table_not_found`", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`result_from_match` (the table's match is finished), `match_in_progress` (the table's match is still being played: send `abandon_match: true` to close it and enter the result in its place) or `result_changed` (a concurrent entry)", body = Problem, content_type = "application/problem+json"),
        BodyTooLarge,
        NotJson,
        (status = 422, description = "`result_missing`, `result_shape`, `points_out_of_range` (a number beyond ±1,000,000, entered or summed), `result_totals_mismatch`, `result_impossible`", body = Problem, content_type = "application/problem+json"),
        StorageUnavailableBrief,
    ),
    security(("bearer" = []))
)]
#[put("/v1/tournaments/{id}/rounds/{round}/tables/{table}/result")]
pub async fn enter_result(
    svc: web::Data<Tournaments>,
    path: web::Path<(String, u32, u32)>,
    body: web::Json<Value>,
    req: HttpRequest,
) -> Result<web::Json<TableView>, ApiError> {
    let token = bearer(&req)?;
    let (id, round, table) = path.into_inner();
    let mut body = body.into_inner();
    normalize_integers(&mut body);
    let result: EnterResult = from_value(body)?;
    Ok(web::Json(
        svc.enter_result(&id, round, table, token.as_deref(), result)
            .await?,
    ))
}

/// The standings.
///
/// Answers the standings, recomputed from every table's log and entered result: rank, matchpoints,
/// wins, totals, the stated tie-breaks and the ratings. Public, like the tournament.
#[utoipa::path(
    tag = "tournaments",
    params(("id" = String, Path, description = "The tournament id", pattern = "^[0-9a-f]{32}$")),
    responses(
        (status = 200, description = "The standings", body = Standings, headers(("ETag" = String, description = "Changes with the standings"))),
        ContentNotModified,
        TournamentNotFound,
        StorageUnavailableBrief,
    )
)]
#[get("/v1/tournaments/{id}/standings")]
pub async fn standings(
    svc: web::Data<Tournaments>,
    id: web::Path<String>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    json_etag(&req, &svc.standings(&id).await?)
}

/// The `results.json` export: every table's result anyone may see, typed.
///
/// Public, like the tournament itself. Each result gives its round and table, where it came from
/// (a match's score sheet or the organiser's quick log), its totals, deals and winners, and per
/// seat the registered player and the matchpoints. In duplicate play only complete rounds'
/// results are shown (the boards are still being played). `ETag` and `If-None-Match` work as for
/// the tournament.
#[utoipa::path(
    tag = "tournaments",
    params(("id" = String, Path, description = "The tournament id", pattern = "^[0-9a-f]{32}$")),
    responses(
        (status = 200, description = "Every visible result", body = export::ResultsExport, headers(("ETag" = String, description = "Changes with the content"))),
        ContentNotModified,
        TournamentNotFound,
        StorageUnavailableBrief,
    )
)]
#[get("/v1/tournaments/{id}/export/results.json")]
pub async fn export_results_json(
    svc: web::Data<Tournaments>,
    id: web::Path<String>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let x = svc.exported(&id).await?;
    json_etag(
        &req,
        &export::results_json(&x.entrants, &x.results, x.duplicate, x.fouled_board),
    )
}

/// The `bgstats.json` export: a BG Stats import file of every table's play, typed.
///
/// Public, like the tournament itself. The file is the BG Stats app's backup shape (camelCase
/// fields): one game, the entrants as players with UUIDs stable across exports of this
/// tournament, and one play per visible table result with every seat's score, rank and winner.
/// In duplicate play only complete rounds are included.
#[utoipa::path(
    tag = "tournaments",
    params(("id" = String, Path, description = "The tournament id", pattern = "^[0-9a-f]{32}$")),
    responses(
        (status = 200, description = "The BG Stats import file", body = export::BgStatsExport, headers(("ETag" = String, description = "Changes with the content"))),
        ContentNotModified,
        TournamentNotFound,
        StorageUnavailableBrief,
    )
)]
#[get("/v1/tournaments/{id}/export/bgstats.json")]
pub async fn export_bgstats_json(
    svc: web::Data<Tournaments>,
    id: web::Path<String>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let x = svc.exported(&id).await?;
    json_etag(
        &req,
        &export::bgstats(&id, &x.name, &x.title, &x.entrants, &x.results),
    )
}

/// The CSV exports: `standings.csv` or `results.csv`.
///
/// Public, like the tournament itself. `standings.csv` is the standings, best first, one row per
/// entrant; `results.csv` one row per seat of every visible result. Text cells a spreadsheet
/// would run as a formula get a leading `'`. The JSON exports have operations of their own
/// (`results.json`, `bgstats.json`), answered here too for older clients.
#[utoipa::path(
    tag = "tournaments",
    params(
        ("id" = String, Path, description = "The tournament id", pattern = "^[0-9a-f]{32}$"),
        ("file" = String, Path, description = "Which CSV export", pattern = "^(standings|results)\\.csv$"),
    ),
    responses(
        (status = 200, description = "The CSV export", content(
            (String = "text/csv", example = "rank,player_id,name,played,byes,wins,total,matchpoints,max_matchpoints,percentage,opponents_matchpoints,rating,rating_uncertainty,withdrawn\n"),
        )),
        (status = 404, description = "`tournament_not_found`, or no such export", body = Problem, content_type = "application/problem+json"),
        StorageUnavailableBrief,
    )
)]
#[get("/v1/tournaments/{id}/export/{file}")]
pub async fn export_file(
    svc: web::Data<Tournaments>,
    path: web::Path<(String, String)>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let (id, file) = path.into_inner();
    let known = [
        "standings.csv",
        "results.csv",
        "results.json",
        "bgstats.json",
    ];
    if !known.contains(&file.as_str()) {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "export_not_found",
            format!("the exports are {}", known.join(", ")),
        ));
    }
    let x = svc.exported(&id).await?;
    let resp = match file.as_str() {
        "standings.csv" => with_content_etag(
            &req,
            "text/csv; charset=utf-8",
            export::standings_csv(&x.standings),
        ),
        "results.csv" => with_content_etag(
            &req,
            "text/csv; charset=utf-8",
            export::results_csv(&x.entrants, &x.results, x.duplicate, x.fouled_board),
        ),
        "results.json" => json_etag(
            &req,
            &export::results_json(&x.entrants, &x.results, x.duplicate, x.fouled_board),
        )?,
        _ => json_etag(
            &req,
            &export::bgstats(&id, &x.name, &x.title, &x.entrants, &x.results),
        )?,
    };
    Ok(resp)
}

/// Paging of a tournament's feed.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct FeedQuery {
    /// Only events with a greater seq (default 0: from the start).
    #[param(minimum = 0, maximum = 999_999_999_999_999_999_i64)]
    pub after: Option<i64>,
    /// Page size, 1 to 1000 (default 100).
    #[param(minimum = 1, maximum = 1000)]
    pub limit: Option<i64>,
}

/// The tournament's feed, oldest first: every public thing that happens in it (a round paired,
/// a table started, a deal scored, a table finished, a result entered or corrected, a round
/// complete, the tournament finished), each with its `seq` (1, 2, 3..., never changing).
/// Public, and the same for every caller: in duplicate play nothing of a board is told before
/// its round is complete. `GET /v1/tournaments/{id}/stream` sends the same events live.
#[utoipa::path(
    tag = "tournaments",
    params(("id" = String, Path, description = "The tournament id", pattern = "^[0-9a-f]{32}$"), FeedQuery),
    responses(
        (status = 200, description = "A page of the feed", body = TournamentEventPage),
        (status = 400, description = "`invalid_query`: bad paging or an unknown parameter", body = Problem, content_type = "application/problem+json"),
        TournamentNotFound,
        StorageUnavailableBrief,
    )
)]
#[get("/v1/tournaments/{id}/events")]
pub async fn tournament_events(
    svc: web::Data<Tournaments>,
    id: web::Path<String>,
    q: web::Query<FeedQuery>,
) -> Result<web::Json<TournamentEventPage>, ApiError> {
    let after = q.after.unwrap_or(0);
    let limit = q.limit.unwrap_or(100);
    if !(0..=999_999_999_999_999_999).contains(&after) || !(1..=1000).contains(&limit) {
        return Err(ApiError::bad_request(
            "invalid_query",
            "after must be 0 to 999999999999999999 and limit 1 to 1000",
        ));
    }
    Ok(web::Json(svc.events(&id, after, limit).await?))
}

/// Registers the routes.
pub fn config(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(create_player)
        .service(list_players)
        .service(get_player)
        .service(player_matches)
        .service(player_tournaments)
        .service(create_tournament)
        .service(list_tournaments)
        .service(get_tournament)
        .service(tournament_events)
        .service(pair_round)
        .service(rotate_organiser)
        .service(get_round)
        .service(get_boards)
        .service(get_boards_html)
        .service(enter_result)
        .service(standings)
        .service(export_results_json)
        .service(export_bgstats_json)
        .service(export_file);
}
