import { resolve } from "node:path";

const REPO_ROOT = resolve(import.meta.dir, "../..");

const LISTENING = /listening on (http:\/\/[^\s]+)/;

export interface GatewayProcess {
  url: string;
  child: ReturnType<typeof Bun.spawn>;
  /** SIGTERM, and the exit code once it has drained and stopped. */
  stop(): Promise<number>;
}

/** `bun src/main.ts --config <config> --port 0` as a process of its own, once it listens. */
export async function startGatewayProcess(config: string, env: Record<string, string>): Promise<GatewayProcess> {
  const child = Bun.spawn([process.execPath, "src/main.ts", "--config", config, "--port", "0", "--host", "127.0.0.1"], {
    cwd: REPO_ROOT,
    env: { ...process.env, GATEWAY_NODE_ID: "", ...env },
    stdout: "pipe",
    stderr: "ignore",
  });
  const reader = child.stdout.getReader();
  const decoder = new TextDecoder();
  let seen = "";
  for (;;) {
    const match = seen.match(LISTENING);
    if (match) {
      // The rest of its output is not read: let it drain so the process never blocks on a full pipe.
      void (async () => {
        while (!(await reader.read()).done);
      })();
      return {
        url: match[1]!,
        child,
        stop: async () => {
          child.kill("SIGTERM");
          return child.exited;
        },
      };
    }
    const { value, done } = await reader.read();
    if (done) throw new Error(`the gateway exited before listening; it printed: ${seen}`);
    seen += decoder.decode(value, { stream: true });
  }
}
