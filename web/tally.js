// Score-only play: the number pads with which a real-card table enters a deal's (heat's, game's)
// result instead of playing card by card, for every game (the API's `tally` action). Plain ES
// module, used by app.js.
//
// The pad is drawn from the game id plus the form descriptor the API lists in `legal.tally`
// (`{field, unit, entries, min, max, step, sum, multiplier, nonzero_at_most, per_entry, floor,
// tiebreak}`); where the API sends none, a built-in descriptor per game (the same rules, see
// /work/shared contract "Score-only play" and RULES.md) stands in. What the page can check (range,
// step, sum, one plus side, marker floors, a furthest tie) is checked as the numbers are typed, and
// the refusal is shown in plain words with Send disabled; the server checks the rest.

import { h } from "./lib.js";

const MARKERS = ["umbrella", "crown", "teacup", "big_ben", "hat"];
const MARKER_NAMES = { umbrella: "Umbrella", crown: "Crown", teacup: "Teacup", big_ben: "Big Ben", hat: "Hat" };
const minus = (x) => (x < 0 ? `−${-x}` : String(x));

/** Whether the match records scores only (its config's `scores_only`). */
export function scoresOnly(v) {
  return !!(v && v.config && v.config.scores_only);
}

// The entries the pad has a row for: seats, or sides where the sheet counts by side.
function entriesOf(v, unit) {
  const names = v.players.map((p) => p.name);
  if (unit === "side" && v.scores.sides) return v.scores.sides.map((s) => s.map((x) => names[x]).join(" & "));
  return names;
}

// The built-in descriptor per game, as the API's `legal.tally` would give it (RULES.md).
function fallback(v) {
  const n = v.players.length;
  const sided = !!v.scores.sides && v.scores.unit === "side";
  const cfg = v.config || {};
  switch (v.game) {
    // Clubs: −1 a card, +3 a club, J♣ −11 net; the recount −3 a club, J♣ +10: one seat scores
    // between −36 (every club but J♣, recounted) and +24 (every club but J♣, nothing else).
    case "clubs": return { field: "points", unit: "seat", entries: n, min: -36, max: 24, step: 1, sum: -26 };
    case "bonus-malus": {
      const entries = sided ? 2 : n;
      return { field: "points", unit: sided ? "side" : "seat", entries, min: 0, max: 195, step: 5, sum: null,
        multiplier: roundDue(v), nonzero_at_most: entries === 2 ? 1 : null };
    }
    case "dump": return { field: "points", unit: sided ? "side" : "seat", entries: 2, min: 0, max: 160, step: 1, sum: 160 };
    case "plus-minus": return { field: "points", unit: "seat", entries: n, min: -80, max: 200, step: 1, sum: null };
    case "members-only": {
      const tracks = (v.table && v.table.tracks) || [];
      return { field: "markers", unit: "seat", entries: n, min: 0, max: 10, step: 1, per_entry: MARKERS,
        floor: Array.from({ length: n }, (_, s) => MARKERS.map((c) => (tracks[s] && tracks[s][c]) || 0)) };
    }
    // By Hook or Crook: each pawn's space after the final exhibition, 0 to the furthest a pawn
    // can reach on the match's board (`table.last_space`), one of them on a pink space.
    case "by-hook-or-crook": {
      const t = v.table || {};
      return { field: "positions", unit: "seat", entries: n, min: 0, max: t.last_space ?? null, step: 1, tiebreak: true, pink_from: t.pink_from ?? null };
    }
    default: return null;
  }
}

/**
 * The descriptor to draw: the API's `legal.tally` when it sends one, else the built-in one (a
 * server older than `legal.tally`). The pad is offered in a score-only match, and at an ordinary
 * real-card Dump table before any card of the deal is played (`fresh`); the API also lists a
 * `points` form at other real-card tables before a deal's first card (Clubs, Bonus-Malus, P.M.),
 * where the page keeps to play by play.
 */
export function descriptor(v, legalTally, fresh) {
  if (!v || v.status === "finished" || v.dealing !== "table") return null;
  if (scoresOnly(v) || (v.game === "dump" && fresh)) return legalTally || fallback(v);
  return null;
}

// A typed number: digits with an optional leading minus ("-", "−"); null when empty or not one.
function parse(text) {
  const t = String(text).trim().replace(/^[−–]/, "-");
  if (!/^-?\d+$/.test(t)) return null;
  return Number(t);
}

// The round a tally records: the one after the sheet's last line (a score-only match has no
// `deal` to start it; at an ordinary real-card table the deal in progress is that one too).
function roundDue(v) {
  return ((v.scores && v.scores.rounds) || []).length + 1;
}

