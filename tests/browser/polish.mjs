// Browser test of the table page's polish (issue 22, the faults found after parts 1 and 3), at
// 390x844, 360x640 and 844x390 (scripts/ci-browser.sh runs it):
// 1. a score-only match (Clubs, Bonus-Malus, P.M.) says which deal / game of the rubber is entered
//    next ("Deal 1: enter the scores"), counted from the API's sheet, with no trick felt, no
//    "Round 0", nothing about dealing; a seat's phone shows the sheet and "the host enters the
//    scores", and no pad;
// 2. in landscape the pad and Send fill the tray from its top; on screen at every size;
// 3. P.M.: the acting seat's board is on screen, not under the tray, together with the hand (a
//    seat) or the card picker (the host), before and after a card is picked (its men lit);
// 4. By Hook or Crook: a real-card game on a one-castle board (`board.pink_from` 8) played over
//    the API to its final exhibition, with a tie on the furthest space that the more valuable
//    collection breaks: the page says who showed which set, +8 / +4, where each pawn ends and the
//    winner, checked against the API's view; no raw ids, null or JSON.
// Screenshots polish-*.png.
//
// Env: as lib.mjs (BASE, PW_DIR, CHROMIUM, ARTIFACTS).

import { join } from "node:path";
import { ARTIFACTS, BASE, api, check, drawn, phone, run } from "./lib.mjs";

const SIZES = [[390, 844], [360, 640], [844, 390]];
const shot = (page, name) => page.screenshot({ path: join(ARTIFACTS, `polish-${name}.png`) });
const get = (path, token) => api("GET", path, token);
const text = (page, sel) => page.$eval(sel, (e) => e.textContent.trim()).catch(() => null);

async function open(browser, id, token, [width, height], label) {
  const ctx = await browser.newContext({ ...phone, viewport: { width, height } });
  const page = await ctx.newPage();
  page.on("pageerror", (e) => check(`${label}: no script error`, false, e.message));
  await page.goto(`${BASE}/#m=${id}&t=${token}`);
  await drawn(page); // (a scroll of #final once failed in CI, held across the second drawing)
  return page;
}

// A box fully on screen and not covered: the element at its centre is inside it.
function onScreen(page, sel) {
  return page.evaluate((sel) => {
    const e = document.querySelector(sel);
    if (!e) return { ok: false, why: "missing" };
    const b = e.getBoundingClientRect();
    const inside = b.width > 0 && b.top >= 0 && b.left >= 0 && b.bottom <= innerHeight + 0.5 && b.right <= innerWidth + 0.5;
    const at = document.elementFromPoint(b.left + b.width / 2, b.top + b.height / 2);
    return { ok: inside && !!at && e.contains(at), box: [Math.round(b.left), Math.round(b.top), Math.round(b.right), Math.round(b.bottom)] };
  }, sel);
}

