import type { Command } from "commander";
import { Praxis, unwrap } from "../../../client/src/index.js";
import { connection, writeConfig } from "../config.js";
import { output } from "../output.js";

export function registerLogin(program: Command): void {
  program
    .command("login")
    .description("Check a URL and key against the API and save them (~/.config/praxis/config.json, mode 0600)")
    .action(async (_opts, cmd: Command) => {
      const { url, key } = connection(cmd);
      await unwrap(new Praxis({ baseUrl: url, apiKey: key }).api.GET("/v1/agents", { params: { query: { limit: 1 } } }));
      const file = writeConfig({ url, key });
      output(cmd, { url, config: file }, () => console.log(`Saved ${url} and the key to ${file}`));
    });
}
