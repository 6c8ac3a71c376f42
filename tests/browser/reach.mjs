// Browser test of the table page's reach (issue 22): what a phone acts with is on its screen
// without scrolling, and stays put while a trick fills. scripts/ci-browser.sh runs it.
//
// 1. At 390x844, 360x640 and 844x390, four phones play a whole service-dealt Clubs deal, the
//    acting seat's phone tapping a legal card each turn. At every turn: the acting seat's hand
//    (and the card it taps) lies inside the viewport, and no phone's hand moves (its top y before
//    and after each card, 0 px allowed), also when a trick is cleared.
// 2. A real-card Clubs deal recorded by the host's page, its size changed every turn (the three
//    sizes in turn): the picker and Undo inside the viewport; the picker a row per suit, 13 cards
//    in rank order; every card played in the deal greyed out and not a button; Undo once.
// Screenshots r*-*.png.
//
// Env: as lib.mjs (BASE, PW_DIR, CHROMIUM, ARTIFACTS).

import { join } from "node:path";
import { ARTIFACTS, BASE, api, check, drawn, phone, run } from "./lib.mjs";

const SIZES = [[390, 844], [360, 640], [844, 390]];
const shot = (page, name) => page.screenshot({ path: join(ARTIFACTS, `${name}.png`) });
const seqAtLeast = (p, n) => p.waitForFunction((n) => Number(document.body.dataset.seq) >= n, n, { timeout: 20000 });

// The box of `sel` on `page` as the viewport shows it now (null if absent).
const box = (page, sel) => page.evaluate((sel) => {
  const e = document.querySelector(sel);
  if (!e) return null;
  const r = e.getBoundingClientRect();
  return { x: r.left, y: r.top, w: r.width, h: r.height, vw: innerWidth, vh: innerHeight, sy: scrollY };
}, sel);
const inside = (b) => b && b.w > 0 && b.h > 0 && b.x >= 0 && b.y >= 0 && b.x + b.w <= b.vw + 0.5 && b.y + b.h <= b.vh + 0.5;
const fmt = (b) => (b ? `${Math.round(b.x)},${Math.round(b.y)} ${Math.round(b.w)}x${Math.round(b.h)} in ${b.vw}x${b.vh}` : "none");

// The cards played in the deal so far, as the public view tells them.
function playedIn(v) {
  const t = v.table || {};
  return [...(t.tricks || []).flatMap((tr) => tr.plays || []), ...(t.trick || [])].map((p) => p.card);
}

async function newMatch(dealing) {
  const created = await api("POST", "/v1/matches", null, {
    game: "clubs", dealing, players: ["Ada", "Ben", "Cy", "Di"].map((name) => ({ name })),
  });
  return { id: created.match.id, host: created.host_token, seats: created.seat_tokens };
}

