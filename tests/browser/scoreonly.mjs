// Browser test of score-only play (scripts/ci-browser.sh runs it): for each of the six games the
// host creates a match with "Scores only" on the create form (real cards, `config.scores_only`)
// and enters each round's result on the number pad in the tray (tally.js): the live derived
// values, the refusal in plain words before sending (Send disabled), the score sheet's exact
// totals after each round, the match end, Undo of a tally; the pad and Send on screen without
// scrolling at 390x844, 360x640 and 844x390; the taps one Clubs deal takes (printed). Also an
// ordinary real-card Dump match: deal, then the deal's result entered on the pad instead of cards.
// Members Only is stepped marker by marker over three heats to its end (the steppers' floor the
// markers where they stand), By Hook or Crook's final positions entered with a tie broken on the
// pad; after each round the page's sheet is checked against the API's.
//
// Each game runs on its own: a game whose API side is missing fails its own checks only.
//
// Env: as lib.mjs (BASE, PW_DIR, CHROMIUM, ARTIFACTS).

import { join } from "node:path";
import { ARTIFACTS, BASE, api as call, check, drawn, phone, run } from "./lib.mjs";

const api = (path, token) => call("GET", path, token);
const shot = (page, name) => page.screenshot({ path: join(ARTIFACTS, `${name}.png`) });
const seqOf = async (page) => Number(await page.evaluate(() => document.body.dataset.seq));

// The score sheet's totals row, as numbers.
async function totals(page) {
  return page.$$eval("#scores tr.total td", (tds) => tds.slice(2).map((td) => Number(td.textContent.replace("−", "-"))));
}
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

// Creates a match on the create form; `scoresOnly` taps the "Scores only" choice. Returns the
// host page at its table, the match id and the seat links, or null (the creation was refused).
async function create(browser, game, names, { scoresOnly = true } = {}) {
  const ctx = await browser.newContext(phone);
  const page = await ctx.newPage();
  page.on("pageerror", (e) => check(`${game}: host page has no script error`, false, e.message));
  await page.goto(BASE + "/");
  await page.selectOption("#game", game);
  await page.locator("#create .choices").first().locator(`button:text-is("${names.length}")`).click();
  for (let s = 0; s < names.length; s++) await page.fill(`input[data-seat="${s}"]`, names[s]);
  await page.click(scoresOnly ? "#scores-only" : "#dealing-table");
  if (scoresOnly) {
    check(`${game}: the Scores only choice shows selected`, await page.getAttribute("#scores-only", "aria-pressed") === "true"
      && await page.$eval("#scores-only", (b) => b.classList.contains("on"))
      && !(await page.$eval("#dealing-service", (b) => b.classList.contains("on"))));
  }
  await page.click("#create-btn");
  await page.waitForFunction(() => document.querySelector("#links") || document.querySelector("#create-msg")?.textContent.trim(), null, { timeout: 10000 }).catch(() => {});
  if (!(await page.$("#links"))) {
    check(`${game}: a score-only match is created`, false, await page.textContent("#create-msg").catch(() => ""));
    await ctx.close();
    return null;
  }
  const hostLink = await page.getAttribute("#open-host", "href");
  const seatLinks = [];
  for (let s = 0; s < names.length; s++) seatLinks.push(await page.getAttribute(`a[data-join="${s}"]`, "href"));
  const id = new URL(hostLink).hash.match(/m=([0-9a-f]+)/)[1];
  const hostToken = new URL(hostLink).hash.match(/t=([0-9a-f]+)/)[1];
  const view = await api(`/v1/matches/${id}`, hostToken);
  if (scoresOnly) check(`${game}: created with dealing "table" and config.scores_only`, view.dealing === "table" && view.config && view.config.scores_only === true, JSON.stringify(view.config));
  await page.goto(hostLink);
  await drawn(page);
  return { ctx, page, id, hostToken, seatLinks };
}

// Types a row's number: a tap into the field, then the keys (digits and "-" are not taps).
async function typeRow(page, i, text, taps) {
  await page.click(`#tally input[data-entry="${i}"]`);
  taps.n++;
  await page.fill(`#tally input[data-entry="${i}"]`, "");
  await page.keyboard.type(String(text));
}

