// The games in words and pictures: how the table page draws Members Only, P.M. and By Hook or
// Crook (their boards, pieces and cards) and tells their actions in words. Plain ES module, used
// by app.js through a few hooks:
//
// - tableView(v, ctx): the felt (#table) of one of these games, or null for any other game;
// - chooser(v, legal, ctx): the acting part (#chooser) for the legal actions this module takes
//   (`takes`), chosen step by step, every step with a way back; null when none;
// - handView(v, legal, ctx) / secretsView(v): what a seat sees of its own (#you and the details);
// - describe(action, v): an action in words; cardWords(game, card): a card in words.
//
// Every choice comes from the API's `legal` list, filtered by the steps already taken, so that
// nothing illegal can be chosen. `ctx` is { isHost, names, record(seat, action), redraw() }.

import { h } from "./lib.js";

export const GAMES = ["members-only", "plus-minus", "by-hook-or-crook"];
export const drawn = (game) => GAMES.includes(game);

// ---------- the steps taken so far (forgotten when the match moves on) ----------

const S = { key: null, picks: [] };
function picks(v) {
  const key = `${v.id}:${v.seq}`;
  if (S.key !== key) { S.key = key; S.picks = []; }
  return S.picks;
}
function pick(ctx, p) { S.picks.push(p); ctx.redraw(); }
function back(ctx) { S.picks.pop(); ctx.redraw(); }
const seatName = (v, s) => (v.players[s] ? v.players[s].name : `Seat ${s + 1}`);
/** "Cat (seat 3)". */
export const seatLabel = (v, s) => `${seatName(v, s)} (seat ${s + 1})`;
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const uniq = (xs) => { const out = []; for (const x of xs) if (!out.some((y) => same(x, y))) out.push(x); return out; };
const svgNS = "http://www.w3.org/2000/svg";
function svg(parts, cls = "pic") {
  const el = document.createElementNS(svgNS, "svg");
  el.setAttribute("viewBox", "0 0 20 20");
  el.setAttribute("class", cls);
  el.setAttribute("aria-hidden", "true");
  for (const [tag, attrs] of parts) {
    const p = document.createElementNS(svgNS, tag);
    for (const [k, x] of Object.entries(attrs)) p.setAttribute(k, x);
    el.append(p);
  }
  return el;
}

// ---------- Members Only ----------

const CATS = ["umbrella", "crown", "teacup", "big_ben", "hat"];
const CAT_NAME = { umbrella: "Umbrella", crown: "Crown", teacup: "Teacup", big_ben: "Big Ben", hat: "Hat" };
const F = { fill: "currentColor" };
const S2 = { fill: "none", stroke: "currentColor", "stroke-width": "1.8", "stroke-linecap": "round" };
const CAT_PIC = {
  umbrella: [["path", { d: "M2 10 A8 8 0 0 1 18 10 Z", ...F }], ["path", { d: "M10 10 V16 a2 2 0 0 1 -4 0", ...S2 }]],
  crown: [["polygon", { points: "2,14 2,5 6,9 10,3 14,9 18,5 18,14", ...F }], ["rect", { x: 2, y: 15, width: 16, height: 2.5, ...F }]],
  teacup: [["path", { d: "M3 7 H14 V10 A5.5 5.5 0 0 1 3 10 Z", ...F }], ["path", { d: "M14 8 a2.5 2.5 0 0 1 0 5", ...S2 }], ["path", { d: "M2 18 H16", ...S2 }]],
  big_ben: [["polygon", { points: "7,6 10,1 13,6", ...F }], ["rect", { x: 7, y: 6, width: 6, height: 13, ...F }], ["circle", { cx: 10, cy: 9.5, r: 2, fill: "#fff" }]],
  hat: [["rect", { x: 6, y: 3, width: 8, height: 11, rx: 1, ...F }], ["rect", { x: 2, y: 14, width: 16, height: 3, rx: 1.5, ...F }]],
};
const catPic = (c) => svg(CAT_PIC[c] || []);
const isNo = (card) => String(card).endsWith(":no");
const catOf = (card) => String(card).replace(/:no$/, "");
/** "Big Ben", "NO! hat". */
export function moCard(card) {
  const c = catOf(card);
  const name = CAT_NAME[c] || c;
  return isNo(card) ? `NO! ${name.toLowerCase()}` : name;
}
const SPACES = { le1: "1 or fewer", le2: "2 or fewer", le3: "3 or fewer", le4: "4 or fewer", ge5: "5 or more", ge6: "6 or more", ge7: "7 or more", ge8: "8 or more" };
const SPACE_POINTS = { le1: 5, le2: 3, le3: 2, le4: 1, ge5: 1, ge6: 2, ge7: 3, ge8: 5 };
const SPACE_SHORT = { le1: "≤ 1", le2: "≤ 2", le3: "≤ 3", le4: "≤ 4", ge5: "≥ 5", ge6: "≥ 6", ge7: "≥ 7", ge8: "≥ 8" };

// A Members Only card drawn: its picture and its name (a NO! card crossed in red).
function moFace(card, { tag = "span", cls = "", attrs = {} } = {}) {
  return h(tag, { class: `mo-card ${isNo(card) ? "no" : ""} ${cls}`, "data-mo": card, "aria-label": moCard(card), ...attrs },
    catPic(catOf(card)), h("span", { class: "mo-name" }, isNo(card) ? `NO! ${CAT_NAME[catOf(card)]}` : CAT_NAME[catOf(card)]));
}

function betWords(b, v, { who = true } = {}) {
  const piece = b.piece === "double" ? "double" : "single";
  const pts = `${b.points ?? SPACE_POINTS[b.space]} pts`;
  return `${who && b.seat !== undefined ? `${seatName(v, b.seat)}: ` : ""}${piece} on ${CAT_NAME[b.category]} ${SPACE_SHORT[b.space]} (${pts}${b.risk ? ", on risk" : ""})`;
}

