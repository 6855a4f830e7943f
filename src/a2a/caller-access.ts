import { authenticateCaller, callerIdentity } from "../governance/caller";
import { organizationLimits } from "../governance/limits/caller-limits";
import type { LimitCounters } from "../governance/limits/limit-counters";
import type { Organization } from "../governance/stores/organization";
import type { VirtualKeyStore } from "../governance/stores/virtual-keys";
import { GatewayError } from "../http/errors";
import type { CallerIdentity } from "../inference/hooks";

/**
 * Who may reach an agent: the one question the A2A routes ask governance. `admit` reads the
 * virtual key (`x-gw-vk`, `Authorization: Bearer`, `x-api-key` or `x-goog-api-key`), checks
 * its agent grants and governance policy (rate limits), and throws a GatewayError (401, 403,
 * 429) to refuse. It answers undefined for an anonymous caller where keys are optional.
 */
export interface AgentCallerAccess {
  admit(headers: Headers, agent: string): Promise<CallerIdentity | undefined>;
  /** Whether `admit` refuses a caller without a virtual key: what the agent's card declares. */
  keyRequired(agent: string): boolean;
}

/** A grant of `*` reaches every agent. */
const grantsReach = (grants: readonly string[], agent: string) => grants.includes(agent) || grants.includes("*");

export interface GovernanceAgentAccessDeps {
  virtualKeys: VirtualKeyStore;
  organization: Organization;
  counters: LimitCounters;
  clock: () => number;
  /** `enforce_auth_on_inference`. */
  requireVirtualKey: () => boolean;
}

/**
 * Agent access through governance's virtual keys: a key reaches only the agents it is granted,
 * and each call counts against the request limits of the key, its team and its customer.
 */
export function governanceAgentAccess(deps: GovernanceAgentAccessDeps): AgentCallerAccess {
  return {
    async admit(headers, agent) {
      const caller = authenticateCaller(headers, deps.virtualKeys, deps.organization, deps.requireVirtualKey());
      if (!caller) return undefined;
      if (!grantsReach(caller.key.agentGrants, agent)) {
        throw new GatewayError({ status: 403, errorType: "policy_agent_not_granted", message: `virtual key '${caller.key.name}' is not granted agent '${agent}'` });
      }
      await deps.counters.admit(organizationLimits(caller), deps.clock(), true, 0);
      return callerIdentity(caller);
    },
    keyRequired: () => deps.requireVirtualKey(),
  };
}
