// Clubroom's table page. A client of the public API only (see /docs): it creates matches, shows
// join links, follows a match live over GET /v1/matches/{id}/stream and records actions with
// POST /v1/matches/{id}/actions. Plain ES module, no build step.
//
// Where a page is: `/` creates a match (or a tournament); `/#m=<id>&t=<token>` is the table as
// that token sees it (the host token, or one seat's); `/#tournament=<id>[&o=<organiser token>]`
// is a tournament (tournament.js). The token stays in the URL fragment, which browsers never
// send to a server.
//
// Offline: an action is first written to a queue in localStorage with an Idempotency-Key made
// when it was queued, then sent in order; a request that fails on the network stays queued and
// is sent again (same key) when the connection is back. The server answers a known key with its
// first answer, so an action that reached it before the connection dropped is never doubled.
//
// What the phone keeps (keep.js): the table page keeps its own token (the host's, or its seat's
// only) and its queue; the seat links of a match created here stay in this tab's session
// storage; "Forget this match" removes all of it.

import { forgetMatch, forgetLinks, forgetNames, keepLinks, keepMatch, keepNames, keptLinks, keptMatches, keptNames, queueKey, queuedCount, roleName, adoptQueue, tidyOldStorage } from "./keep.js";
import { $, api, forgetControl, games, gameInfo, gameTitle, h, linksPage, main, offline, partnerships, problemText, say, setConn, tableUrl } from "./lib.js";
import { newTournamentForm, tournamentPage, tournamentPanel } from "./tournament.js";
import { leaderboardPage, matchPage, playerHref, playerPage } from "./club.js";
import * as pictures from "./games.js";
import * as scoreOnly from "./tally.js";

// ---------- small helpers ----------

