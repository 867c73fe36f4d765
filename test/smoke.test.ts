import { SELF } from "cloudflare:test";
import { it, expect } from "vitest";
it("pings", async () => { const r = await SELF.fetch("http://x/"); expect(await r.text()).toBe("pong"); });
