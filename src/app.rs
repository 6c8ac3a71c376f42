//! The one application builder shared by the server, the tests and the spec writer.

use actix_web::{
    body::MessageBody,
    dev::{Service, ServiceFactory, ServiceRequest, ServiceResponse},
    middleware::Condition,
    web, App,
};
use utoipa::OpenApi;
use utoipa_actix_web::{service_config::ServiceConfig, AppExt};
use utoipa_swagger_ui::SwaggerUi;

use crate::{
    edge::{Edge, Limits},
    limits::{Gate, Quotas, RateState},
    matches::Matches,
    routes::{self, spec::ApiDoc, stream::Streams},
    tournaments::service::Tournaments,
    webhooks::{WebhookOptions, Webhooks},
};

/// What every worker of one server shares besides the match service: the edge, the per-client
/// gate and the open streams.
#[derive(Clone)]
pub struct Shared {
    /// Request ids, access log, body deadline.
    pub edge: Edge,
    /// Who a client is; its create budget.
    pub gate: web::Data<Gate>,
    /// The open streams, their caps, and the way to end them all.
    pub streams: web::Data<Streams>,
    /// The origins allowed to call the API from a browser (`*`: any); empty: no CORS.
    pub cors_origins: Vec<String>,
    /// Webhooks: the SSRF guard's allowance (registration checks it).
    pub webhooks: WebhookOptions,
}

impl Shared {
    /// The shared state of a server with these limits.
    pub fn new(limits: Limits, quotas: &Quotas) -> Shared {
        Shared {
            edge: Edge::new(limits),
            gate: web::Data::new(Gate::new(quotas)),
            streams: web::Data::new(Streams::new(quotas)),
            cors_origins: quotas
                .cors_origins
                .iter()
                .map(|o| o.trim().trim_end_matches('/').to_string())
                .filter(|o| !o.is_empty())
                .collect(),
            webhooks: WebhookOptions::default(),
        }
    }
}

impl Default for Shared {
    fn default() -> Shared {
        Shared::new(Limits::default(), &Quotas::default())
    }
}

fn all_routes(cfg: &mut ServiceConfig) {
    routes::health::config(cfg);
    routes::games::config(cfg);
    routes::matches::config(cfg);
    routes::actions::config(cfg);
    routes::events::config(cfg);
    routes::scores::config(cfg);
    routes::stream::config(cfg);
    routes::tournaments::config(cfg);
    routes::club_night::config(cfg);
    routes::club::config(cfg);
    routes::webhooks::config(cfg);
}

/// The OpenAPI document of the service.
pub fn openapi() -> utoipa::openapi::OpenApi {
    let mut api = App::new()
        .into_utoipa_app()
        .openapi(ApiDoc::openapi())
        .configure(all_routes)
        .split_for_parts()
        .1;
    routes::spec::finish(&mut api);
    api
}

/// The OpenAPI document as the pretty JSON checked in at `openapi/openapi.json`.
pub fn openapi_json() -> String {
    let mut s = openapi().to_pretty_json().expect("the spec serializes");
    s.push('\n');
    s
}

/// The actix application over `svc`, with the default [`Limits`] and [`Quotas`].
pub fn build_app(
    svc: web::Data<Matches>,
) -> App<
    impl ServiceFactory<
        ServiceRequest,
        Config = (),
        Response = ServiceResponse<impl MessageBody>,
        Error = actix_web::Error,
        InitError = (),
    >,
> {
    build_app_with(svc, Shared::default())
}

/// The actix application over `svc` (and a tournament service over it), every request passing through `shared.edge` (request id,
/// access log, body deadline), every answer leaving with the security headers
/// ([`routes::page::security_headers`]).
pub fn build_app_with(
    svc: web::Data<Matches>,
    shared: Shared,
) -> App<
    impl ServiceFactory<
        ServiceRequest,
        Config = (),
        Response = ServiceResponse<impl MessageBody>,
        Error = actix_web::Error,
        InitError = (),
    >,