run("polish", async (browser) => {
  // ---- 1 and 2: score-only matches ----
  for (const [game, n, expect] of [
    ["clubs", 4, (v) => `Deal ${v.scores.rounds.length + 1}`],
    ["bonus-malus", 4, (v) => `Deal ${v.scores.rounds.length + 1} (×${v.scores.rounds.length + 1})`],
    ["plus-minus", 3, (v) => `Game ${v.scores.rounds.length + 1} of the rubber (${v.config.rubber_games})`],
  ]) {
    const made = await api("POST", "/v1/matches", null, { game, dealing: "table", config: { scores_only: true }, players: ["Ada", "Ben", "Cat", "Dan"].slice(0, n).map((name) => ({ name })) });
    if (!made.match) { check(`${game}: a score-only match is created`, false, JSON.stringify(made)); continue; }
    const id = made.match.id;
    // One round entered over the API first (Clubs), so that the page counts from the sheet.
    if (game === "clubs") {
      const r = await api("POST", `/v1/matches/${id}/actions`, made.host_token, { seat: null, action: { type: "tally", points: [-10, -6, -5, -5] } });
      check("clubs: a first deal tallied over the API", !!r.match, JSON.stringify(r).slice(0, 300));
    }
    const v = await get(`/v1/matches/${id}`, made.host_token);
    const next = expect(v);
    for (const size of SIZES) {
      const label = `${game} score-only ${size.join("x")}`;
      const host = await open(browser, id, made.host_token, size, `${label} host`);
      await host.waitForSelector("#tally-send");
      const status = await text(host, "#status");
      const turn = await text(host, "#turn");
      check(`${label}: the host's header says "${next} · scores only · version ${v.seq}"`, status === `${next} · scores only · version ${v.seq}`, status);
      check(`${label}: the host's line says "Your turn. ${next}: enter the scores"`, turn === `Your turn. ${next}: enter the scores`, turn);
      const body = await host.evaluate(() => document.querySelector("#table-scroll").textContent);
      const noise = ["Round 0", "No trick", "deals or records", "leads", "dealer", "Trump"].filter((w) => body.includes(w));
      check(`${label}: no trick felt, players' dealing or "Round 0" on the host's page`, !(await host.$("#table")) && !(await host.$("#players")) && !noise.length, noise.join(", "));
      const fit = await host.evaluate(() => {
        const tray = document.querySelector("#tray").getBoundingClientRect();
        const tally = document.querySelector("#tally").getBoundingClientRect();
        const send = document.querySelector("#tally-send").getBoundingClientRect();
        return { gap: Math.round(tally.top - tray.top), send: send.top >= 0 && send.bottom <= innerHeight && send.right <= innerWidth };
      });
      const top = await onScreen(host, "#tally-send");
      check(`${label}: the pad fills the tray from its top (gap ${fit.gap} px ≤ 12) and Send is on screen`, fit.gap <= 12 && fit.send && top.ok, JSON.stringify({ fit, top }));
      await shot(host, `scoreonly-${game}-host-${size.join("x")}`);
      const seat = await open(browser, id, made.seat_tokens[1], size, `${label} seat`);
      const seatTurn = await text(seat, "#turn");
      check(`${label}: a seat's line says "${next}: the host enters the scores", no pad, no felt`,
        seatTurn === `${next}: the host enters the scores` && !(await seat.$("#tally")) && !(await seat.$("#table")) && !(await seat.$("#tray")), seatTurn);
      const rows = await seat.$$eval("#scores tr.round", (trs) => trs.length);
      check(`${label}: a seat's phone shows the sheet (${v.scores.rounds.length} rounds)`, rows === v.scores.rounds.length, String(rows));
      await shot(seat, `scoreonly-${game}-seat-${size.join("x")}`);
      await Promise.all([host.context().close(), seat.context().close()]);
    }
  }

  // ---- 3: P.M. boards in reach ----
  for (const size of SIZES) {
    const label = `plus-minus ${size.join("x")}`;
    // The deal is the service's shuffle: deal matches until the acting seat (after two moves
    // over the API, so that it is not the first board) holds a card that moves a man (one whose
    // every move is "no man moves" lights nothing).
    let made, id, v, s, legal;
    for (let tries = 0; tries < 20; tries++) {
      made = await api("POST", "/v1/matches", null, { game: "plus-minus", dealing: "service", players: ["Ada", "Ben", "Cat"].map((name) => ({ name })) });
      id = made.match.id;
      const deal = (await get(`/v1/matches/${id}/legal`, made.host_token)).actions[0];
      await api("POST", `/v1/matches/${id}/actions`, made.host_token, { seat: null, action: deal });
      for (let k = 0; k < 2; k++) {
        const w = await get(`/v1/matches/${id}`, made.host_token);
        const t = w.to_act[0];
        const a = (await get(`/v1/matches/${id}/legal?seat=${t}`, made.seat_tokens[t])).actions[0];
        await api("POST", `/v1/matches/${id}/actions`, made.seat_tokens[t], { seat: t, action: a });
      }
      v = await get(`/v1/matches/${id}`, made.host_token);
      s = v.to_act[0];
      legal = (await get(`/v1/matches/${id}/legal?seat=${s}`, made.seat_tokens[s])).actions;
      if (legal.some((a) => a.from !== null && a.from !== undefined)) break;
    }
    const page = await open(browser, id, made.seat_tokens[s], size, label);
    await page.waitForSelector("#hand button.legal");
    const acting = await page.$eval(".pm-seat.acting .pm-board", (b) => Number(b.dataset.seat));
    check(`${label}: the acting board is ${v.players[s].name}'s (seat ${s + 1}, the API's to_act)`, acting === s, String(acting));
    const board = await onScreen(page, ".pm-seat.acting .pm-board");
    const hand = await onScreen(page, "#hand");
    check(`${label}: ${v.players[s].name}'s board and hand both on screen, uncovered`, board.ok && hand.ok, JSON.stringify({ board, hand }));
    // A card that moves a man.
    const mover = legal.find((a) => a.from !== null && a.from !== undefined).card;
    await page.click(`#hand button.legal[data-pm="${mover}"]`);
    await page.waitForSelector(".pm-seat.acting button.cell.lit");
    const lit = await onScreen(page, ".pm-seat.acting button.cell.lit");
    const after = await onScreen(page, ".pm-seat.acting .pm-board");
    check(`${label}: a card picked: the lit man on screen with the board`, lit.ok && after.ok, JSON.stringify({ lit, after }));
    await shot(page, `pm-seat-${size.join("x")}`);
    await page.context().close();

    // The host at a real-card table: the picker in the tray, the acting board on screen.
    const real = await api("POST", "/v1/matches", null, { game: "plus-minus", dealing: "table", players: ["Ada", "Ben", "Cat"].map((name) => ({ name })) });
    const rd = (await get(`/v1/matches/${real.match.id}/legal`, real.host_token)).actions[0];
    await api("POST", `/v1/matches/${real.match.id}/actions`, real.host_token, { seat: null, action: rd });
    const host = await open(browser, real.match.id, real.host_token, size, `${label} host`);
    await host.waitForSelector("#chooser .pm-pick button[data-step]");
    const hostLegal = (await get(`/v1/matches/${real.match.id}/legal?seat=${(await get(`/v1/matches/${real.match.id}`, real.host_token)).to_act[0]}`, real.host_token)).actions;
    const hostCard = hostLegal.find((a) => a.from !== null && a.from !== undefined).card;
    await host.click(`#chooser .pm-pick button[data-pm="${hostCard}"]`);
    await host.waitForSelector(".pm-seat.acting button.cell.lit");
    const hb = await onScreen(host, ".pm-seat.acting .pm-board");
    const hl = await onScreen(host, ".pm-seat.acting button.cell.lit");
    check(`${label}: the host's card picked: the acting board and its lit man on screen`, hb.ok && hl.ok, JSON.stringify({ hb, hl }));
    await shot(host, `pm-host-${size.join("x")}`);
    await host.context().close();
  }

  // ---- 4: By Hook or Crook's final exhibition ----
  {
    const made = await api("POST", "/v1/matches", null, {
      game: "by-hook-or-crook", dealing: "table", players: ["Ada", "Ben", "Cat"].map((name) => ({ name })),
      // One castle of 8 spaces paying 8 | 4, pink from space 8: the turn's best exhibit ends the game.
      config: { board: { castles: [{ spaces: 8, upper: 8, lower: 4 }], pink_from: 8 } },
    });
    const id = made.match.id, host = made.host_token;
    let bad = null;
    const act = async (seat, action) => {
      const r = await api("POST", `/v1/matches/${id}/actions`, host, { seat, action });
      if (!r.match && !bad) bad = `${JSON.stringify(action)}: ${JSON.stringify(r)}`;
    };
    const ada = ["A1620", "A1680", "B1567"], benTurn = ["E1588", "E1648", "F1595"], benFinal = [...benTurn, "F1655"];
    await act(null, { type: "deal" });
    await act(null, { type: "reveal_pile", pile: 0, card: "A1500" });
    await act(null, { type: "reveal_pile", pile: 1, card: "B1507" });
    for (const [s, place] of [[0, "castle"], [1, "castle"], [2, "auction"]]) await act(s, { type: "location", place });
    for (const [s, card] of [[0, "exhibit"], [1, "exhibit"], [2, "check:8200"]]) await act(s, { type: "choose", card });
    await act(2, { type: "buy", pile: 0 });
    await act(null, { type: "reveal_pile", pile: 0, card: "A1740" });
    await act(0, { type: "exhibit", cards: ada });
    await act(1, { type: "exhibit", cards: benTurn });
    const mid = await get(`/v1/matches/${id}`, host);
    check("bhoc: Ada's exhibit (+8) reaches the pink space 8: the final exhibition", !bad && mid.table.phase === "final_exhibition" && mid.table.positions.join() === "8,4,0", bad || JSON.stringify(mid.table.positions));
    await act(2, { type: "final_exhibit", cards: [] });
    await act(0, { type: "final_exhibit", cards: ada });
    await act(1, { type: "final_exhibit", cards: benFinal });
    const v = await get(`/v1/matches/${id}`, host);
    const t = v.table;
    check("bhoc: the API: Ben's 4-card set best (+8), Ada's second (+4), both on 12, Ben wins the tie",
      !bad && v.status === "finished" && t.final.ranking.join() === "1,0" && t.final.advances.join() === "4,8,0" && t.positions.join() === "12,12,0" && t.winners.join() === "1",
      bad || JSON.stringify({ final: t.final, positions: t.positions, winners: t.winners }));
    const words = (c) => `Series ${c[0]}, ${c.slice(1)}`;
    const expected = [
      `Ben showed ${benFinal.map(words).join("; ")} (4 cards): best set, +${t.final.advances[1]}, ends on space ${t.positions[1]}`,
      `Ada showed ${ada.map(words).join("; ")} (3 cards): second set, +${t.final.advances[0]}, ends on space ${t.positions[0]}`,
      `Cat showed no set, +${t.final.advances[2]}, ends on space ${t.positions[2]}`,
    ];
    const verdict = `Winner: Ben on space ${t.positions[1]}, level with Ada: the more valuable collection wins the tie`;
    for (const size of SIZES) {
      const label = `bhoc final ${size.join("x")}`;
      for (const [who, token] of [["host", host], ["Cat's phone", made.seat_tokens[2]]]) {
        const page = await open(browser, id, token, size, `${label} ${who}`);
        const lines = await page.$$eval("#final li", (ls) => ls.map((l) => l.textContent.trim()));
        check(`${label} ${who}: each set in words, +8 / +4, where each pawn ends`, JSON.stringify(lines) === JSON.stringify(expected), JSON.stringify(lines));
        const win = await text(page, "#final-winner");
        check(`${label} ${who}: "${verdict}"`, win === verdict, win);
        const head = await page.$eval("#table", (e) => e.firstElementChild.textContent.trim());
        const sheet = await text(page, "#winners");
        check(`${label} ${who}: the finished state ("Turn 1 · the game is over", sheet "Winner: Ben", "The match is over.")`,
          head === "Turn 1 · the game is over" && sheet === "Winner: Ben" && (await text(page, "#turn")) === "The match is over.",
          `${head} | ${sheet}`);
        const status = await text(page, "#status");
        check(`${label} ${who}: the header names the felt's turn ("Turn 1 · …", not the match's round)`, status.startsWith("Turn 1 · "), status);
        if (who !== "host") {
          const tray = await page.$eval("#you", (e) => ({ head: e.querySelector("h2").textContent, hand: !!e.querySelector("#hand"), dim: e.querySelectorAll(".dim").length, kept: e.querySelectorAll("#collection .bhc-card").length }));
          check(`${label} ${who}: the tray keeps the collection and no greyed action cards`, tray.head === "Your collection" && !tray.hand && tray.dim === 0 && tray.kept > 0, JSON.stringify(tray));
        }
        // (A card drawn as its letter badge and year reads "A1740" as text: raw ids are looked for
        // in the words of the final exhibition only.)
        const all = await page.$eval("#table", (e) => e.textContent);
        const raw = ["null", "undefined", "{\"", "NaN", "check:", "thief:"].filter((w) => all.includes(w));
        const ids = (await text(page, "#final")).match(/\b[A-F]1\d{3}\b/g);
        check(`${label} ${who}: no raw ids, null or JSON on the felt`, !raw.length && !ids, `${raw.join(", ")} ${ids || ""}`);
        await page.locator("#final").scrollIntoViewIfNeeded();
        await shot(page, `bhoc-final-${who === "host" ? "host" : "seat"}-${size.join("x")}`);
        await page.context().close();
      }
    }
  }
});
