// Tournaments on the page (issue 12), a client of the public API only:
// - the "Tournament" panel of a match page played at a tournament table (its live standings);
// - the tournament page `/#tournament=<id>`: rounds, tables, results, live standings, exports;
// - with `&o=<organiser token>` (it stays in the fragment and reaches the server only as a Bearer
//   token): pair the next round, open each table's host and seat pages, enter results by hand;
// - `&p=<player id>`: that player's seat ("Round 2: table 3, seat North"); the public page lists
//   every entrant's seat ("Find your seat");
// - `&screen=1`: the projector view (large type, no controls, live);
// - the start page's "New tournament" form.
// Standings are polled every 5 s with If-None-Match: an unchanged answer is a bodiless 304.
// The phone that creates a tournament keeps its organiser token (keep.js) until "Forget this
// tournament"; the tables' tokens are asked of the server again, never stored.

import { forgetTournament, keepTournament, keptTournaments } from "./keep.js";
import { $, api, fill, forgetControl, games, gameInfo, gameTitle, h, linksPage, main, offline, partnerships, problemText, say, setConn, tableUrl, watch } from "./lib.js";
// A registered player's page (club.js).
const playerHref = (id) => `/#player=${id}`;

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
      .map((x, i) => h("td", { class: i === 1 ? "name" : null }, i === 1 ? nameCell(r, x) : String(x))))))));
}

