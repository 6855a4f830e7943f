import { Elysia } from "elysia";
import { principalOf } from "../access";
import { Deleted, replies } from "../http/replies";
import { parseTimestamp } from "../http/timestamps";
import { checkPrivateOptIn } from "../outbound/reach";
import { BUILTIN_RULES } from "./builtins";
import { FIGURES } from "./figures";
import { logsUrlOf } from "./notifier";
import * as operations from "./operations";
import type { AlertRule } from "./rule-store";
import {
  BuiltinEnable,
  BuiltinList,
  ChannelCreate,
  ChannelList,
  ChannelReply,
  ChannelTestResult,
  ChannelUpdate,
  FigureList,
  ForecastList,
  ForecastQuery,
  HistoryList,
  IdParams,
  NameParams,
  RuleCreate,
  RuleList,
  RuleReply,
  RuleUpdate,
  SilenceBody,
} from "./schemas";
import { channelView, ruleView } from "./views";
import { Type as t } from "@sinclair/typebox";

const Queued = t.Object({ message: t.String() });
const Preview = t.Object({ holds: t.Boolean(), figures: t.Record(t.String(), t.Number()) });

/** Loopback and private channel addresses are the admin's to allow (or anyone's, where the configuration says so). */
function checkOptIn(request: Request, body: { allow_private_network?: boolean }, deps: operations.AlertOperationDeps): void {
  if (body.allow_private_network === true) checkPrivateOptIn(principalOf(request), deps.reach, "allow_private_network");
}

