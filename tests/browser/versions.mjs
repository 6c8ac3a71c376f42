// Browser test: a page offers only what is legal at the version it shows. A real-card Clubs match
// (the host records every seat's card from its picker); every redraw of the host's page is
// watched (the version on <body data-seq> and the cards its picker offers), and each must offer
// only cards legal at that version, as the API lists them.
// 1. A slow answer for an older version: the host records the deal, and the legal list it then
//    asks for (version 1) is held back while a seat's card is recorded through the API (version
//    2) and the page draws version 2 from its stream. Released, the old list must not be drawn
//    under version 2 (it was, once: the page set the view first and its lists after, so a send's
//    late list was drawn under the stream's newer view, and CI's games test tapped a card already
//    played: "2♣ has already been played in this deal").
// 2. A list read after the match moved on: a second host page with no stream records a card
//    (version 3); its list for version 3 reaches the server only after another card is recorded
//    (version 4), so it answers for version 4 (its ETag says so). The page must not draw version
//    3 with version 4's cards: it reads the match again and draws version 4.
//
// Env: as lib.mjs (BASE, PW_DIR, CHROMIUM, ARTIFACTS).

import { join } from "node:path";
import { ARTIFACTS, BASE, api, check, phone, run } from "./lib.mjs";

// The cards the API lists as legal at the match's current version, as "seat:card" (and "seat:"
// for each seat with a card to play), for any seat to act (the host's token may ask for each at
// a real-card table), with that version.
async function legalNow(id, host) {
  const v = await api("GET", `/v1/matches/${id}`, host);
  const cards = new Set();
  for (const s of v.to_act) {
    for (const a of (await api("GET", `/v1/matches/${id}/legal?seat=${s}`, host)).actions) {
      if (a.type === "play" && typeof a.card === "string") cards.add(`${s}:${a.card}`).add(`${s}:`);
    }
  }
  const again = await api("GET", `/v1/matches/${id}`, host);
  if (again.seq !== v.seq) throw new Error(`the match moved while its legal lists were read (${v.seq} → ${again.seq})`);
  return { seq: v.seq, cards, v };
}

// A seat to act plays its first legal card, through the API with the host's token.
async function playThroughApi(id, host) {
  const v = await api("GET", `/v1/matches/${id}`, host);
  const seat = v.to_act[0];
  const action = (await api("GET", `/v1/matches/${id}/legal?seat=${seat}`, host)).actions.find((a) => a.type === "play");
  const r = await api("POST", `/v1/matches/${id}/actions`, host, { seat, action });
  if (!r.match) throw new Error(`the play was refused: ${JSON.stringify(r)}`);
  return `${seat}:${action.card}`;
}

// Every redraw of the page, recorded in the page: its version and the cards its picker offers, as
// "seat:card" (the seat the picker records for), and the seats it offers to pick from, as "seat:".
async function watchRedraws(page) {
  await page.evaluate(() => {
    window.__redraws = [];
    const note = () => {
      const seq = Number(document.body.dataset.seq);
      const cards = [...document.querySelectorAll("#tray .picker-wrap[data-seat] button.card.legal[data-card]")]
        .map((e) => `${e.closest(".picker-wrap").dataset.seat}:${e.dataset.card}`)
        .concat([...document.querySelectorAll("#tray #pick-seat button[data-seat]")].map((e) => `${e.dataset.seat}:`));
      const last = window.__redraws.at(-1);
      const key = `${seq}:${cards.join(",")}`;
      if (!last || last.key !== key) window.__redraws.push({ key, seq, cards });
    };
    new MutationObserver(note).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ["data-seq"] });
    note();
  });
}

// Each recorded redraw offers only cards legal at its version.
async function checkRedraws(page, legalAt, name) {
  const redraws = await page.evaluate(() => window.__redraws);
  const bad = redraws.filter((r) => !legalAt.has(r.seq) || r.cards.some((c) => !legalAt.get(r.seq).has(c)));
  check(`${name}: each of its ${redraws.length} redraws offers only cards legal at the version it shows`,
    redraws.length > 1 && bad.length === 0,
    bad.map((r) => `version ${r.seq} offered ${r.cards.join(" ")}, legal ${[...(legalAt.get(r.seq) || [])].join(" ")}`).join("; "));
}