// What a round's numbers add to each entry's total, per game (RULES.md).
function roundPoints(game, d, values) {
  if (game === "bonus-malus") return values.map((x) => x * (d.multiplier || 1));
  if (game === "dump") return values.map((x) => Math.max(0, x - 80));
  if (game === "members-only") return values.map((ms) => ms.reduce((a, m) => a + (m >= 5 ? m : 0), 0));
  if (game === "by-hook-or-crook") return null;
  return values;
}

// The match end the totals reach, in words, or null.
function matchEnd(v, totals, labels, values) {
  const cfg = v.config || {};
  if (v.game === "members-only") {
    const all = MARKERS.every((_, k) => values.some((ms) => ms[k] >= 5));
    return all ? "every category has a marker at 5 or more: the game ends" : null;
  }
  if (v.game === "plus-minus") {
    const games = cfg.rubber_games ?? 5;
    if (roundDue(v) < games) return null;
    const best = Math.max(...totals);
    return `game ${games} of ${games}: the rubber ends, ${labels.filter((_, i) => totals[i] === best).join(" and ")} ${minus(best)}`;
  }
  if (v.game === "clubs") {
    const i = totals.findIndex((t) => t <= -100);
    return i < 0 ? null : `${labels[i]} reaches ${minus(totals[i])}: the match ends`;
  }
  const target = v.game === "bonus-malus" ? cfg.target ?? 155 : v.game === "dump" ? cfg.target ?? 100 : null;
  if (target !== null) {
    const i = totals.findIndex((t) => t >= target);
    return i < 0 ? null : `${labels[i]} reaches ${totals[i]}: the match ends`;
  }
  return null;
}

// The refusal in plain words (seats numbered from 1 as the page numbers them), or null.
function refusal(v, d, labels, values, tiebreak) {
  const who = (i) => `${d.unit === "side" ? "side" : "seat"} ${i + 1} (${labels[i]})`;
  if (d.field === "markers") {
    for (let i = 0; i < values.length; i++) {
      for (let k = 0; k < 5; k++) {
        const m = values[i][k], f = ((d.floor || [])[i] || [])[k] || 0;
        if (m > (d.max ?? 10)) return `${who(i)}: ${MARKER_NAMES[MARKERS[k]]} ${m} is past 10`;
        if (m < f) return `${who(i)}: ${MARKER_NAMES[MARKERS[k]]} cannot go back from ${f} to ${m}`;
      }
    }
    return null;
  }
  const empty = values.findIndex((x) => x === null);
  if (empty >= 0) return `${who(empty)}: enter a whole number`;
  if (d.field === "positions") {
    // By Hook or Crook: spaces, not points.
    for (let i = 0; i < values.length; i++) {
      const x = values[i];
      if (d.min !== null && d.min !== undefined && x < d.min) return `${who(i)}: a pawn stands on space ${d.min} or further, not ${minus(x)}`;
      if (d.max !== null && d.max !== undefined && x > d.max) return `${who(i)}: space ${x} is past ${d.max}, the furthest a pawn can reach on this board`;
    }
    const pink = d.pink_from ?? (v.table && v.table.pink_from);
    if (pink && Math.max(...values) < pink) return `No pawn is on a pink space (${pink} or further): the game is not over yet`;
  }
  for (let i = 0; i < values.length; i++) {
    const x = values[i];
    if (d.min !== null && d.min !== undefined && x < d.min) return `${who(i)}: ${minus(x)} is less than ${minus(d.min)}, the least one ${d.unit === "side" ? "side" : "seat"} can score`;
    if (d.max !== null && d.max !== undefined && x > d.max) return `${who(i)}: ${minus(x)} is more than ${d.max}, the most one ${d.unit === "side" ? "side" : "seat"} can score`;
    if (d.step && d.step > 1 && x % d.step !== 0) return `${who(i)}: ${minus(x)} is not a multiple of ${d.step}`;
  }
  if (d.sum !== null && d.sum !== undefined) {
    const s = values.reduce((a, b) => a + b, 0);
    // "Short" toward the deck's total, whichever its sign (Clubs −24 of −26 is 2 short).
    if (s !== d.sum) return `The numbers sum to ${minus(s)}, not ${minus(d.sum)}: ${Math.abs(d.sum - s)} ${Math.abs(s) < Math.abs(d.sum) ? "short" : "too many"}`;
  }
  if (d.nonzero_at_most) {
    const nz = values.filter((x) => x !== 0).length;
    if (nz > d.nonzero_at_most) return `Only one ${d.unit === "side" ? "side" : "player"} can have a plus total: the other scores 0`;
  }
  if (d.field === "positions" && d.tiebreak) {
    const far = Math.max(...values);
    const tied = values.map((x, i) => (x === far ? i : -1)).filter((i) => i >= 0);
    if (tied.length > 1 && !(tiebreak !== null && tied.includes(tiebreak))) return `${tied.map((i) => labels[i]).join(" and ")} tie on space ${far}: choose who wins the tie`;
  }
  return null;
}

