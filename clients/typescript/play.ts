// Plays a full match of every game of the catalogue through a client generated from
// openapi/openapi.json: types by openapi-typescript, requests by openapi-fetch (both pinned,
// scripts/ci-client-ts.sh). Checked by `tsc --strict --noEmit` before it runs: no cast, no `any`,
// no raw JSON. Each view is read through the game's own model, chosen by narrowing the
// documents' `game` discriminator (an exhaustive switch: a game added to the spec without a case
// here fails to compile); each action sent is exactly the object `legal` returned.
//
// Then runs a small quick-log tournament and reads its `results.json` and `bgstats.json` exports
// through their typed models.
//
// Usage: node build/play.js --base-url http://127.0.0.1:PORT [--seed N]

import createClient from "openapi-fetch";
import { createHash } from "node:crypto";
import type { components, paths } from "./generated/schema.js";

type S = components["schemas"];
type MatchView = S["MatchView"];
type GameId = MatchView["game"];
type GameAction = S["GameAction"];

function fail(what: string): never {
  throw new Error(what);
}
function check(cond: boolean, what: string): asserts cond {
  if (!cond) fail(what);
}

const args = process.argv.slice(2);
const arg = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const baseUrl = arg("--base-url") ?? fail("--base-url is required");
let seed = Number(arg("--seed") ?? Math.floor(Math.random() * 2 ** 30));
console.log(`choice seed ${seed}`);
// A small deterministic generator (mulberry32) for the choices.
function random(): number {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
function pick<T>(items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] ?? fail("nothing to pick from");
}

const client = createClient<paths>({ baseUrl });
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

/** The game's own models of a match view, by its discriminator: a compile-time proof that
 *  `game` narrows the view to that game's table, seat, options and score sheet. */
function readView(v: MatchView): { phase: string; totals: number[] } {
  switch (v.game) {
    case "dump": {
      const t: S["DumpTable"] = v.table;
      const c: S["DumpConfig"] = v.config;
      const s: S["DumpScoreSheet"] = v.scores;
      const y: S["DumpSeat"] | null | undefined = v.you;
      check(y === null || y === undefined || y.seat >= 0, "a Dump seat");
      check(c.target !== undefined, "Dump's target is filled in");
      return { phase: String(t.phase), totals: s.totals };
    }
    case "clubs": {
      const t: S["ClubsTable"] = v.table;
      const c: S["ClubsConfig"] = v.config;
      const s: S["ClubsScoreSheet"] = v.scores;
      const y: S["ClubsSeat"] | null | undefined = v.you;
      check(y === null || y === undefined || y.seat >= 0, "a Clubs seat");
      check(c.first_dealer !== undefined, "Clubs' first dealer is filled in");
      return { phase: String(t.phase), totals: s.totals };
    }
    case "bonus-malus": {
      const t: S["BonusMalusTable"] = v.table;
      const c: S["BonusMalusConfig"] = v.config;
      const s: S["BonusMalusScoreSheet"] = v.scores;
      const y: S["BonusMalusSeat"] | null | undefined = v.you;
      check(y === null || y === undefined || y.seat >= 0, "a Bonus-Malus seat");
      check(c.target !== undefined, "Bonus-Malus' target is filled in");
      return { phase: String(t.phase), totals: s.totals };
    }
    case "plus-minus": {
      const t: S["PlusMinusTable"] = v.table;
      const c: S["PlusMinusConfig"] = v.config;
      const s: S["PlusMinusScoreSheet"] = v.scores;
      const y: S["PlusMinusSeat"] | null | undefined = v.you;
      check(y === null || y === undefined || y.seat >= 0, "a P.M. seat");
      check(c.rubber_games !== undefined, "P.M.'s rubber is filled in");
      return { phase: String(t.phase), totals: s.totals };
    }
    case "members-only": {
      const t: S["MembersOnlyTable"] = v.table;
      const c: S["MembersOnlyConfig"] = v.config;
      const s: S["MembersOnlyScoreSheet"] = v.scores;
      const y: S["MembersOnlySeat"] | null | undefined = v.you;
      check(y === null || y === undefined || y.seat >= 0, "a Members Only seat");
      check(c.first_player !== undefined, "Members Only's first player is filled in");
      return { phase: String(t.phase), totals: s.totals };
    }
    case "by-hook-or-crook": {
      const t: S["ByHookOrCrookTable"] = v.table;
      const c: S["ByHookOrCrookConfig"] = v.config;
      const s: S["ByHookOrCrookScoreSheet"] = v.scores;
      const y: S["ByHookOrCrookSeat"] | null | undefined = v.you;
      check(y === null || y === undefined || y.seat >= 0, "a By Hook or Crook seat");
      check(c.collection !== undefined, "By Hook or Crook's collection is filled in");
      return { phase: String(t.phase), totals: s.totals };
    }
    default: {
      const unknown: never = v;
      return fail(`a game this client does not know: ${JSON.stringify(unknown)}`);
    }
  }
}

