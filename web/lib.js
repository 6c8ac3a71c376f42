// What the table page (app.js) and the tournament pages (tournament.js) share: building DOM
// nodes, calling the public API, the games list, the connection badge, live polling.

export const $ = (sel, root = document) => root.querySelector(sel);
export const main = () => $("#main");

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") el.className = v;
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "html") el.innerHTML = v;
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

// Replaces an element's children, leaving out the null ones (replaceChildren would write "null").
export function fill(el, ...children) {
  el.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
}

export async function api(method, path, { token, body, headers = {} } = {}) {
  const hs = { ...headers };
  if (token) hs.authorization = `Bearer ${token}`;
  if (body !== undefined) hs["content-type"] = "application/json";
  const r = await fetch(path, { method, headers: hs, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await r.text();
  let json = null;
  try { json = text ? JSON.parse(text) : null; } catch { json = null; }
  return { ok: r.ok, status: r.status, json, text, etag: r.headers.get("etag") };
}

// An answer standing for a request the network failed: `.catch(offline("undo"))`.
export const offline = (what) => () => ({ ok: false, status: 0, json: { detail: `offline: ${what} needs the connection` } });

// A refusal in the page's words. With the match at hand (`players`, and `cardWords(card)` for its
// game's cards), the problem's optional structured fields name things as the page does: `seat`
// (0-based) as "Cat (seat 3)", `card` in words; without them, the detail as the server wrote it.
export function problemText(a, { players, cardWords } = {}) {
  const j = a.json || {};
  let text = j.detail || `the server answered ${a.status}`;
  if (Number.isInteger(j.seat) && players && players[j.seat]) {
    const who = `${players[j.seat].name} (seat ${j.seat + 1})`;
    const re = new RegExp(`\\bseat ${j.seat + 1}\\b`);
    text = re.test(text) ? text.replace(re, who) : `${who}: ${text}`;
  }
  if (j.card !== undefined && j.card !== null && cardWords) {
    const words = cardWords(j.card);
    const raw = String(j.card).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    // A bare number (a P.M. card) only after "card", "hold" or "play" (never a seat's or a
    // count's number); any other code as a word.
    const re = typeof j.card === "number" ? new RegExp(`((?:card|hold|holds|play|played|lay) )${raw}(?![\\d])`, "g") : new RegExp(`(^|[^\\w:])${raw}(?![\\w:])`, "g");
    if (words && words !== String(j.card)) text = text.replace(re, (_, pre) => `${pre}${words}`);
  }
  return text;
}

// A message box in `where` (a selector or a node): `cls` is bad, warn or ok; no text clears it.
export function say(where, cls, text) {
  const box = typeof where === "string" ? $(where) : where;
  if (box) box.replaceChildren(...(text ? [h("div", { class: `msg ${cls}`, role: cls === "bad" ? "alert" : null }, text)] : []));
}

// The sides of a partnership game (docs/rules.md#partnerships: 4 players, seats 0 & 2 against 1 & 3), or null.
// `GET /v1/games` does not say which games play in partnerships (its entries carry the id, title,
// player counts and default options only), so the two are named here.
export function partnerships(game, n) {
  return (game === "dump" || game === "bonus-malus") && n === 4 ? [[0, 2], [1, 3]] : null;
}

let GAMES = null;
export async function games() {
  if (!GAMES) {
    const a = await api("GET", "/v1/games");
    GAMES = a.ok ? a.json : [];
  }
  return GAMES;
}

// A game's entry in the list already loaded by games(), or undefined.
export const gameInfo = (id) => (GAMES || []).find((g) => g.id === id);
export const gameTitle = (id) => gameInfo(id)?.title || id;

export function tableUrl(id, token) {
  return `${location.origin}/#m=${id}&t=${token}`;
}

// The QR encoder (57 KB, a classic script that defines window.qrcode) is loaded the first time a
// code is drawn, not with every page. The server rewrites this URL to the file's hashed name.
// A page opened before the server's files changed may ask for a hash the server no longer has:
// then the file by its plain name (revalidated each time; spelt in two parts so that the server
// leaves it as it is).
const QR_URL = "/web/vendor/qrcode.js";
const QR_PLAIN = "/web/vendor/" + "qrcode.js";
let qrLoading = null;
function loadScript(src) {
  return new Promise((resolve, reject) => {
    const s = document.createElement("script");
    s.src = src;
    s.addEventListener("load", () => resolve(window.qrcode));
    s.addEventListener("error", () => { s.remove(); reject(new Error("QR encoder not loaded")); });
    document.head.append(s);
  });
}
function qrLibrary() {
  if (typeof window.qrcode === "function") return Promise.resolve(window.qrcode);
  if (!qrLoading) {
    qrLoading = loadScript(QR_URL)
      .catch(() => (QR_URL === QR_PLAIN ? Promise.reject(new Error("QR encoder not loaded")) : loadScript(QR_PLAIN)))
      .catch((e) => { qrLoading = null; throw e; });
  }
  return qrLoading;
}

// A box that shows the QR code of `text` as soon as the encoder is there (at once, once loaded).
export function qrSvg(text) {
  const box = h("div", { class: "qr" });
  qrLibrary().then((qrcode) => {
    const q = qrcode(0, "M");
    q.addData(text);
    q.make();
    box.innerHTML = q.createSvgTag({ cellSize: 4, margin: 2, scalable: true });
  }).catch(() => {});
  return box;
}

// The join links of a match: the host's and a QR code per seat. `back`: a node to go back by.
// `onForget`: the seat links are kept in this tab's session storage (a match created here), and
// this forgets them, once the host says everyone has joined.
export function linksPage(created, back = null, { onForget = null } = {}) {
  const m = created.match;
  const host = tableUrl(m.id, created.host_token);
  const sides = partnerships(m.game, m.players.length);
  const seats = m.players.map((p, s) => {
    const url = tableUrl(m.id, created.seat_tokens[s]);
    return h("div", { class: "link", "data-seat": s },
      h("strong", {}, `Seat ${s + 1}: ${p.name}`, sides ? h("span", { class: "partner" }, ` (partner: ${m.players[(s + 2) % 4].name})`) : ""),
      qrSvg(url),
      h("input", { type: "text", readonly: true, value: url, onclick: (e) => e.target.select() }),
      h("a", { href: url, class: "small", "data-join": s }, "open this seat here"));
  });
  const forgotten = h("div", { class: "msg ok", id: "links-forgotten" },
    "The seat links are gone from this phone. A player who still needs one cannot get it from here any more.");
  const joined = onForget ? h("section", { class: "panel", id: "joined" },
    h("p", { class: "small muted" }, "This phone keeps the seat links in this browser tab only, until the tab is closed, so that you can show them again from the host table (“Seat links”). Once every player has joined, let it forget them."),
    h("button", { class: "secondary wide", id: "forget-links", onclick: () => {
      onForget();
      seats.forEach((el) => el.remove());
      joined.replaceWith(forgotten);
    } }, "Everyone has joined: forget the seat links")) : null;
  fill(main(),
    back,
    h("h1", {}, "Links"),
    h("p", { class: "muted" }, "Each player scans their seat's code (or opens its link) on their phone. The host link records for everyone and may undo: keep it to yourself."),
    h("section", { class: "panel links", id: "links" },
      h("div", { class: "link", "data-role": "host" },
        h("strong", {}, "Host (scorer)"),
        h("input", { type: "text", readonly: true, value: host, onclick: (e) => e.target.select() }),
        h("div", { class: "row" }, h("a", { class: "button", href: host, id: "open-host" }, "Open host table"))),
      seats),
    joined);
  window.scrollTo(0, 0);
}

// A "Forget …" button (`#<id>`) whose confirmation opens in place, under it (`#<id>-confirm`,
// saying `text`, with `#<id>-yes` calling `onYes` and `#<id>-no` closing it): a tap never
// forgets by itself. A page that redraws (a table page does on every event) passes `open` and
// hears `onToggle(open)` to keep the confirmation open across its redraws.
export function forgetControl({ label, text, yes, onYes, open = false, onToggle = () => {}, id = "forget" }) {
  const box = h("div", { class: "forget-box" });
  const show = (on) => {
    fill(box, on ? h("div", { class: "msg warn", id: `${id}-confirm`, role: "alertdialog" },
      h("p", {}, text),
      h("div", { class: "row" },
        h("button", { class: "danger grow", id: `${id}-yes`, onclick: onYes }, yes),
        h("button", { class: "secondary grow", id: `${id}-no`, onclick: () => { show(false); onToggle(false); } }, "Keep it"))) : null);
    button.hidden = on;
  };
  const button = h("button", { class: "secondary small", id, onclick: () => { show(true); onToggle(true); } }, label);
  const el = h("div", { class: "forget" }, button, box);
  show(open);
  return el;
}

export function setConn(cls, text) {
  const c = $("#conn");
  c.className = `conn ${cls}`;
  c.textContent = text;
}

// Follows a JSON resource by polling it every `every` ms with If-None-Match: an unchanged one
// answers 304 with no body. `onChange(json)` runs on each new version; `now()` polls at once
// (after an action that changed it), `stop()` ends it; `onError(answer)` hears a refusal.
export function watch(path, onChange, { token, every = 5000, onError = () => {} } = {}) {
  let etag = null, busy = false, again = false, timer = null;
  const poll = async () => {
    if (busy) { again = true; return; }
    busy = true;
    try {
      const a = await api("GET", path, { token, headers: etag ? { "if-none-match": etag } : {} });
      if (a.ok) { etag = a.etag; onChange(a.json); } else if (a.status !== 304) onError(a);
    } catch { /* offline: the next poll tries again */ }
    busy = false;
    if (again) { again = false; poll(); }
  };
  poll();
  timer = setInterval(poll, every);
  return { now: poll, stop: () => clearInterval(timer) };
}
