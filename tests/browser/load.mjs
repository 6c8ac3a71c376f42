// Browser test of the page as an app on a slow link (issue 22, part 5; scripts/ci-browser.sh runs
// it): with Chrome DevTools Protocol network emulation (300 ms latency, 750 kbit/s down and up),
// a first load then a repeat load of a table page (`/#m=…&t=…`) and of the create page, three
// runs each, each run in a fresh browser context (no cache, no worker). Asserts that every repeat
// load transfers under 5 KB (the sum of the encoded bytes of every answer the page receives:
// CDP's `Network.loadingFinished` encodedDataLength, and for the match stream, which stays open,
// the bytes received so far; plus whatever the service worker fetches meanwhile, as Playwright
// sizes it) and paints its first content in under 500 ms (the page's `first-contentful-paint`
// entry; the median of the runs, as a shared machine's busy core can slow one); prints the
// figures. A first load is counted until the worker controls the page (its cache filled).
// Also: the manifest is served, valid JSON, its icons load; the service worker registers and
// controls the page on localhost; after a first visit the page loads offline from the worker
// (context.setOffline) and says it is offline, and starts once the connection is back.
//
// Env: as lib.mjs (BASE, PW_DIR, CHROMIUM, ARTIFACTS).

import { join } from "node:path";
import { ARTIFACTS, BASE, api, check, phone, run } from "./lib.mjs";

const LATENCY = 300; // ms
const RATE = (750 * 1000) / 8; // 750 kbit/s, in bytes per second
const REPEAT_BYTES = 5 * 1024;
const REPEAT_FCP = 500; // ms
const RUNS = 3;
const shot = (page, name) => page.screenshot({ path: join(ARTIFACTS, `${name}.png`) });

// Opens `url` in a new tab of `ctx` under the emulated link and waits until `ready` holds in the
// page and no answer but the match stream is still on its way. Returns the bytes received and the
// first contentful paint.
async function load(ctx, url, ready, label, { andThen = null } = {}) {
  const page = await ctx.newPage();
  page.on("pageerror", (e) => check(`${label}: no script error`, false, e.message));
  const cdp = await ctx.newCDPSession(page);
  await cdp.send("Network.enable");
  await cdp.send("Network.emulateNetworkConditions", {
    offline: false, latency: LATENCY, downloadThroughput: RATE, uploadThroughput: RATE,
  });
  const reqs = new Map(); // requestId -> { url, bytes, done, stream, fromWorker }
  const entry = (id) => { if (!reqs.has(id)) reqs.set(id, { url: "", head: 0, body: 0, done: null, stream: false, fromWorker: false }); return reqs.get(id); };
  cdp.on("Network.requestWillBeSent", (e) => { entry(e.requestId).url = e.request.url; });
  cdp.on("Network.responseReceived", (e) => {
    const r = entry(e.requestId);
    r.head = e.response.encodedDataLength || 0;
    r.stream = /event-stream/.test(e.response.mimeType);
    r.fromWorker = !!(e.response.fromServiceWorker || e.response.fromDiskCache);
  });
  cdp.on("Network.dataReceived", (e) => { entry(e.requestId).body += e.encodedDataLength; });
  cdp.on("Network.loadingFinished", (e) => { entry(e.requestId).done = e.encodedDataLength; });
  cdp.on("Network.loadingFailed", (e) => { entry(e.requestId).done = 0; });
  // What the worker itself fetches meanwhile (its update check of /sw.js, a miss in its cache)
  // is no request of the page's: Playwright reports it on the context.
  const fromWorker = [];
  const onWorker = (r) => { if (r.serviceWorker()) fromWorker.push(r.sizes().then((z) => [new URL(r.url()).pathname, z.responseHeadersSize + z.responseBodySize])); };
  ctx.on("requestfinished", onWorker);
  await page.goto(url);
  await page.waitForFunction(ready, null, { timeout: 30000 });
  if (andThen) await andThen(page);
  // Every answer but the stream finished (nothing else still coming).
  const t0 = Date.now();
  while ([...reqs.values()].some((r) => r.done === null && !r.stream) && Date.now() - t0 < 20000) {
    await new Promise((r) => setTimeout(r, 50));
  }
  const fcp = await page.evaluate(() => performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? null);
  ctx.off("requestfinished", onWorker);
  const worker = await Promise.all(fromWorker);
  const bytes = [...reqs.values()].reduce((n, r) => n + (r.done !== null ? r.done : r.head + r.body), 0)
    + worker.reduce((n, [, b]) => n + b, 0);
  const network = [...reqs.values()].filter((r) => !r.fromWorker)
    .map((r) => `${new URL(r.url).pathname} ${r.done !== null ? r.done : r.head + r.body} B`)
    .concat(worker.map(([p, b]) => `worker:${p} ${b} B`));
  await cdp.detach();
  return { page, bytes, fcp, network, requests: reqs.size };
}

