import { type Static, Type as t } from "@sinclair/typebox";

const RoleRule = t.Object(
  {
    claim: t.String({ minLength: 1, description: "The ID token claim to look at, e.g. `groups` or `roles` (a string or an array of strings)." }),
    value: t.String({ minLength: 1, description: "The value the claim must hold (or, for an array, contain)." }),
    role: t.String({ minLength: 1, description: "The gateway role (RBAC role name, e.g. `Admin`, `Developer`, `Viewer`) a match grants." }),
  },
  { additionalProperties: false },
);

export const OidcProviderConfig = t.Object(
  {
    display_name: t.Optional(t.String({ minLength: 1, description: "The name the sign-in page shows (default: the provider's key)." })),
    issuer: t.String({ minLength: 1, description: "The issuer URL; its `/.well-known/openid-configuration` is read for the endpoints and keys. ID tokens must name exactly this issuer." }),
    client_id: t.String({ minLength: 1, description: "The client (application) id registered at the provider." }),
    client_secret: t.Optional(t.String({ minLength: 1, description: "The client secret; `env.NAME` allowed (recommended). Omit for a public client (PKCE only)." })),
    scopes: t.Optional(t.Array(t.String({ minLength: 1 }), { description: "Scopes requested (default `openid email profile`; `openid` is always added)." })),
    roles: t.Array(RoleRule, {
      description: "Claim-to-role rules, first match wins; a user no rule matches is refused. The role is checked again at every sign-in, so a change of group at the provider changes the role.",
    }),
  },
  { additionalProperties: false },
);

export const OidcSignInConfig = t.Object(
  {
    providers: t.Record(t.String({ pattern: "^[a-z0-9][a-z0-9_-]*$" }), OidcProviderConfig, {
      description: "OpenID Connect providers by key (lowercase letters, digits, `-`, `_`); the key is in the sign-in and callback URLs: /api/session/oidc/{key}/login and /callback.",
    }),
    password_sign_in: t.Optional(
      t.Boolean({ description: "Whether the password admin account (`auth`) can still sign in, as a break-glass account (default true). false: only the providers sign people in." }),
    ),
    public_url: t.Optional(
      t.String({ description: "The gateway's address as browsers reach it (`https://gateway.example.com`), for the redirect URI registered at the provider: {public_url}/api/session/oidc/{key}/callback. Default: the address the request came to." }),
    ),
  },
  { additionalProperties: false, description: "Single sign-on to the dashboard with OpenID Connect providers (Okta, Entra ID, Keycloak, Google, ...)." },
);

export type OidcProviderSettings = Static<typeof OidcProviderConfig>;
export type OidcSignInSettings = Static<typeof OidcSignInConfig>;
