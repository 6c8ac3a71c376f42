//! Exports: standings and results as CSV, and a BG Stats import file.

use chrono::DateTime;
use serde::Serialize;
use sha2::{Digest, Sha256};
use utoipa::ToSchema;

use super::{
    model::{Entrant, FouledBoardRule, ResultSource, Standings, TableResult},
    standings::table_matchpoints,
};
use crate::spreadsheet::{self, Cell};

/// What the exports are made of, read once: what anyone may see of a tournament.
pub struct Exported {
    /// The tournament's name.
    pub name: String,
    /// Its game's title.
    pub title: String,
    /// The entrants in entry order.
    pub entrants: Vec<Entrant>,
    /// The results anyone may see (in duplicate play, those of complete rounds).
    pub results: Vec<TableResult>,
    /// The standings.
    pub standings: Standings,
    /// Duplicate play.
    pub duplicate: bool,
    /// Duplicate play with real cards: what a table that fouled a board scores on it.
    pub fouled_board: FouledBoardRule,
}

/// The `results.json` export: every result anyone may see.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ResultsExport {
    /// Duplicate play (matchpoints compare a board's tables across the round).
    pub duplicate: bool,
    /// The results, by round and table.
    pub results: Vec<ExportedResult>,
}

/// One table's result in `results.json`.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ExportedResult {
    /// The round, from 1.
    pub round: u32,
    /// The table within the round, from 1.
    pub table: u32,
    /// Where the result came from.
    pub source: ResultSource,
    /// The table's match, if it has one.
    pub match_id: Option<String>,
    /// When the result stood (RFC 3339 UTC).
    #[schema(format = DateTime)]
    pub at: String,
    /// When scores are kept per side: the seats of each side.
    pub sides: Option<Vec<Vec<usize>>>,
    /// Final totals per unit (seat, or side).
    pub totals: Vec<i64>,
    /// Per deal: the points of each unit. Empty when only totals are known.
    pub deals: Vec<Vec<i64>>,
    /// The winning units.
    pub winners: Vec<usize>,
    /// Every seat: its player, total and matchpoints.
    pub seats: Vec<ExportedSeat>,
}

/// A seat of a result in `results.json`.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ExportedSeat {
    /// The seat, from 0.
    pub seat: usize,
    /// Its unit (the seat itself, or its side).
    pub unit: usize,
    /// The registered player.
    pub player_id: String,
    /// The player's name as entered.
    pub name: String,
    /// The unit's total.
    pub total: Option<i64>,
    /// The unit's matchpoints at this table.
    pub matchpoints: Option<i64>,
    /// The most matchpoints the table gave.
    pub max_matchpoints: Option<i64>,
    /// Whether the unit won the table.
    pub winner: bool,
}

/// Every table's result as JSON (the `results.json` export): per result its round, table,
/// source, match, time, sides, totals, deals, winners, and per seat the player and matchpoints.
pub fn results_json(
    entrants: &[Entrant],
    results: &[TableResult],
    duplicate: bool,
    fouled: FouledBoardRule,
) -> ResultsExport {
    let mps = table_matchpoints(results, duplicate, fouled);
    let rows = results
        .iter()
        .zip(&mps)
        .map(|(r, mp)| {
            let seats = r
                .seats
                .iter()
                .enumerate()
                .map(|(seat, &e)| {
                    let unit = r.unit_of_seat(seat);
                    ExportedSeat {
                        seat,
                        unit,
                        player_id: entrants[e].player_id.clone(),
                        name: entrants[e].name.clone(),
                        total: r.totals.get(unit).copied(),
                        matchpoints: mp.get(unit).map(|m| m.0),
                        max_matchpoints: mp.get(unit).map(|m| m.1),
                        winner: r.winners.contains(&unit),
                    }
                })
                .collect();
            ExportedResult {
                round: r.round,
                table: r.table,
                source: r.source,
                match_id: r.match_id.clone(),
                at: r.at.clone(),
                sides: r.sides.clone(),
                totals: r.totals.clone(),
                deals: r.deals.clone(),
                winners: r.winners.clone(),
                seats,
            }
        })
        .collect();
    ResultsExport {
        duplicate,
        results: rows,
    }
}

