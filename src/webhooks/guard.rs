//! The SSRF guard: a webhook may only reach the public internet. A URL whose host is, or
//! resolves to, a loopback, private, link-local, unspecified, multicast, broadcast, CGNAT or
//! otherwise reserved address is refused at registration and checked again at every delivery
//! (DNS can change between the two): the delivering client resolves names through
//! [`GuardedResolver`], which drops such addresses, and follows no redirect. The operator may
//! allow them (`CLUBROOM_WEBHOOKS_ALLOW_PRIVATE=1`, for a receiver on the same network, or the
//! tests' loopback receiver).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use reqwest::{
    dns::{Addrs, Name, Resolve, Resolving},
    Url,
};

use super::WebhookError;

/// The longest URL accepted.
pub const MAX_URL_LEN: usize = 2048;

/// Whether `ip` is on the public internet (not loopback, private, link-local, unspecified,
/// multicast, broadcast, CGNAT, documentation, benchmarking or reserved). An IPv6 address
/// carrying an IPv4 one (mapped, NAT64, 6to4) is judged by the IPv4 address.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => is_public_v6(v6),
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    !(ip.is_unspecified()
        || ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
        || ip.is_multicast()
        || ip.is_broadcast()
        || ip.is_documentation()
        || a == 0 // "this network"
        || (a == 100 && (64..128).contains(&b)) // CGNAT 100.64.0.0/10
        || (a == 192 && b == 0 && c == 0) // IETF protocol assignments
        || (a == 198 && (b == 18 || b == 19)) // benchmarking
        || a >= 240) // reserved
}

fn is_public_v6(ip: Ipv6Addr) -> bool {
    if let Some(v4) = ip.to_ipv4_mapped() {
        return is_public_v4(v4);
    }
    let s = ip.segments();
    // NAT64 64:ff9b::/96 and 6to4 2002::/16 carry an IPv4 address.
    if s[0] == 0x64 && s[1] == 0xff9b && s[2..6] == [0, 0, 0, 0] {
        return is_public_v4(Ipv4Addr::new(
            (s[6] >> 8) as u8,
            s[6] as u8,
            (s[7] >> 8) as u8,
            s[7] as u8,
        ));
    }
    if s[0] == 0x2002 {
        return is_public_v4(Ipv4Addr::new(
            (s[1] >> 8) as u8,
            s[1] as u8,
            (s[2] >> 8) as u8,
            s[2] as u8,
        ));
    }
    !(ip.is_unspecified()
        || ip.is_loopback()
        || ip.is_multicast()
        || (s[0] & 0xfe00) == 0xfc00 // unique local fc00::/7
        || (s[0] & 0xffc0) == 0xfe80 // link-local fe80::/10
        || (s[0] & 0xffc0) == 0xfec0 // site-local (deprecated) fec0::/10
        || (s[0] == 0x2001 && s[1] == 0x0db8) // documentation
        || s[0..6] == [0, 0, 0, 0, 0, 0]) // IPv4-compatible (deprecated) and ::/96
}

/// A webhook URL, checked for its form: absolute `http` or `https`, a host, no user or
/// password, at most [`MAX_URL_LEN`] bytes.
pub fn parse_url(url: &str) -> Result<Url, WebhookError> {
    let invalid = |why: &str| WebhookError::InvalidUrl(why.to_string());
    if url.len() > MAX_URL_LEN {
        return Err(invalid(&format!("it is longer than {MAX_URL_LEN} bytes")));
    }
    let parsed = Url::parse(url).map_err(|e| invalid(&e.to_string()))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(invalid("only http and https URLs are delivered to"));
    }
    if parsed.host().is_none() {
        return Err(invalid("it names no host"));
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(invalid(
            "it carries a user name or password (deliveries are authenticated by their signature)",
        ));
    }
    Ok(parsed)
}

/// Checks where `url` leads now: every address its host is or resolves to must be public
/// (unless `allow_private`). The refusal names the host and the address, never more.
pub async fn check_destination(url: &Url, allow_private: bool) -> Result<(), WebhookError> {
    let host = url
        .host_str()
        .ok_or_else(|| WebhookError::InvalidUrl("it names no host".into()))?;
    let port = url.port_or_known_default().unwrap_or(443);
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    let addrs: Vec<IpAddr> = match bare.parse::<IpAddr>() {
        Ok(ip) => vec![ip],
        Err(_) => tokio::net::lookup_host((bare, port))
            .await
            .map_err(|_| WebhookError::Unresolvable(host.to_string()))?
            .map(|a| a.ip())
            .collect(),
    };
    if addrs.is_empty() {
        return Err(WebhookError::Unresolvable(host.to_string()));
    }
    if allow_private {
        return Ok(());
    }
    match addrs.into_iter().find(|ip| !is_public(*ip)) {
        Some(ip) => Err(WebhookError::ForbiddenAddress {
            host: host.to_string(),
            address: ip,
        }),
        None => Ok(()),
    }
}

/// The delivering client's resolver: the system's, with every non-public address dropped
/// (unless allowed), so a name that resolves to the server's own network at delivery time
/// reaches nothing there. (An address written in the URL itself is checked by
/// [`check_destination`] before each attempt.)
pub struct GuardedResolver {
    /// Keep non-public addresses.
    pub allow_private: bool,
}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let allow_private = self.allow_private;
        Box::pin(async move {
            let found: Vec<SocketAddr> = tokio::net::lookup_host((name.as_str(), 0))
                .await?
                .filter(|a| allow_private || is_public(a.ip()))
                .collect();
            if found.is_empty() {
                return Err(format!(
                    "{} resolves to no address a webhook may reach",
                    name.as_str()
                )
                .into());
            }
            let addrs: Addrs = Box::new(found.into_iter());
            Ok(addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_public_addresses_are_public() {
        for ip in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "0.0.0.0",
            "100.64.0.1",
            "224.0.0.1",
            "255.255.255.255",
            "::1",
            "::",
            "fe80::1",
            "fd00::1",
            "ff02::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "64:ff9b::a00:1",
            "2002:7f00:1::",
        ] {
            assert!(!is_public(ip.parse().unwrap()), "{ip} counts as public");
        }
        for ip in [
            "93.184.216.34",
            "1.1.1.1",
            "2606:4700:4700::1111",
            "100.128.0.1",
        ] {
            assert!(is_public(ip.parse().unwrap()), "{ip} counts as not public");
        }
    }

    #[test]
    fn urls_must_be_http_or_https_with_a_host_and_no_password() {
        assert!(parse_url("https://example.com/hook").is_ok());
        assert!(parse_url("http://example.com:8080/hook?x=1").is_ok());
        for bad in [
            "ftp://example.com/",
            "file:///etc/passwd",
            "example.com/hook",
            "https://user:pw@example.com/",
            "",
        ] {
            assert!(
                matches!(parse_url(bad), Err(WebhookError::InvalidUrl(_))),
                "{bad} accepted"
            );
        }
    }
}
