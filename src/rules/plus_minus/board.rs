//! A P.M. board: where a man may land, and what a board scores.

use super::*;

/// A player's board: the four men's positions, kept in ascending order (men are alike).
pub type Board = [u8; MEN];

/// Where a moved man ends up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Landing {
    /// On a number 1..24.
    Number(u8),
    /// Exactly on 25: home.
    Home,
    /// Over the top: back to the stars to make a re-start.
    Bust,
    /// Taken below 1 by a MINUS total: back to the stars (even when short of the full amount).
    Stars,
}

impl Landing {
    /// The position the man lands on.
    pub fn position(self) -> u8 {
        match self {
            Landing::Number(n) => n,
            Landing::Home => HOME,
            Landing::Bust | Landing::Stars => STARS,
        }
    }

    /// The word used in outcomes and views.
    pub fn word(self) -> &'static str {
        match self {
            Landing::Number(_) => "move",
            Landing::Home => "home",
            Landing::Bust => "bust",
            Landing::Stars => "stars",
        }
    }
}

/// Why one man cannot move by a total.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveFault {
    /// No man of the player stands there.
    NoManThere,
    /// The man is home on 25.
    ManHome,
    /// The total is 0.
    ZeroTotal,
    /// A man on the stars cannot go backwards.
    StarsBackward,
    /// The destination holds another man of the same player.
    Occupied(u8),
    /// Busting from the stars while a man stands on 1..24.
    StarsBustForbidden,
    /// Busting from the stars while no man stands on 1..24: allowed, changes nothing, no move.
    StarsBustHarmless,
}

/// Whether a man of `board` stands on `p` (four compares; `contains` on bytes calls memchr).
// `contains` on a byte slice goes through memchr, a call for four bytes (a P.M. playout hot spot).
#[allow(clippy::manual_contains)]
#[inline]
pub fn holds(board: &Board, p: u8) -> bool {
    board.iter().any(|&x| x == p)
}

/// Where the man on `from` would land with `total`, under the legal destinations of docs/rules.md#plus-minus-destinations.
#[inline]
pub fn destination(board: &Board, total: i32, from: u8) -> Result<Landing, MoveFault> {
    if !holds(board, from) {
        return Err(MoveFault::NoManThere);
    }
    if from == HOME {
        return Err(MoveFault::ManHome);
    }
    if total == 0 {
        return Err(MoveFault::ZeroTotal);
    }
    if from == STARS && total < 0 {
        return Err(MoveFault::StarsBackward);
    }
    let to = from as i32 + total;
    if to < 1 {
        return Ok(Landing::Stars);
    }
    if to == HOME as i32 {
        return Ok(Landing::Home);
    }
    if to > HOME as i32 {
        if from != STARS {
            return Ok(Landing::Bust);
        }
        let in_play = board.iter().any(|&p| p != STARS && p != HOME);
        return Err(if in_play {
            MoveFault::StarsBustForbidden
        } else {
            MoveFault::StarsBustHarmless
        });
    }
    let to = to as u8;
    if holds(board, to) {
        return Err(MoveFault::Occupied(to));
    }
    Ok(Landing::Number(to))
}

/// The positions from which a man can really move by `total` (ascending, stars counted once).
pub fn legal_from(board: &Board, total: i32) -> Vec<u8> {
    let mut out: Vec<u8> = board
        .iter()
        .copied()
        .filter(|&p| destination(board, total, p).is_ok())
        .collect();
    out.dedup();
    out
}

/// Whether some man can really move by `total` (`legal_from` is not empty), without the list.
pub fn any_legal(board: &Board, total: i32) -> bool {
    movable(board, total) != 0
}

/// The men of a sorted `board` that can really move by `total`, as bits over the board's slots
/// (bit `i` for `board[i]`; of a position's repeats, only its first slot): exactly the
/// positions `destination` accepts, in the board's order, without building its answers.
pub fn movable(board: &Board, total: i32) -> u8 {
    if total == 0 {
        return 0;
    }
    // The numbers the player's men stand on (positions are 0..=25).
    let occupied = board.iter().fold(0u32, |m, &p| {
        m | 1u32.checked_shl(u32::from(p)).unwrap_or(0)
    });
    let mut bits = 0u8;
    let mut previous = None;
    for (i, &p) in board.iter().enumerate() {
        let to = i32::from(p) + total;
        let ok = previous != Some(p)
            && p != HOME
            && match to {
                ..=0 => p != STARS,
                // Home (25) exactly; past it a bust, not from the stars.
                25 => true,
                26.. => p != STARS,
                _ => occupied & (1u32 << to) == 0,
            };
        previous = Some(p);
        bits |= u8::from(ok) << i;
    }
    bits
}

