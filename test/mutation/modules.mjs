/**
 * The security- and money-critical modules mutation testing covers, each with the test files
 * that cover it: every mutant runs only those (a whole folder would take hours per module).
 * Keep a module's test list to the files that exercise it through HTTP or its machine.
 */
export const MODULES = {
  "access-routes": {
    mutate: ["src/access/route-access.ts", "src/access/authorize.ts", "src/access/guard.ts", "src/access/principal.ts"],
    tests: ["test/access/route-permissions.test.ts", "test/access/auth-matrix.test.ts"],
  },
  "access-credentials": {
    mutate: ["src/access/authenticate.ts", "src/access/sessions.ts", "src/access/tokens.ts", "src/access/passwords.ts", "src/access/setup-lock.ts", "src/access/permissions.ts"],
    tests: ["test/access/auth-matrix.test.ts", "test/access/sessions.test.ts", "test/access/setup-lock.test.ts", "test/access/api-keys.test.ts"],
  },
  "governance-limits": {
    mutate: ["src/governance/limits/periods.ts", "src/governance/limits/usage-counters.ts", "src/governance/limits/enforce-limits.ts", "src/governance/limits/caller-limits.ts", "src/governance/limits/applied-limits.ts"],
    tests: ["test/governance/calendar-windows.test.ts", "test/governance/budgets-and-rate-limits.test.ts"],
  },
  "access-policy": {
    mutate: ["src/governance/access-policy.ts"],
    tests: ["test/governance/key-restrictions.test.ts", "test/governance/model-visibility.test.ts"],
  },
  routing: {
    mutate: ["src/governance/routing/*.ts"],
    tests: ["test/governance/routing-rules.test.ts", "test/governance/provider-weights.test.ts", "test/governance/key-restrictions.test.ts"],
  },
  "webhook-signing-and-address-guard": {
    mutate: ["src/webhooks/signing.ts", "src/webhooks/address-guard.ts", "src/webhooks/host-resolver.ts"],
    tests: ["test/webhooks/deliveries.test.ts", "test/webhooks/endpoints.test.ts"],
  },
  "key-secrets": {
    mutate: ["src/provider-registry/key-secrets.ts"],
    tests: ["test/provider-registry/key-secrets.test.ts"],
  },
  "mcp-tool-filter": {
    mutate: ["src/mcp/tools/filter.ts"],
    tests: ["test/mcp/gateway-mcp-server.test.ts", "test/mcp/chat-tools.test.ts", "test/mcp/tool-execute.test.ts"],
  },
  "a2a-ownership": {
    mutate: ["src/a2a/caller-access.ts", "src/a2a/tasks/task-tracker.ts"],
    tests: ["test/a2a/grants.test.ts", "test/a2a/task-listing.test.ts", "test/a2a/task-history.test.ts"],
  },
  actors: {
    mutate: ["actors/*.ts"],
    tests: ["test/async/job-machine.test.ts", "test/webhooks/delivery-machine.test.ts", "test/mcp/per-user-header-flow-machine.test.ts", "test/async/async-api.test.ts", "test/a2a/subscribe.test.ts"],
  },
};
