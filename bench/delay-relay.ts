/**
 * A TCP relay that holds every chunk `delayMs` in each direction before passing it on: a
 * database "far away" for the regions bench, on one machine.
 */
import type { Socket } from "bun";

interface Pipe {
  /** Bytes the peer socket did not take yet, in order. */
  pending: Uint8Array[];
  peer?: Socket<Pipe>;
  closed: boolean;
}

function forward(to: Socket<Pipe> | undefined, pipe: Pipe, chunk: Uint8Array): void {
  pipe.pending.push(chunk);
  if (to) flush(to, pipe);
}

function flush(to: Socket<Pipe>, pipe: Pipe): void {
  while (pipe.pending.length > 0) {
    const chunk = pipe.pending[0]!;
    const written = to.write(chunk);
    if (written < chunk.length) {
      pipe.pending[0] = chunk.subarray(written);
      return;
    }
    pipe.pending.shift();
  }
}

export interface DelayRelay {
  url: string;
  stop(): void;
}

/** Listens on a free port and relays to `target` (host:port), `delayMs` late each way. */
export function startDelayRelay(target: { hostname: string; port: number }, delayMs: number): DelayRelay {
  const server = Bun.listen<Pipe>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(client) {
        client.data = { pending: [], closed: false };
        const toClient: Pipe = { pending: [], closed: false, peer: client };
        void Bun.connect<Pipe>({
          ...target,
          data: toClient,
          socket: {
            open(upstream) {
              client.data.peer = upstream;
              flush(upstream, client.data);
            },
            data(upstream, chunk) {
              const copy = new Uint8Array(chunk);
              setTimeout(() => !upstream.data.closed && forward(client, upstream.data, copy), delayMs);
            },
            drain(upstream) {
              flush(upstream, client.data);
            },
            close(upstream) {
              upstream.data.closed = true;
              setTimeout(() => client.end(), delayMs);
            },
            error() {},
          },
        }).catch(() => client.end());
      },
      data(client, chunk) {
        const copy = new Uint8Array(chunk);
        setTimeout(() => forward(client.data.peer, client.data, copy), delayMs);
      },
      drain(client) {
        const peer = client.data.peer;
        if (peer) flush(client, peer.data);
      },
      close(client) {
        client.data.closed = true;
        const peer = client.data.peer;
        if (peer) setTimeout(() => peer.end(), delayMs);
      },
      error() {},
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, stop: () => server.stop(true) };
}
