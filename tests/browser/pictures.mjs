// Browser test of the games drawn in words and pictures (web/games.js, issue 22 part 3):
// Members Only, P.M. and By Hook or Crook at 390x844, 360x640 and 844x390. scripts/ci-browser.sh
// runs it.
//
// For each size: no raw ids or JSON in the table area (`big_ben`, `:no`, `null`, `{"`,
// `undefined`); nothing wider than the screen; a Members Only turn chosen step by step (category,
// space, piece, Confirm; then No bet, two hand cards, Confirm: the taps counted, the bets and the
// reveal checked in the API's view); a P.M. move made by tapping a card in the hand and then the
// lit man on the board (the board position checked in the API's view, the last move in words);
// a By Hook or Crook turn by tapping a location card and an action card (the sealed choices
// checked in the view). At 390x844: the host at real-card tables, the end of a Members Only heat,
// refusals naming seats, and a game of each played through the API (600 actions at most) while
// a seat's page and the host's follow, checked at every change of phase. Screenshots pic-*.png.
//
// Env: as lib.mjs (BASE, PW_DIR, CHROMIUM, ARTIFACTS).

import { join } from "node:path";
import { ARTIFACTS, BASE, api, check, phone, run } from "./lib.mjs";

const SIZES = [[390, 844], [360, 640], [844, 390]];
const RAW = ["big_ben", ":no", "null", "{\"", "undefined", "NaN"];
const NAMES = { umbrella: "Umbrella", crown: "Crown", teacup: "Teacup", big_ben: "Big Ben", hat: "Hat" };
const moWords = (c) => (c.endsWith(":no") ? `NO! ${NAMES[c.slice(0, -3)].toLowerCase()}` : NAMES[c]);
const shot = (page, name) => page.screenshot({ path: join(ARTIFACTS, `pic-${name}.png`) });
const seqAtLeast = (p, n) => p.waitForFunction((n) => Number(document.body.dataset.seq) >= n, n, { timeout: 20000 });

async function newMatch(game, dealing = "service", deal = true) {
  const c = await api("POST", "/v1/matches", null, { game, dealing, players: ["Ada", "Ben", "Cat"].map((name) => ({ name })) });
  const m = { id: c.match.id, host: c.host_token, seats: c.seat_tokens };
  if (deal) {
    const a = (await api("GET", `/v1/matches/${m.id}/legal`, m.host)).actions[0];
    await api("POST", `/v1/matches/${m.id}/actions`, m.host, { seat: null, action: a });
  }
  return m;
}
const view = (m, token) => api("GET", `/v1/matches/${m.id}`, token || m.host);
async function act(m, seat, pickAction) {
  const legal = (await api("GET", `/v1/matches/${m.id}/legal?seat=${seat}`, m.seats[seat])).actions;
  const a = pickAction(legal);
  const r = await api("POST", `/v1/matches/${m.id}/actions`, m.seats[seat], { seat, action: a });
  if (!r.match) throw new Error(`refused: ${JSON.stringify(r)}`);
  return r.match;
}

// The text of the table area: no raw ids or JSON in it.
async function rawIn(page) {
  const text = await page.evaluate(() => ["#table", "#tray", "#secrets", "#error", "#last-play"]
    .map((s) => { const e = document.querySelector(s); return e ? e.textContent : ""; }).join(" "));
  return RAW.filter((w) => text.includes(w));
}
// Elements sticking out of the screen sideways.
const overflow = (page) => page.evaluate(() => {
  const out = [];
  if (document.documentElement.scrollWidth > innerWidth + 1) out.push(`page ${document.documentElement.scrollWidth} > ${innerWidth}`);
  // Inside the screen, and inside the table's or the tray's own box (the tray is half the
  // screen in landscape).
  for (const zone of ["#table", "#tray"]) {
    const z = document.querySelector(zone);
    if (!z) continue;
    const edge = Math.min(innerWidth, z.getBoundingClientRect().right);
    for (const e of z.querySelectorAll("*")) {
      const r = e.getBoundingClientRect();
      if (r.width && r.right > edge + 1) out.push(`${zone} ${e.tagName}.${e.className} right ${Math.round(r.right)} > ${Math.round(edge)}`);
    }
  }
  return out.slice(0, 5);
});

