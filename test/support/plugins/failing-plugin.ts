import type { GatewayPluginModule } from "../../../src/plugins";

/** A test plugin that throws where `config.fail_in` says: `create` (it fails to load) or `admit` (every request). */
export default {
  name: "failing",
  create(config) {
    if (config.fail_in === "create") throw new Error("cannot start: the plugin's backend is unreachable");
    return {
      admit() {
        throw new Error("boom in admit");
      },
    };
  },
} satisfies GatewayPluginModule;
