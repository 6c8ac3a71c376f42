// Tournaments on the page (issue 12), a client of the public API only:
// - the "Tournament" panel of a match page played at a tournament table (its live standings);
// - the tournament page `/#tournament=<id>`: rounds, tables, results, live standings, exports;
// - with `&o=<organiser token>` (it stays in the fragment and reaches the server only as a Bearer
//   token): pair the next round, open each table's host and seat pages, enter results by hand;
// - the start page's "New tournament" form.
// Standings are polled every 5 s with If-None-Match: an unchanged answer is a bodiless 304.
// The phone that creates a tournament keeps its organiser token (keep.js) until "Forget this
// tournament"; the tables' tokens are asked of the server again, never stored.

import { forgetTournament, keepTournament, keptTournaments } from "./keep.js";
import { $, api, fill, forgetControl, games, gameInfo, gameTitle, h, linksPage, main, offline, partnerships, problemText, say, setConn, tableUrl, watch } from "./lib.js";

const FORMATS = { round_robin: "Round robin", swiss: "Swiss" };
const EXPORTS = ["standings.csv", "results.csv", "results.json", "bgstats.json"];

const fixed = (x, d) => (Number.isFinite(x) ? x.toFixed(d) : "");
const organiserUrl = (id, token) => `${location.origin}/#tournament=${id}&o=${token}`;

// ---------- the standings ----------

function standingsTable(st, highlight) {
  const hi = new Set(highlight.filter(Boolean));
  const digits = st.rating_system === "elo" ? 0 : 1;
  const cols = [["#", "place"], ["Name", ""], ["Pl", "tables played"], ["W", "wins"], ["Total", "sum of totals"],
    ["MP", "matchpoints"], ["%", "matchpoints in percent of the most possible"], ["Rating", st.rating_system === "elo" ? "Elo" : "Weng-Lin"]];
  return h("div", { class: "scroll" }, h("table", { class: "sheet standings" },
    h("thead", {}, h("tr", {}, cols.map(([c, title]) => h("th", { title: title || null }, c)))),
    h("tbody", {}, st.rows.map((r) => h("tr", {
      class: hi.has(r.player_id) ? "mine" : null, "data-player": r.player_id, "data-played": r.played, "data-matchpoints": r.matchpoints,
    }, [r.rank, r.name, r.played, r.wins, r.total, r.matchpoints, fixed(r.percentage, 1), fixed(r.rating, digits)]
      .map((x, i) => h("td", { class: i === 1 ? "name" : null }, String(x))))))));
}

// A box that keeps a tournament's standings current; `highlight()` names the player ids to mark.
function liveStandings(id, highlight = () => []) {
  const box = h("div", { class: "standings-box" }, h("p", { class: "muted small" }, "Loading the standings…"));
  let version = 0;
  const w = watch(`/v1/tournaments/${id}/standings`, (st) => {
    box.dataset.version = ++version;
    fill(box,
      st.rows.some((r) => r.played || r.byes) ? null : h("p", { class: "muted small" }, "No results yet."),
      standingsTable(st, highlight()),
      h("p", { class: "muted small" }, `Tie-breaks: ${st.tie_breaks.join(", ").replace(/_/g, " ")}. Updated ${new Date().toLocaleTimeString()}.`));
  });
  return { box, now: w.now };
}

// ---------- the panel of a match page ----------

let panel = null; // { id, el, now, finished }

// The match page's Tournament panel (null for a match outside a tournament). One element for the
// page's life, redrawn by its own polling; refreshed at once when the match finishes.
export function tournamentPanel(v) {
  const t = v.tournament;
  if (!t) return null;
  if (!panel || panel.id !== t.id) {
    const live = liveStandings(t.id, () => v.players.map((p) => p.player_id));
    const name = h("a", { href: `/#tournament=${t.id}`, id: "tournament-name" }, "Tournament");
    panel = { id: t.id, now: live.now, finished: v.status === "finished" };
    panel.el = h("section", { class: "panel", id: "tournament" },
      h("h2", {}, "Tournament"),
      h("p", {}, name, ` · round ${t.round} · table ${t.table}${v.duplicate ? " · duplicate" : ""}`),
      live.box);
    api("GET", `/v1/tournaments/${t.id}`).then((a) => { if (a.ok) name.textContent = a.json.name; }).catch(() => {});
  }
  if (v.status === "finished" && !panel.finished) {
    panel.finished = true;
    panel.now();
  }
  return panel.el;
}

