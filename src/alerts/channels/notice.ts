import type { AlertScope, AlertSeverity } from "../../db/schema/alerts";

/** What every notification says: what, where, the figures against the condition, since when, and where to look. */
export interface AlertNotice {
  status: "firing" | "resolved" | "test";
  ruleId: string;
  ruleName: string;
  severity: AlertSeverity;
  condition: string;
  scope: AlertScope;
  scopeId: string | null;
  figures: Record<string, number>;
  /** When the rule started firing. */
  since: Date;
  at: Date;
  /** The dashboard's logs filtered to the rule's scope and the firing's time. */
  logsUrl: string;
}

const STATUS_WORD = { firing: "Firing", resolved: "Resolved", test: "Test" } as const;

export const titleOf = (notice: AlertNotice) => `${STATUS_WORD[notice.status]}: ${notice.ruleName}`;

export const whereOf = ({ scope, scopeId }: AlertNotice) => (scope === "global" ? "the whole gateway" : `${scope.replace("_", " ")} ${scopeId}`);

const rounded = (value: number) => (Number.isInteger(value) ? String(value) : value >= 1e15 ? "never" : value.toPrecision(4).replace(/\.?0+$/, ""));

/** `error_rate = 0.42, requests = 50`, the figures the condition read. */
export const figuresOf = (notice: AlertNotice) =>
  Object.entries(notice.figures)
    .map(([name, value]) => `${name} = ${rounded(value)}`)
    .join(", ") || "no figures";

/** The facts every channel lists, as label and text. */
export function factsOf(notice: AlertNotice): Array<[string, string]> {
  return [
    ["Severity", notice.severity],
    ["Where", whereOf(notice)],
    ["Figures", figuresOf(notice)],
    ["Condition", notice.condition],
    [notice.status === "resolved" ? "Fired at" : "Since", notice.since.toISOString()],
  ];
}

/** Plain text: the mail body, and the summary of channels that take one line. */
export function textOf(notice: AlertNotice): string {
  return [`${titleOf(notice)} (${notice.severity}) on ${whereOf(notice)}`, ...factsOf(notice).map(([label, text]) => `${label}: ${text}`), `Logs: ${notice.logsUrl}`].join("\n");
}
