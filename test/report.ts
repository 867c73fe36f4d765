/**
 * With PRAXIS_TEST_REPORT_DIR set (as `.ci/run` does), each vitest project also writes a JSON
 * report there, so CI can sum the projects' counts; `npm test` alone only prints.
 */
export function reporting(project: string) {
  const dir = process.env.PRAXIS_TEST_REPORT_DIR;
  return dir ? { reporters: ["default", "json"], outputFile: { json: `${dir}/${project}.json` } } : {};
}