// ---------- the tournament page ----------

function unitNames(t, table) {
  const names = table.players.map((p) => p.name);
  const sides = table.result ? table.result.sides : partnerships(t.game, names.length);
  return sides ? sides.map((s) => s.map((seat) => names[seat]).join(" & ")) : names;
}

function resultTable(t, table) {
  const r = table.result;
  const units = unitNames(t, table);
  return h("table", { class: "sheet result" },
    h("tr", {}, h("th", {}, r.source === "match" ? "From the match" : "Entered"), h("th", {}, "Total"), h("th", {}, "MP")),
    units.map((u, i) => h("tr", { class: r.winners.includes(i) ? "won" : null },
      h("td", {}, r.winners.includes(i) ? `★ ${u}` : u), h("td", {}, String(r.totals[i])),
      h("td", {}, `${r.matchpoints[i]}/${r.max_matchpoints[i]}`))));
}

// The organiser's links to a table's pages: the host (scorer) and each seat, and their QR codes
// to hand out.
function openLinks(t, table, tokens) {
  if (!tokens) return null;
  const qr = () => linksPage({ match: { id: tokens.match_id, game: t.game, players: table.players }, host_token: tokens.host_token, seat_tokens: tokens.seat_tokens },
    h("button", { class: "secondary", id: "back", onclick: () => location.reload() }, `← ${t.name}`));
  return h("div", { class: "open-links" }, h("span", { class: "small muted" }, "Open:"),
    h("a", { href: tableUrl(tokens.match_id, tokens.host_token), "data-open": "host" }, "Host"),
    table.players.map((p) => h("a", { href: tableUrl(tokens.match_id, tokens.seat_tokens[p.seat]), "data-open": "seat", "data-seat": p.seat }, p.name)),
    h("button", { class: "secondary small", "data-qr": table.table, onclick: qr }, "QR codes"));
}

function parseNumbers(text) {
  const parts = text.split(/[,;\s]+/).filter(Boolean);
  const nums = parts.map(Number);
  return parts.length && nums.every(Number.isInteger) ? nums : null;
}

// The quick log's entry: "12, -12" gives the totals per unit; "10, -10 / 2, -2" the points per
// deal, deals separated by slashes. Null when it is not whole numbers.
function parseEntry(text) {
  if (!text.includes("/")) {
    const totals = parseNumbers(text);
    return totals && { totals };
  }
  const deals = text.split("/").map(parseNumbers);
  return deals.every(Boolean) ? { deals } : null;
}

