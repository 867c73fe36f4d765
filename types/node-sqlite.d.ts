/**
 * The part of node:sqlite (Node 22.5+; the project's @types/node is 20's) that
 * test/do/practice-run-schema.test.ts uses to replay a Durable Object's schema steps in Node.
 */
declare module "node:sqlite" {
  interface StatementSync {
    run(...params: unknown[]): unknown;
    all(...params: unknown[]): Record<string, unknown>[];
  }
  export class DatabaseSync {
    constructor(path: string);
    exec(sql: string): void;
    prepare(sql: string): StatementSync;
  }
}