/// The standings as CSV, best first.
pub fn standings_csv(s: &Standings) -> String {
    let header = spreadsheet::header(&[
        "rank",
        "player_id",
        "name",
        "played",
        "byes",
        "wins",
        "total",
        "matchpoints",
        "max_matchpoints",
        "percentage",
        "opponents_matchpoints",
        "rating",
        "rating_uncertainty",
        "withdrawn",
    ]);
    let rows = s.rows.iter().map(|r| {
        vec![
            Cell::from(r.rank),
            Cell::text(&r.player_id),
            Cell::text(&r.name),
            Cell::from(r.played),
            Cell::from(r.byes),
            Cell::from(r.wins),
            Cell::from(r.total),
            Cell::from(r.matchpoints),
            Cell::from(r.max_matchpoints),
            Cell::decimal(r.percentage, 2),
            Cell::from(r.opponents_matchpoints),
            Cell::decimal(r.rating, 3),
            r.rating_uncertainty
                .map_or_else(Cell::empty, |u| Cell::decimal(u, 3)),
            Cell::text(if r.withdrawn { "yes" } else { "no" }),
        ]
    });
    spreadsheet::write(std::iter::once(header).chain(rows))
}

fn source_name(s: ResultSource) -> &'static str {
    match s {
        ResultSource::Match => "match",
        ResultSource::Totals => "totals",
    }
}

/// One row per seat of every result.
pub fn results_csv(
    entrants: &[Entrant],
    results: &[TableResult],
    duplicate: bool,
    fouled: FouledBoardRule,
) -> String {
    let mps = table_matchpoints(results, duplicate, fouled);
    let mut rows = vec![spreadsheet::header(&[
        "round",
        "table",
        "seat",
        "unit",
        "player_id",
        "name",
        "total",
        "matchpoints",
        "max_matchpoints",
        "winner",
        "source",
        "match_id",
        "at",
    ])];
    for (r, mp) in results.iter().zip(&mps) {
        for (seat, &e) in r.seats.iter().enumerate() {
            let u = r.unit_of_seat(seat);
            let (m, max) = mp.get(u).copied().unwrap_or((0, 0));
            rows.push(vec![
                Cell::from(r.round),
                Cell::from(r.table),
                Cell::from(seat),
                Cell::from(u),
                Cell::text(&entrants[e].player_id),
                Cell::text(&entrants[e].name),
                Cell::from(r.totals.get(u).copied().unwrap_or(0)),
                Cell::from(m),
                Cell::from(max),
                Cell::text(r.winners.contains(&u).to_string()),
                Cell::text(source_name(r.source)),
                Cell::text(r.match_id.clone().unwrap_or_default()),
                Cell::text(&r.at),
            ]);
        }
    }
    spreadsheet::write(rows)
}

/// A deterministic UUID-shaped id for (tournament, kind, index): re-exporting gives the same file,
/// so BG Stats recognises plays it already imported.
fn uuid(tournament: &str, kind: &str, index: usize) -> String {
    let h = hex::encode(Sha256::digest(
        format!("{tournament}:{kind}:{index}").as_bytes(),
    ));
    format!(
        "{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )
    .to_uppercase()
}

/// The `bgstats.json` export: a BG Stats import file (the app's JSON backup shape: games,
/// players, locations, plays with player scores) of every table's play. Field names are the
/// app's (camelCase).
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BgStatsExport {
    /// The one game played.
    pub games: Vec<BgStatsGame>,
    /// The entrants.
    pub players: Vec<BgStatsPlayer>,
    /// Always empty.
    pub locations: Vec<BgStatsLocation>,
    /// One play per table result.
    pub plays: Vec<BgStatsPlay>,
    /// The importing user (none: `meRefId` 0).
    pub user_info: BgStatsUserInfo,
}

/// A game in a BG Stats file.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BgStatsGame {
    /// Its reference within the file (1).
    pub id: u32,
    /// Stable across exports of this tournament.
    #[schema(pattern = "^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$")]
    pub uuid: String,
    /// The game's title.
    pub name: String,
    /// Always true: higher is better in every game here.
    pub highest_wins: bool,
    /// Always false.
    pub no_points: bool,
    /// Always false.
    pub cooperative: bool,
    /// Whether any table scored per side.
    pub uses_teams: bool,
}

/// A player in a BG Stats file.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BgStatsPlayer {
    /// Its reference within the file (entry order, from 1).
    pub id: usize,
    /// Stable across exports of this tournament.
    #[schema(pattern = "^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$")]
    pub uuid: String,
    /// The entrant's name.
    pub name: String,
    /// Always false.
    pub is_anonymous: bool,
}

