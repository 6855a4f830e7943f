import { PERMISSIONS, type PermissionName } from "../permissions";

export interface BuiltinRole {
  name: string;
  description: string;
  permissions: readonly PermissionName[];
}

export const ADMIN_ROLE = "Admin";

const everyView = (except: readonly string[]) =>
  PERMISSIONS.filter((permission) => permission.operation === "View" && !except.includes(permission.resource)).map((permission) => permission.name);

/** Seeded once; Developer and Viewer may be edited afterwards, Admin always holds every permission. */
export const BUILTIN_ROLES: readonly BuiltinRole[] = [
  { name: ADMIN_ROLE, description: "Every permission, including those added by later versions", permissions: PERMISSIONS.map((permission) => permission.name) },
  {
    name: "Developer",
    description: "Builds on the gateway: reads its state, manages keys, routing, MCP, agents and webhooks",
    permissions: [
      ...everyView(["AuditLogs", "APIKeys", "Roles", "Users"]),
      ...(["VirtualKeys", "RoutingRules", "MCP", "MCPVirtualServers", "Agents", "Webhooks"] as const).flatMap((resource) => [`${resource}:Create`, `${resource}:Update`, `${resource}:Delete`] as const),
      "Warp:Create",
      "Playground:Create",
      "Cache:Delete",
    ],
  },
  { name: "Viewer", description: "Reads dashboards, logs and configuration; changes nothing", permissions: everyView(["AuditLogs", "APIKeys", "Roles", "Users"]) },
];
