import { PageHeader } from "../components/layout";
import { Forbidden } from "../components/states";
import { followLink } from "../lib/router";
import { useCan } from "../session";
import { LimitsTab } from "./governance/limits";
import { CustomersTab, TeamsTab } from "./governance/organization";
import { PricingTab } from "./governance/pricing";
import { RoutingRulesTab } from "./governance/routing-rules";
import { VirtualKeysTab } from "./governance/virtual-keys";

const TABS = [
  { slug: "virtual-keys", label: "Virtual keys", permission: "VirtualKeys:View", Tab: VirtualKeysTab },
  { slug: "teams", label: "Teams", permission: "Teams:View", Tab: TeamsTab },
  { slug: "customers", label: "Customers", permission: "Customers:View", Tab: CustomersTab },
  { slug: "limits", label: "Budgets and limits", permission: "Budgets:View", Tab: LimitsTab },
  { slug: "routing-rules", label: "Routing rules", permission: "RoutingRules:View", Tab: RoutingRulesTab },
  { slug: "pricing", label: "Pricing overrides", permission: "PricingOverrides:View", Tab: PricingTab },
];

/** Virtual keys, teams, customers, their limits, routing rules and prices: one tab each under /ui/governance/. */
export function GovernancePage({ path }: { path: string }) {
  const can = useCan();
  const slug = path.split("/")[3] ?? "virtual-keys";
  const current = TABS.find((tab) => tab.slug === slug) ?? TABS[0]!;
  return (
    <>
      <PageHeader title="Governance" />
      <nav class="tabs" aria-label="Governance sections">
        {TABS.filter((tab) => can(tab.permission)).map((tab) => {
          const href = `/ui/governance/${tab.slug}`;
          return (
            <a key={tab.slug} href={href} aria-current={tab === current ? "page" : undefined} onClick={(event) => followLink(event, href)}>
              {tab.label}
            </a>
          );
        })}
      </nav>
      {can(current.permission) ? <current.Tab /> : <Forbidden permission={current.permission} />}
    </>
  );
}
