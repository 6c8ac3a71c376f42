// What this phone keeps, and nothing more (issue 20). Any script of this origin can read the
// browser's storage, so the page stores only what this phone needs to come back to its own role:
//
// - `clubroom.match.<id>.<role>` (local storage): a match this phone opened, in one role: `host`
//   (the scorer's token) or `seat<N>` (that seat's token only). Written when the table page
//   opens, so a seat phone keeps its own seat token and never another's; at most MAX_MATCHES
//   (those with no unsent action), the least recently opened dropped first.
// - `clubroom.queue.<id>.<role>` (local storage): the offline queue of that role's actions (each
//   with its Idempotency-Key). It names no token: the page sends it with the token it was opened
//   with.
// - `clubroom.links.<id>` (session storage): the seat tokens of a match created in this tab, to
//   hand out as links and QR codes. They live in this tab only, until it is closed or the host
//   says everyone has joined; never in local storage.
// - `clubroom.tournament.<id>` (local storage): an organiser's token, shown once by the server.
//
// "Forget" removes every key of a match (or tournament) from both storages.

const P = "clubroom.";
const MAX_MATCHES = 20;

// Runs `fn`, or gives `fallback` where the browser refuses storage (some private modes throw on
// the mere access): the page then keeps nothing and works from its address alone.
function safely(fn, fallback = undefined) {
  try {
    return fn();
  } catch {
    return fallback;
  }
}

// The keys of `storage` whose id segment (`clubroom.<kind>.<id>[.<role>]`) is `id`.
function keysOf(storage, id) {
  const out = [];
  for (let i = 0; i < storage.length; i++) {
    const k = storage.key(i);
    if (k && k.startsWith(P) && k.split(".")[2] === id) out.push(k);
  }
  return out;
}

function read(storage, key, fallback = null) {
  try {
    const v = storage.getItem(key);
    return v === null ? fallback : JSON.parse(v);
  } catch {
    return fallback;
  }
}

function write(storage, key, value) {
  try {
    storage.setItem(key, JSON.stringify(value));
    return true;
  } catch {
    return false; // private mode or a full storage: nothing kept
  }
}

export const roleName = (seat) => (Number.isInteger(seat) ? `seat${seat}` : "host");

// ---------- matches ----------

// Keeps (or refreshes) this phone's entry for a match in one role.
export function keepMatch(entry) {
  safely(() => keepMatchIn(entry));
}

function keepMatchIn({ id, game, players, seat, token }) {
  const role = roleName(seat);
  write(localStorage, `${P}match.${id}.${role}`, { id, game, players, role, seat: Number.isInteger(seat) ? seat : null, token, at: Date.now() });
  // An entry with unsent actions is never dropped.
  const all = keptMatches().filter((m) => !read(localStorage, queueKey(m.id, m.role), []).length);
  for (const old of all.slice(MAX_MATCHES)) {
    localStorage.removeItem(`${P}match.${old.id}.${old.role}`);
    localStorage.removeItem(queueKey(old.id, old.role));
  }
}

// Every match this phone keeps, the most recently opened first.
export function keptMatches() {
  return safely(keptMatchesIn, []);
}

function keptMatchesIn() {
  const out = [];
  for (let i = 0; i < localStorage.length; i++) {
    const k = localStorage.key(i);
    if (k && k.startsWith(`${P}match.`)) {
      const m = read(localStorage, k);
      if (m && m.id && m.token) out.push(m);
    }
  }
  return out.sort((a, b) => (b.at || 0) - (a.at || 0));
}

export const queueKey = (id, role) => `${P}queue.${id}.${role}`;

// Removes every trace of match `id` from this phone: its entries, queues and seat links.
export function forgetMatch(id) {
  for (const s of ["localStorage", "sessionStorage"]) safely(() => { for (const k of keysOf(window[s], id)) window[s].removeItem(k); });
}

// A match's unsent actions on this phone, all roles together.
export function queuedCount(id) {
  return safely(() => keysOf(localStorage, id).filter((k) => k.startsWith(`${P}queue.`))
    .reduce((n, k) => n + (read(localStorage, k, []).length || 0), 0), 0);
}

// ---------- the seat links of a match created in this tab ----------

export function keepLinks(id, seatTokens) {
  safely(() => write(sessionStorage, `${P}links.${id}`, seatTokens));
}

export function keptLinks(id) {
  const t = safely(() => read(sessionStorage, `${P}links.${id}`), null);
  return Array.isArray(t) ? t : null;
}

export function forgetLinks(id) {
  safely(() => sessionStorage.removeItem(`${P}links.${id}`));
}

// ---------- tournaments ----------

export function keepTournament(t, token) {
  safely(() => write(localStorage, `${P}tournament.${t.id}`, { id: t.id, name: t.name, token, at: Date.now() }));
}

export function keptTournaments() {
  return safely(keptTournamentsIn, []);
}

function keptTournamentsIn() {
  const out = [];
  for (let i = 0; i < localStorage.length; i++) {
    const k = localStorage.key(i);
    if (k && k.startsWith(`${P}tournament.`)) {
      const t = read(localStorage, k);
      if (t && t.id && t.token) out.push(t);
    }
  }
  return out.sort((a, b) => (b.at || 0) - (a.at || 0));
}

export function forgetTournament(id) {
  safely(() => { for (const k of keysOf(localStorage, id)) localStorage.removeItem(k); });
}

// ---------- what older pages kept ----------

// The page before issue 20 kept every match it created with its host token and every seat
// token (`clubroom.mine`), and its tournaments in one list: keep the host's and organiser's
// tokens in today's form, drop the seat tokens. A queue under its old key (the match id and the
// first 16 hex digits of the token) is moved by `adoptQueue` when its page opens.
export function tidyOldStorage() {
  try {
    const mine = read(localStorage, `${P}mine`);
    if (mine !== null) {
      for (const m of Array.isArray(mine) ? mine.slice().reverse() : []) {
        if (m && m.id && m.host) keepMatch({ id: m.id, game: m.game, players: m.players || [], seat: null, token: m.host });
      }
      localStorage.removeItem(`${P}mine`);
    }
    const ts = read(localStorage, `${P}tournaments`);
    if (ts !== null) {
      for (const t of Array.isArray(ts) ? ts : []) if (t && t.id && t.token) keepTournament(t, t.token);
      localStorage.removeItem(`${P}tournaments`);
    }
  } catch { /* no storage: nothing to tidy */ }
}

// Moves an old-style queue of this match and token to the role's key.
export function adoptQueue(id, token, role) {
  safely(() => {
    const old = `${P}queue.${id}.${token.slice(0, 16)}`;
    const items = read(localStorage, old);
    if (items === null) return;
    if (Array.isArray(items) && items.length) write(localStorage, queueKey(id, role), [...read(localStorage, queueKey(id, role), []), ...items]);
    localStorage.removeItem(old);
  });
}

// page-polish: the player names typed at creation on this phone, newest first, at most 12 (the
// create form offers them). Kept in localStorage under clubroom.names until "Forget names".
const NAMES = `${P}names`;
export function keepNames(names) {
  safely(() => {
    const fresh = names.map((n) => String(n).trim()).filter((n) => n && !/^Player \d+$/.test(n));
    const all = [...new Set([...fresh, ...read(localStorage, NAMES, [])])].slice(0, 12);
    write(localStorage, NAMES, all);
  });
}
export const keptNames = () => safely(() => { const v = read(localStorage, NAMES, []); return Array.isArray(v) ? v.filter((n) => typeof n === "string") : []; }, []);
export const forgetNames = () => safely(() => localStorage.removeItem(NAMES));
