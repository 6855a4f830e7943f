/**
 * A TCP listener given to a client as its HTTP(S) proxy: whatever the client tries to reach
 * outside NO_PROXY arrives here instead of the internet, is recorded, and gets no answer.
 */
export interface TrapProxy {
  url: string;
  /** The first line of each connection (`CONNECT statsig.anthropic.com:443 HTTP/1.1`). */
  connections: string[];
  stop(): void;
}

export async function startTrapProxy(): Promise<TrapProxy> {
  const connections: string[] = [];
  const listener = Bun.listen({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      data(socket, data) {
        connections.push(data.toString().split("\r\n")[0] ?? "");
        socket.end();
      },
    },
  });
  return { url: `http://127.0.0.1:${listener.port}`, connections, stop: () => listener.stop(true) };
}