> {
    // The tournament service holds the worker's match service and asks it through its tables'
    // API; it keeps nothing of its own between requests.
    let tournaments = web::Data::new(Tournaments::new(svc.clone().into_inner()));
    // Webhooks: asks the match and tournament services who owns what.
    let webhooks = web::Data::new(Webhooks::new(
        svc.clone().into_inner(),
        tournaments.clone().into_inner(),
        shared.webhooks.clone(),
    ));
    let cors_origins = shared.cors_origins.clone();
    let (app, mut api) = App::new()
        .into_utoipa_app()
        .openapi(ApiDoc::openapi())
        .app_data(svc)
        .app_data(tournaments)
        .app_data(webhooks)
        .app_data(shared.gate)
        .app_data(shared.streams)
        .app_data(routes::json_config())
        .app_data(routes::query_config())
        .app_data(routes::path_config())
        .configure(all_routes)
        .split_for_parts();
    routes::spec::finish(&mut api);
    app.service(SwaggerUi::new("/docs/{_:.*}").url("/openapi.json", api))
        .service(web::redirect("/docs", "/docs/"))
        .configure(routes::page::config)
        .default_service(web::to(routes::fallback))
        .wrap_fn(move |req, srv| shared.edge.handle(req, srv))
        // Outside the edge, so that its own answers (a 408) carry these headers too.
        .wrap_fn(|req, srv| {
            let call = srv.call(req);
            async move {
                let mut res = call.await?;
                browser_headers(&mut res);
                Ok(res)
            }
        })
        .wrap(Condition::new(
            !cors_origins.is_empty(),
            cors(&cors_origins),
        ))
        // Outermost, so that the edge's own answers (a 408) and CORS preflights carry the
        // headers too.
        .wrap_fn(|req, srv| {
            let path = req.path().to_owned();
            let call = srv.call(req);
            async move {
                let mut res = call.await?;
                routes::page::security_headers(&path, res.headers_mut());
                Ok(res)
            }
        })
}

/// The request headers a browser page may send to the API (besides the CORS-safelisted ones).
pub const CORS_REQUEST_HEADERS: [&str; 6] = [
    "authorization",
    "content-type",
    "if-match",
    "if-none-match",
    "idempotency-key",
    "prefer",
];

/// The answer headers a browser page may read (besides the CORS-safelisted ones).
pub const CORS_EXPOSED_HEADERS: [&str; 10] = [
    "etag",
    "location",
    "retry-after",
    "ratelimit-limit",
    "ratelimit-remaining",
    "ratelimit-reset",
    "idempotent-replayed",
    "preference-applied",
    "www-authenticate",
    "x-request-id",
];

/// The CORS policy (actix-cors) of a server allowing `origins` (`*` among them: any origin).
/// Bearer tokens travel in `Authorization`, never in cookies: no credentials mode, so `*` is
/// answered as `*`. A preflight is cached for an hour. An origin not allowed gets no CORS
/// headers on a simple request (the browser then hides the answer) and 400 on a preflight.
fn cors(origins: &[String]) -> actix_cors::Cors {
    let mut cors = actix_cors::Cors::default()
        .allowed_methods(["GET", "POST", "PUT", "DELETE", "OPTIONS"])
        .allowed_headers(CORS_REQUEST_HEADERS)
        .expose_headers(CORS_EXPOSED_HEADERS)
        .max_age(3600)
        .block_on_origin_mismatch(false);
    if origins.iter().any(|o| o == "*") {
        cors = cors.allow_any_origin().send_wildcard();
    } else {
        for o in origins {
            cors = cors.allowed_origin(o);
        }
    }
    cors
}

/// The headers a browser client reads, added where the handlers leave them to the app:
/// `WWW-Authenticate` on every 401 (RFC 6750 §3: `error="invalid_token"` when a bearer token was
/// sent and is not valid, `error="invalid_request"` for an `Authorization` header that is not a
/// bearer token, no error when none was sent), and the `RateLimit-*` headers of a counted
/// tokenless create ([`crate::limits::RateState`]), its 429 included.
fn browser_headers<B>(res: &mut ServiceResponse<B>) {
    use actix_web::{
        http::header::{HeaderName, HeaderValue, AUTHORIZATION, WWW_AUTHENTICATE},
        HttpMessage,
    };
    if res.status() == actix_web::http::StatusCode::UNAUTHORIZED
        && !res.headers().contains_key(WWW_AUTHENTICATE)
    {
        let value = match res.request().headers().get(AUTHORIZATION) {
            None => r#"Bearer realm="clubroom""#,
            Some(h)
                if h.to_str().is_ok_and(|s| {
                    s.split_once(' ')
                        .is_some_and(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
                }) =>
            {
                r#"Bearer realm="clubroom", error="invalid_token""#
            }
            Some(_) => r#"Bearer realm="clubroom", error="invalid_request""#,
        };
        res.headers_mut()
            .insert(WWW_AUTHENTICATE, HeaderValue::from_static(value));
    }
    let state = res.request().extensions().get::<RateState>().copied();
    if let Some(s) = state {
        for (name, value) in [
            ("ratelimit-limit", u64::from(s.limit)),
            ("ratelimit-remaining", u64::from(s.remaining)),
            ("ratelimit-reset", s.reset),
        ] {
            res.headers_mut()
                .insert(HeaderName::from_static(name), HeaderValue::from(value));
        }
    }
}
