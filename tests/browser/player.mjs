// Browser test of a player's page (issue 24, web/club.js; scripts/ci-browser.sh runs it): three
// registered players play four heads-up Dump matches and a tournament table over the API; at
// 390x844, 360x640 and 844x390 the player's page shows exactly the figures of
// `GET /v1/players/{id}/stats` (games, wins, average and best score, rating now), the rating
// chart with one point per rated result at the API's ratings, head-to-head, the history and
// the latest results each linking their match or tournament table; axe-core finds 0
// violations, every link a thumb taps is 44x44 px, nothing scrolls sideways, the chart fits.
// The page is reached from the leaderboard, from a name on a match's page and on a
// tournament's standings, and from a name on the host's table page.
// Screenshots: ARTIFACTS/player-<w>x<h>.png.
//
// Env: as lib.mjs (BASE, PW_DIR, CHROMIUM, ARTIFACTS) and AXE_JS (axe.min.js).

import { join } from "node:path";
import { ARTIFACTS, BASE, api, axeViolations, check, overflowsX, phone, run, smallTargets } from "./lib.mjs";

const SIZES = [[390, 844], [360, 640], [844, 390]];
const tag = Math.random().toString(36).slice(2, 7);

async function player(name) {
  const p = await api("POST", "/v1/players", null, { name });
  if (!p.id) throw new Error(`player not registered: ${JSON.stringify(p)}`);
  return p.id;
}

// A score-only heads-up Dump match (target 10: one tally ends it); `points` the deal's card points.
async function dump(seats, points) {
  const m = await api("POST", "/v1/matches", null, {
    game: "dump", players: seats.map(([name, player_id]) => ({ name, player_id })),
    config: { scores_only: true, target: 10 },
  });
  if (!m.host_token) throw new Error(`match not created: ${JSON.stringify(m)}`);
  const r = await api("POST", `/v1/matches/${m.match.id}/actions`, m.host_token, { seat: null, action: { type: "tally", points } });
  if (!r.match || r.match.status !== "finished") throw new Error(`tally refused: ${JSON.stringify(r)}`);
  return m;
}

const ada = await player(`Ada ${tag}`), ben = await player(`Ben ${tag}`), cy = await player(`Cy ${tag}`);
const names = { [ada]: `Ada ${tag}`, [ben]: `Ben ${tag}`, [cy]: `Cy ${tag}` };
const m1 = await dump([[names[ada], ada], [names[ben], ben]], [95, 65]); // Ada wins 15–0
await dump([[names[cy], cy], [names[ada], ada]], [95, 65]); // Cy beats Ada
await dump([[names[ben], ben], [names[ada], ada]], [60, 100]); // Ada wins 20–0
await dump([[names[ada], ada], [names[cy], cy]], [60, 100]); // Cy beats Ada again
// A tournament table between Ada and Ben, its result entered by the organiser: Ben wins.
const t = await api("POST", "/v1/tournaments", null, {
  name: `Club night ${tag}`, game: "dump", format: "round_robin", table_size: 2, record: "totals",
  players: [{ name: names[ada], player_id: ada }, { name: names[ben], player_id: ben }],
});
if (!t.organiser_token) throw new Error(`tournament not created: ${JSON.stringify(t)}`);
const tid = t.tournament.id;
const round = await api("POST", `/v1/tournaments/${tid}/rounds`, t.organiser_token, {});
const benSeat = round.tables[0].players.map((p) => p.player_id).indexOf(ben);
const entered = await api("PUT", `/v1/tournaments/${tid}/rounds/1/tables/1/result`, t.organiser_token,
  { deals: benSeat === 0 ? [[40, 0], [0, 20], [70, 0]] : [[0, 40], [20, 0], [0, 70]] });
if (!entered.result) throw new Error(`result refused: ${JSON.stringify(entered)}`);

const stats = await api("GET", `/v1/players/${ada}/stats`);
const g = stats.games.find((x) => x.game === "dump");
check("the API's stats: five Dump results for Ada, five rated", g && g.played === 5 && g.rating_history.length === 5, JSON.stringify(g));

