// Browser test of tournaments on the page (scripts/ci-browser.sh runs it after games.mjs):
// 1. the start page's "New tournament" form creates one and lands on the organiser's page;
// 2. a Dump round robin whose totals the organiser enters (quick log): round 1 is paired by the
//    button (pairing again is refused in the server's words), a bad entry shows the 422's detail,
//    a good one shows on a second phone's public tournament page within the polling interval;
// 3. a P.M. Swiss round played as matches: a seat's page opened by the organiser page's link shows
//    the Tournament panel with the standings, that table's players highlighted; the table's match
//    is finished over the API (the host records legal actions) and the panel's standings follow
//    without a reload. The organiser's token never appears in a requested URL.
//
// Env: as lib.mjs (BASE, PW_DIR, CHROMIUM, ARTIFACTS).

import { join } from "node:path";
import { ARTIFACTS, BASE, api, check, phone, run } from "./lib.mjs";

const shot = (page, name) => page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
const errors = [];
const urls = [];
let browser = null;
async function phonePage(label) {
  const ctx = await browser.newContext(phone);
  const p = await ctx.newPage();
  p.on("pageerror", (e) => errors.push(`${label}: ${e.message}`));
  p.on("request", (r) => urls.push(r.url()));
  return p;
}
// A page shows no "null" or "undefined" where something was missing.
const clean = (page, sel = "main") => page.textContent(sel).then((t) => !/\b(null|undefined|NaN)\b/.test(t));
// The standings' tables fit the phone's width (no sideways scrolling).
const fits = (page) => page.$$eval(".scroll", (els) => els.length > 0 && els.every((e) => e.scrollWidth <= e.clientWidth));
const players = (names) => names.map((name) => ({ name }));
const playedOf = (page, ids) => page.$$eval("#standings tr[data-player], #tournament tr[data-player]",
  (rows, ids) => rows.filter((r) => ids.includes(r.dataset.player)).map((r) => Number(r.dataset.played)), ids);

// Plays a match to its end over the API: the host records a legal action (for the table, else
// for a seat to act) until it is finished. Returns how many actions it took.
async function finishMatch(id, host) {
  for (let n = 0; n < 5000; n++) {
    const v = await api("GET", `/v1/matches/${id}`, host);
    if (v.status === "finished") return n;
    const asks = v.table_to_act ? [null, ...v.to_act] : v.to_act;
    let choice = null;
    for (const seat of asks) {
      const l = await api("GET", `/v1/matches/${id}/legal${seat === null ? "" : `?seat=${seat}`}`, host);
      if (l.actions && l.actions.length) { choice = { seat, action: l.actions[Math.floor(Math.random() * l.actions.length)] }; break; }
    }
    if (!choice) throw new Error(`nothing legal at version ${v.seq}`);
    const r = await api("POST", `/v1/matches/${id}/actions`, host, choice);
    if (!r.match) throw new Error(`refused at version ${v.seq}: ${JSON.stringify(r)}`);
  }
  throw new Error("the match did not finish in 5000 actions");
}