export async function tournamentPage(id, token) {
  setConn("", "");
  await games();
  const P = { t: null, tokens: new Map(), drawn: 0 };
  const live = liveStandings(id);
  const head = h("div", { id: "tournament-head" }, h("p", { class: "muted" }, "Loading…"));
  const rounds = h("div", { id: "rounds" });
  const msg = h("div", { id: "pair-msg" });
  const refreshAll = () => { live.now(); P.watch.now(); };

  const pair = async () => {
    say(msg, "", "");
    const a = await api("POST", `/v1/tournaments/${id}/rounds`, { token }).catch(offline("pairing"));
    if (!a.ok) { say(msg, "bad", problemText(a)); return; }
    P.tokens.set(a.json.round, a.json.tokens);
    say(msg, "ok", `Round ${a.json.round} is paired.`);
    refreshAll();
  };

  const enter = async (form, round, table, abandon) => {
    const box = $(".qmsg", form);
    const body = parseEntry(form.elements.totals.value);
    if (!body) { say(box, "bad", "Type whole numbers, one per unit, separated by commas (deals separated by /)."); return; }
    if (abandon) body.abandon_match = true;
    const a = await api("PUT", `/v1/tournaments/${id}/rounds/${round}/tables/${table}/result`, { token, body })
      .catch(offline("the result"));
    if (!a.ok && a.status === 409 && a.json && a.json.code === "match_in_progress") {
      // The table's match is still being played: a result by hand closes it for good. Ask.
      box.replaceChildren(
        h("div", { class: "msg warn" }, "This table's match is still being played. Saving a result by hand closes the match for good: nothing more can be recorded there."),
        h("div", { class: "row" },
          h("button", { type: "button", class: "danger", onclick: () => enter(form, round, table, true) }, "Close the match and save"),
          h("button", { type: "button", onclick: () => box.replaceChildren() }, "Keep playing")));
      return;
    }
    if (!a.ok) { say(box, "bad", problemText(a)); return; }
    form.elements.totals.value = "";
    say(box, "ok", "Saved.");
    refreshAll();
  };

  const quickLog = (t, round, table) => {
    const units = unitNames(t, table);
    const form = h("form", { class: "quicklog", "data-round": round.round, "data-table": table.table,
      onsubmit: (ev) => { ev.preventDefault(); enter(form, round.round, table.table); } },
    h("label", {}, `Totals, comma separated (${units.join(", ")})`),
    h("div", { class: "row" },
      h("input", { type: "text", name: "totals", class: "grow", autocomplete: "off", placeholder: units.map(() => "0").join(", "), "aria-label": `Totals of table ${table.table}` }),
      h("button", { type: "submit" }, "Save")),
    h("div", { class: "small muted" }, t.duplicate ? "Duplicate play: the points of every deal, deals separated by “/” (e.g. 10, -10 / -4, 4)."
      : "Or the points of every deal, deals separated by “/” (e.g. 10, -10 / -4, 4)."),
    h("div", { class: "qmsg" }));
    return t.record === "totals" ? form : h("details", {}, h("summary", { class: "small muted" }, "The match cannot be finished: enter its totals"), form);
  };

  const tableBlock = (t, round, table) => h("div", { class: "tbl", "data-table": table.table },
    h("div", {}, h("strong", {}, `Table ${table.table}: `), table.players.map((p) => p.name).join(" · ")),
    table.result ? resultTable(t, table) : h("div", { class: "small muted" },
      // Duplicate play: a finished table's result shows once every table of the round is done.
      table.finished ? "Finished: the result shows once every table of the round has finished."
        : t.record === "matches" ? "Playing…" : "No result yet."),
    token ? openLinks(t, table, (P.tokens.get(round.round) || []).find((x) => x.table === table.table)) : null,
    token && !table.finished ? quickLog(t, round, table) : null);

  const roundBlock = (t, round) => h("section", { class: "panel round", "data-round": round.round },
    h("h2", {}, `Round ${round.round}`, h("span", { class: "muted small" }, round.complete ? " · complete" : " · in play")),
    round.byes.length ? h("p", { class: "small" }, `Sitting out: ${round.byes.map((b) => b.name).join(", ")}`) : null,
    round.tables.map((table) => tableBlock(t, round, table)));

  const draw = async (t) => {
    const mine = ++P.drawn;
    if (token) {
      for (const r of t.rounds) {
        if (P.tokens.has(r.round)) continue;
        const a = await api("GET", `/v1/tournaments/${id}/rounds/${r.round}`, { token }).catch(() => null);
        if (a && a.ok) P.tokens.set(r.round, a.json.tokens);
        else if (a && a.status === 403) { say(msg, "bad", problemText(a)); break; } // not this tournament's organiser token
      }
    }
    if (mine !== P.drawn) return; // a newer version is being drawn
    P.t = t;
    document.title = `${t.name} · Clubroom`;
    document.body.dataset.rounds = t.rounds.length;
    head.replaceChildren(
      h("h1", {}, t.name),
      h("p", { class: "muted small", id: "tournament-meta" }, [gameTitle(t.game), FORMATS[t.format] || t.format,
        `${t.rounds_planned} round${t.rounds_planned === 1 ? "" : "s"}`, `tables of ${t.table_size}`, t.duplicate ? "duplicate" : null,
        t.dealing === "service" ? "Clubroom deals" : "real cards", t.record === "totals" ? "totals entered" : "matches recorded",
        `${t.players.length} players`, t.status === "finished" ? "finished" : "in progress"].filter(Boolean).join(" · ")));
    // Keep what the organiser is typing in the quick-log forms across a redraw.
    const typed = new Map([...rounds.querySelectorAll("form.quicklog")].map((f) => [`${f.dataset.round}/${f.dataset.table}`, f.elements.totals.value]));
    rounds.replaceChildren(...(t.rounds.length ? [...t.rounds].reverse().map((r) => roundBlock(t, r))
      : [h("p", { class: "muted" }, "No round is paired yet.")]));
    for (const f of rounds.querySelectorAll("form.quicklog")) f.elements.totals.value = typed.get(`${f.dataset.round}/${f.dataset.table}`) || "";
    const btn = $("#pair");
    if (btn) {
      const all = t.rounds.length >= t.rounds_planned;
      btn.disabled = t.status === "finished" || all;
      btn.textContent = t.status === "finished" ? "The tournament is finished" : all ? "Every round is paired" : `Pair round ${t.rounds.length + 1}`;
    }
  };

  fill(main(),
    head,
    token ? h("section", { class: "panel", id: "organiser" },
      h("div", { class: "msg warn" }, "Organiser: this page's address holds your token, shown only once. Bookmark it (or keep the link) to pair rounds and enter results later; share the address without its “&o=…” part."),
      h("label", { for: "public-url" }, "The public page, for the players"),
      h("input", { type: "text", id: "public-url", readonly: true, value: `${location.origin}/#tournament=${id}`, onclick: (e) => e.target.select() }),
      h("button", { id: "pair", onclick: pair, class: "wide mt" }, "Pair next round"),
      msg) : null,
    h("section", { class: "panel", id: "standings" }, h("h2", {}, "Standings"), live.box),
    rounds,
    h("section", { class: "panel", id: "exports" }, h("h2", {}, "Exports"),
      h("div", { class: "open-links" }, EXPORTS.map((f) => h("a", { href: `/v1/tournaments/${id}/export/${f}`, download: `${id}-${f}` }, f)))),
    h("footer", { class: "device", id: "device" },
      h("p", { class: "small muted" }, h("a", { href: "/" }, "New match or tournament"), " · ", h("a", { href: "/docs/" }, "API")),
      token && keptTournaments().some((x) => x.id === id) ? [
        h("p", { class: "small muted" }, "This phone keeps the organiser's link of this tournament."),
        forgetControl({
          id: "forget-tournament", label: "Forget this tournament on this phone…",
          text: "This phone forgets the organiser's link (its token). The tournament goes on; to pair rounds or enter results again you need that link: keep it elsewhere first (a bookmark does).",
          yes: "Forget",
          // The public page: the address without the token, in place of the organiser's.
          onYes: () => { forgetTournament(id); location.replace(`/#tournament=${id}`); },
        })] : null));

  P.watch = watch(`/v1/tournaments/${id}`, draw, {
    token,
    onError: (a) => { if (!P.t) head.replaceChildren(h("div", { class: "msg bad" }, problemText(a))); },
  });
}

