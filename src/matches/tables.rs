//! What the tournament service asks of its tables' matches, and all it asks: a table's new match
//! (recorded with its round, in the round's transaction), its result, its status, and closing it
//! for good when the organiser settles the table by hand. The tournament service is trusted: it
//! has checked the organiser's token, so these reads take no match token.

use serde_json::Value;

pub use super::views::Foul;
use super::{
    cache::ABANDON, create::new_match, views::TournamentLink, write::WriteOp, MatchError, Matches,
    WriteMeta,
};
use crate::{
    ids::sha256_hex,
    matches::views::MatchStatus,
    rules::{Dealing, ScoreSheet},
    store::NewMatch,
};

/// A tournament table's match, to be created with its round.
pub struct TableMatch<'a> {
    /// The game id.
    pub game: &'a str,
    /// The tournament's options for every table.
    pub config: &'a Value,
    /// Who deals.
    pub dealing: Dealing,
    /// Each seat's name and registered player.
    pub seats: Vec<(String, Option<String>)>,
    /// The table it is played at.
    pub link: TournamentLink,
    /// Duplicate play: the round's secret, which derives every deal's seed.
    pub seed_key: Option<&'a str>,
}

impl Matches {
    /// Table `t`'s new match, not yet recorded: its row and its tokens' hashes, the host's and
    /// each seat's token being `token(match id, None or Some(seat))` (a tournament derives them
    /// from its organiser's token, so that the organiser can ask for them again). The caller
    /// records it with its round in one transaction ([`crate::store::Store::insert_round`]).
    pub fn table_match(
        &self,
        t: TableMatch<'_>,
        token: impl Fn(&str, Option<usize>) -> String,
    ) -> Result<NewMatch, MatchError> {
        let (row, _) = new_match(
            t.game,
            Some(t.config.clone()),
            &t.seats,
            t.dealing,
            Some(&t.link),
            t.seed_key,
        )?;
        let hashes = std::iter::once(None)
            .chain((0..t.seats.len()).map(Some))
            .map(|seat| {
                let hash = sha256_hex(token(&row.id, seat).as_bytes());
                (hash, seat.map(|s| s as i64))
            })
            .collect();
        Ok((row, hashes))
    }

    /// The score sheet of match `id` and the time of its last event: a tournament table's
    /// result once the sheet is finished.
    pub async fn sheet_and_time(&self, id: &str) -> Result<(ScoreSheet, String), MatchError> {
        let e = self.fresh(id).await?;
        Ok((e.game.score_sheet(), e.updated_at.clone()))
    }

    /// Duplicate play with real cards: every standing play of match `id` that recorded a card
    /// its seat was not dealt on the round's board (a fouled board), in order.
    pub async fn fouls(&self, id: &str) -> Result<Vec<Foul>, MatchError> {
        Ok(self.fresh(id).await?.fouls())
    }

    /// Whether match `id` is being played, finished or abandoned.
    pub async fn status(&self, id: &str) -> Result<MatchStatus, MatchError> {
        let e = self.fresh(id).await?;
        Ok(e.status(&e.game))
    }

    /// Closes match `id` for good (its tournament table is settled by hand), with the match's
    /// host token: an `abandon` event in its log, status `abandoned`. Nothing if it already is;
    /// 409 `match_finished` when it is over (its sheet is its result).
    pub async fn abandon(&self, id: &str, host_token: &str) -> Result<(), MatchError> {
        if self.fresh(id).await?.abandoned {
            return Ok(());
        }
        let meta = WriteMeta {
            token: Some(host_token),
            if_match: None,
            idempotency_key: None,
            body: &Value::Null,
            minimal: true,
        };
        match self.write(id, WriteOp::Abandon, meta, ABANDON).await {
            Ok(_) | Err(MatchError::Abandoned) => Ok(()),
            Err(e) => Err(e),
        }
    }
}