const MO_PHASE = { awaiting_deal: "waiting for the deal", betting: "betting", final: "end of the heat: each discards one and reveals two", finished: "the game is over" };

function moTable(v) {
  const t = v.table || {};
  const layout = t.layout || {};
  const head = [`Heat ${t.heat}`];
  if (t.betting_round) head.push(`betting round ${t.betting_round}`);
  head.push(MO_PHASE[t.phase] || "");
  return h("div", { class: "felt mo", id: "table" },
    h("div", {}, head.filter(Boolean).join(" · ")),
    (t.face_up || []).length ? h("div", { class: "mo-row" }, h("span", { class: "small" }, "Turned up: "), t.face_up.map((c) => moFace(c, { cls: "mini" }))) : null,
    h("table", { class: "tracks mo-tracks" },
      h("tr", {}, h("th", {}, ""), CATS.map((c) => h("th", { title: CAT_NAME[c] }, catPic(c), h("div", { class: "cat-name" }, CAT_NAME[c])))),
      h("tr", { class: "layout" }, h("td", { class: "who" }, "Layout"), CATS.map((c) => {
        const l = layout[c] || { count: 0, no: 0 };
        return h("td", {}, h("b", {}, String(l.count ?? 0)), l.no ? h("div", { class: "no-count" }, `${l.no} NO!`) : null);
      })),
      (t.tracks || []).map((tr, s) => h("tr", {}, h("td", { class: "who" }, seatName(v, s)), CATS.map((c) => h("td", {}, String(tr[c] ?? 0)))))),
    h("div", { class: "small muted" }, "Layout: cards face up (normal minus NO!); rows: each player's markers."),
    h("div", { class: "small mo-bets", id: "bets" }, "Bets: ", (t.bets || []).length ? t.bets.map((b) => h("span", { class: "chip" }, betWords(b, v))) : "none"),
    (t.pieces || []).length ? h("div", { class: "small muted" }, "Pieces left: ",
      t.pieces.map((p, s) => `${seatName(v, s)} ${p.single} single${p.double ? " + double" : ""}${p.risk ? " + risk" : ""}`).join(" · ")) : null);
}

// The steps of a Members Only turn: category (or No bet), space, piece, then the reveals as card
// toggles, then Confirm. The legal list holds every bet with one reveal and every reveal with no
// bet (any listed bet goes with any listed reveal: see legal_actions in the rules).
function moTurnFlow(v, ls, p, ctx) {
  const seat = ls[0].seat;
  const bets = uniq(ls.map((l) => l.action.bet));
  const reveals = uniq(ls.map((l) => l.action.reveal || []));
  const [first, ...rest] = p;
  if (first === undefined) {
    const cats = CATS.filter((c) => bets.some((b) => b && b.category === c));
    return { title: "Bet on a category, or no bet", options: [
      ...(bets.some((b) => b === null) ? [{ key: "nobet", label: "No bet" }] : []),
      ...cats.map((c) => ({ key: `cat:${c}`, label: [catPic(c), ` ${CAT_NAME[c]}`] }))] };
  }
  let bet = null, r = rest;
  if (first !== "nobet") {
    const cat = first.slice(4);
    const inCat = bets.filter((b) => b && b.category === cat);
    if (!r.length) {
      const spaces = Object.keys(SPACES).filter((sp) => inCat.some((b) => b.space === sp));
      return { title: `${CAT_NAME[cat]}: which space?`, options: spaces.map((sp) => ({ key: `sp:${sp}`, label: `${SPACES[sp]} · ${SPACE_POINTS[sp]} pts` })) };
    }
    const space = r[0].slice(3);
    const here = inCat.filter((b) => b.space === space);
    if (r.length === 1) {
      return { title: `${CAT_NAME[cat]} ${SPACES[space]}: which piece?`, options: here.map((b) => ({ key: `pc:${b.piece}`, label: b.piece === "double" ? `Double piece (× 2)${v.table.betting_round === 1 ? ", on risk" : ""}` : `Single piece${v.table.betting_round === 1 ? ", on risk" : ""}` })) };
    }
    bet = here.find((b) => b.piece === r[1].slice(3));
    r = r.slice(2);
  }
  const betText = bet ? betWords({ ...bet, risk: v.table.betting_round === 1 }, v, { who: false }) : "No bet";
  return revealFlow(v, seat, reveals, r, ctx, (reveal) => ({ seat, action: { type: "turn", bet, reveal } }),
    (reveal) => `${betText}${reveal.length ? `; reveal ${reveal.map(moCard).join(" and ")}` : ""}`, betText);
}

// Two cards revealed as toggles: from the seat's hand (a seat at a service-dealt table) or from
// the ten kinds of card (the host at a real-card table). `r` holds the toggles taken.
function revealFlow(v, seat, reveals, r, ctx, make, say, sofar) {
  const need = Math.max(...reveals.map((x) => x.length));
  const hand = !ctx.isHost && v.you && Array.isArray(v.you.hand) ? v.you.hand : null;
  const chosen = r.map((k) => (hand ? hand[Number(k.slice(2))] : k.slice(2)));
  const fits = (cards) => reveals.some((x) => {
    const left = [...x];
    return cards.every((c) => { const i = left.indexOf(c); if (i < 0) return false; left.splice(i, 1); return true; });
  });
  if (chosen.length >= need) {
    const reveal = reveals.find((x) => x.length === chosen.length && fits(chosen) && fits(x)
      && [...x].sort().join() === [...chosen].sort().join()) || chosen;
    return { title: sofar, confirm: { ...make(reveal), label: `Confirm: ${say(reveal)}` } };
  }
  const title = `${sofar}. Reveal ${need - chosen.length === 2 ? "two cards" : "one more card"}:`;
  if (hand) {
    return { title, toggles: hand.map((c, i) => {
      const key = `r:${i}`;
      if (r.includes(key)) return { key, card: c, on: true };
      return { key, card: c, ok: fits([...chosen, c]) };
    }) };
  }
  const kinds = CATS.flatMap((c) => [c, `${c}:no`]);
  return { title, toggles: kinds.map((c) => ({ key: `r:${c}`, card: c, ok: fits([...chosen, c]), count: chosen.filter((x) => x === c).length })) };
}

