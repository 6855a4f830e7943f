import { useState } from "preact/hooks";
import { ApiError } from "../api/client";
import { session } from "../api/endpoints";
import type { SignInProviders } from "../api/types";
import { TextField } from "../components/fields";
import { useResource } from "../lib/use-resource";

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

function AuthCard({ title, intro, children }: { title: string; intro: string; children: preact.ComponentChildren }) {
  return (
    <main class="auth">
      <div class="auth-card">
        <div class="brand">
          <span class="brand-mark" aria-hidden="true" />
          Gateway
        </div>
        <h1>{title}</h1>
        <p class="muted">{intro}</p>
        {children}
      </div>
    </main>
  );
}

/** First run, step 1: the setup token the gateway printed at start unlocks the management API. */
export function SetupTokenPage({ onUnlocked }: { onUnlocked(): void }) {
  const [token, setToken] = useState("");
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await session.setup(token.trim());
      onUnlocked();
    } catch (failure) {
      setError(failure instanceof ApiError && failure.status === 403 ? "That is not the setup token. Copy it from the gateway's output at start (the line “setup token: …”)." : messageOf(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <AuthCard title="Welcome" intro="This gateway has no admin account yet. Enter the setup token it printed when it started (or the one set in GATEWAY_SETUP_TOKEN / config.json setup_token).">
      <form onSubmit={submit}>
        <TextField label="Setup token" type="password" autocomplete="off" required value={token} onValue={setToken} error={error} />
        <button class="primary" type="submit" disabled={busy || !token.trim()}>
          Continue
        </button>
      </form>
    </AuthCard>
  );
}

/** First run, step 2: the admin account; creating it turns sign-in on, and this browser signs in with it. */
export function CreateAdminPage({ onCreated }: { onCreated(): void }) {
  const [username, setUsername] = useState("admin");
  const [password, setPassword] = useState("");
  const [repeated, setRepeated] = useState("");
  const [error, setError] = useState<{ field?: string; message: string }>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    if (password !== repeated) return setError({ field: "repeat", message: "The two passwords differ." });
    setBusy(true);
    setError(undefined);
    try {
      await session.createAdmin({ admin_username: username.trim(), admin_password: password, enabled: true });
      await session.login(username.trim(), password);
      onCreated();
    } catch (failure) {
      setError({ field: failure instanceof ApiError ? failure.param : undefined, message: messageOf(failure) });
    } finally {
      setBusy(false);
    }
  };
  const fieldError = (field: string) => (error?.field === field ? error.message : undefined);
  return (
    <AuthCard title="Create the admin account" intro="From now on the dashboard and the management API ask for this account's password. The setup token stops working.">
      <form onSubmit={submit}>
        <TextField label="Username" autocomplete="username" required value={username} onValue={setUsername} error={fieldError("admin_username")} />
        <TextField label="Password" type="password" autocomplete="new-password" required minLength={8} hint="At least 8 characters." value={password} onValue={setPassword} error={fieldError("admin_password")} />
        <TextField label="Repeat password" type="password" autocomplete="new-password" required value={repeated} onValue={setRepeated} error={fieldError("repeat")} />
        {error && !["admin_username", "admin_password", "repeat"].includes(error.field ?? "") && (
          <p class="field-error" role="alert">
            {error.message}
          </p>
        )}
        <button class="primary" type="submit" disabled={busy}>
          Create admin and sign in
        </button>
      </form>
    </AuthCard>
  );
}

/** A button per configured identity provider; the provider sends the browser back to the page the person was on. */
function ProviderButtons({ providers }: { providers: SignInProviders["providers"] }) {
  const returnTo = `${window.location.pathname}${window.location.search}`;
  return (
    <nav class="sign-in-providers" aria-label="Sign in with your organization">
      {providers.map((provider) => (
        <a key={provider.id} href={`${provider.login_url}?return_to=${encodeURIComponent(returnTo)}`}>
          Sign in with {provider.display_name}
        </a>
      ))}
    </nav>
  );
}

export function SignInPage({ onSignedIn, expired }: { onSignedIn(): void; expired: boolean }) {
  const offered = useResource(session.signInProviders, []);
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await session.login(username.trim(), password);
      onSignedIn();
    } catch (failure) {
      setError(failure instanceof ApiError && failure.status === 401 ? "Wrong username or password." : messageOf(failure));
    } finally {
      setBusy(false);
    }
  };
  // Until the list is in (or if it cannot be read), the password form shows as before.
  const providers = offered.data?.providers ?? [];
  const passwordOpen = offered.data?.password_sign_in ?? true;
  const intro = expired ? "Your session ended. Sign in again to go back where you were." : passwordOpen ? "Sign in with the gateway's admin account or your user." : "Sign in with your organization's account.";
  return (
    <AuthCard title="Sign in" intro={intro}>
      {providers.length > 0 && <ProviderButtons providers={providers} />}
      {passwordOpen && (
        <form onSubmit={submit} aria-label="Account sign-in">
          <TextField label="Username" autocomplete="username" required value={username} onValue={setUsername} />
          <TextField label="Password" type="password" autocomplete="current-password" required value={password} onValue={setPassword} error={error} />
          <button class="primary" type="submit" disabled={busy}>
            Sign in
          </button>
        </form>
      )}
    </AuthCard>
  );
}
