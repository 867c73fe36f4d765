import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The order `npm test` hands files to its two workers (vitest.config.ts). Files that run in a
 * runtime of their own go first, longest first (vitest's cached durations, or file size on a fresh
 * clone), so the longest ones do not end the run alone. The shared files follow, together: a
 * worker that ends a shared file takes the next one into the same runtime (vitest reuses a runner
 * only for the file at the head of the queue that belongs to the same project), so they run in two
 * runtimes, one per worker. Pure Node files, which start no runtime, go last.
 */
export default class PraxisSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      if (spec.project.name === "unit") return 2;
      return spec.project.config.isolate === false ? 1 : 0;
    };
    // Array sort is stable: within a rank the base order stands, and it keeps a project's files together.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
