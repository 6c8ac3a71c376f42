// Browser test of the table behaving like a table (scripts/ci-browser.sh runs it): a service-dealt
// Clubs match with a host phone and two seat phones (the other two seats play through the API).
// A card tapped offline leaves the hand and waits in the queue, named; Undo asks the host first
// and every phone says what it took back; Undo is not offered once the deal's seed is out (the
// server agrees: 422 round_closed); "Your turn" is announced in a live region, the title and a
// vibration. Every action is chosen from `legal`: the deal is random.
//
// Env: as lib.mjs (BASE, PW_DIR, CHROMIUM, ARTIFACTS).

import { join } from "node:path";
import { ARTIFACTS, BASE, api, check, phone, run } from "./lib.mjs";

const get = (path, token) => api("GET", path, token);
// At the three phone sizes the page is looked at (portrait, small, landscape), back to 390x844.
const shot = async (page, name) => {
  for (const [w, hh] of [[360, 640], [844, 390], [390, 844]]) {
    await page.setViewportSize({ width: w, height: hh });
    await page.screenshot({ path: join(ARTIFACTS, `${name}-${w}x${hh}.png`) });
  }
};
const SUIT = { S: "♠", H: "♥", D: "♦", C: "♣" };
const cardText = (c) => ({ T: "10" }[c[0]] || c[0]) + SUIT[c[1]];

