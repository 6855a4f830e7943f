import type { OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { and, eq, isNull, lt, or } from "drizzle-orm";
import type { SecretBox } from "../../crypto/secret-box";
import { sha256Hex } from "../../crypto/sha256-hex";
import type { Database } from "../../db/client";
import { type McpOAuthConnectionRow, mcpOAuthConnections } from "../../db/schema";
import type { CredentialOwner } from "../per-user/credentials";

/** Whose connection: the client's one shared connection, or (oauth.per_user) a virtual key's or session's own. */
export interface ConnectionKey {
  mcpClientId: string;
  owner?: CredentialOwner;
}

const ownerColumns = ({ owner }: ConnectionKey) => ({ ownerMode: owner?.mode ?? ("shared" as const), ownerIdentity: owner?.identity ?? "" });

const keyOf = (row: McpOAuthConnectionRow): ConnectionKey => ({ mcpClientId: row.mcpClientId, ...(row.ownerMode === "shared" ? {} : { owner: { mode: row.ownerMode, identity: row.ownerIdentity } }) });

const byKey = (key: ConnectionKey) => {
  const { ownerMode, ownerIdentity } = ownerColumns(key);
  return and(eq(mcpOAuthConnections.mcpClientId, key.mcpClientId), eq(mcpOAuthConnections.ownerMode, ownerMode), eq(mcpOAuthConnections.ownerIdentity, ownerIdentity));
};

export type OAuthConnectionState = McpOAuthConnectionRow["state"];

/** What the authorization server gave, kept sealed: never in a response, a log or an error. */
export interface OAuthGrant {
  /** The registration (RFC 7591) or the configured client, stamped with its authorization server. */
  client?: OAuthClientInformationMixed;
  tokens?: OAuthTokens;
  /** Epoch milliseconds the tokens were issued at: their `expires_in` counts from it. */
  issuedAt?: number;
  discovery?: OAuthDiscoveryState;
  /** The consent under way: its PKCE verifier and where the authorization server sends the browser back. */
  codeVerifier?: string;
  redirectUrl?: string;
}

export interface OAuthConnection {
  state: OAuthConnectionState;
  grant: OAuthGrant;
  accessExpiresAt?: Date;
  lastError?: string;
  connectedAt?: Date;
  updatedAt: Date;
}

const NOT_CONNECTED: Omit<OAuthConnection, "updatedAt"> = { state: "needs_consent", grant: {} };

/** The OAuth connections of `oauth` MCP clients in libSQL, their grants sealed with the secret box. */
export class McpOAuthStore {
  constructor(
    private readonly db: Database,
    private readonly box: SecretBox,
  ) {}

  /** The connection; one never started reads as needing consent. */
  async find(key: ConnectionKey): Promise<OAuthConnection> {
    const row = await this.db.select().from(mcpOAuthConnections).where(byKey(key)).get();
    return row ? this.fromRow(row) : { ...NOT_CONNECTED, updatedAt: new Date(0) };
  }

  /** Every client's shared connection, by client id. */
  async allShared(): Promise<Map<string, OAuthConnection>> {
    const rows = await this.db.select().from(mcpOAuthConnections).where(eq(mcpOAuthConnections.ownerMode, "shared"));
    return new Map(rows.map((row) => [row.mcpClientId, this.fromRow(row)]));
  }

  /** The connection whose consent was sent out with this `state`. */
  async findPending(state: string): Promise<{ key: ConnectionKey; connection: OAuthConnection } | undefined> {
    const row = await this.db.select().from(mcpOAuthConnections).where(eq(mcpOAuthConnections.pendingStateHash, sha256Hex(state))).get();
    return row && { key: keyOf(row), connection: this.fromRow(row) };
  }

  /** `pendingState`: the `state` of a consent just sent out; null ends the one under way; undefined keeps it. */
  async save(key: ConnectionKey, connection: Omit<OAuthConnection, "updatedAt">, pendingState?: string | null): Promise<void> {
    const values = {
      state: connection.state,
      sealedGrant: this.box.seal(JSON.stringify(connection.grant)),
      accessExpiresAt: connection.accessExpiresAt ?? null,
      lastError: connection.lastError ?? null,
      connectedAt: connection.connectedAt ?? null,
      updatedAt: new Date(),
      ...(pendingState === undefined ? {} : { pendingStateHash: pendingState === null ? null : sha256Hex(pendingState) }),
    };
    await this.db
      .insert(mcpOAuthConnections)
      .values({ mcpClientId: key.mcpClientId, ...ownerColumns(key), ...values })
      .onConflictDoUpdate({ target: [mcpOAuthConnections.mcpClientId, mcpOAuthConnections.ownerMode, mcpOAuthConnections.ownerIdentity], set: values });
  }

  /**
   * Takes the right to refresh the connection's tokens until `until` for `holder`, unless another
   * holder has it and it has not lapsed at `now`: answers whether it was taken. One row update,
   * so two nodes asking at once cannot both get it.
   */
  async claimRefresh(key: ConnectionKey, holder: string, now: Date, until: Date): Promise<boolean> {
    const { refreshHolder, refreshUntil } = mcpOAuthConnections;
    const claimed = await this.db
      .update(mcpOAuthConnections)
      .set({ refreshHolder: holder, refreshUntil: until })
      .where(and(byKey(key), or(isNull(refreshUntil), lt(refreshUntil, now), eq(refreshHolder, holder))))
      .returning({ state: mcpOAuthConnections.state });
    return claimed.length > 0;
  }

  async releaseRefresh(key: ConnectionKey, holder: string): Promise<void> {
    await this.db
      .update(mcpOAuthConnections)
      .set({ refreshHolder: null, refreshUntil: null })
      .where(and(byKey(key), eq(mcpOAuthConnections.refreshHolder, holder)));
  }

  private fromRow(row: McpOAuthConnectionRow): OAuthConnection {
    return {
      state: row.state,
      grant: JSON.parse(this.box.open(row.sealedGrant)) as OAuthGrant,
      accessExpiresAt: row.accessExpiresAt ?? undefined,
      lastError: row.lastError ?? undefined,
      connectedAt: row.connectedAt ?? undefined,
      updatedAt: row.updatedAt,
    };
  }
}