/** A new match's body, the game's own options model each (short matches). */
function createBody(game: GameId, players: S["NewPlayer"][]): S["CreateMatch"] {
  const dealing: S["Dealing"] = "service";
  switch (game) {
    case "dump":
      return { game, players, dealing, config: { target: 1 } };
    case "bonus-malus":
      return { game, players, dealing, config: { target: 1 } };
    case "plus-minus":
      return { game, players, dealing, config: { rubber_games: 1 } };
    case "clubs":
      return { game, players, dealing, config: { first_dealer: 0 } };
    case "members-only":
      return { game, players, dealing, config: { first_player: 0 } };
    case "by-hook-or-crook":
      return { game, players, dealing, config: {} };
    default: {
      const unknown: never = game;
      return fail(`a game this client does not know: ${String(unknown)}`);
    }
  }
}

async function view(id: string, token: string, game: GameId): Promise<MatchView> {
  const { data, error } = await client.GET("/v1/matches/{id}", {
    params: { path: { id } },
    headers: bearer(token),
  });
  if (data === undefined) fail(`GET match: ${JSON.stringify(error)}`);
  check(data.game === game, `the view is ${game}'s, not ${data.game}'s`);
  readView(data);
  return data;
}

async function legalActions(id: string, token: string, seat: number | null, game: GameId): Promise<GameAction[]> {
  const { data, error } = await client.GET("/v1/matches/{id}/legal", {
    params: { path: { id }, query: seat === null ? {} : { seat } },
    headers: bearer(token),
  });
  if (data === undefined) fail(`legal: ${JSON.stringify(error)}`);
  check(data.game === game, `legal is ${game}'s, not ${data.game}'s`);
  // Each game's legal list holds that game's actions, which the request body takes as they are.
  const actions: GameAction[] = data.actions;
  return actions;
}

async function act(id: string, token: string, seat: number | null, action: GameAction, game: GameId): Promise<void> {
  const { data, error } = await client.POST("/v1/matches/{id}/actions", {
    params: { path: { id } },
    headers: bearer(token),
    body: { seat, action },
  });
  if (data === undefined) fail(`${game}: seat ${seat} ${action.type}: ${JSON.stringify(error)}`);
  check("match" in data, "the full answer (no Prefer) holds the match");
  check(data.event.game === game && data.match.game === game, "the answer is the game's");
  readView(data.match);
}

async function checkLog(id: string, token: string, game: GameId): Promise<number> {
  let after = 0;
  let events = 0;
  for (;;) {
    const { data, error } = await client.GET("/v1/matches/{id}/events", {
      params: { path: { id }, query: { after } },
      headers: bearer(token),
    });
    if (data === undefined) fail(`events: ${JSON.stringify(error)}`);
    for (const e of data.events) {
      check(e.game === game, `an event of ${game}`);
      for (const o of e.outcome) check(typeof o.type === "string", "an outcome has its type");
      if (typeof e.seed === "string" && typeof e.commitment === "string") {
        const digest = createHash("sha256").update(Buffer.from(e.seed, "hex")).digest("hex");
        check(digest === e.commitment, `event ${e.seq}: the seed matches its commitment`);
      }
      events += 1;
    }
    if (data.next_after === null || data.next_after === undefined) return events;
    after = data.next_after;
  }
}

async function checkSheet(id: string, game: GameId): Promise<S["ScoreSheet"]> {
  const { data, error } = await client.GET("/v1/matches/{id}/scores", { params: { path: { id } } });
  if (data === undefined) fail(`scores: ${JSON.stringify(error)}`);
  // The operation answers CSV too (`Accept: text/csv`); JSON unless asked.
  if (typeof data === "string") fail("scores: JSON was expected");
  check(data.game === game, "the sheet is the game's");
  check(data.finished, "the sheet says finished");
  const sums = data.totals.map(() => 0);
  for (const r of data.rounds) r.points.forEach((p, i) => (sums[i] = (sums[i] ?? 0) + p));
  if (game !== "members-only") {
    check(JSON.stringify(sums) === JSON.stringify(data.totals), `totals ${data.totals} are the sums ${sums}`);
  }
  const best = Math.max(...data.totals);
  check(data.winners.length > 0 && data.winners.every((w) => data.totals[w] === best), "the winners hold the best total");
  return data;
}

