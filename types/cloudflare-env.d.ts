declare namespace Cloudflare {
  type PraxisEnv = import("../src/env").Env;
  interface Env extends PraxisEnv {
    TEST_MIGRATIONS: import("cloudflare:test").D1Migration[];
  }
}
