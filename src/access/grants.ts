import { forbidden } from "./access-errors";
import { knownPermissionIds, permissionNames } from "./permissions";
import { lackedPermissions, type Principal } from "./principal";

/**
 * Spec 4.2: nobody hands out a permission they do not hold themselves (403). Unknown ids are
 * a 400 first, so the answer does not depend on who asks.
 */
export function assertCanGrant(principal: Principal, wanted: readonly number[], param: string): void {
  const lacked = lackedPermissions(principal, knownPermissionIds(wanted, param));
  if (lacked.length) throw forbidden(`cannot grant permissions you do not hold: ${permissionNames(lacked).join(", ")}`, "policy_grant_exceeds_own_permissions");
}
