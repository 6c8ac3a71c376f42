//! Exports: standings and results as CSV, and a BG Stats import file.

use chrono::DateTime;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

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

/// Every table's result as JSON (the `results.json` export): per result its round, table,
/// source, match, time, sides, totals, deals, winners, and per seat the player and matchpoints.
pub fn results_json(
    entrants: &[Entrant],
    results: &[TableResult],
    duplicate: bool,
    fouled: FouledBoardRule,
) -> Value {
    let mps = table_matchpoints(results, duplicate, fouled);
    let rows: Vec<Value> = results
        .iter()
        .zip(&mps)
        .map(|(r, mp)| {
            let seats: Vec<Value> = r
                .seats
                .iter()
                .enumerate()
                .map(|(seat, &e)| {
                    let unit = r.unit_of_seat(seat);
                    json!({
                        "seat": seat,
                        "unit": unit,
                        "player_id": entrants[e].player_id,
                        "name": entrants[e].name,
                        "total": r.totals.get(unit),
                        "matchpoints": mp.get(unit).map(|m| m.0),
                        "max_matchpoints": mp.get(unit).map(|m| m.1),
                        "winner": r.winners.contains(&unit),
                    })
                })
                .collect();
            json!({
                "round": r.round,
                "table": r.table,
                "source": r.source,
                "match_id": r.match_id,
                "at": r.at,
                "sides": r.sides,
                "totals": r.totals,
                "deals": r.deals,
                "winners": r.winners,
                "seats": seats,
            })
        })
        .collect();
    json!({ "duplicate": duplicate, "results": rows })
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

/// A BG Stats import file (the app's JSON backup shape: games, players, locations, plays with
/// player scores) of every table's play.
pub fn bgstats(
    tournament_id: &str,
    tournament_name: &str,
    game_title: &str,
    entrants: &[Entrant],
    results: &[TableResult],
) -> Value {
    let uses_teams = results.iter().any(|r| r.sides.is_some());
    let players: Vec<Value> = entrants
        .iter()
        .enumerate()
        .map(|(i, e)| {
            json!({
                "id": i + 1,
                "uuid": uuid(tournament_id, "player", i),
                "name": e.name,
                "isAnonymous": false,
            })
        })
        .collect();
    let plays: Vec<Value> = results
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let date = DateTime::parse_from_rfc3339(&r.at)
                .map(|d| d.naive_utc().format("%Y-%m-%d %H:%M:%S").to_string())
                .unwrap_or_default();
            let scores: Vec<Value> = r
                .seats
                .iter()
                .enumerate()
                .map(|(seat, &e)| {
                    let u = r.unit_of_seat(seat);
                    let total = r.totals.get(u).copied().unwrap_or(0);
                    let rank = 1 + r.totals.iter().filter(|&&t| t > total).count();
                    let mut s = json!({
                        "playerRefId": e + 1,
                        "score": total.to_string(),
                        "winner": r.winners.contains(&u),
                        "seatOrder": seat + 1,
                        "startPlayer": seat == 0,
                        "rank": rank,
                        "newPlayer": false,
                    });
                    if r.sides.is_some() {
                        s["team"] = json!(format!("Side {}", u + 1));
                    }
                    s
                })
                .collect();
            json!({
                "uuid": uuid(tournament_id, "play", i),
                "playDate": date,
                "entryDate": date,
                "gameRefId": 1,
                "durationMin": 0,
                "ignored": false,
                "rating": 0,
                "scoringSetting": 0,
                "usesTeams": r.sides.is_some(),
                "manualWinner": false,
                "rounds": r.deals.len(),
                "board": format!("{tournament_name}: round {}, table {}", r.round, r.table),
                "playerScores": scores,
            })
        })
        .collect();
    json!({
        "games": [{
            "id": 1,
            "uuid": uuid(tournament_id, "game", 0),
            "name": game_title,
            "highestWins": true,
            "noPoints": false,
            "cooperative": false,
            "usesTeams": uses_teams,
        }],
        "players": players,
        "locations": [],
        "plays": plays,
        "userInfo": {"meRefId": 0},
    })
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
            "1,a,\"Smith, \"\"Ace\"\"\",1,0,1,110,2,2,100.00,0,1016.000,"
        );
        assert_eq!(lines[2], "2,b,Ben,1,0,0,20,0,2,0.00,2,984.000,");
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
        assert_eq!(lines[2], "2,b,'=1+1,1,0,0,-26,0,2,0.00,2,984.000,");
        let res = results_csv(&e, &r, false, FouledBoardRule::Average);
        assert_eq!(
            res.lines().nth(1),
            Some("1,1,0,0,b,'=1+1,-26,0,2,false,totals,,2026-11-22T20:15:00.000Z")
        );
    }

    #[test]
    fn bgstats_has_the_import_shape_and_is_stable() {
        let (e, r) = setup();
        let b = bgstats("t1", "Night", "Dump", &e, &r);
        assert_eq!(b["games"][0]["name"], "Dump");
        assert_eq!(b["players"].as_array().unwrap().len(), 2);
        let play = &b["plays"][0];
        assert_eq!(play["playDate"], "2026-11-22 20:15:00");
        assert_eq!(play["rounds"], 3);
        assert_eq!(
            play["playerScores"][1],
            json!({"playerRefId": 1, "score": "110", "winner": true, "seatOrder": 2, "startPlayer": false, "rank": 1, "newPlayer": false})
        );
        assert_eq!(play["uuid"].as_str().unwrap().len(), 36);
        assert_eq!(bgstats("t1", "Night", "Dump", &e, &r), b);
    }
}