// ---------- the start page's form ----------

function field(label, input, attrs = {}) {
  return h("div", attrs, h("label", { for: input.id }, label), input);
}

// The tournaments this phone keeps the organiser's token of, each with Open and Forget.
function keptTournamentsList() {
  const mine = keptTournaments();
  if (!mine.length) return null;
  const list = h("div", { id: "kept-tournaments" }, h("h2", {}, "Tournaments on this phone"),
    mine.map((x) => {
      const row = h("div", { class: "kept", "data-tournament": x.id },
        h("div", { class: "row" }, h("span", { class: "grow" }, x.name),
          h("a", { class: "button secondary", href: organiserUrl(x.id, x.token) }, "Open")),
        forgetControl({
          id: `forget-${x.id}`, label: "Forget…",
          text: "This phone forgets the organiser's link of this tournament. To pair rounds or enter results again you need that link: keep it elsewhere first.",
          yes: "Forget", onYes: () => { forgetTournament(x.id); row.remove(); },
        }));
      return row;
    }));
  return list;
}

// "New tournament": POST /v1/tournaments, then the organiser's page.
export function newTournamentForm(list) {
  const game = h("select", { id: "t-game" }, list.map((g) => h("option", { value: g.id }, g.title)));
  const format = h("select", { id: "t-format" }, Object.entries(FORMATS).map(([v, t]) => h("option", { value: v }, t)));
  const rounds = h("input", { id: "t-rounds", type: "number", min: 1, max: 30, value: 3 });
  const size = h("input", { id: "t-size", type: "number", min: 2, max: 8 });
  const duplicate = h("input", { id: "t-duplicate", type: "checkbox" });
  const dealing = h("select", { id: "t-dealing" }, h("option", { value: "table" }, "Real cards at the tables"), h("option", { value: "service" }, "Clubroom deals"));
  const record = h("select", { id: "t-record" }, h("option", { value: "matches" }, "Every table's match, card by card"), h("option", { value: "totals" }, "Final totals, entered by the organiser"));
  const players = h("textarea", { id: "t-players", rows: 6, placeholder: "Ada\nBen\nCy\nDi" });
  const name = h("input", { id: "t-name", type: "text", maxlength: 100, placeholder: "Club night" });
  const roundsField = field("Rounds", rounds);
  const sync = () => {
    const g = gameInfo(game.value) || list[0];
    if (g) { size.min = g.min_players; size.max = g.max_players; size.value = Math.min(g.max_players, 4); }
    roundsField.hidden = format.value !== "swiss";
  };
  game.addEventListener("change", sync);
  format.addEventListener("change", sync);
  format.value = "swiss";
  sync();
  const submit = async (ev) => {
    ev.preventDefault();
    const body = {
      name: name.value.trim() || name.placeholder, game: game.value, format: format.value, table_size: Number(size.value),
      duplicate: duplicate.checked, dealing: dealing.value, record: record.value,
      players: players.value.split("\n").map((x) => x.trim()).filter(Boolean).map((n) => ({ name: n })),
    };
    if (format.value === "swiss") body.rounds = Number(rounds.value);
    const a = await api("POST", "/v1/tournaments", { body }).catch(offline("creating a tournament"));
    if (!a.ok) { say("#t-msg", "bad", problemText(a)); return; }
    keepTournament(a.json.tournament, a.json.organiser_token);
    location.hash = `tournament=${a.json.tournament.id}&o=${a.json.organiser_token}`;
  };
  return h("section", { class: "panel" }, h("details", { id: "new-tournament" },
    h("summary", {}, h("h2", {}, "New tournament")),
    h("form", { id: "t-form", onsubmit: submit },
      field("Name", name), field("Game", game), field("Format", format), roundsField, field("Players per table", size),
      h("label", { class: "check" }, duplicate, "Duplicate: every table of a round plays the same deals"),
      field("Dealing", dealing), field("Results", record),
      field("Players, one per line (entry order breaks the last ties)", players),
      h("p", { class: "muted small" }, "The next page is the organiser's: its address holds the organiser's token, shown once. Bookmark it."),
      h("div", { id: "t-msg" }),
      h("button", { type: "submit", id: "t-create", class: "wide" }, "Create tournament"))),
  keptTournamentsList());
}
