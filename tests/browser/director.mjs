// Browser test of a club night run from the tournament pages (issue 22 part 6):
// 1. a director creates an 8-player Clubs Swiss night on the start page's form and pairs round 1;
// 2. enters each table's result through the row form: a deal that does not sum to −26 is refused
//    in the page before anything is sent (no PUT leaves), the rows follow the match until a total
//    reaches −100, the sums show as typed; the standings then hold the exact matchpoints;
// 3. pairs round 2: a player's "Find your seat" line and own view say "Round 2: table T, seat S",
//    T and S those the API's round 2 gives that player;
// 4. the projector view follows round 2 without a reload, has no controls and shows every
//    standings row without scrolling at 1920x1080 and 1280x720, for these 8 and for 32 players;
//    40 players turn two pages;
// 5. Bonus-Malus at four (partnerships, target 200): a column per side, the deal's multiples of
//    5n refused as typed, the rows to the target; each seat's view names North, East, South, West.
// Screenshots (target/browser-artifacts/d*.png) at 390x844, 360x640, 844x390, 1920x1080, 1280x720.
//
// Env: as lib.mjs (BASE, PW_DIR, CHROMIUM, ARTIFACTS).

import { join } from "node:path";
import { ARTIFACTS, BASE, api, check, phone, run } from "./lib.mjs";

const shot = (page, name, fullPage = true) => page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage });
const errors = [];
const puts = [];
let browser = null;
async function newPage(label, opts = phone) {
  const ctx = await browser.newContext(opts);
  const p = await ctx.newPage();
  p.on("pageerror", (e) => errors.push(`${label}: ${e.message}`));
  p.on("request", (r) => { if (r.method() === "PUT") puts.push(r.url()); });
  return p;
}
const COMPASS = ["North", "East", "South", "West"];
const LONG = "Maximiliana Bartholomew-Featherstonehaugh";
const NAMES = [LONG, "Ben", "Cy", "Di", "Eve", "Fay", "Gus", "Hal"];
// The page fits its width (no sideways scrolling).
const noSideScroll = (page) => page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth);
// The projector: nothing scrolls, every standings row is inside the viewport.
const screenFits = (page) => page.evaluate(() => {
  const d = document.documentElement;
  const rows = [...document.querySelectorAll("#screen-standings tr[data-player]")];
  const inside = rows.every((r) => { const b = r.getBoundingClientRect(); return b.top >= 0 && b.bottom <= innerHeight && b.left >= 0 && b.right <= innerWidth; });
  const tables = [...document.querySelectorAll(".screen-table")].every((r) => r.getBoundingClientRect().bottom <= innerHeight);
  return { rows: rows.length, inside, tables, scroll: d.scrollHeight > innerHeight || d.scrollWidth > innerWidth };
});

// Types a table's deals into its row form, row by row.
async function typeDeals(form, deals) {
  for (let k = 0; k < deals.length; k++) {
    const inputs = form.locator(`.deal-rows .deal-row[data-deal="${k + 1}"] input`);
    for (let u = 0; u < deals[k].length; u++) await inputs.nth(u).fill(String(deals[k][u]));
  }
}
const rowCount = (form) => form.locator(".deal-rows .deal-row").count();
const sums = (form) => form.locator(".deal-row.sums .tot").allTextContents();

