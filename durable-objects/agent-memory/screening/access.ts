import type { ScreeningPolicy } from "./screen";

/** How a client's write came in: its door, and whether its key is admin-scoped. */
export interface WriteAccess {
  door?: "api" | "mcp";
  admin?: boolean;
  /** The door had the text safety-reviewed (and found safe) before writing it; the filter still applies. */
  reviewed?: boolean;
}

export const policyOf = (access: WriteAccess | undefined, door: ScreeningPolicy["door"] = access?.door ?? "api"): ScreeningPolicy => ({
  door,
  admin: access?.admin ?? false,
  ...(access?.reviewed ? { reviewed: true } : {}),
});
