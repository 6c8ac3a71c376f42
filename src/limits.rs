//! Per-client limits: who a client is, how many live streams it and a match may hold, and how
//! fast it may create players, tournaments and matches without a token.
//!
//! **Who a client is.** The peer's IP address; an IPv6 peer by its /64 prefix (one subscriber's
//! network: a host picks any address in it, so a single address would be no limit at all).
//! Behind a reverse proxy every peer is the proxy: with `--trusted-proxies` naming it, a request
//! whose peer is a trusted proxy is counted for the address that proxy saw, the right-most
//! `X-Forwarded-For` hop that is not itself a trusted proxy (the hops to its left were written by
//! the client and prove nothing). From any other peer `X-Forwarded-For` is ignored: a client
//! cannot pick its own identity.
//!
//! **Unauthenticated creates** (`POST /v1/players`, `/v1/tournaments`, `/v1/matches`) need no
//! token, and each writes rows: a client has a bucket of `--create-burst` creates that refills at
//! `--creates-per-minute` (a generic cell rate algorithm, `governor`). A create over the rate is
//! 429 `too_many_creates` with `Retry-After` (the seconds until the next one is allowed) and
//! writes nothing. A club registers its players and opens its matches well within a burst; a
//! script flooding the database does not get far.
//!
//! **Streams** are capped in [`crate::routes::stream`] with the numbers of [`Quotas`].

use std::{
    net::{IpAddr, Ipv6Addr},
    num::NonZeroU32,
    sync::atomic::{AtomicU64, Ordering},
    time::Duration,
};

use actix_web::{http::StatusCode, HttpMessage, HttpRequest};
use governor::{
    clock::{Clock, DefaultClock},
    middleware::StateInformationMiddleware,
    state::keyed::DefaultKeyedStateStore,
    Quota, RateLimiter,
};
use ipnet::IpNet;

use crate::error::ApiError;

/// The per-client limits of a server (`clubroom serve` flags and `CLUBROOM_*` variables).
#[derive(Clone, Debug, clap::Args)]
pub struct Quotas {
    /// Live streams open at once in this process, all clients together (then 503 `busy`).
    #[arg(long, env = "CLUBROOM_MAX_STREAMS", default_value_t = 4096)]
    pub max_streams: usize,
    /// Live streams one client (IP address, IPv6 /64) may hold open at once (then 429
    /// `too_many_streams`).
    #[arg(long, env = "CLUBROOM_MAX_STREAMS_PER_CLIENT", default_value_t = 256)]
    pub max_streams_per_client: usize,
    /// Tokenless (spectator) streams of one match open at once (then 429 `too_many_streams`).
    /// Streams with a token of the match do not count here: spectators cannot lock the table's
    /// own phones out.
    #[arg(
        long,
        env = "CLUBROOM_MAX_PUBLIC_STREAMS_PER_MATCH",
        default_value_t = 128
    )]
    pub max_public_streams_per_match: usize,
    /// Streams one token (a seat's or the host's) may hold open at once; a new one ends the
    /// oldest (a phone that reconnects leaves a dead stream behind until it is noticed).
    #[arg(long, env = "CLUBROOM_MAX_STREAMS_PER_TOKEN", default_value_t = 8)]
    pub max_streams_per_token: usize,
    /// Unauthenticated creates (players, tournaments, matches) a client may make per minute, once
    /// its burst is spent; 0: no limit.
    #[arg(long, env = "CLUBROOM_CREATES_PER_MINUTE", default_value_t = 60)]
    pub creates_per_minute: u32,
    /// Unauthenticated creates a client may make at once before the per-minute rate applies.
    #[arg(long, env = "CLUBROOM_CREATE_BURST", default_value_t = 120)]
    pub create_burst: u32,
    /// Reverse proxies whose `X-Forwarded-For` is believed: comma-separated addresses or networks
    /// (`127.0.0.1,10.0.0.0/8`). Empty: every client is its peer address.
    #[arg(
        long,
        env = "CLUBROOM_TRUSTED_PROXIES",
        value_delimiter = ',',
        value_parser = parse_net
    )]
    pub trusted_proxies: Vec<IpNet>,
    /// Web origins whose pages may call the API from a browser (CORS): comma-separated
    /// (`https://club.example,https://bot.example`), or `*` for any origin. Empty (the default):
    /// no CORS at all; the table page, served by this server, is same-origin and needs none.
    #[arg(long, env = "CLUBROOM_CORS_ORIGINS", value_delimiter = ',')]
    pub cors_origins: Vec<String>,
}