/// [`movable`] for one board and many totals (`legal_pick` tries every card of the hand): per
/// man, the totals (-50..=50, bit `total + 50`) it can really move by, worked out once.
pub struct Movers {
    /// Bit `total + 50` of entry `i`: the man `board[i]` can move by `total`.
    by_man: [u128; MEN],
    /// Bit `total + 50`: a harmless bust from the stars (no man can move; `from: 0` accepted).
    harmless: u128,
    /// The board, for a total past the masks.
    board: Board,
}

impl Movers {
    /// Offset of total 0 in the masks; every total of two cards is within ±2 × MAX_CARD.
    const ZERO: i32 = 2 * MAX_CARD;

    /// The masks of `board` (sorted, as [`movable`] takes it).
    pub fn of(board: &Board) -> Movers {
        // Numbers 1..24 held: a man cannot land on them.
        let held = board
            .iter()
            .filter(|&&p| p != STARS && p != HOME)
            .fold(0u128, |m, &p| m | (1u128 << p));
        let every: u128 = (1u128 << (2 * Self::ZERO + 1)) - 1;
        let zero = Self::ZERO as u32;
        let mut by_man = [0u128; MEN];
        for (i, &p) in board.iter().enumerate() {
            if (i > 0 && board[i - 1] == p) || p == HOME {
                continue;
            }
            // Landing on a held number q: total q - p, bit q - p + ZERO (p <= 24 < ZERO).
            let blocked = held << (zero - u32::from(p));
            by_man[i] = if p == STARS {
                // Forwards only, up to 25 exactly (no bust from the stars).
                (((1u128 << 25) - 1) << (zero + 1)) & !blocked
            } else {
                every & !(1u128 << zero) & !blocked
            };
        }
        // A harmless bust from the stars (`destination`'s `StarsBustHarmless`): a man on the
        // stars, none on 1..24, and a total past 25 (26..=2 * MAX_CARD).
        let harmless = if holds(board, STARS) && held == 0 {
            every & !((1u128 << (zero + 26)) - 1)
        } else {
            0
        };
        Movers {
            by_man,
            harmless,
            board: *board,
        }
    }

    /// The masks in card space for the top card's value `top` (0 before the first card): per
    /// man, the cards `c` (bit `slot(c)`, `c` in -MAX_CARD..=MAX_CARD) such that the man can
    /// move by `top + c`, and last the cards whose total is a harmless bust from the stars.
    /// None when `top` is past MAX_CARD in size.
    #[inline]
    pub fn by_card(&self, top: i32) -> Option<[u64; MEN + 1]> {
        // Card slot s is the total top + s - MAX_CARD, bit top + s + MAX_CARD of the masks.
        let shift = u32::try_from(top.checked_add(MAX_CARD)?)
            .ok()
            .filter(|&s| s <= 2 * MAX_CARD as u32)?;
        let cards: u64 = (1u64 << SPAN) - 1;
        let at = |m: u128| ((m >> shift) as u64) & cards;
        Some([
            at(self.by_man[0]),
            at(self.by_man[1]),
            at(self.by_man[2]),
            at(self.by_man[3]),
            at(self.harmless),
        ])
    }

    /// [`movable`] of the board for `total`.
    #[inline]
    pub fn movable(&self, total: i32) -> u8 {
        let Some(bit) = total
            .checked_add(Self::ZERO)
            .and_then(|b| u32::try_from(b).ok())
            .filter(|&b| b <= 2 * Self::ZERO as u32)
        else {
            return movable(&self.board, total);
        };
        let mut bits = 0u8;
        for (i, m) in self.by_man.iter().enumerate() {
            bits |= (((m >> bit) & 1) as u8) << i;
        }
        bits
    }
}

