// Browser test of a club night's changes from the organiser's page (issue 24 part 3): a 5-player
// Dump Swiss with round 1 paired (two tables and a bye). On the page's "Entrants" panel:
// 1. a late entry ("Zed", missed rounds as byes) is typed and sent; the API then lists Zed;
// 2. withdrawing a player whose table has no result is refused, and the page shows the server's
//    own words (409 table_unfinished) and changes nothing;
// 3. the bye player is withdrawn (the API lists them withdrawn; the page marks them), then
//    reinstated (the API no longer lists them).
// Screenshots (target/browser-artifacts/clubnight-*.png) at 390x844, 360x640 and 844x390, axe at 0.
//
// Env: as lib.mjs (BASE, PW_DIR, CHROMIUM, ARTIFACTS).

import { join } from "node:path";
import { ARTIFACTS, BASE, api, axeViolations, check, overflowsX, phone, run, smallTargets } from "./lib.mjs";

const SIZES = [[390, 844], [360, 640], [844, 390]];
const t = await api("POST", "/v1/tournaments", null, {
  name: "Thursday night", game: "dump", format: "swiss", rounds: 3, table_size: 2, record: "totals",
  players: ["Ada", "Ben", "Cy", "Di", "Eve"].map((name) => ({ name })),
});
if (!t.organiser_token) throw new Error(`tournament not created: ${JSON.stringify(t)}`);
const id = t.tournament.id, org = t.organiser_token;
const round = await api("POST", `/v1/tournaments/${id}/rounds`, org, {});
const bye = round.byes[0];
const seated = round.tables[0].players[0];
const tournament = () => api("GET", `/v1/tournaments/${id}`);

await run("clubnight", async (browser) => {
  const ctx = await browser.newContext(phone);
  const p = await ctx.newPage();
  p.on("pageerror", (e) => check("the page has no script error", false, e.message));
  await p.goto(`${BASE}/#tournament=${id}&o=${org}`);
  await p.waitForSelector("#entrants summary");
  await p.click("#entrants summary");
  const msg = () => p.textContent("#entrants-msg");

  // 1. A late entry.
  await p.fill("#late-name", "Zed");
  await p.selectOption("#late-missed", "bye");
  await p.click("#late-entry button[type=submit]");
  await p.waitForSelector("#entrants li >> text=Zed", { timeout: 10000 });
  const afterEntry = await tournament();
  check("the late entrant is in the tournament (API)", afterEntry.players.some((x) => x.name === "Zed"), JSON.stringify(afterEntry.players));
  check("the page says so", (await msg()).includes("Zed is entered"), await msg());

  // 2. A seated player whose table has no result: refused, in the server's words.
  await p.click(`#entrants li[data-player="${seated.player_id}"] button[data-entrant=withdraw]`);
  await p.waitForFunction(() => document.querySelector("#entrants-msg")?.textContent.includes("table 1 of round 1"), null, { timeout: 10000 }).catch(() => null);
  const refused = await msg();
  check("withdrawing a player whose table has no result is refused with the server's reason", refused.includes(`${seated.name} sits at table 1 of round 1, which has no result yet`), refused);
  check("nobody is withdrawn (API)", (await tournament()).withdrawn.length === 0);

  // 3. The bye player withdraws, then comes back.
  await p.click(`#entrants li[data-player="${bye.player_id}"] button[data-entrant=withdraw]`);
  await p.waitForSelector(`#entrants li[data-player="${bye.player_id}"][data-withdrawn=yes]`, { timeout: 10000 });
  check("the bye player is withdrawn (API)", JSON.stringify((await tournament()).withdrawn) === JSON.stringify([bye.player_id]));
  for (const [w, hh] of SIZES) {
    const at = `${w}x${hh}`;
    await p.setViewportSize({ width: w, height: hh });
    await p.waitForTimeout(50);
    await p.screenshot({ path: join(ARTIFACTS, `clubnight-${at}.png`), fullPage: true });
    const v = await axeViolations(p);
    check(`${at}: axe-core finds 0 violations`, v.length === 0, v.join("; "));
    const small = await smallTargets(p);
    check(`${at}: every control a thumb taps is at least 44x44 px`, small.length === 0, small.join("; "));
    check(`${at}: no sideways scroll`, !(await overflowsX(p)));
  }
  // The answer held until the tournament's poll has drawn the panel again (the change is in, so
  // the poll sees a new version), as on a slow link: the message must reach the box on the page,
  // not the one tapped under (which the redraw took off the page).
  await p.$eval("#entrants-msg", (e) => { e.dataset.before = "1"; });
  let redrawn = false;
  await p.route("**/entrants/*/reinstate", async (route) => {
    const answer = await route.fetch();
    redrawn = await p.waitForFunction(() => document.querySelector("#entrants-msg")?.dataset.before !== "1", null, { timeout: 12000 })
      .then(() => true, () => false);
    await route.fulfill({ response: answer });
  });
  await p.click(`#entrants li[data-player="${bye.player_id}"] button[data-entrant=reinstate]`);
  await p.waitForSelector(`#entrants li[data-player="${bye.player_id}"][data-withdrawn=no]`, { timeout: 10000 });
  await p.waitForFunction(() => document.querySelector("#entrants-msg")?.textContent.length > 0, null, { timeout: 10000 }).catch(() => null);
  await p.unroute("**/entrants/*/reinstate");
  check("the bye player is back (API)", (await tournament()).withdrawn.length === 0);
  check("the panel was drawn again while the answer was on its way", redrawn);
  check("the page says from when, in the panel drawn meanwhile", (await msg()).includes(`${bye.name} is back from the next round`), await msg());
});
