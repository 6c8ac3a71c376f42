//! Ids, tokens and times, the same for every resource: a public id is 32 lowercase hex digits
//! (128 random bits), a token 64 (256 bits) and is stored only as its SHA-256, a time is RFC 3339
//! in UTC with milliseconds.

use chrono::{SecondsFormat, Utc};
use sha2::{Digest, Sha256};

/// Now, as every stored time is written.
pub fn now() -> String {
    Utc::now().to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// SHA-256 of `data`, hex: how a token is stored and looked up.
pub fn sha256_hex(data: &[u8]) -> String {
    hex::encode(Sha256::digest(data))
}

/// A fresh random 256-bit token, hex.
pub fn new_token() -> String {
    hex::encode(rand::random::<[u8; 32]>())
}

/// A fresh random public id (a match's, a player's, a tournament's).
pub fn new_id() -> String {
    hex::encode(rand::random::<[u8; 16]>())
}

/// Whether `id` has the form of a public id (32 lowercase hex digits). Anything else names
/// nothing and never reaches the database (PostgreSQL refuses a NUL in text: that would be a
/// 500).
pub fn is_id(id: &str) -> bool {
    id.len() == 32 && id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fresh_ids_have_the_public_form_and_others_do_not() {
        assert!(is_id(&new_id()));
        assert_eq!(new_token().len(), 64);
        assert!(!is_id(&new_token()));
        assert!(!is_id("0123456789ABCDEF0123456789abcdef"));
        assert!(!is_id("0123456789abcdef0123456789abcde\0"));
    }
}