await run("player", async (browser) => {
  const ctx = await browser.newContext(phone);
  const p = await ctx.newPage();
  p.on("pageerror", (e) => check("the player's page has no script error", false, e.message));

  await p.goto(`${BASE}/#player=${ada}`);
  await p.waitForSelector("section.game-stats[data-game=dump]");
  for (const [w, hh] of SIZES) {
    const at = `${w}x${hh}`;
    await p.setViewportSize({ width: w, height: hh });
    await p.waitForTimeout(50); // a layout pass after the resize
    // Open the history (a <details>) so that its links are on the page for every check.
    await p.$eval("section[data-game=dump] details.history", (d) => { d.open = true; });
    await p.screenshot({ path: join(ARTIFACTS, `player-${at}.png`), fullPage: true });
    const shown = await p.evaluate(() => {
      const sec = document.querySelector("section[data-game=dump]");
      const fig = (k) => sec.querySelector(`[data-fig=${k}] dd`)?.textContent;
      const box = sec.querySelector("svg.chart").getBoundingClientRect();
      return {
        name: document.querySelector("#player-name").textContent,
        played: fig("played"), wins: fig("wins"), average: fig("average"), best: fig("best"), rating: fig("rating"),
        ratingExact: sec.querySelector("[data-fig=rating]")?.dataset.value,
        tickPx: Math.max(...[...sec.querySelectorAll("svg.chart text.tick")].map((t) => t.getBoundingClientRect().height)),
        bodyPx: parseFloat(getComputedStyle(document.body).fontSize),
        dots: [...sec.querySelectorAll("svg.chart circle.dot")].map((c) => Number(c.dataset.rating)),
        dotsY: [...sec.querySelectorAll("svg.chart circle.dot")].map((c) => Number(c.getAttribute("cy"))),
        line: (sec.querySelector("svg.chart polyline")?.getAttribute("points") || "").trim().split(/\s+/).length,
        label: sec.querySelector("svg.chart").getAttribute("aria-label"),
        chart: { left: box.left, right: box.right, width: box.width, height: box.height },
        viewport: document.documentElement.clientWidth,
        h2h: [...sec.querySelectorAll("table.h2h tbody tr")].map((tr) => [tr.dataset.opponent, ...[...tr.querySelectorAll("td")].map((td) => td.textContent)]),
        history: [...sec.querySelectorAll("details.history li")].map((li) => [li.dataset.rating, li.querySelector(".val")?.textContent, li.querySelector("a")?.getAttribute("href")]),
        latest: [...document.querySelectorAll("#latest li")].map((li) => [li.dataset.total, li.dataset.place, li.querySelector("a")?.getAttribute("href")]),
      };
    });
    check(`${at}: the name is the player's`, shown.name === names[ada], shown.name);
    check(`${at}: games, wins, average, best and rating are the API's`,
      shown.played === String(g.played) && shown.wins === String(g.wins) && shown.average === String(g.average_score)
        && shown.best === String(g.best_score) && shown.ratingExact === String(g.rating),
      JSON.stringify([shown, g.played, g.wins, g.average_score, g.best_score, g.rating]));
    // Dump at two seats is rated by Elo: shown in whole points, as a club reads it.
    check(`${at}: the rating is shown in whole Elo points (${g.rating} as ${Math.round(g.rating)})`, g.rating_system === "elo" && shown.rating === String(Math.round(g.rating)),
      JSON.stringify([shown.rating, g.rating, g.rating_system]));
    check(`${at}: exact figures (2 wins in 5, average 11, best 20)`, shown.played === "5" && shown.wins === "2" && shown.average === "11" && shown.best === "20",
      JSON.stringify(shown));
    const ratings = g.rating_history.map((x) => x.rating);
    check(`${at}: the chart has a point per rated result at the API's ratings`, JSON.stringify(shown.dots) === JSON.stringify(ratings),
      JSON.stringify([shown.dots, ratings]));
    check(`${at}: the line joins the ${ratings.length} points`, shown.line === ratings.length, String(shown.line));
    // Higher ratings are drawn higher (a smaller y), the highest at the top, the lowest at the bottom.
    const order = ratings.every((r, i) => ratings.every((q, j) => !(r > q) || shown.dotsY[i] < shown.dotsY[j]));
    check(`${at}: each point stands as high as its rating`, order, JSON.stringify([ratings, shown.dotsY]));
    check(`${at}: the chart names its first and last ratings`, shown.label.includes(`from ${Math.round(ratings[0])} `) && shown.label.includes(`to ${Math.round(ratings[ratings.length - 1])} now`), shown.label);
    check(`${at}: the chart's labels are no larger than 1.5 times the page's text`, shown.tickPx <= 1.5 * shown.bodyPx, JSON.stringify([shown.tickPx, shown.bodyPx]));
    check(`${at}: the chart is on screen and readable (at least 300 px wide or the whole width, 120 px tall)`,
      shown.chart.left >= 0 && shown.chart.right <= shown.viewport + 0.5 && (shown.chart.width >= 300 || shown.chart.width >= shown.viewport - 60) && shown.chart.height >= 120,
      JSON.stringify(shown.chart));
    const h2h = g.head_to_head.map((o) => [o.player_id, o.name, String(o.played), String(o.wins), String(o.losses), String(o.draws)]);
    check(`${at}: head-to-head is the API's`, JSON.stringify(shown.h2h) === JSON.stringify(h2h), JSON.stringify([shown.h2h, h2h]));
    check(`${at}: head-to-head: Ben 3 met, 2 won, 1 lost; Cy 2 met, 2 lost`,
      JSON.stringify(shown.h2h.map((r) => r.slice(2))) === JSON.stringify([["3", "2", "1", "0"], ["2", "0", "2", "0"]]), JSON.stringify(shown.h2h));
    const history = [...g.rating_history].reverse().map((x) => [String(x.rating), String(Math.round(x.rating)), x.match_id ? `/#match=${x.match_id}` : `/#tournament=${x.tournament.id}`]);
    check(`${at}: the history lists every rated result, newest first, linking its match or table`,
      JSON.stringify(shown.history) === JSON.stringify(history), JSON.stringify([shown.history, history]));
    const latest = stats.recent.map((r) => [String(r.total), String(r.place), r.match_id ? `/#match=${r.match_id}` : `/#tournament=${r.tournament.id}`]);
    check(`${at}: the latest results are the API's, linked`, JSON.stringify(shown.latest) === JSON.stringify(latest), JSON.stringify([shown.latest, latest]));
    const v = await axeViolations(p);
    check(`${at}: axe-core finds 0 violations`, v.length === 0, v.join("; "));
    const small = await smallTargets(p);
    check(`${at}: every control a thumb taps is at least 44x44 px`, small.length === 0, small.join("; "));
    check(`${at}: no sideways scroll`, !(await overflowsX(p)));
  }

  // From the leaderboard: Ada's row links her page; its rating is the API's.
  await p.setViewportSize({ width: 390, height: 844 });
  const board = await api("GET", "/v1/games/dump/leaderboard?limit=50");
  await p.goto(`${BASE}/#leaderboard=dump`);
  await p.waitForSelector("#leaderboard");
  const row = board.rows.find((r) => r.player_id === ada);
  const shownRow = await p.$$eval(`#leaderboard tr[data-player="${ada}"] td`, (tds) => tds.map((td) => td.textContent));
  check("the leaderboard shows Ada's rank and rating as the API does", row && JSON.stringify(shownRow) === JSON.stringify([String(row.rank), names[ada], String(Math.round(row.rating)), String(row.rated_results)]),
    JSON.stringify([shownRow, row]));
  for (const [w, hh] of SIZES) {
    await p.setViewportSize({ width: w, height: hh });
    await p.waitForTimeout(50);
    await p.screenshot({ path: join(ARTIFACTS, `player-board-${w}x${hh}.png`), fullPage: true });
    const v = await axeViolations(p);
    check(`the leaderboard ${w}x${hh}: axe-core finds 0 violations`, v.length === 0, v.join("; "));
    const small = await smallTargets(p);
    check(`the leaderboard ${w}x${hh}: every control a thumb taps is at least 44x44 px`, small.length === 0, small.join("; "));
  }
  await p.setViewportSize({ width: 390, height: 844 });
  await p.click(`#leaderboard tr[data-player="${ada}"] a`);
  await p.waitForSelector("section.game-stats[data-game=dump]");
  check("a tap on the leaderboard's name opens the player's page", (await p.textContent("#player-name")) === names[ada]);

  // From the history's link to a match, then a name on that match's page.
  await p.goto(`${BASE}/#match=${m1.match.id}`);
  await p.waitForSelector("#match-players");
  const v = await axeViolations(p);
  check("a match's page: axe-core finds 0 violations", v.length === 0, v.join("; "));
  const small = await smallTargets(p);
  check("a match's page: every control a thumb taps is at least 44x44 px", small.length === 0, small.join("; "));
  const sheet = await p.$$eval("#scores tr.total td", (tds) => tds.map((td) => td.textContent));
  check("a match's page shows its totals", JSON.stringify(sheet) === JSON.stringify(["Total", "15", "0"]), JSON.stringify(sheet));
  await p.click(`#match-players a[data-player="${ben}"]`);
  await p.waitForSelector("section.game-stats[data-game=dump]");
  check("a tap on a name on a match's page opens that player's page", (await p.textContent("#player-name")) === names[ben]);

  // From the tournament's standings.
  await p.goto(`${BASE}/#tournament=${tid}`);
  await p.waitForSelector(`table.standings a[href="/#player=${cy}"], table.standings a[href="/#player=${ada}"]`);
  await p.click(`table.standings a[href="/#player=${ada}"]`);
  await p.waitForSelector("section.game-stats[data-game=dump]");
  check("a tap on a name in a tournament's standings opens the player's page", (await p.textContent("#player-name")) === names[ada]);

  // From a name on the host's table page (a real-card match: the players' panel).
  const live = await api("POST", "/v1/matches", null, {
    game: "dump", players: [{ name: names[ada], player_id: ada }, { name: "Guest" }],
  });
  await p.goto(`${BASE}/#m=${live.match.id}&t=${live.host_token}`);
  await p.waitForSelector(`#players a.to-player[data-player="${ada}"]`);
  const guestLinked = await p.$$eval('#players [data-seat="1"] a', (as) => as.length);
  check("the table page links only the registered seat's name", guestLinked === 0, String(guestLinked));
  const targets = await smallTargets(p);
  check("the table page's name link is at least 44x44 px", !targets.some((x) => x.includes("to-player")), targets.join("; "));
  await p.click(`#players a.to-player[data-player="${ada}"]`);
  await p.waitForSelector("section.game-stats[data-game=dump]");
  check("a tap on a name on the table page opens the player's page", (await p.textContent("#player-name")) === names[ada]);

  // An unknown player: the API's problem in words, no script error.
  await p.goto(`${BASE}/#player=00000000000000000000000000000000`);
  await p.waitForSelector(".msg.bad");
  check("an unknown player's page says so", /not found|no player/i.test(await p.textContent(".msg.bad")), await p.textContent(".msg.bad"));
  await ctx.close();
});
