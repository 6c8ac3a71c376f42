//! Duplicate play with real cards: the boards of a round as the organiser prints them (a deal
//! sheet per board, for pre-dealing the wallets, and a curtain card per seat and board), as JSON
//! and as a print-ready A4 page. Pure: the boards come from the game's [`AnyGame::board`] and the
//! round's secret (board k is dealt from seed k, as service dealing would deal deal k). Cards are
//! written as the game's actions write them: `QS` (Dump, Clubs, Bonus-Malus), a signed value
//! (P.M.: `-7` is MINUS 7), a category (Members Only: `umbrella`, `hat:no`).

use serde::Serialize;
use utoipa::ToSchema;

use crate::rules::{
    cards::{Card, Suit},
    members_only, AnyGame, Board, Seed,
};

/// The most boards one request prints.
pub const MAX_BOARDS: u32 = 64;
/// How many boards are printed when `count` is not given.
pub const DEFAULT_BOARDS: u32 = 12;

/// A round's printed boards (organiser only).
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct RoundBoards {
    /// The tournament id.
    #[schema(example = "8f14e45fceea467a9a36dedb3c1e4b4f")]
    pub tournament_id: String,
    /// The round, from 1.
    #[schema(example = 1)]
    pub round: u32,
    /// The game id.
    #[schema(example = "clubs")]
    pub game: String,
    /// Seats at every table of the round.
    #[schema(example = 4)]
    pub seats: usize,
    /// The boards, from board `from` on. Board k is deal k of every table's match: a table that
    /// needs more deals than were printed asks for more (`from`).
    pub boards: Vec<BoardView>,
}

/// One board: who deals, each seat's cards, and where the others go.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct BoardView {
    /// The board (the deal number at every table), from 1.
    #[schema(example = 1)]
    pub board: u32,
    /// The dealer's seat (0-based), as the match deals deal k.
    #[schema(example = 0)]
    pub dealer: usize,
    /// Each seat's cards, seat 0 first.
    pub hands: Vec<HandView>,
    /// Cards that go to no seat and stay out of play unseen, sorted as the hands are (Clubs at
    /// three: the face-down card; P.M.: the rest of the packs; Members Only: the cards out of
    /// the heat). They stay in the wallet, face down.
    #[schema(example = json!([]))]
    pub undealt: Vec<String>,
    /// Members Only: the two cards turned face up into the layout at the deal (the table's
    /// `deal` records them as `face_up`). Absent in the other games.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[schema(example = json!(["umbrella", "crown:no"]))]
    pub layout: Vec<String>,
    /// Bonus-Malus: the stock in its order, top card first, for the wallet to hold stacked
    /// face down (its top card's back shows the first trump; with three players the last card
    /// is the one set aside unseen). Absent in the other games.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[schema(example = json!(["7D", "AS", "2C"]))]
    pub stock: Vec<String>,
}

/// What one seat is dealt on a board.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct HandView {
    /// The seat, 0-based clockwise.
    #[schema(example = 0)]
    pub seat: usize,
    /// The seat's name on the sheet: North, East, South, West at a table of four (as the
    /// tournament page names them), else "Seat 1" to "Seat n".
    #[schema(example = "North")]
    pub seat_name: String,
    /// The cards as the game's actions write them: rank then suit, sorted by suit (spades,
    /// hearts, diamonds, clubs) and the highest rank first; P.M. values lowest first (`-7` is
    /// MINUS 7); Members Only cards by category in track order, normal before NO!.
    #[schema(example = json!(["AS", "TS", "KH", "2C"]))]
    pub cards: Vec<String>,
    /// The same cards suit by suit, for the wallet and the curtain card (Dump, Clubs,
    /// Bonus-Malus); empty in a game without suits (P.M., Members Only).
    pub suits: Vec<SuitHolding>,
}

