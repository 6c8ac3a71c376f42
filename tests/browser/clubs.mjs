// Browser test of the table page (scripts/ci-browser.sh runs it): headless Chromium driven by
// playwright-core. Four phones (390x844) join a service-dealt Clubs match by their links and play
// a whole deal live by tapping cards; each sees only its own hand; one phone goes offline, queues
// its play and catches up; one play's answer is lost on the way back and the page's retry (same
// Idempotency-Key) is replayed, not doubled; the host page shows the score sheet (-26 a deal).
//
// Env: as lib.mjs (BASE, PW_DIR, CHROMIUM, ARTIFACTS).

import { join } from "node:path";
import { ARTIFACTS, BASE, api as call, check, phone, run } from "./lib.mjs";

const api = (path, token) => call("GET", path, token);
const shot = (page, name) => page.screenshot({ path: join(ARTIFACTS, `${name}.png`) });

await run("clubs", async (browser) => {
  // ---- the host creates the match on the page ----
  const hostCtx = await browser.newContext(phone);
  const host = await hostCtx.newPage();
  host.on("pageerror", (e) => check("host page has no script error", false, e.message));
  await host.goto(BASE + "/");
  await host.selectOption("#game", "clubs");
  const names = ["Ada", "Ben", "Cy", "Di"];
  for (let s = 0; s < 4; s++) await host.fill(`input[data-seat="${s}"]`, names[s]);
  await host.click("text=Clubroom deals");
  await shot(host, "01-create");
  await host.click("#create-btn");
  await host.waitForSelector("#links");
  const seatLinks = [];
  for (let s = 0; s < 4; s++) seatLinks.push(await host.getAttribute(`a[data-join="${s}"]`, "href"));
  const hostLink = await host.getAttribute("#open-host", "href");
  // The QR encoder is loaded when the first code is drawn.
  await host.waitForFunction(() => document.querySelectorAll("#links .qr svg").length === 4, null, { timeout: 10000 }).catch(() => {});
  check("a QR code per seat", (await host.$$("#links .qr svg")).length === 4);
  await shot(host, "02-links");
  const id = new URL(hostLink).hash.match(/m=([0-9a-f]+)/)[1];
  const seatTokens = seatLinks.map((l) => new URL(l).hash.match(/t=([0-9a-f]+)/)[1]);

  await host.goto(hostLink);
  await host.waitForSelector('button[data-type="deal"]');
  await host.click('button[data-type="deal"]');
  await host.waitForFunction(() => document.body.dataset.seq === "1");

  // ---- four phones join by their links ----
  const ctxs = [], pages = [];
  for (let s = 0; s < 4; s++) {
    const ctx = await browser.newContext(phone);
    const p = await ctx.newPage();
    p.on("pageerror", (e) => check(`seat ${s} page has no script error`, false, e.message));
    await p.goto(seatLinks[s]);
    await p.waitForSelector("#hand button.card");
    ctxs.push(ctx); pages.push(p);
  }
  const hands = [];
  for (let s = 0; s < 4; s++) {
    hands.push(await pages[s].$$eval("#hand [data-card]", (els) => els.map((e) => e.dataset.card)));
    const view = await api(`/v1/matches/${id}`, seatTokens[s]);
    check(`seat ${s} shows its own 13 cards`, hands[s].length === 13 && [...view.you.hand].sort().join() === [...hands[s]].sort().join());
  }
  for (let s = 0; s < 4; s++) {
    const inDom = await pages[s].$$eval("[data-card]", (els) => els.map((e) => e.dataset.card));
    const html = await pages[s].content();
    const others = hands.filter((_, o) => o !== s).flat();
    const leaked = others.filter((c) => inDom.includes(c) || html.includes(`"${c}"`));
    check(`seat ${s}'s page holds no other hand`, leaked.length === 0, leaked.join(","));
    await shot(pages[s], `03-seat${s}-hand`);
  }

  // A second phone for the leader's seat that hears nothing live (its stream is cut): it stays
  // at the start of the deal, and is used at the end to tap a card that is no longer legal.
  const leader = (await api(`/v1/matches/${id}`)).to_act[0];
  const staleCtx = await browser.newContext(phone);
  const stale = await staleCtx.newPage();
  await stale.route("**/stream**", (route) => route.abort());
  await stale.goto(seatLinks[leader]);
  await stale.waitForSelector("#hand button.card.legal:not([disabled])");

  // ---- a whole deal, tap by tap ----
  const all = [host, ...pages];
  const waitSeq = (n) => Promise.all(all.map((p) => p.waitForFunction((n) => Number(document.body.dataset.seq) >= n, n, { timeout: 20000 })));
  let seq = 1, offlineDone = false, lostDone = false, undoDone = false;
  for (;;) {
    const v = await api(`/v1/matches/${id}`);
    if (v.table_to_act || v.status === "finished" || !v.to_act.length) break;
    const s = v.to_act[0];
    const p = pages[s];
    await p.waitForSelector("#hand button.card.legal:not([disabled])");
    if (seq === 10 && !offlineDone) {
      // This phone loses the connection, taps anyway: the play waits in its queue.
      await ctxs[s].setOffline(true);
      await p.click("#hand button.card.legal:not([disabled])");
      if (await p.$("#declare")) await p.click("#declare button[data-declare]");
      await p.waitForSelector("#queued");
      await shot(p, `04-seat${s}-offline-queued`);
      const still = await api(`/v1/matches/${id}`);
      check("a play tapped offline is queued, not recorded", still.seq === seq);
      await ctxs[s].setOffline(false);
      offlineDone = true;
    } else if (seq === 20 && !lostDone) {
      // The play reaches the server but its answer is lost: the page keeps it queued and sends
      // it again with the same Idempotency-Key; the server replays its first answer.
      const keys = [];
      let replayed = null;
      await p.route("**/actions", async (route) => {
        keys.push(route.request().headers()["idempotency-key"]);
        const resp = await route.fetch();
        if (keys.length === 1) await route.abort("connectionreset");
        else { replayed = resp.headers()["idempotent-replayed"]; await route.fulfill({ response: resp }); }
      });
      await p.click("#hand button.card.legal:not([disabled])");
      if (await p.$("#declare")) await p.click("#declare button[data-declare]");
      await p.waitForFunction(() => !document.querySelector("#queued"), null, { timeout: 20000 });
      await p.unroute("**/actions");
      check("a play whose answer was lost is sent again with the same Idempotency-Key and replayed",
        keys.length === 2 && keys[0] && keys[0] === keys[1] && replayed === "true", `${keys} replayed=${replayed}`);
      lostDone = true;
    } else {
      await p.click("#hand button.card.legal:not([disabled])");
      if (await p.$("#declare")) await p.click("#declare button[data-declare]");
    }
    seq++;
    await waitSeq(seq);
    if (seq === 30 && !undoDone) {
      // The host undoes that play: every page follows, the card goes back to its hand, and the
      // loop carries on (the same seat is to play again).
      const played = (await api(`/v1/matches/${id}/events?after=${seq - 1}`)).events[0];
      await host.click("#undo");
      await host.click("#undo-yes");
      seq++;
      await waitSeq(seq);
      const back = await pages[played.seat].$$eval("#hand [data-card]", (els) => els.map((e) => e.dataset.card));
      const v2 = await api(`/v1/matches/${id}`);
      check("undo puts the last play back in its player's hand, on every page live",
        back.includes(played.action.card) && v2.to_act[0] === played.seat, `${played.action.card} in ${back}`);
      undoDone = true;
    }
    if (seq === 27) for (let k = 0; k < 4; k++) await shot(pages[k], `05-seat${k}-mid-deal`);
  }
  check("the deal ended after 52 plays (and one undone)", seq === 55, `seq ${seq}`);

  // ---- the log: every card once, nothing doubled ----
  const ev = await api(`/v1/matches/${id}/events?after=0&limit=1000`);
  const plays = ev.events.filter((e) => e.action && e.action.type === "play" && !e.retracted_by).map((e) => e.action.card);
  check("52 standing plays in the log, no card twice", plays.length === 52 && new Set(plays).size === 52, `${plays.length} plays`);
  check("no extra event: deal, 53 plays, one undo", ev.events.length === 55, `${ev.events.length} events`);

  // ---- the host sees the score sheet ----
  await host.waitForFunction(() => document.querySelectorAll("#scores tr.round").length >= 1);
  const row = await host.$$eval("#scores tr.round", (rows) => [...rows[0].querySelectorAll("td")].slice(2).map((td) => Number(td.textContent)));
  const sum = row.reduce((a, b) => a + b, 0);
  check("the host's score sheet shows the deal, summing to -26", row.length === 4 && sum === -26, `row ${row}`);
  const headers = await host.$$eval("#scores th", (ths) => ths.map((t) => t.textContent));
  check("the score sheet names the players", names.every((n) => headers.includes(n)), headers.join(","));
  check("a CSV link", (await host.getAttribute("#csv", "href")) === `/v1/matches/${id}/scores.csv`);
  await shot(host, "06-host-score-sheet");

  // ---- the deal is over and its seed published: undo is not offered, and says why ----
  await host.waitForSelector("#undo-closed");
  const why = await host.textContent("#undo-closed");
  check("undo after the deal's end is not offered, in words", !(await host.$("#undo")) && why.length > 10, why);
  await shot(host, "07-host-undo-refused");

  // ---- a refusal is shown in words, and records nothing ----
  const settled = await api(`/v1/matches/${id}`);
  await stale.click("#hand button.card.legal:not([disabled])");
  if (await stale.$("#declare")) await stale.click("#declare button[data-declare]");
  await stale.waitForSelector("#error");
  const said = await stale.textContent("#error");
  const nowV = await api(`/v1/matches/${id}`);
  check("a stale phone's tap is refused with the server's explanation", said.length > 10 && !said.includes("the server answered"), said);
  check("the refused tap recorded nothing", nowV.seq === settled.seq, `${settled.seq} -> ${nowV.seq}`);
  await shot(stale, "08-refusal");
  await staleCtx.close();
  for (let k = 0; k < 4; k++) {
    const t = await pages[k].$$eval("#scores tr.round", (r) => r.length);
    check(`seat ${k} sees the score sheet live`, t === 1);
  }
});
