// Types for retrieval-set.mjs, for the TypeScript benchmarks.
export interface Lesson {
  id: string;
  domain: string;
  text: string;
}
export interface Query {
  id: string;
  query: string;
  relevant: string[];
}
export interface Metrics {
  r1: number;
  r5: number;
  mrr: number;
  empty: number;
}
export const lessons: Lesson[];
export const queries: Query[];
export const DEPTH: number;
export const SPLITS: { name: string; suffix: string }[];
export function metrics(rankings: readonly (readonly string[])[], suffix?: string): Metrics;
