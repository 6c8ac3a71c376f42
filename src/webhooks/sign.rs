//! Signing a delivery, as Stripe does: `Clubroom-Signature: t=<unix seconds>,v1=<hex>`, where
//! `<hex>` is HMAC-SHA256, keyed with the webhook's secret (its text, as shown at registration),
//! over `<t>.<body>`. The receiver recomputes it over the raw body it received, compares in
//! constant time, and refuses a `t` too far from its clock (replays). README.md shows the code
//! in Python and JavaScript.

use hmac::{Hmac, Mac};
use sha2::Sha256;

/// The `Clubroom-Signature` header's value for `body` sent at `timestamp` (Unix seconds).
pub fn signature(secret: &str, timestamp: i64, body: &[u8]) -> String {
    format!(
        "t={timestamp},v1={}",
        hex::encode(mac(secret, timestamp, body))
    )
}

fn mac(secret: &str, timestamp: i64, body: &[u8]) -> Vec<u8> {
    let mut m = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC takes any key");
    m.update(timestamp.to_string().as_bytes());
    m.update(b".");
    m.update(body);
    m.finalize().into_bytes().to_vec()
}

/// Whether `header` (a `Clubroom-Signature` value) signs `body` with `secret` (constant-time
/// comparison; any `v1` among several counts). The receiver's side, for tests and Rust clients.
pub fn verify(secret: &str, header: &str, body: &[u8]) -> bool {
    let mut t = None;
    let mut sigs = vec![];
    for part in header.split(',') {
        match part.split_once('=') {
            Some(("t", v)) => t = v.parse::<i64>().ok(),
            Some(("v1", v)) => sigs.extend(hex::decode(v).ok()),
            _ => {}
        }
    }
    let Some(t) = t else { return false };
    sigs.iter().any(|s| {
        let mut m = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC takes any key");
        m.update(t.to_string().as_bytes());
        m.update(b".");
        m.update(body);
        m.verify_slice(s).is_ok()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signature_is_hmac_sha256_over_timestamp_dot_body() {
        // Computed independently with Python's hmac module:
        // hmac.new(b"whsec", b"1700000000.{}", hashlib.sha256).hexdigest()
        let s = signature("whsec", 1_700_000_000, b"{}");
        assert_eq!(
            s,
            "t=1700000000,v1=7d44587dddbaf4c7f70fef20f48cd594834ffea1641e3ac227b84408298738af"
        );
        assert!(verify("whsec", &s, b"{}"));
        assert!(!verify("whsec", &s, b"{ }"));
        assert!(!verify("other", &s, b"{}"));
        assert!(!verify("whsec", "v1=00", b"{}"));
    }
}
