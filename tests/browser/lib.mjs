// What the browser tests share (scripts/ci-browser.sh runs them): the environment, the pass/fail
// lines the script counts, a JSON API client, headless Chromium and the phone it emulates.
//
// Env: BASE (server URL), PW_DIR (dir whose node_modules holds playwright-core), CHROMIUM
// (executable, default /usr/bin/chromium), ARTIFACTS (screenshots dir).

import { createRequire } from "node:module";
import { mkdirSync } from "node:fs";
import { join } from "node:path";

export const BASE = process.env.BASE;
export const ARTIFACTS = process.env.ARTIFACTS || "target/browser-artifacts";
const require = createRequire(join(process.env.PW_DIR || ".", "noop.js"));
const { chromium } = require("playwright-core");

export const phone = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 1, hasTouch: true, isMobile: true };

const counts = { passed: 0, failed: 0 };
export function check(name, ok, detail = "") {
  if (ok) { counts.passed++; console.log(`ok   ${name}`); }
  else { counts.failed++; console.log(`FAIL ${name} ${detail}`); }
}

// The answer's JSON body.
export async function api(method, path, token, body) {
  const headers = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body) headers["content-type"] = "application/json";
  const r = await fetch(BASE + path, { method, headers, body: body ? JSON.stringify(body) : undefined });
  return r.json();
}

export function launch() {
  mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    // A fresh profile: playwright's launch() gives the browser a new temporary --user-data-dir
    // itself (and refuses one in args).
  });
}

// Every Content-Security-Policy violation on a page of `ctx`: the page's `securitypolicyviolation`
// events (each document, before its own scripts run) and the console's "Refused to ..." errors,
// each handed to `report(text)`.
export async function watchCsp(ctx, report) {
  await ctx.exposeBinding("__clubroomCspViolation", (_source, text) => report(text));
  await ctx.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) => {
      window.__clubroomCspViolation(`${e.violatedDirective} refused ${e.blockedURI || "inline"} at ${e.sourceFile || e.documentURI}:${e.lineNumber} ${e.sample || ""}`);
    }, true);
  });
  ctx.on("console", (m) => {
    if (m.type() === "error" && /Content Security Policy/i.test(m.text())) report(m.text());
  });
}

// Runs a test's body: an exception is a failed check; the browser is closed, the counts printed
// and the exit status set. Every context the body opens is watched for CSP violations: each one
// is a failed check.
export async function run(label, body) {
  const browser = await launch();
  const newContext = browser.newContext.bind(browser);
  let contexts = 0, violations = 0;
  browser.newContext = async (options) => {
    const ctx = await newContext(options);
    contexts++;
    await watchCsp(ctx, (text) => { violations++; check("no Content-Security-Policy violation", false, text); });
    return ctx;
  };
  try {
    await body(browser);
  } catch (e) {
    check("the browser run completes", false, e.stack || String(e));
  } finally {
    await browser.close();
  }
  check(`no Content-Security-Policy violation on the ${contexts} phones' pages`, contexts > 0 && violations === 0, `${violations} violations`);
  console.log(`browser ${label}: ${counts.passed} passed, ${counts.failed} failed`);
  process.exit(counts.failed ? 1 : 0);
}

// ---- accessibility (a11y.mjs; any test may call these) ----
// axe-core's source (AXE_JS, installed pinned by scripts/ci-browser.sh). It is run with
// page.evaluate (the DevTools protocol's Runtime.evaluate), which the page's strict CSP does not
// govern, so the page is checked under its real policy: page.addScriptTag would add a <script>
// the CSP refuses (and the refusal would be a CSP failure of its own), and a bypassCSP context
// would check a page that is not the one served.
let axeSource = null;
export async function axeViolations(page) {
  if (!axeSource) {
    const { readFileSync } = await import("node:fs");
    axeSource = readFileSync(process.env.AXE_JS, "utf8");
  }
  if (!(await page.evaluate(() => !!window.axe))) await page.evaluate(axeSource);
  const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ["violations"] }));
  return result.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(", ")}${v.nodes.length > 3 ? ` +${v.nodes.length - 3}` : ""}`);
}

// The visible buttons, links, summaries and inputs a thumb taps that are smaller than 44x44 px
// (WCAG 2.5.5 AAA target size; the page's own rule). Inline links inside running text (a <p>'s
// sentence) are exempt (WCAG 2.5.8's inline exception); a checkbox or radio inside a <label> is
// measured by its label (the label is what the thumb taps).
export function smallTargets(page, min = 44) {
  return page.$$eval("button, a[href], summary, select, input:not([type=hidden]), [role=button]", (els, min) => els
    .map((e) => (e.matches("input[type=checkbox], input[type=radio]") && e.closest("label")) || e)
    .filter((e) => {
      const r = e.getBoundingClientRect();
      if (!r.width || !r.height || getComputedStyle(e).visibility === "hidden") return false;
      if (e.tagName === "A" && e.closest("p")) return false;
      return r.width < min - 0.5 || r.height < min - 0.5;
    })
    .map((e) => {
      const r = e.getBoundingClientRect();
      return `${e.tagName.toLowerCase()}${e.id ? "#" + e.id : ""}${e.className && typeof e.className === "string" ? "." + e.className.split(" ").join(".") : ""} "${(e.textContent || e.value || "").trim().slice(0, 20)}" ${Math.round(r.width)}x${Math.round(r.height)}`;
    }), min);
}

// Whether the document scrolls sideways (it must not: everything fits 360 px wide).
// A table page once drawn and drawn again after its log's first read (web/app.js marks it
// `data-log`): an element held across that second drawing would be detached under the test.
export async function drawn(page) {
  await page.waitForSelector("#scores");
  await page.waitForSelector("body[data-log=loaded]", { state: "attached" });
}

export const overflowsX = (page) => page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth + 0.5);