/// [`Movers::by_card`] without the masks over totals: per man of the sorted `board`, the cards
/// `c` (bit `slot(c)`, `c` in -MAX_CARD..=MAX_CARD) such that the man can move by `top + c`, and
/// last the cards whose total is a harmless bust from the stars. Worked out in card space with
/// 64-bit masks, a few operations a man. None when `top` is past MAX_CARD in size.
#[inline]
pub fn card_masks(board: &Board, top: i32) -> Option<[u64; MEN + 1]> {
    if !(-MAX_CARD..=MAX_CARD).contains(&top) {
        return None;
    }
    let cards: u64 = (1u64 << SPAN) - 1;
    // The cards from slot `lo` up (lo may be past the last slot).
    let from = |lo: i32| -> u64 {
        match u32::try_from(lo) {
            Ok(lo) if lo < SPAN as u32 => cards & !((1u64 << lo) - 1),
            Ok(_) => 0,
            Err(_) => cards,
        }
    };
    // Numbers 1..24 held: a man cannot land on them.
    let held =
        board.iter().fold(0u64, |m, &p| m | (1u64 << p)) & !(1u64 << STARS) & !(1u64 << HOME);
    // The card whose total is 0 (slot MAX_CARD - top, within 0..=2 * MAX_CARD).
    let zero = 1u64 << (MAX_CARD - top);
    let mut out = [0u64; MEN + 1];
    for (i, &p) in board.iter().enumerate() {
        if (i > 0 && board[i - 1] == p) || p == HOME {
            continue;
        }
        // Landing on a held number q: total q - p, card slot q - p - top + MAX_CARD.
        let d = MAX_CARD - i32::from(p) - top;
        let blocked = if d >= 0 {
            held.checked_shl(d as u32).unwrap_or(0)
        } else {
            held >> d.unsigned_abs()
        };
        out[i] = if p == STARS {
            // Forwards only, totals 1..=25 (no bust from the stars).
            from(1 + MAX_CARD - top) & !from(HOME as i32 + 1 + MAX_CARD - top) & !blocked
        } else {
            cards & !zero & !blocked
        };
    }
    // A harmless bust from the stars: a man there, none on 1..24, a total past 25.
    if holds(board, STARS) && held == 0 {
        out[MEN] = from(HOME as i32 + 1 + MAX_CARD - top);
    }
    Some(out)
}

/// Score of one man at the end of a game: 50 on 25, −20 on the stars, else the number.
pub fn man_points(p: u8) -> i64 {
    match p {
        HOME => 50,
        STARS => -20,
        n => n as i64,
    }
}

/// Score of a board at the end of a game.
pub fn board_points(b: &Board) -> i64 {
    b.iter().map(|&p| man_points(p)).sum()
}

pub(super) fn board_text(b: &Board) -> String {
    let parts: Vec<String> = b.iter().map(|p| p.to_string()).collect();
    format!("[{}]", parts.join(", "))
}

/// Every board with its men in order (each a number from 0 to HOME): the tests' exhaustive sweep.
#[cfg(test)]
pub(super) fn every_sorted_board() -> impl Iterator<Item = Board> {
    (0..=HOME).flat_map(|a| {
        (a..=HOME)
            .flat_map(move |b| (b..=HOME).flat_map(move |c| (c..=HOME).map(move |d| [a, b, c, d])))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn card_masks_agree_with_movers_and_movable_on_every_board_and_top() {
        for board in every_sorted_board() {
            let movers = Movers::of(&board);
            for top in -MAX_CARD..=MAX_CARD {
                let masks = card_masks(&board, top).expect("top in range");
                assert_eq!(Some(masks), movers.by_card(top), "{board:?} on {top}");
            }
            // And against `movable` and `destination` card by card, for a few tops.
            for top in [-MAX_CARD, -11, -1, 0, 1, 7, 15, MAX_CARD] {
                let masks = card_masks(&board, top).expect("top in range");
                for s in 0..SPAN {
                    let total = top + s as i32 - MAX_CARD;
                    let men = (0..MEN).fold(0u8, |m, i| m | (((masks[i] >> s) & 1) as u8) << i);
                    assert_eq!(men, movable(&board, total), "{board:?} by {total}");
                    let harmless =
                        destination(&board, total, STARS) == Err(MoveFault::StarsBustHarmless);
                    assert_eq!(masks[MEN] >> s & 1 == 1, harmless, "{board:?} {total}");
                }
            }
        }
        assert_eq!(card_masks(&[0; MEN], MAX_CARD + 1), None);
        assert_eq!(card_masks(&[0; MEN], -MAX_CARD - 1), None);
    }

    #[test]
    fn movers_agree_with_movable_on_every_board_and_total() {
        for board in every_sorted_board() {
            let movers = Movers::of(&board);
            for total in -60..=60 {
                assert_eq!(
                    movers.movable(total),
                    movable(&board, total),
                    "{board:?} by {total}"
                );
            }
        }
    }
}
