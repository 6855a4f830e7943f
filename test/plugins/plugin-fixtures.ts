import { fileURLToPath } from "node:url";
import type { PluginView } from "../../src/plugins/schemas";

/** Absolute path of a fixture module in test/support/plugins. */
export const fixturePath = (name: string) => fileURLToPath(new URL(`../support/plugins/${name}`, import.meta.url));

export const ADMIN_AUTH = { admin_username: "operator", admin_password: "correct horse battery staple" };

export interface PluginResponse {
  message: string;
  plugin: PluginView;
}

export async function jsonOf<T>(response: Response, status: number): Promise<T> {
  const text = await response.text();
  if (response.status !== status) throw new Error(`expected ${status}, got ${response.status}: ${text}`);
  return JSON.parse(text) as T;
}
