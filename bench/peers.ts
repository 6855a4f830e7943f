/**
 * The peers `npm run bench -- --peers` sets beside the gateway: nginx as a plain reverse proxy
 * (the floor of a proxy in C), when installed, and Portkey's open-source gateway on Node, installed
 * on demand into bench/.peers (git-ignored). Both forward to the same bench mock upstream.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type BenchServer, freePort, startOnPort } from "./processes";

export const PEERS = ["nginx", "portkey"] as const;
export type PeerName = (typeof PEERS)[number];

export interface Peer {
  server: BenchServer;
  /** What the peer's version and setup say in the table's heading. */
  label: string;
  /** Headers a request to this peer needs on top of the scenario's (Portkey's provider and upstream). */
  headers: Record<string, string>;
}

const PORTKEY_VERSION = "1.15.2";
/** The version Portkey's own lockfile uses: newer ones break its streams. */
const HONO_NODE_SERVER_VERSION = "1.13.5";
const peersDir = join(import.meta.dir, ".peers");

async function output(command: string[]): Promise<{ code: number; text: string }> {
  const child = Bun.spawn(command, { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, text: out + err };
}

/** Where the nginx binary is, or undefined (with how to install it printed) when there is none. */
async function nginxBinary(): Promise<string | undefined> {
  for (const candidate of ["/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/local/nginx/sbin/nginx"]) if (existsSync(candidate)) return candidate;
  const found = await output(["sh", "-c", "command -v nginx"]);
  if (found.code === 0 && found.text.trim()) return found.text.trim();
  console.error("peers: nginx is not installed, so it is left out. To measure it: `sudo apt-get install nginx` (Debian, Ubuntu), `brew install nginx` (macOS).");
  return undefined;
}

/** nginx with two workers, keep-alive to the upstream, no buffering (streams pass as they come), no access log. */
function nginxConfig(dir: string, port: number, mock: BenchServer): string {
  return `worker_processes 2;
worker_rlimit_nofile 65536;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
daemon off;
events { worker_connections 16384; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  client_max_body_size 10m;
  client_body_buffer_size 1m;
  keepalive_requests 1000000;
  upstream mock { server 127.0.0.1:${mock.port}; keepalive 256; keepalive_requests 1000000; }
  server {
    listen 127.0.0.1:${port} reuseport backlog=8192;
    location / {
      proxy_pass http://mock;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Authorization "Bearer sk-bench-upstream";
      proxy_buffering off;
      proxy_request_buffering off;
    }
  }
}
`;
}

async function startNginx(workDir: string, mock: BenchServer): Promise<Peer | undefined> {
  const binary = await nginxBinary();
  if (!binary) return undefined;
  const dir = join(workDir, "nginx");
  mkdirSync(dir, { recursive: true });
  const port = freePort();
  writeFileSync(join(dir, "nginx.conf"), nginxConfig(dir, port, mock));
  const version = (await output([binary, "-v"])).text.match(/nginx\/([\d.]+)/)?.[1] ?? "";
  const server = await startOnPort("nginx", [binary, "-p", dir, "-e", join(dir, "error.log"), "-c", join(dir, "nginx.conf")], port);
  return { server, label: `nginx ${version}`, headers: {} };
}

/** Installs Portkey's gateway (once) into bench/.peers/portkey with npm; returns its start script. */
async function installPortkey(): Promise<string> {
  const dir = join(peersDir, "portkey");
  const script = join(dir, "node_modules", "@portkey-ai", "gateway", "build", "start-server.js");
  const manifest = {
    private: true,
    dependencies: { "@portkey-ai/gateway": PORTKEY_VERSION, "@hono/node-server": HONO_NODE_SERVER_VERSION },
    overrides: { "@hono/node-server": HONO_NODE_SERVER_VERSION },
  };
  const manifestText = `${JSON.stringify(manifest, null, 2)}\n`;
  const manifestPath = join(dir, "package.json");
  if (existsSync(script) && existsSync(manifestPath) && (await Bun.file(manifestPath).text()) === manifestText) return script;
  mkdirSync(dir, { recursive: true });
  writeFileSync(manifestPath, manifestText);
  console.error(`peers: installing @portkey-ai/gateway ${PORTKEY_VERSION} with @hono/node-server ${HONO_NODE_SERVER_VERSION} into ${dir}…`);
  const installed = await output(["npm", "install", "--prefix", dir, "--no-audit", "--no-fund", "--ignore-scripts"]);
  if (installed.code !== 0) throw new Error(`npm could not install Portkey's gateway:\n${installed.text}`);
  return script;
}

async function startPortkey(mock: BenchServer): Promise<Peer | undefined> {
  const nodeVersion = await output(["node", "--version"]);
  if (nodeVersion.code !== 0) {
    console.error("peers: Node.js is not installed, so Portkey's gateway is left out; it runs on Node (nodejs.org, or `apt-get install nodejs`).");
    return undefined;
  }
  const script = await installPortkey();
  const port = freePort();
  const server = await startOnPort("portkey", ["node", script, `--port=${port}`, "--headless"], port, { env: { ...process.env, NODE_ENV: "production" } });
  return {
    server,
    label: `Portkey ${PORTKEY_VERSION} (node ${nodeVersion.text.trim().replace(/^v/, "")})`,
    headers: { "x-portkey-provider": "openai", "x-portkey-custom-host": `${mock.url}/v1`, authorization: "Bearer sk-bench-upstream" },
  };
}

/** Every peer that can run here; a missing one is named with how to get it, not fatal. */
export async function startPeers(workDir: string, mock: BenchServer): Promise<Partial<Record<PeerName, Peer>>> {
  const peers: Partial<Record<PeerName, Peer>> = {};
  const nginx = await startNginx(workDir, mock);
  if (nginx) peers.nginx = nginx;
  const portkey = await startPortkey(mock);
  if (portkey) peers.portkey = portkey;
  return peers;
}