// The end of a heat: with the hand known, the discard (the other two are revealed); at a
// real-card table, the two cards revealed.
function moFinalFlow(v, ls, p, ctx) {
  const seat = ls[0].seat;
  if (ls.some((l) => l.action.discard)) {
    if (!p.length) {
      return { title: "End of the heat: discard one card (the other two are revealed)",
        options: ls.map((l) => ({ key: `d:${l.action.discard}`, label: [catPic(catOf(l.action.discard)), ` Discard ${moCard(l.action.discard)}`] })) };
    }
    const l = ls.find((x) => `d:${x.action.discard}` === p[0]);
    return { title: `Discard ${moCard(l.action.discard)}`, confirm: { seat, action: l.action, label: `Confirm: discard ${moCard(l.action.discard)}, reveal ${l.action.reveal.map(moCard).join(" and ")}` } };
  }
  const reveals = uniq(ls.map((l) => l.action.reveal || []));
  return revealFlow(v, seat, reveals, p, { ...ctx, isHost: true }, (reveal) => ({ seat, action: { type: "final", discard: null, reveal } }),
    (reveal) => `reveal ${reveal.map(moCard).join(" and ")}`, "End of the heat (the discard stays face down)");
}

// A real-card deal: the two cards turned face up, one then the other.
function moDealFlow(v, ls, p) {
  const pairs = ls.map((l) => l.action.face_up);
  if (p.length === 2) {
    const l = ls.find((x) => [...x.action.face_up].sort().join() === [...p].sort().join());
    if (l) return { title: "Deal", confirm: { seat: null, action: l.action, label: `Confirm: deal, turning up ${p.map(moCard).join(" and ")}` } };
  }
  const firsts = uniq(pairs.flat());
  const options = (p.length ? uniq(pairs.filter((x) => x.includes(p[0])).map((x) => { const y = [...x]; y.splice(y.indexOf(p[0]), 1); return y[0]; })) : firsts)
    .map((c) => ({ key: c, label: moFace(c, { cls: "mini" }) }));
  return { title: p.length ? `Turned up ${moCard(p[0])} and…` : "Deal: the first card turned face up", options };
}

// ---------- P.M. ----------

const signed = (n) => (n > 0 ? `+${n}` : n < 0 ? `−${-n}` : "0");
function pmFace(n, { tag = "span", cls = "", attrs = {} } = {}) {
  return h(tag, { class: `card pm-card ${n < 0 ? "red" : ""} ${cls}`, "data-pm": n, "aria-label": `${n < 0 ? "minus" : "plus"} ${Math.abs(n)}`, ...attrs }, h("span", { class: "rank" }, signed(n)));
}
const placeWords = (p) => (p === 0 ? "the stars" : p === 25 ? "home" : String(p));
// Where a man on `from` lands by `total`, in words and as a result.
function pmDest(from, total) {
  if (from === null || from === undefined) return { to: null, result: "none" };
  if (total === 0) return { to: from, result: "none" };
  const to = from + total;
  if (to > 25) return { to: 0, result: "bust" };
  if (to === 25) return { to: 25, result: "home" };
  if (to < 1) return { to: 0, result: "stars" };
  return { to, result: "move" };
}
function moveWords(from, to, result) {
  if (result === "none" || from === null || from === undefined) return "no man moved";
  const f = from === 0 ? "the stars" : String(from);
  if (result === "home") return `man from ${f} home!`;
  if (result === "bust") return `man from ${f} busts: back to the stars`;
  if (result === "stars") return `man from ${f} back to the stars`;
  return `man from ${f} to ${to}`;
}
/** "Ada played −11: man from 15 to 4". */
export function pmLastPlay(lp, v) {
  if (!lp || typeof lp !== "object") return "";
  return `${seatName(v, lp.seat)} played ${signed(lp.card)} (total ${signed(lp.total)}): ${moveWords(lp.from, lp.to, lp.result)}`;
}
function pmTotal(v, card) {
  const top = v.table ? v.table.top_card : null;
  return top === null || top === undefined ? card : top + card;
}

// One seat's board: the stars, 1..24 and home in two rows of 13; its men on it. `lit` maps a
// man's position to what tapping it does.
function pmBoard(v, seat, lit) {
  const men = (v.table.boards || [])[seat] || [];
  const count = (n) => men.filter((m) => m === n).length;
  const cell = (n) => {
    const k = count(n);
    const label = n === 0 ? "★" : n === 25 ? "⌂25" : String(n);
    const inner = [h("span", { class: "n" }, label), k ? h("span", { class: "men" }, n === 0 || n === 25 ? `●×${k}` : "●") : null];
    const go = lit && lit.get(n);
    const cls = `cell ${k ? "has" : ""} ${n === 0 ? "stars" : n === 25 ? "home" : ""}`;
    return go ? h("button", { class: `${cls} lit`, "data-from": n, "aria-label": `man on ${placeWords(n)}`, onclick: go }, inner)
      : h("span", { class: cls, "data-pos": n }, inner);
  };
  return h("div", { class: "pm-board", "data-seat": seat }, Array.from({ length: 26 }, (_, n) => cell(n)));
}

