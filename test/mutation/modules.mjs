/**
 * The security- and money-critical modules mutation testing covers, each with the test files
 * that cover it: every mutant runs only those (a whole folder would take hours per module).
 * Modules are small so that one runs in minutes; `bun run mutate` with no name runs them all
 * in this order.
 */
export const MODULES = {
  "limits-periods": {
    mutate: ["src/governance/limits/periods.ts"],
    tests: ["test/governance/calendar-windows.test.ts", "test/governance/entities-api.test.ts", "test/governance/budgets-and-rate-limits.test.ts"],
  },
  "routing-selection": {
    mutate: ["src/governance/routing/select-targets.ts", "src/governance/routing/weighted-choice.ts", "src/governance/routing/first-matching-rule.ts"],
    tests: ["test/governance/provider-weights.test.ts", "test/governance/routing-rules.test.ts", "test/governance/key-restrictions.test.ts"],
  },
  "access-routes": {
    mutate: ["src/access/route-access.ts", "src/access/authorize.ts"],
    // Every row of the table, each kind of access: auth-matrix adds credentials, not routes, and triples the time.
    tests: ["test/access/route-permissions.test.ts"],
  },
  "mcp-tool-filter": {
    mutate: ["src/mcp/tools/filter.ts"],
    tests: ["test/mcp/gateway-mcp-server.test.ts", "test/mcp/chat-tools.test.ts", "test/mcp/tool-execute.test.ts"],
  },
  "key-secrets": {
    mutate: ["src/provider-registry/key-secrets.ts"],
    tests: ["test/provider-registry/key-secrets.test.ts"],
  },
  "webhook-signing": {
    mutate: ["src/webhooks/signing.ts"],
    tests: ["test/webhooks/deliveries.test.ts"],
  },
  "outbound-address-classes": {
    mutate: ["src/outbound/address-classes.ts"],
    // The endpoint API classes every kind of address; the outbound policy test and deliveries would add 17 s per mutant.
    tests: ["test/webhooks/endpoints.test.ts"],
  },
  "actors-async-job": {
    mutate: ["actors/async-job.ts"],
    // Cancellation runs through background responses; timers re-armed after a restart, through the restart test.
    tests: ["test/async/job-machine.test.ts", "test/async/async-api.test.ts", "test/async/restart.test.ts", "test/anthropic/background-responses.test.ts"],
  },
  "access-policy": {
    mutate: ["src/governance/access-policy.ts"],
    tests: ["test/governance/key-restrictions.test.ts", "test/governance/model-visibility.test.ts"],
  },
  "a2a-ownership": {
    mutate: ["src/a2a/caller-access.ts", "src/a2a/tasks/task-tracker.ts"],
    // The lifecycle view of a task (its recorded transitions) is read by recorded-paths.
    tests: ["test/a2a/grants.test.ts", "test/a2a/task-listing.test.ts", "test/a2a/task-history.test.ts", "test/lifecycles/recorded-paths.test.ts"],
  },
  // The actors' recorded paths (test/lifecycles) are where their state names and final states show.
  "actors-webhook-delivery": {
    mutate: ["actors/webhook-delivery.ts"],
    tests: ["test/webhooks/delivery-machine.test.ts", "test/webhooks/deliveries.test.ts", "test/lifecycles/recorded-paths.test.ts"],
  },
  "actors-a2a-task": {
    mutate: ["actors/a2a-task.ts"],
    // The machine's id shows only in the lifecycle view's description of it (actors-api).
    tests: ["test/a2a/subscribe.test.ts", "test/a2a/task-history.test.ts", "test/lifecycles/recorded-paths.test.ts", "test/lifecycles/actors-api.test.ts"],
  },
  "actors-per-user-header-flow": {
    mutate: ["actors/per-user-header-flow.ts"],
    tests: ["test/mcp/per-user-header-flow-machine.test.ts", "test/mcp/per-user-headers.test.ts", "test/lifecycles/recorded-paths.test.ts"],
  },
  // Two modules (once one, limits-counters): each with the tests that reach it, in minutes rather than an hour.
  "limits-enforcement": {
    mutate: ["src/governance/limits/enforce-limits.ts", "src/governance/limits/caller-limits.ts", "src/governance/limits/applied-limits.ts"],
    // Reading a video spends nothing (video-refunds); routing rules read how much of a budget is used.
    tests: ["test/governance/budgets-and-rate-limits.test.ts", "test/governance/video-refunds.test.ts", "test/governance/routing-rules.test.ts"],
  },
  "limits-usage-counters": {
    mutate: ["src/governance/limits/usage-counters.ts"],
    // Charges given back (video-refunds) and counters merged between nodes (limits-across-nodes).
    tests: ["test/governance/budgets-and-rate-limits.test.ts", "test/governance/video-refunds.test.ts", "test/governance/limits-across-nodes.test.ts"],
  },
  "routing-conditions": {
    mutate: ["src/governance/routing/cel-conditions.ts"],
    tests: ["test/governance/routing-rules.test.ts"],
  },
  "outbound-host-check": {
    mutate: ["src/outbound/host-check.ts"],
    // system-resolver: the system's resolver and its cache, which the other two replace by a table.
    tests: ["test/webhooks/endpoints.test.ts", "test/outbound/address-policy.test.ts", "test/outbound/system-resolver.test.ts"],
  },
  "access-guard": {
    mutate: ["src/access/guard.ts", "src/access/principal.ts", "src/access/permissions.ts"],
    // env. references in written bodies (env-references), the permission catalogue and role grants (rbac), what a key may grant (api-keys).
    tests: ["test/access/route-permissions.test.ts", "test/access/auth-matrix.test.ts", "test/access/audit-log.test.ts", "test/config/env-references.test.ts", "test/access/rbac.test.ts", "test/access/api-keys.test.ts"],
  },
  "access-credentials": {
    mutate: ["src/access/authenticate.ts", "src/access/sessions.ts", "src/access/tokens.ts", "src/access/passwords.ts", "src/access/setup-lock.ts"],
    // RBAC users' sessions are opened and ended in rbac; who a credential makes the caller shows in session-me.
    tests: ["test/access/auth-matrix.test.ts", "test/access/sessions.test.ts", "test/access/setup-lock.test.ts", "test/access/api-keys.test.ts", "test/access/rbac.test.ts", "test/access/session-me.test.ts"],
  },
};
