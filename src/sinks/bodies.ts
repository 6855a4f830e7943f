import { type Static, Type as t } from "@sinclair/typebox";
import { FileLogSink, HttpLogSink } from "../config/sections/log-sinks";

// A sink added through the API has the configuration's settings, with two differences: its
// secret and header values are taken as written (no `env.NAME`: a value someone typed must not
// read the host's environment), and its address goes under the outbound address policy.

const httpOnly = {
  secret: t.String({ pattern: "^whsec_", description: "The Standard Webhooks signing secret (`whsec_` and base64). Sealed, never answered." }),
  headers: t.Optional(t.Record(t.String(), t.String(), { description: "Sent with every batch (authentication, tenancy), as written. Sealed with the secret, never answered." })),
  allow_private_network: t.Optional(t.Boolean({ description: "Let `url` be a loopback or private address (default false); only a caller allowed to reach private networks may set it." })),
};

const HttpSinkCreate = t.Object({ ...t.Omit(HttpLogSink, ["secret", "headers"]).properties, ...httpOnly }, { additionalProperties: false, title: "HttpLogSinkCreate" });
const FileSinkCreate = t.Object(FileLogSink.properties, { additionalProperties: false, title: "FileLogSinkCreate" });

export const LogSinkCreate = t.Union([HttpSinkCreate, FileSinkCreate], { description: "A log sink: `http` (batches POSTed, signed) or `file` (JSON lines appended, rotated)." });

const HttpSinkUpdate = t.Object(
  { ...t.Omit(HttpSinkCreate, ["name", "secret", "headers"]).properties, secret: t.Optional(httpOnly.secret), headers: httpOnly.headers },
  { additionalProperties: false, title: "HttpLogSinkUpdate" },
);
const FileSinkUpdate = t.Object(t.Omit(FileSinkCreate, ["name"]).properties, { additionalProperties: false, title: "FileLogSinkUpdate" });

export const LogSinkUpdate = t.Union([HttpSinkUpdate, FileSinkUpdate], {
  description: "The sink's settings, replaced as a whole; an HTTP sink's `secret` and `headers` left out keep the sealed ones.",
});

export const SinkNameParams = t.Object({ name: t.String() });

export type LogSinkCreate = Static<typeof LogSinkCreate>;
export type LogSinkUpdate = Static<typeof LogSinkUpdate>;
