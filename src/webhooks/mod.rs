//! Webhooks (issue 23): a match's host or a tournament's organiser registers a URL for some
//! kinds of event; each such event leaves a delivery in the outbox, in the transaction that
//! records the event (`store::webhooks`), and the worker ([`worker`]) delivers it, signed
//! ([`sign`]), retried with exponential backoff for a day, at least once, with an id to
//! deduplicate. The SSRF guard ([`guard`]) keeps deliveries off the server's own network.
//!
//! `Webhooks` is the service the routes call: registration, listing, deletion, the delivery log
//! and redelivery, each for the owner's token only.

pub mod events;
pub mod guard;
pub mod sign;
pub mod worker;

use std::{sync::Arc, time::Duration};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use crate::{
    ids::{is_id, new_id, new_token, now},
    matches::{MatchError, Matches},
    store::{env_millis, DeliveryRow, StoreError, WebhookRow},
    tournaments::{service::Tournaments, TournamentError},
};

/// A kind of event a webhook may hear of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
pub enum WebhookEvent {
    /// A match ended (its final totals and winners, except at a duplicate table).
    #[serde(rename = "match.finished")]
    MatchFinished,
    /// A deal (a round of the score sheet) was scored: the sheet gained a line.
    #[serde(rename = "deal.scored")]
    DealScored,
    /// Tournaments: a round was paired (its tables and their matches).
    #[serde(rename = "round.paired")]
    RoundPaired,
    /// Tournaments: the organiser entered (or corrected) a table's result.
    #[serde(rename = "result.entered")]
    ResultEntered,
    /// Tournaments: every table of a round has its result.
    #[serde(rename = "round.complete")]
    RoundComplete,
}

impl WebhookEvent {
    /// Every kind.
    pub const ALL: [WebhookEvent; 5] = [
        WebhookEvent::MatchFinished,
        WebhookEvent::DealScored,
        WebhookEvent::RoundPaired,
        WebhookEvent::ResultEntered,
        WebhookEvent::RoundComplete,
    ];

    /// Its name (`deal.scored`...).
    pub fn as_str(self) -> &'static str {
        match self {
            WebhookEvent::MatchFinished => "match.finished",
            WebhookEvent::DealScored => "deal.scored",
            WebhookEvent::RoundPaired => "round.paired",
            WebhookEvent::ResultEntered => "result.entered",
            WebhookEvent::RoundComplete => "round.complete",
        }
    }

    fn parse(s: &str) -> Option<WebhookEvent> {
        WebhookEvent::ALL.into_iter().find(|e| e.as_str() == s)
    }

    /// Whether a match's webhook may ask for it (a tournament's may ask for every kind).
    fn for_matches(self) -> bool {
        matches!(self, WebhookEvent::MatchFinished | WebhookEvent::DealScored)
    }
}

/// Whose webhooks: a match's (its host's token) or a tournament's (its organiser's).
#[derive(Clone, Debug)]
pub enum Owner {
    /// A match, by id.
    Match(String),
    /// A tournament, by id.
    Tournament(String),
}

impl Owner {
    fn kind(&self) -> &'static str {
        match self {
            Owner::Match(_) => "match",
            Owner::Tournament(_) => "tournament",
        }
    }

    fn id(&self) -> &str {
        match self {
            Owner::Match(id) | Owner::Tournament(id) => id,
        }
    }
}

/// Registers a webhook.
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RegisterWebhook {
    /// Where deliveries are posted: an `http` or `https` URL whose host is on the public
    /// internet (unless the operator allows private addresses).
    #[schema(example = "https://bot.example.org/clubroom")]
    pub url: String,
    /// The kinds of event to deliver (at least one). A match's webhook may ask for
    /// `match.finished` and `deal.scored`; a tournament's for every kind (its tables' matches'
    /// `match.finished` and `deal.scored` among them).
    pub events: Vec<WebhookEvent>,
}

/// A registered webhook (its secret is shown once, at registration).
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct Webhook {
    /// The webhook id.
    pub id: String,
    /// Where deliveries are posted.
    pub url: String,
    /// The kinds of event delivered.
    pub events: Vec<WebhookEvent>,
    /// When it was registered (RFC 3339 UTC).
    #[schema(format = DateTime)]
    pub created_at: String,
}

/// A webhook just registered, with its signing secret: shown this once, never again.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct CreatedWebhook {
    /// The webhook.
    pub webhook: Webhook,
    /// The key of the deliveries' HMAC-SHA256 signatures (`Clubroom-Signature`); keep it on the
    /// receiver.
    pub secret: String,
}

