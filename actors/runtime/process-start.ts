import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";

/**
 * When process `pid` of this host started, as a string only compared with another reading of the
 * same process; undefined when no such process runs (gone, or a zombie: killed, not yet reaped by
 * its parent). Together with the pid it names one process: a pid the system has since given to
 * another process reads another start time.
 */
export function processStart(pid: number): string | undefined {
  return process.platform === "linux" ? fromProcfs(pid) : fromPs(pid);
}

/** /proc/<pid>/stat: the state is the field after the command's name, the start time (in clock ticks since boot) the 20th after it. */
function fromProcfs(pid: number): string | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // The command's name is in parentheses and may hold spaces and parentheses itself.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const [state] = fields;
  if (state === "Z" || state === "X" || state === "x") return undefined;
  return fields[19];
}

/** macOS and the other Unixes: `ps` tells the state (Z for a zombie) and the start time. */
function fromPs(pid: number): string | undefined {
  const ps = spawnSync("ps", ["-o", "stat=,lstart=", "-p", String(pid)], { encoding: "utf8" });
  if (ps.error) return aliveBySignal(pid) ? "" : undefined;
  const line = ps.stdout.trim();
  if (ps.status !== 0 || !line || line.startsWith("Z")) return undefined;
  return line.slice(line.indexOf(" ") + 1).trim();
}

/** Where not even `ps` runs: signal 0 tells only that the pid is taken (a zombie's too). */
function aliveBySignal(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
