// Browser test of real-card duplicate fouls on the organiser's page (issue 24 part 4): a Dump
// duplicate round dealt from printed wallets at three tables; at table 1 the seat to act plays a
// card its wallet does not hold. While the round is played:
// 1. the organiser's page names the foul under table 1 (board, seat by its compass or number,
//    card, event) and nothing under the other tables;
// 2. the public tournament page and the table host's own page show no foul anywhere.
// Screenshots (target/browser-artifacts/fouls-*.png) at 390x844, 360x640 and 844x390.
//
// Env: as lib.mjs (BASE, PW_DIR, CHROMIUM, ARTIFACTS).

import { join } from "node:path";
import { ARTIFACTS, BASE, api, axeViolations, check, overflowsX, phone, run } from "./lib.mjs";

const SIZES = [[390, 844], [360, 640], [844, 390]];
const t = await api("POST", "/v1/tournaments", null, {
  name: "Wallet night", game: "dump", config: { target: 1 }, dealing: "table", format: "swiss", rounds: 1,
  table_size: 2, duplicate: true, players: ["Ada", "Ben", "Cy", "Di", "Eve", "Fay"].map((name) => ({ name })),
});
if (!t.organiser_token) throw new Error(`tournament not created: ${JSON.stringify(t)}`);
const id = t.tournament.id, org = t.organiser_token;
const round = await api("POST", `/v1/tournaments/${id}/rounds`, org, {});
const table1 = round.tokens.find((x) => x.table === 1);
const boards = await api("GET", `/v1/tournaments/${id}/rounds/1/boards?count=1`, org);
const board1 = boards.boards[0];
// Table 1 deals board 1; the seat to act plays the other seat's first card.
const dealt = await api("POST", `/v1/matches/${table1.match_id}/actions`, table1.host_token, { seat: null, action: { type: "deal" } });
const seat = dealt.match.to_act[0];
const wrong = board1.hands[1 - seat].cards[0];
const played = await api("POST", `/v1/matches/${table1.match_id}/actions`, table1.host_token, { seat, action: { type: "play", card: wrong } });
check("the table's answer says nothing of the foul", played.match && JSON.stringify(played).indexOf("fouled") < 0, JSON.stringify(played).slice(0, 300));
const seen = await api("GET", `/v1/tournaments/${id}/rounds/1`, org);
const fouls = seen.tokens.find((x) => x.table === 1).fouls || [];
check("the organiser's round lists the foul", fouls.length === 1 && fouls[0].card === wrong && fouls[0].seat === seat && fouls[0].board === 1, JSON.stringify(fouls));
const seatLabel = String(seat + 1); // a table of two numbers its seats from 1
const want = `board 1, seat ${seatLabel} ${wrong}`;

await run("fouls", async (browser) => {
  const ctx = await browser.newContext(phone);
  const p = await ctx.newPage();
  p.on("pageerror", (e) => check("the page has no script error", false, e.message));
  await p.goto(`${BASE}/#tournament=${id}&o=${org}`);
  await p.waitForSelector(".round[data-round='1'] .tbl[data-table='1']");
  await p.waitForSelector(".tbl[data-table='1'] .fouls", { timeout: 10000 }).catch(() => null);
  for (const [w, hh] of SIZES) {
    const at = `${w}x${hh}`;
    await p.setViewportSize({ width: w, height: hh });
    await p.waitForTimeout(50);
    await p.screenshot({ path: join(ARTIFACTS, `fouls-${at}.png`), fullPage: true });
    const note = await p.$eval(".tbl[data-table='1'] .fouls", (n) => n.textContent).catch(() => "");
    check(`${at}: the organiser's page names the foul under table 1 (${want})`, note.includes(want), note);
    const others = await p.$$eval(".tbl:not([data-table='1']) .fouls", (ns) => ns.length);
    check(`${at}: no foul under the other tables`, others === 0, String(others));
    const v = await axeViolations(p);
    check(`${at}: axe-core finds 0 violations`, v.length === 0, v.join("; "));
    check(`${at}: no sideways scroll`, !(await overflowsX(p)));
  }
  // The public page and the table's own host page: no foul anywhere.
  const pub = await ctx.newPage();
  await pub.goto(`${BASE}/#tournament=${id}`);
  await pub.waitForSelector(".round[data-round='1']");
  check("the public tournament page shows no foul", !(await pub.$(".fouls")) && !(await pub.textContent("body")).includes(wrong.slice(0, 2) + " (not on the board"));
  const host = await ctx.newPage();
  await host.goto(`${BASE}/#m=${table1.match_id}&t=${table1.host_token}`);
  await host.waitForTimeout(1500);
  const body = (await host.textContent("body")) || "";
  check("the table host's page says nothing of a foul", !/foul|not on the board|not dealt/i.test(body), body.slice(0, 200));
});
