import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { EnvironmentVariables } from "../../src/config/startup-options";
import { replicaNodeVariables } from "../support/replicas";

interface Service {
  image?: string;
  build?: string;
  environment?: Record<string, string>;
  volumes?: string[];
}
const compose = Bun.YAML.parse(readFileSync(join(import.meta.dir, "../../deploy/compose.yaml"), "utf8")) as { services: Record<string, Service>; volumes: Record<string, unknown> };
const gateways = Object.entries(compose.services).filter(([, service]) => service.build);
const primary = compose.services.primary!;

test("the primary is a libSQL server that lets in only clients with a token its key signed", () => {
  expect(primary.image).toContain("libsql-server");
  expect(primary.environment?.SQLD_AUTH_JWT_KEY_FILE).toBeTruthy();
  expect(primary.volumes?.some((volume) => volume.endsWith(primary.environment!.SQLD_AUTH_JWT_KEY_FILE!) || volume.includes(`:${primary.environment!.SQLD_AUTH_JWT_KEY_FILE}`))).toBe(true);
});

test("each region's gateway sets every variable the multi-region tests set, on an embedded replica of the primary in a volume of its own", () => {
  const tested = Object.keys(replicaNodeVariables({ url: "http://primary:8080", authToken: "token" }, "/data/replica.db", "eu"));
  expect(gateways.map(([, service]) => service.environment?.GATEWAY_REGION).toSorted()).toEqual(["eu", "us"]);
  const dataVolumes = new Set<string>();
  for (const [, service] of gateways) {
    const environment = service.environment!;
    for (const name of tested) expect(Object.keys(environment)).toContain(name);
    expect(environment.GATEWAY_DB_URL).toMatch(/^file:\/data\//);
    expect(new URL(environment.GATEWAY_DB_SYNC_URL!).hostname).toBe("primary");
    expect(environment.GATEWAY_NODE_ID).toContain(environment.GATEWAY_REGION!);
    const data = service.volumes!.find((volume) => volume.endsWith(":/data"))!.split(":")[0]!;
    expect(Object.keys(compose.volumes)).toContain(data);
    dataVolumes.add(data);
  }
  expect(dataVolumes.size).toBe(gateways.length);
});

test("every gateway variable the compose file sets is one the gateway reads", () => {
  const known = Object.keys(EnvironmentVariables.properties);
  for (const [, service] of gateways) {
    for (const name of Object.keys(service.environment!).filter((variable) => variable.startsWith("GATEWAY_"))) expect(known).toContain(name);
  }
});
