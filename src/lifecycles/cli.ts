/**
 * `bun run actors`: counts of a running gateway's actors per kind and state;
 * `bun run actors -- <id>`: one actor's timeline. Reads GATEWAY_URL (default
 * http://127.0.0.1:8080) and GATEWAY_API_KEY or GATEWAY_SETUP_TOKEN from the environment.
 */
import { ACTOR_KINDS } from "../../actors/machines";
import { SETUP_TOKEN_HEADER } from "../access/setup-lock";
import { type CountRow, countsTable, type TimelineActor, timeline } from "./terminal-view";

const base = (process.env.GATEWAY_URL || "http://127.0.0.1:8080").replace(/\/$/, "");

function credentials(): Record<string, string> {
  if (process.env.GATEWAY_API_KEY) return { authorization: `Bearer ${process.env.GATEWAY_API_KEY}` };
  if (process.env.GATEWAY_SETUP_TOKEN) return { [SETUP_TOKEN_HEADER]: process.env.GATEWAY_SETUP_TOKEN };
  return {};
}

async function get(path: string): Promise<Response> {
  const response = await fetch(`${base}${path}`, { headers: credentials() });
  if (response.ok || response.status === 404) return response;
  const body = await response.text();
  throw new Error(`${path} answered ${response.status}: ${body}`);
}

/** The actor with this id, whichever its kind. */
async function findActor(id: string): Promise<TimelineActor | undefined> {
  for (const kind of ACTOR_KINDS) {
    const response = await get(`/api/actors/${kind}/${encodeURIComponent(id)}`);
    if (response.status === 200) return (await response.json()) as TimelineActor;
    await response.arrayBuffer();
  }
  return undefined;
}

async function main(): Promise<number> {
  const id = process.argv.slice(2).find((arg) => arg !== "--");
  if (!id) {
    const { counts } = (await (await get("/api/actors/counts")).json()) as { counts: CountRow[] };
    console.log(countsTable(counts));
    return 0;
  }
  const actor = await findActor(id);
  if (!actor) {
    console.error(`no actor has the id '${id}'`);
    return 1;
  }
  console.log(timeline(actor));
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(2);
  },
);
