// Browser test of the page's accessibility (scripts/ci-browser.sh runs it): axe-core (pinned,
// AXE_JS) at 0 violations, every tapped control at least 44x44 px and no sideways scroll, on the
// create page, a host's and a seat's table page mid-deal (Clubs, Clubroom deals), the score sheet
// of a finished match and a tournament's public page, each at 390x844, 360x640 and 844x390.
// Screenshots of each go to ARTIFACTS (a11y-<page>-<w>x<h>.png).
//
// Env: as lib.mjs (BASE, PW_DIR, CHROMIUM, ARTIFACTS) and AXE_JS (axe.min.js).

import { join } from "node:path";
import { ARTIFACTS, BASE, api, axeViolations, check, overflowsX, phone, run, smallTargets } from "./lib.mjs";

const SIZES = [[390, 844], [360, 640], [844, 390]];

// Plays a real-cards match to its end over the API: the host records an action chosen from
// `legal` (at random: the sheet, not the score, is what is looked at) until it is finished.
async function finishMatch(id, host) {
  for (let n = 0; n < 5000; n++) {
    const v = await api("GET", `/v1/matches/${id}`, host);
    if (v.status === "finished") return;
    const asks = v.table_to_act ? [null, ...v.to_act] : v.to_act;
    let choice = null;
    for (const seat of asks) {
      const l = await api("GET", `/v1/matches/${id}/legal${seat === null ? "" : `?seat=${seat}`}`, host);
      if (l.actions && l.actions.length) { choice = { seat, action: l.actions[Math.floor(Math.random() * l.actions.length)] }; break; }
    }
    if (!choice) throw new Error(`nothing legal at version ${v.seq}`);
    const r = await api("POST", `/v1/matches/${id}/actions`, host, choice);
    if (!r.match) throw new Error(`refused at version ${v.seq}: ${JSON.stringify(r)}`);
  }
  throw new Error("the match did not finish in 5000 actions");
}

