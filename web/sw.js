// Clubroom's service worker (served at /sw.js, scope "/"): keeps the table page's shell (the
// index, its scripts, style sheet, manifest, icons and the QR encoder, by their content-hashed
// names) in a cache and serves them from it, so that a phone that has opened the page once opens
// it again without the network, and a repeat load fetches only the API's answers.
//
// The server puts one line before this script: `const BUILD = {"version": …, "shell": [URLs]}`,
// the hash of the file set and its URLs. A binary with other files is another script: the browser
// installs it in place of this one, which fills a cache of the new version's name and drops the
// old ones.
//
// Never kept: the API (`/v1/…`, its answers, streams and tokens), `/docs`, `/openapi.json`, or
// anything not in the shell: such requests are not touched at all and go to the network as if
// there were no worker. The table page's offline queue (localStorage, app.js) works as before.
/* global BUILD */

const CACHE = `clubroom-${BUILD.version}`;
const SHELL = new Set(BUILD.shell);

self.addEventListener("install", (event) => {
  // `no-cache`: fill the cache from the server, not from an older HTTP cache entry.
  event.waitUntil(caches.open(CACHE)
    .then((cache) => cache.addAll(BUILD.shell.map((url) => new Request(url, { cache: "no-cache" }))))
    .then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => k.startsWith("clubroom-") && k !== CACHE).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});

self.addEventListener("fetch", (event) => {
  const req = event.request;
  if (req.method !== "GET") return;
  const url = new URL(req.url);
  if (url.origin !== self.location.origin) return;
  // The page itself: any address `/` (its match, seat and token are in the fragment, which is
  // never part of a request).
  const key = req.mode === "navigate" ? (url.pathname === "/" ? "/" : null)
    : (SHELL.has(url.pathname) && !url.search ? url.pathname : null);
  if (!key) return;
  event.respondWith(caches.open(CACHE)
    .then((cache) => cache.match(key))
    .then((hit) => hit || fetch(req)));
});