impl Default for Quotas {
    fn default() -> Quotas {
        Quotas {
            max_streams: 4096,
            max_streams_per_client: 256,
            max_public_streams_per_match: 128,
            max_streams_per_token: 8,
            creates_per_minute: 60,
            create_burst: 120,
            trusted_proxies: Vec::new(),
            cors_origins: Vec::new(),
        }
    }
}

/// An address (`10.0.0.1`, a network of one) or a network (`10.0.0.0/8`).
fn parse_net(s: &str) -> Result<IpNet, String> {
    let s = s.trim();
    s.parse::<IpNet>()
        .or_else(|_| s.parse::<IpAddr>().map(IpNet::from))
        .map_err(|_| format!("'{s}' is neither an IP address nor a network (a.b.c.d/n)"))
}

/// Seconds a client refused a stream is asked to wait: a slot frees when a stream ends, which no
/// one can foresee; long enough that a polite client does not hammer, short enough for a phone.
pub const STREAM_RETRY_AFTER_SECS: u32 = 5;

/// 429 with a stable code and `Retry-After`.
pub fn too_many(code: &'static str, detail: impl Into<String>, retry_after: u32) -> ApiError {
    let mut e = ApiError::new(StatusCode::TOO_MANY_REQUESTS, code, detail);
    e.retry_after = Some(retry_after.max(1));
    e
}

/// The keyed limiter of tokenless creates, which tells how much of its burst a client has left.
type CreateLimiter =
    RateLimiter<IpAddr, DefaultKeyedStateStore<IpAddr>, DefaultClock, StateInformationMiddleware>;

/// What a client's create budget stands at after a create was counted, for the `RateLimit-*`
/// headers (draft-ietf-httpapi-ratelimit-headers-06: `RateLimit-Limit`, `RateLimit-Remaining`,
/// `RateLimit-Reset`), which `crate::app` adds to the answer, a 429 included.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateState {
    /// The burst: creates a client may make at once.
    pub limit: u32,
    /// Creates it may still make at once.
    pub remaining: u32,
    /// Seconds until its whole burst is back.
    pub reset: u64,
}

/// The per-client state of a server: who a request's client is, and its create budget.
pub struct Gate {
    trusted: Vec<IpNet>,
    creates: Option<(CreateLimiter, Quota)>,
    /// Creates checked so far: every 4096th sweeps the buckets of clients gone quiet.
    checked: AtomicU64,
}

impl Gate {
    /// The gate of a server with these quotas.
    pub fn new(q: &Quotas) -> Gate {
        let creates = NonZeroU32::new(q.creates_per_minute).map(|rate| {
            let burst = NonZeroU32::new(q.create_burst).unwrap_or(NonZeroU32::MIN);
            let quota = Quota::per_minute(rate).allow_burst(burst);
            (
                RateLimiter::keyed(quota).with_middleware::<StateInformationMiddleware>(),
                quota,
            )
        });
        Gate {
            trusted: q.trusted_proxies.clone(),
            creates,
            checked: AtomicU64::new(0),
        }
    }

    /// The client of `req`: see the module documentation.
    pub fn client(&self, req: &HttpRequest) -> IpAddr {
        let peer = req
            .peer_addr()
            .map_or(IpAddr::V6(Ipv6Addr::UNSPECIFIED), |a| a.ip());
        client_key(self.forwarded_client(peer, req))
    }

