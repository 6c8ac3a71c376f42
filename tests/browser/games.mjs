// Browser smoke test of the table page for every game in both dealing modes (scripts/ci-browser.sh
// runs it after clubs.mjs): a match is created through the API, the host page and the seats'
// pages open, and the first steps of play are made by tapping what each page offers (a legal
// card, a card in the picker, an action button). No script error, no refusal, every tap recorded.
// A screenshot per game and mode.
//
// Env: as lib.mjs (BASE, PW_DIR, CHROMIUM, ARTIFACTS); STEPS (taps per match, default 10).

import { join } from "node:path";
import { ARTIFACTS, BASE, api, check, drawn, phone, run } from "./lib.mjs";

const STEPS = Number(process.env.STEPS || 10);
const PLAYERS = { clubs: 4, dump: 4, "bonus-malus": 4, "plus-minus": 3, "members-only": 3, "by-hook-or-crook": 3 };
const TAPPABLE = ["#hand button.card.legal:not([disabled])", "#picker button.card", "#actions .picker button.card", "#actions .actions button[data-type]"];

await run("games", async (browser) => {
  for (const [game, n] of Object.entries(PLAYERS)) {
    for (const dealing of ["service", "table"]) {
      const name = `${game} (${dealing})`;
      const created = await api("POST", "/v1/matches", null, {
        game, dealing, players: ["Ada", "Ben", "Cy", "Di"].slice(0, n).map((name) => ({ name })),
      });
      const id = created.match.id;
      const tokens = [created.host_token, ...created.seat_tokens];
      const pages = [], errors = [];
      for (const t of tokens) {
        const ctx = await browser.newContext(phone);
        const p = await ctx.newPage();
        p.on("pageerror", (e) => errors.push(e.message));
        await p.goto(`${BASE}/#m=${id}&t=${t}`);
        await drawn(p);
        pages.push(p);
      }
      const [host, ...seats] = pages;
      let taps = 0, seatTaps = 0, stuck = "";
      for (let step = 0; step < STEPS; step++) {
        const v = await api("GET", `/v1/matches/${id}`);
        if (v.status === "finished") break;
        // Real cards: the host records every other step, the seat's own page the others
        // (falling back to the host when the seat's page offers nothing to tap).
        let page = v.table_to_act || (dealing === "table" && step % 2 === 0) ? host : seats[v.to_act[0]];
        if (page && page !== host && dealing === "table") {
          await page.waitForFunction((s) => Number(document.body.dataset.seq) >= s, v.seq, { timeout: 15000 });
          let any = false;
          for (const sel of TAPPABLE) if (await page.locator(sel).count()) { any = true; break; }
          if (!any) page = host;
        }
        if (!page) { stuck = `nobody to act: ${JSON.stringify(v.to_act)}`; break; }
        await page.waitForFunction((s) => Number(document.body.dataset.seq) >= s, v.seq, { timeout: 15000 });
        let tapped = false;
        for (const sel of TAPPABLE) {
          const el = page.locator(sel).first();
          if (await el.count()) {
            const step = (await el.getAttribute("data-step")) !== null;
            await el.click();
            tapped = true;
            // A long list is chosen step by step (#chooser): follow the first option down.
            for (let k = 0; step && k < 6; k++) {
              const next = page.locator("#chooser button[data-type]").first();
              if (!(await next.count())) break;
              const more = (await next.getAttribute("data-step")) !== null;
              await next.click();
              if (!more) break;
            }
            break;
          }
        }
        if (!tapped) { stuck = `nothing to tap at version ${v.seq}`; break; }
        const choice = page.locator("#declare button[data-declare], .msg.warn .actions button:not(.secondary)").first();
        if (await choice.count()) await choice.click();
        const t0 = Date.now();
        let after = v;
        while (after.seq === v.seq && Date.now() - t0 < 10000) {
          await new Promise((r) => setTimeout(r, 100));
          after = await api("GET", `/v1/matches/${id}`);
        }
        const refusal = await page.$eval("#error", (e) => e.textContent).catch(() => null);
        if (after.seq === v.seq) { stuck = `tap not recorded at version ${v.seq}${refusal ? `: ${refusal}` : ""}`; break; }
        taps++;
        if (page !== host) seatTaps++;
      }
      check(`${name}: ${taps} taps recorded (${seatTaps} on the seats' own pages)`, !stuck && taps > 0, stuck);
      check(`${name}: no script error`, errors.length === 0, errors.join("; "));
      const v = await api("GET", `/v1/matches/${id}`);
      await Promise.all(pages.map((p) => p.waitForFunction((s) => Number(document.body.dataset.seq) >= s, v.seq, { timeout: 15000 })));
      const shown = await Promise.all(pages.map((p) => p.evaluate(() => Number(document.body.dataset.seq))));
      check(`${name}: every page live at version ${v.seq}`, shown.every((s) => s === v.seq), shown.join(","));
      await host.screenshot({ path: join(ARTIFACTS, `game-${game}-${dealing}-host.png`) });
      const s0 = seats[v.to_act[0] ?? 0] || seats[0];
      await s0.screenshot({ path: join(ARTIFACTS, `game-${game}-${dealing}-seat.png`) });
      await Promise.all(pages.map((p) => p.context().close()));
    }
  }
});