async function send(page, taps) {
  const before = await seqOf(page);
  await page.click("#tally-send");
  taps.n++;
  await page.waitForFunction((s) => Number(document.body.dataset.seq) > s, before, { timeout: 10000 });
}

async function refusalShown(page) {
  const el = await page.$("#tally-refusal");
  if (!el || await el.isHidden()) return "";
  return (await el.textContent()).trim();
}

async function undoLast(page) {
  const before = await seqOf(page);
  await page.click("#undo");
  await page.click("#undo-yes");
  await page.waitForFunction((s) => Number(document.body.dataset.seq) > s, before, { timeout: 10000 });
}

// The pad and Send fully on screen, with nothing scrolled, at three phone sizes.
async function padFits(page, game) {
  for (const [w, hgt] of [[390, 844], [360, 640], [844, 390]]) {
    await page.setViewportSize({ width: w, height: hgt });
    await page.waitForTimeout(50); // one frame for the layout
    const r = await page.evaluate(() => {
      const vis = (sel) => { const b = document.querySelector(sel)?.getBoundingClientRect(); return b && b.top >= 0 && b.bottom <= innerHeight && b.left >= 0 && b.right <= innerWidth; };
      const all = (sel) => [...document.querySelectorAll(sel)].every((el) => { const b = el.getBoundingClientRect(); return b.top >= 0 && b.bottom <= innerHeight && b.left >= 0 && b.right <= innerWidth; });
      // Every field and stepper inside the screen, and no two stepper buttons overlapping.
      const steps = [...document.querySelectorAll("#tally .stepper button")].map((el) => el.getBoundingClientRect());
      const overlap = steps.some((a, i) => steps.some((b, j) => j > i && a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom));
      return { send: vis("#tally-send"), fields: all("#tally input, #tally .stepper button, #tally .tally-sign"), overlap,
        scrollX: document.documentElement.scrollWidth <= innerWidth, y: scrollY };
    });
    check(`${game}: pad and Send on screen without scrolling at ${w}x${hgt}`, r.send && r.fields && !r.overlap && r.scrollX && r.y === 0, JSON.stringify(r));
    await shot(page, `scoreonly-${game}-pad-${w}x${hgt}`);
  }
  await page.setViewportSize(phone.viewport);
}

async function game(label, body) {
  try { await body(); } catch (e) { check(`${label}: runs to its end`, false, e.stack || String(e)); }
}

// The page's own side, runnable on any API: an ordinary real-card match whose view the browser
// sees with `config.scores_only` set (its GET answers patched, its stream cut), so that the pad
// is drawn from the page's built-in descriptor. Checks the pad's rows, its fit at three sizes and
// what it says before sending; it sends nothing.
async function preview(browser, game, names) {
  const made = await call("POST", "/v1/matches", null, { game, players: names.map((name) => ({ name })), dealing: "table" });
  const id = made.match.id;
  const ctx = await browser.newContext(phone);
  const page = await ctx.newPage();
  page.on("pageerror", (e) => check(`preview ${game}: page has no script error`, false, e.message));
  await page.route(`**/v1/matches/${id}/stream**`, (r) => r.abort());
  await page.route(`**/v1/matches/${id}`, async (r) => {
    const res = await r.fetch();
    const v = await res.json();
    v.config = { ...(v.config || {}), scores_only: true };
    await r.fulfill({ response: res, json: v });
  });
  await page.goto(`${BASE}/#m=${id}&t=${made.host_token}`);
  await page.waitForSelector("#tally");
  return { ctx, page };
}