/// A location in a BG Stats file (none are exported).
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct BgStatsLocation {
    /// Its reference within the file.
    pub id: usize,
    /// Its name.
    pub name: String,
}

/// The importing user of a BG Stats file.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BgStatsUserInfo {
    /// The player who is "me" (0: none).
    pub me_ref_id: usize,
}

/// A play (one table's result) in a BG Stats file.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BgStatsPlay {
    /// Stable across exports of this tournament.
    #[schema(pattern = "^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$")]
    pub uuid: String,
    /// When the result stood, UTC, `YYYY-MM-DD hh:mm:ss`.
    #[schema(example = "2026-11-22 20:15:00")]
    pub play_date: String,
    /// The same as `playDate`.
    pub entry_date: String,
    /// The game (1).
    pub game_ref_id: u32,
    /// Always 0 (not recorded).
    pub duration_min: u32,
    /// Always false.
    pub ignored: bool,
    /// Always 0.
    pub rating: u32,
    /// Always 0.
    pub scoring_setting: u32,
    /// Whether the table scored per side.
    pub uses_teams: bool,
    /// Always false.
    pub manual_winner: bool,
    /// Deals played (0 when only totals are known).
    pub rounds: usize,
    /// The tournament, round and table.
    pub board: String,
    /// Every seat's score.
    pub player_scores: Vec<BgStatsScore>,
}

/// A seat's score in a BG Stats play.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BgStatsScore {
    /// The player (its `id` in `players`).
    pub player_ref_id: usize,
    /// The unit's total, as text (the app's format).
    pub score: String,
    /// Whether the unit won.
    pub winner: bool,
    /// The seat, from 1.
    pub seat_order: usize,
    /// Whether this seat started (seat 1).
    pub start_player: bool,
    /// 1 + the units with a higher total.
    pub rank: usize,
    /// Always false.
    pub new_player: bool,
    /// The side (`Side 1`...), when the table scored per side.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub team: Option<String>,
}

