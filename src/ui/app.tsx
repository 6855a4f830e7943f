import { useCallback, useEffect, useState } from "preact/hooks";
import { onSessionExpired } from "./api/client";
import { session } from "./api/endpoints";
import type { Me } from "./api/types";
import { FeedbackProvider } from "./components/feedback";
import { Layout, NAV, opens } from "./components/layout";
import { ErrorState, Forbidden, Loading } from "./components/states";
import { useLocation } from "./lib/router";
import { CreateAdminPage, SetupTokenPage, SignInPage } from "./pages/first-run";
import { AccessPage } from "./pages/access";
import { AnalyticsPage } from "./pages/analytics";
import { AgentsPage } from "./pages/agents";
import { GovernancePage } from "./pages/governance";
import { GuardrailsPage } from "./pages/guardrails";
import { LifecyclesPage } from "./pages/lifecycles";
import { LogsPage } from "./pages/logs";
import { LogSinksPage } from "./pages/log-sinks";
import { ConversationPage } from "./pages/conversation-thread";
import { conversationOfPath } from "./pages/conversation-path";
import { OverviewPage } from "./pages/overview";
import { McpPage } from "./pages/mcp";
import { VirtualServersPage } from "./pages/virtual-servers";
import { PluginsPage } from "./pages/plugins";
import { PlaygroundPage } from "./pages/playground";
import { ProvidersPage } from "./pages/providers";
import { PromptsPage } from "./pages/prompts";
import { WarpSettingsPage } from "./pages/warp-settings";
import { WebhooksPage } from "./pages/webhooks";
import { SessionContext, useCan } from "./session";

type Phase = { kind: "checking" } | { kind: "setup-token" } | { kind: "create-admin" } | { kind: "sign-in"; expired: boolean } | { kind: "ready"; me: Me } | { kind: "failed"; error: Error };

async function currentPhase(): Promise<Phase> {
  const probe = await session.probe();
  if (!probe.is_auth_enabled) return probe.has_valid_token ? { kind: "create-admin" } : { kind: "setup-token" };
  if (!probe.has_valid_token) return { kind: "sign-in", expired: false };
  return { kind: "ready", me: await session.me() };
}

/** The Alerts page, its own chunk: loaded when first opened. */
function AlertsPageOnDemand() {
  const [page, setPage] = useState<{ Page: () => preact.JSX.Element } | { error: Error }>();
  useEffect(() => {
    import("./pages/alerts").then(
      (module) => setPage({ Page: module.AlertsPage }),
      (error: Error) => setPage({ error }),
    );
  }, []);
  if (!page) return <Loading />;
  if ("error" in page) return <ErrorState error={page.error} />;
  return <page.Page />;
}

function Page({ path }: { path: string }) {
  const can = useCan();
  const item = NAV.find((entry) => (entry.path === "/" ? path === "/" : path === entry.path || path.startsWith(`${entry.path}/`)));
  if (!item) return <ErrorState error={new Error(`There is no page at ${path}.`)} />;
  if (!opens(item, can)) return <Forbidden permission={[item.permission].flat().join(" or ")} />;
  switch (item.path) {
    case "/":
      return <OverviewPage />;
    case "/ui/logs": {
      const conversation = conversationOfPath(path);
      return conversation === undefined ? <LogsPage /> : <ConversationPage id={conversation} />;
    }
    case "/ui/analytics":
      return <AnalyticsPage />;
    case "/ui/playground":
      return <PlaygroundPage />;
    case "/ui/providers":
      return <ProvidersPage />;
    case "/ui/guardrails":
      return <GuardrailsPage />;
    case "/ui/prompts":
      return <PromptsPage path={path} />;
    case "/ui/mcp":
      return <McpPage path={path} />;
    case "/ui/virtual-servers":
      return <VirtualServersPage />;
    case "/ui/lifecycles":
      return <LifecyclesPage />;
    case "/ui/log-sinks":
      return <LogSinksPage />;
    case "/ui/plugins":
      return <PluginsPage />;
    case "/ui/agents":
      return <AgentsPage />;
    case "/ui/warp":
      return <WarpSettingsPage />;
    case "/ui/access":
      return <AccessPage path={path} />;
    case "/ui/webhooks":
      return <WebhooksPage />;
    case "/ui/alerts":
      return <AlertsPageOnDemand />;
    default:
      return <GovernancePage path={path} />;
  }
}

/** First run, sign-in, and the pages; an ended session returns to sign-in and then to the same page. */
export function App() {
  const [phase, setPhase] = useState<Phase>({ kind: "checking" });
  const { path } = useLocation();
  const refresh = useCallback(() => {
    currentPhase().then(setPhase, (error: Error) => setPhase({ kind: "failed", error }));
  }, []);
  useEffect(refresh, [refresh]);
  useEffect(() => onSessionExpired(() => setPhase((current) => (current.kind === "ready" ? { kind: "sign-in", expired: true } : current))), []);
  const signOut = useCallback(() => {
    session.logout().finally(refresh);
  }, [refresh]);

  switch (phase.kind) {
    case "checking":
      return <Loading what="Starting" />;
    case "failed":
      return <ErrorState error={phase.error} retry={refresh} />;
    case "setup-token":
      return <SetupTokenPage onUnlocked={() => setPhase({ kind: "create-admin" })} />;
    case "create-admin":
      return <CreateAdminPage onCreated={refresh} />;
    case "sign-in":
      return <SignInPage expired={phase.expired} onSignedIn={refresh} />;
    case "ready":
      return (
        <SessionContext.Provider value={{ me: phase.me, signOut }}>
          <FeedbackProvider>
            <Layout path={path}>
              <Page path={path} />
            </Layout>
          </FeedbackProvider>
        </SessionContext.Provider>
      );
  }
}
