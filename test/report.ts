/**
 * With PRAXIS_TEST_REPORT_DIR set (scripts/test.mjs sets it for `npm test` and `.ci/run`), each
 * vitest run also writes a JSON report there, from which the count of tests run is printed.
 */
export function reporting(project: string) {
  const dir = process.env.PRAXIS_TEST_REPORT_DIR;
  return dir ? { reporters: ["default", "json"], outputFile: { json: `${dir}/${project}.json` } } : {};
}
