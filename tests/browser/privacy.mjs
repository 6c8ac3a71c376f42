// Browser test of what the page keeps on a phone and the policy it runs under (issue 20, part 6;
// scripts/ci-browser.sh runs it):
// 1. the headers of `/` and of an API answer, exactly;
// 2. a host creates a two-player Dump match on the page: its local storage holds the host token
//    and no seat token (the seat links live in this tab's session storage only, until the host
//    says everyone has joined); two seat phones join by their links and play a few taps, one of
//    them offline: each phone's storage holds its own seat token only, its queue no token;
// 3. "Forget this match" on a seat phone and on the host phone removes every key of the match
//    and every token from the device, and leaves the token's address;
// 4. what an older page stored (every token of every match) is cut down to the host token;
// 5. an organiser's "Forget this tournament";
// 6. /docs (Swagger UI) works under its own policy.
// No page reports a CSP violation (lib.mjs watches every context). Screenshots of the seat's page
// at 390x844, 360x640 and in landscape.
//
// Env: as lib.mjs (BASE, PW_DIR, CHROMIUM, ARTIFACTS).

import { join } from "node:path";
import { ARTIFACTS, BASE, api, check, phone, run } from "./lib.mjs";

const PAGE_CSP = "default-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
const API_CSP = "default-src 'none'; frame-ancestors 'none'";
const shot = (page, name, fullPage = false) => page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage });
const errors = [];

// Everything the page's origin keeps on this phone: [storage, key, value] for both storages.
const stored = (page) => page.evaluate(() => [["local", localStorage], ["session", sessionStorage]]
  .flatMap(([name, s]) => Object.keys(s).map((k) => [name, k, s.getItem(k)])));
const holds = (entries, secret) => entries.filter(([, k, v]) => k.includes(secret) || v.includes(secret));
const where = (entries) => entries.map(([s, k]) => `${s}:${k}`).join(" ");

async function newPhone(browser, label, viewport) {
  const ctx = await browser.newContext(viewport ? { ...phone, viewport } : phone);
  const p = await ctx.newPage();
  p.on("pageerror", (e) => errors.push(`${label}: ${e.message}`));
  return p;
}

// Taps "Forget…" and confirms; waits for the page to leave the match's address.
async function forget(page, button, away) {
  await page.click(button);
  await page.waitForSelector(`${button}-yes`);
  const box = await page.locator(`${button}-yes`).boundingBox();
  check(`${button}: the confirmation's button is a thumb's size`, box && box.height >= 44, JSON.stringify(box));
  await Promise.all([page.waitForURL(away), page.click(`${button}-yes`)]);
}

