// Browser test: the table behaves like a table (issue 22 part 4). At each of 390x844, 360x640 and
// 844x390:
// 1. a service-dealt Clubs deal played to its end (through the API): the host's and a seat's pages
//    keep the deal's last trick drawn (its four cards equal the log's last trick) and the deal
//    summary shows the tricks each seat took (equal to the log's tricks won), after the next deal
//    too, until its first card; a seat's page holds no card but its own hand and that trick, and
//    between deals shows no empty hand tray, and the summary's totals and the last trick's cards
//    on screen without scrolling (side by side at 844x390);
// 2. the undo question: a disclosure button (aria-expanded) and two plain buttons that say what
//    they do, each at least 44 px, and no axe violation;
// 3. 20-character names (Clubs 4 seats real cards, Members Only 5, P.M. 8): no sideways scroll,
//    the score sheet within the page, names ellipsised with the full name in `title`;
// 4. names kept on the phone: only those a person typed, never an empty seat's placeholder;
// 5. a card played between the page's first read of the log and its stream's start still reaches
//    the page (the deal's last trick is drawn from the log).
//
// Env: as lib.mjs (BASE, PW_DIR, CHROMIUM, ARTIFACTS, AXE_JS).

import { join } from "node:path";
import { ARTIFACTS, BASE, api, axeViolations, check, overflowsX, phone, run, smallTargets } from "./lib.mjs";

const SIZES = [[390, 844], [360, 640], [844, 390]];
const shot = (page, name) => page.screenshot({ path: join(ARTIFACTS, `${name}.png`) });
const LONG = ["Alexandria Fitzgera", "Bartholomew Kensing", "Cassiopeia Wellingt", "Demetrius Abernathy",
  "Evangeline Montgome", "Florentina Castella", "Gwendolyn Hargreave", "Hieronymus Blackwoo"].map((n) => `${n}x`); // 20 characters each
const RANKS = { T: "10" }, SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };

async function create(game, n, dealing) {
  const scoresOnly = dealing === "scores-only";
  const c = await api("POST", "/v1/matches", null, { game, dealing: scoresOnly ? "table" : dealing, players: LONG.slice(0, n).map((name) => ({ name })), ...(scoresOnly ? { config: { scores_only: true } } : {}) });
  return { id: c.match.id, host: c.host_token, seats: c.seat_tokens };
}

// The table deals (the first legal table action), then seats play their first legal card until
// `until(view)`.
async function deal(m) {
  const d = (await api("GET", `/v1/matches/${m.id}/legal`, m.host)).actions.find((a) => a.type === "deal");
  if (!d) return null; // score-only play: no deal action
  return api("POST", `/v1/matches/${m.id}/actions`, m.host, { seat: null, action: d });
}
async function playUntil(m, until) {
  for (let i = 0; i < 200; i++) {
    const v = await api("GET", `/v1/matches/${m.id}`, m.host);
    if (until(v)) return v;
    const seat = v.to_act[0];
    const a = (await api("GET", `/v1/matches/${m.id}/legal?seat=${seat}`, m.seats[seat])).actions[0];
    const r = await api("POST", `/v1/matches/${m.id}/actions`, m.seats[seat], { seat, action: a });
    if (!r.event) throw new Error(`play refused: ${JSON.stringify(r)}`);
  }
  throw new Error("the deal did not end");
}

// The log's last trick of round `round` (its plays and winner) and the tricks each seat won.
async function fromLog(m, round) {
  const events = (await api("GET", `/v1/matches/${m.id}/events?limit=1000`, m.host)).events
    .filter((e) => e.round === round && e.kind === "action" && !e.retracted_by);
  const taken = [0, 0, 0, 0];
  let plays = [], last = null, winner = null;
  for (const e of events) {
    if (e.action.type === "play") plays.push(e.action.card);
    for (const o of e.outcome) if (o.type === "trick") { taken[o.winner]++; last = plays; winner = o.winner; plays = []; }
  }
  return { last, winner, taken };
}

async function open(browser, [width, height], m, token) {
  const ctx = await browser.newContext({ ...phone, viewport: { width, height } });
  const p = await ctx.newPage();
  p.on("pageerror", (e) => check(`${width}x${height}: no script error`, false, e.message));
  await p.goto(`${BASE}/#m=${m.id}&t=${token}`);
  await p.waitForSelector("#table-scroll");
  return p;
}

const seqAt = (p, n) => p.waitForFunction((n) => Number(document.body.dataset.seq) >= n, n, { timeout: 20000 });

