//! The one application builder shared by the server, the tests and the spec writer.

use actix_web::{
    body::MessageBody,
    dev::{Service, ServiceFactory, ServiceRequest, ServiceResponse},
    web, App,
};
use utoipa::OpenApi;
use utoipa_actix_web::{service_config::ServiceConfig, AppExt};
use utoipa_swagger_ui::SwaggerUi;

use crate::{
    edge::{Edge, Limits},
    limits::{Gate, Quotas},
    matches::Matches,
    routes::{self, spec::ApiDoc, stream::Streams},
    tournaments::service::Tournaments,
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
}

impl Shared {
    /// The shared state of a server with these limits.
    pub fn new(limits: Limits, quotas: &Quotas) -> Shared {
        Shared {
            edge: Edge::new(limits),
            gate: web::Data::new(Gate::new(quotas)),
            streams: web::Data::new(Streams::new(quotas)),
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
    let (app, mut api) = App::new()
        .into_utoipa_app()
        .openapi(ApiDoc::openapi())
        .app_data(svc)
        .app_data(tournaments)
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
        // Outermost, so that the edge's own answers (a 408) carry the headers too.
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
