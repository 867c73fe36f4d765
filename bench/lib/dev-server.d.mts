// Types for the parts of dev-server.mjs that TypeScript callers (test/node) use.
export interface DevServer {
  start(opts: {
    firstPort: number;
    vars: Record<string, string>;
    fromHead?: boolean;
    logLevel?: string;
    main?: string;
  }): Promise<{ base: string; port: number; logFile: string; inspectorPort: number }>;
  /** Stops wrangler dev (`signal` SIGKILL: a crash of its whole process group) and starts it again on the same state. */
  restart(opts?: { signal?: NodeJS.Signals }): Promise<{ base: string; port: number; logFile: string; inspectorPort: number }>;
  cleanup(): Promise<void>;
  onCleanup(fn: () => unknown): void;
  readonly stopping: boolean;
}
export function devServer(opts?: { keep?: boolean; tmpPrefix?: string; project?: string }): DevServer;
export function freePort(start: number): Promise<number>;
export const root: string;
/** The last `lines` lines of a file, or "(no log)". */
export function tail(file: string, lines?: number): string;