// Names in lines that ellipsise: every element with a `title` equal to a long name shows it
// whole or ellipsised (no wider than its box), and none sticks out of the viewport.
const namesFit = (p) => p.evaluate((long) => {
  const bad = [];
  for (const el of document.querySelectorAll(".nm, .player .name, th.name")) {
    const name = el.getAttribute("title") || el.closest("[title]")?.getAttribute("title");
    if (!long.includes(name)) continue;
    const r = el.getBoundingClientRect();
    if (!r.width) continue;
    if (r.right > document.documentElement.clientWidth + 0.5) bad.push(`${name} sticks out at ${Math.round(r.right)}`);
    if (getComputedStyle(el).textOverflow !== "ellipsis") bad.push(`${name} is not ellipsised (${el.className})`);
  }
  return bad;
}, LONG);

// Whether each element of each selector is wholly on the screen and not under the tray (an
// element of the tray itself is under nothing); their texts; how far the table is scrolled.
const onScreen = (p, selectors) => p.evaluate((selectors) => {
  const tray = document.querySelector("#tray");
  const t = tray ? tray.getBoundingClientRect() : null;
  const seen = (el) => {
    const r = el.getBoundingClientRect();
    if (r.top < 0 || r.left < 0 || r.bottom > innerHeight + 0.5 || r.right > innerWidth + 0.5) return false;
    if (t && !tray.contains(el) && r.right > t.left && r.left < t.right && r.bottom > t.top && r.top < t.bottom) return false;
    // Inside a part that scrolls (the tray's last trick when the tray is full), wholly within it.
    const box = el.closest(".tray-table");
    if (box) { const b = box.getBoundingClientRect(); if (r.top < b.top - 0.5 || r.bottom > b.bottom + 0.5) return false; }
    return true;
  };
  const all = selectors.map((s) => [...document.querySelectorAll(s)]);
  return {
    seen: all.map((els) => els.map(seen)),
    texts: all.map((els) => els.map((e) => e.textContent.trim()).join("|")),
    scrolled: document.querySelector("#table-scroll").scrollTop,
  };
}, selectors);