await run("reach", async (browser) => {
  const errors = [];

  // ---- 1. a service-dealt deal at each size ----
  for (const [width, height] of SIZES) {
    const size = `${width}x${height}`;
    const m = await newMatch("service");
    const deal = (await api("GET", `/v1/matches/${m.id}/legal`, m.host)).actions[0];
    await api("POST", `/v1/matches/${m.id}/actions`, m.host, { seat: null, action: deal });
    const pages = [];
    for (let s = 0; s < 4; s++) {
      const ctx = await browser.newContext({ ...phone, viewport: { width, height } });
      const p = await ctx.newPage();
      p.on("pageerror", (e) => errors.push(`${size} seat ${s}: ${e.message}`));
      await p.goto(`${BASE}/#m=${m.id}&t=${m.seats[s]}`);
      await p.waitForSelector("#hand button.card");
      pages.push(p);
    }
    let plays = 0, outside = [], moved = [], tapOutside = [];
    const tops = new Map(); // every top y each phone's hand had, with how often
    let firstTops = null;
    for (;;) {
      const v = await api("GET", `/v1/matches/${m.id}`);
      if (v.table_to_act || v.status === "finished" || !v.to_act.length) break;
      const s = v.to_act[0];
      const p = pages[s];
      await Promise.all(pages.map((x) => seqAtLeast(x, v.seq)));
      await p.waitForSelector("#hand button.card.legal:not([disabled])");
      const before = await Promise.all(pages.map((x) => box(x, "#hand")));
      if (!firstTops) firstTops = before.map((b) => b && Math.round(b.y));
      if (!inside(before[s])) outside.push(`play ${plays + 1} seat ${s}: ${fmt(before[s])}`);
      const card = p.locator("#hand button.card.legal:not([disabled])").first();
      const cb = await card.evaluate((e) => { const r = e.getBoundingClientRect(); return { x: r.left, y: r.top, w: r.width, h: r.height, vw: innerWidth, vh: innerHeight }; });
      if (!inside(cb) || cb.h < 44 || cb.w < 40) tapOutside.push(`play ${plays + 1}: ${fmt(cb)}`);
      // A tap, not a scripted click that would scroll first: the card must already be there.
      await p.touchscreen.tap(cb.x + cb.w / 2, cb.y + cb.h / 2);
      if (await p.$("#declare")) {
        const d = await box(p, "#hand");
        if (d.y !== before[s].y) moved.push(`seat ${s} with the club lead's choice: ${before[s].y} -> ${d.y}`);
        await p.click("#declare button[data-declare]");
      }
      await Promise.all(pages.map((x) => seqAtLeast(x, v.seq + 1)));
      plays++;
      const after = await Promise.all(pages.map((x) => box(x, "#hand")));
      for (let k = 0; k < 4; k++) {
        if (!after[k] || !before[k]) continue;
        tops.set(k, [...new Set([...(tops.get(k) || []), before[k].y, after[k].y])]);
        if (after[k].y !== before[k].y) moved.push(`play ${plays} seat ${k}: ${before[k].y} -> ${after[k].y}`);
      }
      if (plays === 1) await shot(p, `r1-${size}-seat${s}-first-play`);
      if (plays === 26) for (let k = 0; k < 4; k++) await shot(pages[k], `r2-${size}-seat${k}-mid-deal`);
      if (plays === 27 || plays === 29) await shot(p, `r3-${size}-trick-filling-${plays}`);
    }
    check(`${size}: a whole deal of 52 plays, each tapped on the acting seat's page`, plays === 52, `${plays} plays`);
    check(`${size}: the acting seat's hand inside the viewport at every turn, with no scrolling`, outside.length === 0, outside.slice(0, 5).join("; "));
    check(`${size}: the tapped card inside the viewport and a thumb's size`, tapOutside.length === 0, tapOutside.slice(0, 5).join("; "));
    check(`${size}: no phone's hand moves while a trick fills or is cleared (0 px)`, moved.length === 0, moved.slice(0, 5).join("; "));
    console.log(`     ${size}: hand top y per seat ${JSON.stringify(firstTops)}; every y seen ${JSON.stringify([...tops.entries()])}`);
    await Promise.all(pages.map((p) => p.context().close()));
  }

  // ---- 2. a real-card deal recorded on the host's page ----
  const m = await newMatch("table");
  const ctx = await browser.newContext(phone);
  const host = await ctx.newPage();
  host.on("pageerror", (e) => errors.push(`host: ${e.message}`));
  await host.goto(`${BASE}/#m=${m.id}&t=${m.host}`);
  await drawn(host);
  let turn = 0, plays = 0, undone = false, stuck = "";
  const bad = { picker: [], undo: [], rows: [], gone: [] };
  const ys = {};
  for (let n = 0; n < 200; n++) {
    const v = await api("GET", `/v1/matches/${m.id}`);
    if (v.status === "finished" || (plays > 0 && v.table_to_act)) break;
    await seqAtLeast(host, v.seq);
    const [w, hgt] = SIZES[turn++ % 3];
    await host.setViewportSize({ width: w, height: hgt });
    const size = `${w}x${hgt}`;
    const cardBtn = host.locator("#actions .picker button.card").first();
    if (!(await cardBtn.count())) {
      // Not a card play (the deal, a stock card): the first action button.
      const b = host.locator("#actions .actions button[data-type]").first();
      if (!(await b.count())) { stuck = `nothing to tap at version ${v.seq}`; break; }
      await b.click();
    } else {
      const pb = await box(host, "#actions .picker");
      const ub = await box(host, "#undo");
      (ys[size] ||= new Set()).add(Math.round(pb.y));
      if (!inside(pb)) bad.picker.push(`${size} v${v.seq}: ${fmt(pb)}`);
      if (v.seq > 0 && !inside(ub)) bad.undo.push(`${size} v${v.seq}: ${fmt(ub)}`);
      const rows = await host.$$eval("#actions .picker .suit-row", (rs) => rs.map((r) => r.dataset.suit + ":" + [...r.children].map((c) => c.dataset.card[0]).join("")));
      if (rows.join(" ") !== ["S", "H", "D", "C"].map((s) => `${s}:23456789TJQKA`).join(" ")) bad.rows.push(`v${v.seq}: ${rows.join(" ")}`);
      const played = playedIn(v);
      const shown = await host.$$eval("#actions .picker [data-card]", (cs) => cs.map((c) => [c.dataset.card, c.tagName, c.classList.contains("gone")]));
      const wrong = shown.filter(([c, tag, gone]) => played.includes(c) !== (tag !== "BUTTON" && gone));
      if (wrong.length) bad.gone.push(`v${v.seq} played ${played.length}: ${wrong.map((x) => x.join("/")).slice(0, 4).join(" ")}`);
      if (plays === 13 && !undone) {
        // Undo, in reach: the last card recorded comes back as a button.
        const last = played.at(-1);
        await host.touchscreen.tap(ub.x + ub.w / 2, ub.y + ub.h / 2);
        // Undo asks first; its Yes is in reach too.
        await host.waitForSelector("#undo-yes");
        const yb = await box(host, "#undo-yes");
        if (!inside(yb)) bad.undo.push(`${size} v${v.seq} the undo question's Yes: ${fmt(yb)}`);
        await host.touchscreen.tap(yb.x + yb.w / 2, yb.y + yb.h / 2);
        await seqAtLeast(host, v.seq + 1);
        const back = await host.$eval(`#actions .picker [data-card="${last}"]`, (e) => e.tagName).catch(() => null);
        check("Undo tapped where it is: the last recorded card is a button in the picker again", back === "BUTTON", `${last}: ${back}`);
        undone = true;
        plays--;
        continue;
      }
      const cb = await cardBtn.evaluate((e) => { const r = e.getBoundingClientRect(); return { x: r.left, y: r.top, w: r.width, h: r.height }; });
      await host.touchscreen.tap(cb.x + cb.w / 2, cb.y + cb.h / 2);
      plays++;
      if (plays === 1 || plays === 20 || plays === 21 || plays === 22) await shot(host, `r4-host-picker-${size}-play${plays}`);
    }
    const choice = host.locator(".msg.warn .actions button:not(.secondary)").first();
    if (await choice.count()) {
      // The choice floats over the table: the picker and Undo stay where they were.
      const pb = await box(host, "#actions .picker"), ub = await box(host, "#undo"), cb = await box(host, "#host-choice");
      if (!inside(pb)) bad.picker.push(`${size} v${v.seq} with a choice: ${fmt(pb)}`);
      if (ub && !inside(ub)) bad.undo.push(`${size} v${v.seq} with a choice: ${fmt(ub)}`);
      if (cb && !inside(cb)) bad.picker.push(`${size} v${v.seq} the choice: ${fmt(cb)}`);
      await shot(host, `r5-host-choice-${size}`);
      await choice.click();
    }
    const t0 = Date.now();
    let after = v;
    while (after.seq === v.seq && Date.now() - t0 < 10000) {
      await new Promise((r) => setTimeout(r, 100));
      after = await api("GET", `/v1/matches/${m.id}`);
    }
    if (after.seq === v.seq) { stuck = `tap not recorded at version ${v.seq}`; break; }
  }
  check("real cards: the host recorded a whole deal from the picker", !stuck && plays === 52, `${stuck} ${plays} plays`);
  check("real cards: the picker inside the viewport at every size, every turn", bad.picker.length === 0, bad.picker.slice(0, 4).join("; "));
  check("real cards: Undo inside the viewport at every size, every turn", bad.undo.length === 0, bad.undo.slice(0, 4).join("; "));
  check("real cards: the picker is a row per suit, 13 cards in rank order", bad.rows.length === 0, bad.rows.slice(0, 2).join("; "));
  check("real cards: exactly the cards played so far are greyed out and not buttons", bad.gone.length === 0, bad.gone.slice(0, 3).join("; "));
  console.log(`     host picker top y per size: ${JSON.stringify(Object.fromEntries(Object.entries(ys).map(([k, s]) => [k, [...s]])))}`);
  check("no script error", errors.length === 0, errors.join("; "));
});