await run("scoreonly", async (browser) => {
  await game("preview", async () => {
    // Members Only and By Hook or Crook are played through their real score-only matches below.
    const counts = { clubs: 4, dump: 2, "bonus-malus": 2, "plus-minus": 3 };
    for (const [g, rows] of Object.entries(counts)) {
      const names = g === "clubs" || g === "dump" || g === "bonus-malus" ? ["Ada", "Ben", "Cy", "Di"] : ["Ada", "Ben", "Cy"];
      const { ctx, page } = await preview(browser, g, names);
      const n = await page.$$eval("#tally .tally-row", (els) => els.length);
      check(`preview ${g}: the pad has ${rows} rows`, n === rows, String(n));
      check(`preview ${g}: no card picker beside the pad`, !(await page.$("#actions .picker, #pick-seat")));
      await padFits(page, `preview-${g}`);
      if (g === "clubs") {
        const taps = { n: 0 };
        for (const [i, x] of [-4, -3, -16, -1].entries()) await typeRow(page, i, x, taps);
        const why = await refusalShown(page);
        check("preview clubs: a sum of −24 is refused before sending, in words", why === "The numbers sum to −24, not −26: 2 short", why);
        check("preview clubs: Send disabled while refused", await page.isDisabled("#tally-send"));
        await typeRow(page, 3, "-3", taps);
        const live = await page.textContent("#tally-live");
        check("preview clubs: sum −26 ✓ and the totals after, live", live.includes("sum −26 ✓") && live.includes("totals after: Ada −4, Ben −3, Cy −16, Di −3"), live);
        check("preview clubs: Send enabled once the sum is −26", !(await page.isDisabled("#tally-send")));
        check(`preview clubs: a deal takes ${taps.n - 1} taps before Send (4 fields; the refusal's fix 1 more)`, taps.n === 5);
        await shot(page, "scoreonly-preview-clubs-typed");
      }
      if (g === "bonus-malus") {
        const taps = { n: 0 };
        await typeRow(page, 0, "35", taps);
        await typeRow(page, 1, "20", taps);
        const why = await refusalShown(page);
        check("preview bonus-malus: two plus sides refused", why === "Only one side can have a plus total: the other scores 0", why);
      }
      if (g === "by-hook-or-crook") {
        const taps = { n: 0 };
        for (const [i, x] of [38, 30, 38].entries()) await typeRow(page, i, x, taps);
        const why = await refusalShown(page);
        check("preview by-hook-or-crook: a furthest tie asks who wins it", why === "Ada and Cy tie on space 38: choose who wins the tie", why);
        await page.click('#tally-tie button[data-tie="2"]');
        check("preview by-hook-or-crook: the tie chosen, Send enabled and the winner shown",
          !(await page.isDisabled("#tally-send")) && (await page.textContent("#tally-live")).includes("Cy wins on space 38: the game ends"));
        await shot(page, "scoreonly-preview-bhoc-tie");
      }
      await ctx.close();
    }
  });

  // ---- an ordinary real-card Dump match: deal, then the pad's tally (the API of today) ----
  await game("dump (ordinary)", async () => {
    const m = await create(browser, "dump", ["Ada", "Ben", "Cy", "Di"], { scoresOnly: false });
    if (!m) return;
    const { page } = m;
    await page.click('button[data-type="deal"]');
    await page.waitForSelector("#tally-open");
    await page.click("#tally-open");
    await page.waitForSelector("#tally");
    const taps = { n: 0 };
    await typeRow(page, 0, "120", taps);
    check("dump (ordinary): typing one side fills the other as 160 − it",
      await page.inputValue('#tally input[data-entry="1"]') === "40");
    const live = await page.textContent("#tally-live");
    check("dump (ordinary): the side over 80 scores the excess, shown live", live.includes("Ada & Cy scores 40") && live.includes("totals after: Ada & Cy 40, Ben & Di 0"), live);
    await shot(page, "scoreonly-dump-ordinary-pad");
    await send(page, taps);
    check("dump (ordinary): sheet totals 40 / 0 after the tallied deal", same(await totals(page), [40, 0]), JSON.stringify(await totals(page)));
    await undoLast(page);
    check("dump (ordinary): Undo takes the tally back (totals 0 / 0)", same(await totals(page), [0, 0]), JSON.stringify(await totals(page)));
    await m.ctx.close();
  });

  // ---- Clubs, 4 seats: deals to the −100 end, a sum refusal, Undo, the taps per deal ----
  await game("clubs", async () => {
    const m = await create(browser, "clubs", ["Ada", "Ben", "Cy", "Di"]);
    if (!m) return;
    const { page } = m;
    await page.waitForSelector("#tally");
    check("clubs: no card picker on the host's phone", !(await page.$("#actions .picker, #pick-seat")));
    await padFits(page, "clubs");
    const deal = async (pts, want) => {
      const taps = { n: 0 };
      for (let i = 0; i < 4; i++) await typeRow(page, i, pts[i], taps);
      check(`clubs: sum ${pts.join(",")} ✓ shown`, (await page.textContent("#tally-live")).includes("sum −26 ✓"));
      await send(page, taps);
      const t = await totals(page);
      check(`clubs: totals ${want.join(" ")} after the deal`, same(t, want), JSON.stringify(t));
      return taps.n;
    };
    // Deal 1, first typed 2 short: the refusal in words and Send disabled before sending.
    const taps = { n: 0 };
    for (const [i, x] of [-4, -3, -16, -1].entries()) await typeRow(page, i, x, taps);
    const why = await refusalShown(page);
    check("clubs: a sum of −24 is refused before sending, in words", why === "The numbers sum to −24, not −26: 2 short", why);
    check("clubs: the live line says 2 short", (await page.textContent("#tally-live")).includes("sum −24: 2 short"));
    check("clubs: Send disabled while refused", await page.isDisabled("#tally-send"));
    await shot(page, "scoreonly-clubs-refusal");
    await typeRow(page, 3, "-3", taps);
    check("clubs: the refusal goes once the sum is −26", await refusalShown(page) === "" && !(await page.isDisabled("#tally-send")));
    await send(page, taps);
    check("clubs: totals −4 −3 −16 −3 after deal 1", same(await totals(page), [-4, -3, -16, -3]), JSON.stringify(await totals(page)));
    // Deal 2 (a recount: Cy takes every club but J♣), then Undo of it, then again.
    const perDeal = await deal([10, 0, -36, 0], [6, -3, -52, -3]);
    await undoLast(page);
    check("clubs: Undo of a tally restores the totals of deal 1", same(await totals(page), [-4, -3, -16, -3]), JSON.stringify(await totals(page)));
    await deal([10, 0, -36, 0], [6, -3, -52, -3]);
    await deal([10, 0, -36, 0], [16, -3, -88, -3]);
    // Deal 4 takes Cy past −100: said before sending.
    const t4 = { n: 0 };
    for (const [i, x] of [10, 0, -36, 0].entries()) await typeRow(page, i, x, t4);
    const end = (await page.textContent("#tally-end").catch(() => "")).trim();
    check("clubs: the match end shown as typed", end === "Cy reaches −124: the match ends", end);
    await send(page, t4);
    check("clubs: final totals 26 −3 −124 −3", same(await totals(page), [26, -3, -124, -3]), JSON.stringify(await totals(page)));
    check("clubs: the match is finished, Ada wins", await page.evaluate(() => document.body.dataset.status) === "finished"
      && (await page.textContent("#winners")).startsWith("Winner: Ada"));
    check(`clubs: one deal in at most n+1 = 5 taps plus the numbers typed (took ${perDeal})`, perDeal <= 5 && t4.n <= 5);
    console.log(`Clubs taps per deal (4 seats): ${perDeal} (4 fields + Send), digits and "-" typed not counted`);
    await shot(page, "scoreonly-clubs-end");
    // A seat's phone: the sheet and totals, no hand, no picker, no "Your turn".
    const sctx = await browser.newContext(phone);
    const seat = await sctx.newPage();
    await seat.goto(m.seatLinks[1]);
    await drawn(seat);
    check("clubs: a seat's phone shows no hand, picker or pad", !(await seat.$("#you, #hand, #picker, #tally")));
    check("clubs: a seat's phone shows the sheet's totals", same(await totals(seat), [26, -3, -124, -3]));
    check("clubs: a seat's phone never says Your turn", !(await seat.textContent("#turn")).includes("Your turn"));
    await shot(seat, "scoreonly-clubs-seat");
    await sctx.close();
    await m.ctx.close();
  });

  // ---- Dump, 4 players (two sides), score-only: one side typed fills the other ----
  await game("dump", async () => {
    const m = await create(browser, "dump", ["Ada", "Ben", "Cy", "Di"]);
    if (!m) return;
    const { page } = m;
    await page.waitForSelector("#tally");
    const taps = { n: 0 };
    await typeRow(page, 0, "170", taps);
    const why = await refusalShown(page);
    check("dump: 170 refused before sending", why === "side 1 (Ada & Cy): 170 is more than 160, the most one side can score", why);
    await typeRow(page, 0, "95", taps);
    check("dump: the other side filled as 65", await page.inputValue('#tally input[data-entry="1"]') === "65");
    check("dump: 'scores 15' shown", (await page.textContent("#tally-live")).includes("Ada & Cy scores 15"));
    await send(page, taps);
    check("dump: totals 15 / 0 after deal 1", same(await totals(page), [15, 0]), JSON.stringify(await totals(page)));
    await typeRow(page, 1, "90", taps);
    check("dump: the other side filled as 70", await page.inputValue('#tally input[data-entry="0"]') === "70");
    await send(page, taps);
    check("dump: totals 15 / 10 after deal 2", same(await totals(page), [15, 10]), JSON.stringify(await totals(page)));
    await padFits(page, "dump");
    await m.ctx.close();
  });

  // ---- Bonus-Malus, 4 players: multiples of 5, one plus side, ×n ----
  await game("bonus-malus", async () => {
    const m = await create(browser, "bonus-malus", ["Ada", "Ben", "Cy", "Di"]);
    if (!m) return;
    const { page } = m;
    await page.waitForSelector("#tally");
    const taps = { n: 0 };
    await typeRow(page, 0, "33", taps);
    await typeRow(page, 1, "0", taps);
    let why = await refusalShown(page);
    check("bonus-malus: 33 refused (not a multiple of 5)", why === "side 1 (Ada & Cy): 33 is not a multiple of 5", why);
    await typeRow(page, 0, "35", taps);
    await typeRow(page, 1, "20", taps);
    why = await refusalShown(page);
    check("bonus-malus: two plus sides refused", why === "Only one side can have a plus total: the other scores 0", why);
    await typeRow(page, 1, "0", taps);
    check("bonus-malus: ×1 shown for deal 1", (await page.textContent("#tally-live")).includes("Ada & Cy: 35 × 1 = 35"));
    await send(page, taps);
    check("bonus-malus: totals 35 / 0 after deal 1", same(await totals(page), [35, 0]), JSON.stringify(await totals(page)));
    await typeRow(page, 0, "0", taps);
    await typeRow(page, 1, "40", taps);
    check("bonus-malus: ×2 shown for deal 2", (await page.textContent("#tally-live")).includes("Ben & Di: 40 × 2 = 80"));
    await send(page, taps);
    check("bonus-malus: totals 35 / 80 after deal 2", same(await totals(page), [35, 80]), JSON.stringify(await totals(page)));
    const mult = await page.$$eval("#scores tr.round td:nth-child(2)", (tds) => tds.map((td) => td.textContent));
    check("bonus-malus: the sheet shows ×1 and ×2", same(mult, ["1", "2"]), JSON.stringify(mult));
    await shot(page, "scoreonly-bonus-malus");
    await m.ctx.close();
  });

  // ---- P.M., 3 players: −80..200 per game, the rubber's totals ----
  await game("plus-minus", async () => {
    const m = await create(browser, "plus-minus", ["Ada", "Ben", "Cy"]);
    if (!m) return;
    const { page } = m;
    await page.waitForSelector("#tally");
    const taps = { n: 0 };
    await typeRow(page, 0, "205", taps);
    await typeRow(page, 1, "-20", taps);
    await typeRow(page, 2, "45", taps);
    const why = await refusalShown(page);
    check("plus-minus: 205 refused before sending", why === "seat 1 (Ada): 205 is more than 200, the most one seat can score", why);
    await typeRow(page, 0, "120", taps);
    await send(page, taps);
    check("plus-minus: totals 120 −20 45 after game 1", same(await totals(page), [120, -20, 45]), JSON.stringify(await totals(page)));
    // The ± button makes a number negative where a keypad has no "−".
    await typeRow(page, 0, "30", taps);
    await typeRow(page, 1, "200", taps);
    await typeRow(page, 2, "80", taps);
    await page.click('#tally label[data-entry="2"] .tally-sign');
    check("plus-minus: ± turns 80 into -80", await page.inputValue('#tally input[data-entry="2"]') === "-80");
    await send(page, taps);
    check("plus-minus: totals 150 180 −35 after game 2", same(await totals(page), [150, 180, -35]), JSON.stringify(await totals(page)));
    await shot(page, "scoreonly-plus-minus");
    await m.ctx.close();
  });

  // ---- Members Only, 3 players: each heat's markers on the steppers (the floor is where each
  // marker stands), three heats to the end, the sheet against the API after each ----
  await game("members-only", async () => {
    const m = await create(browser, "members-only", ["Ada", "Ben", "Cy"]);
    if (!m) return;
    const { page } = m;
    await page.waitForSelector("#tally");
    const CATS = ["umbrella", "crown", "teacup", "big_ben", "hat"];
    const cell = (i, c) => `#tally .tally-row[data-entry="${i}"] .marker[data-marker="${c}"]`;
    const shown = () => page.$$eval("#tally .tally-row.markers", (rows) => rows.map((r) => [...r.querySelectorAll(".marker-val")].map((x) => Number(x.textContent))));
    // Steps every marker to `rows` with the + and − buttons; the taps it took.
    const setMarkers = async (rows) => {
      let taps = 0;
      for (let i = 0; i < rows.length; i++) {
        for (let k = 0; k < 5; k++) {
          for (;;) {
            const now = (await shown())[i][k];
            if (now === rows[i][k]) break;
            await page.click(`${cell(i, CATS[k])} button[data-step="${now < rows[i][k] ? 1 : -1}"]`);
            taps++;
          }
        }
      }
      return taps;
    };
    const sheetOf = () => api(`/v1/matches/${m.id}/scores`);
    const heat = async (n, rows, want) => {
      const taps = await setMarkers(rows);
      const live = await page.textContent("#tally-live");
      check(`members-only: heat ${n}'s totals after shown as the markers are stepped`, live.includes(`totals after: Ada ${want[0]}, Ben ${want[1]}, Cy ${want[2]}`), live);
      await send(page, { n: 0 });
      const s = await sheetOf();
      const t = await totals(page);
      check(`members-only: totals ${want.join(" ")} after heat ${n}, on the page and in the API`, same(t, want) && same(s.totals, want), JSON.stringify([t, s.totals]));
      return taps;
    };
    const actionsText = await page.textContent("#actions");
    check("members-only: nothing but the pad to record with (no deal chooser)", !actionsText.includes("turned face up"), actionsText.slice(0, 300));
    await padFits(page, "members-only");
    await heat(1, [[5, 0, 2, 0, 0], [0, 6, 0, 0, 1], [0, 0, 0, 3, 4]], [5, 6, 0]);
    // The floor: a marker's − stops where it stood before the heat.
    check("members-only: the new heat's steppers start where the markers stand", same(await shown(), [[5, 0, 2, 0, 0], [0, 6, 0, 0, 1], [0, 0, 0, 3, 4]]), JSON.stringify(await shown()));
    await page.click(`${cell(1, "crown")} button[data-step="-1"]`);
    check("members-only: − cannot take Ben's Crown below 6, where it stood", (await shown())[1][1] === 6);
    await shot(page, "scoreonly-members-only-heat2");
    await heat(2, [[5, 3, 2, 0, 0], [0, 6, 0, 0, 5], [1, 0, 0, 6, 4]], [5, 11, 6]);
    // Heat 3: every category reaches 5: said before sending.
    await setMarkers([[7, 3, 5, 0, 0], [0, 8, 0, 0, 5], [1, 0, 5, 6, 4]]);
    const end = (await page.textContent("#tally-end").catch(() => "")).trim();
    check("members-only: the game's end shown as the markers are stepped", end === "every category has a marker at 5 or more: the game ends", end);
    await send(page, { n: 0 });
    const s = await sheetOf();
    check("members-only: final totals 12 13 11, Ben wins, on the page and in the API",
      same(await totals(page), [12, 13, 11]) && same(s.totals, [12, 13, 11]) && same(s.winners, [1]) && s.finished === true
        && (await page.textContent("#winners")).startsWith("Winner: Ben"), JSON.stringify(s));
    check("members-only: the sheet's heats are the markers' advances", same(s.rounds.map((r) => r.points), [[7, 7, 7], [3, 4, 4], [5, 2, 5]]), JSON.stringify(s.rounds.map((r) => r.points)));
    check("members-only: no pad once the game is over", !(await page.$("#tally")));
    await shot(page, "scoreonly-members-only-end");
    await undoLast(page);
    check("members-only: Undo of heat 3 brings the pad back at heat 2's markers",
      !!(await page.$("#tally")) && same(await shown(), [[5, 3, 2, 0, 0], [0, 6, 0, 0, 5], [1, 0, 0, 6, 4]]) && same(await totals(page), [5, 11, 6]));
    await m.ctx.close();
  });

  // ---- By Hook or Crook, 3 players: the final positions with a tie broken on the pad ----
  await game("by-hook-or-crook", async () => {
    const m = await create(browser, "by-hook-or-crook", ["Ada", "Ben", "Cy"]);
    if (!m) return;
    const { page } = m;
    await page.waitForSelector("#tally");
    await padFits(page, "by-hook-or-crook");
    const taps = { n: 0 };
    for (const [i, x] of [36, 20, 0].entries()) await typeRow(page, i, x, taps);
    let why = await refusalShown(page);
    check("by-hook-or-crook: no pawn on a pink space refused before sending", why === "No pawn is on a pink space (37 or further): the game is not over yet", why);
    await typeRow(page, 1, "49", taps);
    why = await refusalShown(page);
    check("by-hook-or-crook: a space past the board's furthest refused", why === "seat 2 (Ben): space 49 is past 48, the furthest a pawn can reach on this board", why);
    await typeRow(page, 0, "40", taps);
    await typeRow(page, 1, "31", taps);
    await typeRow(page, 2, "40", taps);
    why = await refusalShown(page);
    check("by-hook-or-crook: a furthest tie asks who wins it", why === "Ada and Cy tie on space 40: choose who wins the tie", why);
    check("by-hook-or-crook: Send disabled until the tie is chosen", await page.isDisabled("#tally-send"));
    await page.click('#tally-tie button[data-tie="2"]');
    const live = await page.textContent("#tally-live");
    check("by-hook-or-crook: the tie chosen, Cy shown winning", !(await page.isDisabled("#tally-send")) && live.includes("Cy wins on space 40: the game ends"), live);
    await shot(page, "scoreonly-by-hook-or-crook-tie");
    await send(page, taps);
    const s = await api(`/v1/matches/${m.id}/scores`);
    check("by-hook-or-crook: totals 40 31 40, Cy wins, on the page and in the API",
      same(await totals(page), [40, 31, 40]) && same(s.totals, [40, 31, 40]) && same(s.winners, [2]) && s.margin === 0
        && (await page.textContent("#winners")).startsWith("Winner: Cy"), JSON.stringify(s));
    const ev = await api(`/v1/matches/${m.id}/events`);
    const sent = ev.events.filter((e) => e.kind === "action").map((e) => e.action);
    check("by-hook-or-crook: the pad sent the tiebreak, winner first", sent.length === 1 && sent[0].type === "tally"
      && same(sent[0].positions, [40, 31, 40]) && same(sent[0].tiebreak, [2, 0]), JSON.stringify(sent));
    await shot(page, "scoreonly-by-hook-or-crook-end");
    await m.ctx.close();
  });

  // ---- the create form offers Scores only for every game ----
  await game("offered", async () => {
    const ctx = await browser.newContext(phone);
    const page = await ctx.newPage();
    await page.goto(BASE + "/");
    for (const g of ["dump", "members-only", "clubs", "bonus-malus", "plus-minus", "by-hook-or-crook"]) {
      await page.selectOption("#game", g);
      check(`${g}: the create form offers Scores only`, (await page.$("#scores-only")) !== null);
    }
    await ctx.close();
  });
});