await run("tablefeel", async (browser) => {
  for (const size of SIZES) {
    const tag = `${size[0]}x${size[1]}`;
    // ---- 1. the last trick and the tricks taken, until the next deal's first card ----
    const m = await create("clubs", 4, "service");
    await deal(m);
    const host = await open(browser, size, m, m.host);
    const seat = await open(browser, size, m, m.seats[1]);
    const v1 = await playUntil(m, (v) => v.scores.rounds.length === 1);
    await Promise.all([seqAt(host, v1.seq), seqAt(seat, v1.seq)]);
    const log = await fromLog(m, 1);
    const text = (p, sel) => p.$eval(sel, (e) => e.textContent).catch(() => null);
    for (const [who, p] of [["host", host], ["seat 2", seat]]) {
      await p.waitForSelector("#ended-trick", { timeout: 10000 }).catch(() => {});
      const drawn = await p.$$eval("#trick [data-card]", (els) => els.map((e) => e.dataset.card));
      check(`${tag} ${who}: the deal's last trick stays drawn, the log's four cards in order`, log.last.length === 4 && drawn.join() === log.last.join(), `${drawn} vs ${log.last}`);
      check(`${tag} ${who}: it says who took it`, (await text(p, "#ended-trick")) === `Last trick of Deal 1, taken by ${LONG[log.winner]}`, await text(p, "#ended-trick"));
      const tricks = await p.$$eval("#deal-summary tr.tricks td[data-col]", (els) => els.map((e) => Number(e.textContent)));
      check(`${tag} ${who}: the summary's tricks per seat equal the log's (${log.taken})`, tricks.join() === log.taken.join() && tricks.reduce((a, b) => a + b, 0) === 13, tricks.join());
      const pts = await p.$$eval("#deal-summary tr.round td[data-col]", (els) => els.map((e) => Number(e.textContent)));
      check(`${tag} ${who}: beside the deal's points`, pts.join() === v1.scores.rounds[0].points.join(), pts.join());
    }
    // Between deals a seat holds no card: no empty hand takes the foot (or, in landscape, half)
    // of its screen, and the table has the width of the screen.
    const between = await seat.evaluate(() => {
      const scroll = document.querySelector("#table-scroll").getBoundingClientRect();
      return { hand: !!document.querySelector("#hand"), tray: !!document.querySelector("#tray"), width: Math.round(scroll.width), screen: innerWidth };
    });
    check(`${tag} seat 2: between deals no empty hand tray, the table the screen's width`,
      !between.hand && !between.tray && between.width === between.screen, JSON.stringify(between));
    // The seat sees the deal's end without scrolling: the summary's totals and the last trick's
    // four cards are on the screen as the page opens on them (in landscape, side by side).
    const inSight = await seat.evaluate(() => {
      const below = (el) => (el ? Math.round(el.getBoundingClientRect().bottom - innerHeight) : null);
      const cards = [...document.querySelectorAll("#trick [data-card]")].map(below);
      return { total: below(document.querySelector("#deal-summary tr.total")), cards, scrolled: document.querySelector("#table-scroll").scrollTop };
    });
    check(`${tag} seat 2: between deals the summary's totals and the last trick's cards are on screen`,
      inSight.scrolled === 0 && inSight.total !== null && inSight.total <= 0 && inSight.cards.length === 4 && inSight.cards.every((b) => b <= 0), JSON.stringify(inSight));
    // The host sees them too, with its Deal button: in landscape the last trick stands at the
    // top of the tray beside the table, which the Deal button leaves empty (stacked under the
    // summary it sat below the fold); where the ended deal does not fit above the tray (360x640)
    // the page scrolls it into sight as it opens (the tray covered the last trick).
    const hostSees = await onScreen(host, ["#deal-summary tr.total", "#trick [data-card]", "#tray .actions button"]);
    check(`${tag} host: between deals the totals, the last trick's cards and the Deal button are on screen`,
      hostSees.seen[0].join() === "true" && hostSees.seen[1].length === 4 && hostSees.seen[1].every(Boolean)
        && hostSees.texts[2].includes("Deal") && hostSees.seen[2].every(Boolean), JSON.stringify(hostSees));
    await shot(host, `tf-${tag}-1-deal-over-host`);
    // Turned sideways and back, the page follows: the last trick moves to the tray and back.
    if (tag === "390x844") {
      const where = () => host.evaluate(() => document.querySelector("#trick")?.closest("#tray, #table-scroll")?.id);
      const before = await where();
      await host.setViewportSize({ width: 844, height: 390 });
      await host.waitForSelector("#tray .tray-table #trick", { timeout: 5000 }).catch(() => {});
      const sideways = await where();
      await host.setViewportSize({ width: 390, height: 844 });
      await host.waitForSelector("#table-scroll #trick", { timeout: 5000 }).catch(() => {});
      const back = await where();
      check(`${tag} host: turned sideways the last trick goes to the tray, and back`, [before, sideways, back].join() === "table-scroll,tray,table-scroll", [before, sideways, back].join());
    }
    await shot(seat, `tf-${tag}-1-deal-over-seat`);

    // The next deal: still drawn, until its first card.
    const d2 = await deal(m);
    await Promise.all([seqAt(host, d2.match.seq), seqAt(seat, d2.match.seq)]);
    const after = await playUntil(m, () => true);
    check(`${tag}: the next deal is dealt`, after.round === 2 && after.table.trick.length === 0);
    for (const [who, p] of [["host", host], ["seat 2", seat]]) {
      const drawn = await p.$$eval("#trick [data-card]", (els) => els.map((e) => e.dataset.card));
      check(`${tag} ${who}: after the next deal, the last trick is still drawn`, drawn.join() === log.last.join(), drawn.join());
      check(`${tag} ${who}: and the summary still there`, !!(await p.$("#deal-summary tr.tricks")));
    }
    // What the seat's page holds: its own hand and the public last trick, nothing else.
    const mine = (await api("GET", `/v1/matches/${m.id}`, m.seats[1])).you.hand;
    const inDom = await seat.$$eval("[data-card]", (els) => els.map((e) => e.dataset.card));
    const foreign = inDom.filter((c) => !mine.includes(c) && !log.last.includes(c));
    check(`${tag} seat 2: the page holds no card but its hand and the last trick`, foreign.length === 0, foreign.join());
    // Dealt again, the seat's hand fills the tray: in landscape the last trick stays in sight
    // above it, the hand whole below.
    if (size[0] > size[1]) {
      const seatSees = await onScreen(seat, ["#deal-summary tr.total", "#trick [data-card]", "#hand [data-card]"]);
      check(`${tag} seat 2: after the next deal the totals, the last trick's cards and the whole hand are on screen`,
        seatSees.scrolled === 0 && seatSees.seen[0].join() === "true" && seatSees.seen[1].length === 4 && seatSees.seen[1].every(Boolean)
          && seatSees.seen[2].length === 13 && seatSees.seen[2].every(Boolean), JSON.stringify(seatSees));
    }
    await shot(seat, `tf-${tag}-2-next-deal-seat`);
    const v2 = await playUntil(m, (v) => v.table.trick.length === 1);
    await Promise.all([seqAt(host, v2.seq), seqAt(seat, v2.seq)]);
    for (const [who, p] of [["host", host], ["seat 2", seat]]) {
      const drawn = await p.$$eval("#trick [data-card]", (els) => els.map((e) => e.dataset.card));
      check(`${tag} ${who}: the next deal's first card replaces the last trick and the summary`,
        drawn.join() === v2.table.trick[0].card && !(await p.$("#ended-trick")) && !(await p.$("#deal-summary")), drawn.join());
    }

    // ---- 2. the undo question ----
    // In landscape the host's tray holds only Undo here: it takes a third of the width, the
    // table the rest (half each before).
    if (size[0] > size[1]) {
      const widths = await host.evaluate(() => ({ table: Math.round(document.querySelector("#table-scroll").getBoundingClientRect().width), tray: Math.round(document.querySelector("#tray").getBoundingClientRect().width), screen: innerWidth }));
      check(`${tag} host: a tray holding only Undo leaves the table two thirds of the width`, widths.table >= 0.64 * widths.screen && widths.tray <= 0.36 * widths.screen, JSON.stringify(widths));
    }
    await host.click("#undo");
    await host.waitForSelector("#undo-confirm");
    const q = await host.evaluate(() => ({
      expanded: document.querySelector("#undo").getAttribute("aria-expanded"),
      controls: document.querySelector("#undo").getAttribute("aria-controls"),
      text: document.querySelector("#undo-q").textContent,
      buttons: [...document.querySelectorAll("#undo-confirm button")].map((b) => [b.textContent, b.type, b.hasAttribute("aria-pressed"), b.getBoundingClientRect().width >= 44 && b.getBoundingClientRect().height >= 44]),
    }));
    const card = v2.table.trick[0].card;
    check(`${tag}: Undo is a disclosure of its question`, q.expanded === "true" && q.controls === "undo-confirm", JSON.stringify(q));
    check(`${tag}: the question names the play`, q.text === `Take back ${LONG[v2.table.trick[0].seat]}'s ${RANKS[card[0]] || card[0]}${SUITS[card[1]]}?`, q.text);
    check(`${tag}: two plain buttons that say what they do, 44 px or more`, JSON.stringify(q.buttons) === JSON.stringify([["Yes, take it back", "button", false, true], ["No, keep it", "button", false, true]]), JSON.stringify(q.buttons));
    const axe = await axeViolations(host);
    check(`${tag}: axe finds nothing with the question open`, axe.length === 0, axe.join("; "));
    const small = await smallTargets(host);
    check(`${tag}: no tap target under 44 px with the question open`, small.length === 0, small.join("; "));
    await shot(host, `tf-${tag}-3-undo-question`);
    await host.click("#undo-keep");
    await host.waitForFunction(() => !document.querySelector("#undo-confirm") && document.querySelector("#undo").getAttribute("aria-expanded") === "false");
    check(`${tag}: "No, keep it" keeps the play`, (await api("GET", `/v1/matches/${m.id}`, m.host)).seq === v2.seq);
    await host.context().close();
    await seat.context().close();
  }

  // ---- 3. long names: nothing sticks out, the sheet fits ----
  for (const size of SIZES) {
    const tag = `${size[0]}x${size[1]}`;
    for (const [game, n, dealing] of [["clubs", 4, "table"], ["members-only", 5, "service"], ["plus-minus", 8, "service"], ["plus-minus", 5, "table"], ["plus-minus", 8, "scores-only"]]) {
      const m = await create(game, n, dealing);
      await deal(m);
      for (const [who, token] of [["host", m.host], ["seat 1", m.seats[0]]]) {
        const p = await open(browser, size, m, token);
        await p.waitForSelector("#scores table.sheet");
        const what = `${tag} ${game} ${n} seats ${dealing} ${who}`;
        check(`${what}: no sideways scroll`, !(await overflowsX(p)));
        const sheet = await p.$eval("#scores table.sheet", (t) => [t.getBoundingClientRect().right, document.documentElement.clientWidth]);
        check(`${what}: the score sheet fits the page`, sheet[0] <= sheet[1] + 0.5, JSON.stringify(sheet));
        if (dealing === "scores-only" && who === "host") {
          // One task in the page (not `$$eval`, whose query and function are two round trips): a
          // re-render in between (a stream event) left detached rows, with no computed style.
          const pad = await p.evaluate(() => [...document.querySelectorAll("#tally .tally-name")].map((e) => [e.title, getComputedStyle(e).textOverflow, e.getBoundingClientRect().right <= document.documentElement.clientWidth + 0.5]));
          check(`${what}: the tally pad's rows name each seat, ellipsised, within the page`, JSON.stringify(pad) === JSON.stringify(LONG.slice(0, n).map((x) => [x, "ellipsis", true])), JSON.stringify(pad));
        }
        const bad = await namesFit(p);
        check(`${what}: every long name fits, ellipsised`, bad.length === 0, bad.join("; "));
        if (dealing === "scores-only") {
          // A score-only table draws no players panel (the sheet and the pad name the seats).
          check(`${what}: no players panel at a score-only table`, (await p.$$("#players .player")).length === 0);
        } else {
          const titles = await p.$$eval("#players .player .name", (els) => els.map((e) => e.title));
          check(`${what}: the players panel gives each full name in title`, titles.join() === LONG.slice(0, n).join(), titles.join());
        }
        await shot(p, `tf-${tag}-4-${game}-${n}-${dealing}-${who.replace(" ", "")}`);
        await p.context().close();
      }
    }
  }

  // ---- 5. an action recorded between the log's first read and the stream's start ----
  // The page reads the log (GET /events) and follows the stream; a card played after the read
  // but before the stream starts must still reach the page, or the ended deal's last trick (drawn
  // from the log) is missing for good. The read's answer is held until that card is played, and
  // so is the stream's request; the deal's last card is played once the page is live again.
  {
    const m = await create("clubs", 4, "service");
    await deal(m);
    const trickCount = (v) => (v.table.tricks || []).length;
    const v0 = await playUntil(m, (v) => trickCount(v) === 12 && v.table.trick.length === 2);
    const ctx = await browser.newContext({ ...phone });
    const p = await ctx.newPage();
    p.on("pageerror", (e) => check("gap: no script error", false, e.message));
    let logRead, release;
    const read = new Promise((r) => (logRead = r));
    const released = new Promise((r) => (release = r));
    let first = true;
    await p.route((u) => u.pathname.endsWith("/events"), async (route) => {
      if (!first) return route.continue();
      first = false;
      const answer = await route.fetch();
      logRead();
      await released;
      await route.fulfill({ response: answer });
    });
    await p.route((u) => u.pathname.endsWith("/stream"), async (route) => { await released; await route.continue(); });
    await p.goto(`${BASE}/#m=${m.id}&t=${m.seats[1]}`);
    await read;
    const v1 = await playUntil(m, (v) => v.seq > v0.seq); // the deal's last card but one
    release();
    await seqAt(p, v1.seq);
    const v2 = await playUntil(m, (v) => v.scores.rounds.length === 1); // its last card
    await seqAt(p, v2.seq);
    const log = await fromLog(m, 1);
    await p.waitForSelector("#ended-trick", { timeout: 10000 }).catch(() => {});
    const drawn = await p.$$eval("#trick [data-card]", (els) => els.map((e) => e.dataset.card));
    check("gap: a card played between the log's read and the stream's start still reaches the page (the last trick drawn)",
      v2.seq === v1.seq + 1 && log.last.length === 4 && drawn.join() === log.last.join(), `${drawn} vs ${log.last}`);
    check("gap: and who took it", (await p.$eval("#ended-trick", (e) => e.textContent).catch(() => null)) === `Last trick of Deal 1, taken by ${LONG[log.winner]}`);
    await ctx.close();
  }

  // ---- 4. names kept on the phone: only the typed ones ----
  const ctx = await browser.newContext(phone);
  const p = await ctx.newPage();
  await p.goto(BASE + "/");
  await p.selectOption("#game", "clubs");
  await p.fill('input[data-seat="0"]', "Zed Typed");
  await p.fill('input[data-seat="2"]', "Yan Typed");
  const placeholders = await p.$$eval("#create input[data-seat]", (els) => els.map((e) => e.placeholder));
  await p.click("#create-btn");
  await p.waitForSelector("#links");
  const kept = await p.evaluate(() => JSON.parse(localStorage.getItem("clubroom.names")));
  check("the phone keeps the two typed names, not the empty seats' placeholders", JSON.stringify(kept) === JSON.stringify(["Zed Typed", "Yan Typed"]), `${JSON.stringify(kept)} (placeholders ${placeholders})`);
  await ctx.close();
});
