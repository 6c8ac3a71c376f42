// The club's pages (issue 24), clients of the public API only: a player's page
// (`/#player=<id>`: per game the figures of `GET /v1/players/{id}/stats`, the rating over time
// drawn as an SVG line chart by this file, head-to-head, the history linking each match), a
// game's leaderboard (`/#leaderboard=<game>`), and a finished match read by anyone
// (`/#match=<id>`: its players, each linking their page, and its score sheet).

import { h, fill, api, main, problemText, games, gameTitle } from "./lib.js";

const SVG = "http://www.w3.org/2000/svg";
const s = (tag, attrs = {}, ...children) => {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== null && v !== undefined) el.setAttribute(k, String(v));
  for (const c of children.flat()) if (c !== null && c !== undefined) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
};

// A number as the API wrote it (the API rounds ratings and averages to 3 decimals).
const num = (x) => (x === null || x === undefined ? "–" : String(x));
// A rating as a club reads it: Elo in whole points (1512, not 1512.347), Weng-Lin's μ and σ to
// one decimal (25.3). The exact figure stays in the element's `data-rating` and `title`.
export const ratingText = (x, system) =>
  x === null || x === undefined ? "–" : system === "elo" ? String(Math.round(x)) : x.toFixed(1);
const day = (at) => String(at).slice(0, 10);
export const playerHref = (id) => `/#player=${id}`;
const matchHref = (id) => `/#match=${id}`;
const tableHref = (t) => `/#tournament=${t.id}`;

// A link to where a result was played: its match, or its tournament table.
function whereLink(r) {
  if (r.match_id) return h("a", { href: matchHref(r.match_id), class: "to-match", "data-match": r.match_id }, "match");
  if (r.tournament) return h("a", { href: tableHref(r.tournament), class: "to-table" }, `round ${r.tournament.round}, table ${r.tournament.table}`);
  return null;
}

// The rating over time: one point per rated result, evenly spaced (a club may play ten results
// one evening and none for a month), the vertical axis from the lowest to the highest rating
// with its two ends labelled, the first and last days under the line.
export function ratingChart(game, history, system) {
  const t = (r) => ratingText(r, system);
  const W = 320, H = 150, left = 44, right = 10, top = 12, bottom = 26;
  const ys = history.map((p) => p.rating);
  let lo = Math.min(...ys), hi = Math.max(...ys);
  if (hi - lo < 1e-9) { lo -= 1; hi += 1; }
  const x = (i) => (history.length === 1 ? (left + W - right) / 2 : left + (i * (W - left - right)) / (history.length - 1));
  const y = (r) => top + ((hi - r) * (H - top - bottom)) / (hi - lo);
  const pts = history.map((p, i) => `${x(i).toFixed(1)},${y(p.rating).toFixed(1)}`).join(" ");
  const first = history[0], last = history[history.length - 1];
  const label = `Rating in ${gameTitle(game)} over ${history.length} rated result${history.length === 1 ? "" : "s"}: from ${t(first.rating)} after the first to ${t(last.rating)} now; lowest ${t(Math.min(...ys))}, highest ${t(Math.max(...ys))}.`;
  return s("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart", role: "img", "aria-label": label, "data-points": history.length },
    s("title", {}, label),
    s("line", { x1: left, y1: top, x2: left, y2: H - bottom, class: "axis" }),
    s("line", { x1: left, y1: H - bottom, x2: W - right, y2: H - bottom, class: "axis" }),
    s("text", { x: left - 4, y: top + 4, class: "tick", "text-anchor": "end", "data-tick": "max" }, fmtTick(hi, lo)),
    s("text", { x: left - 4, y: H - bottom, class: "tick", "text-anchor": "end", "data-tick": "min" }, fmtTick(lo, hi)),
    s("text", { x: left, y: H - 8, class: "tick", "text-anchor": "start" }, day(first.at)),
    history.length > 1 ? s("text", { x: W - right, y: H - 8, class: "tick", "text-anchor": "end" }, day(last.at)) : null,
    history.length > 1 ? s("polyline", { points: pts, class: "line" }) : null,
    history.map((p, i) => s("circle", { cx: x(i).toFixed(1), cy: y(p.rating).toFixed(1), r: 3, class: "dot", "data-rating": p.rating },
      s("title", {}, `${day(p.at)}: ${t(p.rating)}`))));
}