/// An owner's webhooks.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct WebhookList {
    /// Oldest first.
    pub webhooks: Vec<Webhook>,
}

/// Where a delivery stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum DeliveryState {
    /// Not delivered yet: attempted again at `next_attempt_at`.
    Pending,
    /// The receiver answered 2xx.
    Delivered,
    /// Given up: a day of attempts failed, or the webhook was deleted.
    Failed,
}

/// One delivery of an event to a webhook, with its attempts.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct Delivery {
    /// The delivery id: the `Clubroom-Delivery` header and the body's `id`, the same on every
    /// attempt and redelivery (deduplicate by it).
    pub id: String,
    /// The kind of event.
    pub event: WebhookEvent,
    /// Where it stands.
    pub state: DeliveryState,
    /// Attempts so far.
    pub attempts: i64,
    /// When the event happened (RFC 3339 UTC).
    #[schema(format = DateTime)]
    pub created_at: String,
    /// Pending: when it is attempted next.
    #[schema(format = DateTime)]
    pub next_attempt_at: Option<String>,
    /// When it was last attempted.
    #[schema(format = DateTime)]
    pub last_attempt_at: Option<String>,
    /// The receiver's HTTP status at the last attempt (null: no answer).
    pub last_status: Option<i64>,
    /// Why the last attempt failed.
    pub last_error: Option<String>,
    /// When the receiver accepted it.
    #[schema(format = DateTime)]
    pub delivered_at: Option<String>,
    /// The body sent: `{id, type, created_at, data}`.
    #[schema(value_type = Object)]
    pub payload: Value,
}

/// A page of a webhook's delivery log, newest first.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct DeliveryPage {
    /// The deliveries.
    pub deliveries: Vec<Delivery>,
    /// Pass as `cursor` for the next page; null at the end.
    pub next_cursor: Option<String>,
}

