import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { AUTH_CONFIG, bearer, call, createApiKey } from "../access/access-client";
import { expectGatewayError } from "../support/gateway-error";
import { createClient } from "@libsql/client";
import { answerOf, chat, eventually, startWarpTestbed, usableConfig, type WarpTestbed, writeConfig } from "./support";

const DAY_MS = 86_400_000;

/** The gateway's clock (conversation times, retention), moved by hand. */
const clock = { now: Date.UTC(2026, 2, 1, 12, 0, 0), read: () => clock.now };

interface Conversation {
  id: string;
  title: string;
  created_at: string;
  updated_at: string;
  messages?: Array<{ role: string; content: string | null; tool_calls?: unknown[]; tool_call_id?: string }>;
}

let bed: WarpTestbed;
beforeAll(async () => {
  bed = await startWarpTestbed({}, { clock: clock.read });
  await writeConfig(bed.gw, usableConfig());
});
afterAll(() => bed.close());
beforeEach(async () => {
  await bed.gw.admin("/api/warp/conversations", { method: "DELETE" });
  bed.model.script = [];
  bed.model.afterScript = { text: "done" };
  bed.model.chats.length = 0;
});

const list = async (headers?: Record<string, string>) => ((await (await bed.gw.admin("/api/warp/conversations", { headers })).json()) as { conversations: Conversation[]; count: number }).conversations;
const read = async (id: string) => (await (await bed.gw.admin(`/api/warp/conversations/${id}`)).json()) as Conversation;
const ask = async (message: string, conversationId?: string) => {
  const { events } = await chat(bed.gw, { message, ...(conversationId ? { conversation_id: conversationId } : {}) });
  expect(events.at(-1)!.event).toBe("done");
  return String(events[0]!.data.conversation_id);
};