// An axis end: whole numbers for Elo-sized ratings, one decimal for Weng-Lin's.
function fmtTick(v, other) {
  return Math.abs(v - other) >= 20 || Math.abs(v) >= 200 ? String(Math.round(v)) : v.toFixed(1);
}

function figures(g) {
  const rows = [
    ["played", "Games", g.played],
    ["wins", "Wins", g.wins],
    ["average", "Average score", g.average_score],
    ["best", "Best score", g.best_score],
    ["rating", g.rating_system === "elo" ? "Rating (Elo)" : "Rating (Weng-Lin μ)", g.rating, ratingText(g.rating, g.rating_system)],
  ];
  if (g.rating_uncertainty !== null && g.rating_uncertainty !== undefined) rows.push(["uncertainty", "Uncertainty (σ)", g.rating_uncertainty, ratingText(g.rating_uncertainty, "weng-lin")]);
  return h("dl", { class: "figures" }, rows.map(([key, label, v, text]) => h("div", { class: "fig", "data-fig": key, "data-value": v ?? null },
    h("dt", {}, label), h("dd", { title: text === undefined ? null : num(v) }, text ?? num(v)))));
}

function headToHead(g) {
  if (!g.head_to_head.length) return null;
  return h("div", { class: "scroll" }, h("table", { class: "sheet h2h" },
    h("caption", {}, "Head to head"),
    h("thead", {}, h("tr", {}, ["Opponent", "Pl", "W", "L", "D"].map((c, i) =>
      h("th", { scope: "col", title: ["", "played", "wins", "losses", "draws"][i] || null }, c)))),
    h("tbody", {}, g.head_to_head.map((o) => h("tr", { "data-opponent": o.player_id },
      h("td", { class: "name" }, h("a", { href: playerHref(o.player_id), class: "nm", title: o.name }, o.name)),
      [o.played, o.wins, o.losses, o.draws].map((x) => h("td", {}, String(x))))))));
}

// Every rated result of the game, newest first, each linking where it was played.
function history(g) {
  if (!g.rating_history.length) return null;
  return h("details", { class: "history" },
    h("summary", {}, `Rating history (${g.rating_history.length})`),
    h("ol", { class: "results", reversed: true }, [...g.rating_history].reverse().map((p) => h("li", { "data-rating": p.rating },
      h("span", { class: "when" }, day(p.at)), h("span", { class: "val", title: num(p.rating) }, ratingText(p.rating, g.rating_system)), whereLink(p)))));
}

function gameSection(g) {
  return h("section", { class: "panel game-stats", "data-game": g.game },
    h("h2", {}, gameTitle(g.game), " ", h("a", { href: `/#leaderboard=${g.game}`, class: "small to-board" }, "leaderboard")),
    figures(g),
    g.rating_history.length ? h("figure", { class: "chart-box" }, ratingChart(g.game, g.rating_history, g.rating_system)) : h("p", { class: "muted small" }, "No rated result yet."),
    headToHead(g),
    history(g));
}

function recentList(st) {
  if (!st.recent.length) return null;
  return h("section", { class: "panel", id: "latest" },
    h("h2", {}, "Latest results"),
    h("ol", { class: "results" }, st.recent.map((r) => h("li", { "data-game": r.game, "data-total": r.total, "data-place": r.place },
      h("span", { class: "when" }, day(r.finished_at)),
      h("span", { class: "what" }, `${gameTitle(r.game)}: ${r.won ? "won" : `place ${r.place} of ${r.units}`}, ${r.total}${r.rated ? "" : " (unrated)"}`),
      whereLink(r)))));
}

export async function playerPage(id) {
  await games();
  const a = await api("GET", `/v1/players/${encodeURIComponent(id)}/stats`);
  if (!a.ok) {
    fill(main(), h("div", { class: "msg bad", role: "alert" }, problemText(a)), h("a", { href: "/" }, "Start a new match"));
    return;
  }
  const st = a.json;
  document.title = `${st.name} · Clubroom`;
  fill(main(),
    h("h1", { id: "player-name" }, h("span", { class: "nm", title: st.name }, st.name)),
    st.games.length ? null : h("p", { class: "muted", id: "no-results" }, "No finished result yet."),
    st.games.map(gameSection),
    recentList(st));
}

