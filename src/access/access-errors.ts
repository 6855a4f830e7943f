import { GatewayError } from "../http/errors";

export type Edition = "oss" | "enterprise";

/** An enterprise feature on an OSS deployment: the route is not served there. */
export const enterpriseOnly = (feature: string) =>
  new GatewayError({ status: 404, errorType: "caller_enterprise_feature", code: "enterprise_edition_required", message: `${feature} require the enterprise edition` });

export const unauthenticated = (message: string, errorType: `caller_${string}` = "caller_unauthenticated") =>
  new GatewayError({ status: 401, errorType, message });

export const forbidden = (message: string, errorType: `${"caller" | "policy"}_${string}` = "policy_permission_denied") =>
  new GatewayError({ status: 403, errorType, message });