/** /api/alerts: rules, their lifecycle (evaluate, silence, acknowledge, history), channels, built-ins and budget forecasts. */
export function alertRoutes(deps: operations.AlertOperationDeps) {
  const view = (rule: AlertRule) => ruleView(rule, logsUrlOf(deps, rule, rule.stateSince?.getTime() ?? deps.now(), deps.now()));
  const rules = new Elysia()
    .get("/figures", () => ({ figures: Object.entries(FIGURES).map(([name, description]) => ({ name, description })) }), replies({ 200: FigureList }, { summary: "List the figures alert conditions read" }))
    .get("/rules", async () => {
      const views = (await deps.rules.list()).map(view);
      return { rules: views, count: views.length };
    }, replies({ 200: RuleList }, { summary: "List alert rules", description: "Every rule with where its lifecycle stands." }))
    .post("/rules", async ({ body, set }) => {
      set.status = 201;
      return view(await operations.createRule(deps, body));
    }, { body: RuleCreate, ...replies({ 201: RuleReply }, { summary: "Create an alert rule", description: "A 400 names `condition` when it is not a boolean CEL expression over the figures." }) })
    .get("/rules/:id", async ({ params }) => view(await deps.rules.require(params.id)), { params: IdParams, ...replies({ 200: RuleReply }, { summary: "Get an alert rule" }) })
    .put("/rules/:id", async ({ params, body }) => view(await operations.updateRule(deps, params.id, body)), { params: IdParams, body: RuleUpdate, ...replies({ 200: RuleReply }, { summary: "Update an alert rule" }) })
    .delete("/rules/:id", async ({ params }) => {
      await operations.removeRule(deps, params.id);
      return { message: "Alert rule deleted successfully" };
    }, { params: IdParams, ...replies({ 200: Deleted }, { summary: "Delete an alert rule" }) })
    .get("/rules/:id/history", async ({ params }) => {
      await deps.rules.require(params.id);
      const history = (await deps.rules.history(params.id)).map((row) => ({ at: row.at.toISOString(), from: row.fromState, to: row.toState, figures: row.figures, note: row.note }));
      return { history, count: history.length };
    }, { params: IdParams, ...replies({ 200: HistoryList }, { summary: "A rule's history", description: "Its changes of state and its notifications, newest first (the last 100)." }) })
    .get("/rules/:id/preview", ({ params }) => operations.previewRule(deps, params.id), { params: IdParams, ...replies({ 200: Preview }, { summary: "Read a rule's figures now", description: "The figures its condition reads and whether it holds, without changing its state." }) });
  const lifecycle = new Elysia()
    .post("/rules/:id/evaluate", async ({ params, set }) => {
      await operations.tellRule(deps, params.id, { type: "evaluate" });
      set.status = 202;
      return { message: "Evaluation queued" };
    }, { params: IdParams, ...replies({ 202: Queued }, { summary: "Evaluate an alert rule now", description: "On the node that runs the rule; its state and history show the outcome." }) })
    .post("/rules/:id/silence", async ({ params, body }) => {
      await operations.tellRule(deps, params.id, { type: "silence", until: parseTimestamp(body.until).getTime() });
      return { message: `Silenced until ${body.until}` };
    }, { params: IdParams, body: SilenceBody, ...replies({ 200: Queued }, { summary: "Silence an alert rule", description: "It still changes state, but sends no notification until `until`." }) })
    .delete("/rules/:id/silence", async ({ params }) => {
      await operations.tellRule(deps, params.id, { type: "unsilence" });
      return { message: "Silence lifted" };
    }, { params: IdParams, ...replies({ 200: Queued }, { summary: "Lift an alert rule's silence" }) })
    .post("/rules/:id/acknowledge", async ({ params, request }) => {
      const principal = principalOf(request);
      await operations.tellRule(deps, params.id, { type: "acknowledge", by: `${principal.type}:${principal.id}` });
      return { message: "Acknowledged" };
    }, { params: IdParams, ...replies({ 200: Queued }, { summary: "Acknowledge a firing alert", description: "409 when the rule is not firing." }) });
  const builtins = new Elysia()
    .get("/builtins", () => ({ builtins: Object.entries(BUILTIN_RULES).map(([name, { description, rule }]) => ({ name, description, rule })) }), replies({ 200: BuiltinList }, { summary: "List the built-in alert rules" }))
    .post("/builtins/:name", async ({ params, body, set }) => {
      set.status = 201;
      return view(await operations.enableBuiltin(deps, params.name, body));
    }, { params: NameParams, body: BuiltinEnable, ...replies({ 201: RuleReply }, { summary: "Enable a built-in alert rule", description: "Creates a rule from it, for a scope and channels when given." }) });
  const channels = new Elysia()
    .get("/channels", async () => {
      const views = (await deps.channels.list()).map(channelView);
      return { channels: views, count: views.length };
    }, replies({ 200: ChannelList }, { summary: "List alert channels", description: "Never a webhook URL, routing key or password." }))
    .post("/channels", async ({ body, set, request }) => {
      checkOptIn(request, body, deps);
      set.status = 201;
      return channelView(await operations.createChannel(deps, body));
    }, { body: ChannelCreate, ...replies({ 201: ChannelReply }, { summary: "Create an alert channel" }) })
    .get("/channels/:id", async ({ params }) => channelView(await deps.channels.require(params.id)), { params: IdParams, ...replies({ 200: ChannelReply }, { summary: "Get an alert channel" }) })
    .put("/channels/:id", async ({ params, body, request }) => {
      checkOptIn(request, body, deps);
      return channelView(await operations.updateChannel(deps, params.id, body));
    }, { params: IdParams, body: ChannelUpdate, ...replies({ 200: ChannelReply }, { summary: "Update an alert channel", description: "A secret not given keeps its value." }) })
    .delete("/channels/:id", async ({ params }) => {
      await deps.channels.remove(params.id);
      return { message: "Alert channel deleted successfully" };
    }, { params: IdParams, ...replies({ 200: Deleted }, { summary: "Delete an alert channel", description: "409 while a rule notifies it." }) })
    .post("/channels/:id/test", ({ params }) => operations.testChannel(deps, params.id), { params: IdParams, ...replies({ 200: ChannelTestResult }, { summary: "Send a test notification", description: "Answers what the receiver said." }) });
  const forecast = new Elysia().get("/forecast", async ({ query }) => {
    const forecasts = await operations.forecasts(deps, query);
    return { forecasts, count: forecasts.length };
  }, { query: ForecastQuery, ...replies({ 200: ForecastList }, { summary: "Budgets' projected exhaustion", description: "For each budget, when it runs out at the last hour's and the last day's rate of spend." }) });
  return new Elysia({ name: "alerts", prefix: "/api/alerts" }).use(rules).use(lifecycle).use(builtins).use(channels).use(forecast);
}