/// One suit of a hand.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct SuitHolding {
    /// The suit: `S`, `H`, `D` or `C`.
    #[schema(example = "S")]
    pub suit: String,
    /// The ranks held, highest first (`T` is the ten); empty for a void.
    #[schema(example = json!(["A", "T"]))]
    pub ranks: Vec<String>,
}

/// The seat's name on the printed sheet.
pub fn seat_name(seat: usize, seats: usize) -> String {
    if seats == 4 {
        ["North", "East", "South", "West"][seat].to_string()
    } else {
        format!("Seat {}", seat + 1)
    }
}

fn rank_of(card: Card) -> String {
    let text = card.to_string();
    text[..text.len() - 1].to_string()
}

/// The hand suit by suit, when every card is a playing card (none when the game has no suits).
fn suits_of(cards: &[String]) -> Vec<SuitHolding> {
    let Ok(parsed) = cards
        .iter()
        .map(|c| c.parse::<Card>())
        .collect::<Result<Vec<_>, _>>()
    else {
        return vec![];
    };
    Suit::ALL
        .iter()
        .map(|&suit| SuitHolding {
            suit: suit.letter().to_string(),
            ranks: parsed
                .iter()
                .filter(|c| c.suit() == suit)
                .map(|&c| rank_of(c))
                .collect(),
        })
        .collect()
}

fn board_view(number: u32, board: &Board) -> BoardView {
    let seats = board.hands.len();
    let hands = board
        .hands
        .iter()
        .enumerate()
        .map(|(seat, cards)| HandView {
            seat,
            seat_name: seat_name(seat, seats),
            cards: cards.clone(),
            suits: suits_of(cards),
        })
        .collect();
    BoardView {
        board: number,
        dealer: board.dealer,
        hands,
        undealt: board.undealt.clone(),
        layout: board.layout.clone(),
        stock: board.stock.clone(),
    }
}

/// Boards `from` to `from + count - 1` of a round, dealt by `game` (a table of the round, not
/// yet dealt) from the seeds `seed(k)`. None when the game's boards are not checked.
pub fn boards(
    game: &AnyGame,
    from: u32,
    count: u32,
    seed: impl Fn(u32) -> Seed,
) -> Option<Vec<BoardView>> {
    (from..from + count)
        .map(|k| game.board(k, &seed(k)).map(|b| board_view(k, &b)))
        .collect()
}

/// The print CSS: A4, one board's deal sheet a page, then the curtain cards, six a page.
const CSS: &str = "@page{size:A4;margin:12mm}\
body{font:12pt/1.35 system-ui,sans-serif;color:#000;background:#fff;margin:0}\
h1{font-size:16pt;margin:0 0 4mm}h2{font-size:14pt;margin:0 0 3mm}\
.sheet{break-after:page;page-break-after:always}\
.sheet:last-child{break-after:auto;page-break-after:auto}\
.hands{display:grid;grid-template-columns:1fr 1fr;gap:4mm}\
.hand,.curtain,.stock{border:0.4mm solid #000;border-radius:2mm;padding:3mm;break-inside:avoid;page-break-inside:avoid}\
.hand h3,.curtain h3,.stock h3{font-size:12pt;margin:0 0 2mm}\
.suit{white-space:nowrap;font-size:13pt}.red{color:#c00}\
.stock{margin-top:4mm}.stock ol{columns:4;margin:0;padding-left:8mm}\
.curtains{display:grid;grid-template-columns:1fr 1fr;gap:6mm}\
.curtain{min-height:80mm}.note{font-size:10pt;color:#333}\
@media screen{body{max-width:210mm;margin:8mm auto;padding:0 4mm}}";

/// How the page shows the cards of a game.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Playing cards, suit by suit.
    Suited,
    /// P.M.'s signed values.
    Values,
    /// Members Only's categories.
    Categories,
}

fn kind_of(game: &str) -> Kind {
    match game {
        "plus-minus" => Kind::Values,
        "members-only" => Kind::Categories,
        _ => Kind::Suited,
    }
}