function pmTable(v, ctx) {
  const t = v.table || {};
  const p = picks(v);
  const acting = t.to_play;
  // The card tapped by the acting seat (or picked by the host) lights up its men.
  let lit = null;
  const card = p.find((x) => String(x).startsWith("card:"));
  if (card !== undefined && ctx && ctx.legal) {
    const c = Number(card.slice(5));
    lit = new Map();
    for (const l of ctx.legal) if (l.action.type === "play" && l.action.card === c && l.action.from !== null && l.action.from !== undefined) {
      lit.set(l.action.from, () => ctx.record(l.seat, l.action));
    }
  }
  return h("div", { class: "felt pm", id: "table" },
    h("div", { class: "pm-top" },
      t.top_card === null || t.top_card === undefined ? h("span", { class: "card pm-card big empty" }, "—") : pmFace(t.top_card, { cls: "big" }),
      h("div", {}, h("div", {}, t.phase === "playing" ? `Game ${v.round} of ${t.rubber_games}` : t.phase === "awaiting_deal" ? "Waiting for the deal" : "The rubber is over"),
        t.last_play ? h("div", { class: "small", id: "last-play" }, pmLastPlay(t.last_play, v)) : h("div", { class: "small muted", id: "last-play" }, t.phase === "playing" ? "No card laid yet: the leader lays a plus card." : ""))),
    (t.boards || []).map((_, s) => h("div", { class: `pm-seat ${s === acting ? "acting" : ""}` },
      h("div", { class: "small who" }, `${seatName(v, s)}${s === acting ? " · to play" : ""}`),
      pmBoard(v, s, s === acting ? lit : null))));
}

function pmFlow(v, ls, p, ctx) {
  const seat = ls[0].seat;
  const card = p[0];
  const cards = uniq(ls.map((l) => l.action.card)).sort((a, b) => a - b);
  if (card === undefined) {
    // A seat taps its hand (handView); the host picks the card laid at a real-card table.
    if (!ctx.isHost) return { title: "Tap a card in your hand" };
    return { title: "which card was laid?", cards: cards.map((c) => ({ key: `card:${c}`, card: c })) };
  }
  const c = Number(card.slice(5));
  const total = pmTotal(v, c);
  return { title: `${signed(c)} makes ${signed(total)}: tap a man (lit on the board) or a move`,
    options: ls.filter((l) => l.action.card === c).map((l) => {
      const d = pmDest(l.action.from, total);
      const label = d.result === "none" ? "No man can move: lay it" : `${placeWords(l.action.from)} → ${d.result === "bust" ? "bust (back to the stars)" : placeWords(d.to)}`;
      return { label, action: l.action, seat: l.seat };
    }) };
}

// ---------- By Hook or Crook ----------

const LETTER_CLASS = { A: "la", B: "lb", C: "lc", D: "ld", E: "le", F: "lf" };
/** "Series A, 1500". */
export function bhcCard(c) {
  const m = /^([A-Fa-f])(\d+)$/.exec(String(c));
  return m ? `Series ${m[1].toUpperCase()}, ${m[2]}` : String(c);
}
function bhcFace(c, { tag = "span", cls = "", attrs = {} } = {}) {
  const m = /^([A-Fa-f])(\d+)$/.exec(String(c)) || [null, "?", String(c)];
  const L = m[1].toUpperCase();
  return h(tag, { class: `card bhc-card ${cls}`, "data-bhc": c, "aria-label": bhcCard(c), ...attrs },
    h("span", { class: `badge ${LETTER_CLASS[L] || ""}` }, L), h("span", { class: "year" }, m[2]));
}
const PLACE = { castle: "Castle", auction: "Auction house" };
const money = (n) => Number(n).toLocaleString("en-GB");
/** "Check 11,000", "Thief 7", "Detective", "Exhibit". */
export function bhcAction(card) {
  const [k, n] = String(card).split(":");
  if (k === "check") return `Check ${money(n)}`;
  if (k === "thief") return `Thief ${n}`;
  if (k === "detective") return "Detective";
  if (k === "exhibit") return "Exhibit";
  return String(card);
}
function actionFace(label, sub, { tag = "span", cls = "", attrs = {} } = {}) {
  return h(tag, { class: `card act-card ${cls}`, ...attrs }, h("span", { class: "act" }, label), sub ? h("span", { class: "sub" }, sub) : null);
}
const BHC_PHASE = {
  awaiting_deal: "waiting for the deal", reveal_pile: "the piles' top cards to record", locations: "everyone chooses a location (sealed)",
  cards: "everyone chooses an action card (sealed)", buy: "the auction's winner buys", exhibits: "the exhibitors lay their sets",
  steals: "the thieves steal", final_exhibition: "the final exhibition", finished: "the game is over",
};