await run("director", async (b) => {
  browser = b;
  // ---- 1. the night is created on the start page's form ----
  const org = await newPage("director");
  await org.goto(BASE + "/");
  await org.click("#new-tournament summary");
  await org.fill("#t-name", "Clubs night");
  await org.selectOption("#t-game", "clubs");
  await org.selectOption("#t-format", "swiss");
  await org.fill("#t-rounds", "2");
  await org.fill("#t-size", "4");
  await org.selectOption("#t-record", "totals");
  await org.fill("#t-players", NAMES.join("\n"));
  await org.click("#t-create");
  await org.waitForSelector("#pair:not([disabled])");
  const [, id, token] = /^#tournament=([0-9a-f]{32})&o=([0-9a-f]+)$/.exec(new URL(org.url()).hash) || [];
  check("the form creates the night and lands on the organiser's page", Boolean(id && token), org.url());
  await org.click("#pair");
  await org.waitForSelector('[data-round="1"] form.quicklog[data-table="2"]');
  const view1 = await api("GET", `/v1/tournaments/${id}`);
  check("round 1: two tables of four", view1.rounds[0].tables.map((t) => t.players.length).join() === "4,4");

  // ---- 2. the row form ----
  const form1 = org.locator('form.quicklog[data-round="1"][data-table="1"]');
  await form1.waitFor();
  if (process.env.DEBUG_DIRECTOR) console.log(await org.innerHTML("#rounds"));
  check("four columns, one per seat, and four rows laid out (no Clubs match ends in fewer deals)",
    (await form1.locator(".deal-row.head .nm").count()) === 4 && await rowCount(form1) === 4);
  const heights = await form1.locator(".deal-rows input").evaluateAll((els) => els.map((e) => e.getBoundingClientRect().height));
  check("every box is a thumb's size (≥ 44 px)", heights.length === 16 && heights.every((x) => x >= 44), heights.join());
  await typeDeals(form1, [[-10, -6, -4, -5]]);
  const mark = await form1.locator('.deal-row[data-deal="1"] .mark').textContent();
  const refusal = await form1.locator(".checks .refusal").textContent();
  check("a deal summing to −25 shows its sum and the game's refusal as typed", mark === "-25"
    && refusal.includes("deal 1: the points sum to -25; every Clubs deal sums to −26"), `${mark} | ${refusal}`);
  await form1.locator('button[type="submit"]').click();
  await form1.locator(".qmsg .msg.bad").waitFor();
  check("Save with a refusal: not sent (no PUT leaves the page), in plain words",
    puts.length === 0 && (await form1.locator(".qmsg").textContent()).startsWith("Not sent: deal 1: the points sum to -25"), puts.join());
  await shot(org, "d01-refusal-390x844");
  await form1.screenshot({ path: join(ARTIFACTS, "d01-form-390.png") });
  await org.setViewportSize({ width: 360, height: 640 });
  check("the organiser's page fits 360 px; the long name is ellipsised in the form's head", await noSideScroll(org)
    && await form1.locator(".deal-row.head .nm").evaluateAll((els) => els.some((e) => e.scrollWidth > e.clientWidth)));
  await shot(org, "d02-refusal-360x640");
  await form1.screenshot({ path: join(ARTIFACTS, "d02-form-360.png") });
  await org.setViewportSize({ width: 390, height: 844 });
  // Deal 1 corrected; then seat 0 takes every club until it passes −100 at deal 5.
  const deals1 = [[-10, -6, -4, -6], [-26, 0, 0, 0], [-26, 0, 0, 0], [-26, 0, 0, 0]];
  await typeDeals(form1, deals1);
  check("deal 1 corrected: its sum is −26, no refusal", await form1.locator('.deal-row[data-deal="1"] .mark').textContent() === "-26"
    && (await form1.locator(".checks .refusal").count()) === 0);
  check("four deals typed, −88 at most: a fifth row is laid out, the sums shown", await rowCount(form1) === 5
    && (await sums(form1)).join() === "-88,-6,-4,-6" && /not finished/.test(await form1.locator(".checks").textContent()), (await sums(form1)).join());
  await typeDeals(form1, [...deals1, [-26, 0, 0, 0]]);
  check("deal 5 takes North past −100: no sixth row, totals −114, −6, −4, −6, ready to save", await rowCount(form1) === 5
    && (await sums(form1)).join() === "-114,-6,-4,-6" && (await form1.locator(".checks").textContent()) === "Ready to save.", (await sums(form1)).join());
  await org.setViewportSize({ width: 844, height: 390 });
  check("landscape (844x390): no sideways scroll", await noSideScroll(org));
  await shot(org, "d03-rows-844x390");
  await org.setViewportSize({ width: 390, height: 844 });
  await shot(org, "d04-rows-390x844");
  await form1.screenshot({ path: join(ARTIFACTS, "d04-form-390.png") });
  await form1.locator('button[type="submit"]').click();
  await org.waitForSelector('[data-round="1"] .tbl[data-table="1"] table.result');
  const stored1 = (await api("GET", `/v1/tournaments/${id}`, token)).rounds[0].tables[0].result;
  check("one PUT; the stored result is the five deals typed", puts.length === 1
    && JSON.stringify(stored1.deals) === JSON.stringify([...deals1, [-26, 0, 0, 0]]) && stored1.totals.join() === "-114,-6,-4,-6", JSON.stringify(stored1));

  const form2 = org.locator('form.quicklog[data-round="1"][data-table="2"]');
  await typeDeals(form2, [[0, -26, 0, 0], [0, -26, 0, 0], [0, -26, 0, 0], [0, -26, 0, 0]]);
  check("table 2: −104 after deal 4, the rows stop there", await rowCount(form2) === 4 && (await sums(form2)).join() === "0,-104,0,0");
  await form2.locator('button[type="submit"]').click();
  await org.waitForSelector('[data-round="1"] .tbl[data-table="2"] table.result');
  // Matchpoints within the table: 2 per total beaten, 1 per tie (the least negative best).
  const expected = new Map();
  const t1 = view1.rounds[0].tables[0].players, t2 = view1.rounds[0].tables[1].players;
  [0, 3, 6, 3].forEach((mp, s) => expected.set(t1[s].player_id, mp));
  [4, 0, 4, 4].forEach((mp, s) => expected.set(t2[s].player_id, mp));
  await org.waitForFunction((n) => [...document.querySelectorAll("#standings tr[data-player]")].filter((r) => r.dataset.played === "1").length === n, 8);
  const shown = await org.$$eval("#standings tr[data-player]", (rs) => rs.map((r) => [r.dataset.player, Number(r.dataset.matchpoints)]));
  check("the standings after round 1: each player's exact matchpoints, best first",
    shown.length === 8 && shown.every(([p, mp]) => expected.get(p) === mp) && shown[0][1] === 6
    && shown.every((r, i) => i === 0 || shown[i - 1][1] >= r[1]), JSON.stringify(shown));

  // ---- 4a. the projector, open before round 2 is paired ----
  const screen = await newPage("projector", { viewport: { width: 1920, height: 1080 }, deviceScaleFactor: 1 });
  await screen.goto(`${BASE}/#tournament=${id}&screen=1`);
  await screen.waitForSelector('#screen-standings tr[data-player]');
  await screen.waitForSelector('.screen-table[data-table="2"]');
  check("the projector view shows round 1's tables", /Round 1 of 2/.test(await screen.textContent(".screen-head")));

  // ---- 3. round 2 and where to sit ----
  await org.click("#pair");
  await org.waitForSelector('[data-round="2"] form.quicklog');
  const view2 = await api("GET", `/v1/tournaments/${id}`);
  const r2 = view2.rounds[1];
  const who = NAMES.indexOf("Cy");
  const pid = view2.players[who].player_id;
  const tb = r2.tables.find((t) => t.players.some((p) => p.player_id === pid));
  const seat = tb.players.find((p) => p.player_id === pid).seat;
  const want = `Round 2: table ${tb.table}, seat ${COMPASS[seat]}`;
  const pub = await newPage("player");
  await pub.goto(`${BASE}/#tournament=${id}`);
  await pub.waitForSelector('#seats[data-round="2"]');
  const line = await pub.textContent(`#seats li[data-player="${pid}"]`);
  check(`the public "Find your seat" lists everyone, Cy at table ${tb.table}, seat ${COMPASS[seat]}`,
    (await pub.$$("#seats li[data-player]")).length === 8 && line === `Cytable ${tb.table}, seat ${COMPASS[seat]}`, line);
  const scrolls = () => pub.$$eval(".scroll", (els) => els.every((e) => e.scrollWidth <= e.clientWidth));
  // The standings come from their own poll (tournament.js `watch(.../standings)`), apart from the
  // seats drawn from the tournament's view: wait for the long name's row before measuring it.
  const longRow = `#standings tr[data-player="${view2.players[0].player_id}"] .nm`;
  await pub.waitForSelector(longRow);
  check("the standings fit 390 px, the long name ellipsised", await scrolls() && await noSideScroll(pub)
    && await pub.$eval(longRow, (e) => e.scrollWidth > e.clientWidth));
  await shot(pub, "d05-find-your-seat-390x844");
  await pub.click(`#seats li[data-player="${pid}"] a`);
  await pub.waitForSelector("#my-seat #where");
  const where = await pub.textContent("#where");
  check(`Cy's own view: "${want}"`, where === want, where);
  const mates = tb.players.filter((p) => p.player_id !== pid).map((p) => `${p.name} (${COMPASS[p.seat]})`).join(", ");
  check("…with the table's other three and their seats", (await pub.textContent("#with")) === `With: ${mates}`);
  await pub.waitForSelector("#standings tr.mine");
  check("…round 1's seat below it, and Cy's standings row marked", (await pub.textContent("#my-seat ul.earlier")).startsWith("Round 1: table ")
    && (await pub.$$eval("#standings tr.mine", (rs) => rs.map((r) => r.dataset.player))).join() === pid);
  await pub.setViewportSize({ width: 360, height: 640 });
  check("the player's view and its standings fit 360 px", await noSideScroll(pub) && await scrolls(),
    JSON.stringify(await pub.$$eval(".scroll", (els) => els.map((e) => [e.scrollWidth, e.clientWidth]))));
  await shot(pub, "d06-my-seat-360x640");

  // ---- 4b. the projector followed round 2 ----
  await screen.waitForFunction(() => /Round 2 of 2/.test(document.querySelector(".screen-head").textContent), null, { timeout: 8000 });
  const cyScreen = await screen.$eval(`.screen-table[data-table="${tb.table}"] .tseat[data-player="${pid}"]`, (e) => e.textContent);
  check("the projector follows round 2 without a reload, Cy at the same table and seat", cyScreen === `${COMPASS[seat][0]}Cy`, cyScreen);
  check("the projector has no controls", (await screen.$$("main a, main button, main input, main select")).length === 0);
  for (const [w, hgt] of [[1920, 1080], [1280, 720]]) {
    await screen.setViewportSize({ width: w, height: hgt });
    const f = await screenFits(screen);
    check(`projector ${w}x${hgt}: all 8 standings rows on screen, no scrolling`, f.rows === 8 && f.inside && f.tables && !f.scroll, JSON.stringify(f));
    await shot(screen, `d07-projector-${w}x${hgt}`, false);
  }
  // 32 players (eight tables) on one screen.
  const big = await api("POST", "/v1/tournaments", null, {
    name: "Clubs league night", game: "clubs", format: "swiss", rounds: 3, table_size: 4, record: "totals",
    players: Array.from({ length: 32 }, (_, i) => ({ name: i === 5 ? LONG : `Player ${i + 1}` })),
  });
  await api("POST", `/v1/tournaments/${big.tournament.id}/rounds`, big.organiser_token);
  await screen.goto("about:blank");
  await screen.goto(`${BASE}/#tournament=${big.tournament.id}&screen=1`);
  await screen.waitForSelector('.screen-table[data-table="8"]');
  await screen.waitForFunction(() => document.querySelectorAll("#screen-standings tr[data-player]").length === 32);
  for (const [w, hgt] of [[1920, 1080], [1280, 720]]) {
    await screen.setViewportSize({ width: w, height: hgt });
    const f = await screenFits(screen);
    check(`projector ${w}x${hgt}, 32 players: every standings row and all 8 tables on screen, no scrolling`,
      f.rows === 32 && f.inside && f.tables && !f.scroll, JSON.stringify(f));
    await shot(screen, `d08-projector32-${w}x${hgt}`, false);
  }

  // 40 players: more than a screen; the standings and the tables turn pages.
  const huge = await api("POST", "/v1/tournaments", null, {
    name: "Clubs county night", game: "clubs", format: "swiss", rounds: 3, table_size: 4, record: "totals",
    players: Array.from({ length: 40 }, (_, i) => ({ name: `Player ${i + 1}` })),
  });
  await api("POST", `/v1/tournaments/${huge.tournament.id}/rounds`, huge.organiser_token);
  await screen.goto("about:blank");
  await screen.goto(`${BASE}/#tournament=${huge.tournament.id}&screen=1`);
  await screen.waitForFunction(() => document.querySelectorAll("#screen-standings tr[data-player]").length === 32
    && document.querySelectorAll(".screen-table").length === 8);
  const p1 = await screenFits(screen);
  const heads = () => screen.$$eval(".screen-grid h2", (hs) => hs.map((x) => x.textContent).join(" | "));
  check("40 players at 1920x1080: page 1 of 2 holds standings 1-32 and tables 1-8, no scrolling",
    p1.inside && p1.tables && !p1.scroll && await heads() === "Standings · 1/2 | Round 1: where to sit · 1/2", `${JSON.stringify(p1)} ${await heads()}`);
  await screen.waitForFunction(() => document.querySelectorAll("#screen-standings tr[data-player]").length === 8, null, { timeout: 20000 });
  const tablesOn2 = await screen.$$eval(".screen-table", (ts) => ts.map((x) => x.dataset.table).join());
  const rows2 = await screen.$$eval("#screen-standings tr[data-player]", (rs) => rs.map((r) => r.dataset.player).join());
  const st40 = await api("GET", `/v1/tournaments/${huge.tournament.id}/standings`);
  check("…and the page turns by itself: standings rows 33-40 (as the API ranks them), tables 9 and 10", tablesOn2 === "9,10"
    && rows2 === st40.rows.slice(32).map((r) => r.player_id).join(), `${tablesOn2} ${rows2}`);
  await shot(screen, "d09-projector40-page2-1920x1080", false);

  // ---- 5. partnership play: Bonus-Malus at four, a side a column, seats by the compass ----
  const bm = await api("POST", "/v1/tournaments", null, {
    name: "Pairs night", game: "bonus-malus", format: "swiss", rounds: 1, table_size: 4, record: "totals",
    config: { target: 200 }, players: ["Ann", "Bob", "Col", "Dot"].map((name) => ({ name })),
  });
  const bmRound = await api("POST", `/v1/tournaments/${bm.tournament.id}/rounds`, bm.organiser_token);
  const seats = bmRound.tables[0].players;
  await org.goto("about:blank");
  await org.goto(`${BASE}/#tournament=${bm.tournament.id}&o=${bm.organiser_token}`);
  const bmForm = org.locator('form.quicklog[data-round="1"][data-table="1"]');
  await bmForm.waitFor();
  const sideNames = await bmForm.locator(".deal-row.head .nm").allTextContents();
  check("two columns, one per side (seats 1 & 3 against 2 & 4)",
    sideNames.join("|") === `${seats[0].name} & ${seats[2].name}|${seats[1].name} & ${seats[3].name}`, sideNames.join("|"));
  await typeDeals(bmForm, [[100, 5]]);
  check("both sides scoring in a deal: refused as typed", (await bmForm.locator(".checks").textContent())
    === "Not possible: deal 1: 100, 5; with two sides only the one with a plus total scores.");
  await typeDeals(bmForm, [[150, 0]]);
  check("150 of the target 200 (the tournament's option): a second row", await rowCount(bmForm) === 2);
  await typeDeals(bmForm, [[150, 0], [0, 55]]);
  check("deal 2 scores multiples of 10: 55 refused", (await bmForm.locator(".checks").textContent())
    === "Not possible: deal 2: 0, 55; Bonus-Malus deal 2 scores 0 or a multiple of 10 up to 390.");
  await typeDeals(bmForm, [[150, 0], [60, 0]]);
  check("210 reaches 200 after deal 2: ready, no third row", await rowCount(bmForm) === 2
    && (await sums(bmForm)).join() === "210,0" && (await bmForm.locator(".checks").textContent()) === "Ready to save.");
  await bmForm.locator('button[type="submit"]').click();
  await org.waitForSelector('[data-round="1"] .tbl[data-table="1"] table.result');
  const bmResult = (await api("GET", `/v1/tournaments/${bm.tournament.id}`)).rounds[0].tables[0].result;
  check("the server took it: totals 210, 0; the first side won", bmResult.totals.join() === "210,0" && bmResult.winners.join() === "0");
  for (const p of seats) {
    await pub.goto("about:blank");
    await pub.goto(`${BASE}/#tournament=${bm.tournament.id}&p=${p.player_id}`);
    const w = await pub.textContent("#where");
    check(`${p.name} (seat ${p.seat + 1}): "Round 1: table 1, seat ${COMPASS[p.seat]}"`, w === `Round 1: table 1, seat ${COMPASS[p.seat]}`, w);
  }

  check("no script error", errors.length === 0, errors.join("; "));
});