await run("a11y", async (browser) => {
  const look = async (label, url, ready) => {
    const ctx = await browser.newContext(phone);
    const p = await ctx.newPage();
    p.on("pageerror", (e) => check(`${label} page has no script error`, false, e.message));
    await p.goto(url);
    // `ready`: a selector, or several when the page is drawn by separate fetches (all awaited); a
    // match page is drawn again once its event log has loaded (`body[data-log=loaded]`, lib.mjs
    // `drawn`), so its looks wait for that too.
    for (const sel of [ready].flat()) await p.waitForSelector(sel);
    for (const [w, hh] of SIZES) {
      await p.setViewportSize({ width: w, height: hh });
      await p.waitForTimeout(50); // a layout pass after the resize (no event to wait for)
      await p.screenshot({ path: join(ARTIFACTS, `a11y-${label}-${w}x${hh}.png`), fullPage: true });
      const v = await axeViolations(p);
      check(`${label} ${w}x${hh}: axe-core finds 0 violations`, v.length === 0, v.join("; "));
      const small = await smallTargets(p);
      check(`${label} ${w}x${hh}: every control a thumb taps is at least 44x44 px`, small.length === 0, small.join("; "));
      if (w === 360) check(`${label} 360 px: no sideways scroll`, !(await overflowsX(p)));
    }
    await ctx.close();
  };

  await look("create", `${BASE}/`, "#create");

  // Names typed at creation are offered next time (chips and a datalist), a 20-character name
  // ellipsised within 360 px; the toggles say which is selected (aria-pressed).
  {
    const ctx = await browser.newContext(phone);
    const p = await ctx.newPage();
    p.on("pageerror", (e) => check("names page has no script error", false, e.message));
    await p.goto(`${BASE}/`);
    await p.selectOption("#game", "dump");
    const long = "Maximiliana Oberhaus"; // 20 characters
    await p.fill('input[data-seat="0"]', long);
    await p.fill('input[data-seat="1"]', "Ben");
    await p.click("text=Clubroom deals");
    const pressed = await p.$$eval("#create .choices button[aria-pressed]", (bs) => bs.map((b) => `${b.textContent}=${b.getAttribute("aria-pressed")}`));
    check("the create form's toggles carry aria-pressed, one of each group true",
      pressed.includes("4=true") && pressed.includes("Clubroom deals=true") && pressed.includes("Real cards=false"), pressed.join());
    await p.click("#create-btn");
    await p.waitForSelector("#links");
    await p.goto(`${BASE}/`);
    await p.waitForSelector("#recent .chip");
    const chips = await p.$$eval("#recent .chip", (bs) => bs.map((b) => b.dataset.name));
    const listed = await p.$$eval("#recent-names option", (os) => os.map((o) => o.value));
    check("a name typed at creation is offered next time (chips and datalist), newest first",
      chips.slice(0, 2).join() === `${long},Ben` && listed.slice(0, 2).join() === `${long},Ben`, `${chips} / ${listed}`);
    await p.click(`#recent .chip[data-name="Ben"]`);
    check("tapping a name fills the next empty seat", (await p.inputValue('input[data-seat="0"]')) === "Ben");
    await p.setViewportSize({ width: 360, height: 640 });
    const chip = await p.$eval(`#recent .chip[title="${long}"]`, (b) => [b.scrollWidth > b.clientWidth, getComputedStyle(b).textOverflow]);
    check("a 20-character name is ellipsised at 360 px and the page does not scroll sideways",
      chip[1] === "ellipsis" && !(await overflowsX(p)), JSON.stringify(chip));
    await p.screenshot({ path: join(ARTIFACTS, "a11y-names-360x640.png"), fullPage: true });
    await p.click("#forget-names");
    check("Forget names clears them from the phone", !(await p.$("#recent")) && (await p.evaluate(() => localStorage.getItem("clubroom.names"))) === null);
    await ctx.close();
  }

  // A Clubs deal mid-way: Clubroom deals, a few cards played from `legal`.
  const names = ["Ada", "Ben", "Cat", "Dan"];
  const made = await api("POST", "/v1/matches", null, { game: "clubs", players: names.map((name) => ({ name })), dealing: "service" });
  const id = made.match.id, host = made.host_token, seats = made.seat_tokens;
  await api("POST", `/v1/matches/${id}/actions`, host, { seat: null, action: { type: "deal" } });
  for (let k = 0; k < 6; k++) {
    const v = await api("GET", `/v1/matches/${id}`);
    if (v.table_to_act || !v.to_act.length) break;
    const seat = v.to_act[0];
    const legal = (await api("GET", `/v1/matches/${id}/legal?seat=${seat}`, seats[seat])).actions;
    await api("POST", `/v1/matches/${id}/actions`, seats[seat], { seat, action: legal[0] });
  }
  await look("host", `${BASE}/#m=${id}&t=${host}`, ["#table", "body[data-log=loaded]"]);
  const toAct = (await api("GET", `/v1/matches/${id}`)).to_act[0] ?? 0;
  await look("seat", `${BASE}/#m=${id}&t=${seats[toAct]}`, ["#hand", "body[data-log=loaded]"]);

  // The deal played to its end (every card from `legal`): the summary shows the sheet's points for
  // the deal and the totals, stays when the next deal is dealt and goes at its first card.
  {
    for (let k = 0; k < 200; k++) {
      const v = await api("GET", `/v1/matches/${id}`);
      if (v.table_to_act || v.status === "finished" || !v.to_act.length) break;
      const seat = v.to_act[0];
      const legal = (await api("GET", `/v1/matches/${id}/legal?seat=${seat}`, seats[seat])).actions;
      await api("POST", `/v1/matches/${id}/actions`, seats[seat], { seat, action: legal[0] });
    }
    const v = await api("GET", `/v1/matches/${id}`);
    const last = v.scores.rounds[v.scores.rounds.length - 1];
    const ctx = await browser.newContext(phone);
    const p = await ctx.newPage();
    await p.goto(`${BASE}/#m=${id}&t=${host}`);
    await p.waitForFunction((n) => Number(document.body.dataset.seq) >= n, v.seq);
    const shown = await p.$$eval("#deal-summary tr.round, #deal-summary tr.total", (rs) => rs.map((r) => [...r.querySelectorAll("td")].slice(1).map((td) => Number(td.textContent))));
    check("at the deal's end the summary shows the sheet's points for the deal and the totals",
      shown.length === 2 && shown[0].join() === last.points.join() && shown[1].join() === v.scores.totals.join(), `${JSON.stringify(shown)} vs ${JSON.stringify([last.points, v.scores.totals])}`);
    await p.screenshot({ path: join(ARTIFACTS, "a11y-deal-summary-390x844.png") });
    const axe = await axeViolations(p);
    check("the deal summary: axe-core finds 0 violations", axe.length === 0, axe.join("; "));
    const m = (await api("POST", `/v1/matches/${id}/actions`, host, { seat: null, action: { type: "deal" } })).match;
    await p.waitForFunction((n) => Number(document.body.dataset.seq) >= n, m.seq);
    check("the summary stays once the next deal is dealt", !!(await p.$("#deal-summary")));
    const v2 = await api("GET", `/v1/matches/${id}`);
    const first = v2.to_act[0];
    const card = (await api("GET", `/v1/matches/${id}/legal?seat=${first}`, seats[first])).actions[0];
    const m2 = (await api("POST", `/v1/matches/${id}/actions`, seats[first], { seat: first, action: card })).match;
    await p.waitForFunction((n) => Number(document.body.dataset.seq) >= n, m2.seq);
    check("the summary goes at the next deal's first card", !(await p.$("#deal-summary")));
    await ctx.close();
  }

  // A finished match's score sheet.
  const done = await api("POST", "/v1/matches", null, { game: "dump", players: ["Ada", "Ben", "Cat", "Dan"].map((name) => ({ name })), dealing: "table" });
  await finishMatch(done.match.id, done.host_token);
  await look("sheet", `${BASE}/#m=${done.match.id}&t=${done.host_token}`, ["#scores", "body[data-log=loaded]"]);

  // A tournament's public page.
  const t = await api("POST", "/v1/tournaments", null, {
    name: "Dump night", game: "dump", format: "round_robin", table_size: 2, record: "totals", players: ["Ada", "Ben", "Cy", "Di"].map((name) => ({ name })),
  });
  // The standings' rows come from their own poll (tournament.js `watch(.../standings)`), the
  // heading (h1) and the rounds from the tournament's (`watch(/v1/tournaments/{id})`, its `draw`):
  // wait for both before axe looks, or it may see a page with no h1 yet (page-has-heading-one).
  await look("tournament", `${BASE}/#tournament=${t.tournament.id}`, ["#standings tr[data-player]", "#tournament-head h1"]);
});