await run("privacy", async (browser) => {
  // ---- 1. headers ----
  for (const [path, csp] of [["/", PAGE_CSP], ["/v1/games", API_CSP]]) {
    const r = await fetch(BASE + path);
    const h = (n) => r.headers.get(n);
    check(`${path}: CSP, nosniff, no-referrer exactly`, h("content-security-policy") === csp
      && h("x-content-type-options") === "nosniff" && h("referrer-policy") === "no-referrer",
    JSON.stringify([h("content-security-policy"), h("x-content-type-options"), h("referrer-policy")]));
  }

  // ---- 2. a host creates a match on the page ----
  const host = await newPhone(browser, "host");
  const first = await host.goto(BASE + "/");
  check("the browser gets the page's policy", first.headers()["content-security-policy"] === PAGE_CSP);
  await host.selectOption("#game", "dump");
  await host.click('#create .choices button:text-is("2")');
  await host.fill('input[data-seat="0"]', "Ada");
  await host.fill('input[data-seat="1"]', "Ben");
  await host.click("text=Clubroom deals");
  await host.click("#create-btn");
  await host.waitForSelector("#links");
  const hostLink = await host.getAttribute("#open-host", "href");
  const seatLinks = [await host.getAttribute('a[data-join="0"]', "href"), await host.getAttribute('a[data-join="1"]', "href")];
  const tokenOf = (link) => new URL(link).hash.match(/t=([0-9a-f]+)/)[1];
  const id = new URL(hostLink).hash.match(/m=([0-9a-f]+)/)[1];
  const hostToken = tokenOf(hostLink), seatTokens = seatLinks.map(tokenOf);
  const local = (entries) => entries.filter(([s]) => s === "local");
  let kept = await stored(host);
  check("after creating, the host phone's local storage holds the host token",
    holds(local(kept), hostToken).length === 1, where(kept));
  check("and no seat token", seatTokens.every((t) => holds(local(kept), t).length === 0), where(kept));
  check("the seat links stay in this tab's session storage only",
    seatTokens.every((t) => holds(kept, t).every(([s]) => s === "session") && holds(kept, t).length === 1), where(kept));
  await shot(host, "p01-links", true);

  await host.click("#open-host");
  await host.waitForSelector('button[data-type="deal"]');
  await host.click('button[data-type="deal"]');
  await host.waitForFunction(() => document.body.dataset.seq === "1");

  // ---- two seat phones join by their links ----
  const seats = [];
  for (let s = 0; s < 2; s++) {
    const p = await newPhone(browser, `seat ${s}`);
    await p.goto(seatLinks[s]);
    await p.waitForSelector("#hand button.card");
    seats.push(p);
    kept = await stored(p);
    check(`seat ${s}'s phone keeps its own seat token`, holds(kept, seatTokens[s]).length === 1, where(kept));
    check(`seat ${s}'s phone keeps no other token`, [hostToken, seatTokens[1 - s]].every((t) => holds(kept, t).length === 0), where(kept));
  }
  const all = [host, ...seats];
  for (let n = 0; n < 4; n++) {
    const v = await api("GET", `/v1/matches/${id}`);
    const s = v.to_act[0];
    const p = seats[s];
    await p.waitForSelector("#hand button.card.legal:not([disabled])");
    if (n === 2) {
      // Offline: the tap waits in the phone's queue, which names the match and the seat, no token.
      await p.context().setOffline(true);
      await p.click("#hand button.card.legal:not([disabled])");
      await p.waitForSelector("#queued");
      kept = await stored(p);
      const queued = kept.filter(([, k]) => k.startsWith("clubroom.queue."));
      check("an offline tap is queued under the match and the seat, with no token in key or value",
        queued.length === 1 && queued[0][1] === `clubroom.queue.${id}.seat${s}` && holds(queued, seatTokens[s]).length === 0
          && JSON.parse(queued[0][2]).length === 1, where(kept));
      await p.context().setOffline(false);
      await p.waitForFunction(() => !document.querySelector("#queued"), null, { timeout: 20000 });
    } else {
      await p.click("#hand button.card.legal:not([disabled])");
    }
    await Promise.all(all.map((x) => x.waitForFunction((n) => Number(document.body.dataset.seq) >= n, v.seq + 1, { timeout: 20000 })));
  }
  check("four taps recorded", (await api("GET", `/v1/matches/${id}`)).seq === 5);

  // The Forget control sits below the score sheet: the hand stays where it was.
  const seat0 = seats[0];
  const order = await seat0.evaluate(() => {
    const f = document.querySelector("#forget"), s = document.querySelector("#scores"), hand = document.querySelector("#hand");
    return f && s && hand ? [hand.getBoundingClientRect().top, s.compareDocumentPosition(f) & Node.DOCUMENT_POSITION_FOLLOWING] : null;
  });
  check("seat page: the hand is on the first screen, Forget comes after the score sheet", order && order[0] < 844 && order[1] > 0, JSON.stringify(order));
  await shot(seat0, "p02-seat-390x844");
  await seat0.screenshot({ path: join(ARTIFACTS, "p03-seat-390x844-full.png"), fullPage: true });
  await seat0.setViewportSize({ width: 360, height: 640 });
  await shot(seat0, "p04-seat-360x640");
  await seat0.setViewportSize({ width: 844, height: 390 });
  await shot(seat0, "p05-seat-landscape");
  await seat0.setViewportSize(phone.viewport);

  // ---- 3. a seat phone forgets the match ----
  await seat0.click("#forget");
  await seat0.waitForSelector("#forget-yes");
  await seat0.locator("#forget-confirm").scrollIntoViewIfNeeded();
  await shot(seat0, "p06-seat-forget-confirm");
  await seat0.click("#forget-no");
  check("Keep closes the confirmation and forgets nothing", !(await seat0.$("#forget-yes"))
    && holds(await stored(seat0), seatTokens[0]).length === 1);
  await forget(seat0, "#forget", `${BASE}/`);
  kept = await stored(seat0);
  check("after Forget, the seat phone keeps nothing of the match", holds(kept, id).length === 0
    && [hostToken, ...seatTokens].every((t) => holds(kept, t).length === 0), where(kept));
  check("and leaves the address that held its token", !seat0.url().includes(seatTokens[0]), seat0.url());
  await seat0.waitForSelector("#create");
  check("its start page lists no match", !(await seat0.$(`[data-match="${id}"]`)));

  // The host phone lists its match on the start page, with Open and Forget.
  const start = await host.context().newPage();
  await start.goto(BASE + "/");
  await start.waitForSelector(`#kept [data-match="${id}"]`);
  check("the host's start page lists the match with its host link",
    (await start.getAttribute(`#kept [data-match="${id}"] a`, "href")) === hostLink);
  await shot(start, "p07-start-kept", true);
  await start.close();

  // The host shows the seat links again from its table, then says everyone has joined.
  await host.click("#show-links");
  await host.waitForSelector("#links .qr svg");
  check("the host table shows the seat links again", (await host.$$("#links .qr svg")).length === 2);
  await host.click("#forget-links");
  await host.waitForSelector("#links-forgotten");
  kept = await stored(host);
  check("once everyone has joined, the host phone keeps no seat token", seatTokens.every((t) => holds(kept, t).length === 0)
    && holds(kept, hostToken).length === 1, where(kept));
  await host.click("#back");
  await host.waitForSelector("#forget");
  check("and its table offers the seat links no more", !(await host.$("#show-links")));
  await shot(host, "p08-host-table", true);
  await forget(host, "#forget", `${BASE}/`);
  kept = await stored(host);
  check("after Forget, the host phone keeps nothing of the match", holds(kept, id).length === 0
    && [hostToken, ...seatTokens].every((t) => holds(kept, t).length === 0), where(kept));
  await seats[1].context().close();

  // ---- 4. what an older page kept: every token of the match, a queue under the token ----
  const old = await newPhone(browser, "old");
  await old.goto(BASE + "/");
  await old.waitForSelector("#create");
  const fakeOrganiser = "d".repeat(64);
  await old.evaluate(({ id, hostToken, seatTokens, fakeOrganiser }) => {
    localStorage.setItem("clubroom.mine", JSON.stringify([{ id, game: "dump", host: hostToken, seats: seatTokens, players: ["Ada", "Ben"], at: "2026-01-01T00:00:00Z" }]));
    localStorage.setItem("clubroom.tournaments", JSON.stringify([{ id: "f".repeat(32), name: "Old night", token: fakeOrganiser, at: "2026-01-01T00:00:00Z" }]));
    // An action for seat 1 queued by the host page before the upgrade, refused when sent whatever
    // the deal (a deal is the table's action, not a seat's, and one is in progress). A card play
    // here would be accepted whenever seat 1 happened to be on turn holding it.
    localStorage.setItem(`clubroom.queue.${id}.${hostToken.slice(0, 16)}`, JSON.stringify([{ key: "queued-before-the-upgrade", seat: 1, action: { type: "deal" }, at: 0 }]));
  }, { id, hostToken, seatTokens, fakeOrganiser });
  await old.reload();
  await old.waitForSelector(`#kept [data-match="${id}"]`);
  kept = await stored(old);
  check("an older page's storage is cut down: the host and organiser tokens stay, the seat tokens go",
    holds(kept, hostToken).length === 1 && holds(kept, fakeOrganiser).length === 1 && seatTokens.every((t) => holds(kept, t).length === 0)
      && !kept.some(([, k]) => k === "clubroom.mine" || k === "clubroom.tournaments"), where(kept));
  const sent = [];
  old.on("request", (r) => { if (r.url().endsWith("/actions")) sent.push(r.headers()["idempotency-key"]); });
  await old.click(`#kept [data-match="${id}"] a`);
  await old.waitForSelector("#error");
  kept = await stored(old);
  check("its old queue is taken over by the host page and sent with its key; no key names the token any more",
    sent.includes("queued-before-the-upgrade") && kept.every(([, k]) => !k.includes(hostToken.slice(0, 16))), `${sent} ${where(kept)}`);
  await forget(old, "#forget", `${BASE}/`);
  // The start page's list forgets a tournament in place.
  const oldT = "f".repeat(32);
  await old.waitForSelector(`[data-tournament="${oldT}"]`);
  await old.click(`#forget-${oldT}`);
  await old.click(`#forget-${oldT}-yes`);
  kept = await stored(old);
  check("the start page's Forget removes a tournament from the list and the phone",
    !(await old.$(`[data-tournament="${oldT}"]`)) && holds(kept, fakeOrganiser).length === 0 && kept.length === 0, where(kept));
  await old.context().close();

  // ---- 5. an organiser forgets a tournament ----
  const org = await newPhone(browser, "organiser");
  await org.goto(BASE + "/");
  await org.click("#new-tournament summary");
  await org.fill("#t-name", "Forgetful night");
  await org.selectOption("#t-game", "dump");
  await org.selectOption("#t-format", "round_robin");
  await org.fill("#t-size", "2");
  await org.selectOption("#t-record", "totals");
  await org.fill("#t-players", "Ada\nBen\n");
  await org.click("#t-create");
  await org.waitForSelector("#pair");
  const [, tid, otoken] = new URL(org.url()).hash.match(/tournament=([0-9a-f]+)&o=([0-9a-f]+)/);
  kept = await stored(org);
  check("the organiser's phone keeps the organiser token", holds(kept, otoken).length === 1, where(kept));
  await shot(org, "p09-organiser", true);
  await forget(org, "#forget-tournament", `${BASE}/#tournament=${tid}`);
  // Only the address's hash changes, and the page reloads on that: the organiser's page (which
  // has standings too) may still be the one shown when the address has changed. Wait up to 10 s
  // for the public page; the check below fails if the organiser's controls are still there.
  await org.waitForFunction(() => document.querySelector("#standings") && !document.querySelector("#pair"),
    null, { timeout: 10000 }).catch(() => {});
  kept = await stored(org);
  check("after Forget, nothing of the tournament is kept and the page is the public one",
    holds(kept, tid).length === 0 && holds(kept, otoken).length === 0 && !(await org.$("#pair")), where(kept));
  await org.context().close();

  // ---- 6. the docs under their own policy ----
  const docs = await newPhone(browser, "docs");
  const r = await docs.goto(BASE + "/docs/");
  check("/docs has a policy of its own", /^default-src 'self'; img-src 'self' data:/.test(r.headers()["content-security-policy"] || ""));
  await docs.waitForSelector(".opblock", { timeout: 20000 });
  check("Swagger UI draws the operations", (await docs.$$(".opblock")).length > 10);
  // "Try it out" on GET /v1/games: the call goes out (connect-src 'self') and its answer shows.
  const games = docs.locator(".opblock-get").filter({ hasText: "/v1/games" }).first();
  await games.locator(".opblock-summary").click();
  await games.locator(".try-out__btn").click();
  await games.locator("button.execute").click();
  await games.locator(".live-responses-table tbody .response-col_status").first().waitFor();
  const status = (await games.locator(".live-responses-table tbody .response-col_status").first().textContent()).trim();
  check("Swagger UI's Try it out calls the API", status === "200", status);
  await shot(docs, "p10-docs");
  await docs.context().close();

  check("no script error", errors.length === 0, errors.join("; "));
});
