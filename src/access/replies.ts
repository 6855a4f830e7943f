import { Type as t } from "@sinclair/typebox";
import { Message, Timestamp } from "../http/replies";

/** What the session, sign-in and admin-account routes answer. */

export const AuthProbe = t.Object({
  is_auth_enabled: t.Boolean({ description: "Whether the dashboard asks for a login." }),
  has_valid_token: t.Boolean({ description: "Whether this request's session or key is accepted." }),
}, { title: "AuthProbe" });

export const Caller = t.Object(
  {
    type: t.Union([t.Literal("anonymous"), t.Literal("setup"), t.Literal("admin"), t.Literal("user"), t.Literal("api_key")]),
    id: t.String(),
    local_admin: t.Boolean({ description: "The admin account or the setup token: every permission." }),
    edition: t.Union([t.Literal("oss"), t.Literal("enterprise")]),
    permissions: t.Array(t.String(), { description: "The permissions' names the caller holds." }),
  },
  { title: "Caller", description: "Who the caller is and what they may do: the dashboard hides what they may not." },
);

export const LoggedIn = t.Object({ message: Message, token: t.String({ description: "The session token, also set as a cookie." }), expires_at: Timestamp }, { title: "LoggedIn" });
export const LoggedOut = t.Object({ message: Message, end_session_url: t.Optional(t.String({ description: "Where to end the identity provider's session too." })) }, { title: "LoggedOut" });
export const SetupStarted = t.Object({ message: Message, expires_at: Timestamp }, { title: "SetupStarted" });

export const SignInOptions = t.Object({
  providers: t.Array(t.Object({ id: t.String(), display_name: t.String(), login_url: t.String() })),
  password_sign_in: t.Boolean({ description: "Whether username and password sign-in is offered beside them." }),
}, { title: "SignInOptions" });

export const AuthConfigReply = t.Object(
  {
    admin_username: t.String(),
    enabled: t.Boolean(),
    is_configured: t.Boolean(),
    managed_by: t.Union([t.Literal("config"), t.Literal("api"), t.Null()], { description: "`config`: config.json sets the account; null when none is." }),
  },
  { title: "AuthConfig", description: "The dashboard admin account; never its password." },
);