function bhcTable(v) {
  const t = v.table || {};
  const n = v.players.length;
  const seats = [...Array(n).keys()];
  const sealed = (s) => (t.waiting_for || []).includes(s) ? "choosing…" : "chosen (sealed)";
  const where = (s) => (t.locations || [])[s];
  const cardOf = (s) => ((t.cards || [])[s] ? bhcAction(t.cards[s]) : null);
  const inZone = (place) => seats.filter((s) => where(s) === place).map((s) => h("div", { class: "small" }, seatName(v, s), cardOf(s) ? ` · ${cardOf(s)}` : ""));
  const unplaced = seats.filter((s) => !where(s));
  // The track: the club room, twelve castles of three spaces, the pink spaces.
  const pink = t.pink_from || 37;
  const column = (pos) => (pos <= 0 ? 0 : pos >= pink ? 13 : Math.min(12, Math.ceil(pos / 3)));
  const cols = Array.from({ length: 14 }, (_, c) => seats.filter((s) => column((t.positions || [])[s] || 0) === c));
  return h("div", { class: "felt bhc", id: "table" },
    h("div", {}, `Turn ${t.turn} · ${BHC_PHASE[t.phase] || t.phase}`),
    // The end of the game first: the final exhibition and the winner.
    t.final ? bhcFinal(v, t) : null,
    t.leader_castle ? h("div", { class: "small muted" }, `The leader's castle ${t.leader_castle.castle} pays ${t.leader_castle.upper} to the best exhibit, ${t.leader_castle.lower} to the second.`) : null,
    h("div", { class: "bhc-track", id: "track" }, cols.map((ss, c) => h("div", { class: `col ${c === 0 ? "club" : c === 13 ? "pink" : ""}` },
      h("span", { class: "n" }, c === 0 ? "club" : c === 13 ? "pink" : `C${c}`),
      ss.map((s) => h("span", { class: `pawn p${s}`, title: `${seatName(v, s)} on ${(t.positions || [])[s]}` }, seatName(v, s).slice(0, 2)))))),
    h("div", { class: "small" }, "Spaces: ", seats.map((s) => `${seatName(v, s)} ${(t.positions || [])[s] ?? 0}`).join(" · ")),
    h("div", { class: "bhc-zones" },
      h("div", { class: "zone", id: "zone-castle" }, h("div", { class: "zone-name" }, "Castle"), inZone("castle"),
        (t.exhibits || []).map((e) => h("div", { class: "exhibit" }, h("span", { class: "small" }, `${seatName(v, e.seat)} shows:`),
          h("div", { class: "cards mini-row" }, (e.on_display || e.cards || []).map((c) => bhcFace(c, { cls: "mini" })))))),
      h("div", { class: "zone", id: "zone-auction" }, h("div", { class: "zone-name" }, "Auction house"), inZone("auction"),
        h("div", { class: "cards mini-row" }, (t.piles || []).map((p, i) => h("div", { class: "pile" },
          p.top ? bhcFace(p.top, { cls: "mini" }) : h("span", { class: "card bhc-card mini empty" }, "—"),
          h("span", { class: "pile-size" }, `pile ${i + 1}`), h("span", { class: "pile-size" }, `${p.size} left`))))),
      h("div", { class: "zone", id: "zone-prison" }, h("div", { class: "zone-name" }, "Prison"),
        (t.prison || []).map((c, i) => h("div", { class: "small" }, `Cell ${i + 1}: `, c ? `thief ${c.thief}${c.seat !== null && c.seat !== undefined ? ` (${seatName(v, c.seat)})` : ""}` : "empty")))),
    unplaced.length && ["locations", "cards"].includes(t.phase)
      ? h("div", { class: "small" }, "Locations: ", unplaced.map((s) => `${seatName(v, s)} ${sealed(s)}`).join(" · ")) : null,
    t.phase === "cards" ? h("div", { class: "small" }, "Action cards: ", seats.map((s) => `${seatName(v, s)} ${cardOf(s) || sealed(s)}`).join(" · ")) : null,
    t.steal ? h("div", { class: "small" }, `${seatName(v, t.steal.seat)}'s thief ${t.steal.thief} steals now.`) : null,
    (t.thefts || []).length ? h("div", { class: "small" }, "Thefts: ", t.thefts.map((x) => `thief ${x.thief} (${seatName(v, x.seat)}) took ${bhcCard(x.card)} from ${seatName(v, x.from)}`).join("; ")) : null,
    h("div", { class: "small muted" }, "Checks left: ", seats.map((s) => `${seatName(v, s)} ${((t.checks || [])[s] || []).map(money).join(", ") || "none"}`).join(" · ")),
    t.last_turn ? h("div", { class: "small", id: "last-turn" }, lastTurnWords(t.last_turn, v)) : null);
}

// The final exhibition in words: every player's set (or none), best +8, second +4, where each
// pawn ends, and the winner: the furthest pawn, a tie going to the more valuable collection
// (RULES.md, By Hook or Crook: "ties go to the more valuable collection").
const ORDINAL = ["best", "second", "third", "fourth", "fifth"];
function bhcFinal(v, t) {
  const f = t.final;
  const seats = [...Array(v.players.length).keys()];
  const ranking = f.ranking || [];
  const order = [...ranking, ...seats.filter((s) => !ranking.includes(s))];
  const pos = (s) => (t.positions || [])[s] ?? 0;
  const line = (s) => {
    const cards = (f.exhibits || [])[s] || [];
    const r = ranking.indexOf(s);
    const adv = (f.advances || [])[s] ?? 0;
    const shown = cards.length ? `showed ${cards.map(bhcCard).join("; ")} (${cards.length} cards)` : "showed no set";
    const place = r >= 0 ? `${ORDINAL[r] || `${r + 1}th`} set` : null;
    return h("li", { "data-seat": s }, `${seatName(v, s)} ${shown}${place ? `: ${place}` : ""}, +${adv}, ends on space ${pos(s)}`);
  };
  const winners = t.winners || [];
  let verdict = null;
  if (winners.length) {
    const far = pos(winners[0]);
    const level = seats.filter((s) => pos(s) === far && !winners.includes(s));
    const who = winners.map((s) => seatName(v, s)).join(" and ");
    verdict = winners.length > 1
      ? `Winners: ${who}, tied on space ${far} with collections of equal value`
      : level.length
        ? `Winner: ${who} on space ${far}, level with ${level.map((s) => seatName(v, s)).join(" and ")}: the more valuable collection wins the tie`
        : `Winner: ${who} on space ${far}${Number.isInteger(t.margin) ? `, ${t.margin} ahead` : ""}`;
  }
  return h("div", { class: "small bhc-final", id: "final" },
    h("div", { class: "zone-name" }, "Final exhibition"),
    h("ul", {}, order.map(line)),
    verdict ? h("div", { class: "verdict", id: "final-winner" }, verdict) : null);
}