    fn is_trusted(&self, ip: IpAddr) -> bool {
        let ip = ip.to_canonical();
        self.trusted.iter().any(|net| net.contains(&ip))
    }

    /// The address the outermost trusted proxy saw, when `peer` is a trusted proxy.
    fn forwarded_client(&self, peer: IpAddr, req: &HttpRequest) -> IpAddr {
        if !self.is_trusted(peer) {
            return peer;
        }
        let hops: Vec<&str> = req
            .headers()
            .get_all("x-forwarded-for")
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .collect();
        let mut client = peer;
        for hop in hops.iter().rev() {
            // A hop that is no address (a proxy that writes `unknown`, or garbage) ends the
            // walk: the last trusted proxy is all that is known.
            let Ok(ip) = hop.trim().parse::<IpAddr>() else {
                break;
            };
            client = ip;
            if !self.is_trusted(ip) {
                break;
            }
        }
        client
    }

    /// Counts one unauthenticated create of `req`'s client: 429 `too_many_creates` over the rate.
    pub fn check_create(&self, req: &HttpRequest) -> Result<(), ApiError> {
        let Some((limiter, quota)) = &self.creates else {
            return Ok(());
        };
        if self.checked.fetch_add(1, Ordering::Relaxed) % 4096 == 4095 {
            limiter.retain_recent();
            limiter.shrink_to_fit();
        }
        let client = self.client(req);
        let limit = quota.burst_size().get();
        let interval = quota.replenish_interval();
        let up = |d: Duration| d.as_secs() + u64::from(d.subsec_nanos() > 0);
        match limiter.check_key(&client) {
            Ok(snapshot) => {
                let remaining = snapshot.remaining_burst_capacity();
                // Each create spent refills after one interval, the oldest first.
                let reset = up(interval * (limit - remaining));
                req.extensions_mut().insert(RateState {
                    limit,
                    remaining,
                    reset,
                });
                Ok(())
            }
            Err(not_until) => {
                let wait = not_until.wait_time_from(limiter.clock().now());
                let secs = up(wait);
                // The next create is `wait` away; the rest of the burst one interval each after it.
                let reset = up(wait + interval * (limit - 1));
                req.extensions_mut().insert(RateState {
                    limit,
                    remaining: 0,
                    reset,
                });
                Err(too_many(
                    "too_many_creates",
                    format!(
                        "this client created too many players, tournaments or matches without a \
                         token in a short time; nothing was recorded. Retry in {secs} s"
                    ),
                    secs.min(u64::from(u32::MAX)) as u32,
                ))
            }
        }
    }
}

/// The key a client is counted by: an IPv4 address (an IPv4-mapped IPv6 one too), or the /64
/// network of an IPv6 address.
pub fn client_key(ip: IpAddr) -> IpAddr {
    match ip.to_canonical() {
        IpAddr::V6(v6) => {
            let bits = u128::from(v6) & !((1u128 << 64) - 1);
            IpAddr::V6(Ipv6Addr::from(bits))
        }
        v4 => v4,
    }
}

#[cfg(test)]
mod tests {
    use actix_web::test::TestRequest;

    use super::*;

    fn gate(trusted: &str) -> Gate {
        Gate::new(&Quotas {
            trusted_proxies: trusted
                .split(',')
                .filter(|s| !s.is_empty())
                .map(|s| parse_net(s).unwrap())
                .collect(),
            ..Quotas::default()
        })
    }

    fn client(g: &Gate, peer: &str, xff: &[&str]) -> String {
        let mut r = TestRequest::default().peer_addr(peer.parse().unwrap());
        for h in xff {
            r = r.append_header(("x-forwarded-for", *h));
        }
        g.client(&r.to_http_request()).to_string()
    }