async function playGame(info: S["GameInfo"]): Promise<string> {
  const game: string = info.id;
  const known: GameId[] = ["dump", "clubs", "bonus-malus", "plus-minus", "members-only", "by-hook-or-crook"];
  const id0 = known.find((g) => g === game) ?? fail(`a game this client does not know: ${game}`);
  const count = id0 === "by-hook-or-crook" ? 3 : info.min_players <= 4 && 4 <= info.max_players ? 4 : info.min_players;
  const players = ["Ada", "Ben", "Cy", "Di", "Eve"].slice(0, count).map((name) => ({ name }));
  const { data: created, error } = await client.POST("/v1/matches", { body: createBody(id0, players) });
  if (created === undefined) fail(`create ${game}: ${JSON.stringify(error)}`);
  const id = created.match.id;
  const host = created.host_token;
  const seats = created.seat_tokens;
  check(seats.length === count, "a token per seat");
  let actions = 0;
  for (;;) {
    check(actions < 3000, `${game} ends within 3000 actions`);
    const v = await view(id, host, id0);
    if (v.status === "finished") break;
    if (v.table_to_act) {
      const legal = await legalActions(id, host, null, id0);
      if (legal.length > 0) {
        await act(id, host, null, pick(legal), id0);
        actions += 1;
        continue;
      }
    }
    let acted = false;
    for (const seat of v.to_act) {
      const token = seats[seat] ?? fail(`no token for seat ${seat}`);
      const mine = await view(id, token, id0);
      check(mine.you !== null && mine.you !== undefined, `seat ${seat} sees its own state`);
      const legal = await legalActions(id, token, seat, id0);
      if (legal.length > 0) {
        await act(id, token, seat, pick(legal), id0);
        actions += 1;
        acted = true;
      }
    }
    check(acted, `${game}: someone may act`);
  }
  const events = await checkLog(id, host, id0);
  const sheet = await checkSheet(id, id0);
  return `${game}: finished in ${actions} actions, ${sheet.rounds.length} rounds, ${events} events, totals ${JSON.stringify(sheet.totals)}, winners ${JSON.stringify(sheet.winners)}`;
}

/** A quick-log Dump round robin of four: created, round 1 paired, both tables' results entered,
 *  then the JSON exports read through their own models (`ResultsExport`, `BgStatsExport`). */
async function runTournament(): Promise<string> {
  const body: S["CreateTournament"] = {
    name: "TypeScript night",
    game: "dump",
    format: "round_robin",
    table_size: 2,
    record: "totals",
    players: ["Ada", "Ben", "Cy", "Di"].map((name) => ({ name })),
  };
  const { data: created, error } = await client.POST("/v1/tournaments", { body });
  if (created === undefined) fail(`create the tournament: ${JSON.stringify(error)}`);
  const id = created.tournament.id;
  const org = created.organiser_token;
  const { data: round, error: pairError } = await client.POST("/v1/tournaments/{id}/rounds", {
    params: { path: { id } },
    headers: bearer(org),
  });
  if (round === undefined) fail(`pair round 1: ${JSON.stringify(pairError)}`);
  check(round.tables.length === 2, "two tables of two");
  for (const table of [1, 2]) {
    const { data, error: entryError } = await client.PUT("/v1/tournaments/{id}/rounds/{round}/tables/{table}/result", {
      params: { path: { id, round: 1, table } },
      headers: bearer(org),
      body: { deals: [[40, 0], [0, 20], [70, 0]] },
    });
    if (data === undefined) fail(`enter table ${table}: ${JSON.stringify(entryError)}`);
  }
  const { data: results, error: resultsError } = await client.GET("/v1/tournaments/{id}/export/results.json", {
    params: { path: { id } },
  });
  if (results === undefined) fail(`results.json: ${JSON.stringify(resultsError)}`);
  const rx: S["ResultsExport"] = results;
  check(!rx.duplicate && rx.results.length === 2, "results.json: two results, not duplicate");
  for (const r of rx.results) {
    const source: S["ResultSource"] = r.source;
    check(source === "totals", "entered by the quick log");
    check(JSON.stringify(r.totals) === "[110,20]", `totals ${JSON.stringify(r.totals)}`);
    const first = r.seats[0] ?? fail("a first seat");
    check(r.seats.length === 2 && first.winner && first.total === 110, "seat 0 won with 110");
  }
  const { data: bg, error: bgError } = await client.GET("/v1/tournaments/{id}/export/bgstats.json", {
    params: { path: { id } },
  });
  if (bg === undefined) fail(`bgstats.json: ${JSON.stringify(bgError)}`);
  const b: S["BgStatsExport"] = bg;
  check(b.plays.length === 2 && b.players.length === 4 && b.games.length === 1, "bgstats.json: two plays, four players");
  for (const play of b.plays) {
    const scores: S["BgStatsScore"][] = play.playerScores;
    check(scores.filter((sc) => sc.winner).map((sc) => sc.score).join() === "110", "the winner scored 110");
    check(scores.every((sc) => b.players.some((p) => p.id === sc.playerRefId)), "scores name exported players");
  }
  return `tournament: round robin of 4, round 1 entered; results.json ${rx.results.length} results, bgstats.json ${b.plays.length} plays`;
}

async function main(): Promise<void> {
  const { data: games, error } = await client.GET("/v1/games");
  if (games === undefined) fail(`games: ${JSON.stringify(error)}`);
  for (const info of games) {
    const started = Date.now();
    console.log(`${await playGame(info)} (${((Date.now() - started) / 1000).toFixed(1)}s)`);
  }
  console.log(`played ${games.length} games through the generated TypeScript client`);
  console.log(await runTournament());
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.stack : e);
  process.exit(1);
});