/// A refusal or failure of the webhook service.
#[derive(Debug, thiserror::Error)]
pub enum WebhookError {
    /// The URL is malformed, not http(s), has no host or carries a password.
    #[error("the webhook URL is not valid: {0}")]
    InvalidUrl(String),
    /// The URL's host is, or resolves to, an address webhooks may not reach.
    #[error("the webhook URL's host {host} is or resolves to a loopback, private, link-local or otherwise non-public address, which webhooks may not reach")]
    ForbiddenAddress {
        /// The host as written.
        host: String,
        /// The address found (logged, not told).
        address: std::net::IpAddr,
    },
    /// The URL's host does not resolve.
    #[error("the webhook URL's host {0} does not resolve to any address")]
    Unresolvable(String),
    /// No event kind named.
    #[error("name at least one kind of event in `events`")]
    NoEvents,
    /// A kind a match's webhook cannot hear of.
    #[error("a match's webhook hears of match.finished and deal.scored only, not {0} (register it on the tournament)")]
    EventNotForMatch(&'static str),
    /// The owner has the most webhooks allowed.
    #[error("this {owner} already has {max} webhooks; delete one first")]
    TooMany {
        /// `match` or `tournament`.
        owner: &'static str,
        /// The cap.
        max: i64,
    },
    /// No such webhook here.
    #[error("no webhook with the id '{0}' is registered here")]
    NotFound(String),
    /// No such delivery of this webhook.
    #[error("the webhook has no delivery with the id '{0}'")]
    DeliveryNotFound(String),
    /// A cursor not given by the log.
    #[error("the cursor is not one this list gave")]
    InvalidCursor,
    /// The owner's refusal (not found, no token, not the host).
    #[error(transparent)]
    Match(#[from] MatchError),
    /// The owner's refusal (not found, no token, not the organiser).
    #[error(transparent)]
    Tournament(#[from] TournamentError),
    /// Storage.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Stored data that cannot be read back.
    #[error("internal: {0}")]
    Internal(String),
}

/// How webhooks are delivered; from the environment (see docs/configuration.md).
#[derive(Clone, Debug)]
pub struct WebhookOptions {
    /// Deliver to loopback, private, link-local... addresses too
    /// (`CLUBROOM_WEBHOOKS_ALLOW_PRIVATE=1`).
    pub allow_private: bool,
    /// The first retry's delay; each next one doubles, up to [`WebhookOptions::retry_max`]
    /// (`CLUBROOM_WEBHOOKS_RETRY_BASE_MS`, 10 s).
    pub retry_base: Duration,
    /// The longest delay between two attempts (an hour).
    pub retry_max: Duration,
    /// How often the worker looks for due deliveries (`CLUBROOM_WEBHOOKS_POLL_MS`, 1 s).
    pub poll: Duration,
    /// How long one attempt may take, the address check included
    /// (`CLUBROOM_WEBHOOKS_TIMEOUT_MS`, 10 s); a claim's lease is three times this.
    pub timeout: Duration,
    /// Run the delivery worker in this process (`CLUBROOM_WEBHOOKS_WORKER=0`: not).
    pub worker: bool,
}

/// The most webhooks one match or tournament may have.
pub const MAX_WEBHOOKS: i64 = 10;

fn env_flag(name: &str) -> Option<bool> {
    std::env::var(name)
        .ok()
        .map(|v| matches!(v.trim(), "1" | "true" | "yes" | "on"))
}

impl Default for WebhookOptions {
    fn default() -> WebhookOptions {
        WebhookOptions {
            allow_private: env_flag("CLUBROOM_WEBHOOKS_ALLOW_PRIVATE").unwrap_or(false),
            retry_base: env_millis("CLUBROOM_WEBHOOKS_RETRY_BASE_MS")
                .unwrap_or(Duration::from_secs(10)),
            retry_max: Duration::from_secs(3600),
            poll: env_millis("CLUBROOM_WEBHOOKS_POLL_MS").unwrap_or(Duration::from_secs(1)),
            timeout: env_millis("CLUBROOM_WEBHOOKS_TIMEOUT_MS").unwrap_or(Duration::from_secs(10)),
            worker: env_flag("CLUBROOM_WEBHOOKS_WORKER").unwrap_or(true),
        }
    }
}

impl WebhookOptions {
    /// The delay before attempt `attempts + 1`, after `attempts` failed ones: the base doubled
    /// each time, at most [`WebhookOptions::retry_max`].
    pub fn backoff(&self, attempts: i64) -> Duration {
        let doublings = attempts.clamp(1, 32) as u32 - 1;
        self.retry_base
            .saturating_mul(2u32.saturating_pow(doublings))
            .min(self.retry_max)
    }
}

/// The webhook service.
pub struct Webhooks {
    matches: Arc<Matches>,
    tournaments: Arc<Tournaments>,
    options: WebhookOptions,
}

fn view(row: &WebhookRow) -> Webhook {
    Webhook {
        id: row.id.clone(),
        url: row.url.clone(),
        events: row
            .events
            .split(',')
            .filter_map(WebhookEvent::parse)
            .collect(),
        created_at: row.created_at.clone(),
    }
}

fn delivery(row: DeliveryRow) -> Result<Delivery, WebhookError> {
    let state = match row.state.as_str() {
        "pending" => DeliveryState::Pending,
        "delivered" => DeliveryState::Delivered,
        _ => DeliveryState::Failed,
    };
    Ok(Delivery {
        event: WebhookEvent::parse(&row.event)
            .ok_or_else(|| WebhookError::Internal(format!("unknown event {}", row.event)))?,
        payload: serde_json::from_str(&row.payload)
            .map_err(|e| WebhookError::Internal(e.to_string()))?,
        id: row.id,
        state,
        attempts: row.attempts,
        created_at: row.created_at,
        next_attempt_at: (state == DeliveryState::Pending).then_some(row.next_attempt_at),
        last_attempt_at: row.last_attempt_at,
        last_status: row.last_status,
        last_error: row.last_error,
        delivered_at: row.delivered_at,
    })
}

impl Webhooks {
    /// The service over the match and tournament services (which say who owns what).
    pub fn new(
        matches: Arc<Matches>,
        tournaments: Arc<Tournaments>,
        options: WebhookOptions,
    ) -> Webhooks {
        Webhooks {
            matches,
            tournaments,
            options,
        }
    }

    /// Whether `token` is the owner's: the match's host token, the tournament's organiser's.
    async fn authorize(&self, owner: &Owner, token: Option<&str>) -> Result<(), WebhookError> {
        match owner {
            Owner::Match(id) => Ok(self.matches.authorize_host(id, token).await?),
            Owner::Tournament(id) => Ok(self.tournaments.authorize_organiser(id, token).await?),
        }
    }

    /// The owner's registered webhook `id`.
    async fn owned(&self, owner: &Owner, id: &str) -> Result<WebhookRow, WebhookError> {
        if !is_id(id) {
            return Err(WebhookError::NotFound(id.to_string()));
        }
        self.matches
            .store()
            .webhook(owner.kind(), owner.id(), id)
            .await?
            .ok_or_else(|| WebhookError::NotFound(id.to_string()))
    }

    /// Registers a webhook (the owner's token): checks the kinds, the URL's form and where it
    /// leads now; the secret is in the answer, once.
    pub async fn register(
        &self,
        owner: &Owner,
        token: Option<&str>,
        req: RegisterWebhook,
    ) -> Result<CreatedWebhook, WebhookError> {
        self.authorize(owner, token).await?;
        let mut kinds: Vec<WebhookEvent> = vec![];
        for k in req.events {
            if matches!(owner, Owner::Match(_)) && !k.for_matches() {
                return Err(WebhookError::EventNotForMatch(k.as_str()));
            }
            if !kinds.contains(&k) {
                kinds.push(k);
            }
        }
        if kinds.is_empty() {
            return Err(WebhookError::NoEvents);
        }
        let url = guard::parse_url(req.url.trim())?;
        guard::check_destination(&url, self.options.allow_private)
            .await
            .inspect_err(|e| {
                if let WebhookError::ForbiddenAddress { host, address } = e {
                    tracing::info!(%host, %address, "webhook URL refused");
                }
            })?;
        let events: Vec<&str> = kinds.iter().map(|k| k.as_str()).collect();
        let row = WebhookRow {
            id: new_id(),
            owner_kind: owner.kind().to_string(),
            owner_id: owner.id().to_string(),
            url: url.to_string(),
            events: format!(",{},", events.join(",")),
            secret: format!("whsec_{}", new_token()),
            created_at: now(),
        };
        if !self
            .matches
            .store()
            .insert_webhook(&row, MAX_WEBHOOKS)
            .await?
        {
            return Err(WebhookError::TooMany {
                owner: owner.kind(),
                max: MAX_WEBHOOKS,
            });
        }
        Ok(CreatedWebhook {
            webhook: view(&row),
            secret: row.secret,
        })
    }

    /// The owner's webhooks (the owner's token).
    pub async fn list(
        &self,
        owner: &Owner,
        token: Option<&str>,
    ) -> Result<WebhookList, WebhookError> {
        self.authorize(owner, token).await?;
        let rows = self
            .matches
            .store()
            .webhooks_of(owner.kind(), owner.id())
            .await?;
        Ok(WebhookList {
            webhooks: rows.iter().map(view).collect(),
        })
    }

    /// Deletes a webhook (the owner's token): nothing more is delivered to it.
    pub async fn delete(
        &self,
        owner: &Owner,
        token: Option<&str>,
        id: &str,
    ) -> Result<(), WebhookError> {
        self.authorize(owner, token).await?;
        self.owned(owner, id).await?;
        if !self
            .matches
            .store()
            .delete_webhook(owner.kind(), owner.id(), id)
            .await?
        {
            return Err(WebhookError::NotFound(id.to_string()));
        }
        Ok(())
    }

    /// A page of a webhook's delivery log, newest first (the owner's token).
    pub async fn deliveries(
        &self,
        owner: &Owner,
        token: Option<&str>,
        id: &str,
        cursor: Option<&str>,
        limit: i64,
    ) -> Result<DeliveryPage, WebhookError> {
        self.authorize(owner, token).await?;
        let hook = self.owned(owner, id).await?;
        let cursor = match cursor {
            None => None,
            Some(c) => Some(
                c.parse::<i64>()
                    .ok()
                    .filter(|n| *n > 0)
                    .ok_or(WebhookError::InvalidCursor)?,
            ),
        };
        let mut rows = self
            .matches
            .store()
            .deliveries(&hook.id, cursor, limit + 1)
            .await?;
        let more = rows.len() as i64 > limit;
        rows.truncate(limit as usize);
        let next_cursor = more
            .then(|| rows.last().map(|r| r.num.to_string()))
            .flatten();
        Ok(DeliveryPage {
            deliveries: rows.into_iter().map(delivery).collect::<Result<_, _>>()?,
            next_cursor,
        })
    }

    /// Delivers `delivery` again, now (the owner's token): its id stays, and it is retried for
    /// another day.
    pub async fn redeliver(
        &self,
        owner: &Owner,
        token: Option<&str>,
        id: &str,
        delivery_id: &str,
    ) -> Result<Delivery, WebhookError> {
        self.authorize(owner, token).await?;
        let hook = self.owned(owner, id).await?;
        if !is_id(delivery_id) {
            return Err(WebhookError::DeliveryNotFound(delivery_id.to_string()));
        }
        let row = self
            .matches
            .store()
            .redeliver(&hook.id, delivery_id)
            .await?
            .ok_or_else(|| WebhookError::DeliveryNotFound(delivery_id.to_string()))?;
        delivery(row)
    }
}