function randomKey() {
  // crypto.randomUUID needs a secure context; phones on the LAN use plain http.
  const b = new Uint8Array(16);
  crypto.getRandomValues(b);
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

const SUITS = { S: ["♠", false], H: ["♥", true], D: ["♦", true], C: ["♣", false] };
const RANKS = { T: "10", J: "J", Q: "Q", K: "K", A: "A" };
const isCard = (c) => typeof c === "string" && /^[2-9TJQKA][SHDC]$/.test(c);

function cardFace(code, { tag = "span", cls = "", attrs = {} } = {}) {
  const r = code.slice(0, -1), s = code.slice(-1);
  const [sym, red] = SUITS[s] || ["?", false];
  return h(tag, { class: `card ${red ? "red" : ""} ${cls}`, "data-card": code, ...attrs },
    h("span", { class: "rank" }, RANKS[r] || r), h("span", { class: "suit" }, sym));
}

function suitText(s) {
  const [sym] = SUITS[s] || [s];
  return sym;
}

function cardText(c) {
  if (isCard(c)) return (RANKS[c[0]] || c[0]) + suitText(c[1]);
  return String(c);
}

const SUIT_ORDER = "SHDC", RANK_ORDER = "23456789TJQKA";
function sortCards(cards) {
  return [...cards].sort((a, b) =>
    SUIT_ORDER.indexOf(a[1]) - SUIT_ORDER.indexOf(b[1]) || RANK_ORDER.indexOf(a[0]) - RANK_ORDER.indexOf(b[0]));
}

// A player's name in a line of text: ellipsised when long (style.css `.nm`), whole in `title`.
const nm = (name) => h("span", { class: "nm", title: name }, name);
// Names in a line, comma separated, each ellipsised.
const nmList = (list) => list.flatMap((n, i) => (i ? [", ", nm(n)] : [nm(n)]));

// ---------- games ----------

// A trick game's table (Clubs, Dump, Bonus-Malus, and any other whose model has them): the trick
// on the table and the tricks taken, drawn by one panel. Told by the table's model, not by a list
// of game ids, so that a new trick game is drawn without an edit here.
const isTrickTable = (t) => Array.isArray(t.trick);

// ---------- the create page ----------

async function createPage() {
  setConn("", "");
  const list = await games();
  const state = { game: list[0]?.id, n: 4, dealing: "service", scoresOnly: false };
  const names = ["Ada", "Ben", "Cy", "Di", "Eve", "Fay", "Gus", "Hal"];
  const root = h("div");
  const tournamentForm = newTournamentForm(list);
  main().replaceChildren(root);

  const draw = () => {
    const g = list.find((x) => x.id === state.game) || list[0];
    state.n = Math.min(Math.max(state.n, g.min_players), g.max_players);
    // Score-only play where the game has it (its options list `scores_only`: all six games).
    const scoresOnlyHere = Object.prototype.hasOwnProperty.call(g.default_config || {}, "scores_only");
    if (!scoresOnlyHere) state.scoresOnly = false;
    const sides = partnerships(state.game, state.n);
    const form = h("form", { id: "create", onsubmit: async (ev) => {
      ev.preventDefault();
      const inputs = [...root.querySelectorAll("input[data-seat]")];
      // A seat linked to a registered player (clubPlayers below) sends its id and the registered
      // name exactly (the service refuses any other name for the id: player_name_mismatch).
      const players = inputs.map((i) => (i.dataset.playerId
        ? { name: i.dataset.playerName, player_id: i.dataset.playerId }
        : { name: i.value.trim() || i.placeholder }));
      // The phone keeps only the names a person typed, never an empty seat's placeholder.
      const typed = inputs.map((i) => i.value.trim()).filter(Boolean);
      const a = await api("POST", "/v1/matches", { body: { game: state.game, players, dealing: state.scoresOnly ? "table" : state.dealing, ...(state.scoresOnly ? { config: { scores_only: true } } : {}) } });
      if (!a.ok) { say("#create-msg", "bad", problemText(a)); return; }
      const m = a.json.match;
      keepNames(typed);
      keepMatch({ id: m.id, game: m.game, players: m.players.map((p) => p.name), seat: null, token: a.json.host_token });
      keepLinks(m.id, a.json.seat_tokens);
      linksPage(a.json, null, { onForget: () => forgetLinks(m.id) });
    } },
      h("h1", {}, "New match"),
      h("section", { class: "panel" },
        h("label", { for: "game" }, "Game"),
        h("select", { id: "game", onchange: (e) => { state.game = e.target.value; draw(); } },
          list.map((x) => h("option", { value: x.id, selected: x.id === state.game }, x.title))),
        h("label", {}, "Players"),
        h("div", { class: "choices" },
          Array.from({ length: g.max_players - g.min_players + 1 }, (_, i) => g.min_players + i).map((n) =>
            h("button", { type: "button", class: n === state.n ? "on" : "", "aria-pressed": String(n === state.n), onclick: () => { state.n = n; draw(); } }, String(n)))),
        h("label", {}, "Names, in seat order (clockwise)"),
        sides ? h("p", { class: "muted small" }, "Partners sit opposite: seats 1 & 3 against seats 2 & 4.") : null,
        Array.from({ length: state.n }, (_, s) => h("div", { class: "seat-entry" },
          h("div", { class: "row" },
            h("input", { type: "text", "data-seat": s, placeholder: names[s] || `Player ${s + 1}`, maxlength: 64, "aria-label": `Seat ${s + 1}`, list: "recent-names", autocomplete: "off", oninput: (e) => clubPlayers.typed(e.target) }),
            h("span", { class: "club-badge", "data-badge": s, hidden: true }, "✓ club player"),
            sides ? h("span", { class: "partner" }, `partner of seat ${((s + 2) % 4) + 1}`) : null),
          h("div", { class: "choices chips suggest", "data-suggest": s }))),
        recentNames(draw),
        h("label", {}, "Dealing"),
        h("div", { class: "choices" },
          h("button", { type: "button", id: "dealing-service", "aria-pressed": String(!state.scoresOnly && state.dealing === "service"), class: !state.scoresOnly && state.dealing === "service" ? "on" : "", onclick: () => { state.dealing = "service"; state.scoresOnly = false; draw(); } }, "Clubroom deals"),
          h("button", { type: "button", id: "dealing-table", "aria-pressed": String(!state.scoresOnly && state.dealing === "table"), class: !state.scoresOnly && state.dealing === "table" ? "on" : "", onclick: () => { state.dealing = "table"; state.scoresOnly = false; draw(); } }, "Real cards"),
          // Score-only play (tally.js): real cards, and only each round's result is entered.
          !scoresOnlyHere ? null : h("button", { type: "button", id: "scores-only", "aria-pressed": String(state.scoresOnly), class: state.scoresOnly ? "on" : "", onclick: () => { state.scoresOnly = true; draw(); } }, "Scores only")),
        h("p", { class: "muted small" }, state.scoresOnly
          ? "Real cards, and only the score: the host enters each round's result on a number pad."
          : state.dealing === "service"
            ? "Each phone sees its own hand and plays by tapping cards."
            : "Cards are shuffled at the table; each play is recorded from a card picker."),
        h("div", { id: "create-msg" }),
        h("button", { type: "submit", id: "create-btn", class: "wide" }, "Create match")));
    // keep typed names (and the registered players they are linked to) across redraws
    const old = [...root.querySelectorAll("input[data-seat]")].map((i) => ({ value: i.value, id: i.dataset.playerId, name: i.dataset.playerName }));
    root.replaceChildren(...[form, tournamentForm, keptPanel(draw)].filter(Boolean));
    root.querySelectorAll("input[data-seat]").forEach((i, k) => {
      if (!old[k]) return;
      i.value = old[k].value;
      if (old[k].id) clubPlayers.link(i, { id: old[k].id, name: old[k].name });
    });
  };
  draw();
}

// Registered players (GET /v1/players?q=) offered under each seat's name as it is typed: a tap
// fills the seat with the registered name, exactly, and links the seat to that player (the create
// sends its player_id, so the match counts in the player's history). Editing the name afterwards
// unlinks it. Two players registered under one name are told apart by their ids' first characters.
// Offline, or on an older server, no suggestions appear and the form works as before.
const clubPlayers = {
  timers: new Map(),
  asked: new Map(),
  badge: (input) => document.querySelector(`#create [data-badge="${input.dataset.seat}"]`),
  box: (input) => document.querySelector(`#create [data-suggest="${input.dataset.seat}"]`),
  link(input, p) {
    input.dataset.playerId = p.id;
    input.dataset.playerName = p.name;
    input.value = p.name;
    input.classList.add("linked");
    const b = this.badge(input);
    if (b) { b.hidden = false; b.title = `Registered player ${p.name} (${p.id.slice(0, 6)})`; }
    const box = this.box(input);
    if (box) box.replaceChildren();
  },
  unlink(input) {
    delete input.dataset.playerId;
    delete input.dataset.playerName;
    input.classList.remove("linked");
    const b = this.badge(input);
    if (b) b.hidden = true;
  },
  typed(input) {
    if (input.dataset.playerId && input.value !== input.dataset.playerName) this.unlink(input);
    clearTimeout(this.timers.get(input.dataset.seat));
    const q = input.value.trim();
    const box = this.box(input);
    if (!q || input.dataset.playerId) { if (box) box.replaceChildren(); return; }
    this.timers.set(input.dataset.seat, setTimeout(() => this.suggest(input, q), 200));
  },
  async suggest(input, q) {
    const ticket = {};
    this.asked.set(input.dataset.seat, ticket);
    const a = await api("GET", `/v1/players?limit=6&q=${encodeURIComponent(q.slice(0, 64))}`).catch(() => null);
    // Only the latest question's answer, and only while the seat still reads the same.
    if (this.asked.get(input.dataset.seat) !== ticket || input.value.trim() !== q || input.dataset.playerId) return;
    const box = this.box(input);
    if (!box) return;
    const found = a && a.ok && a.json && Array.isArray(a.json.players) ? a.json.players : [];
    const twice = new Set(found.map((p) => p.name).filter((n, i, all) => all.indexOf(n) !== i));
    box.replaceChildren(...(found.length ? [h("span", { class: "muted small" }, "Club players:")] : []),
      ...found.map((p) => h("button", { type: "button", class: "chip club", "data-player": p.id, title: `${p.name} (registered)`,
        onclick: () => this.link(input, p) }, twice.has(p.name) ? `${p.name} · ${p.id.slice(0, 4)}` : p.name)));
    // On a short screen (a phone held sideways, the keyboard up) the offer can fall below the
    // fold under the input being typed in: bring it into view, moving the page no further.
    const seen = window.visualViewport ? window.visualViewport.height : window.innerHeight;
    if (found.length && box.getBoundingClientRect().bottom > seen) box.scrollIntoView({ block: "nearest" });
  },
};

// page-polish: the names typed on this phone (keep.js), as a datalist for the seat inputs and as
// chips: a tap fills the next empty seat. "Forget names" clears them from the phone.
function recentNames(redraw) {
  const names = keptNames();
  if (!names.length) return null;
  const fill = (name) => {
    const empty = [...document.querySelectorAll("#create input[data-seat]")].find((i) => !i.value.trim());
    if (empty) { clubPlayers.unlink(empty); empty.value = name; empty.focus(); }
  };
  return h("div", { id: "recent" },
    h("datalist", { id: "recent-names" }, names.map((n) => h("option", { value: n }))),
    h("p", { class: "muted small" }, "Names used on this phone (tap to fill the next empty seat):"),
    h("div", { class: "choices chips" }, names.map((n) => h("button", { type: "button", class: "chip", "data-name": n, title: n, onclick: () => fill(n) }, n)),
      h("button", { type: "button", class: "secondary", id: "forget-names", onclick: () => { forgetNames(); redraw(); } }, "Forget names")));
}

// The matches this phone keeps, each with Open and Forget (with its confirmation in place).
function keptPanel(redraw) {
  const mine = keptMatches();
  if (!mine.length) return null;
  return h("section", { class: "panel", id: "kept" }, h("h2", {}, "Matches on this phone"),
    mine.map((m) => {
      const as = m.role === "host" ? "host (scorer)" : `seat ${m.seat + 1}${m.players[m.seat] ? `: ${m.players[m.seat]}` : ""}`;
      const queued = queuedCount(m.id);
      return h("div", { class: "kept", "data-match": m.id, "data-role": m.role },
        h("div", { class: "row" },
          h("span", { class: "grow" }, `${gameTitle(m.game)}: ${(m.players || []).join(", ")}`, h("span", { class: "muted small" }, ` · ${as}`)),
          h("a", { class: "button secondary", href: tableUrl(m.id, m.token) }, "Open")),
        forgetControl({
          id: `forget-${m.id}-${m.role}`, label: "Forget…",
          text: `This phone forgets this match: ${m.role === "host" ? "the host link, with which it records and undoes" : "this seat's link"}${queued ? `, and ${queued} action${queued > 1 ? "s" : ""} not yet sent` : ""}. The match goes on; to come back, open its link again.`,
          yes: "Forget", onYes: () => { forgetMatch(m.id); redraw(); },
        }));
    }));
}

// ---------- the table page ----------

const T = {
  id: null, token: null, view: null, legal: [], es: null, error: null, info: null,
  flushing: false, pending: null, events: new Map(), confirmUndo: null, undone: null,
  tally: {}, legalTally: null, tallyOpen: false,
};

// The queue of this match and role (keep.js): it names no token.
function qkey() { return queueKey(T.id, T.role); }
function queue() { try { return JSON.parse(localStorage.getItem(qkey()) || "[]"); } catch { return []; } }
function saveQueue(q) {
  if (T.forgotten) return; // a send that ends after "Forget" leaves nothing behind
  if (q.length) localStorage.setItem(qkey(), JSON.stringify(q));
  else localStorage.removeItem(qkey());
}

function role() {
  const you = T.view && T.view.you;
  return you && Number.isInteger(you.seat) ? { seat: you.seat } : { host: true };
}

async function tablePage(id, token) {
  Object.assign(T, { id, token, view: null, legal: [], error: null, info: null });
  const a = await api("GET", `/v1/matches/${id}`, { token });
  if (!a.ok) {
    main().replaceChildren(h("div", { class: "msg bad" }, problemText(a)), h("a", { href: "/" }, "Start a new match"));
    return;
  }
  T.view = a.json;
  // A table page with no token of its own is read-only; the host token shows `you: null`.
  T.isHost = !T.view.you;
  const seat = T.isHost ? null : T.view.you.seat;
  T.role = roleName(seat);
  // This phone keeps its own token only: the host's, or this seat's.
  adoptQueue(id, token, T.role);
  keepMatch({ id, game: T.view.game, players: T.view.players.map((p) => p.name), seat, token });
  await adopt(T.view);
  render();
  follow();
  window.addEventListener("online", () => {
    setConn("", "reconnecting…");
    if (T.es && T.es.readyState === EventSource.CLOSED) follow();
    flush();
    refresh();
  });
  window.addEventListener("offline", () => setConn("offline", `offline${queue().length ? ` · ${queue().length} queued` : ""}`));
  T.retry = setInterval(() => { if (queue().length) flush(); }, 3000);
  flush();
}

// "Forget this match": nothing of it stays on this phone, and the page leaves the address that
// holds the token (replaced in the history, not added to it).
function forgetHere() {
  T.forgotten = true;
  clearInterval(T.retry);
  if (T.es) T.es.close();
  T.es = null;
  forgetMatch(T.id);
  location.replace("/");
}

// The seat links kept in this tab, shown again; the page stops following the match meanwhile
// and comes back by reloading.
function showLinks(links) {
  T.paused = true;
  if (T.es) T.es.close();
  T.es = null;
  const v = T.view;
  linksPage({ match: { id: v.id, game: v.game, players: v.players }, host_token: T.token, seat_tokens: links },
    h("button", { class: "secondary", id: "back", onclick: () => location.reload() }, "← Back to the table"),
    { onForget: () => forgetLinks(v.id) });
}

// The log is read first, then the stream opened from the last event held (`last_event_id`), so
// that no event falls between the two: a stream opened beside the read started at the current
// view, and an action recorded after the read but before the stream's start was never held (a
// seat's page then lacked the ended deal's last trick for good, see endedDeal).
function follow() {
  if (T.es) T.es.close();
  T.es = null;
  const turn = (T.followTurn = (T.followTurn || 0) + 1);
  // The log's first read ends in a second drawing of the page; `data-log` says it is done (the
  // browser tests wait for it before they hold an element that drawing would replace).
  loadEvents().then(() => {
    if (turn !== T.followTurn || T.paused || T.forgotten) return; // followed again, or left
    document.body.dataset.log = "loaded";
    render();
    stream(heldTo());
  });
}

// The seq up to which this phone holds every event (0: none; the stream then sends the whole log).
function heldTo() {
  let s = 0;
  while (T.events.has(s + 1)) s++;
  return s;
}

function stream(after) {
  // EventSource cannot set headers: the token goes in the query (see the stream's docs). On its
  // own reconnections it sends `Last-Event-ID`, which the server prefers to `last_event_id`.
  // scores=changed: a view that leaves the score sheet as it was comes as `match_lite`, without
  // it (most actions: a card, a bet), and keeps the sheet drawn from the last `match`.
  const es = new EventSource(`/v1/matches/${T.id}/stream?scores=changed&last_event_id=${after}&token=${encodeURIComponent(T.token)}`);
  T.es = es;
  es.addEventListener("open", () => setConnState());
  // Each event comes before the view it leads to: the view's message draws it.
  es.addEventListener("event", (ev) => { try { noteEvent(JSON.parse(ev.data)); } catch { /* not an event */ } });
  let sheet = null; // the score sheet of this stream's last `match` message
  const onView = async (v) => {
    if (T.view && v.seq <= T.view.seq) { setConnState(); return; } // already drawn
    if (!(await adopt(v))) return; // a newer view was drawn meanwhile
    // A round that has just ended publishes its seed on its deal event, already held here
    // without it: read the log again (the host's Undo depends on it, see closedRound).
    if (T.isHost && v.dealing === "service" && (v.table_to_act || v.status === "finished")) await loadEvents();
    // A deal just ended at a trick table: its last trick is drawn from the log (endedDeal), which
    // needs every event of the deal: read the log again when this phone does not hold all of it up
    // to the view (not only when it lacks the view's own event: a gap below it left a seat's page
    // without the last trick at 844x390 in CI, on a slow machine).
    else if (isTrickTable(v.table || {}) && !(v.table.trick || []).length && heldTo() < v.seq) await loadEvents();
    render();
  };
  es.addEventListener("match", (ev) => { const v = JSON.parse(ev.data); sheet = v.scores; return onView(v); });
  es.addEventListener("match_lite", (ev) => { const v = JSON.parse(ev.data); v.scores = sheet; return onView(v); });
  es.addEventListener("error", () => {
    setConn("offline", navigator.onLine ? "reconnecting…" : "offline");
    // A refused reconnection (503, a restart) closes an EventSource for good: open a new one.
    if (es.readyState === EventSource.CLOSED && T.es === es) setTimeout(() => { if (T.es === es) { follow(); refresh(); } }, 3000);
  });
}

function setConnState() {
  const n = queue().length;
  if (!navigator.onLine) setConn("offline", `offline${n ? ` · ${n} queued` : ""}`);
  else setConn("live", n ? `live · ${n} queued` : "live");
}

async function refresh() {
  try {
    const a = await api("GET", `/v1/matches/${T.id}`, { token: T.token });
    if (a.ok && (!T.view || a.json.seq >= T.view.seq)) {
      await adopt(a.json);
      await loadEvents(); // back from offline: what was missed (the last trick), and published seeds
      render();
    }
  } catch { /* offline */ }
}

// A view and the legal lists fetched for it change together (T.view, T.legal, T.legalTally).
// Setting the view first and fetching its lists after let a redraw in between (a send's, another
// message's) offer the last version's cards under the new version's number, and a slow fetch for
// an older view could overwrite a newer one's lists. Each list answers with the version it was
// read at (its ETag): lists of a later version than `v` mean the match moved on meanwhile, and the
// match is read again (twice at most). A view older than one adopted meanwhile is dropped.
// Returns whether `v` (or the match read again) was adopted.
async function adopt(v, tries = 3) {
  const lists = await legalListsFor(v);
  if (lists.moved && tries > 1) {
    const a = await api("GET", `/v1/matches/${T.id}`, { token: T.token }).catch(() => null);
    if (a && a.ok && a.json.seq > v.seq) return adopt(a.json, tries - 1);
  }
  if (T.view && v.seq < T.view.seq) return false;
  Object.assign(T, { view: v, legal: lists.legal, legalTally: lists.tally });
  return true;
}

// What this phone may tap at view `v`: the table's and the seats' legal lists it may ask for.
async function legalListsFor(v) {
  const legal = [];
  let tally = null, moved = false;
  if (v.status !== "finished") {
    const asks = [];
    if (T.isHost) {
      if (v.table_to_act) asks.push(null);
      // The host records for any seat at a real-card table; in service dealing the hands (and
      // so the seats' legal lists) are private to their seats.
      if (v.dealing === "table") asks.push(...v.to_act);
    } else if (v.to_act.includes(v.you.seat)) {
      asks.push(v.you.seat);
    }
    for (const seat of asks) {
      try {
        const q = seat === null ? "" : `?seat=${seat}`;
        const a = await api("GET", `/v1/matches/${T.id}/legal${q}`, { token: T.token });
        if (a.ok) for (const action of a.json.actions) legal.push({ seat, action });
        if (a.ok && seat === null) tally = a.json.tally || null;
        if (a.ok && a.etag && a.etag !== `"${v.seq}"`) moved = true;
      } catch { /* offline: keep nothing */ }
    }
  }
  return { legal, tally, moved };
}

// Records an action: queued first (with its Idempotency-Key), then sent in order.
function record(seat, action) {
  const q = queue();
  q.push({ key: randomKey(), seat, action, at: Date.now() });
  saveQueue(q);
  T.error = null;
  T.pending = action;
  render();
  flush();
}

async function flush() {
  if (T.flushing) return;
  T.flushing = true;
  try {
    for (;;) {
      const q = queue();
      if (!q.length) break;
      if (!navigator.onLine) break;
      const item = q[0];
      let a;
      try {
        a = await api("POST", `/v1/matches/${T.id}/actions`, {
          token: T.token, body: { seat: item.seat, action: item.action }, headers: { "idempotency-key": item.key },
        });
      } catch {
        break; // the network failed: keep it queued, same key next time
      }
      if (a.status >= 500 && a.status !== 503) break;
      saveQueue(queue().filter((x) => x.key !== item.key));
      if (a.ok) {
        if (a.json && a.json.event) noteEvent(a.json.event);
        if (a.json && a.json.match && (!T.view || a.json.match.seq >= T.view.seq)) await adopt(a.json.match);
      } else {
        T.error = problemText(a, refusalWords());
        // A refusal often means this page was behind: catch up with the match as it stands.
        try {
          const r = await api("GET", `/v1/matches/${T.id}`, { token: T.token });
          if (r.ok && r.json.seq >= T.view.seq) await adopt(r.json);
        } catch { /* offline */ }
      }
    }
  } finally {
    T.flushing = false;
    T.pending = queue().length ? T.pending : null;
    setConnState();
    render();
  }
}

// Undo asks first, naming what it takes back; the question holds only while the match stays at
// the version it was asked about (a new action changes what "the last" is).
function undo() {
  T.confirmUndo = T.view.seq;
  render();
}

async function sendUndo() {
  T.confirmUndo = null;
  const a = await api("POST", `/v1/matches/${T.id}/undo`, { token: T.token, headers: { "idempotency-key": randomKey() } })
    .catch(offline("undo"));
  if (a.ok) {
    noteEvent(a.json.event);
    if (a.json.match.seq >= T.view.seq) await adopt(a.json.match);
    T.error = null;
  } else T.error = problemText(a, refusalWords());
  render();
}

// The log as this phone may see it, by seq (GET /events, then the stream's `event` messages):
// what undo would take back, and what an undo took back.
async function loadEvents() {
  let after = 0;
  try {
    for (;;) {
      const a = await api("GET", `/v1/matches/${T.id}/events?after=${after}&limit=1000`, { token: T.token });
      if (!a.ok) return;
      for (const e of a.json.events) T.events.set(e.seq, e);
      if (a.json.events.length < 1000) return;
      after = a.json.events.at(-1).seq;
    }
  } catch { /* offline: the stream fills it in later */ }
}

function noteEvent(e) {
  if (!e || !Number.isInteger(e.seq)) return;
  const fresh = !T.events.has(e.seq);
  T.events.set(e.seq, e);
  if (e.kind === "undo" && Number.isInteger(e.retracts)) {
    const gone = T.events.get(e.retracts);
    if (gone) gone.retracted_by = e.seq;
    if (fresh && T.view) T.undone = `Host took back ${eventText(gone, T.view)}`;
  } else if (fresh && e.kind === "action") T.undone = null;
}

// The last action still standing, if this phone holds the whole log up to the view.
function lastStanding() {
  const v = T.view;
  if (!v || !T.events.has(v.seq)) return null;
  for (let s = v.seq; s > 0; s--) {
    const e = T.events.get(s);
    if (!e) return null;
    if (e.kind === "action" && !e.retracted_by) return e;
  }
  return null;
}

// "Cat's K♣", "the deal".
function eventText(e, v) {
  if (!e || !e.action) return "the last action";
  const a = e.action;
  const what = a.type === "play" && isCard(a.card) ? cardText(a.card) : a.sealed ? `sealed ${a.type}` : describe(a, v);
  if (e.seat === null || e.seat === undefined) return `the ${what.charAt(0).toLowerCase()}${what.slice(1)}`;
  return `${v.players[e.seat] ? v.players[e.seat].name : `seat ${e.seat + 1}`}'s ${what}`;
}

// The round undo would reopen, when the server would refuse it (422 `round_closed`): service
// dealing publishes a round's shuffle seed once the round is over, and undo may not reopen a round
// whose cards anyone can now re-derive. The log tells it: the standing deal of the last standing
// action's round carries its `seed`. Null when undo is open, or when this phone does not hold the
// log up to the view (then the button stays, and the server answers).
function closedRound(v) {
  if (v.dealing !== "service") return null;
  const last = lastStanding();
  if (!last) return null;
  for (const e of T.events.values()) {
    if (e.kind === "action" && !e.retracted_by && e.round === last.round && e.seed) return last.round;
  }
  return null;
}

// Undo is not offered where the rules refuse it: the button gives way to why.
function hideClosedUndo(v) {
  const btn = $("#undo");
  const round = btn ? closedRound(v) : null;
  if (round === null) return false;
  btn.closest(".row").replaceWith(h("p", { class: "small muted", id: "undo-closed" },
    `Undo is closed: round ${round} is over and its shuffle seed is published, so its cards are known to all.`));
  return true;
}

// The host's question before an undo, under the Undo button.
function undoQuestion(v) {
  const btn = $("#undo");
  if (!btn || T.confirmUndo !== v.seq) return;
  // Undo opens the question (a disclosure: aria-expanded); the answers are plain buttons that
  // each say what they do.
  btn.setAttribute("aria-expanded", "true");
  btn.setAttribute("aria-controls", "undo-confirm");
  const what = eventText(lastStanding(), v);
  btn.closest(".row").after(h("div", { class: "msg warn undo-confirm", id: "undo-confirm", role: "alertdialog", "aria-labelledby": "undo-q" },
    h("p", { id: "undo-q" }, `Take back ${what}?`),
    h("div", { class: "actions" },
      h("button", { type: "button", class: "danger", id: "undo-yes", onclick: sendUndo }, "Yes, take it back"),
      h("button", { type: "button", class: "secondary", id: "undo-keep", onclick: () => { T.confirmUndo = null; render(); $("#undo")?.focus(); } }, "No, keep it"))));
  $("#undo-yes").focus();
}

// ---------- describing actions ----------

function describe(action, v) {
  const words = pictures.describe(action, v);
  if (words) return words; // Members Only, P.M. and By Hook or Crook (games.js)
  switch (action.type) {
    case "deal": {
      const extra = [];
      if (action.trump) extra.push(`trump ${suitText(action.trump)}`);
      if (action.face_up) extra.push(`face up ${action.face_up.join(", ")}`);
      return `Deal${extra.length ? ` (${extra.join(", ")})` : ""}`;
    }
    case "play":
      return `Play ${cardText(action.card)}${action.declare ? ` calling ${action.declare === "C" ? "clubs alone" : suitText(action.declare)}` : ""}`;
    case "stock_top": return `Stock shows ${suitText(action.suit)}`;
    case "tally": {
      const vals = action.points || action.positions || action.markers;
      return vals ? `Tally ${vals.map((x) => (Array.isArray(x) ? x.join("/") : x)).join(", ")}` : "Tally";
    }
    default: return Object.entries(action).map(([k, x]) => (k === "type" ? x : `${k} ${JSON.stringify(x)}`)).join(" ");
  }
}

// ---------- drawing ----------

/** The match's round as its table names it. By Hook or Crook is one game of turns: the header
 * gives its felt's turn (the match's `round` counts the final exhibition as one more turn). The
 * other games deal rounds. */
function roundName(v) {
  if (v.game === "by-hook-or-crook") return `Turn ${(v.table || {}).turn || 0}`;
  return `Round ${v.round}`;
}

function render() {
  const v = T.view;
  if (!v || T.paused || T.forgotten) return;
  const me = role();
  const game = gameInfo(v.game);
  const names = v.players.map((p) => p.name);
  const sheet = v.scores;
  if (T.drawnSeq !== v.seq) { T.path = []; T.drawnSeq = v.seq; T.tally = {}; }
  document.body.dataset.seq = v.seq;
  document.body.dataset.status = v.status;
  const who = me.host ? ["Host (scorer)"] : [nm(names[me.seat]), ` · seat ${me.seat + 1}`];
  // A score-only match has no tricks and no dealing on the page: it says which deal (game, heat)
  // is entered next, and who enters it.
  const so = scoreOnly.scoresOnly(v);
  const next = so ? scoreOnlyNext(v) : null;
  const waiting = v.status === "finished" ? ["The match is over."]
    : so ? [me.host ? `${next}: enter the ${v.game === "members-only" ? "markers" : v.game === "by-hook-or-crook" ? "final positions" : "scores"}` : `${next}: the host enters the scores`]
      : v.table_to_act ? ["The table is to act (the host deals or records)."]
        : v.to_act.length ? ["To act: ", nmList(v.to_act.map((s) => names[s]))] : [];
  const q = queue();
  // What this phone acts with (its hand; the host's pickers, buttons and Undo) sits in a tray
  // fixed at the foot of the screen (beside the table in landscape), so that it is reachable
  // without scrolling; the rest scrolls above it. The hand is the tray's last part: what appears
  // above it (a choice, the actions) grows the tray upwards and never moves the hand.
  const summary = so ? null : dealSummary(v, sheet);
  const table = so ? null : tablePanel(v);
  const actions = actionsPanel(v, me), you = youPanel(v, me);
  // A landscape phone between deals whose tray stands beside the table (the host's Deal and
  // Undo, or a seat's next hand) holding no card picker: the ended deal's last trick goes to the
  // top of the tray, whose height it would otherwise leave empty, and the summary keeps the left,
  // so that totals, last trick and what to do next are all on the screen without scrolling.
  const fills = !!actions && !!actions.querySelector(FILLS_TRAY);
  const trickInTray = !!summary && LANDSCAPE.matches && !!(actions || you) && !!table.querySelector("#ended-trick") && !fills;
  const tray = [trickInTray ? h("div", { class: "tray-table" }, table) : null, actions, you].filter(Boolean);
  const scroll = h("div", { class: "table-scroll", id: "table-scroll" }, ...[
    h("h1", {}, `${game ? game.title : v.game}`, h("span", { class: "muted small" }, " · ", who)),
    h("div", { class: "muted small", id: "status" }, so ? `${v.status === "finished" ? "Scores only" : `${next} · scores only`} · version ${v.seq}`
      : `${roundName(v)} · ${v.dealing === "service" ? "Clubroom deals" : "real cards"} · version ${v.seq}`),
    h("div", { id: "turn", class: `msg ${isMyTurn() ? "ok" : "warn"}` }, isMyTurn() ? ["Your turn. ", waiting] : waiting),
    T.error ? h("div", { class: "msg bad", id: "error", role: "alert" }, T.error) : null,
    queueNote(q, v),
    T.undone ? h("div", { class: "msg ok", id: "undone", role: "status" }, T.undone) : null,
    so ? null : dealEnd(summary, trickInTray ? null : table),
    so ? null : playersPanel(v, me),
    so ? null : secretsPanel(v, me),
    sheetPanel(v, sheet),
    tournamentPanel(v),
    devicePanel(v, me, names),
  ].filter(Boolean));
  // Redrawing replaces the scrolling part: keep where its reader had scrolled to.
  const old = $("#table-scroll");
  const top = old ? old.scrollTop : 0;
  // A tray that holds no hand, picker, pad or list of choices (the host's Undo, a Deal button)
  // needs little width: beside the table in landscape it narrows and the table widens.
  const light = !you && !trickInTray && !!actions && !fills && actions.querySelectorAll("button:not(#undo)").length <= 2;
  main().replaceChildren(h("div", { class: "at-table" }, scroll, tray.length ? h("div", { id: "tray", class: light ? "light" : null }, tray) : null));
  scroll.scrollTop = top;
  boardInSight(v);
  dealEndInSight(v);
  markQueued(q);
  if (!hideClosedUndo(v)) undoQuestion(v);
  announceTurn(v, me);
}

// Between deals the ended deal's summary and the table (its last trick) go together: one above
// the other on a phone held upright, side by side on one held sideways with the whole width (a
// seat between deals has no tray), where stacked they would push the last trick below the fold.
function dealEnd(summary, table) {
  return summary ? h("div", { class: "deal-end" }, summary, table) : table;
}

// What fills the host's actions in the tray: a card picker, the score pad, a step-by-step choice
// (games.js). Such a tray keeps its width and takes nothing more.
const FILLS_TRAY = ".picker-wrap, #tally, .step-head, .toggles";

// A phone held sideways (the CSS's landscape rules, the same media query): the tray stands
// beside the table. Only the ended deal's last trick changes place as the phone turns (render):
// the page is drawn again only when there is one to move, not on every turn (a redraw replaces
// the buttons under a finger).
const LANDSCAPE = matchMedia("(orientation: landscape) and (max-height: 560px)");
LANDSCAPE.addEventListener("change", () => {
  // render's own test (trickInTray), read off the page: a trick to move, a tray to take it,
  // nothing in the tray that fills it.
  const trick = document.querySelector("#ended-trick");
  const tray = document.querySelector("#tray");
  if (trick && tray && !!trick.closest("#tray") !== LANDSCAPE.matches && !tray.querySelector(FILLS_TRAY)) render();
});

// P.M.: the acting seat's board (its men, lit once a card is picked) is where the player looks, so
// it is brought into sight above the tray whenever the match moves on or another card is picked;
// between those the reader may scroll elsewhere (a redraw keeps the place).
function boardInSight(v) {
  const board = document.querySelector(".pm-seat.acting");
  if (!board) return;
  inSight(board, "boardKey", `${v.id}:${v.seq}:${[...board.querySelectorAll("button.lit")].map((b) => b.dataset.from).join(",")}`);
}

// Between deals the ended deal (its summary and last trick) is brought into sight above the tray
// once per version: on a small phone the host's tray (Deal, Undo) would cover the last trick.
function dealEndInSight(v) {
  const end = document.querySelector(".deal-end");
  if (end) inSight(end, "dealEndKey", `${v.id}:${v.seq}`);
}

// Scrolls the table (once per `key`, remembered in T[slot]) the least that shows `el` whole,
// or its top when it is taller than the table's height.
function inSight(el, slot, key) {
  const scroll = $("#table-scroll");
  if (!scroll || T[slot] === key) return;
  T[slot] = key;
  const b = el.getBoundingClientRect(), s = scroll.getBoundingClientRect();
  if (b.top < s.top) scroll.scrollTop += b.top - s.top;
  else if (b.bottom > s.bottom) scroll.scrollTop += Math.min(b.bottom - s.bottom, b.top - s.top);
}

// What a score-only match enters next, in the game's words: "Deal 3" (×3 at Bonus-Malus), "Game 2
// of the rubber (5)" at P.M., "Heat 2" at Members Only, "The final exhibition" at By Hook or Crook
// (one result for the whole game). Counted from the sheet's lines (a score-only match has no deal).
function scoreOnlyNext(v) {
  const n = ((v.scores && v.scores.rounds) || []).length + 1;
  if (v.game === "plus-minus") return `Game ${n} of the rubber (${(v.config || {}).rubber_games ?? 5})`;
  if (v.game === "members-only") return `Heat ${n}`;
  if (v.game === "by-hook-or-crook") return "The final exhibition";
  if (v.game === "bonus-malus") return `Deal ${n} (×${n})`;
  return `Deal ${n}`;
}

// "Your turn" told when this phone becomes to act: a polite live region for screen readers (kept
// outside the redrawn page, so that it is announced on change only), the tab's title for a phone
// looking at another tab, and a short buzz where the browser allows it.
function announceTurn(v, me) {
  let live = document.getElementById("announce");
  if (!live) {
    live = h("div", { id: "announce", class: "sr-only", "aria-live": "polite", role: "status" });
    document.body.append(live);
  }
  const mine = isMyTurn();
  if (mine && !T.wasMyTurn) {
    live.textContent = `Your turn, ${me.host ? "host" : v.players[me.seat].name}`;
    if (typeof navigator.vibrate === "function") {
      try { navigator.vibrate(200); } catch { /* not allowed here: the words and the title say it */ }
    }
  } else if (!mine) live.textContent = "";
  document.title = mine ? "● Your turn — Clubroom" : "Clubroom";
  T.wasMyTurn = mine;
}

// What waits in this phone's queue, in words and cards ("Waiting to send: 7♣ (Ben)"): a tapped
// card shows here, not in the hand, until the server has it.
function queueNote(q, v) {
  if (!q.length) return null;
  const who = (s) => (s === null || s === undefined ? "table" : v.players[s] ? nm(v.players[s].name) : `seat ${s + 1}`);
  const what = (a) => (a.type === "play" && isCard(a.card) ? cardText(a.card) : describe(a, v));
  const cards = q.filter((x) => x.action.type === "play" && isCard(x.action.card));
  return h("div", { class: "msg warn queued", id: "queued", role: "status" },
    cards.length ? h("div", { class: "queued-cards" }, cards.map((x) => cardFace(x.action.card, { cls: "pending" }))) : null,
    h("div", { class: "grow" }, h("div", {}, "Waiting to send: ", q.flatMap((x, i) => [i ? ", " : "", `${what(x.action)} (`, who(x.seat), ")"])),
      h("div", { class: "small muted" }, navigator.onLine ? "Sending…" : "Sent when the connection is back.")));
}

// A card waiting to be sent has left the hand, and the hand cannot be tapped again meanwhile:
// a second tap would only queue a play the server refuses once the first arrives.
function markQueued(q) {
  if (!q.length) return;
  const waiting = new Set(q.map((x) => x.action.card).filter(isCard));
  for (const el of document.querySelectorAll("#hand [data-card], #picker [data-card]")) {
    if (waiting.has(el.dataset.card) && el.closest("#hand")) el.remove();
    else if (el.tagName === "BUTTON") { el.disabled = true; el.classList.add("waiting"); }
  }
}

// The foot of the table page: what this phone keeps of the match, and Forget. Below everything,
// so that it never pushes the hand or the actions down.
function devicePanel(v, me, names) {
  const links = me.host ? keptLinks(v.id) : null;
  const queued = queue().length;
  return h("footer", { class: "device", id: "device" },
    h("p", { class: "small muted" }, h("a", { href: "/" }, "New match"), " · ", h("a", { href: "/docs/" }, "API")),
    h("p", { class: "small muted" }, me.host
      ? `This phone keeps the host link of this match${links ? ", and the seat links while this tab is open" : ""}.`
      : `This phone keeps ${names[me.seat]}'s seat link of this match, and no other.`),
    links ? h("button", { class: "secondary small", id: "show-links", onclick: () => showLinks(links) }, "Seat links") : null,
    forgetControl({
      label: "Forget this match on this phone…",
      text: `This phone forgets this match: ${me.host ? "the host link, with which it records for everyone and undoes" : "your seat's link"}${links ? " and the seat links" : ""}${queued ? `, and ${queued} action${queued > 1 ? "s" : ""} not yet sent` : ""}. The match goes on; to come back, open its link again.`,
      yes: "Forget", onYes: forgetHere,
      open: T.forgetOpen, onToggle: (open) => { T.forgetOpen = open; },
    }));
}

function isMyTurn() {
  const v = T.view;
  if (!v || v.status === "finished") return false;
  if (T.isHost) return v.table_to_act || (v.dealing === "table" && v.to_act.length > 0) || !!tallyForm(v);
  if (scoreOnly.scoresOnly(v)) return false; // the host enters every result
  return v.to_act.includes(v.you.seat);
}

function sideOf(v, seat) {
  const sides = v.scores.sides;
  if (!sides) return null;
  return sides.findIndex((s) => s.includes(seat));
}

function playersPanel(v, me) {
  return h("div", { class: "players", id: "players" }, v.players.map((p) => {
    const side = sideOf(v, p.seat);
    const total = v.scores.unit === "side" ? v.scores.totals[side] : v.scores.totals[p.seat];
    const t = v.table || {};
    const extra = [];
    if (Array.isArray(t.cards_left)) extra.push(`${t.cards_left[p.seat]} cards`);
    if (Array.isArray(t.hand_sizes)) extra.push(`${t.hand_sizes[p.seat]} cards`);
    if (p.seat === v.dealer) extra.push("dealer");
    return h("div", { class: `player ${v.to_act.includes(p.seat) ? "turn" : ""} ${me.seat === p.seat ? "me" : ""}`, "data-seat": p.seat },
      h("div", { class: "name", title: p.name }, p.player_id ? h("a", { href: playerHref(p.player_id), class: "to-player", "data-player": p.player_id }, p.name) : p.name),
      h("div", { class: "meta" }, `seat ${p.seat + 1}${side !== null ? ` · side ${side + 1}` : ""} · ${total ?? 0}${extra.length ? ` · ${extra.join(" · ")}` : ""}`));
  }));
}

function tablePanel(v) {
  const t = v.table || {};
  const names = v.players.map((p) => p.name);
  const drawn = pictures.tableView(v, pictureCtx());
  if (drawn) return drawn;
  if (isTrickTable(t)) {
    const trick = t.trick || [];
    const last = (t.tricks || []).at(-1);
    // Between deals, and after the next deal until its first card, the deal just ended keeps
    // its last trick on the table.
    const ended = !trick.length && !last ? endedDeal(v) : null;
    const leads = t.leader !== undefined && t.leader !== null ? [nm(names[t.leader]), " leads"] : null;
    return h("div", { class: "felt", id: "table" },
      h("div", { class: "row" },
        t.trump !== undefined ? h("span", {}, `Trump: ${t.trump ? suitText(t.trump) : "none"}`) : null,
        t.called_suit ? h("span", {}, `Called: ${suitText(t.called_suit)}`) : null,
        t.stock !== undefined ? h("span", { class: "muted" }, `Stock: ${t.stock}`) : null,
        t.captured ? h("span", { class: "muted" }, `Captured: ${t.captured.join(" / ")}`) : null),
      h("div", { class: "trick", id: "trick" },
        trick.length ? trick.map((p) => h("div", { class: "slot" }, cardFace(p.card), h("div", { class: "nm", title: names[p.seat] }, names[p.seat])))
          : ended ? ended.last.map((p) => h("div", { class: `slot ended${p.seat === ended.winner ? " won" : ""}`, "data-seat": p.seat }, cardFace(p.card), h("div", { class: "nm", title: names[p.seat] }, names[p.seat])))
            : h("span", { class: "muted" }, leads || "No trick on the table")),
      ended ? h("div", { class: "small", id: "ended-trick" }, `Last trick of ${ended.label}, taken by `, nm(names[ended.winner]), leads ? [" · ", leads] : null) : null,
      last && Array.isArray(last.plays) ? h("div", { class: "muted small", id: "last-trick" },
        `Last trick: ${last.plays.map((p) => `${cardText(p.card)} ${names[p.seat]}`).join(", ")}${last.winner !== undefined ? ` → ${names[last.winner]}` : ""}${last.points !== undefined ? ` (${last.points})` : ""}`) : null,
      (t.revokes || []).length ? h("div", { class: "small", id: "revokes" }, `Revokes: ${t.revokes.map((r) => revokeText(r, v)).join("; ")}`) : null);
  }
  return h("div", { class: "felt", id: "table" }, kv(t));
}

// A proven revoke in words: "Ben revoked with 9♥ (shown out of that suit in trick 3)".
function revokeText(r, v) {
  if (typeof r !== "object" || r === null) return String(r);
  const who = Number.isInteger(r.seat) ? (v.players[r.seat] ? v.players[r.seat].name : `seat ${r.seat + 1}`) : "someone";
  return `${who} revoked with ${r.card ? cardText(r.card) : "a card"}${r.shown_out_in_trick ? ` (shown out of that suit in trick ${r.shown_out_in_trick})` : ""}`;
}

// How a refusal names this match's seats and cards (lib.js problemText).
function refusalWords() {
  const v = T.view;
  if (!v) return {};
  return { players: v.players, cardWords: (c) => pictures.cardWords(v.game, c) ?? (isCard(c) ? cardText(c) : String(c)) };
}

// What games.js needs from the table page.
function pictureCtx() {
  return { isHost: T.isHost, legal: T.legal, record, redraw: render };
}

function kv(obj) {
  return h("dl", { class: "kv" }, Object.entries(obj).filter(([k]) => k !== "commitment").map(([k, x]) => [
    h("dt", {}, k.replace(/_/g, " ")), h("dd", {}, typeof x === "object" && x !== null ? JSON.stringify(x) : String(x))]));
}

function youPanel(v, me) {
  if (me.host || !v.you || scoreOnly.scoresOnly(v)) return null;
  if (pictures.drawn(v.game)) return pictures.handView(v, T.legal, pictureCtx());
  // A finished match has nothing left to play: no greyed hand in the tray under the result.
  if (v.status === "finished") return null;
  const you = v.you;
  const hand = you.hand || [];
  // Between deals (the table to deal, no card held) there is nothing to tap: no tray, and the
  // deal's last trick and summary have the whole screen.
  if (v.dealing === "service" && !hand.length && v.table_to_act && !T.legal.length) return null;
  const legalCards = new Map();
  for (const l of T.legal) if (l.action.type === "play" && isCard(l.action.card)) {
    if (!legalCards.has(l.action.card)) legalCards.set(l.action.card, []);
    legalCards.get(l.action.card).push(l);
  }
  // An emptied hand keeps its card grid (and so its height and place) to the deal's end.
  const cards = hand.every(isCard) && (hand.length > 0 || v.dealing === "service");
  // Real cards: the service does not know the hand, so the seat picks the card it played.
  const picker = v.dealing === "table" && legalCards.size
    ? h("div", {}, h("div", { class: "small" }, "Tap the card you played:"),
      suitRows(v, legalCards, (c, ls) => chooseCard(c, ls), { id: "picker" }))
    : null;
  return h("section", { class: "panel", id: "you" },
    picker,
    // The turn is told where the thumb is, too (the line above may be scrolled away).
    h("h2", { class: legalCards.size ? "your-turn" : "" }, legalCards.size ? "Your hand · your turn" : "Your hand"),
    cards ? h("div", { class: "cards", id: "hand" }, sortCards(hand).map((c) => {
      const ls = legalCards.get(c);
      return cardFace(c, { tag: "button", cls: ls ? "legal" : "dim", attrs: { disabled: !ls, onclick: () => chooseCard(c, ls), "aria-label": cardText(c) } });
    }))
      : h("div", { id: "hand" }, hand.map((c) => h("span", { class: "chip" }, String(c)))));
}

// The rest of what only this seat sees: in the scrolling part, out of the tray's way.
function secretsPanel(v, me) {
  if (me.host || !v.you) return null;
  if (pictures.drawn(v.game)) return pictures.secretsView(v);
  return h("details", { class: "panel", id: "secrets" }, h("summary", { class: "small muted" }, "Everything only you see"),
    kv(Object.fromEntries(Object.entries(v.you).filter(([k]) => k !== "hand"))));
}

// The cards of this deal known to be gone: played or recorded in its tricks (taken and on the
// table). A real-card picker greys them out.
function playedCards(v) {
  const t = v.table || {};
  const out = new Set();
  if (!isTrickTable(t)) return out;
  for (const tr of t.tricks || []) for (const p of (tr && tr.plays) || []) if (isCard(p.card)) out.add(p.card);
  for (const p of t.trick || []) if (isCard(p.card)) out.add(p.card);
  return out;
}

// A real-card picker: one row per suit, in rank order, every card in its fixed place. A legal
// card is a button; a card already played is greyed out, and any other is dimmed; neither is a
// button, so nothing but a legal card can be tapped.
function suitRows(v, legalCards, onPick, attrs = {}) {
  const gone = playedCards(v);
  return h("div", { class: "picker rows", ...attrs }, [...SUIT_ORDER].map((s) => h("div", { class: "suit-row", "data-suit": s },
    [...RANK_ORDER].map((r) => {
      const c = r + s, ls = legalCards.get(c);
      if (ls) return cardFace(c, { tag: "button", cls: "legal", attrs: { onclick: () => onPick(c, ls), "aria-label": cardText(c) } });
      return cardFace(c, { cls: gone.has(c) ? "gone" : "dim", attrs: { "aria-disabled": "true", "aria-label": `${cardText(c)}${gone.has(c) ? " (played)" : ""}` } });
    }))));
}

// A card with several legal actions (a club lead naming a suit) asks which one.
function chooseCard(card, options) {
  if (!options || !options.length) return;
  if (options.length === 1) { record(options[0].seat, options[0].action); return; }
  const box = h("div", { class: "msg warn choice", id: "declare" }, h("div", {}, `${cardText(card)}: choose`),
    h("div", { class: "actions" }, options.map((o) => h("button", { "data-declare": o.action.declare || "", onclick: () => { box.remove(); record(o.seat, o.action); } }, describe(o.action, T.view))),
      h("button", { class: "secondary", onclick: () => box.remove() }, "Cancel")));
  $("#you").prepend(box);
}

function actionsPanel(v, me) {
  const names = v.players.map((p) => p.name);
  // Cards a seat plays from its own hand are drawn in the hand; the rest are buttons, and the
  // host's card plays at a real-card table go through a card picker per seat.
  const own = (l) => !me.host && l.action.type === "play" && isCard(l.action.card);
  // Members Only, P.M. and By Hook or Crook choose theirs step by step (games.js).
  // Score-only play: the pad is the only way to record (no deal or move drawn beside it).
  const drawnChoice = scoreOnly.scoresOnly(v) ? null : pictures.chooser(v, T.legal, pictureCtx());
  const rest = T.legal.filter((l) => !own(l) && !pictures.takes(v.game, l.action));
  const pickers = [];
  const buttons = [];
  const bySeat = new Map();
  for (const l of rest) {
    if (me.host && l.action.type === "play" && isCard(l.action.card)) {
      if (!bySeat.has(l.seat)) bySeat.set(l.seat, new Map());
      const m = bySeat.get(l.seat);
      if (!m.has(l.action.card)) m.set(l.action.card, []);
      m.get(l.action.card).push(l);
    } else buttons.push(l);
  }
  // Several seats may play (a real-card lead by whoever holds a card): one picker at a time, for
  // the seat chosen above it, so that the tray stays a thumb's reach high.
  if (!bySeat.has(T.pickSeat)) T.pickSeat = bySeat.keys().next().value;
  if (bySeat.size > 1) {
    pickers.push(h("div", { class: "choices seats", id: "pick-seat" }, [...bySeat.keys()].map((seat) =>
      h("button", { type: "button", class: seat === T.pickSeat ? "on" : "", "aria-pressed": String(seat === T.pickSeat), "data-seat": seat, title: names[seat], onclick: () => { T.pickSeat = seat; render(); } }, h("span", { class: "nm" }, names[seat])))));
  }
  if (bySeat.size) {
    const seat = T.pickSeat;
    pickers.push(h("div", { class: "picker-wrap", "data-seat": seat }, h("div", { class: "small" }, nm(names[seat]), " plays:"),
      suitRows(v, bySeat.get(seat), chooseHostCard)));
  }
  const choose = buttons.length > 12 ? chooser(buttons, v, me) : h("div", { class: "actions" }, buttons.map((l) => actionButton(l, v, me)));
  const undoBtn = me.host && v.seq > 0 ? h("button", { type: "button", class: "secondary", id: "undo", "aria-expanded": "false", onclick: undo }, "Undo last action") : null;
  const tally = me.host ? tallyPanel(v) : null;
  if (tally && scoreOnly.scoresOnly(v)) { pickers.length = 0; choose.replaceChildren(); }
  if (tally) pickers.unshift(tally);
  if (!buttons.length && !pickers.length && !drawnChoice && !undoBtn) return null;
  // Undo stays below what may scroll (a long list of actions), always in sight.
  return h("section", { class: "panel", id: "actions" },
    h("h2", {}, "Actions"),
    h("div", { class: "actions-body" }, pickers, drawnChoice, buttons.length ? choose : null),
    undoBtn ? h("div", { class: "row mt" }, undoBtn) : null);
}

// The score-only pad (tally.js), from the API's `legal.tally` or the page's own descriptor. In
// a score-only match it is the whole of the host's actions; at an ordinary real-card table it is
// offered behind a button while a deal's result may still be tallied (before its first card).
function tallyForm(v) {
  if (!T.isHost || !v || v.status === "finished") return null;
  const last = lastStanding();
  return scoreOnly.descriptor(v, T.legalTally, !!(last && last.action && last.action.type === "deal"));
}

function tallyPanel(v) {
  const d = tallyForm(v);
  if (!d) return null;
  const pad = () => scoreOnly.pad(v, d, T.tally, (action) => { T.tallyOpen = false; record(null, action); });
  if (scoreOnly.scoresOnly(v) || T.tallyOpen) return pad();
  return h("button", { type: "button", class: "secondary", id: "tally-open", onclick: () => { T.tallyOpen = true; render(); } }, "Enter the deal's result instead");
}

function actionButton(l, v, me, label) {
  const names = v.players.map((p) => p.name);
  return h("button", { "data-type": l.action.type, onclick: () => { T.path = []; record(l.seat, l.action); } },
    label || (me.host && l.seat !== null ? `${names[l.seat]}: ` : "") + describe(l.action, v));
}

// Many legal actions are chosen step by step: whose, then what (Members Only, P.M. and By Hook or
// Crook have their own steps, in games.js).
function steps(l, v) {
  const a = l.action;
  const who = T.isHost && l.seat !== null ? [v.players[l.seat].name] : [];
  return [...who, a.type, describe(a, v)];
}

// How many leading steps every action shares (taken at once, with no way back to them).
function sharedSteps(list, v) {
  const all = list.map((l) => steps(l, v));
  let d = 0;
  while (all.every((st) => st.length > d + 1 && st[d] === all[0][d])) d++;
  return d;
}

function chooser(list, v, me) {
  const auto = sharedSteps(list, v);
  const path = T.path || [];
  const here = list.filter((l) => path.every((p, i) => steps(l, v)[i] === p));
  if (!here.length) { T.path = []; return chooser(list, v, me); }
  const depth = path.length;
  const options = new Map();
  for (const l of here) {
    const st = steps(l, v);
    if (!options.has(st[depth])) options.set(st[depth], []);
    options.get(st[depth]).push(l);
  }
  // A step with one way on is taken at once.
  if (options.size === 1 && here.length > 1 && here.some((l) => steps(l, v).length > depth + 1)) {
    T.path = [...path, [...options.keys()][0]];
    return chooser(list, v, me);
  }
  return h("div", { class: "actions", id: "chooser" },
    auto ? h("div", { class: "small" }, `For ${T.path.slice(0, auto).join(" · ")}:`) : null,
    depth > auto ? h("button", { class: "secondary", onclick: () => { T.path = path.slice(0, -1); render(); } }, `← ${path.join(" · ")}`) : null,
    [...options].map(([label, ls]) => (ls.length === 1 && steps(ls[0], v).length === depth + 1
      ? actionButton(ls[0], v, me, label)
      : h("button", { "data-step": label, "data-type": ls[0].action.type, onclick: () => { T.path = [...path, label]; render(); } }, `${label} …`))));
}

function chooseHostCard(card, options) {
  if (options.length === 1) { record(options[0].seat, options[0].action); return; }
  const box = h("div", { class: "msg warn choice", id: "host-choice" }, h("div", {}, `${cardText(card)}: choose`),
    h("div", { class: "actions" }, options.map((o) => h("button", { onclick: () => { box.remove(); record(o.seat, o.action); } }, describe(o.action, T.view))),
      h("button", { class: "secondary", onclick: () => box.remove() }, "Cancel")));
  $("#actions").prepend(box);
}

// The deal that has just ended at a trick table (the sheet's last round), from the log this
// phone holds: its last trick (plays and winner) and the tricks each score column (seat or side)
// took. Only what every phone may see: card plays and tricks won are public (GET /events gives
// them to every token alike). Null while a card of the current deal is on the table or taken, for
// a tallied deal (no plays), or when this phone does not hold the log of that deal.
function endedDeal(v) {
  const t = v.table || {};
  const sheet = v.scores;
  const last = sheet.rounds.at(-1);
  if (!isTrickTable(t) || !last || (t.trick || []).length || (t.tricks || []).length) return null;
  if (last.round !== v.round && last.round !== v.round - 1) return null;
  const events = [];
  for (let s = v.seq; s > 0; s--) {
    const e = T.events.get(s);
    if (!e) return null;
    if (e.round < last.round) break;
    if (e.round === last.round && e.kind === "action" && !e.retracted_by) events.unshift(e);
  }
  const taken = v.players.map(() => 0);
  let plays = [], lastTrick = null, winner = null;
  for (const e of events) {
    if (e.action && e.action.type === "play" && isCard(e.action.card)) plays.push({ seat: e.seat, card: e.action.card });
    for (const o of Array.isArray(e.outcome) ? e.outcome : []) {
      if (o && o.type === "trick" && Number.isInteger(o.winner)) {
        taken[o.winner]++;
        lastTrick = plays; winner = o.winner; plays = [];
      }
    }
  }
  if (!lastTrick) return null;
  const tricks = sheet.unit === "side" && sheet.sides ? sheet.sides.map((side) => side.reduce((n, s) => n + taken[s], 0)) : taken;
  return { round: last.round, label: last.label || `Round ${last.round}`, last: lastTrick, winner, tricks };
}

// page-polish: at a deal's end, the finished deal's points per seat (or side), its multiplier and
// the totals, at the top of the table until the table acts for the next deal (deals it, or records
// its start); at a trick table until the next deal's first card, with the tricks each took.
// Taken from the sheet the view carries (its last round is the deal just finished).
function dealSummary(v, sheet) {
  const last = sheet.rounds[sheet.rounds.length - 1];
  const t = v.table || {};
  const waits = isTrickTable(t) ? !(t.trick || []).length && !(t.tricks || []).length : v.table_to_act;
  if (!last || v.status === "finished" || !waits || (last.round !== v.round && last.round !== v.round - 1)) return null;
  const ended = endedDeal(v);
  const names = v.players.map((p) => p.name);
  const cols = sheet.unit === "side" && sheet.sides ? sheet.sides.map((side) => side.map((s) => names[s]).join(" & ")) : names;
  return h("section", { class: "msg ok deal-summary", id: "deal-summary", role: "status" },
    h("div", {}, h("strong", {}, `${last.label || `Round ${last.round}`} is over`), last.multiplier && last.multiplier !== 1 ? ` · ×${last.multiplier}` : ""),
    h("table", { class: `sheet fit${cols.length > 5 ? " many" : ""}` },
      h("tr", {}, h("th", { class: "label" }, "Points"), cols.map((c) => h("th", { class: "name", title: c }, c))),
      ended ? h("tr", { class: "tricks" }, h("td", {}, "Tricks"), ended.tricks.map((n, i) => h("td", { "data-col": i }, String(n)))) : null,
      h("tr", { class: "round" }, h("td", {}, "Deal"), last.points.map((p, i) => h("td", { "data-col": i }, String(p)))),
      h("tr", { class: "total" }, h("td", {}, "Total"), sheet.totals.map((p) => h("td", {}, String(p))))));
}

function sheetPanel(v, sheet) {
  const names = v.players.map((p) => p.name);
  const cols = sheet.unit === "side" && sheet.sides
    ? sheet.sides.map((side) => side.map((s) => names[s]).join(" & "))
    : names;
  return h("section", { class: "panel", id: "scores" },
    h("h2", {}, "Score sheet"),
    h("table", { class: `sheet fit${cols.length > 5 ? " many" : ""}` },
      h("tr", {}, h("th", { class: "label" }, "Round"), h("th", { class: "mult" }, "×"), cols.map((c) => h("th", { class: "name", title: c }, c))),
      sheet.rounds.map((r) => h("tr", { class: "round" }, h("td", {}, r.label || `Round ${r.round}`), h("td", {}, r.multiplier ?? ""),
        r.points.map((p) => h("td", {}, String(p))))),
      h("tr", { class: "total" }, h("td", {}, "Total"), h("td", {}, ""), sheet.totals.map((p) => h("td", {}, String(p))))),
    sheet.finished ? h("p", { id: "winners" }, `Winner: ${sheet.winners.map((w) => cols[w]).join(", ")}${sheet.margin ? ` by ${sheet.margin}` : ""}`) : null,
    h("p", {}, h("a", { href: `/v1/matches/${v.id}/scores.csv`, download: `clubroom-${v.id}.csv`, id: "csv" }, "Download CSV")));
}

// ---------- start ----------

async function start() {
  tidyOldStorage();
  const p = new URLSearchParams(location.hash.slice(1));
  // Opened offline (from the service worker's copy): the page cannot start without the server;
  // it says so and starts when the connection is back (a queued action waits in localStorage).
  if (!(await games().then(() => true, () => false))) {
    setConn("offline", "offline");
    main().replaceChildren(h("div", { class: "msg warn", id: "offline-start" }, "Offline: this page starts when the connection is back. Actions queued on this phone are kept and sent then."));
    window.addEventListener("online", () => location.reload(), { once: true });
    return;
  }
  if (p.get("player")) await playerPage(p.get("player"));
  else if (p.get("leaderboard")) await leaderboardPage(p.get("leaderboard"));
  else if (p.get("match")) await matchPage(p.get("match"));
  else if (p.get("tournament")) await tournamentPage(p.get("tournament"), p.get("o"));
  else if (p.get("m") && p.get("t")) await tablePage(p.get("m"), p.get("t"));
  else await createPage();
}

window.addEventListener("hashchange", () => location.reload());
start();

// Offline shell and installing (web/sw.js): a service worker runs only in a secure context
// (https, or localhost); a phone on the LAN's plain http has none and loads the page as before.
if ("serviceWorker" in navigator && window.isSecureContext) navigator.serviceWorker.register("/sw.js").catch(() => {});
