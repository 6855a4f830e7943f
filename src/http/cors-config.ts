import { type Static, Type as t } from "@sinclair/typebox";

/** `cors` in config.json: which web pages may call the gateway from a browser. */
export const CorsConfig = t.Object(
  {
    allowed_origins: t.Array(
      t.String({ pattern: "^(\\*|https?://[^/\\s*]+)$", description: "An origin as a browser sends it (`https://app.example.com`, `http://localhost:5173`), or `*`." }),
      {
        maxItems: 1000,
        description:
          "Origins whose pages may call the gateway (default none: no cross-origin answer at all). `*` opens inference (`/v1`, the provider and framework mounts, `/mcp`, `/agents`) to every origin; the management API (`/api`) answers only the origins named.",
      },
    ),
    allow_credentials: t.Optional(
      t.Boolean({
        description: "Let a named origin's pages send the browser's cookies along (default false); the dashboard session's cookie is SameSite=Strict, so only pages of the gateway's own site can send it. Never given to `*`: a browser then sends only the key the page sets itself.",
      }),
    ),
    max_age_seconds: t.Optional(t.Integer({ minimum: 0, maximum: 86_400, description: "How long a browser may reuse a preflight answer (default 600)." })),
  },
  { additionalProperties: false, description: "Cross-origin calls from browsers (preflight `OPTIONS` and the headers of the answers). Config file only." },
);
export type CorsConfig = Static<typeof CorsConfig>;