/// One card as the page prints it: `Q♥` (red suits red), `PLUS 7`, `MINUS 7` (red, as the
/// MINUS cards are), `Big Ben`, `Hat NO!`.
fn card_html(kind: Kind, label: &str) -> String {
    match kind {
        Kind::Values => match label.parse::<i32>() {
            Ok(v) if v < 0 => format!("<span class=\"red\">MINUS {}</span>", v.unsigned_abs()),
            Ok(v) => format!("PLUS {v}"),
            Err(_) => label.to_string(),
        },
        Kind::Categories => match label.parse::<members_only::Card>() {
            Ok(c) if c.no => format!("{} NO!", c.category.words()),
            Ok(c) => c.category.words().to_string(),
            Err(_) => label.to_string(),
        },
        Kind::Suited => match label.parse::<Card>() {
            Ok(c) => {
                let (sym, red) = symbol(&c.suit().letter().to_string());
                let rank = rank_of(c);
                let rank = if rank == "T" { "10" } else { rank.as_str() };
                if red {
                    format!("{rank}<span class=\"red\">{sym}</span>")
                } else {
                    format!("{rank}{sym}")
                }
            }
            Err(_) => label.to_string(),
        },
    }
}

fn cards_html(kind: Kind, cards: &[String]) -> String {
    cards
        .iter()
        .map(|c| card_html(kind, c))
        .collect::<Vec<_>>()
        .join(" · ")
}

/// A hand's lines on the sheet and the curtain card: suit by suit; P.M.'s PLUS then MINUS
/// values; Members Only's categories in track order with how many of each (— for none).
fn hand_lines(kind: Kind, h: &HandView) -> String {
    match kind {
        Kind::Suited => suit_lines(h),
        Kind::Values => {
            let values: Vec<i32> = h.cards.iter().filter_map(|c| c.parse().ok()).collect();
            let line = |vals: Vec<String>| {
                if vals.is_empty() {
                    "—".to_string()
                } else {
                    vals.join(" ")
                }
            };
            let plus = line(
                values
                    .iter()
                    .filter(|v| **v > 0)
                    .map(|v| v.to_string())
                    .collect(),
            );
            let mut minus: Vec<u32> = values
                .iter()
                .filter(|v| **v < 0)
                .map(|v| v.unsigned_abs())
                .collect();
            minus.sort_unstable();
            let minus = line(minus.iter().map(|v| v.to_string()).collect());
            format!(
                "<div class=\"suit\">PLUS {plus}</div>\
                 <div class=\"suit\"><span class=\"red\">MINUS</span> {minus}</div>"
            )
        }
        Kind::Categories => {
            let cards: Vec<members_only::Card> =
                h.cards.iter().filter_map(|c| c.parse().ok()).collect();
            members_only::Category::ALL
                .iter()
                .map(|&cat| {
                    let normal = cards.iter().filter(|c| c.category == cat && !c.no).count();
                    let no = cards.iter().filter(|c| c.category == cat && c.no).count();
                    let held = match (normal, no) {
                        (0, 0) => "—".to_string(),
                        (n, 0) => format!("× {n}"),
                        (0, k) => format!("NO! × {k}"),
                        (n, k) => format!("× {n}, NO! × {k}"),
                    };
                    format!("<div class=\"suit\">{} {held}</div>", cat.words())
                })
                .collect()
        }
    }
}

/// The suit's symbol and whether it prints red.
fn symbol(suit: &str) -> (&'static str, bool) {
    match suit {
        "S" => ("♠", false),
        "H" => ("♥", true),
        "D" => ("♦", true),
        _ => ("♣", false),
    }
}

