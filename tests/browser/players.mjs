// Browser test of registered players on the create form (scripts/ci-browser.sh runs it): players
// registered over the API are offered under a seat's name as it is typed (GET /v1/players?q=); a
// tap fills the seat with the registered name exactly and links it; the created match names each
// linked seat's player_id; a seat typed by hand, or a
// linked seat edited afterwards, is sent without an id; two players registered under one name are
// told apart; the suggestions are reachable tap targets (>= 44 px) at 390x844, 360x640 and 844x390.
//
// Env: as lib.mjs (BASE, PW_DIR, CHROMIUM, ARTIFACTS).

import { join } from "node:path";
import { ARTIFACTS, BASE, api, check, phone, run } from "./lib.mjs";

const shot = (page, name) => page.screenshot({ path: join(ARTIFACTS, `${name}.png`) });

// The suite shares one server: names carry a tag of this run so that a search finds only ours.
const tag = Math.random().toString(36).slice(2, 7);
const sizes = [
  { name: "390x844", viewport: { width: 390, height: 844 } },
  { name: "360x640", viewport: { width: 360, height: 640 } },
  { name: "844x390", viewport: { width: 844, height: 390 } },
];

// The suggestion chips under seat `s`, as { id, text }.
const chips = (page, s) => page.$$eval(`[data-suggest="${s}"] button[data-player]`, (bs) => bs.map((b) => ({ id: b.dataset.player, text: b.textContent })));

async function waitChips(page, s, n) {
  await page.waitForFunction(([s, n]) => document.querySelectorAll(`[data-suggest="${s}"] button[data-player]`).length === n, [s, n], { timeout: 5000 }).catch(() => {});
  return chips(page, s);
}

await run("players", async (browser) => {
  const reg = async (name) => api("POST", "/v1/players", null, { name });
  const ada = await reg(`Ada Quix${tag}`);
  const adam = await reg(`Adam Quix${tag}`);
  const twinA = await reg(`Cy Twin${tag}`);
  const twinB = await reg(`Cy Twin${tag}`);
  check("four players registered over the API", [ada, adam, twinA, twinB].every((p) => typeof p.id === "string"), JSON.stringify([ada, adam]));

  for (const size of sizes) {
    const ctx = await browser.newContext({ ...phone, viewport: size.viewport });
    const page = await ctx.newPage();
    page.on("pageerror", (e) => check(`${size.name}: no script error`, false, e.message));
    await page.goto(BASE + "/");
    await page.selectOption("#game", "clubs");
    await page.locator("#create .choices").first().locator('button:text-is("4")').click();

    // Seat 1: typed in another case, part of the name; both Quix players are offered.
    await page.fill('input[data-seat="0"]', `quix${tag}`);
    let got = await waitChips(page, 0, 2);
    check(`${size.name}: typing part of a name offers the registered players who match`,
      got.length === 2 && got[0].id === ada.id && got[1].id === adam.id && got[0].text === ada.name && got[1].text === adam.name, JSON.stringify(got));
    const boxes = await page.$$eval('[data-suggest="0"] button[data-player]', (bs) => bs.map((b) => b.getBoundingClientRect()).map((r) => ({ h: r.height, w: r.width, right: r.right, top: r.top, bottom: r.bottom })));
    check(`${size.name}: each offered player is a tap target of at least 44 px on the screen, without scrolling`,
      boxes.length === 2 && boxes.every((b) => b.h >= 44 && b.w >= 44 && b.right <= size.viewport.width && b.top >= 0 && b.bottom <= size.viewport.height), JSON.stringify(boxes));
    await shot(page, `players-suggest-${size.name}`);
    await page.click(`[data-suggest="0"] button[data-player="${ada.id}"]`);
    check(`${size.name}: a tap fills the seat with the registered name exactly and shows it linked`,
      await page.inputValue('input[data-seat="0"]') === ada.name
      && await page.isVisible('[data-badge="0"]')
      && (await chips(page, 0)).length === 0);

    // Seat 2: two players registered under one name are told apart; the second is taken.
    await page.fill('input[data-seat="1"]', `cy twin${tag}`);
    got = await waitChips(page, 1, 2);
    check(`${size.name}: two players under one name are told apart by their ids`,
      got.length === 2 && got[0].text === `${twinA.name} · ${twinA.id.slice(0, 4)}` && got[1].text === `${twinB.name} · ${twinB.id.slice(0, 4)}`, JSON.stringify(got));
    await page.click(`[data-suggest="1"] button[data-player="${twinB.id}"]`);

    // Seat 3: Adam linked, then edited by hand: the link goes, the edited name is sent as typed.
    await page.fill('input[data-seat="2"]', `adam quix${tag}`);
    got = await waitChips(page, 2, 1);
    check(`${size.name}: a fuller name narrows the offer to one player`, got.length === 1 && got[0].id === adam.id, JSON.stringify(got));
    await page.click(`[data-suggest="2"] button[data-player="${adam.id}"]`);
    check(`${size.name}: the third seat shows linked`, await page.isVisible('[data-badge="2"]'));
    await page.focus('input[data-seat="2"]');
    await page.keyboard.type(" Jr");
    check(`${size.name}: editing a linked name unlinks the seat`, !(await page.isVisible('[data-badge="2"]')));

    // Seat 4: a name nobody registered: no offer.
    await page.fill('input[data-seat="3"]', `Nobody${tag}`);
    await page.waitForTimeout(600);
    check(`${size.name}: an unregistered name gets no offer`, (await chips(page, 3)).length === 0);

    // A redraw (the dealing choice) keeps the links.
    await page.click("#dealing-table");
    check(`${size.name}: the links survive a redraw of the form`,
      await page.isVisible('[data-badge="0"]') && await page.isVisible('[data-badge="1"]') && !(await page.isVisible('[data-badge="2"]')));

    await page.click("#create-btn");
    await page.waitForSelector("#links", { timeout: 10000 }).catch(() => {});
    const hostLink = await page.getAttribute("#open-host", "href").catch(() => null);
    // The form's message only when the links did not come (once they have, the form is gone and a
    // read of it would wait out Playwright's 30 s).
    check(`${size.name}: the match is created`, !!hostLink, hostLink ? "" : await page.textContent("#create-msg", { timeout: 1000 }).catch(() => ""));
    if (!hostLink) { await ctx.close(); continue; }
    const id = new URL(hostLink).hash.match(/m=([0-9a-f]+)/)[1];
    const token = new URL(hostLink).hash.match(/t=([0-9a-f]+)/)[1];
    const view = await api("GET", `/v1/matches/${id}`, token);
    const seats = view.players.map((p) => [p.name, p.player_id ?? null]);
    check(`${size.name}: the match names the linked seats' players and the typed ones without an id`,
      JSON.stringify(seats) === JSON.stringify([[ada.name, ada.id], [twinB.name, twinB.id], [`${adam.name} Jr`, null], [`Nobody${tag}`, null]]), JSON.stringify(seats));
    await ctx.close();
  }
});