await run("tabletalk", async (browser) => {
  const names = ["Ada", "Ben", "Cat", "Dan"];
  const made = await api("POST", "/v1/matches", null, { game: "clubs", players: names.map((name) => ({ name })), dealing: "service" });
  const id = made.match.id, host = made.host_token, seats = made.seat_tokens;
  await api("POST", `/v1/matches/${id}/actions`, host, { seat: null, action: { type: "deal" } });
  const leader = (await get(`/v1/matches/${id}`)).to_act[0];
  const next = (leader + 1) % 4;
  // One seat plays through the API, its action chosen from its legal list.
  const apiPlay = async (seat) => {
    const legal = (await get(`/v1/matches/${id}/legal?seat=${seat}`, seats[seat])).actions;
    const r = await api("POST", `/v1/matches/${id}/actions`, seats[seat], { seat, action: legal[0] });
    if (!r.match) throw new Error(`seat ${seat} could not play: ${JSON.stringify(r)}`);
    return r.match;
  };

  // Each phone counts the vibrations it is asked for.
  const open = async (token, label) => {
    const ctx = await browser.newContext(phone);
    await ctx.addInitScript(() => {
      window.__buzz = [];
      navigator.vibrate = (ms) => { window.__buzz.push(ms); return true; };
    });
    const p = await ctx.newPage();
    p.on("pageerror", (e) => check(`${label} page has no script error`, false, e.message));
    await p.goto(`${BASE}/#m=${id}&t=${token}`);
    await p.waitForFunction(() => document.body.dataset.seq !== undefined);
    return { ctx, p };
  };
  const hostPh = await open(host, "host");
  const lead = await open(seats[leader], names[leader]);
  const nxt = await open(seats[next], names[next]);
  const phones = [hostPh.p, lead.p, nxt.p];
  const waitSeq = (n) => Promise.all(phones.map((p) => p.waitForFunction((n) => Number(document.body.dataset.seq) >= n, n, { timeout: 20000 })));

  // ---- 4. "Your turn" ----
  await lead.p.waitForSelector("#hand button.card.legal:not([disabled])");
  const leadLive = await lead.p.$eval("#announce", (e) => [e.getAttribute("aria-live"), e.textContent]);
  check("the phone to act says \"Your turn, <name>\" in a polite live region",
    leadLive[0] === "polite" && leadLive[1] === `Your turn, ${names[leader]}`, JSON.stringify(leadLive));
  const before = await nxt.p.evaluate(() => [document.title, document.getElementById("announce").textContent, window.__buzz.length]);
  check("a phone not to act announces nothing", before[0] === "Clubroom" && before[1] === "" && before[2] === 0, JSON.stringify(before));
  let m = await apiPlay(leader);
  await waitSeq(m.seq);
  await nxt.p.waitForFunction(() => document.title.startsWith("●"));
  const after = await nxt.p.evaluate(() => [document.title, document.getElementById("announce").textContent, window.__buzz]);
  check("the next phone's turn: title prefixed, live region and one 200 ms vibration",
    after[0] === "● Your turn — Clubroom" && after[1] === `Your turn, ${names[next]}` && after[2].length === 1 && after[2][0] === 200, JSON.stringify(after));
  const leadNow = await lead.p.evaluate(() => [document.title, document.getElementById("announce").textContent]);
  check("the phone that has played drops the prefix", leadNow[0] === "Clubroom" && leadNow[1] === "", JSON.stringify(leadNow));

  // ---- 1. a card tapped offline ----
  const seqBefore = m.seq;
  await nxt.p.waitForSelector("#hand button.card.legal:not([disabled])");
  await nxt.ctx.setOffline(true);
  const card = await nxt.p.getAttribute("#hand button.card.legal:not([disabled])", "data-card");
  await nxt.p.click(`#hand button.card[data-card="${card}"]`);
  await nxt.p.waitForSelector("#queued");
  await shot(nxt.p, "tt-01-offline-queued");
  const q = await nxt.p.evaluate((c) => ({
    text: document.querySelector("#queued").textContent,
    inHand: !!document.querySelector(`#hand [data-card="${c}"]`),
    pending: !!document.querySelector(`#queued .card.pending[data-card="${c}"]`),
    tappable: document.querySelectorAll("#hand button.card:not([disabled])").length,
  }), card);
  check("an offline tap leaves the hand at once and shows, pending, in the queue", !q.inHand && q.pending, JSON.stringify(q));
  check("the queue says what waits", q.text.includes(`Waiting to send: ${cardText(card)} (${names[next]})`), q.text);
  check("no card of the hand can be tapped while one waits", q.tappable === 0, `${q.tappable} tappable`);
  check("the offline tap recorded nothing yet", (await get(`/v1/matches/${id}`)).seq === seqBefore);
  await nxt.ctx.setOffline(false);
  await nxt.p.waitForFunction(() => !document.querySelector("#queued"), null, { timeout: 20000 });
  await waitSeq(seqBefore + 1);
  const played = (await get(`/v1/matches/${id}/events?after=${seqBefore}`)).events[0];
  check("back online, the queued card is played", played && played.seat === next && played.action.card === card, JSON.stringify(played));

  // ---- 2. undo asks first, and every phone says what it took back ----
  await hostPh.p.click("#undo");
  await hostPh.p.waitForSelector("#undo-confirm");
  await shot(hostPh.p, "tt-02-undo-question");
  const ask = await hostPh.p.evaluate(() => ({
    text: document.querySelector("#undo-confirm p").textContent,
    sizes: [...document.querySelectorAll("#undo-confirm button")].map((b) => [b.textContent, b.getBoundingClientRect().height, b.getBoundingClientRect().width]),
  }));
  check("Undo asks the host, naming the action", ask.text === `Take back ${names[next]}'s ${cardText(card)}?`, ask.text);
  check("\"Yes, take it back\" and \"No, keep it\", each at least 44 px", ask.sizes.length === 2 && ask.sizes[0][0] === "Yes, take it back" && ask.sizes[1][0] === "No, keep it"
    && ask.sizes.every(([, hh, w]) => hh >= 44 && w >= 44), JSON.stringify(ask.sizes));
  await hostPh.p.click("#undo-keep");
  await hostPh.p.waitForFunction(() => !document.querySelector("#undo-confirm"));
  check("Keep undoes nothing", (await get(`/v1/matches/${id}`)).seq === seqBefore + 1);
  await hostPh.p.click("#undo");
  await hostPh.p.click("#undo-yes");
  await waitSeq(seqBefore + 2);
  const said = `Host took back ${names[next]}'s ${cardText(card)}`;
  for (const [k, p] of phones.entries()) {
    await p.waitForSelector("#undone", { timeout: 10000 }).catch(() => null);
    const t = await p.$eval("#undone", (e) => e.textContent).catch(() => "(none)");
    check(`phone ${k} says what the undo took back`, t === said, t);
  }
  await shot(nxt.p, "tt-03-undone");
  const back = await nxt.p.$$eval("#hand [data-card]", (els) => els.map((e) => e.dataset.card));
  check("the card is back in its hand", back.includes(card));
  const buzz = await nxt.p.evaluate(() => [document.title, window.__buzz.length]);
  check("its turn again: announced again", buzz[0].startsWith("●") && buzz[1] === 2, JSON.stringify(buzz));

  // ---- 3. the deal ends: Undo is not offered, and the server agrees ----
  check("Undo is offered mid-deal", !!(await hostPh.p.$("#undo")) && !(await hostPh.p.$("#undo-closed")));
  for (;;) {
    const v = await get(`/v1/matches/${id}`);
    if (v.table_to_act || v.status === "finished" || !v.to_act.length) { m = v; break; }
    m = await apiPlay(v.to_act[0]);
  }
  await waitSeq(m.seq);
  await hostPh.p.waitForSelector("#undo-closed", { timeout: 10000 }).catch(() => null);
  const closed = await hostPh.p.evaluate(() => [!!document.querySelector("#undo"), (document.querySelector("#undo-closed") || {}).textContent]);
  await shot(hostPh.p, "tt-04-undo-closed");
  const refused = await api("POST", `/v1/matches/${id}/undo`, host);
  check("the server refuses undo once the deal is over (round_closed)", refused.code === "round_closed", JSON.stringify(refused));
  check("the host's page does not offer Undo then, and says why", !closed[0] && /seed is published/.test(closed[1] || ""), JSON.stringify(closed));
  if (m.table_to_act) {
    await api("POST", `/v1/matches/${id}/actions`, host, { seat: null, action: { type: "deal" } });
    m = await get(`/v1/matches/${id}`);
    await waitSeq(m.seq);
    await hostPh.p.waitForSelector("#undo", { timeout: 10000 }).catch(() => null);
    check("the next deal offers Undo again (its deal may be taken back)", !!(await hostPh.p.$("#undo")) && !(await hostPh.p.$("#undo-closed")));
  }
});