/**
 * The pad: one row per seat or side, the derived values live, the refusal before sending, and
 * Send (`send(action)` records `{type: "tally", ...}` as a table action). `state` persists the
 * typed numbers across redraws of the page (app.js keeps it per match version).
 */
export function pad(v, d, state, send) {
  const labels = entriesOf(v, d.unit);
  const n = d.entries || labels.length;
  const names = labels.slice(0, n);
  if (!state.values || state.values.length !== n) {
    state.values = d.field === "markers" ? names.map((_, i) => [...((d.floor || [])[i] || [0, 0, 0, 0, 0])]) : names.map(() => "");
    state.tiebreak = null;
    state.touched = [];
  }
  const box = h("section", { class: "panel tally", id: "tally", "data-field": d.field });
  const live = h("div", { class: "tally-live small", id: "tally-live", role: "status" });
  const refuse = h("div", { class: "msg bad small", id: "tally-refusal", role: "alert" });
  const sendBtn = h("button", { type: "button", id: "tally-send", class: "tally-send" }, "Send");
  const tieBox = h("div", { class: "choices tally-tie", id: "tally-tie" });
  const totals = v.scores.totals || [];
  const title = v.game === "members-only" ? "The heat's markers" : v.game === "by-hook-or-crook" ? "Final positions"
    : v.game === "plus-minus" ? `Game ${roundDue(v)} of ${(v.config || {}).rubber_games ?? 5}` : `Deal ${roundDue(v)}${d.multiplier ? ` · ×${d.multiplier}` : ""}`;

  const values = () => (d.field === "markers" ? state.values.map((r) => [...r]) : state.values.map(parse));
  const update = () => {
    const vals = values();
    const why = refusal(v, d, names, vals, state.tiebreak);
    const complete = d.field === "markers" || vals.every((x) => x !== null);
    const pts = complete && d.field !== "positions" ? roundPoints(v.game, d, vals) : null;
    const bits = [];
    if (d.sum !== null && d.sum !== undefined && d.field === "points" && n > 2) {
      const typed = vals.filter((x) => x !== null);
      const s = typed.reduce((a, b) => a + b, 0);
      if (typed.length === n) bits.push(s === d.sum ? `sum ${minus(s)} ✓` : `sum ${minus(s)}: ${Math.abs(d.sum - s)} ${Math.abs(s) < Math.abs(d.sum) ? "short" : "over"}`);
      else bits.push(`sum so far ${minus(s)} of ${minus(d.sum)}`);
    }
    if (d.multiplier) vals.forEach((x, i) => { if (x !== null && x !== 0) bits.push(`${names[i]}: ${x} × ${d.multiplier} = ${x * d.multiplier}`); });
    if (v.game === "dump") vals.forEach((x, i) => { if (x !== null && x > 80) bits.push(`${names[i]} scores ${x - 80}`); });
    if (v.game === "dump" && vals.every((x) => x === 80)) bits.push("80–80: nobody scores");
    // Members Only's totals are what the markers at 5..10 count now, not a sum of heats.
    const after = pts && !why ? names.map((_, i) => (v.game === "members-only" ? 0 : totals[i] || 0) + pts[i]) : null;
    if (after) bits.push(`totals after: ${names.map((nm, i) => `${nm} ${minus(after[i])}`).join(", ")}`);
    const end = after ? matchEnd(v, after, names, vals) : null;
    if (v.game === "by-hook-or-crook" && complete && !why) {
      const far = Math.max(...vals);
      const win = state.tiebreak !== null && vals[state.tiebreak] === far ? state.tiebreak : vals.indexOf(far);
      bits.push(`${names[win]} wins on space ${far}: the game ends`);
    }
    live.replaceChildren(...bits.map((b) => h("div", {}, b)), end ? h("div", { class: "tally-end", id: "tally-end" }, end) : "");
    // A field still empty is not refused in words (Send waits for it); anything typed is.
    const blank = d.field !== "markers" && state.values.some((x) => String(x).trim() === "");
    const said = blank && why && why.endsWith("enter a whole number") ? null : why;
    refuse.textContent = said || "";
    refuse.hidden = !said;
    sendBtn.disabled = !!why;
    // By Hook or Crook: the furthest tie asks who wins it.
    if (d.field === "positions" && d.tiebreak) {
      const far = complete ? Math.max(...vals) : null;
      const tied = complete ? vals.map((x, i) => (x === far ? i : -1)).filter((i) => i >= 0) : [];
      tieBox.replaceChildren(...(tied.length > 1 ? [h("div", { class: "small" }, "Who wins the tie (the more valuable collection)?"),
        ...tied.map((i) => h("button", { type: "button", class: state.tiebreak === i ? "on" : "", "data-tie": i, onclick: () => { state.tiebreak = i; update(); } }, names[i]))] : []));
    }
  };
  const action = () => {
    const vals = values();
    const a = { type: "tally", [d.field]: vals };
    if (d.field === "positions" && d.tiebreak) {
      const far = Math.max(...vals);
      const tied = vals.map((x, i) => (x === far ? i : -1)).filter((i) => i >= 0);
      if (tied.length > 1) a.tiebreak = [state.tiebreak, ...tied.filter((i) => i !== state.tiebreak)];
    }
    return a;
  };
  const submit = () => {
    update();
    if (sendBtn.disabled) return;
    const a = action();
    state.values = null;
    send(a);
  };
  sendBtn.addEventListener("click", submit);

  const rows = names.map((nm, i) => {
    if (d.field === "markers") {
      return h("div", { class: "tally-row markers", "data-entry": i },
        h("div", { class: "tally-name", title: nm }, nm),
        h("div", { class: "marker-grid" }, MARKERS.map((c, k) => {
          const out = h("span", { class: "marker-val", "data-marker": c }, String(state.values[i][k]));
          return h("div", { class: "marker", "data-marker": c },
            h("span", { class: "marker-name small" }, MARKER_NAMES[c]),
            h("div", { class: "stepper" },
              h("button", { type: "button", class: "secondary", "data-step": "-1", "aria-label": `${nm} ${MARKER_NAMES[c]} back` }, "−"),
              out,
              h("button", { type: "button", class: "secondary", "data-step": "1", "aria-label": `${nm} ${MARKER_NAMES[c]} on` }, "+")));
        })));
    }
    const neg = d.min !== null && d.min !== undefined && d.min < 0;
    const input = h("input", { type: "text", inputmode: neg ? "text" : "numeric", pattern: neg ? "[-−]?[0-9]*" : "[0-9]*",
      class: "tally-input", "data-entry": i, "aria-label": `${nm}: ${d.field === "positions" ? "space" : "points"}`, autocomplete: "off", enterkeyhint: i === names.length - 1 ? "send" : "next" });
    input.value = state.values[i];
    input.addEventListener("input", () => {
      state.values[i] = input.value;
      state.touched[i] = true;
      // Two numbers with a fixed sum (Dump): typing one fills the other.
      if (n === 2 && d.sum !== null && d.sum !== undefined && d.field === "points") {
        const x = parse(input.value), j = 1 - i;
        if (!state.touched[j] || state.autofill === j) {
          state.values[j] = x === null ? "" : String(d.sum - x);
          state.autofill = j;
          const other = box.querySelector(`input[data-entry="${j}"]`);
          if (other) other.value = state.values[j];
        }
      }
      update();
    });
    input.addEventListener("keydown", (e) => {
      if (e.key !== "Enter") return;
      e.preventDefault();
      const next = box.querySelector(`input[data-entry="${i + 1}"]`);
      if (next) next.focus(); else submit();
    });
    const sign = neg ? h("button", { type: "button", class: "secondary tally-sign", "aria-label": `${nm}: change sign` }, "±") : null;
    if (sign) sign.addEventListener("click", () => {
      const t = input.value.trim();
      input.value = /^[-−]/.test(t) ? t.replace(/^[-−]/, "") : `-${t}`;
      input.dispatchEvent(new Event("input"));
      input.focus();
    });
    return h("label", { class: "tally-row", "data-entry": i },
      h("span", { class: "tally-name", title: nm }, nm),
      h("span", { class: "tally-total small muted" }, d.field === "positions" ? "" : minus(totals[i] || 0)),
      sign, input);
  });
  // Stepper buttons: one listener per row (the buttons carry their step).
  for (const row of rows) {
    if (!row.classList.contains("markers")) continue;
    row.querySelectorAll(".marker").forEach((m, k) => {
      const [less, more] = m.querySelectorAll("button");
      const i = Number(row.dataset.entry);
      const out = m.querySelector(".marker-val");
      const step = (by) => {
        const f = ((d.floor || [])[i] || [])[k] || 0;
        state.values[i][k] = Math.min(10, Math.max(f, state.values[i][k] + by));
        out.textContent = String(state.values[i][k]);
        update();
      };
      less.addEventListener("click", () => step(-1));
      more.addEventListener("click", () => step(1));
    });
  }
  box.append(h("h2", {}, `Scores only · ${title}`), h("div", { class: "tally-rows" }, rows), tieBox, live, refuse, h("div", { class: "row" }, sendBtn));
  update();
  return box;
}