fn suit_lines(h: &HandView) -> String {
    h.suits
        .iter()
        .map(|s| {
            let (sym, red) = symbol(&s.suit);
            let ranks = if s.ranks.is_empty() {
                "—".to_string()
            } else {
                s.ranks
                    .iter()
                    .map(|r| if r == "T" { "10" } else { r.as_str() })
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            format!(
                "<div class=\"suit\"><span class=\"{}\">{sym}</span> {ranks}</div>",
                if red { "red" } else { "" }
            )
        })
        .collect()
}

/// What the sheet calls the cards dealt to no seat.
fn undealt_words(kind: Kind) -> &'static str {
    match kind {
        Kind::Values => "Out of play (stay in the wallet face down, unseen)",
        Kind::Categories => "Out of the heat (stay in the wallet face down, unseen)",
        Kind::Suited => "Dealt to no seat",
    }
}

/// The print-ready page: per board a deal sheet (which cards go to which seat, sorted by suit,
/// value or category, for pre-dealing into the wallets; Members Only's two layout cards;
/// Bonus-Malus's stock in its order), then a curtain card per seat and board. Every text on it
/// is the service's own (ids, numbers, seat names, cards): nothing a user typed, so nothing to
/// escape.
pub fn html(b: &RoundBoards) -> String {
    let kind = kind_of(&b.game);
    let mut out = String::with_capacity(16 * 1024);
    out.push_str("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">");
    out.push_str("<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">");
    out.push_str(&format!(
        "<title>Boards, round {} ({})</title><style>{CSS}</style></head><body>",
        b.round, b.game
    ));
    for board in &b.boards {
        out.push_str(&format!(
            "<section class=\"sheet\"><h1>Board {} — deal sheet</h1>\
             <p class=\"note\">Tournament {}, round {}, {}. Dealer: {}. Put each seat's cards \
             in its pocket of the wallet; every table plays this board as deal {}.</p>\
             <div class=\"hands\">",
            board.board,
            b.tournament_id,
            b.round,
            b.game,
            seat_name(board.dealer, b.seats),
            board.board
        ));
        for h in &board.hands {
            out.push_str(&format!(
                "<div class=\"hand\"><h3>{} ({} cards)</h3>{}</div>",
                h.seat_name,
                h.cards.len(),
                hand_lines(kind, h)
            ));
        }
        out.push_str("</div>");
        if !board.layout.is_empty() {
            out.push_str(&format!(
                "<p class=\"layout\">Face up into the layout: {}</p>",
                cards_html(kind, &board.layout)
            ));
        }
        if !board.stock.is_empty() {
            out.push_str(&format!(
                "<div class=\"stock\"><h3>Stock ({} cards), top card first</h3>\
                 <p class=\"note\">Stack it face down in this order, card 1 on top: its \
                 back shows the first trump.{}</p><ol>",
                board.stock.len(),
                if b.seats == 3 {
                    " At three the last card is set aside unseen."
                } else {
                    ""
                }
            ));
            for c in &board.stock {
                out.push_str(&format!("<li>{}</li>", card_html(kind, c)));
            }
            out.push_str("</ol></div>");
        }
        if !board.undealt.is_empty() {
            out.push_str(&format!(
                "<p class=\"undealt\">{}: {}</p>",
                undealt_words(kind),
                cards_html(kind, &board.undealt)
            ));
        }
        out.push_str("</section>");
    }
    for board in &b.boards {
        out.push_str(&format!(
            "<section class=\"sheet\"><h2>Board {} — curtain cards</h2><div class=\"curtains\">",
            board.board
        ));
        for h in &board.hands {
            out.push_str(&format!(
                "<div class=\"curtain\"><h3>Board {} · {}</h3>{}<p class=\"note\">Round {}. \
                 Check your cards against this card before play.</p></div>",
                board.board,
                h.seat_name,
                hand_lines(kind, h),
                b.round
            ));
        }
        out.push_str("</div></section>");
    }
    out.push_str("</body></html>");
    out
}

/// The page's Content-Security-Policy: nothing but its own inline style (no script at all).
pub fn html_csp() -> String {
    use base64::Engine;
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(CSS.as_bytes());
    format!(
        "default-src 'none'; style-src 'sha256-{}'; frame-ancestors 'none'",
        base64::engine::general_purpose::STANDARD.encode(digest)
    )
}