export async function leaderboardPage(game, offset = 0) {
  const list = await games();
  const a = await api("GET", `/v1/games/${encodeURIComponent(game)}/leaderboard?limit=50&offset=${offset}`);
  const picker = h("nav", { class: "board-games", "aria-label": "Games" }, list.map((g) =>
    h("a", { href: `/#leaderboard=${g.id}`, class: g.id === game ? "on" : null, "aria-current": g.id === game ? "page" : null }, g.title)));
  if (!a.ok) {
    fill(main(), picker, h("div", { class: "msg bad", role: "alert" }, problemText(a)));
    return;
  }
  const b = a.json;
  const elo = b.rating_system === "elo";
  fill(main(),
    h("h1", {}, `${gameTitle(game)}: club ratings`),
    picker,
    b.rows.length ? h("div", { class: "scroll" }, h("table", { class: "sheet standings club-board", id: "leaderboard" },
      h("thead", {}, h("tr", {}, ["#", "Name", elo ? "Elo" : "μ", "Results"].map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", {}, b.rows.map((r) => h("tr", { "data-player": r.player_id },
        h("td", {}, String(r.rank)),
        h("td", { class: "name" }, h("a", { href: playerHref(r.player_id), class: "nm", title: r.name }, r.name)),
        h("td", { title: num(r.rating), "data-rating": r.rating }, ratingText(r.rating, b.rating_system)),
        h("td", {}, String(r.rated_results)))))))
      : h("p", { class: "muted" }, "No rated result yet."),
    h("p", { class: "muted small" }, elo ? "Elo: K 32, start 1000, scale 400." : "Weng-Lin (Bradley-Terry): start 25 ± 25/3; ordered by μ."),
    b.next_offset !== null ? h("a", { href: "#", class: "button secondary", id: "more", onclick: (e) => { e.preventDefault(); leaderboardPage(game, b.next_offset); } }, "Next page") : null);
}

// A match as anyone reads it (no token): its players, linking the registered ones' pages, and
// its score sheet.
export async function matchPage(id) {
  await games();
  const a = await api("GET", `/v1/matches/${encodeURIComponent(id)}`);
  if (!a.ok) {
    fill(main(), h("div", { class: "msg bad", role: "alert" }, problemText(a)));
    return;
  }
  const v = a.json;
  const sheet = v.scores;
  const names = v.players.map((p) => p.name);
  const cols = sheet.unit === "side" && sheet.sides ? sheet.sides.map((side) => side.map((x) => names[x]).join(" & ")) : names;
  fill(main(),
    h("h1", {}, `${gameTitle(v.game)} · ${v.status.replace("_", " ")}`),
    h("ul", { class: "seat-list", id: "match-players" }, v.players.map((p) => h("li", { "data-seat": p.seat },
      p.player_id ? h("a", { href: playerHref(p.player_id), "data-player": p.player_id }, h("span", { class: "nm" }, p.name), h("span", { class: "where" }, `seat ${p.seat + 1}`))
        : h("span", { class: "nm" }, `${p.name} · seat ${p.seat + 1}`)))),
    h("section", { class: "panel", id: "scores" },
      h("h2", {}, "Score sheet"),
      h("div", { class: "scroll" }, h("table", { class: "sheet" },
        h("tr", {}, h("th", {}, "Round"), cols.map((c) => h("th", { class: "name", title: c }, c))),
        sheet.rounds.map((r) => h("tr", {}, h("td", {}, r.label || `Round ${r.round}`), r.points.map((x) => h("td", {}, String(x))))),
        h("tr", { class: "total" }, h("td", {}, "Total"), sheet.totals.map((x) => h("td", {}, String(x))))))),
    v.tournament ? h("p", {}, h("a", { href: tableHref(v.tournament) }, `Tournament: round ${v.tournament.round}, table ${v.tournament.table}`)) : null);
}