await run("tournament", async (b) => {
  browser = b;
  // ---- 1. the start page's form ----
  const start = await phonePage("start");
  await start.goto(BASE + "/");
  await start.click("#new-tournament summary");
  await start.fill("#t-name", "Form night");
  await start.selectOption("#t-game", "dump");
  await start.selectOption("#t-format", "round_robin");
  check("the form hides the rounds for a round robin", await start.locator("#t-rounds").isHidden());
  await start.fill("#t-size", "2");
  await start.selectOption("#t-record", "totals");
  await start.fill("#t-players", "Ada\nBen\nCy\n");
  await shot(start, "t01-form");
  await start.click("#t-create");
  await start.waitForSelector("#pair");
  const formHash = new URL(start.url()).hash;
  check("the form lands on the organiser's page", /^#tournament=[0-9a-f]{32}&o=[0-9a-f]+$/.test(formHash), formHash);
  check("the organiser is told to bookmark the page", /bookmark/i.test(await start.textContent("#organiser")));
  await start.waitForSelector("#standings tr[data-player]");
  check("the new tournament's name and players", (await start.textContent("h1")) === "Form night"
    && (await start.$$("#standings tr[data-player]")).length === 3);
  await start.context().close();

  // ---- 2. a quick-log round robin ----
  const t1 = await api("POST", "/v1/tournaments", null, {
    name: "Dump night", game: "dump", format: "round_robin", table_size: 2, record: "totals", players: players(["Ada", "Ben", "Cy", "Di"]),
  });
  const id1 = t1.tournament.id, org1 = t1.organiser_token;
  const org = await phonePage("organiser");
  await org.goto(`${BASE}/#tournament=${id1}&o=${org1}`);
  await org.waitForSelector("#pair:not([disabled])");
  await org.waitForSelector("#standings tr[data-player]");
  await org.click("#pair");
  await org.waitForSelector('[data-round="1"] form.quicklog');
  const tables = await org.$$('[data-round="1"] .tbl');
  check("the Pair button pairs round 1: two tables of two, each with a result form", tables.length === 2
    && (await org.$$('[data-round="1"] form.quicklog')).length === 2);
  await org.click("#pair");
  await org.waitForSelector("#pair-msg .msg.bad");
  const refusal = await org.textContent("#pair-msg");
  check("pairing again before the round is complete is refused in the server's words", refusal.length > 10 && !refusal.includes("the server answered"), refusal);

  const pub = await phonePage("public");
  await pub.goto(`${BASE}/#tournament=${id1}`);
  await pub.waitForSelector('#standings tr[data-player]');
  await pub.waitForSelector('[data-round="1"] .tbl');
  check("the public page has no organiser's controls", !(await pub.$("#pair")) && !(await pub.$("form.quicklog")) && !(await pub.$("[data-open]")));
  check("the public page links the four exports", (await pub.$$eval("#exports a", (as) => as.map((a) => a.getAttribute("href"))))
    .join() === ["standings.csv", "results.csv", "results.json", "bgstats.json"].map((f) => `/v1/tournaments/${id1}/export/${f}`).join());

  const view1 = await api("GET", `/v1/tournaments/${id1}`);
  const table1 = view1.rounds[0].tables[0];
  const form = org.locator('form.quicklog[data-round="1"][data-table="1"]');
  // Final totals only (the box under the rows): 40 to 0 does not reach Dump's 100.
  await form.locator("input.only-totals").check();
  const totals = form.locator(".totals-in input");
  await totals.nth(0).fill("40");
  await totals.nth(1).fill("0");
  await form.locator('button[type="submit"]').click();
  await form.locator(".qmsg .msg.bad").waitFor();
  const bad = await form.locator(".qmsg").textContent();
  check("a wrong entry is refused before sending, in the game's words", bad === "Not sent: the match ends when a side reaches 100; the best total is 40.", bad);
  await totals.nth(0).fill("100");
  await totals.nth(1).fill("7");
  await shot(org, "t02-organiser-quicklog");
  await form.locator('button[type="submit"]').click();
  const t0 = Date.now();
  await org.waitForSelector('[data-round="1"] .tbl[data-table="1"] table.result');
  const ids1 = table1.players.map((p) => p.player_id);
  let seen = true;
  await pub.waitForFunction((ids) => ids.every((id) => document.querySelector(`#standings tr[data-player="${id}"]`)?.dataset.played === "1"),
    ids1, { timeout: 8000 }).catch(() => { seen = false; });
  check(`the public page's standings show the result within the polling interval (${Date.now() - t0} ms)`, seen,
    JSON.stringify(await playedOf(pub, ids1)));
  const winnerRow = await pub.$eval("#standings tbody tr", (r) => [r.dataset.player, r.dataset.matchpoints]);
  check("the table's winner heads the standings", winnerRow[0] === ids1[0] && Number(winnerRow[1]) > 0, JSON.stringify(winnerRow));
  await pub.waitForSelector('[data-round="1"] .tbl[data-table="1"] table.result');
  check("the public page shows the table's result", (await pub.textContent('[data-round="1"] .tbl[data-table="1"]')).includes("100"));
  check("the public page's standings fit a phone", await fits(pub));
  check("the organiser's and public pages show no null", await clean(org) && await clean(pub));
  // Points per deal, a row each: the totals are their sums.
  const form2 = org.locator('form.quicklog[data-round="1"][data-table="2"]');
  for (const [k, deal] of [[60, 0], [0, 30], [40, 0]].entries()) {
    const inputs = form2.locator(`.deal-row[data-deal="${k + 1}"] input`);
    await inputs.nth(0).fill(String(deal[0]));
    await inputs.nth(1).fill(String(deal[1]));
  }
  await form2.locator('button[type="submit"]').click();
  await org.waitForSelector('[data-round="1"] .tbl[data-table="2"] table.result');
  const row2 = await org.$$eval('[data-round="1"] .tbl[data-table="2"] table.result tr', (rs) => rs.slice(1).map((r) => r.children[1].textContent));
  check("points per deal entered a row each give the totals", row2.join() === "100,30", row2.join());
  await shot(pub, "t03-public-standings");
  await org.context().close();
  await pub.context().close();

  // ---- 3. a Swiss round of matches: the match page's Tournament panel ----
  const t2 = await api("POST", "/v1/tournaments", null, {
    name: "P.M. night", game: "plus-minus", format: "swiss", rounds: 1, table_size: 3, dealing: "table",
    config: { rubber_games: 1 }, players: players(["Ada", "Ben", "Cy", "Di", "Eve", "Fay"]),
  });
  const id2 = t2.tournament.id, org2 = t2.organiser_token;
  const org2p = await phonePage("organiser 2");
  await org2p.goto(`${BASE}/#tournament=${id2}&o=${org2}`);
  await org2p.waitForSelector("#pair:not([disabled])");
  await org2p.click("#pair");
  const seatLink = '[data-round="1"] .tbl[data-table="1"] a[data-open="seat"][data-seat="0"]';
  await org2p.waitForSelector(seatLink);
  check("each table offers its host's and seats' pages", (await org2p.$$('[data-round="1"] a[data-open="host"]')).length === 2
    && (await org2p.$$('[data-round="1"] a[data-open="seat"]')).length === 6);
  check("with every round paired, the Pair button rests", await org2p.locator("#pair").isDisabled());
  await shot(org2p, "t04-organiser-round");
  const href = await org2p.getAttribute(seatLink, "href");
  await org2p.click('[data-round="1"] .tbl[data-table="1"] button[data-qr]');
  await org2p.waitForSelector("#links .qr svg"); // the QR encoder is loaded with the first code
  const qrs = (await org2p.$$("#links .qr svg")).length;
  const joins = await org2p.$$eval("#links a[data-join]", (as) => as.map((a) => a.getAttribute("href")));
  check("a table's QR codes: one per seat, the same links", qrs === 3 && joins[0] === href && await clean(org2p), `${qrs} ${joins[0]}`);
  await org2p.click("#back");
  await org2p.waitForSelector(seatLink);
  const seat = await phonePage("seat");
  await seat.goto(href);
  await seat.waitForSelector("#tournament tr.mine");
  const view2 = await api("GET", `/v1/tournaments/${id2}`);
  const table = view2.rounds[0].tables[0];
  const mine = await seat.$$eval("#tournament tr.mine", (rows) => rows.map((r) => r.dataset.player));
  check("the seat's page shows the Tournament panel, this table's three players highlighted",
    mine.length === 3 && table.players.every((p) => mine.includes(p.player_id)), JSON.stringify(mine));
  await seat.waitForFunction(() => document.querySelector("#tournament-name").textContent !== "Tournament");
  check("the panel names the tournament, round and table", await seat.locator("#tournament").textContent()
    .then((t) => t.includes("P.M. night") && t.includes("round 1") && t.includes("table 1")));
  check("the panel lists all six entrants", (await seat.$$("#tournament tr[data-player]")).length === 6);
  check("the panel's standings fit a phone, no null on the page", await fits(seat) && await clean(seat, "#tournament"));
  await shot(seat, "t05-seat-panel");

  const round = await api("GET", `/v1/tournaments/${id2}/rounds/1`, org2);
  const tk = round.tokens.find((x) => x.table === 1);
  await seat.evaluate(() => { window.notReloaded = true; });
  const n = await finishMatch(tk.match_id, tk.host_token);
  const t1s = Date.now();
  const ids2 = table.players.map((p) => p.player_id);
  let follows = true;
  await seat.waitForFunction((ids) => ids.every((id) => document.querySelector(`#tournament tr[data-player="${id}"]`)?.dataset.played === "1"),
    ids2, { timeout: 8000 }).catch(() => { follows = false; });
  check(`after the match's ${n} actions, the panel's standings follow without a reload (${Date.now() - t1s} ms)`,
    follows && await seat.evaluate(() => window.notReloaded === true), JSON.stringify(await playedOf(seat, ids2)));
  // `data-status` is drawn from the match's own stream (app.js `stream` → `render`), not by the
  // panel's standings poll waited for above, which may show the result first: wait for it.
  await seat.waitForSelector('body[data-status="finished"]', { state: "attached", timeout: 8000 }).catch(() => {});
  check("the seat's page shows the match finished", (await seat.getAttribute("body", "data-status")) === "finished");
  await shot(seat, "t06-seat-panel-finished");
  await org2p.waitForSelector('[data-round="1"] .tbl[data-table="1"] table.result', { timeout: 8000 });
  check("the organiser's page shows the match's result", true);
  // Table 2's match is still being played: a result by hand asks first, then closes the match.
  const form3 = org2p.locator('form.quicklog[data-round="1"][data-table="2"]');
  await org2p.locator('[data-round="1"] .tbl[data-table="2"] details summary').click();
  // One game (the rubber is one game): a row of three.
  for (const [u, x] of [10, 20, 30].entries()) await form3.locator('.deal-row[data-deal="1"] input').nth(u).fill(String(x));
  await form3.locator('button[type="submit"]').click();
  await form3.locator(".qmsg .msg.warn").waitFor();
  check("a result by hand for a table still playing asks before closing its match",
    /closes the match for good/.test(await form3.locator(".qmsg").textContent()));
  await shot(org2p, "t07-organiser-abandon");
  await form3.locator(".qmsg button.danger").click();
  await org2p.waitForSelector('[data-round="1"] .tbl[data-table="2"] table.result', { timeout: 8000 });
  const tk2 = round.tokens.find((x) => x.table === 2);
  const m2 = await api("GET", `/v1/matches/${tk2.match_id}`, tk2.host_token);
  check("confirmed, the result stands and the table's match is abandoned", m2.status === "abandoned", m2.status);
  await org2p.context().close();
  await seat.context().close();

  const leaked = urls.filter((u) => u.includes(org1) || u.includes(org2));
  check("no requested URL holds an organiser's token", leaked.length === 0, leaked.join(" "));
  check("no script error", errors.length === 0, errors.join("; "));
});