// The worker of `page` is active and controls it.
const controlled = (page) => page.waitForFunction(() => navigator.serviceWorker && navigator.serviceWorker.controller !== null
  && navigator.serviceWorker.controller.state === "activated", null, { timeout: 30000 });

await run("load", async (browser) => {
  // ---- the manifest and its icons ----
  const index = await (await fetch(BASE + "/")).text();
  check("the index links the manifest", index.includes('<link rel="manifest" href="/manifest.webmanifest">'));
  const mr = await fetch(BASE + "/manifest.webmanifest");
  check("the manifest is served as application/manifest+json", mr.status === 200
    && mr.headers.get("content-type") === "application/manifest+json", `${mr.status} ${mr.headers.get("content-type")}`);
  let manifest = null;
  try { manifest = JSON.parse(await mr.text()); } catch (e) { check("the manifest is valid JSON", false, String(e)); }
  check("the manifest: name, start_url /, standalone, colours",
    manifest && manifest.name === "Clubroom" && manifest.short_name && manifest.start_url === "/" && manifest.display === "standalone"
    && manifest.theme_color === "#0b5d3b" && manifest.background_color === "#f4f2ec", JSON.stringify(manifest));
  const purposes = [];
  for (const icon of manifest?.icons || []) {
    const r = await fetch(new URL(icon.src, BASE));
    const body = Buffer.from(await r.arrayBuffer());
    let ok = r.status === 200 && r.headers.get("content-type") === icon.type;
    if (icon.type === "image/png") ok = ok && `${body.readUInt32BE(16)}x${body.readUInt32BE(20)}` === icon.sizes;
    check(`icon ${icon.src} (${icon.sizes}, ${icon.purpose}) loads`, ok, `${r.status} ${r.headers.get("content-type")}`);
    purposes.push(`${icon.sizes}/${icon.purpose}`);
  }
  check("icons 192 and 512, and a maskable one", ["192x192/any", "512x512/any", "512x512/maskable"].every((p) => purposes.includes(p)), purposes.join(" "));
  // The browser's own view of the manifest (what an install prompt reads), and the icons it loads
  // in the page.
  {
    const ctx = await browser.newContext(phone);
    const page = await ctx.newPage();
    await page.goto(BASE + "/");
    await page.waitForSelector("#create");
    const cdp = await ctx.newCDPSession(page);
    const m = await cdp.send("Page.getAppManifest");
    check("Chromium reads the manifest without errors", m.url.endsWith("/manifest.webmanifest") && m.errors.length === 0 && m.data.includes("Clubroom"),
      JSON.stringify(m.errors));
    const loaded = await page.evaluate(async (srcs) => Promise.all(srcs.map((src) => new Promise((ok) => {
      const img = new Image();
      img.onload = () => ok(img.naturalWidth > 0);
      img.onerror = () => ok(false);
      img.src = src;
    }))), (manifest?.icons || []).map((i) => i.src));
    check("the page loads every icon as an image", loaded.length > 0 && loaded.every(Boolean), JSON.stringify(loaded));
    await ctx.close();
  }

  // ---- a match for the table page ----
  const created = await api("POST", "/v1/matches", null, { game: "dump", players: [{ name: "Ada" }, { name: "Ben" }] });
  const tableUrl = `${BASE}/#m=${created.match.id}&t=${created.host_token}`;
  const tableReady = () => document.body.dataset.seq !== undefined && document.querySelector("#conn.live") !== null;
  const createReady = () => document.querySelector("#create") !== null;

  const figures = { table: [], create: [] };
  for (let runNo = 1; runNo <= RUNS; runNo++) {
    for (const [kind, url, ready] of [["table", tableUrl, tableReady], ["create", BASE + "/", createReady]]) {
      const ctx = await browser.newContext(phone);
      // A first load counts the worker's filling of its cache too.
      const first = await load(ctx, url, ready, `${kind} first load ${runNo}`, { andThen: controlled });
      if (runNo === 1) {
        const scope = await first.page.evaluate(async () => (await navigator.serviceWorker.getRegistration()).scope);
        check(`${kind}: the service worker registers with scope / and controls the page`, scope === BASE + "/", scope);
      }
      await first.page.close();
      const repeat = await load(ctx, url, ready, `${kind} repeat load ${runNo}`);
      figures[kind].push({ first, repeat });
      console.log(`     ${kind} run ${runNo}: first load ${first.bytes} B, FCP ${Math.round(first.fcp)} ms (${first.requests} requests); `
        + `repeat load ${repeat.bytes} B, FCP ${Math.round(repeat.fcp)} ms (network: ${repeat.network.join(", ") || "none"})`);
      check(`${kind} run ${runNo}: a repeat load transfers under 5 KB`, repeat.bytes < REPEAT_BYTES, `${repeat.bytes} B: ${repeat.network.join(" ")}`);
      check(`${kind} run ${runNo}: the repeat load's page and files come from the worker`,
        repeat.network.every((p) => p.startsWith("/v1/") || p.startsWith("worker:/sw.js ")), repeat.network.join(" "));
      if (runNo === 1) await shot(repeat.page, `load-${kind}-repeat`);
      await ctx.close();
    }
  }
  for (const kind of ["table", "create"]) {
    const f = figures[kind];
    const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    console.log(`     ${kind} page, ${RUNS} runs at ${LATENCY} ms / 750 kbit/s: first load ${f.map((x) => x.first.bytes).join(", ")} B `
      + `(FCP ${f.map((x) => Math.round(x.first.fcp)).join(", ")} ms); repeat load ${f.map((x) => x.repeat.bytes).join(", ")} B `
      + `(FCP ${f.map((x) => Math.round(x.repeat.fcp)).join(", ")} ms)`);
    // The paint is the CPU's as much as the link's: on a shared CI machine one run in three may
    // meet a busy core, so the median of the runs is held to the target (every run is printed).
    const fcps = f.map((x) => x.repeat.fcp ?? Infinity);
    check(`${kind}: a repeat load paints within 500 ms (median of ${RUNS} runs)`, median(fcps) < REPEAT_FCP, `${fcps.join(", ")} ms`);
  }

  // ---- the QR encoder: loaded where a code is drawn only, by its plain name if its hash is gone
  // (a page older than the server's files) ----
  {
    const ctx = await browser.newContext({ ...phone, serviceWorkers: "block" });
    const qrAsked = [];
    await ctx.route(/\/web\/vendor\/qrcode\.[0-9a-f]{10}\.js$/, (r) => { qrAsked.push(r.request().url()); r.fulfill({ status: 404, body: "" }); });
    const page = await ctx.newPage();
    const plain = [];
    page.on("request", (r) => { if (r.url().endsWith("/web/vendor/qrcode.js")) plain.push(r.url()); });
    await page.goto(BASE + "/");
    await page.waitForSelector("#create");
    check("the create page does not load the QR encoder", qrAsked.length === 0 && plain.length === 0);
    await page.selectOption("#game", "dump");
    await page.click('#create .choices button:text-is("2")');
    await page.click("#create-btn");
    await page.waitForFunction(() => document.querySelectorAll("#links .qr svg").length === 2, null, { timeout: 15000 });
    check("the links page draws its QR codes, the encoder by its plain name when its hash is gone",
      qrAsked.length === 1 && plain.length === 1, `${qrAsked.length} ${plain.length}`);
    await ctx.close();
  }

  // ---- offline, after a first visit ----
  const ctx = await browser.newContext(phone);
  const first = await ctx.newPage();
  await first.goto(tableUrl);
  await first.waitForFunction(tableReady);
  await controlled(first);
  await first.close();
  await ctx.setOffline(true);
  const off = await ctx.newPage();
  off.on("pageerror", (e) => check("offline page: no script error", false, e.message));
  const answer = await off.goto(tableUrl);
  check("offline, the page comes from the worker", answer && answer.status() === 200 && answer.fromServiceWorker(), String(answer && answer.status()));
  await off.waitForSelector("#offline-start");
  const felt = await off.evaluate(() => getComputedStyle(document.querySelector("#bar")).backgroundColor);
  check("offline, its style sheet and modules load too (the page says it is offline)", felt === "rgb(11, 93, 59)"
    && (await off.textContent("#conn")).includes("offline"), felt);
  await shot(off, "load-offline");
  await ctx.setOffline(false); // the page hears "online" and starts
  await off.waitForFunction(tableReady, null, { timeout: 30000 });
  check("back online, the table page starts", true);
  await ctx.close();
});
