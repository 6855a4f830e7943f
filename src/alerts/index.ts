import type { AlertEvaluation } from "../../actors/alert-rule";
import type { Clock } from "../../actors/runtime/clock";
import type { ActorSnapshotStore } from "../../actors/runtime/snapshot-store";
import type { SecretBox } from "../crypto/secret-box";
import type { Database } from "../db/client";
import type { OutboundReach } from "../outbound/reach";
import { AlertChannelStore } from "./channel-store";
import type { ChannelDeps } from "./channels/send";
import { compileCondition } from "./condition";
import { type FigureSources, readFigures } from "./figures";
import { NotificationDeliveries } from "./notification-deliveries";
import { attemptNotification, notifyChannels } from "./notifier";
import { type AlertOperationDeps, forecastsWhere } from "./operations";
import { RuleLifecycles } from "./rule-lifecycle";
import { AlertRuleStore } from "./rule-store";
import { alertRoutes } from "./routes";

export type { BudgetOwner, BudgetReading } from "./forecast";

export interface AlertsOptions {
  db: Database;
  secrets: SecretBox;
  snapshots: ActorSnapshotStore;
  /** Time and timers of the rules' actors (their evaluation interval); tests pass a simulated clock. */
  clock: Clock;
  /** What the figures are read from: the request log, budgets, key breakers, webhook endpoints. */
  sources: FigureSources;
  reach: OutboundReach;
  sendToEndpoint: ChannelDeps["sendToEndpoint"];
  endpointExists(endpointId: string): boolean;
  /** config `alerts.dashboard_url`: where notifications link to. */
  dashboardUrl(): string | undefined;
}

/** One evaluation of a rule: its figures over its scope and window, and whether its condition holds (null when it could not tell). */
async function evaluateRule(rules: AlertRuleStore, sources: FigureSources, clock: Clock, ruleId: string): Promise<AlertEvaluation> {
  const at = clock.now();
  try {
    const rule = await rules.get(ruleId);
    if (!rule) return { holds: null, figures: {}, at };
    const condition = await compileCondition(rule.condition);
    const figures = await readFigures(sources, rule, condition.reads);
    return { holds: condition.holds(figures), figures, at };
  } catch (error) {
    console.error(`alert rule ${ruleId}: evaluation failed; its state stays`, error);
    return { holds: null, figures: {}, at };
  }
}

/**
 * Alert rules and channels: the /api/alerts routes and the rules' actors (`resume` on start,
 * `stop` on shutdown). Nothing runs on the request path: a rule reads its figures when it is
 * evaluated, on the node that runs it.
 */
export function createAlerts(options: AlertsOptions) {
  const rules = new AlertRuleStore(options.db);
  const channels = new AlertChannelStore(options.db, options.secrets);
  const { clock, sources } = options;
  const channelDeps = { reach: options.reach, sendToEndpoint: options.sendToEndpoint, rules, channels, dashboardUrl: options.dashboardUrl, now: () => clock.now() };
  const notifications = new NotificationDeliveries({ snapshots: options.snapshots, clock, attempt: (input) => attemptNotification(channelDeps, input) });
  const lifecycles = new RuleLifecycles({
    snapshots: options.snapshots,
    clock,
    rules,
    evaluate: (ruleId) => evaluateRule(rules, sources, clock, ruleId),
    notify: (status, context, at) => void notifyChannels({ ...channelDeps, notifications }, status, context, at).catch((error) => console.error(`alert rule ${context.ruleId}: notifying failed`, error)),
  });
  const deps: AlertOperationDeps = { ...channelDeps, lifecycles, sources, endpointExists: options.endpointExists };
  return {
    routes: alertRoutes(deps),
    /** The projected exhaustion of the budgets `wanted` picks (governance's replies carry their owner's). */
    forecasts: (wanted: Parameters<typeof forecastsWhere>[1]) => forecastsWhere(sources, wanted),
    resume: async () => {
      await notifications.resume();
      await lifecycles.resume();
    },
    stop: async () => {
      await lifecycles.stop();
      await notifications.stop();
    },
  };
}

export type Alerts = ReturnType<typeof createAlerts>;
