import type { TestProject } from "vitest/node";
import { startLocalWorker } from "./local-worker";

declare module "vitest" {
  export interface ProvidedContext {
    localWorker: { url: string; adminKey: string };
  }
}

/** One Worker for every Node-side test file: starting wrangler dev costs seconds of both cores. */
export default async function setup(project: TestProject) {
  const worker = await startLocalWorker();
  project.provide("localWorker", { url: worker.url, adminKey: worker.adminKey });
  return () => worker.stop();
}
