//! The delivery worker: a tokio task started by the server and stopped with it. Every
//! [`WebhookOptions::poll`] it asks whether a delivery is due (a read: an idle worker writes
//! nothing), claims a batch (`Store::claim_deliveries`: the attempt counted and a lease taken,
//! in one statement; on PostgreSQL skipping rows another instance holds), posts each one
//! signed, and records the batch's outcomes in one transaction: delivered on a 2xx, else due
//! again after the backoff, or failed once a day of attempts is over. A worker killed mid-delivery leaves its rows to be
//! claimed again when their lease ends: at least once, never lost.

use std::{sync::Arc, time::Duration};

use chrono::Utc;
use tokio::{sync::watch, task::JoinSet};

use super::{guard, sign, WebhookOptions};
use crate::store::{stamp, AttemptOutcome, DeliveryRow, Store, WebhookRow};

/// Deliveries claimed at once.
const BATCH: i64 = 16;

/// How long a claim holds a delivery: longer than an attempt may take (recording its outcome
/// included).
fn lease(opts: &WebhookOptions) -> Duration {
    opts.timeout * 3
}

/// The delivering client: no redirects followed, no proxy from the environment, names resolved
/// through the SSRF guard, each attempt bounded.
pub fn client(opts: &WebhookOptions) -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .timeout(opts.timeout)
        .connect_timeout(Duration::from_secs(5))
        .dns_resolver(Arc::new(guard::GuardedResolver {
            allow_private: opts.allow_private,
        }))
        .user_agent(concat!("Clubroom-Webhooks/", env!("CARGO_PKG_VERSION")))
        .build()
        .expect("the webhook client builds")
}

/// Starts the worker on `store`; it ends when `stop` turns true (or its sender is dropped).
pub fn spawn(
    store: Store,
    opts: WebhookOptions,
    mut stop: watch::Receiver<bool>,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let client = client(&opts);
        let mut idle = false;
        loop {
            if idle {
                tokio::select! {
                    r = stop.wait_for(|s| *s) => { let _ = r; break; }
                    _ = tokio::time::sleep(opts.poll) => {}
                }
            } else if *stop.borrow() {
                break;
            }
            idle = true;
            match store.deliveries_due().await {
                Ok(true) => {}
                Ok(false) => continue,
                Err(e) => {
                    tracing::warn!(error = %e, "webhooks: cannot look for due deliveries");
                    continue;
                }
            }
            let lease_until = stamp(Utc::now() + lease(&opts));
            let claimed = match store.claim_deliveries(BATCH, &lease_until).await {
                Ok(c) => c,
                Err(e) => {
                    tracing::warn!(error = %e, "webhooks: cannot claim deliveries");
                    continue;
                }
            };
            // A full batch: there may be more due at once.
            idle = (claimed.len() as i64) < BATCH;
            let mut attempts = JoinSet::new();
            for (d, w) in claimed {
                let (client, opts) = (client.clone(), opts.clone());
                attempts.spawn(async move { attempt(&client, &opts, d, w).await });
            }
            let mut outcomes = Vec::new();
            while let Some(done) = attempts.join_next().await {
                if let Ok(outcome) = done {
                    outcomes.push(outcome);
                }
            }
            // The batch's outcomes in one transaction. If it fails, the leases run out and the
            // deliveries are attempted again: at least once.
            if let Err(e) = store.finish_attempts(&outcomes).await {
                tracing::warn!(error = %e, deliveries = outcomes.len(), "webhooks: cannot record attempts");
            }
        }
        tracing::info!("webhooks: worker stopped");
    })
}

/// One attempt of delivery `d` to webhook `w`, and its outcome (recorded by the caller with the
/// batch's).
async fn attempt(
    client: &reqwest::Client,
    opts: &WebhookOptions,
    d: DeliveryRow,
    w: WebhookRow,
) -> AttemptOutcome {
    let outcome = tokio::time::timeout(opts.timeout, post(client, opts, &d, &w))
        .await
        .unwrap_or_else(|_| Err((None, "timed out".to_string())));
    match outcome {
        Ok(status) => AttemptOutcome {
            id: d.id,
            delivered: true,
            status: Some(status),
            error: None,
            next: None,
        },
        Err((status, why)) => {
            let next = Utc::now()
                + chrono::Duration::from_std(opts.backoff(d.attempts))
                    .unwrap_or(chrono::Duration::hours(1));
            let next = stamp(next);
            // RFC 3339 UTC with milliseconds sorts as time does.
            let next = (next <= d.retry_until).then_some(next);
            if next.is_none() {
                tracing::warn!(delivery = %d.id, webhook = %w.id, "webhooks: a day of attempts failed; giving up");
            }
            AttemptOutcome {
                id: d.id,
                delivered: false,
                status,
                error: Some(why),
                next,
            }
        }
    }
}

/// Posts the delivery: Ok(status) on a 2xx; else the status (if any) and why.
async fn post(
    client: &reqwest::Client,
    opts: &WebhookOptions,
    d: &DeliveryRow,
    w: &WebhookRow,
) -> Result<u16, (Option<u16>, String)> {
    let url = guard::parse_url(&w.url).map_err(|e| (None, e.to_string()))?;
    // Checked again now: DNS may have changed since registration (and the client's resolver
    // drops non-public addresses of a name; an address written in the URL is checked here).
    guard::check_destination(&url, opts.allow_private)
        .await
        .map_err(|e| (None, e.to_string()))?;
    let timestamp = Utc::now().timestamp();
    let answer = client
        .post(url)
        .header("content-type", "application/json")
        .header("clubroom-delivery", &d.id)
        .header("clubroom-event", &d.event)
        .header(
            "clubroom-signature",
            sign::signature(&w.secret, timestamp, d.payload.as_bytes()),
        )
        .body(d.payload.clone())
        .send()
        .await
        .map_err(|e| (None, describe(&e)))?;
    let status = answer.status();
    if status.is_success() {
        Ok(status.as_u16())
    } else {
        Err((
            Some(status.as_u16()),
            format!("the receiver answered {status}"),
        ))
    }
}

/// A failed attempt in words, without the URL (the log shows it beside).
fn describe(e: &reqwest::Error) -> String {
    let kind = if e.is_timeout() {
        "timed out"
    } else if e.is_connect() {
        "could not connect"
    } else {
        "the request failed"
    };
    let mut why = kind.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        why = format!("{why}: {s}");
        source = s.source();
    }
    why
}
