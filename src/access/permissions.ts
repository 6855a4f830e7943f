import { badRequest } from "../http/errors";

/**
 * The permission catalogue: `Resource:Operation` pairs with stable integer ids.
 * An id is the resource's base plus the operation's offset (View 1, Create 2, Update 3,
 * Delete 4, Edit 5, Deploy 6), so adding a resource or an operation never renumbers an existing permission.
 * New resources take the next free base; bases are never reused.
 */
const OPERATION_OFFSET = { View: 1, Create: 2, Update: 3, Delete: 4, Edit: 5, Deploy: 6 } as const;
export type Operation = keyof typeof OPERATION_OFFSET;

const RESOURCES = [
  { resource: "Dashboard", base: 100, operations: ["View"] },
  { resource: "Logs", base: 200, operations: ["View", "Delete"] },
  { resource: "MCPLogs", base: 300, operations: ["View"] },
  { resource: "ModelProvider", base: 400, operations: ["View", "Create", "Update", "Delete"] },
  { resource: "Plugins", base: 500, operations: ["View", "Create", "Update", "Delete"] },
  { resource: "Teams", base: 600, operations: ["View", "Create", "Update", "Delete"] },
  { resource: "Customers", base: 700, operations: ["View", "Create", "Update", "Delete"] },
  { resource: "VirtualKeys", base: 800, operations: ["View", "Create", "Update", "Delete"] },
  { resource: "Budgets", base: 900, operations: ["View", "Update"] },
  { resource: "RateLimits", base: 1000, operations: ["View", "Update"] },
  { resource: "RoutingRules", base: 1100, operations: ["View", "Create", "Update", "Delete"] },
  { resource: "PricingOverrides", base: 1200, operations: ["View", "Create", "Update", "Delete"] },
  { resource: "AuditLogs", base: 1300, operations: ["View"] },
  { resource: "Webhooks", base: 1400, operations: ["View", "Create", "Update", "Delete"] },
  { resource: "Warp", base: 1500, operations: ["View", "Create", "Update", "Delete"] },
  { resource: "APIKeys", base: 1600, operations: ["View", "Create", "Update", "Delete"] },
  { resource: "Roles", base: 1700, operations: ["View", "Create", "Update", "Delete"] },
  { resource: "Users", base: 1800, operations: ["View", "Create", "Update", "Delete"] },
  { resource: "MCP", base: 1900, operations: ["View", "Create", "Update", "Delete"] },
  { resource: "Agents", base: 2000, operations: ["View", "Create", "Update", "Delete"] },
  { resource: "Cache", base: 2100, operations: ["Delete"] },
  { resource: "Config", base: 2200, operations: ["View", "Update"] },
  { resource: "Actors", base: 2300, operations: ["View"] },
  { resource: "Guardrails", base: 2400, operations: ["View", "Create", "Update", "Delete"] },
  { resource: "Playground", base: 2500, operations: ["View", "Create"] },
  { resource: "Alerts", base: 2600, operations: ["View", "Create", "Update", "Delete"] },
  // Edit writes prompts and their versions; Deploy moves the labels runs choose versions by.
  { resource: "Prompts", base: 2700, operations: ["View", "Edit", "Deploy"] },
  { resource: "MCPVirtualServers", base: 2800, operations: ["View", "Create", "Update", "Delete"] },
  { resource: "LogSinks", base: 2900, operations: ["View", "Create", "Update", "Delete"] },
] as const;

type ResourceEntry = (typeof RESOURCES)[number];
export type Resource = ResourceEntry["resource"];
/** Only the pairs the catalogue lists, e.g. `"Logs:Delete"` but not `"Dashboard:Delete"`. */
export type PermissionName = ResourceEntry extends infer Entry
  ? Entry extends { resource: infer R extends string; operations: readonly (infer O extends string)[] }
    ? `${R}:${O}`
    : never
  : never;

export interface Permission {
  id: number;
  name: PermissionName;
  resource: Resource;
  operation: Operation;
}

export const PERMISSIONS: readonly Permission[] = RESOURCES.flatMap(({ resource, base, operations }) =>
  operations.map((operation: Operation) => ({
    id: base + OPERATION_OFFSET[operation],
    name: `${resource}:${operation}` as PermissionName,
    resource,
    operation,
  })),
);

const BY_NAME = new Map(PERMISSIONS.map((permission) => [permission.name, permission]));
const BY_ID = new Map(PERMISSIONS.map((permission) => [permission.id, permission]));

export const ALL_PERMISSION_IDS: ReadonlySet<number> = new Set(BY_ID.keys());

export function permissionId(name: PermissionName): number {
  return BY_NAME.get(name)!.id;
}

export function permissionNames(ids: Iterable<number>): PermissionName[] {
  return [...ids].flatMap((id) => BY_ID.get(id)?.name ?? []);
}

/** Deduplicated ids, or a 400 naming the first id the catalogue does not know. */
export function knownPermissionIds(ids: readonly number[], param: string): number[] {
  const unknown = ids.findIndex((id) => !BY_ID.has(id));
  if (unknown >= 0) throw badRequest(`permission id ${ids[unknown]} does not exist (see GET /api/governance/rbac/permissions)`, `${param}[${unknown}]`);
  return [...new Set(ids)];
}
