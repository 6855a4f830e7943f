import { type Static, Type as t } from "@sinclair/typebox";
import { BudgetForecast } from "../budget-forecast/schema";
import { ALERT_CHANNEL_TYPES, ALERT_SCOPES, ALERT_SEVERITIES, ALERT_STATES } from "../db/schema/alerts";
import { literals } from "../db/schema/types";
import { Timestamp } from "../http/replies";
import { PERIOD_PATTERN } from "../logs/time-window";

const Seconds = (description: string, minimum = 0) => t.Integer({ minimum, maximum: 31_536_000, description });

const RuleFields = {
  name: t.String({ minLength: 1, maxLength: 200 }),
  condition: t.String({ minLength: 1, maxLength: 2_000, description: "A CEL expression over the figures (GET /api/alerts/figures), e.g. `requests > 20 && error_rate > 0.05`." }),
  window: t.String({ pattern: PERIOD_PATTERN, description: "The window the request figures are read over, ending at each evaluation: 5m, 1h, 1d..." }),
  interval_seconds: Seconds("How often the rule is evaluated.", 1),
  for_seconds: Seconds("How long the condition must hold before the rule fires; 0 fires at once."),
  cooldown_seconds: Seconds("After resolving, how long the rule stays resolved before it may fire again."),
  severity: literals(ALERT_SEVERITIES),
  scope: literals(ALERT_SCOPES, { description: "What the figures are read over: everything, or one provider, model, virtual key, team or customer (named by `scope_id`)." }),
  scope_id: t.Union([t.String({ minLength: 1 }), t.Null()]),
  channel_ids: t.Array(t.String(), { maxItems: 20, description: "The channels notified when the rule fires and resolves." }),
  enabled: t.Boolean(),
};

export const RuleCreate = t.Object(
  {
    name: RuleFields.name,
    condition: RuleFields.condition,
    window: t.Optional(RuleFields.window),
    interval_seconds: t.Optional(RuleFields.interval_seconds),
    for_seconds: t.Optional(RuleFields.for_seconds),
    cooldown_seconds: t.Optional(RuleFields.cooldown_seconds),
    severity: t.Optional(RuleFields.severity),
    scope: t.Optional(RuleFields.scope),
    scope_id: t.Optional(RuleFields.scope_id),
    channel_ids: t.Optional(RuleFields.channel_ids),
    enabled: t.Optional(RuleFields.enabled),
  },
  { additionalProperties: false },
);
export type RuleCreate = Static<typeof RuleCreate>;

export const RuleUpdate = t.Partial(RuleCreate, { additionalProperties: false });
export type RuleUpdate = Static<typeof RuleUpdate>;

export const BuiltinEnable = t.Object(
  { scope: t.Optional(RuleFields.scope), scope_id: t.Optional(RuleFields.scope_id), channel_ids: t.Optional(RuleFields.channel_ids) },
  { additionalProperties: false },
);

export const SilenceBody = t.Object({ until: t.String({ format: "date-time", description: "No notification is sent before this time." }) }, { additionalProperties: false });

export const IdParams = t.Object({ id: t.String() });
export const NameParams = t.Object({ name: t.String() });

const Smtp = t.Object(
  {
    host: t.String({ minLength: 1 }),
    port: t.Integer({ minimum: 1, maximum: 65_535 }),
    secure: t.Optional(t.Boolean({ description: "TLS from the start (port 465); otherwise STARTTLS when the server offers it." })),
    username: t.Optional(t.String()),
    password: t.Optional(t.String({ description: "Kept sealed; never answered." })),
    from: t.String({ minLength: 3 }),
    to: t.Array(t.String({ minLength: 3 }), { minItems: 1, maxItems: 50 }),
  },
  { additionalProperties: false },
);

export const ChannelCreate = t.Object(
  {
    name: t.String({ minLength: 1, maxLength: 200 }),
    type: literals(ALERT_CHANNEL_TYPES),
    webhook_url: t.Optional(t.String({ description: "slack, teams: the incoming-webhook (Slack) or workflow (Teams) URL. Kept sealed; never answered." })),
    routing_key: t.Optional(t.String({ minLength: 1, description: "pagerduty: the integration's routing key. Kept sealed; never answered." })),
    events_url: t.Optional(t.String({ description: "pagerduty: the Events API v2 URL (default https://events.pagerduty.com/v2/enqueue)." })),
    smtp: t.Optional(Smtp),
    endpoint_id: t.Optional(t.String({ description: "webhook: the id of a registered webhook endpoint; its messages are signed as all its deliveries." })),
    allow_private_network: t.Optional(t.Boolean({ description: "Let the channel reach loopback and private addresses (the admin's to turn on)." })),
  },
  { additionalProperties: false },
);
export type ChannelCreate = Static<typeof ChannelCreate>;

export const ChannelUpdate = t.Partial(t.Omit(ChannelCreate, ["type"]), { additionalProperties: false });
export type ChannelUpdate = Static<typeof ChannelUpdate>;

// Replies.

const When = t.Union([Timestamp, t.Null()]);

export const RuleReply = t.Object(
  {
    id: t.String(),
    ...RuleFields,
    builtin: t.Union([t.String(), t.Null()]),
    state: literals(ALERT_STATES, { description: "ok, pending (holds, not yet for `for_seconds`), firing, resolved." }),
    acknowledged: t.Boolean(),
    state_since: When,
    last_evaluated_at: When,
    figures: t.Record(t.String(), t.Number(), { description: "What the last evaluation read." }),
    silenced_until: When,
    acknowledged_by: t.Union([t.String(), t.Null()]),
    acknowledged_at: When,
    logs_url: t.String({ description: "The dashboard's logs, filtered to the rule's scope." }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { description: "An alert rule and where its lifecycle stands." },
);
export const RuleList = t.Object({ rules: t.Array(RuleReply), count: t.Integer() });

export const HistoryEntry = t.Object({
  at: Timestamp,
  from: t.Union([t.String(), t.Null()]),
  to: t.String(),
  figures: t.Union([t.Record(t.String(), t.Number()), t.Null()]),
  note: t.Union([t.String(), t.Null()]),
});
export const HistoryList = t.Object({ history: t.Array(HistoryEntry), count: t.Integer() });

export const ChannelReply = t.Object(
  {
    id: t.String(),
    name: t.String(),
    type: literals(ALERT_CHANNEL_TYPES),
    target: t.String({ description: "Where it sends, without its secret: a host, an endpoint's name, mail recipients." }),
    events_url: t.Optional(t.String()),
    smtp: t.Optional(t.Omit(Smtp, ["password"])),
    endpoint_id: t.Optional(t.String()),
    allow_private_network: t.Boolean(),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { description: "A notification channel; never its webhook URL, routing key or password." },
);
export const ChannelList = t.Object({ channels: t.Array(ChannelReply), count: t.Integer() });

export const ChannelTestResult = t.Object({ delivered: t.Boolean(), detail: t.String({ description: "What the receiver answered, or why it could not be reached." }) });

export const FigureList = t.Object({ figures: t.Array(t.Object({ name: t.String(), description: t.String() })) });

export const BuiltinList = t.Object({
  builtins: t.Array(t.Object({ name: t.String(), description: t.String(), rule: t.Omit(RuleCreate, ["channel_ids", "enabled"]) })),
});

export const ForecastList = t.Object({ forecasts: t.Array(BudgetForecast), count: t.Integer() });
export const ForecastQuery = t.Object({
  level: t.Optional(t.Union([t.Literal("virtual_key"), t.Literal("team"), t.Literal("customer"), t.Literal("provider_config")])),
  owner_id: t.Optional(t.String()),
});