// What the page offers now, as a redraw is recorded; and the "seat:card" entries alone.
const offered = (page) => page.evaluate(() => window.__redraws.at(-1).cards);
const cardsOnly = (xs) => [...xs].filter((x) => !x.endsWith(":"));

await run("versions", async (browser) => {
  const created = await api("POST", "/v1/matches", null, {
    game: "clubs", dealing: "table", players: ["Ada", "Ben", "Cy", "Di"].map((name) => ({ name })),
  });
  const id = created.match.id, host = created.host_token;
  const legalAt = new Map();
  const note = async () => { const l = await legalNow(id, host); legalAt.set(l.seq, l.cards); return l; };
  await note();

  // ---- 1. a late list for an older version ----
  const ctx = await browser.newContext(phone);
  const page = await ctx.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  let hold = false, held = null, release = null;
  const caught = new Promise((resolve) => { held = resolve; });
  const released = new Promise((resolve) => { release = resolve; });
  await page.route("**/legal**", async (route) => {
    const resp = await route.fetch(); // answered by the server now, at the version it is at
    if (hold) { hold = false; held(); await released; }
    await route.fulfill({ response: resp });
  });
  await page.goto(`${BASE}/#m=${id}&t=${host}`);
  await page.waitForSelector('button[data-type="deal"]');
  await watchRedraws(page);
  hold = true;
  await page.click('button[data-type="deal"]');
  await caught; // the page's list for version 1 is read and held
  await note(); // version 1
  const first = await playThroughApi(id, host); // "seat:card"
  await note(); // version 2
  await page.waitForFunction(() => document.body.dataset.seq === "2", null, { timeout: 15000 });
  release();
  // The held list arrives and the send that asked for it ends (its queue empties).
  await page.waitForFunction(() => !document.querySelector("#queued"), null, { timeout: 15000 });
  await page.waitForTimeout(500);
  const now = await offered(page);
  check("a late list for version 1 is not drawn under version 2: the card just played is not offered again",
    !now.some((x) => x.split(":")[1] === first.split(":")[1]) && now.length > 0 && now.every((c) => legalAt.get(2).has(c)), `offered ${now.join(" ")} after ${first}`);
  await checkRedraws(page, legalAt, "the host's page");
  await page.screenshot({ path: join(ARTIFACTS, "versions-late-list.png") });

  // ---- 2. a list answered for a later version ----
  const ctx2 = await browser.newContext(phone);
  const page2 = await ctx2.newPage();
  page2.on("pageerror", (e) => errors.push(e.message));
  await page2.route("**/stream**", (route) => route.abort());
  let delay = false, reached = null, go = null;
  const atServer = new Promise((resolve) => { reached = resolve; });
  const goOn = new Promise((resolve) => { go = resolve; });
  await page2.route("**/legal**", async (route) => {
    if (delay) { delay = false; reached(); await goOn; } // reaches the server only when let go
    await route.continue();
  });
  await page2.goto(`${BASE}/#m=${id}&t=${host}`);
  await page2.waitForSelector("#tray button.card.legal[data-card]");
  await watchRedraws(page2);
  delay = true;
  await page2.click("#tray button.card.legal[data-card]");
  await atServer; // the page's list for version 3 waits
  await note(); // version 3
  await playThroughApi(id, host);
  const l4 = await note(); // version 4
  go();
  // (Without its stream, the page learns of version 4 only from its list's answer.)
  await page2.waitForFunction(() => document.body.dataset.seq === "4", null, { timeout: 15000 }).catch(() => {});
  await page2.waitForFunction(() => !document.querySelector("#queued"), null, { timeout: 15000 });
  await page2.waitForTimeout(500);
  const shown = await page2.evaluate(() => document.body.dataset.seq);
  const now2 = await offered(page2);
  check("a list answered for version 4 is drawn with version 4, not under version 3",
    shown === "4" && now2.length > 0 && now2.every((c) => l4.cards.has(c)) && cardsOnly(now2).length === cardsOnly(l4.cards).length,
    `version ${shown} drawn offering ${now2.join(" ")}; legal at 4: ${[...l4.cards].join(" ")}`);
  await checkRedraws(page2, legalAt, "the streamless host page");
  check("no script error", errors.length === 0, errors.join("; "));
  await ctx.close();
  await ctx2.close();
});