/// A BG Stats import file (the app's JSON backup shape: games, players, locations, plays with
/// player scores) of every table's play.
pub fn bgstats(
    tournament_id: &str,
    tournament_name: &str,
    game_title: &str,
    entrants: &[Entrant],
    results: &[TableResult],
) -> BgStatsExport {
    let uses_teams = results.iter().any(|r| r.sides.is_some());
    let players = entrants
        .iter()
        .enumerate()
        .map(|(i, e)| BgStatsPlayer {
            id: i + 1,
            uuid: uuid(tournament_id, "player", i),
            name: e.name.clone(),
            is_anonymous: false,
        })
        .collect();
    let plays = results
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let date = DateTime::parse_from_rfc3339(&r.at)
                .map(|d| d.naive_utc().format("%Y-%m-%d %H:%M:%S").to_string())
                .unwrap_or_default();
            let player_scores = r
                .seats
                .iter()
                .enumerate()
                .map(|(seat, &e)| {
                    let u = r.unit_of_seat(seat);
                    let total = r.totals.get(u).copied().unwrap_or(0);
                    BgStatsScore {
                        player_ref_id: e + 1,
                        score: total.to_string(),
                        winner: r.winners.contains(&u),
                        seat_order: seat + 1,
                        start_player: seat == 0,
                        rank: 1 + r.totals.iter().filter(|&&t| t > total).count(),
                        new_player: false,
                        team: r.sides.is_some().then(|| format!("Side {}", u + 1)),
                    }
                })
                .collect();
            BgStatsPlay {
                uuid: uuid(tournament_id, "play", i),
                play_date: date.clone(),
                entry_date: date,
                game_ref_id: 1,
                duration_min: 0,
                ignored: false,
                rating: 0,
                scoring_setting: 0,
                uses_teams: r.sides.is_some(),
                manual_winner: false,
                rounds: r.deals.len(),
                board: format!("{tournament_name}: round {}, table {}", r.round, r.table),
                player_scores,
            }
        })
        .collect();
    BgStatsExport {
        games: vec![BgStatsGame {
            id: 1,
            uuid: uuid(tournament_id, "game", 0),
            name: game_title.to_string(),
            highest_wins: true,
            no_points: false,
            cooperative: false,
            uses_teams,
        }],
        players,
        locations: vec![],
        plays,
        user_info: BgStatsUserInfo { me_ref_id: 0 },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournaments::{model::RatingSystem, standings::standings};

    fn setup() -> (Vec<Entrant>, Vec<TableResult>) {
        let entrants = vec![
            Entrant {
                player_id: "a".into(),
                name: "Smith, \"Ace\"".into(),
            },
            Entrant {
                player_id: "b".into(),
                name: "Ben".into(),
            },
        ];
        let results = vec![TableResult {
            round: 1,
            table: 1,
            seats: vec![1, 0],
            sides: None,
            totals: vec![20, 110],
            deals: vec![vec![0, 40], vec![20, 0], vec![0, 70]],
            winners: vec![1],
            source: ResultSource::Totals,
            match_id: None,
            at: "2026-11-22T20:15:00.000Z".into(),
            fouls: vec![],
        }];
        (entrants, results)
    }

    #[test]
    fn csv_quotes_names_and_lists_every_seat() {
        let (e, r) = setup();
        let s = standings(
            &e,
            &r,
            &[],
            false,
            FouledBoardRule::Average,
            RatingSystem::Elo,
        );
        let csv = standings_csv(&s);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(
            lines[1],
            "1,a,\"Smith, \"\"Ace\"\"\",1,0,1,110,2,2,100.00,0,1016.000,,no"
        );
        assert_eq!(lines[2], "2,b,Ben,1,0,0,20,0,2,0.00,2,984.000,,no");
        let res = results_csv(&e, &r, false, FouledBoardRule::Average);
        assert_eq!(
            res.lines().nth(1),
            Some("1,1,0,0,b,Ben,20,0,2,false,totals,,2026-11-22T20:15:00.000Z")
        );
        assert_eq!(res.lines().count(), 3);
    }

    #[test]
    fn csv_writes_a_formula_name_as_text_and_a_negative_total_as_a_number() {
        let (mut e, mut r) = setup();
        e[1].name = "=1+1".into();
        r[0].totals = vec![-26, 110];
        let s = standings(
            &e,
            &r,
            &[],
            false,
            FouledBoardRule::Average,
            RatingSystem::Elo,
        );
        let lines: Vec<String> = standings_csv(&s).lines().map(String::from).collect();
        assert_eq!(lines[2], "2,b,'=1+1,1,0,0,-26,0,2,0.00,2,984.000,,no");
        let res = results_csv(&e, &r, false, FouledBoardRule::Average);
        assert_eq!(
            res.lines().nth(1),
            Some("1,1,0,0,b,'=1+1,-26,0,2,false,totals,,2026-11-22T20:15:00.000Z")
        );
    }

    #[test]
    fn bgstats_has_the_import_shape_and_is_stable() {
        let (e, r) = setup();
        let to_value = |b: BgStatsExport| serde_json::to_value(b).unwrap();
        let b: serde_json::Value = to_value(bgstats("t1", "Night", "Dump", &e, &r));
        assert_eq!(b["games"][0]["name"], "Dump");
        assert_eq!(b["players"].as_array().unwrap().len(), 2);
        let play = &b["plays"][0];
        assert_eq!(play["playDate"], "2026-11-22 20:15:00");
        assert_eq!(play["rounds"], 3);
        assert_eq!(
            play["playerScores"][1],
            serde_json::json!({"playerRefId": 1, "score": "110", "winner": true, "seatOrder": 2, "startPlayer": false, "rank": 1, "newPlayer": false})
        );
        assert_eq!(play["uuid"].as_str().unwrap().len(), 36);
        // Every UUID has the shape the spec's pattern states (upper-case hex, 8-4-4-4-12), as
        // the BG Stats app writes them (schemathesis found the pattern once said lower case).
        let shaped = |u: &serde_json::Value| {
            let u = u.as_str().unwrap();
            u.split('-').map(str::len).collect::<Vec<_>>() == [8, 4, 4, 4, 12]
                && u.chars().all(|c| {
                    c == '-'
                        || c.is_ascii_digit()
                        || c.is_ascii_uppercase() && c.is_ascii_hexdigit()
                })
        };
        assert!(shaped(&play["uuid"]));
        assert!(shaped(&b["games"][0]["uuid"]));
        assert!(b["players"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| shaped(&p["uuid"])));
        assert_eq!(to_value(bgstats("t1", "Night", "Dump", &e, &r)), b);
    }
}