// A standings row's name: a link to the player's page (club.js) when the row names a registered
// player.
function nameCell(r, name) {
  return r.player_id ? h("a", { href: playerHref(r.player_id), class: "nm to-player", title: String(name) }, String(name))
    : h("span", { class: "nm", title: String(name) }, String(name));
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

// Real-card duplicate: the plays of a table that showed a card its seat was not dealt on the
// board, which only the organiser sees while the round is played (docs/tournaments.md).
function foulsNote(table, tokens) {
  const fouls = (tokens && tokens.fouls) || [];
  if (!fouls.length) return null;
  const size = table.players.length;
  return h("div", { class: "msg bad fouls", role: "note", "data-fouls": fouls.length },
    h("strong", {}, `Fouled board${fouls.length === 1 ? "" : "s"}: `),
    fouls.map((f) => `board ${f.board}, ${f.face_up ? "face-up card" : `seat ${seatName(size, f.seat)}`} ${f.card} (not on the board; event ${f.seq})`).join("; "));
}

// ---------- where to sit ----------

// Seat names (docs/tournaments.md#running-a-club-night): a table of four sits North, East, South,
// West (seat 0 North, clockwise, so that in a partnership game North-South play East-West, seats
// 0 & 2 against 1 & 3); any other table numbers its seats from 1.
const COMPASS = ["North", "East", "South", "West"];
export const seatName = (size, seat) => (size === 4 ? COMPASS[seat] : String(seat + 1));

// Where each entrant sits in `round`: player id -> { table, seat, size } (absent: sitting out).
function seating(round) {
  const at = new Map();
  for (const table of round.tables) {
    for (const p of table.players) if (p.player_id) at.set(p.player_id, { table: table.table, seat: p.seat, size: table.players.length, players: table.players });
  }
  return at;
}

// "Round 2: table 3, seat North" (or "Round 2: sitting out").
function whereText(round, at) {
  return at ? `Round ${round.round}: table ${at.table}, seat ${seatName(at.size, at.seat)}` : `Round ${round.round}: sitting out`;
}

// The public page's "Find your seat": every entrant (by name) with the latest round's table and
// seat, each a link to that player's own view (`&p=<player id>`).
function seatsPanel(t) {
  const round = t.rounds[t.rounds.length - 1];
  if (!round) return null;
  const at = seating(round);
  const byName = [...t.players].sort((a, b) => a.name.localeCompare(b.name));
  return h("section", { class: "panel", id: "seats", "data-round": round.round },
    h("h2", {}, `Find your seat · round ${round.round}`),
    h("ul", { class: "seat-list" }, byName.map((p) => {
      const a = at.get(p.player_id);
      return h("li", { "data-player": p.player_id },
        h("a", { href: `/#tournament=${t.id}&p=${p.player_id}` },
          h("span", { class: "nm" }, p.name),
          h("span", { class: "where" }, a ? `table ${a.table}, seat ${seatName(a.size, a.seat)}` : "sitting out")));
    })));
}

// One player's view (`&p=<player id>`): where they sit now, with whom, and where they sat before.
function playerPanel(t, pid) {
  const me = t.players.find((p) => p.player_id === pid);
  if (!me) return h("section", { class: "panel", id: "my-seat" }, h("div", { class: "msg bad" }, "This tournament has no such player."));
  const rounds = [...t.rounds].reverse();
  const now = rounds[0];
  const at = now ? seating(now).get(pid) : null;
  return h("section", { class: "panel", id: "my-seat", "data-player": pid },
    h("h2", { class: "nm" }, me.name),
    h("p", { class: "where-big", id: "where" }, now ? whereText(now, at) : "Round 1 is not paired yet."),
    at ? h("p", { class: "small", id: "with" }, "With: ", at.players.filter((p) => p.player_id !== pid)
      .map((p) => `${p.name} (${at.size === 4 ? seatName(4, p.seat) : `seat ${p.seat + 1}`})`).join(", ")) : null,
    at && at.size === 4 ? h("p", { class: "small muted" }, "North is the table's seat 1, then clockwise East 2, South 3, West 4 (as its match page numbers them).") : null,
    rounds.length > 1 ? h("ul", { class: "small muted earlier" }, rounds.slice(1).map((r) => h("li", {}, whereText(r, seating(r).get(pid))))) : null,
    h("a", { class: "button secondary wide", href: `/#tournament=${t.id}` }, "Everyone's seats"));
}

// ---------- the result entry: a row per deal ----------

const MAX_POINTS = 1000000;
const sumOf = (xs) => xs.reduce((a, b) => a + b, 0);
const cfg = (t, key, dflt) => (t.config && Number.isInteger(t.config[key]) ? t.config[key] : dflt);

// What a game's quick log takes, checked here as the server checks it (each game's
// `check_entered` in src/rules, the quick log's shape in src/tournaments/quicklog.rs), so that a
// refusal shows while typing; the server checks again and its refusal is shown if it still refuses.
// `deal(k, row)`: the refusal of deal k (1-based), or null. `reached(totals)`: the match is over.
// `fixed`: the number of deals the match has (P.M.'s rubber). `least`: deals the target needs at least.
// `typedTotals`: the final count is not the deals' sums (Members Only's markers): typed in a row of its own.
function entryRules(t) {
  const g = t.game;
  if (g === "clubs") {
    return {
      what: "Deal", target: "a total reaches −100", least: 4, rowSum: true,
      deal: (k, d) => (sumOf(d) !== -26 ? `deal ${k}: the points sum to ${sumOf(d)}; every Clubs deal sums to −26` : null),
      reached: (tot) => tot.some((x) => x <= -100),
      totals: (tot) => (tot.some((x) => x <= -100) ? null : "the match ends after the deal in which a total reaches −100 or below; no total has"),
    };
  }
  if (g === "dump") {
    const target = cfg(t, "target", 100);
    return {
      what: "Deal", target: `a side reaches ${target}`, least: Math.ceil(target / 80),
      deal: (k, d) => {
        const scoring = d.filter((x) => x !== 0);
        return scoring.length > 1 || scoring.some((x) => x < 1 || x > 80)
          ? `deal ${k}: ${d.join(", ")}; in a Dump deal one side at most scores, 1 to 80 (what it took over 80 of 160)` : null;
      },
      reached: (tot) => tot.some((x) => x >= target),
      totals: (tot) => (tot.some((x) => x < 0) ? "Dump totals are never negative"
        : tot.every((x) => x < target) ? `the match ends when a side reaches ${target}; the best total is ${Math.max(...tot)}` : null),
    };
  }
  if (g === "bonus-malus") {
    const target = cfg(t, "target", 155);
    return {
      what: "Deal", target: `a player or side reaches ${target}`, least: 1,
      deal: (k, d) => (d.some((x) => x < 0 || x % (5 * k) !== 0 || x > 195 * k)
        ? `deal ${k}: ${d.join(", ")}; Bonus-Malus deal ${k} scores 0 or a multiple of ${5 * k} up to ${195 * k}`
        : d.length === 2 && d.filter((x) => x > 0).length > 1 ? `deal ${k}: ${d.join(", ")}; with two sides only the one with a plus total scores` : null),
      reached: (tot) => tot.some((x) => x >= target),
      totals: (tot) => (tot.some((x) => x < 0 || x % 5 !== 0) ? "Bonus-Malus totals are sums of multiples of 5, never negative"
        : tot.every((x) => x < target) ? `the match ends when a player or side reaches ${target}; the best total is ${Math.max(...tot)}` : null),
    };
  }
  if (g === "plus-minus") {
    const games = cfg(t, "rubber_games", 5);
    return {
      what: "Game", fixed: games,
      deal: (k, d) => (d.some((x) => x < -80 || x > 200) ? `game ${k}: ${d.join(", ")}; a P.M. game scores −80 to 200 a seat (four men)` : null),
      reached: () => false,
      totals: (tot) => (tot.some((x) => x < -80 * games || x > 200 * games) ? `a P.M. rubber of ${games} games totals ${-80 * games} to ${200 * games} a seat` : null),
    };
  }
  if (g === "members-only") {
    return {
      what: "Heat", typedTotals: true, least: 1,
      deal: (k, d) => (d.some((x) => x < 0 || x > 50) ? `heat ${k}: a heat advances a player's five markers by 0 to 10 each: 0 to 50` : null),
      reached: () => false,
      totals: (tot) => (tot.some((x) => x < 0 || x > 50) ? "a Members Only total is the sum of five markers counting 5 to 10 each (or 0): 0 to 50" : null),
    };
  }
  if (g === "by-hook-or-crook") {
    const neg = (xs) => xs.some((x) => x < 0);
    return {
      what: "Game", least: 1,
      deal: (k, d) => (neg(d) ? `game ${k}: pawns only move forward: no negative numbers` : null),
      reached: () => false,
      totals: (tot) => (neg(tot) ? "pawns only move forward: no negative numbers" : null),
    };
  }
  return { what: "Deal", least: 1, deal: () => null, reached: () => false, totals: () => null };
}

// A number typed in a box: null while empty, NaN when not a whole number.
function typedNumber(input) {
  const s = input.value.trim();
  if (s === "") return null;
  const x = Number(s);
  return Number.isInteger(x) ? x : NaN;
}

// The organiser's entry of one table's result: a row per deal (deals until the target, or the
// rubber's games), one number per seat or side, each row's sum and the running totals shown as
// typed, and what the game refuses listed before sending. `send(body)` sends it (the quick log).
function resultForm(t, round, table, send) {
  const rules = entryRules(t);
  const units = unitNames(t, table);
  const n = units.length;
  const box = h("div", { class: "qmsg" });
  const checks = h("div", { class: "checks", "aria-live": "polite" });
  const rowsEl = h("div", { class: "deal-rows" });
  const totalCells = units.map(() => h("span", { class: "tot" }, "0"));
  const rows = []; // { el, inputs, sum, mark }
  const numberInput = (label, cls) => h("input", { type: "number", step: 1, inputmode: "numeric", class: cls, "aria-label": label, autocomplete: "off" });
  const onlyTotals = !t.duplicate && !rules.typedTotals
    ? h("input", { type: "checkbox", class: "only-totals", "aria-label": "Only the final totals" }) : null;
  const totalsInputs = units.map((u) => numberInput(`Total of ${u}`, "total-in"));
  const totalsRow = h("div", { class: `deal-row totals-in u${n}` }, h("span", { class: "k" }, "Total"), totalsInputs, h("span", { class: "mark" }, ""));
  const addRow = () => {
    const k = rows.length + 1;
    const inputs = units.map((u) => numberInput(`${rules.what} ${k}, ${u}`, "pts"));
    const sum = h("span", { class: "mark" }, "");
    const el = h("div", { class: `deal-row u${n}`, "data-deal": k }, h("span", { class: "k" }, String(k)), inputs, sum);
    rows.push({ el, inputs, mark: sum });
    rowsEl.append(el);
  };
  const values = (r) => r.inputs.map(typedNumber);
  const complete = (v) => v.every((x) => x !== null);
  const blank = (v) => v.every((x) => x === null);

  // What is typed: { body, problems (refusals), notes (not yet complete), totals }.
  const read = () => {
    const problems = [], notes = [];
    if (onlyTotals && onlyTotals.checked) {
      const tot = totalsInputs.map(typedNumber);
      if (tot.some((x) => Number.isNaN(x))) problems.push("type whole numbers");
      else if (!complete(tot)) notes.push(`type the ${n} totals`);
      else if (tot.some((x) => Math.abs(x) > MAX_POINTS)) problems.push(`entered points are −${MAX_POINTS} to ${MAX_POINTS}`);
      else { const p = rules.totals(tot); if (p) problems.push(p); }
      return { problems, notes, totals: tot.map((x) => x || 0), body: { totals: tot } };
    }
    const deals = [];
    let running = units.map(() => 0), ended = 0, gap = 0;
    rows.forEach((r, i) => {
      const v = values(r), k = i + 1;
      r.el.classList.remove("bad", "good");
      r.mark.textContent = "";
      if (blank(v)) { if (!gap) gap = k; return; }
      if (v.some((x) => Number.isNaN(x))) { problems.push(`${rules.what.toLowerCase()} ${k}: type whole numbers`); r.el.classList.add("bad"); return; }
      if (!complete(v)) { notes.push(`${rules.what.toLowerCase()} ${k} needs a number in each box`); return; }
      if (gap) problems.push(`${rules.what.toLowerCase()} ${gap} is empty: fill it or clear the deals after it`);
      gap = 0;
      if (ended) problems.push(`${rules.what.toLowerCase()} ${k}: the match ended after ${rules.what.toLowerCase()} ${ended} (it ends when ${rules.target})`);
      const p = v.some((x) => Math.abs(x) > MAX_POINTS) ? `${rules.what.toLowerCase()} ${k}: entered points are −${MAX_POINTS} to ${MAX_POINTS}` : rules.deal(k, v);
      if (p) problems.push(p);
      r.el.classList.add(p ? "bad" : "good");
      r.mark.textContent = rules.rowSum ? String(sumOf(v)) : p ? "✗" : "✓";
      running = running.map((x, u) => x + v[u]);
      deals.push(v);
      if (!ended && rules.reached(running)) ended = k;
    });
    if (rules.fixed && deals.length > rules.fixed) problems.push(`${deals.length} games entered; the rubber is ${rules.fixed} games`);
    const body = { deals };
    if (rules.typedTotals) {
      const tot = totalsInputs.map(typedNumber);
      if (tot.some((x) => Number.isNaN(x))) problems.push("totals: type whole numbers");
      else if (!complete(tot)) notes.push(`type the ${n} final totals`);
      else { const p = rules.totals(tot); if (p) problems.push(p); body.totals = tot; }
      if (!deals.length) delete body.deals;
      if (t.duplicate && !deals.length) notes.push("duplicate play compares tables heat by heat: enter every heat");
    } else if (!deals.length) notes.push(`type the points of ${rules.what.toLowerCase()} 1`);
    else {
      if (running.some((x) => Math.abs(x) > MAX_POINTS)) problems.push(`the deals sum to more than ${MAX_POINTS} either way`);
      if (rules.fixed && deals.length < rules.fixed) notes.push(`${rules.fixed - deals.length} more game${rules.fixed - deals.length === 1 ? "" : "s"} to the end of the rubber`);
      else if (!rules.fixed && rules.target && !ended) notes.push(`not finished: the match goes on until ${rules.target}`);
      else if (!problems.length) { const p = rules.totals(running); if (p) problems.push(p); }
    }
    return { problems, notes, totals: running, body, ended };
  };

  // Lays out the rows (as many as the match can still have), and shows the sums and checks.
  const update = () => {
    if (onlyTotals) { rowsEl.hidden = onlyTotals.checked; totalsRow.hidden = !onlyTotals.checked; }
    let r = read();
    if (!(onlyTotals && onlyTotals.checked)) {
      const want = rules.fixed || Math.max(rules.least || 1, r.ended || 0, (() => {
        // One empty row after the last one typed, while the target is not reached.
        let last = 0;
        rows.forEach((x, i) => { if (!blank(values(x))) last = i + 1; });
        return r.ended ? last : last + 1;
      })());
      while (rows.length < want) addRow();
      while (rows.length > want && blank(values(rows[rows.length - 1]))) rows.pop().el.remove();
      r = read();
    }
    totalCells.forEach((c, u) => { c.textContent = String(r.totals[u]); });
    fill(checks,
      r.problems.length ? h("div", { class: "msg bad refusal" }, h("strong", {}, "Not possible: "), r.problems.join("; "), ".") : null,
      !r.problems.length && r.notes.length ? h("div", { class: "small muted note" }, r.notes.join("; "), ".") : null,
      !r.problems.length && !r.notes.length ? h("div", { class: "small ok-note" }, "Ready to save.") : null);
    return r;
  };

  const form = h("form", { class: "quicklog rows", "data-round": round.round, "data-table": table.table, novalidate: true,
    oninput: () => { say(box, "", ""); update(); },
    onsubmit: async (ev) => {
      ev.preventDefault();
      const r = update();
      if (r.problems.length || r.notes.length) {
        say(box, "bad", `Not sent: ${[...r.problems, ...r.notes].join("; ")}.`);
        return;
      }
      const ok = await send(r.body, box);
      if (ok) {
        for (const x of [...rows.flatMap((q) => q.inputs), ...totalsInputs]) x.value = "";
        update();
      }
    } },
    h("div", { class: `deal-row head u${n}` }, h("span", { class: "k" }, rules.what === "Deal" ? "#" : rules.what[0]),
      units.map((u) => h("span", { class: "nm", title: u }, u)), h("span", { class: "mark" }, rules.rowSum ? "Σ" : "")),
    rowsEl,
    rules.typedTotals || onlyTotals ? totalsRow : null,
    h("div", { class: `deal-row sums u${n}` }, h("span", { class: "k" }, "Σ"), totalCells, h("span", { class: "mark" }, "")),
    onlyTotals ? h("label", { class: "check small" }, onlyTotals, "Only the final totals (no deals)") : null,
    checks,
    h("button", { type: "submit", class: "wide" }, `Save table ${table.table}`),
    box);
  form.dataset.units = n;
  update();
  return form;
}

// The organiser's club-night controls (Swiss, in progress; docs/tournaments.md#running-a-club-night):
// a late entrant (before the next round is paired; the rounds missed score nothing, or count as
// byes), and each entrant's withdrawal or reinstatement. Each change goes to the server at once;
// its refusal (a table of the round in play without a result, too few left to pair) is shown as
// the server words it.
function entrantsPanel(t, act) {
  if (t.format !== "swiss" || t.status === "finished") return null;
  const box = h("div", { class: "qmsg", id: "entrants-msg", "aria-live": "polite" });
  const gone = new Set(t.withdrawn || []);
  const name = h("input", { type: "text", id: "late-name", autocomplete: "off", maxlength: 80, "aria-label": "The late entrant's name" });
  const missed = h("select", { id: "late-missed", "aria-label": "The rounds already paired score" },
    h("option", { value: "zero" }, "missed rounds: 0"),
    h("option", { value: "bye" }, "missed rounds: byes"));
  const add = async (e) => {
    e.preventDefault();
    if (!name.value.trim()) { say(box, "bad", "Type the late entrant's name first."); return; }
    if (await act("POST", "entrants", { name: name.value.trim(), missed_rounds: missed.value }, box, `${name.value.trim()} is entered.`)) name.value = "";
  };
  const sorted = [...t.players].sort((a, b) => a.name.localeCompare(b.name));
  return h("section", { class: "panel" }, h("details", { id: "entrants" },
    h("summary", {}, h("strong", {}, `Entrants: ${t.players.length - gone.size} playing${gone.size ? `, ${gone.size} withdrawn` : ""}`)),
    h("p", { class: "small muted" }, "A late entry joins from the next round paired; a withdrawn player is not paired again and keeps their results."),
    h("form", { id: "late-entry", class: "row wrap", onsubmit: add, novalidate: true },
      h("label", { for: "late-name", class: "small" }, "Late entry"), name, missed,
      h("button", { type: "submit", class: "secondary" }, "Enter")),
    box,
    h("ul", { class: "results entrants" }, sorted.map((p) => {
      const out = gone.has(p.player_id);
      return h("li", { "data-player": p.player_id, "data-withdrawn": out ? "yes" : "no" },
        h("span", { class: "grow" }, p.name, out ? h("span", { class: "muted small" }, " · withdrawn") : null),
        h("button", { type: "button", class: out ? "secondary small" : "danger small", "data-entrant": out ? "reinstate" : "withdraw",
          onclick: () => act("POST", `entrants/${p.player_id}/${out ? "reinstate" : "withdraw"}`, null, box,
            out ? `${p.name} is back from the next round.` : `${p.name} is withdrawn: not paired again, results kept.`) },
          out ? "Reinstate" : "Withdraw"));
    }))));
}

export async function tournamentPage(id, token) {
  setConn("", "");
  await games();
  const q = new URLSearchParams(location.hash.slice(1));
  if (q.get("screen") === "1") { tournamentScreen(id); return; }
  const player = q.get("p");
  const P = { t: null, tokens: new Map(), forms: new Map(), drawn: 0 };
  const live = liveStandings(id, () => [player]);
  const seats = h("div", { id: "seats-box" });
  const head = h("div", { id: "tournament-head" }, h("p", { class: "muted" }, "Loading…"));
  const rounds = h("div", { id: "rounds" });
  const msg = h("div", { id: "pair-msg" });
  const refreshAll = () => { live.now(); P.watch.now(); };
  const entrants = h("div", { id: "entrants-box" });
  // An organiser's change to the field: true once the server took it.
  const act = async (method, path, body, box, done) => {
    say(box, "", "");
    const a = await api(method, `/v1/tournaments/${id}/${path}`, { token, body }).catch(offline("the change"));
    // The panel may have been drawn again while the change was on its way (the tournament's poll
    // saw it first): the answer goes to the box on the page now, not to the one tapped under.
    const to = box.isConnected || !box.id ? box : document.getElementById(box.id) || box;
    if (!a.ok) { say(to, "bad", problemText(a)); return false; }
    refreshAll();
    say(to, "ok", done);
    return true;
  };

  const pair = async () => {
    say(msg, "", "");
    const a = await api("POST", `/v1/tournaments/${id}/rounds`, { token }).catch(offline("pairing"));
    if (!a.ok) { say(msg, "bad", problemText(a)); return; }
    P.tokens.set(a.json.round, a.json.tokens);
    say(msg, "ok", `Round ${a.json.round} is paired.`);
    refreshAll();
  };

  // Sends a table's result (the quick log); true once it is saved. A table whose match is still
  // being played asks first: a result by hand closes the match for good.
  const send = (round, table) => async (body, box) => {
    const a = await api("PUT", `/v1/tournaments/${id}/rounds/${round}/tables/${table}/result`, { token, body })
      .catch(offline("the result"));
    if (!a.ok && a.status === 409 && a.json && a.json.code === "match_in_progress") {
      box.replaceChildren(
        h("div", { class: "msg warn" }, "This table's match is still being played. Saving a result by hand closes the match for good: nothing more can be recorded there."),
        h("div", { class: "row" },
          h("button", { type: "button", class: "danger", onclick: () => send(round, table)({ ...body, abandon_match: true }, box) }, "Close the match and save"),
          h("button", { type: "button", class: "secondary", onclick: () => box.replaceChildren() }, "Keep playing")));
      return false;
    }
    if (!a.ok) { say(box, "bad", `Refused by the server: ${problemText(a)}`); return false; }
    say(box, "ok", "Saved.");
    refreshAll();
    return true;
  };

  // One entry form per table for the page's life (kept across redraws with what is typed in it).
  const quickLog = (t, round, table) => {
    const key = `${round.round}/${table.table}`;
    if (!P.forms.has(key)) {
      const form = resultForm(t, round, table, send(round.round, table.table));
      P.forms.set(key, t.record === "totals" ? form
        : h("details", {}, h("summary", { class: "small muted" }, "The match cannot be finished: enter its result"), form));
    }
    return P.forms.get(key);
  };

  const tableBlock = (t, round, table) => h("div", { class: "tbl", "data-table": table.table },
    h("div", {}, h("strong", {}, `Table ${table.table}: `), table.players.map((p) => p.name).join(" · ")),
    table.result ? resultTable(t, table) : h("div", { class: "small muted" },
      // Duplicate play: a finished table's result shows once every table of the round is done.
      table.finished ? "Finished: the result shows once every table of the round has finished."
        : t.record === "matches" ? "Playing…" : "No result yet."),
    token ? openLinks(t, table, tokensOf(round, table)) : null,
    token ? foulsNote(table, tokensOf(round, table)) : null,
    token && !table.finished ? quickLog(t, round, table) : null);
  const tokensOf = (round, table) => (P.tokens.get(round.round) || []).find((x) => x.table === table.table);

  const roundBlock = (t, round) => h("section", { class: "panel round", "data-round": round.round },
    h("h2", {}, `Round ${round.round}`, h("span", { class: "muted small" }, round.complete ? " · complete" : " · in play")),
    round.byes.length ? h("p", { class: "small" }, `Sitting out: ${round.byes.map((b) => b.name).join(", ")}`) : null,
    round.tables.map((table) => tableBlock(t, round, table)));

  const draw = async (t) => {
    const mine = ++P.drawn;
    if (token) {
      for (const r of t.rounds) {
        // A round in play is asked again at each drawing: its fouls (real-card duplicate) grow.
        if (P.tokens.has(r.round) && r.complete) continue;
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
    rounds.replaceChildren(...(t.rounds.length ? [...t.rounds].reverse().map((r) => roundBlock(t, r))
      : [h("p", { class: "muted" }, "No round is paired yet.")]));
    fill(seats, player ? playerPanel(t, player) : seatsPanel(t));
    if (token) {
      // Redrawn with the tournament, but kept open (and its message kept) while in use.
      const open = $("#entrants")?.open;
      const said = $("#entrants-msg")?.cloneNode(true);
      const typed = $("#late-name")?.value, missed = $("#late-missed")?.value;
      const typing = document.activeElement && document.activeElement.id === "late-name";
      fill(entrants, entrantsPanel(t, act));
      if (open && $("#entrants")) $("#entrants").open = true;
      // (The new box keeps its place: the new panel's buttons write to it.)
      if (said && $("#entrants-msg")) { $("#entrants-msg").className = said.className; $("#entrants-msg").replaceChildren(...said.childNodes); }
      if (typed && $("#late-name")) $("#late-name").value = typed;
      if (missed && $("#late-missed")) $("#late-missed").value = missed;
      if (typing && $("#late-name")) $("#late-name").focus();
    }
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
    token ? entrants : null,
    token ? null : seats,
    h("section", { class: "panel", id: "standings" },
      h("div", { class: "row" }, h("h2", { class: "grow" }, "Standings"),
        h("a", { class: "button secondary small", id: "projector", href: `/#tournament=${id}&screen=1`, target: "_blank" }, "Projector view")),
      live.box),
    token ? seats : null,
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

// ---------- the projector view ----------

// `/#tournament=<id>&screen=1`: for a projector or a big screen at the club. Large type, high
// contrast, no controls: the current round's tables (who sits where) and the standings, kept
// current by the same polling as the page. Up to 16 standings rows a column, up to two columns
// beside the tables (32 players on one screen: eight tables of four); beyond, the standings and
// the tables turn pages every 12 s.
const SCREEN_ROWS = 16, SCREEN_COLS = 2, SCREEN_PAGE_MS = 12000;

function tournamentScreen(id) {
  document.body.classList.add("screen");
  const head = h("div", { class: "screen-head" });
  const tables = h("section", { class: "screen-tables", id: "screen-tables" });
  const standings = h("section", { class: "screen-standings", id: "screen-standings" });
  fill(main(), head, h("div", { class: "screen-grid" }, standings, tables));
  const S = { t: null, st: null, page: 0 };
  const drawTables = () => {
    const t = S.t;
    if (!t) return;
    const round = t.rounds[t.rounds.length - 1];
    document.title = `${t.name} · Clubroom`;
    fill(head, h("h1", {}, t.name),
      h("span", { class: "screen-round" }, round ? `Round ${round.round} of ${t.rounds_planned}${round.complete ? " · complete" : ""}` : "Not paired yet"),
      t.status === "finished" ? h("span", { class: "screen-round" }, "Final standings") : null);
    if (!round) { fill(tables); return; }
    // As many tables a page as fit the height of 16 lines (two seats a line); beyond, the
    // tables turn pages with the standings.
    const lines = Math.ceil(t.table_size / 2);
    const per = Math.min(14, Math.floor(SCREEN_ROWS / lines));
    const pages = Math.ceil(round.tables.length / per);
    const page = S.page % pages;
    fill(tables, h("h2", {}, `Round ${round.round}: where to sit`, pages > 1 ? h("span", { class: "screen-page" }, ` · ${page + 1}/${pages}`) : null),
      h("div", { class: "screen-table-list" }, round.tables.slice(page * per, (page + 1) * per).map((tb) => h("div", { class: `screen-table${tb.finished ? " done" : ""}`, "data-table": tb.table },
        h("div", { class: "tno" }, String(tb.table)),
        h("div", { class: `tseats n${tb.players.length}` }, tb.players.map((p) => h("div", { class: "tseat", "data-player": p.player_id },
          h("span", { class: "sn" }, tb.players.length === 4 ? seatName(4, p.seat)[0] : String(p.seat + 1)), h("span", { class: "nm" }, p.name)))),
        h("div", { class: "tstate" }, tb.finished ? "✓" : "")))),
      round.byes.length ? h("p", { class: "screen-byes" }, `Sitting out: ${round.byes.map((b) => b.name).join(", ")}`) : null);
  };
  const drawStandings = () => {
    const st = S.st;
    if (!st) return;
    // A small field (up to 10 rows) in larger type still.
    document.body.classList.toggle("roomy", st.rows.length <= 10);
    const per = SCREEN_ROWS * SCREEN_COLS;
    const pages = Math.max(1, Math.ceil(st.rows.length / per));
    const page = S.page % pages;
    const rows = st.rows.slice(page * per, (page + 1) * per);
    const cols = [];
    for (let i = 0; i < rows.length; i += SCREEN_ROWS) cols.push(rows.slice(i, i + SCREEN_ROWS));
    fill(standings, h("h2", {}, "Standings", pages > 1 ? h("span", { class: "screen-page" }, ` · ${page + 1}/${pages}`) : null),
      h("div", { class: `screen-cols c${cols.length}` }, cols.map((c) => h("table", { class: "screen-st" },
        h("colgroup", {}, ["rank", "name", "mp", "pct", "wins"].map((x) => h("col", { class: `col-${x}` }))),
        h("thead", {}, h("tr", {}, ["#", "Name", "MP", "%", "W"].map((x) => h("th", {}, x)))),
        h("tbody", {}, c.map((r) => h("tr", { "data-player": r.player_id, "data-matchpoints": r.matchpoints },
          h("td", {}, String(r.rank)), h("td", { class: "nm" }, r.name), h("td", {}, String(r.matchpoints)),
          h("td", {}, fixed(r.percentage, 1)), h("td", {}, String(r.wins)))))))));
  };
  watch(`/v1/tournaments/${id}`, (t) => { S.t = t; drawTables(); },
    { onError: (a) => fill(head, h("div", { class: "msg bad" }, problemText(a))) });
  watch(`/v1/tournaments/${id}/standings`, (st) => { S.st = st; drawStandings(); });
  // More than a screen holds: the pages turn every SCREEN_PAGE_MS.
  setInterval(() => { if (document.querySelector(".screen-page")) { S.page++; drawStandings(); drawTables(); } }, SCREEN_PAGE_MS);
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