    #[test]
    fn a_client_is_its_peer_unless_the_peer_is_a_trusted_proxy() {
        let none = gate("");
        assert_eq!(
            client(&none, "198.51.100.7:4000", &["203.0.113.9"]),
            "198.51.100.7"
        );
        let g = gate("127.0.0.1,10.0.0.0/8");
        // Not a trusted peer: its X-Forwarded-For is the client's own word, ignored.
        assert_eq!(
            client(&g, "198.51.100.7:4000", &["203.0.113.9"]),
            "198.51.100.7"
        );
        // A trusted proxy: the right-most hop that is not a trusted proxy.
        assert_eq!(
            client(&g, "127.0.0.1:4000", &["203.0.113.9"]),
            "203.0.113.9"
        );
        assert_eq!(
            client(&g, "127.0.0.1:4000", &["1.2.3.4, 203.0.113.9, 10.1.2.3"]),
            "203.0.113.9"
        );
        // Several header lines are one list.
        assert_eq!(
            client(&g, "127.0.0.1:4000", &["1.2.3.4", "203.0.113.9"]),
            "203.0.113.9"
        );
        // No header, or nothing but trusted hops: the last trusted address known.
        assert_eq!(client(&g, "127.0.0.1:4000", &[]), "127.0.0.1");
        assert_eq!(client(&g, "127.0.0.1:4000", &["10.9.9.9"]), "10.9.9.9");
        // Garbage ends the walk at the proxy that wrote it.
        assert_eq!(
            client(&g, "127.0.0.1:4000", &["203.0.113.9, unknown"]),
            "127.0.0.1"
        );
    }

    #[test]
    fn an_ipv6_client_is_its_64_network_and_a_mapped_ipv4_one_its_ipv4_address() {
        let g = gate("");
        assert_eq!(
            client(&g, "[2001:db8:1:2:aaaa:bbbb:cccc:dddd]:4000", &[]),
            "2001:db8:1:2::"
        );
        assert_eq!(client(&g, "[::ffff:192.0.2.1]:4000", &[]), "192.0.2.1");
        let g = gate("::1");
        assert_eq!(client(&g, "[::1]:4000", &["2001:db8::5"]), "2001:db8::");
    }

    #[test]
    fn creates_past_the_burst_are_refused_with_the_seconds_to_wait_and_other_clients_go_on() {
        let g = Gate::new(&Quotas {
            creates_per_minute: 6,
            create_burst: 2,
            ..Quotas::default()
        });
        let req = |ip: &str| {
            TestRequest::default()
                .peer_addr(format!("{ip}:1").parse().unwrap())
                .to_http_request()
        };
        assert!(g.check_create(&req("192.0.2.1")).is_ok());
        assert!(g.check_create(&req("192.0.2.1")).is_ok());
        let e = g.check_create(&req("192.0.2.1")).unwrap_err();
        assert_eq!((e.status.as_u16(), e.code), (429, "too_many_creates"));
        // One create per 10 s: the next is at most 10 s away.
        assert!((1..=10).contains(&e.retry_after.unwrap()), "{e:?}");
        assert!(g.check_create(&req("192.0.2.2")).is_ok());
        // 0 per minute: no limit.
        let off = Gate::new(&Quotas {
            creates_per_minute: 0,
            create_burst: 1,
            ..Quotas::default()
        });
        for _ in 0..1000 {
            assert!(off.check_create(&req("192.0.2.1")).is_ok());
        }
    }

    #[test]
    fn a_trusted_proxy_is_an_address_or_a_network() {
        assert_eq!(parse_net("10.0.0.1").unwrap().to_string(), "10.0.0.1/32");
        assert_eq!(parse_net(" 10.0.0.0/8").unwrap().to_string(), "10.0.0.0/8");
        assert_eq!(parse_net("::1").unwrap().to_string(), "::1/128");
        assert!(parse_net("proxy.local").is_err());
    }
}