describe("conversations are saved, listed, read and continued", () => {
  test("a turn is saved whole: the question, the tool calls with their results, the answer", async () => {
    bed.model.script = [{ tools: [{ name: "count_logs" }] }, { text: "No requests yet." }];
    const id = await ask("How many requests today?");
    const conversation = await read(id);
    expect(conversation.title).toBe("How many requests today?");
    expect(conversation.messages!.map((message) => message.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(conversation.messages![1]!.tool_calls).toHaveLength(1);
    expect(JSON.parse(conversation.messages![2]!.content!)).toMatchObject({ count: 0 });
    expect(conversation.messages![3]!.content).toBe("No requests yet.");
  });

  test("a continued conversation sends its history to the model and moves to the top of the list", async () => {
    const first = await ask("first question");
    clock.now += 60_000;
    const second = await ask("second question");
    expect((await list()).map((conversation) => conversation.id)).toEqual([second, first]);
    clock.now += 60_000;
    bed.model.script = [{ text: "a follow-up answer" }];
    await ask("follow-up", first);
    const sent = bed.model.chats.at(-1)!.messages.map((message) => [message.role, message.content]);
    expect(sent.slice(1)).toEqual([
      ["user", "first question"],
      ["assistant", "done"],
      ["user", "follow-up"],
    ]);
    const listed = await list();
    expect(listed.map((conversation) => conversation.id)).toEqual([first, second]);
    expect(listed[0]!.updated_at).toBe(new Date(clock.now).toISOString());
    expect((await read(first)).messages!.map((message) => message.content)).toEqual(["first question", "done", "follow-up", "a follow-up answer"]);
  });

  test("a failed turn is not saved", async () => {
    await writeConfig(bed.gw, usableConfig({ request_timeout_seconds: 1 }));
    bed.model.script = [{ hang: true }];
    const id = await ask("will time out");
    expect((await read(id)).messages).toEqual([]);
    await writeConfig(bed.gw, usableConfig());
  });

  test("deleted one by one or all at once; a deleted conversation is a 404 and cannot be continued", async () => {
    const kept = await ask("keep me");
    const dropped = await ask("drop me");
    const deleted = await bed.gw.admin(`/api/warp/conversations/${dropped}`, { method: "DELETE" });
    expect(deleted.status).toBe(200);
    expect((await list()).map((conversation) => conversation.id)).toEqual([kept]);
    await expectGatewayError(await bed.gw.admin(`/api/warp/conversations/${dropped}`), 404);
    await expectGatewayError((await chat(bed.gw, { message: "again", conversation_id: dropped })).response, 404);
    await expectGatewayError(await bed.gw.admin(`/api/warp/conversations/${dropped}`, { method: "DELETE" }), 404);
    const cleared = await bed.gw.admin("/api/warp/conversations", { method: "DELETE" });
    expect(await cleared.json()).toMatchObject({ deleted: 1 });
    expect(await list()).toEqual([]);
  });
});

describe("retention: a conversation goes history_retention_days after its last turn", () => {
  test("past retention it is no longer listed, read or continued; a later turn restarts the count", async () => {
    await writeConfig(bed.gw, usableConfig({ history_retention_days: 2 }));
    const old = await ask("old question");
    clock.now += DAY_MS;
    const recent = await ask("recent question");
    clock.now += DAY_MS + 60_000;
    expect((await list()).map((conversation) => conversation.id)).toEqual([recent]);
    await expectGatewayError(await bed.gw.admin(`/api/warp/conversations/${old}`), 404);
    await expectGatewayError((await chat(bed.gw, { message: "more", conversation_id: old })).response, 404);
    await ask("a new turn", recent);
    clock.now += DAY_MS * 1.5;
    expect((await list()).map((conversation) => conversation.id)).toEqual([recent]);
    await writeConfig(bed.gw, usableConfig());
  });

  test("expired conversations are removed for good: a longer retention does not bring them back", async () => {
    await writeConfig(bed.gw, usableConfig({ history_retention_days: 1 }));
    await ask("to be forgotten");
    clock.now += 2 * DAY_MS;
    await writeConfig(bed.gw, usableConfig({ history_retention_days: 30 }));
    expect(await list()).toEqual([]);
  });

  test("a retention of any length keeps conversations, and the configuration can still be changed afterwards", async () => {
    await writeConfig(bed.gw, usableConfig({ history_retention_days: 1_000_000_000 }));
    const kept = await ask("kept for ever");
    expect((await list()).map((conversation) => conversation.id)).toContain(kept);
    await writeConfig(bed.gw, usableConfig({ history_retention_days: 30 }));
    expect((await list()).map((conversation) => conversation.id)).toContain(kept);
  });

  test("the sweep deletes expired rows from storage", async () => {
    await writeConfig(bed.gw, usableConfig({ history_retention_days: 1 }));
    await ask("to be swept");
    clock.now += 2 * DAY_MS;
    const database = createClient({ url: bed.gw.databaseUrl, timeout: 5_000 });
    const stored = async () => Number((await database.execute("SELECT count(*) AS n FROM warp_conversations")).rows[0]!.n);
    try {
      expect(await stored()).toBe(1);
      // A gateway sweeps right after it starts (and hourly after that).
      const restarted = await bed.gw.restart();
      expect(await eventually(stored, (count) => count === 0)).toBe(0);
      await restarted.stop();
    } finally {
      database.close();
    }
    await writeConfig(bed.gw, usableConfig());
  });
});

describe("conversations are bounded per owner", () => {
  test("starting one more than the cap removes the one whose last turn is oldest", async () => {
    const ids: string[] = [];
    for (let index = 0; index < 101; index++) {
      clock.now += 1_000;
      ids.push(await ask(`question ${index}`));
    }
    const listed = await list();
    expect(listed).toHaveLength(100);
    expect(listed.map((conversation) => conversation.id)).toEqual(ids.slice(1).reverse());
    await expectGatewayError(await bed.gw.admin(`/api/warp/conversations/${ids[0]}`), 404);
  });
});

describe("conversations are private to their owner", () => {
  let enterprise: WarpTestbed;
  beforeAll(async () => {
    enterprise = await startWarpTestbed({ edition: "enterprise", auth: AUTH_CONFIG });
    await writeConfig(enterprise.gw, usableConfig());
  });
  afterAll(() => enterprise.close());

  test("another caller neither lists, reads, continues nor deletes them", async () => {
    const scopes = ["Warp:View", "Warp:Create", "Warp:Delete"];
    const alice = bearer(await createApiKey(enterprise.gw, "alice", scopes));
    const bob = bearer(await createApiKey(enterprise.gw, "bob", scopes));
    const { events } = await chat(enterprise.gw, { message: "alice asks" }, alice);
    expect(answerOf(events)).toBe("done");
    const id = String(events[0]!.data.conversation_id);
    const bobs = await call(enterprise.gw, "/api/warp/conversations", { headers: bob });
    expect(await bobs.json()).toEqual({ conversations: [], count: 0 });
    expect((await call(enterprise.gw, `/api/warp/conversations/${id}`, { headers: bob })).status).toBe(404);
    expect((await chat(enterprise.gw, { message: "bob continues", conversation_id: id }, bob)).response.status).toBe(404);
    expect((await call(enterprise.gw, `/api/warp/conversations/${id}`, { method: "DELETE", headers: bob })).status).toBe(404);
    const alices = (await (await call(enterprise.gw, "/api/warp/conversations", { headers: alice })).json()) as { conversations: Conversation[] };
    expect(alices.conversations.map((conversation) => conversation.id)).toEqual([id]);
  });
});