function lastTurnWords(lt, v) {
  const out = [`Turn ${lt.turn}:`];
  if ((lt.locations || []).length) {
    out.push(`${lt.locations.map((pl, s) => `${seatName(v, s)} ${PLACE[pl] ? PLACE[pl].toLowerCase() : "—"}${(lt.cards || [])[s] ? ` (${bhcAction(lt.cards[s]).toLowerCase()})` : ""}`).join(", ")}.`);
  }
  const a = lt.auction;
  if (a) {
    if (a.winner !== null && a.winner !== undefined) {
      out.push(`${seatName(v, a.winner)} won the auction with ${money(a.check)}${a.bought ? `, buying ${bhcCard(a.bought.card)}` : ""}${a.check_stolen_by !== null && a.check_stolen_by !== undefined ? `; ${seatName(v, a.check_stolen_by)}'s thief took the check` : ""}.`);
    } else out.push(`Auction: ${a.result}.`);
  }
  const adv = (lt.advances || []).map((n, s) => (n ? `${seatName(v, s)} +${n}` : null)).filter(Boolean);
  if (adv.length) out.push(`Advanced: ${adv.join(", ")}.`);
  if ((lt.thefts || []).length) out.push(`Thefts: ${lt.thefts.map((x) => `${seatName(v, x.seat)} took ${bhcCard(x.card)} from ${seatName(v, x.from)}`).join("; ")}.`);
  if ((lt.caught || []).length) out.push(`Caught: ${lt.caught.length} thie${lt.caught.length === 1 ? "f" : "ves"}.`);
  return out.join(" ");
}

function bhcFlow(v, ls, p, ctx) {
  const type = ls[0].action.type;
  const one = (l, label) => ({ label, action: l.action, seat: l.seat, type });
  if (type === "location") return { title: "Where do you go? (sealed)", options: ls.map((l) => one(l, PLACE[l.action.place] || l.action.place)) };
  if (type === "choose") return { title: "Which action card? (sealed)", options: ls.map((l) => one(l, bhcAction(l.action.card))) };
  if (type === "buy") return { title: "Buy from which pile?", options: ls.map((l) => one(l, [`Pile ${l.action.pile + 1}: `, bhcCard((v.table.piles[l.action.pile] || {}).top)])) };
  if (type === "exhibit" || type === "final_exhibit") {
    return { title: type === "exhibit" ? "Lay which set?" : "Your final exhibit:", options: ls.map((l) => one(l, (l.action.cards || []).length ? [h("span", { class: "cards mini-row" }, l.action.cards.map((c) => bhcFace(c, { cls: "mini" })))] : "No set to show")) };
  }
  if (type === "steal") {
    const from = uniq(ls.map((l) => l.action.from));
    if (from.length > 1 && !p.length) return { title: "Steal from whose exhibit?", options: from.map((s) => ({ key: `from:${s}`, label: seatName(v, s), type })) };
    const f = p.length ? Number(p[0].slice(5)) : from[0];
    return { title: `Take which card from ${seatName(v, f)}?`, options: ls.filter((l) => l.action.from === f).map((l) => one(l, bhcFace(l.action.card, { cls: "mini" }))) };
  }
  if (type === "reveal_pile") {
    const piles = uniq(ls.map((l) => l.action.pile));
    let q = p, pile = piles[0];
    if (piles.length > 1) {
      if (!q.length) return { title: "Which pile's top card to record?", options: piles.map((x) => ({ key: `pile:${x}`, label: `Pile ${x + 1}`, type })) };
      pile = Number(q[0].slice(5)); q = q.slice(1);
    }
    const here = ls.filter((l) => l.action.pile === pile);
    const letters = uniq(here.map((l) => l.action.card[0].toUpperCase()));
    if (!q.length && here.length > 12) return { title: `Pile ${pile + 1} shows: which series?`, options: letters.map((L) => ({ key: `L:${L}`, label: `Series ${L}`, type })) };
    const L = q.length ? q[0].slice(2) : null;
    return { title: `Pile ${pile + 1} shows:`, options: here.filter((l) => !L || l.action.card[0].toUpperCase() === L).map((l) => one(l, bhcFace(l.action.card, { cls: "mini" }))) };
  }
  return null;
}

// ---------- the hooks ----------

/** Whether this module chooses the legal action `a` of game `game` (the rest stay app.js's buttons). */
export function takes(game, a) {
  if (game === "members-only") return a.type === "turn" || a.type === "final" || (a.type === "deal" && Array.isArray(a.face_up) && a.face_up.length > 0);
  if (game === "plus-minus") return a.type === "play";
  if (game === "by-hook-or-crook") return ["location", "choose", "buy", "exhibit", "final_exhibit", "steal", "reveal_pile"].includes(a.type);
  return false;
}

/** The felt of one of these games, or null. */
export function tableView(v, ctx) {
  if (v.game === "members-only") return moTable(v);
  if (v.game === "plus-minus") return pmTable(v, ctx);
  if (v.game === "by-hook-or-crook") return bhcTable(v);
  return null;
}

function flowFor(v, ls, p, ctx) {
  const type = ls[0].action.type;
  if (v.game === "members-only") return type === "turn" ? moTurnFlow(v, ls, p, ctx) : type === "final" ? moFinalFlow(v, ls, p, ctx) : moDealFlow(v, ls, p);
  if (v.game === "plus-minus") return pmFlow(v, ls, p, ctx);
  return bhcFlow(v, ls, p, ctx);
}

/** The step-by-step choice of this game's legal actions (those `takes` takes), or null. */
export function chooser(v, legal, ctx) {
  S.handAbove = false;
  const mine = legal.filter((l) => takes(v.game, l.action));
  // By Hook or Crook's sealed cards are tapped in a seat's own hand (handView).
  const inHand = (l) => !ctx.isHost && v.game === "by-hook-or-crook" && ["location", "choose"].includes(l.action.type);
  const list = mine.filter((l) => !inHand(l));
  if (!list.length) return null;
  const p = picks(v);
  // Several seats (the host at a real-card table): first, for whom.
  const seats = uniq(list.map((l) => l.seat));
  let q = p, seat = seats[0];
  if (seats.length > 1) {
    if (!q.length) {
      return box(v, ctx, "For whom?", seats.map((s) => stepButton(ctx, `seat:${s === null ? "table" : s}`, s === null ? "The table" : seatName(v, s), list.find((l) => l.seat === s).action.type)), false);
    }
    seat = q[0] === "seat:table" ? null : Number(q[0].slice(5)); q = q.slice(1);
  }
  let ls = list.filter((l) => l.seat === seat);
  // One kind of action at a time (the first kind listed).
  ls = ls.filter((l) => l.action.type === ls[0].action.type);
  const f = flowFor(v, ls, q, ctx);
  if (!f) return null;
  const who = ctx.isHost && seat !== null && seat !== undefined ? `${seatName(v, seat)}: ` : "";
  const items = [];
  for (const o of f.options || []) {
    items.push(o.action ? h("button", { "data-type": o.action.type, class: "opt", onclick: () => ctx.record(o.seat, o.action) }, o.label)
      : stepButton(ctx, o.key, o.label, o.type || ls[0].action.type));
  }
  if (f.toggles) {
    S.handAbove = true;
    items.push(h("div", { class: "toggles" }, f.toggles.map((t) => {
      if (t.on) return moFace(t.card, { tag: "button", cls: "on", attrs: { "aria-pressed": "true", onclick: () => { S.picks.splice(S.picks.indexOf(t.key), 1); ctx.redraw(); } } });
      if (!t.ok) return moFace(t.card, { cls: "dim", attrs: { "aria-disabled": "true" } });
      return moFace(t.card, { tag: "button", cls: `legal ${t.count ? "on" : ""}`, attrs: { "data-type": ls[0].action.type, "data-step": t.key, onclick: () => pick(ctx, t.key) } },
      );
    })));
  }
  if (f.cards) {
    items.push(h("div", { class: "cards pm-pick" }, f.cards.map((c) => pmFace(c.card, { tag: "button", cls: "legal", attrs: { "data-type": "play", "data-step": c.key, onclick: () => pick(ctx, c.key) } }))));
  }
  if (f.confirm) items.push(h("button", { "data-type": f.confirm.action.type, id: "confirm", class: "confirm", onclick: () => ctx.record(f.confirm.seat, f.confirm.action) }, f.confirm.label));
  return box(v, ctx, who + f.title, items, p.length > 0);
}

function stepButton(ctx, key, label, type) {
  return h("button", { "data-type": type, "data-step": key, class: "opt", onclick: () => pick(ctx, key) }, label);
}

function box(v, ctx, title, items, canBack) {
  return h("div", { class: "actions pictures", id: "chooser" },
    h("div", { class: "step-head" },
      canBack ? h("button", { class: "secondary back", id: "step-back", "aria-label": "Back one step", onclick: () => back(ctx) }, "←") : null,
      h("div", { class: "small step-title" }, title)),
    items);
}

/** What a seat holds, drawn (the tray's #you), or null for another game. */
export function handView(v, legal, ctx) {
  const you = v.you;
  if (!you || ctx.isHost) return null;
  // A finished match has nothing left to play: no greyed hand in the tray under the result (By
  // Hook or Crook's collection stays: it is what the final exhibition counted).
  if (v.status === "finished" && v.game !== "by-hook-or-crook") return null;
  if (v.game === "members-only") {
    const hand = you.hand || [];
    return h("section", { class: "panel", id: "you" },
      h("h2", {}, `Your hand${Number.isInteger(you.hand_size) ? ` · ${you.hand_size} cards` : ""}${S.handAbove && Array.isArray(you.hand) ? ": pick above" : ""}`),
      S.handAbove ? null : Array.isArray(you.hand) ? h("div", { class: "mo-hand", id: "hand" }, hand.map((c) => moFace(c))) : h("div", { class: "small muted", id: "hand" }, "Real cards: your hand is in your hand."));
  }
  if (v.game === "plus-minus") {
    const mine = legal.filter((l) => l.action.type === "play");
    const p = picks(v);
    const hand = Array.isArray(you.hand) ? you.hand : null;
    return h("section", { class: "panel", id: "you" },
      h("h2", { class: mine.length ? "your-turn" : "" }, mine.length ? "Your hand · your turn: tap a card" : "Your hand"),
      hand ? h("div", { class: "cards pm-hand", id: "hand" }, hand.map((c) => {
        const ok = mine.some((l) => l.action.card === c);
        const on = p[0] === `card:${c}`;
        return ok ? pmFace(c, { tag: "button", cls: `legal ${on ? "on" : ""}`, attrs: { "data-type": "play", "data-step": `card:${c}`, onclick: () => { S.picks = [`card:${c}`]; ctx.redraw(); } } })
          : pmFace(c, { cls: "dim" });
      })) : h("div", { class: "small muted", id: "hand" }, "Real cards: your hand is in your hand."));
  }
  if (v.game === "by-hook-or-crook") {
    const mine = legal.filter((l) => ["location", "choose"].includes(l.action.type));
    const tap = (match) => mine.find(match);
    const act = (label, sub, l, extra = {}) => (l
      ? actionFace(label, sub, { tag: "button", cls: "legal", attrs: { "data-type": l.action.type, onclick: () => ctx.record(l.seat, l.action), ...extra } })
      : actionFace(label, sub, { cls: "dim" }));
    const chosen = [you.location ? `${PLACE[you.location]}` : null, you.card ? bhcAction(you.card) : null].filter(Boolean);
    const collection = h("div", { class: "cards mini-row", id: "collection" }, (you.hand || []).map((c) => bhcFace(c, { cls: "mini" })),
      you.unknown_cards ? h("span", { class: "small muted" }, `+ ${you.unknown_cards} not recorded`) : null);
    // The game over: the collection it ended with, and no greyed action cards under the result.
    if (v.status === "finished") return h("section", { class: "panel", id: "you" }, h("h2", {}, "Your collection"), collection);
    return h("section", { class: "panel", id: "you" },
      h("h2", { class: mine.length ? "your-turn" : "" }, mine.length ? "Your cards · your turn" : "Your cards",
        chosen.length ? h("span", { class: "muted" }, ` · chosen (sealed): ${chosen.join(", ")}`) : null),
      h("div", { class: "cards bhc-hand", id: "hand" },
        act("Castle", "location", tap((l) => l.action.place === "castle")),
        act("Auction", "location", tap((l) => l.action.place === "auction")),
        (you.checks || []).map((c) => act("Check", money(c), tap((l) => l.action.card === `check:${c}`))),
        (you.thieves || []).map((n) => act("Thief", String(n), tap((l) => l.action.card === `thief:${n}`))),
        act("Detective", "", tap((l) => l.action.card === "detective")),
        act("Exhibit", "", tap((l) => l.action.card === "exhibit"))),
      collection);
  }
  return null;
}

/** The rest of what only this seat sees, in words, or null for another game. */
export function secretsView(v) {
  const you = v.you;
  if (!you || !drawn(v.game)) return null;
  const rows = [];
  if (v.game === "members-only") {
    rows.push(["Pieces", `${you.pieces.single} single${you.pieces.double ? ", the double" : ""}${you.pieces.risk ? ", the risk piece" : ""}`]);
    rows.push(["Your bets", (you.bets || []).map((b) => betWords(b, v, { who: false })).join("; ") || "none"]);
    if (you.final) rows.push(["End of heat", `discard ${you.final.discard ? moCard(you.final.discard) : "(face down)"}, reveal ${(you.final.reveal || []).map(moCard).join(" and ")}`]);
    rows.push(["Counting total", String(you.total)]);
  } else if (v.game === "plus-minus") {
    rows.push(["Your men", (you.board || []).map(placeWords).join(", ")]);
  } else {
    rows.push(["Collection", (you.hand || []).map(bhcCard).join("; ") || "none"]);
    rows.push(["Best set", you.best_set ? you.best_set.map(bhcCard).join("; ") : "none yet"]);
    rows.push(["Pawn", `space ${you.position}`]);
    if (you.location) rows.push(["Location (sealed)", PLACE[you.location]]);
    if (you.card) rows.push(["Action card (sealed)", bhcAction(you.card)]);
  }
  return h("details", { class: "panel", id: "secrets" }, h("summary", { class: "small muted" }, "Everything only you see"),
    h("dl", { class: "kv" }, rows.map(([k, x]) => [h("dt", {}, k), h("dd", {}, x)])));
}

/** An action of one of these games in words, or null. */
export function describe(a, v) {
  if (v.game === "members-only") {
    if (a.type === "turn") {
      const bet = a.bet ? `${a.bet.piece === "double" ? "Double" : "Single"} on ${CAT_NAME[a.bet.category]} ${SPACE_SHORT[a.bet.space]}` : "No bet";
      return (a.reveal || []).length ? `${bet}; reveal ${a.reveal.map(moCard).join(" and ")}` : bet;
    }
    if (a.type === "final") return `End of heat: ${a.discard ? `discard ${moCard(a.discard)}, ` : ""}reveal ${(a.reveal || []).map(moCard).join(" and ")}`;
    if (a.type === "deal" && (a.face_up || []).length) return `Deal, turning up ${a.face_up.map(moCard).join(" and ")}`;
  }
  if (v.game === "plus-minus" && a.type === "play") {
    const from = a.from === null || a.from === undefined ? "no man moves" : `the man on ${placeWords(a.from)} moves`;
    return `${signed(a.card)}: ${from}`;
  }
  if (v.game === "by-hook-or-crook") {
    switch (a.type) {
      case "location": return PLACE[a.place] || a.place;
      case "choose": return bhcAction(a.card);
      case "buy": return `Buy from pile ${a.pile + 1}`;
      case "reveal_pile": return `Pile ${a.pile + 1} shows ${bhcCard(a.card)}`;
      case "exhibit": return `Exhibit ${(a.cards || []).map(bhcCard).join("; ")}`;
      case "final_exhibit": return `Final exhibit ${(a.cards || []).map(bhcCard).join("; ") || "none"}`;
      case "steal": return `Steal ${bhcCard(a.card)} from ${seatName(v, a.from)}`;
      default: return null;
    }
  }
  return null;
}

/** A card of `game` in words (a problem's `card` field). */
export function cardWords(game, card) {
  if (game === "members-only") return moCard(card);
  if (game === "plus-minus") return typeof card === "number" ? signed(card) : String(card);
  if (game === "by-hook-or-crook") return /^(check|thief|detective|exhibit)/.test(String(card)) ? bhcAction(card) : bhcCard(card);
  return null;
}