async function open(browser, m, token, width, height, errors, label) {
  const ctx = await browser.newContext({ ...phone, viewport: { width, height } });
  const p = await ctx.newPage();
  p.on("pageerror", (e) => errors.push(`${label}: ${e.message}`));
  await p.goto(`${BASE}/#m=${m.id}&t=${token}`);
  await p.waitForSelector("#table");
  return p;
}

async function tidy(page, name) {
  const raw = await rawIn(page);
  check(`${name}: no raw ids or JSON in the table area`, raw.length === 0, raw.join(", "));
  const over = await overflow(page);
  check(`${name}: nothing wider than the screen`, over.length === 0, over.join("; "));
}

await run("pictures", async (browser) => {
  const errors = [];
  for (const [width, height] of SIZES) {
    const size = `${width}x${height}`;

    // ---- Members Only: a round-1 bet, then a round-2 turn with two reveals ----
    {
      const m = await newMatch("members-only");
      let v = await view(m);
      const seat = v.to_act[0];
      const p = await open(browser, m, m.seats[seat], width, height, errors, `mo ${size}`);
      const host = await open(browser, m, m.host, width, height, errors, `mo host ${size}`);
      await p.waitForSelector("#chooser button[data-step^='cat:']");
      await tidy(p, `members-only ${size} seat`);
      check(`members-only ${size}: categories in words with pictures`, await p.locator("#chooser button[data-step^='cat:'] svg").count() >= 1
        && (await p.locator("#table th").allTextContents()).join(" ").includes("Big Ben"));
      let taps = 0;
      const tap = async (sel) => { await p.locator(sel).first().click(); taps++; };
      const cat = await p.locator("#chooser button[data-step^='cat:']").first().getAttribute("data-step");
      await tap("#chooser button[data-step^='cat:']");
      // Back goes one step back, and the category is chosen again.
      await p.locator("#step-back").click();
      await p.waitForSelector("#chooser button[data-step='nobet']");
      taps = 0; // counted from here: category, space, piece, Confirm
      await tap(`#chooser button[data-step='${cat}']`);
      const space = await p.locator("#chooser button[data-step^='sp:']").first().getAttribute("data-step");
      await tap("#chooser button[data-step^='sp:']");
      const piece = await p.locator("#chooser button[data-step^='pc:']").last().getAttribute("data-step");
      await tap(`#chooser button[data-step='${piece}']`);
      const confirm = await p.locator("#confirm").textContent();
      await tap("#confirm");
      await seqAtLeast(p, v.seq + 1);
      v = await view(m);
      const bet = v.table.bets.find((b) => b.seat === seat);
      check(`members-only ${size}: bet chosen in ${taps} taps (category, space, piece, Confirm) is the one recorded`,
        taps === 4 && bet && `cat:${bet.category}` === cat && `sp:${bet.space}` === space && `pc:${bet.piece}` === piece && bet.risk === true, `${taps} taps, ${JSON.stringify(bet)} for ${cat} ${space} ${piece}`);
      check(`members-only ${size}: Confirm says the bet in words`, /on (Umbrella|Crown|Teacup|Big Ben|Hat) [≤≥] \d \(\d pts, on risk\)/.test(confirm), confirm);
      await seqAtLeast(host, v.seq);
      const chips = await host.locator("#bets .chip").allTextContents();
      check(`members-only ${size}: the host sees the bet as a chip in words`, chips.some((c) => c.startsWith("Ada: ") && c.includes("pts")), chips.join(" | "));
      await tidy(host, `members-only ${size} host`);
      // The others pass round 1; the seat's round-2 turn: No bet, two cards of the hand, Confirm.
      while ((v = await view(m)).to_act[0] !== seat) v = await act(m, v.to_act[0], (ls) => ls.find((a) => a.bet === null));
      await seqAtLeast(p, v.seq);
      const before = (await view(m, m.seats[seat])).you.hand_size;
      taps = 0;
      await tap("#chooser button[data-step='nobet']");
      await p.waitForSelector("#chooser .toggles button[data-step]");
      await tidy(p, `members-only ${size} reveal step`);
      await shot(p, `mo-reveal-${size}`);
      const first = await p.locator("#chooser .toggles button[data-step]").first().getAttribute("aria-label");
      await tap("#chooser .toggles button[data-step]");
      const second = await p.locator("#chooser .toggles button[data-step]").first().getAttribute("aria-label");
      await tap("#chooser .toggles button[data-step]");
      const said = await p.locator("#confirm").textContent();
      await tap("#confirm");
      await seqAtLeast(p, v.seq + 1);
      const after = await view(m, m.seats[seat]);
      check(`members-only ${size}: a turn with two reveals in ${taps} taps (No bet, card, card, Confirm), the hand two cards smaller`,
        taps === 4 && after.you.hand_size === before - 2 && said.includes(first) && said.includes(second), `${taps} taps, ${before} → ${after.you.hand_size}, "${said}" for ${first}, ${second}`);
      await tidy(p, `members-only ${size} after`);
      await shot(p, `mo-seat-${size}`);
      await seqAtLeast(host, after.seq);
      await shot(host, `mo-host-${size}`);
      await Promise.all([p.context().close(), host.context().close()]);
    }

    // ---- P.M.: the leader taps a card, then the man it lights on the board ----
    {
      const m = await newMatch("plus-minus");
      let v = await view(m);
      const seat = v.to_act[0];
      const p = await open(browser, m, m.seats[seat], width, height, errors, `pm ${size}`);
      await p.waitForSelector("#hand button.legal");
      await tidy(p, `plus-minus ${size} seat`);
      const card = Number(await p.locator("#hand button.legal").last().getAttribute("data-pm"));
      await p.locator("#hand button.legal").last().click();
      await p.waitForSelector("#table .pm-seat.acting button.cell.lit");
      const lit = await p.locator("#table .pm-seat.acting button.cell.lit").allTextContents();
      const move = await p.locator("#chooser button[data-type='play']").allTextContents();
      await shot(p, `pm-pick-${size}`);
      await p.locator("#table .pm-seat.acting button.cell.lit").first().click();
      await seqAtLeast(p, v.seq + 1);
      v = await view(m);
      check(`plus-minus ${size}: the lead +${card} tapped then its man on the stars: a man on ${card}`,
        v.table.boards[seat].includes(card) && v.table.last_play.card === card && lit.length === 1, `${JSON.stringify(v.table.boards[seat])} lit ${lit}`);
      check(`plus-minus ${size}: the move offered in words`, move.some((t) => t === `the stars → ${card}`), move.join(" | "));
      await p.waitForFunction(() => /played \+\d+ \(total \+\d+\): man from the stars to \d+/.test(document.querySelector("#last-play").textContent));
      check(`plus-minus ${size}: the last move in words`, true);
      // The next seat's page: the last move there too, and its own card then move.
      const next = v.to_act[0];
      const q = await open(browser, m, m.seats[next], width, height, errors, `pm next ${size}`);
      await q.waitForSelector("#hand button.legal");
      await q.locator("#hand button.legal").first().click();
      await q.locator("#chooser button[data-type='play']").first().click();
      await seqAtLeast(q, v.seq + 1);
      const w = await view(m);
      check(`plus-minus ${size}: a second move by card then move button`, w.table.last_play.seat === next, JSON.stringify(w.table.last_play));
      await tidy(q, `plus-minus ${size} next seat`);
      const text = await q.locator("#last-play").textContent();
      check(`plus-minus ${size}: "${text}" never null`, /^(Ada|Ben|Cat) played [+−]\d+/.test(text) && !text.includes("null"), text);
      await shot(q, `pm-seat-${size}`);
      await Promise.all([p.context().close(), q.context().close()]);
    }

    // ---- By Hook or Crook: a location card, then an action card, each tapped in the hand ----
    {
      const m = await newMatch("by-hook-or-crook");
      let v = await view(m);
      const p = await open(browser, m, m.seats[0], width, height, errors, `bhc ${size}`);
      await p.waitForSelector("#hand button.legal[data-type='location']");
      await tidy(p, `by-hook-or-crook ${size} seat`);
      const coll = await p.locator("#collection .bhc-card").first().getAttribute("aria-label");
      check(`by-hook-or-crook ${size}: collection cards in words`, /^Series [A-F], \d{4}$/.test(coll || ""), coll);
      await p.locator("#hand button.legal[data-type='location']").first().click();
      await seqAtLeast(p, v.seq + 1);
      v = await view(m);
      check(`by-hook-or-crook ${size}: the location tapped is recorded, sealed`, !v.table.waiting_for.includes(0) && v.table.locations[0] === null, JSON.stringify(v.table.waiting_for));
      await p.waitForFunction(() => document.querySelector("#table").textContent.includes("chosen (sealed)"));
      for (const s of [1, 2]) v = await act(m, s, (ls) => ls[0]);
      await seqAtLeast(p, v.seq);
      await p.waitForSelector("#hand button.legal[data-type='choose']");
      const label = await p.locator("#hand button.legal[data-type='choose']").first().textContent();
      await p.locator("#hand button.legal[data-type='choose']").first().click();
      await seqAtLeast(p, v.seq + 1);
      const mine = await view(m, m.seats[0]);
      check(`by-hook-or-crook ${size}: the action card tapped (${label}) is the one recorded`, mine.you.card !== null && label.replace(/\s/g, "").toLowerCase().includes(mine.you.card.split(":").pop().toLowerCase().replace("check", "")), `${label} vs ${mine.you.card}`);
      for (const s of [1, 2]) if ((await view(m)).to_act.includes(s)) await act(m, s, (ls) => ls[0]);
      const end = await view(m);
      await seqAtLeast(p, end.seq);
      await tidy(p, `by-hook-or-crook ${size} after the turn`);
      await shot(p, `bhc-seat-${size}`);
      const host = await open(browser, m, m.host, width, height, errors, `bhc host ${size}`);
      await tidy(host, `by-hook-or-crook ${size} host`);
      // The header names the felt's turn (not the match's round, which counts the final
      // exhibition as one more turn).
      const status = await host.textContent("#status");
      const felt = (await host.textContent("#table")).match(/Turn \d+/);
      check(`by-hook-or-crook ${size}: the header's turn is the felt's`, !!felt && status.startsWith(`${felt[0]} · `) && !status.includes("Round"), `${status} | ${felt}`);
      await shot(host, `bhc-host-${size}`);
      await Promise.all([p.context().close(), host.context().close()]);
    }
  }
  // ---- The host at real-card tables, and the end of a Members Only heat (390x844) ----
  {
    // Members Only: the deal's two face-up cards picked one then the other, then Confirm.
    const m = await newMatch("members-only", "table", false);
    const host = await open(browser, m, m.host, 390, 844, errors, "mo real cards");
    await host.waitForSelector("#chooser button[data-type='deal'][data-step]");
    const one = await host.locator("#chooser button[data-step]").nth(3).getAttribute("data-step");
    await host.locator("#chooser button[data-step]").nth(3).click();
    const two = await host.locator("#chooser button[data-step]").first().getAttribute("data-step");
    await host.locator("#chooser button[data-step]").first().click();
    await host.locator("#confirm").click();
    await seqAtLeast(host, 1);
    let v = await view(m);
    check(`members-only real cards: the host's deal turns up the two cards picked (${one}, ${two})`,
      [...v.table.face_up].sort().join() === [one, two].sort().join(), JSON.stringify(v.table.face_up));
    // Ada's turn recorded by the host: no bet; round 1 reveals nothing.
    await host.locator("#chooser button[data-step='nobet']").click();
    await host.locator("#confirm").click();
    await seqAtLeast(host, v.seq + 1);
    v = await view(m);
    check("members-only real cards: the host records a turn step by step", v.table.to_play === 1, JSON.stringify(v.to_act));
    await tidy(host, "members-only real cards host");
    await shot(host, "mo-real-host-390x844");
    await host.context().close();
  }
  {
    // P.M.: the host picks the card the leader laid, then the man.
    const m = await newMatch("plus-minus", "table");
    const host = await open(browser, m, m.host, 390, 844, errors, "pm real cards");
    await host.waitForSelector("#chooser .pm-pick button[data-step]");
    let v = await view(m);
    const leader = v.to_act[0];
    const card = Number(await host.locator("#chooser .pm-pick button[data-step]").last().getAttribute("data-pm"));
    await host.locator("#chooser .pm-pick button[data-step]").last().click();
    await host.locator("#table .pm-seat.acting button.cell.lit").first().click();
    await seqAtLeast(host, v.seq + 1);
    v = await view(m);
    check(`plus-minus real cards: the host's card +${card} then the man: a man on ${card}`, v.table.boards[leader].includes(card), JSON.stringify(v.table.boards));
    await tidy(host, "plus-minus real cards host");
    await shot(host, "pm-real-host-390x844");
    await host.context().close();
  }
  {
    // By Hook or Crook: the host records the piles' tops, then each seat's sealed location.
    const m = await newMatch("by-hook-or-crook", "table");
    const host = await open(browser, m, m.host, 390, 844, errors, "bhc real cards");
    let v = await view(m);
    let taps = 0;
    while (v.table.phase === "reveal_pile" && taps < 12) {
      await host.waitForSelector("#chooser button[data-type='reveal_pile']");
      const el = host.locator("#chooser button[data-type='reveal_pile']").first();
      const step = (await el.getAttribute("data-step")) !== null;
      await el.click();
      taps++;
      if (!step) {
        await seqAtLeast(host, v.seq + 1);
        v = await view(m);
      }
    }
    check("by-hook-or-crook real cards: the piles' tops recorded by tapping", v.table.piles.every((p) => p.top !== null), JSON.stringify(v.table.piles));
    await host.waitForSelector("#chooser button[data-step='seat:1']");
    await host.locator("#chooser button[data-step='seat:1']").click();
    await host.locator("#chooser button.opt[data-type='location']").first().click();
    await seqAtLeast(host, v.seq + 1);
    v = await view(m);
    check("by-hook-or-crook real cards: Ben's location recorded for him by the host", !v.table.waiting_for.includes(1), JSON.stringify(v.table.waiting_for));
    await tidy(host, "by-hook-or-crook real cards host");
    await shot(host, "bhc-real-host-390x844");
    await host.context().close();
  }
  {
    // Members Only's end of a heat: the seat discards one card; the other two are revealed.
    const m = await newMatch("members-only");
    let v = await view(m);
    while (v.table.phase === "betting") v = await act(m, v.to_act[0], (ls) => ls.find((a) => a.bet === null));
    const seat = v.to_act[0];
    const p = await open(browser, m, m.seats[seat], 390, 844, errors, "mo final");
    await p.waitForSelector("#chooser button[data-type='final'][data-step]");
    await tidy(p, "members-only end of heat");
    const label = await p.locator("#chooser button[data-type='final'][data-step]").first().textContent();
    await p.locator("#chooser button[data-type='final'][data-step]").first().click();
    const said = await p.locator("#confirm").textContent();
    await shot(p, "mo-final-390x844");
    await p.locator("#confirm").click();
    await seqAtLeast(p, v.seq + 1);
    const me = await view(m, m.seats[seat]);
    const d = me.you.final && me.you.final.discard;
    check(`members-only end of heat: "${label.trim()}" then Confirm records that discard`, d && label.trim() === `Discard ${moWords(d)}`
      && said.startsWith(`Confirm: discard ${moWords(d)}, reveal `), `${JSON.stringify(me.you.final)}; ${said}`);
    await p.context().close();
  }
  {
    // Refusals in the page's words: the problem's `seat` (0-based) named "Cat (seat 3)", its
    // `card` in the game's words; without them, the detail as written.
    const m = await newMatch("members-only");
    const p = await open(browser, m, m.host, 390, 844, errors, "refusals");
    const said = await p.evaluate(async () => {
      const { problemText } = await import("/web/lib.js");
      const { cardWords } = await import("/web/games.js");
      const players = [{ name: "Ada" }, { name: "Ben" }, { name: "Cat" }];
      const words = { players, cardWords: (c) => cardWords("members-only", c) };
      return [
        problemText({ status: 422, json: { detail: "seat 3 does not hold hat:no", seat: 2, card: "hat:no" } }, words),
        problemText({ status: 409, json: { detail: "it is not this seat's turn", seat: 1 } }, words),
        problemText({ status: 422, json: { detail: "no such seat" } }, words),
        problemText({ status: 422, json: { detail: "seat 2 does not hold -7", seat: 1, card: -7 } }, { players, cardWords: (c) => cardWords("plus-minus", c) }),
      ];
    });
    check("refusals name the seat by player and 1-based seat, the card in words", said[0] === "Cat (seat 3) does not hold NO! hat"
      && said[1] === "Ben (seat 2): it is not this seat's turn" && said[2] === "no such seat" && said[3] === "Ben (seat 2) does not hold −7", said.join(" | "));
    await p.context().close();
  }
  // ---- Whole games played through the API while a seat's page and the host's follow: at every
  // change of phase, no raw ids or JSON on either page (390x844) ----
  for (const game of ["members-only", "plus-minus", "by-hook-or-crook"]) {
    const m = await newMatch(game, "service", false);
    const seat = await open(browser, m, m.seats[0], 390, 844, errors, `${game} whole`);
    const host = await open(browser, m, m.host, 390, 844, errors, `${game} whole host`);
    const bad = [];
    const phases = new Set();
    let v = await view(m), k = 0, lastPhase = null;
    while (v.status !== "finished" && k < 600) {
      const who = v.table_to_act ? null : v.to_act[0];
      const token = who === null ? m.host : m.seats[who];
      const ls = (await api("GET", `/v1/matches/${m.id}/legal${who === null ? "" : `?seat=${who}`}`, token)).actions;
      const r = await api("POST", `/v1/matches/${m.id}/actions`, token, { seat: who, action: ls[(k * 7) % ls.length] });
      if (!r.match) { bad.push(`refused ${JSON.stringify(r)}`); break; }
      v = r.match;
      k++;
      const phase = `${v.round}:${v.table.phase}`;
      if (phase !== lastPhase || v.status === "finished") {
        lastPhase = phase;
        phases.add(v.table.phase);
        for (const p of [seat, host]) {
          await seqAtLeast(p, v.seq);
          const raw = await rawIn(p);
          if (raw.length) bad.push(`${phase}: ${raw.join(", ")}`);
        }
      }
    }
    check(`${game}: ${v.status === "finished" ? "a whole game" : "a game"} (${k} actions, phases ${[...phases].join(" ")}) with no raw ids or JSON on the seat's and the host's pages`,
      (v.status === "finished" || k === 600) && phases.size >= 2 && bad.length === 0, bad.slice(0, 5).join("; "));
    await shot(seat, `whole-${game}-seat`);
    await Promise.all([seat.context().close(), host.context().close()]);
  }
  check("no script error", errors.length === 0, errors.join("; "));
});
